/* gs_nbody_fmm_solver.c: the fast multipole solver's table (gs_nbody_solver.h): the replicated
 * layout (gs_nbody_repl.c), its evaluation (gs_nbody_fmm.c) and its reports
 * (gs_nbody_fmm_report.c). A table of its own so that neither of those two includes the other. */
#include <stdlib.h>

#include "gs_checkpoint.h"
#include "gs_nbody_exchange.h"
#include "gs_nbody_fmm.h"
#include "gs_nbody_fmm_report.h"

/* A step: the positions' all-gather, then the forces; the four parts' times into st. The first
 * evaluation (no exchange: every rank holds every body) counts the interactions for the rates. */
static double gs_nbody_fmm_solver_step(void *s, int potential, int first, struct gs_step_times *st) {
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
static const void *gs_nbody_fmm_solver_potential(void *s, int fresh) {
  struct gs_nbody_fmm *f = s;
  struct gs_nbody_job *job = f->repl.job;
  if (!fresh) return job->d_acc;
  gs_nbody_fmm_forces(f, job->d_acc_scratch, 0);
  job->be->queue_sync(job->ctx, job->qc);
  return job->d_acc_scratch;
}

static double gs_nbody_fmm_solver_memory(const struct gs_nbody_job *job, uint64_t n) {
  (void)job;
  /* the backend's tree (the CPU's: room for 2n nodes, the bodies twice, the cells' expansions): about
   * 1 KiB a body at the default order */
  return 1024.0 * (double)n;
}

static void gs_nbody_fmm_solver_adopt(const struct gs_ckpt_header *h, struct gs_nbody_opts *o, const struct gs_options *opt) {
  if (!gs_options_given(opt, "fmm-order")) o->fmm_order = h->order;
  if (!gs_options_given(opt, "fmm-theta")) o->fmm_theta = h->theta;
}

static int gs_nbody_fmm_solver_check(struct gs_nbody_job *job, struct gs_msg *msg) {
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

static void *gs_nbody_fmm_solver_open(struct gs_nbody_job *job) {
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

static double gs_nbody_fmm_solver_interactions(void *s) {
  const struct gs_nbody_fmm *f = s;
  return f->m2l + f->p2p;
}

static void gs_nbody_fmm_solver_ckpt(const struct gs_nbody_job *job, struct gs_ckpt_header *h) {
  h->solver = GS_NBODY_FMM, h->order = job->o->fmm_order, h->theta = job->o->fmm_theta;
  h->opening = 0, h->alpha = 0, h->leaf = 0;
}

static void gs_nbody_fmm_solver_close(void *s) {
  struct gs_nbody_fmm *f = s;
  struct gs_nbody_job *job = f->repl.job;
  job->be->fmm->close(job->ctx, f->tree);
  job->be->free_device(job->ctx, f->d_counts);
  for (int e = 0; e < 5; e++)
    job->be->event_destroy(job->ctx, f->ev[e]);
  gs_nbody_repl_close(&f->repl);
  free(f);
}

static int gs_nbody_fmm_solver_runs_on(const struct gs_backend *be) { return be->fmm != NULL; }

const struct gs_nbody_solver gs_nbody_fmm_solver_ops = {
    .name = "fmm",
    .id = GS_NBODY_FMM,
    .layout = GS_NBODY_LAYOUT_REPLICATED,
    .rank_exact = 1,
    .runs_on = gs_nbody_fmm_solver_runs_on,
    .memory = gs_nbody_fmm_solver_memory,
    .adopt = gs_nbody_fmm_solver_adopt,
    .check = gs_nbody_fmm_solver_check,
    .open = gs_nbody_fmm_solver_open,
    .load = gs_nbody_repl_load,
    .resume = gs_nbody_repl_resume,
    .held = gs_nbody_repl_held,
    .forces = gs_nbody_fmm_solver_step,
    .potential = gs_nbody_fmm_solver_potential,
    .keep = gs_nbody_repl_keep,
    .undo = gs_nbody_repl_undo,
    .gather = gs_nbody_repl_gather,
    .interactions = gs_nbody_fmm_solver_interactions,
    .header = gs_nbody_fmm_report_header,
    .report_first = gs_nbody_fmm_report_first,
    .report_steps = gs_nbody_fmm_report_steps,
    .report_final = gs_nbody_fmm_report_final,
    .ckpt = gs_nbody_fmm_solver_ckpt,
    .momentum_tol = gs_nbody_fmm_momentum_tol,
    .close = gs_nbody_fmm_solver_close,
};
