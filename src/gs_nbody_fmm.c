/* gs_nbody_fmm.c: --solver fmm: the fast multipole method (Dehnen's falcON) on the replicated
 * layout. Every rank holds every position (the positions' all-gather of gs_nbody_repl.h) and
 * runs the whole evaluation with all of its cores, then keeps its own slice's forces: the walk
 * applies each interaction to both of its sides at once, so a share of the interactions would
 * give each rank partial sums of every cell, whose combination in a fixed order costs the whole
 * tree's expansions in messages (docs/fmm.md, "Ranks"). Ranks therefore add no speed here; they
 * change no bit either. The primitives are the backend's (struct gs_fmm_ops), the reports
 * gs_nbody_fmm_report.c's. */
#include "gs_nbody_fmm.h"

#include <math.h>
#include <stdlib.h>

#include "gs_checkpoint.h"
#include "gs_nbody_exchange.h"
#include "gs_nbody_fmm_report.h"

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

/* A step: the positions' all-gather, then the forces; the four parts' times into st. The first
 * evaluation (no exchange: every rank holds every body) counts the interactions for the rates. */
static double gs_nbody_fmm_step(void *s, int potential, int first, struct gs_step_times *st) {
  struct gs_nbody_fmm *f = s;
  struct gs_nbody_job *job = f->repl.job;
  (void)potential; /* always computed */
  if (first) {
    gs_nbody_fmm_forces(f, job->d_acc, 1);
    job->be->queue_sync(job->ctx, job->qc);
    return 0;
  }
  double exchange = gs_nbody_exchange_gather(job, job->d_pos);
  st->forces = 0;
  for (int k = 0; k < 4; k++)
    st->part[k] = 0;
  if (gs_nbody_fmm_forces(f, job->d_acc, 0)) {
    gs_nbody_fmm_times(f, st->part);
    st->forces = st->part[0] + st->part[1] + st->part[2] + st->part[3];
  }
  return exchange;
}

/* The held forces carry the potential; a restart's (the checkpoint's w may be another solver's)
 * or another fresh need gets an evaluation into the scratch, d_acc keeping its bits. */
static const void *gs_nbody_fmm_potential(void *s, int fresh) {
  struct gs_nbody_fmm *f = s;
  struct gs_nbody_job *job = f->repl.job;
  if (!fresh) return job->d_acc;
  gs_nbody_fmm_forces(f, job->d_acc_scratch, 0);
  job->be->queue_sync(job->ctx, job->qc);
  return job->d_acc_scratch;
}

static double gs_nbody_fmm_memory(const struct gs_nbody_job *job, uint64_t n) {
  (void)job;
  /* the backend's tree (the CPU's: room for 2n nodes, the bodies twice, the cells' expansions): about
   * 1 KiB a body at the default order */
  return 1024.0 * (double)n;
}

static void gs_nbody_fmm_adopt(const struct gs_ckpt_header *h, struct gs_nbody_opts *o, const struct gs_options *opt) {
  if (!gs_options_given(opt, "fmm-order")) o->fmm_order = h->order;
  if (!gs_options_given(opt, "fmm-theta")) o->fmm_theta = h->theta;
}

static int gs_nbody_fmm_check(struct gs_nbody_job *job, struct gs_msg *msg) {
  job->kname = "fmm";
  if (!job->be->fmm)
    return gs_error_msg(msg, "--solver fmm: the %s backend has no fast multipole solver (give --backend cpu, or "
                             "--solver tree)", job->be->name);
  if (job->law == GS_LAW_CUTOFF)
    return gs_error_msg(msg, "--solver fmm: the cutoff force law of --ic disk has no smooth expansion (give --ic "
                             "plummer, uniform or a file, which use Plummer softening, or --solver tree)");
  if (gs_options_given(job->run->opt, "kernel"))
    return gs_error_msg(
        msg, "--kernel names direct-sum kernels: the checkpoint's solver is the fmm (give --solver direct)");
  return GS_OK;
}

static void *gs_nbody_fmm_open(struct gs_nbody_job *job) {
  struct gs_nbody_fmm *f = calloc(1, sizeof *f);
  if (!f) GS_DIE(&job->run->where, "calloc", "out of memory");
  const struct gs_backend *be = job->be;
  gs_nbody_repl_open(&f->repl, job);
  f->tree = be->fmm->open(job->ctx);
  f->d_counts = be->alloc_device(job->ctx, GS_FMM_COUNTS * sizeof(uint64_t));
  be->zero_device(job->ctx, f->d_counts, GS_FMM_COUNTS * sizeof(uint64_t), job->qc);
  for (int e = 0; e < 5; e++)
    f->ev[e] = be->event_create(job->ctx);
  be->queue_sync(job->ctx, job->qc);
  return f;
}

static double gs_nbody_fmm_interactions(void *s) {
  const struct gs_nbody_fmm *f = s;
  return f->m2l + f->p2p;
}

static void gs_nbody_fmm_ckpt(const struct gs_nbody_job *job, struct gs_ckpt_header *h) {
  h->solver = GS_NBODY_FMM, h->order = job->o->fmm_order, h->theta = job->o->fmm_theta;
  h->opening = 0, h->alpha = 0, h->leaf = 0;
}

static void gs_nbody_fmm_close(void *s) {
  struct gs_nbody_fmm *f = s;
  struct gs_nbody_job *job = f->repl.job;
  job->be->fmm->close(job->ctx, f->tree);
  job->be->free_device(job->ctx, f->d_counts);
  for (int e = 0; e < 5; e++)
    job->be->event_destroy(job->ctx, f->ev[e]);
  gs_nbody_repl_close(&f->repl);
  free(f);
}

static int gs_nbody_fmm_runs_on(const struct gs_backend *be) { return be->fmm != NULL; }

const struct gs_nbody_solver gs_nbody_fmm_ops = {
    .name = "fmm",
    .id = GS_NBODY_FMM,
    .layout = GS_NBODY_LAYOUT_REPLICATED,
    .rank_exact = 1,
    .runs_on = gs_nbody_fmm_runs_on,
    .memory = gs_nbody_fmm_memory,
    .adopt = gs_nbody_fmm_adopt,
    .check = gs_nbody_fmm_check,
    .open = gs_nbody_fmm_open,
    .load = gs_nbody_repl_load,
    .resume = gs_nbody_repl_resume,
    .held = gs_nbody_repl_held,
    .forces = gs_nbody_fmm_step,
    .potential = gs_nbody_fmm_potential,
    .keep = gs_nbody_repl_keep,
    .undo = gs_nbody_repl_undo,
    .gather = gs_nbody_repl_gather,
    .interactions = gs_nbody_fmm_interactions,
    .header = gs_nbody_fmm_report_header,
    .report_first = gs_nbody_fmm_report_first,
    .report_steps = gs_nbody_fmm_report_steps,
    .report_final = gs_nbody_fmm_report_final,
    .ckpt = gs_nbody_fmm_ckpt,
    .momentum_tol = gs_nbody_fmm_momentum_tol,
    .close = gs_nbody_fmm_close,
};
