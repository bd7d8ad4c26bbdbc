/* gs_nbody.c: `gpusim nbody`. Plans the run (kernels, sizes, the bodies or the checkpoint, the
 * solver: gs_nbody_solver.h), sets up the driver's state (gs_nbody_setup.c), hands the bodies to
 * the solver, which reports its first evaluation (the direct solver: each selected force kernel
 * timed and verified against a double-precision direct sum, gs_nbody_ladder.c; the tree: its
 * check and timing row), then runs the kick-drift-kick leapfrog (gs_nbody_step.c) and reports the
 * energy error, the solver's per-step statistics and the verdict. It never asks which solver runs. */
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
#include "gs_nbody_solver.h"
#include "gs_nbody_step.h"
#include "gs_signal.h"

/* Selected kernels that this backend runs (a mask over its list); the simulation's is the last
 * of them. GS_USAGE if the user named one it cannot run. */
static int gs_nbody_select(struct gs_nbody_job *job, unsigned *mask, struct gs_msg *msg) {
  const struct gs_nbody_ops *ops = job->be->nbody;
  if (gs_kernel_list_select(job->o->kernels, gs_nbody_options_kernels, gs_nbody_options_numbered, ops->kernels,
                            ops->count, job->be->name, mask, msg) != GS_OK)
    return GS_USAGE;
  for (int i = 0; i < ops->count; i++)
    if (*mask & (1u << i)) job->kernel = ops->kernels[i].id, job->kname = ops->kernels[i].name;
  job->mask = *mask;
  return GS_OK;
}

/* Kernels, sizes, the bodies or the checkpoint, and the output directory, all checked before
 * any work (a file's or a checkpoint's count is known only once read), so no step is lost to a
 * mistake. GS_OK, or GS_USAGE with msg on every rank. */
static int gs_nbody_plan(struct gs_nbody_job *job, struct gs_nbody_opts *o, unsigned *mask, struct gs_bodies *b,
                         struct gs_ckpt_header *ck, struct gs_ckpt_reader **ckpt, struct gs_msg *msg) {
  if (gs_nbody_select(job, mask, msg) != GS_OK) return GS_USAGE;
  if (gs_exchange_open(&job->xchg, job->run, MPI_COMM_WORLD, o->exchange, msg) != GS_OK) return GS_USAGE;
  job->xchg.stop = gs_signal_pending; /* mpirun signals the survivors when a rank dies */
  int made = !o->restart[0] && gs_nbody_options_preset(o->ic);
  int status = made ? gs_nbody_setup_check_size(job, o->n, msg) : GS_OK;
  if (status == GS_OK)
    status = o->restart[0] ? gs_nbody_io_restart(job, ck, ckpt, msg) : gs_nbody_setup_bodies(job, b, msg);
  if (status == GS_OK && o->restart[0]) {
    gs_nbody_io_adopt(job, ck, o);
    status = gs_nbody_options_adopted(job->run->opt, o, ck->solver, msg);
  }
  job->solver = gs_nbody_solver_pick(o, job->be); /* after a restart adopted its checkpoint's */
  if (status == GS_OK && !job->solver)
    status = gs_error_msg(msg, "--restart: the checkpoint names solver %d, which this program does not have", o->solver);
  if (status == GS_OK) status = job->solver->check(job, msg);
  if (status == GS_OK) status = gs_nbody_setup_check_size(job, job->n, msg);
  if (status == GS_OK) status = gs_nbody_io_prepare(job, o->restart[0] ? ck : NULL, msg);
  return status;
}

/* Rank 0: the run header and what this run does. */
static void gs_nbody_header(struct gs_nbody_job *job, const struct gs_rank_info *all, const struct gs_ckpt_header *ck) {
  const struct gs_run *run = job->run;
  const struct gs_nbody_opts *o = job->o;
  gs_report_header(stdout, run, &job->rep, all);
  printf("# nbody: %s, N = %llu (padded to %llu in tiles of %d), %s precision, steps %ld..%d of dt = %g, overlap %s\n",
         job->ic_name, (unsigned long long)job->n, (unsigned long long)job->npad, GS_NBODY_TILE,
         job->prec ? "double" : "single", job->step0, o->steps, o->dt, o->overlap ? "on" : "off");
  printf("# exchange: %s\n", job->xchg.note);
  if (o->restart[0])
    printf("# restart: from %s at step %ld (written by %d rank(s)%s)\n", o->restart, job->step0, ck->ranks,
           ck->ranks == run->size  ? ""
           : job->solver->rank_exact ? "; this solver's forces do not depend on the rank count: it changes no bit"
                                     : "; with another rank count the forces sum in another order: same state "
                                       "only within round-off");
  const struct gs_nbody_solver *ckpt_solver = o->restart[0] ? gs_nbody_solver_find(ck->solver) : NULL;
  if (ckpt_solver && ckpt_solver->id != job->solver->id) /* a layout is no solver */
    printf("# restart: the checkpoint was written by the %s solver, this run uses the %s one: the state agrees with "
           "an uninterrupted run only within the tree's force error, and |dE/E0| compares this run's potential with "
           "an E0 of the other solver's (within the tree's potential error, docs/tree.md)\n",
           ckpt_solver->name, job->solver->name);
  if (job->law == GS_LAW_PLUMMER)
    printf("# force: G = %g, Plummer softening eps = %g; kick-drift-kick leapfrog\n", job->G, o->eps);
  else
    printf("# force: G m = %g (unit masses), no force closer than %g (the seed 003 model); kick-drift-kick leapfrog\n",
           job->G, sqrt(job->cut2));
  job->solver->header(job->state, o->restart[0] ? ck : NULL);
  if (o->snapshot_every > 0 || o->checkpoint_every > 0 || o->checkpoint_interval > 0 || o->walltime_s > 0)
    printf("# output: %s/ (snapshots: %s)\n", o->output, gs_io_format());
  fflush(stdout);
}

/* Forces and diagnostics at the first step of this run: a checkpoint's forces bit for bit (the
 * first half-kick must not see recomputed ones), or fresh ones (and snapshot 0). */
static struct gs_diag gs_nbody_start(struct gs_nbody_job *job) {
  struct gs_diag d0;
  if (job->o->restart[0]) {
    job->solver->resume(job->state);
    d0 = gs_nbody_energy_measure(job, 1);
  } else {
    job->solver->forces(job->state, 1, 1, NULL); /* the run's first evaluation, with the potential */
    d0 = gs_nbody_energy_measure(job, 0);
    job->e0 = d0.energy;
    if (job->o->snapshot_every > 0 && gs_nbody_io_snapshot(job, 0, 0) != GS_OK) job->failed = job->write_failed = 1;
  }
  job->de0 = gs_nbody_energy_rel_de(job, d0.energy);
  if (!job->p0_set) /* a restart from a checkpoint that does not record P0: the drift from here */
    memcpy(job->p0, d0.p, sizeof job->p0), job->p0_set = 1, job->p0_step = job->step0;
  return d0;
}

/* The final state's hash, the energy and timing caveats and the verdict; the exit status. */
static int gs_nbody_verdict(struct gs_nbody_job *job, long last) {
  const struct gs_run *run = job->run;
  uint64_t hash = gs_nbody_io_hash(job);
  /* rank 0's diagnostics: the momentum verdict of a solver that has one joins the others' */
  double ptol = 0;
  if (job->solver->momentum_tol && !job->p0_other) ptol = job->solver->momentum_tol(job, job->de_step - job->p0_step);
  int drift = run->rank == 0 && ptol > 0 && job->dp_last >= 0 && !(job->dp_last <= ptol);
  int failed = job->failed || drift, any = 0;
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
    else if (ptol > 0) { /* mutual forces: a drift past round-off is a fault */
      printf("# momentum: |P - %s| / (M v_rms) = %.3e at step %ld (M v_rms = sqrt(2 M K); tolerance %.1e: the %s "
             "solver's forces cancel pairwise to round-off): %s\n",
             p0, job->dp_last, job->de_step, ptol, job->solver->name, drift ? "FAILED" : "OK");
    } else
      printf("# momentum: |P - %s| / (M v_rms) = %.3e at step %ld (M v_rms = sqrt(2 M K); no tolerance: the direct "
             "sum keeps it at round-off, a tree's forces are not pairwise symmetric and let it drift: docs/tree.md)\n",
             p0, job->dp_last, job->de_step);
  }
  return gs_bench_verdict(run, &job->rep, any);
}

/* The simulation: steps from job->step0, their statistics and the verdict. */
static int gs_nbody_simulate(struct gs_nbody_job *job) {
  struct gs_diag d0 = gs_nbody_start(job);
  if (job->run->rank == 0) printf("# simulation with kernel %s\n", job->kname);
  gs_nbody_energy_header(job, job->step0, &d0);
  long remaining = job->o->steps - job->step0;
  struct gs_step_times *times = calloc((size_t)(remaining > 0 ? remaining : 1), sizeof *times);
  if (!times) GS_DIE(&job->run->where, "calloc", "out of memory");
  long last = gs_nbody_step_run(job, times);
  if (last > job->step0) job->solver->report_steps(job->state, times, (int)(last - job->step0));
  free(times);
  job->solver->report_final(job->state, last);
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
  struct gs_ckpt_reader *ckpt = NULL; /* rank 0, a restart: the checkpoint, open and checked */
  unsigned mask;
  if (gs_nbody_plan(&job, &o, &mask, &b, &ck, &ckpt, &msg) != GS_OK) {
    gs_error_report(run->rank, &msg);
    gs_exchange_close(&job.xchg);
    gs_ic_free(&b);
    gs_checkpoint_close(ckpt);
    return GS_USAGE;
  }
  /* A solver that judges the momentum judges only its own steps: after another solver's checkpoint
   * (its steps in P - P0, its forces in the first half-kick) there is no verdict. */
  job.p0_other = o.restart[0] && (int)ck.solver != job.solver->id;
  char hook[32];
  snprintf(hook, sizeof hook, "nbody-%s", job.solver->name); /* the solver: known after the plan */
  job.corrupt = gs_error_test_corrupt(hook);
  gs_nbody_setup_decompose(&job);
  gs_report_init(&job.rep, run);
  struct gs_rank_info *all = run->rank == 0 ? calloc((size_t)run->size, sizeof *all) : NULL;
  if (run->rank == 0 && !all) GS_DIE(&run->where, "calloc", "out of memory");
  gs_mpi_gather_ranks(run, all);
  gs_nbody_setup_alloc(&job);
  job.state = job.solver->open(&job);
  struct gs_nbody_origin from;
  gs_nbody_setup_origin(&job, &b, ckpt, &from);
  job.solver->load(job.state, &from);
  gs_checkpoint_close(ckpt);
  gs_ic_free(&b);
  if (run->rank == 0) gs_nbody_header(&job, all, &ck);
  free(all);
  job.solver->report_first(job.state);
  int status = gs_nbody_simulate(&job);
  job.solver->close(job.state);
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
    .kernels = gs_nbody_options_kernels, /* filled in by its defaults, numbered as gs_nbody_options_numbered says */
    .main = gs_nbody_main,
};
