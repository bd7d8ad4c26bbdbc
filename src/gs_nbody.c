/* gs_nbody.c: `gpusim nbody`. Sets up the bodies (every rank holds every position, owns the
 * velocities of a contiguous slice of whole tiles: gs_nbody_setup.c), times and verifies each
 * selected force kernel on the first step's forces against a double-precision CPU direct sum
 * (gs_nbody_ladder.c), then runs the kick-drift-kick leapfrog with the last kernel of the list
 * (gs_nbody_step.c) and reports the energy error and the per-step compute, exchange and overlap. */
#include "gs_nbody.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
#include "gs_io.h"
#include "gs_kernel_list.h"
#include "gs_nbody_energy.h"
#include "gs_nbody_forces.h"
#include "gs_nbody_io.h"
#include "gs_nbody_job.h"
#include "gs_nbody_ladder.h"
#include "gs_nbody_setup.h"
#include "gs_nbody_step.h"
#include "gs_nbody_tree.h"
#include "gs_nbody_tree_report.h"
#include "gs_signal.h"

/* Selected kernels that this backend runs (a mask over its list); the simulation's is the last
 * of them. GS_USAGE if the user named one it cannot run. */
static int gs_nbody_select(struct gs_nbody_job *job, unsigned *mask, struct gs_msg *msg) {
  const struct gs_nbody_ops *ops = job->be->nbody;
  if (gs_kernel_list_select(job->o->kernels, gs_nbody_options_kernels, GS_NBODY_OPTIONS_NUMBERED, ops->kernels,
                            ops->count, job->be->name, mask, msg) != GS_OK)
    return GS_USAGE;
  for (int i = 0; i < ops->count; i++)
    if (*mask & (1u << i)) job->kernel = ops->kernels[i].id, job->kname = ops->kernels[i].name;
  return GS_OK;
}

/* Kernels, sizes, the bodies or the checkpoint, and the output directory, all checked before
 * any work (a file's or a checkpoint's count is known only once read), so no step is lost to a
 * mistake. GS_OK, or GS_USAGE with msg on every rank. */
static int gs_nbody_plan(struct gs_nbody_job *job, struct gs_nbody_opts *o, unsigned *mask, struct gs_bodies *b,
                         struct gs_ckpt_header *ck, void **payload, struct gs_msg *msg) {
  if (gs_nbody_select(job, mask, msg) != GS_OK) return GS_USAGE;
  if (gs_exchange_open(&job->xchg, job->run, MPI_COMM_WORLD, o->exchange, msg) != GS_OK) return GS_USAGE;
  job->xchg.stop = gs_signal_pending; /* mpirun signals the survivors when a rank dies */
  int made = !o->restart[0] && gs_nbody_options_preset(o->ic);
  int status = made ? gs_nbody_setup_check_size(job, o->n, msg) : GS_OK;
  if (status == GS_OK)
    status = o->restart[0] ? gs_nbody_io_restart(job, ck, payload, msg) : gs_nbody_setup_bodies(job, b, msg);
  if (status == GS_OK && o->restart[0]) {
    gs_nbody_io_adopt(job, ck, o);
    status = gs_nbody_options_adopted(job->run->opt, o, ck->solver == GS_NBODY_TREE, msg);
  }
  job->tree = o->solver == GS_NBODY_TREE; /* after a restart adopted its checkpoint's */
  if (job->tree) job->kname = "tree";
  if (status == GS_OK && job->tree && !job->be->tree)
    status = gs_error_msg(msg, "--solver tree: the %s backend has no tree solver", job->be->name);
  if (status == GS_OK && job->tree && gs_options_given(job->run->opt, "kernel"))
    status = gs_error_msg(msg, "--kernel names direct-sum kernels: the checkpoint's solver is the tree (give --solver direct)");
  job->n = o->restart[0] ? job->n : b->n;
  if (status == GS_OK) status = gs_nbody_setup_check_size(job, job->n, msg);
  if (status == GS_OK) status = gs_nbody_io_prepare(job, o->restart[0] ? ck : NULL, msg);
  return status;
}

/* Rank 0: the run header and what this run does. */
static void gs_nbody_header(struct gs_nbody_job *job, const struct gs_rank_info *all, const struct gs_ckpt_header *ck,
                            double tol) {
  const struct gs_run *run = job->run;
  const struct gs_nbody_opts *o = job->o;
  gs_report_header(stdout, run, &job->rep, all);
  printf("# nbody: %s, N = %llu (padded to %llu in tiles of %d), %s precision, steps %ld..%d of dt = %g, overlap %s\n",
         job->ic_name, (unsigned long long)job->n, (unsigned long long)job->npad, GS_NBODY_TILE,
         job->prec ? "double" : "single", job->step0, o->steps, o->dt, o->overlap ? "on" : "off");
  printf("# exchange: %s\n", job->xchg.note);
  if (o->restart[0])
    printf("# restart: from %s at step %ld (written by %d rank(s)%s)\n", o->restart, job->step0, ck->ranks,
           ck->ranks == run->size ? ""
                                  : "; with another rank count the forces sum in another order: same state "
                                    "only within round-off");
  if (o->restart[0]) gs_nbody_tree_report_restart(job, ck);
  if (job->law == GS_LAW_PLUMMER)
    printf("# force: G = %g, Plummer softening eps = %g; kick-drift-kick leapfrog\n", job->G, o->eps);
  else
    printf("# force: G m = %g (unit masses), no force closer than %g (the seed 003 model); kick-drift-kick leapfrog\n",
           job->G, sqrt(job->cut2));
  if (job->tree) {
    gs_nbody_tree_report_header(job, tol);
    if (o->snapshot_every > 0 || o->checkpoint_every > 0 || o->checkpoint_interval > 0 || o->walltime_s > 0)
      printf("# output: %s/ (snapshots: %s)\n", o->output, gs_io_format());
    fflush(stdout);
    return;
  }
  printf("# check: first-step forces of up to 1024 bodies against a double-precision CPU direct sum; error = "
         "max(|a - a_ref| / sum_j |G m_j r_ij| / r_ij^3, |phi - phi_ref| / |phi_ref|); tolerance %.2e\n",
         tol);
  printf("# rates: N^2 interactions per force evaluation, %d flops each (the seed's count, for both precisions); "
         "timing: %s, median\n",
         GS_NBODY_FLOPS, run->be->timing);
  if (o->snapshot_every > 0 || o->checkpoint_every > 0 || o->checkpoint_interval > 0 || o->walltime_s > 0)
    printf("# output: %s/ (snapshots: %s)\n", o->output, gs_io_format());
  fflush(stdout);
}

/* Forces and diagnostics at the first step of this run: a checkpoint's forces bit for bit (the
 * first half-kick must not see recomputed ones), or fresh ones (and snapshot 0). */
static struct gs_diag gs_nbody_start(struct gs_nbody_job *job, const void *acc_slice) {
  struct gs_diag d0;
  if (job->o->restart[0]) {
    job->be->copy_h2d(job->ctx, job->d_acc, acc_slice, job->count * job->esz, job->qc);
    job->be->queue_sync(job->ctx, job->qc);
    if (job->tree) gs_nbody_tree_resume(job);
    d0 = gs_nbody_energy_measure(job, 1);
  } else if (job->tree) {
    gs_nbody_tree_forces(job, job->d_acc, 1, 1, GS_NBODY_TREE_KEEP); /* the run's first evaluation: no a_old */
    job->be->queue_sync(job->ctx, job->qc);
    d0 = gs_nbody_energy_measure(job, 0);
    job->e0 = d0.energy;
    if (job->o->snapshot_every > 0 && gs_nbody_io_snapshot(job, 0, 0) != GS_OK) job->failed = job->write_failed = 1;
  } else {
    struct gs_nbody_force_args a = gs_nbody_forces_args(job, job->kernel, 0, job->npad, 0, 1);
    gs_nbody_forces_run(job, &a, job->qc);
    job->be->queue_sync(job->ctx, job->qc);
    d0 = gs_nbody_energy_measure(job, 0);
    job->e0 = d0.energy;
    if (job->o->snapshot_every > 0 && gs_nbody_io_snapshot(job, 0, 0) != GS_OK) job->failed = job->write_failed = 1;
  }
  job->de0 = gs_nbody_energy_rel_de(job, d0.energy);
  if (!job->p0_set) /* a restart from a checkpoint that does not record P0: the drift from here */
    memcpy(job->p0, d0.p, sizeof job->p0), job->p0_set = 1, job->p0_step = job->step0;
  return d0;
}

/* The per-step statistics of the steps run (slowest rank; rank 0 prints them and adds a row). */
static void gs_nbody_step_stats(struct gs_nbody_job *job, const struct gs_step_times *times, int steps) {
  const struct gs_run *run = job->run;
  if (job->tree) {
    gs_nbody_tree_report_steps(job, times, steps);
    return;
  }
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
  struct gs_row row = {.workload = "nbody",
                       .rank = -1,
                       .problem_size = job->n,
                       .iterations = steps,
                       .t_min = st[0].min,
                       .t_median = st[0].median,
                       .t_max = st[0].max,
                       .metric = "interactions",
                       .value = rate,
                       .unit = "1/s",
                       .efficiency = -1};
  snprintf(row.kernel, sizeof row.kernel, "%s", job->kname);
  char extra[128];
  snprintf(extra, sizeof extra, "phase=step;forces_s=%.6g;exchange_s=%.6g;hidden=%.3f;exchange=%s", st[1].median,
           st[2].median, st[3].median, gs_exchange_name(job->xchg.mode));
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(&job->rep, &row);
}

/* The final state's hash, the energy and timing caveats and the verdict; the exit status. */
static int gs_nbody_verdict(struct gs_nbody_job *job, long last) {
  const struct gs_run *run = job->run;
  uint64_t hash = gs_nbody_io_hash(job);
  int failed = job->failed, any = 0;
  long expired = 0;
  GS_CHECK_MPI(&run->where, MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  GS_CHECK_MPI(&run->where, MPI_Reduce(&job->gate_expired, &expired, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  if (run->rank == 0) {
    printf("# final state: step %ld, t = %.17g, positions and velocities FNV-1a 64 = %016llx\n", last,
           last * job->o->dt, (unsigned long long)hash);
    if (expired)
      printf("# timing: WARNING: in %ld timed evaluation(s) the gate gave up waiting (2 s) before the work was "
             "queued: those times include host time\n",
             expired);
    /* Energy conservation is the integration's accuracy at this dt, not a malfunction: reported
     * apart from the force verification, and a drift past the tolerance is a warning. */
    if (job->de_last < 0)
      printf("# energy: |dE/E0| undefined (E0 = 0: one body or no mass): no verdict\n");
    else
      printf("# energy: |dE/E0| = %.3e at step %ld (tolerance %.0e): %s\n", job->de_last, job->de_step,
             GS_NBODY_ENERGY_TOL, job->de_last <= GS_NBODY_ENERGY_TOL ? "OK" : "DRIFT (a warning; see README, nbody)");
    char p0[40] = "P0"; /* a restart from a checkpoint without P0: the drift since the restart */
    if (job->p0_step) snprintf(p0, sizeof p0, "P(step %ld)", job->p0_step);
    if (job->dp_last < 0)
      printf("# momentum: |P - %s| / (M v_rms) undefined (no mass or no motion): no verdict\n", p0);
    else
      printf("# momentum: |P - %s| / (M v_rms) = %.3e at step %ld (M v_rms = sqrt(2 M K); no tolerance: the direct "
             "sum keeps it at round-off, a tree's forces are not pairwise symmetric and let it drift: docs/tree.md)\n",
             p0, job->dp_last, job->de_step);
  }
  return gs_bench_verdict(run, &job->rep, any);
}

/* Single precision: rsqrtf and float sums; two-level sums keep the error near sqrt(N) ulps. */
static double gs_nbody_tolerance(const struct gs_nbody_job *job) {
  double u = job->prec ? ldexp(1.0, -53) : ldexp(1.0, -24), tol = 4.0 * u * sqrt((double)job->n);
  return tol < (job->prec ? 1e-12 : 1e-5) ? (job->prec ? 1e-12 : 1e-5) : tol;
}

/* The simulation: steps from job->step0, their statistics and the verdict. */
static int gs_nbody_simulate(struct gs_nbody_job *job, const void *acc_slice) {
  struct gs_diag d0 = gs_nbody_start(job, acc_slice);
  if (job->run->rank == 0) printf("# simulation with kernel %s\n", job->kname);
  gs_nbody_energy_header(job, job->step0, &d0);
  long remaining = job->o->steps - job->step0;
  struct gs_step_times *times = calloc((size_t)(remaining > 0 ? remaining : 1), sizeof *times);
  if (!times) GS_DIE(&job->run->where, "calloc", "out of memory");
  long last = gs_nbody_step_run(job, times);
  if (last > job->step0) gs_nbody_step_stats(job, times, (int)(last - job->step0));
  free(times);
  if (job->tree) gs_nbody_tree_report_final(job, last, gs_nbody_options_force_tol(job->o, job->law == GS_LAW_CUTOFF));
  return gs_nbody_verdict(job, last);
}

static int gs_nbody_main(struct gs_run *run) {
  struct gs_nbody_opts o = *(const struct gs_nbody_opts *)gs_options_workload(run->opt); /* a restart adopts */
  struct gs_nbody_job job = {.run = run, .o = &o, .be = run->be, .ctx = run->ctx, .t_start = MPI_Wtime()};
  job.kernels = job.be->nbody->kernels;
  job.prec = o.precision;
  job.esz = job.prec ? 32 : 16;
  gs_signal_install();
  struct gs_msg msg;
  struct gs_bodies b = {0};
  struct gs_ckpt_header ck;
  void *payload = NULL, *acc_slice = NULL;
  unsigned mask;
  if (gs_nbody_plan(&job, &o, &mask, &b, &ck, &payload, &msg) != GS_OK) {
    gs_error_report(run->rank, &msg);
    gs_exchange_close(&job.xchg);
    gs_ic_free(&b);
    free(payload);
    return GS_USAGE;
  }
  job.corrupt = gs_error_test_corrupt(job.tree ? "nbody-tree" : "nbody-direct"); /* job.tree: after the plan */
  gs_nbody_setup_decompose(&job);
  gs_report_init(&job.rep, run);
  struct gs_rank_info *all = run->rank == 0 ? calloc((size_t)run->size, sizeof *all) : NULL;
  if (run->rank == 0 && !all) GS_DIE(&run->where, "calloc", "out of memory");
  gs_mpi_gather_ranks(run, all);
  gs_nbody_setup_alloc(&job);
  if (o.restart[0])
    gs_nbody_setup_load_checkpoint(&job, payload, &acc_slice);
  else
    gs_nbody_setup_load_bodies(&job, &b);
  free(payload);
  gs_ic_free(&b);
  job.mass = gs_nbody_energy_mass(&job); /* h_pos holds every body now */
  double tol = job.tree ? gs_nbody_options_force_tol(&o, job.law == GS_LAW_CUTOFF) : gs_nbody_tolerance(&job);
  if (run->rank == 0) gs_nbody_header(&job, all, &ck, tol);
  free(all);
  if (job.tree)
    gs_nbody_tree_alloc(&job), gs_nbody_tree_report_table(&job, tol);
  else
    gs_nbody_ladder_run(&job, mask, tol);
  int status = gs_nbody_simulate(&job, acc_slice);
  free(acc_slice);
  gs_nbody_tree_free(&job);
  gs_nbody_setup_free(&job);
  return status;
}

const struct gs_workload gs_nbody_workload = {
    .name = "nbody",
    .summary = "gravitational N-body, leapfrog: all-pairs (force kernel ladder) or a Barnes-Hut tree",
    .opts = gs_nbody_options_table,
    .opts_size = sizeof(struct gs_nbody_opts),
    .defaults = gs_nbody_options_defaults,
    .validate = gs_nbody_options_validate,
    .kernels = gs_nbody_options_kernels,
    .numbered = GS_NBODY_OPTIONS_NUMBERED,
    .main = gs_nbody_main,
};
