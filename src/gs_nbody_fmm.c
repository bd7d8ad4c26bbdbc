/* gs_nbody_fmm.c: --solver fmm: the fast multipole method (Dehnen's falcON) on the replicated
 * layout. Every rank holds every position (the positions' all-gather of gs_nbody_repl.h) and
 * runs the whole evaluation with all of its cores, then keeps its own slice's forces: the walk
 * applies each interaction to both of its sides at once, so a share of the interactions would
 * give each rank partial sums of every cell, whose combination in a fixed order costs the whole
 * tree's expansions in messages (docs/fmm.md, "Ranks"). Ranks therefore add no speed here; they
 * change no bit either. The primitives are the backend's (struct gs_fmm_ops), the reports
 * gs_nbody_fmm_report.c's, the solver table gs_nbody_fmm_solver.c's. */
#include "gs_nbody_fmm.h"

/* The run's settings as the primitives take them. The potential always: it costs a few flops per
 * body and pair, and the diagnostics then need no evaluation of their own. */
static struct gs_fmm_args gs_nbody_fmm_args(const struct gs_nbody_fmm *f, uint64_t *counts) {
  const struct gs_nbody_job *job = f->repl.job;
  struct gs_fmm_args a = {.precision = job->prec,
                          .pos = job->d_pos,
                          .n = job->n,
                          .potential = 1,
                          .G = job->corrupt ? -job->G : job->G, /* a planted fault: repulsion */
                          .eps2 = job->eps2,
                          .order = job->o->fmm_order,
                          .theta = job->o->fmm_theta,
                          .counts = counts,
                          .stop = job->stop};
  return a;
}

double gs_nbody_fmm_m2l_flops(int order) {
  /* per (k, j) pair two multiply-adds (both sides), per derivative entry three operations (its
   * recurrence), per coefficient four (signs and factorials), and 20 for the distance */
  double pairs = 1, entries = 0, nc = (order + 1) * (order + 2) * (order + 3) / 6.0;
  for (int k = 1; k <= 6; k++)
    pairs = pairs * (order + k) / k;
  for (int n = 0; n <= order; n++)
    entries += (order - n + 1) * (order - n + 2) * (order - n + 3) / 6.0;
  return 4 * pairs + 3 * entries + 4 * nc + 20;
}

int gs_nbody_fmm_forces(struct gs_nbody_fmm *f, void *acc, int counted) {
  struct gs_nbody_job *job = f->repl.job;
  const struct gs_backend *be = job->be;
  const struct gs_fmm_ops *ops = be->fmm;
  gs_ctx *c = job->ctx;
  if (job->stop && job->stop()) return 0; /* abandoned: nothing shared to take part in */
  struct gs_fmm_args a = gs_nbody_fmm_args(f, counted ? f->d_counts : NULL);
  be->event_record(c, f->ev[0], job->qc);
  ops->build(c, f->tree, &a, job->qc);
  be->event_record(c, f->ev[1], job->qc);
  ops->upward(c, f->tree, &a, job->qc);
  be->event_record(c, f->ev[2], job->qc);
  ops->interact(c, f->tree, &a, job->qc);
  be->event_record(c, f->ev[3], job->qc);
  ops->downward(c, f->tree, &a, job->qc);
  be->event_record(c, f->ev[4], job->qc);
  if (job->count) ops->unsort(c, f->tree, &a, acc, job->first, job->count, job->qc);
  if (counted) {
    uint64_t h[GS_FMM_COUNTS];
    be->copy_d2h(c, h, f->d_counts, sizeof h, job->qc);
    be->queue_sync(c, job->qc);
    f->m2l = (double)h[GS_FMM_M2L], f->p2p = (double)h[GS_FMM_P2P];
    f->flops = f->m2l * gs_nbody_fmm_m2l_flops(job->o->fmm_order) + f->p2p * GS_NBODY_FMM_PAIR_FLOPS;
  }
  return !(job->stop && job->stop()); /* stopped midway: the forces are incomplete */
}

void gs_nbody_fmm_times(struct gs_nbody_fmm *f, double part[4]) {
  const struct gs_nbody_job *job = f->repl.job;
  job->be->event_sync(job->ctx, f->ev[4]);
  for (int k = 0; k < 4; k++)
    part[k] = job->be->event_seconds(job->ctx, f->ev[k], f->ev[k + 1]);
}

double gs_nbody_fmm_momentum_tol(const struct gs_nbody_job *job, long steps) {
  double per100 = job->prec ? GS_NBODY_FMM_MOMENTUM_DOUBLE : GS_NBODY_FMM_MOMENTUM_SINGLE;
  return per100 * (steps > 100 ? (double)steps / 100 : 1);
}

