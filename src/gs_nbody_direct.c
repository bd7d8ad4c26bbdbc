/* gs_nbody_direct.c: the direct (all-pairs) solver behind the seam: the replicated layout
 * (gs_nbody_repl.c), a step's forces with the positions' ring or all-gather
 * (gs_nbody_exchange.c), the kernel ladder as its first report (gs_nbody_ladder.c) and its
 * per-step line. */
#include "gs_nbody_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gs_checkpoint.h"
#include "gs_nbody_exchange.h"
#include "gs_nbody_forces.h"
#include "gs_nbody_ladder.h"
#include "gs_nbody_repl.h"

struct gs_nbody_direct {
  struct gs_nbody_repl repl; /* first: the layout's functions take this state */
};

/* Single precision: rsqrtf and float sums; two-level sums keep the error near sqrt(N) ulps. */
static double gs_nbody_direct_tolerance(const struct gs_nbody_job *job) {
  double u = job->prec ? ldexp(1.0, -53) : ldexp(1.0, -24), tol = 4.0 * u * sqrt((double)job->n);
  return tol < (job->prec ? 1e-12 : 1e-5) ? (job->prec ? 1e-12 : 1e-5) : tol;
}

static double gs_nbody_direct_memory(const struct gs_nbody_job *job, uint64_t n) {
  (void)job, (void)n; /* the replicated layout's and the force workspace: the driver's count */
  return 0;
}

static void gs_nbody_direct_adopt(const struct gs_ckpt_header *h, struct gs_nbody_opts *o,
                                  const struct gs_options *opt) {
  (void)h, (void)o, (void)opt; /* no settings of its own */
}

static int gs_nbody_direct_check(struct gs_nbody_job *job, struct gs_msg *msg) {
  (void)job, (void)msg; /* the kernels were selected in the plan (gs_nbody_select) */
  return GS_OK;
}

static void *gs_nbody_direct_open(struct gs_nbody_job *job) {
  struct gs_nbody_direct *d = calloc(1, sizeof *d);
  if (!d) GS_DIE(&job->run->where, "calloc", "out of memory");
  gs_nbody_repl_open(&d->repl, job);
  return d;
}

/* The first evaluation: every position is on every device, all forces at once; a step's: the
 * exchange (ring with --overlap on, else all-gather first). */
static double gs_nbody_direct_forces(void *s, int potential, int first, struct gs_step_times *st) {
  struct gs_nbody_job *job = ((struct gs_nbody_direct *)s)->repl.job;
  if (first) {
    struct gs_nbody_force_args a = gs_nbody_forces_args(job, job->kernel, 0, job->npad, 0, potential);
    gs_nbody_forces_run(job, &a, job->qc);
    job->be->queue_sync(job->ctx, job->qc);
    return 0;
  }
  double forces, exchange = gs_nbody_exchange_run(job, potential, &forces);
  st->forces = forces;
  return exchange;
}

/* The potential off the energy schedule: a separate evaluation into scratch, so the forces that
 * drive the orbits keep exactly the bits an uninterrupted run would have. */
static const void *gs_nbody_direct_potential(void *s, int fresh) {
  struct gs_nbody_job *job = ((struct gs_nbody_direct *)s)->repl.job;
  if (!fresh || !job->count) return job->d_acc;
  struct gs_nbody_force_args a = gs_nbody_forces_args(job, job->kernel, 0, job->npad, 0, 1);
  a.acc = job->d_acc_scratch;
  gs_nbody_forces_run(job, &a, job->qc);
  return job->d_acc_scratch;
}

static double gs_nbody_direct_interactions(void *s) {
  const struct gs_nbody_job *job = ((struct gs_nbody_direct *)s)->repl.job;
  return (double)job->n * (double)job->n;
}

static void gs_nbody_direct_header(void *s, const struct gs_ckpt_header *ck) {
  const struct gs_nbody_job *job = ((struct gs_nbody_direct *)s)->repl.job;
  (void)ck;
  printf("# check: first-step forces of up to 1024 bodies against a double-precision CPU direct sum; error = "
         "max(|a - a_ref| / sum_j |G m_j r_ij| / r_ij^3, |phi - phi_ref| / |phi_ref|); tolerance %.2e\n",
         gs_nbody_direct_tolerance(job));
  printf("# rates: N^2 interactions per force evaluation, %d flops each (the seed's count, for both precisions); "
         "timing: %s, median\n",
         GS_NBODY_FLOPS, job->run->be->timing);
}

static void gs_nbody_direct_first(void *s) {
  struct gs_nbody_job *job = ((struct gs_nbody_direct *)s)->repl.job;
  gs_nbody_ladder_run(job, job->mask, gs_nbody_direct_tolerance(job));
}

/* The per-step statistics of the steps run (slowest rank; rank 0 prints them and adds a row). */
static void gs_nbody_direct_steps(void *s, const struct gs_step_times *times, int steps) {
  struct gs_nbody_job *job = ((struct gs_nbody_direct *)s)->repl.job;
  const struct gs_run *run = job->run;
  double *t[4];
  struct gs_stats st[4];
  for (int c = 0; c < 4; c++)
    if (!(t[c] = malloc(sizeof(double) * (size_t)steps))) GS_DIE(&run->where, "malloc", "out of memory");
  for (int s = 0; s < steps; s++)
    t[0][s] = times[s].total, t[1][s] = times[s].forces, t[2][s] = times[s].exchange, t[3][s] = times[s].hidden;
  for (int c = 0; c < 4; c++)
    st[c] = gs_stats_slowest(&run->where, gs_stats_of(t[c], steps), NULL), free(t[c]);
  if (run->rank != 0) return;
  double rate = (double)job->n * (double)job->n / st[0].median;
  char hidden[64];
  /* Where queues do not run beside the host (the CPU backend), every piece runs at once: the
   * "exchange" includes the own slice's forces and nothing can overlap. */
  if (run->be->caps & GS_CAP_CONCURRENT)
    snprintf(hidden, sizeof hidden, "%.0f%% of the exchange hidden", 100 * st[3].median);
  else
    snprintf(hidden, sizeof hidden, "no overlap on the %s backend", run->be->name);
  printf("# per step (median of %d, slowest rank): total %.3f ms, forces %.3f ms, exchange %.3f ms, %s; "
         "%.4e interactions/s, %.1f GFLOP/s\n",
         steps, st[0].median * 1e3, st[1].median * 1e3, st[2].median * 1e3, hidden, rate, rate * GS_NBODY_FLOPS / 1e9);
  char extra[128];
  snprintf(extra, sizeof extra, "phase=step;forces_s=%.6g;exchange_s=%.6g;hidden=%.3f;exchange=%s", st[1].median,
           st[2].median, st[3].median, gs_exchange_name(job->xchg.mode));
  gs_nbody_ladder_step_row(job, job->kname, &st[0], steps, rate, extra);
}

static void gs_nbody_direct_final(void *s, long last) { (void)s, (void)last; /* checked at the start only */ }

static void gs_nbody_direct_ckpt(const struct gs_nbody_job *job, struct gs_ckpt_header *h) {
  (void)job;
  h->solver = GS_NBODY_DIRECT;
}

static void gs_nbody_direct_close(void *s) {
  gs_nbody_repl_close(&((struct gs_nbody_direct *)s)->repl);
  free(s);
}

const struct gs_nbody_solver gs_nbody_direct_ops = {
    .name = "direct",
    .id = GS_NBODY_DIRECT,
    .layout = GS_NBODY_LAYOUT_REPLICATED,
    .rank_exact = 0,
    .memory = gs_nbody_direct_memory,
    .adopt = gs_nbody_direct_adopt,
    .check = gs_nbody_direct_check,
    .open = gs_nbody_direct_open,
    .load = gs_nbody_repl_load,
    .resume = gs_nbody_repl_resume,
    .held = gs_nbody_repl_held,
    .forces = gs_nbody_direct_forces,
    .potential = gs_nbody_direct_potential,
    .keep = gs_nbody_repl_keep,
    .undo = gs_nbody_repl_undo,
    .gather = gs_nbody_repl_gather,
    .interactions = gs_nbody_direct_interactions,
    .header = gs_nbody_direct_header,
    .report_first = gs_nbody_direct_first,
    .report_steps = gs_nbody_direct_steps,
    .report_final = gs_nbody_direct_final,
    .ckpt = gs_nbody_direct_ckpt,
    .close = gs_nbody_direct_close,
};
