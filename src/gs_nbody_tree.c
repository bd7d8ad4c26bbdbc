/* gs_nbody_tree.c: --solver tree's evaluation: workspace, build + walk, a step's exchange. */
#include "gs_nbody_tree.h"

#include "gs_nbody_exchange.h"

void gs_nbody_tree_free(struct gs_nbody_job *job) {
  if (job->tws) job->be->free_device(job->ctx, job->tws);
  if (job->d_counts) job->be->free_device(job->ctx, job->d_counts);
  job->tws = NULL, job->d_counts = NULL;
}

static struct gs_tree_args gs_nbody_tree_args(const struct gs_nbody_job *job, void *acc, int potential, int first) {
  const struct gs_nbody_opts *o = job->o;
  struct gs_tree_args a = {.precision = job->prec,
                           .law = job->law,
                           .pos = job->d_pos,
                           .n = job->n,
                           .i_first = job->first,
                           .i_count = job->count,
                           .acc = acc,
                           .potential = potential,
                           .G = job->G,
                           .eps2 = job->eps2,
                           .cut2 = job->cut2,
                           .opening = o->opening,
                           .first = first,
                           .theta = o->theta,
                           .alpha = o->alpha,
                           .leaf = o->leaf,
                           .ws = job->tws,
                           .ws_bytes = job->twsb,
                           .stop = job->stop};
  return a;
}

void gs_nbody_tree_alloc(struct gs_nbody_job *job) {
  const struct gs_backend *be = job->be;
  struct gs_tree_args a = gs_nbody_tree_args(job, job->d_acc, 1, 1); /* all of a run's settings */
  job->twsb = be->tree->workspace(job->ctx, &a);
  job->tws = be->alloc_device(job->ctx, job->twsb ? job->twsb : 1);
  job->d_counts = be->alloc_device(job->ctx, GS_TREE_COUNTS * sizeof(uint64_t));
  be->zero_device(job->ctx, job->d_counts, GS_TREE_COUNTS * sizeof(uint64_t), job->qc);
  be->queue_sync(job->ctx, job->qc);
}

int gs_nbody_tree_forces(struct gs_nbody_job *job, void *acc, int potential, int first, int counts) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  struct gs_tree_args a = gs_nbody_tree_args(job, acc, potential, first);
  a.counts = counts ? job->d_counts : NULL;
  if (a.stop && a.stop()) return 0; /* abandoned: the step is undone */
  /* ev[0..2] are free here: the exchange uses ev[2P] and ev[2P + 1] only with P > 1 ranks. */
  be->event_record(c, job->ev[0], job->qc);
  be->tree->build(c, &a, job->qc);
  be->event_record(c, job->ev[1], job->qc);
  if (job->count) be->tree->walk(c, &a, job->qc);
  be->event_record(c, job->ev[2], job->qc);
  return 1;
}

void gs_nbody_tree_times(struct gs_nbody_job *job, double *build, double *walk) {
  const struct gs_backend *be = job->be;
  be->event_sync(job->ctx, job->ev[2]);
  *build = be->event_seconds(job->ctx, job->ev[0], job->ev[1]);
  *walk = be->event_seconds(job->ctx, job->ev[1], job->ev[2]);
}

double gs_nbody_tree_step(struct gs_nbody_job *job, int potential, struct gs_step_times *st) {
  double exchange = gs_nbody_exchange_all(job);
  st->build = st->walk = 0;
  if (gs_nbody_tree_forces(job, job->d_acc, potential, 0, 0)) gs_nbody_tree_times(job, &st->build, &st->walk);
  return exchange;
}

void gs_nbody_tree_scratch(struct gs_nbody_job *job) {
  job->be->copy_d2d(job->ctx, job->d_acc2, job->d_acc, job->count * job->esz, job->qc);
  gs_nbody_tree_forces(job, job->d_acc2, 1, 0, 0);
}
