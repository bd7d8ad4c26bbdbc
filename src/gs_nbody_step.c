/* gs_nbody_step.c: the kick-drift-kick leapfrog loop: steps, the ranks' joint decisions (stop,
 * undo an abandoned step, checkpoint), diagnostics, snapshots, checkpoints and progress. */
#include "gs_nbody_step.h"

#include <math.h>
#include <stdio.h>

#include "gs_nbody_energy.h"
#include "gs_nbody_exchange.h"
#include "gs_nbody_io.h"
#include "gs_nbody_solver.h"
#include "gs_progress.h"
#include "gs_signal.h"
#include "gs_stdio.h"

/* What the ranks decide together after a step. */
struct gs_nbody_verdict {
  int sig;      /* the stop signal any rank received, 0 if none */
  int undo;     /* some rank abandoned the step for it: every rank goes back to the step before */
  int stop;     /* stop now (a signal, or the wall-clock budget); never after the last step */
  int interval; /* the checkpoint interval has passed (rank 0's clock) */
};

/* One collective for every rank: stop (a stop signal on any rank, or, by rank 0's clock, too
 * little of the wall-clock budget left for another step and a checkpoint), undo (a rank saw the
 * signal before its forces were done, so they may be partial), checkpoint now (the interval). */
static struct gs_nbody_verdict gs_nbody_step_decide(struct gs_nbody_job *job, long step, double slowest_step,
                                                    double ckpt_cost, double last_ckpt, int abandoned) {
  int flags[4] = {gs_signal_pending(), abandoned, 0, 0}, all[4];
  if (job->run->rank == 0) {
    double now = MPI_Wtime();
    if (job->o->walltime_s > 0)
      flags[2] = job->o->walltime_s - (now - job->t_start) < 2 * slowest_step + 2 * ckpt_cost + 1.0;
    flags[3] = job->o->checkpoint_interval > 0 && now - last_ckpt >= 60.0 * job->o->checkpoint_interval;
  }
  MPI_Request req; /* polled: a rank killed mid-run must not leave this one waiting for it */
  GS_CHECK_MPI(&job->run->where, MPI_Iallreduce(flags, all, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req));
  gs_exchange_mpi_wait(&job->xchg, 1, &req, "MPI_Iallreduce (the step's decision)");
  struct gs_nbody_verdict v = {.sig = all[0], .undo = all[1], .interval = all[3]};
  v.stop = all[1] || (step < job->o->steps && (all[0] || all[2]));
  return v;
}

/* One kick-drift-kick step on the bodies this rank holds (the solver's view, read again after
 * the forces, which may move bodies); forces may be abandoned once a stop signal is pending (then
 * the state is partial: the caller undoes it). Returns whether a signal was pending by the end. */
static int gs_nbody_step_one(struct gs_nbody_job *job, int scheduled, struct gs_step_times *st) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  const double dt = job->o->dt;
  const struct gs_nbody_solver *sv = job->solver;
  struct gs_nbody_held h;
  sv->keep(job->state);
  MPI_Request req;
  GS_CHECK_MPI(&job->run->where, MPI_Ibarrier(MPI_COMM_WORLD, &req));
  gs_exchange_mpi_wait(&job->xchg, 1, &req, "MPI_Ibarrier (the step's start)");
  double t0 = MPI_Wtime();
  sv->held(job->state, &h);
  if (h.count) {
    be->nbody->kick(c, job->prec, h.vel, h.acc, h.count, 0.5 * dt, job->qc);
    be->nbody->drift(c, job->prec, h.pos, h.vel, h.count, dt, job->qc);
  }
  double t1 = MPI_Wtime();
  job->stop = gs_signal_pending;
  double exchange = sv->forces(job->state, scheduled, 0, st), forces = st->forces;
  job->stop = NULL;
  double core = MPI_Wtime() - t1;
  sv->held(job->state, &h);
  if (h.count) be->nbody->kick(c, job->prec, h.vel, h.acc, h.count, 0.5 * dt, job->qc);
  be->queue_sync(c, job->qc);
  st->total = MPI_Wtime() - t0;
  st->exchange = exchange;
  st->hidden = exchange > 0 ? (forces + exchange - core) / exchange : 0;
  st->hidden = st->hidden < 0 ? 0 : st->hidden > 1 ? 1 : st->hidden;
  return gs_signal_pending() != 0;
}

/* After step s (rank 0): on a stop, why and what next. Printed once the checkpoint is on disk;
 * after a stop signal stdout does not block (gs_stdio.h), and these lines wait for room at most
 * GS_NBODY_STEP_SAY seconds each: a launcher that stopped reading costs seconds, not the run. */
#define GS_NBODY_STEP_SAY 2.0
static void gs_nbody_step_say_stop(const struct gs_nbody_job *job, long s, const struct gs_nbody_verdict *v,
                                   int ckpt_ok) {
  const struct gs_nbody_opts *o = job->o;
  if (job->run->rank != 0) return;
  gs_stdio_flush(GS_NBODY_STEP_SAY); /* the checkpoint's line */
  const char *why = v->sig ? gs_signal_name(v->sig) : "wall-clock budget nearly spent";
  if (v->undo)
    printf("# stop: %s came during step %ld, which was abandoned; the state is that of step %ld\n", why, s + 1, s);
  if (v->stop && !ckpt_ok)
    printf("# stopped after step %ld of %d (%s), but its checkpoint could not be written (the error above): nothing "
           "to resume from in %s/\n",
           s, o->steps, why, o->output);
  else if (job->write_failed)
    printf("# stopped after step %ld of %d: writing to %s/ failed (the error above)\n", s, o->steps, o->output);
  else
    printf("# stopped after step %ld of %d (%s): resume with the same options plus --restart %s\n", s, o->steps, why,
           o->output);
  gs_stdio_flush(GS_NBODY_STEP_SAY);
}

/* Diagnostics on the energy schedule and at the end, and snapshots, after step s. */
static void gs_nbody_step_outputs(struct gs_nbody_job *job, long s, int scheduled, struct gs_progress *prog,
                                  double *de) {
  const struct gs_nbody_opts *o = job->o;
  if (scheduled || s == o->steps) {
    gs_progress_done(prog);
    struct gs_diag d = gs_nbody_energy_measure(job, !scheduled);
    gs_nbody_energy_print(job, s, &d);
    *de = gs_nbody_energy_rel_de(job, d.energy);
    if (!isfinite(d.energy)) job->failed = 1;
  }
  if (o->snapshot_every > 0 && (s % o->snapshot_every == 0 || s == o->steps) &&
      gs_nbody_io_snapshot(job, (int)((s + o->snapshot_every - 1) / o->snapshot_every), s) != GS_OK)
    job->failed = job->write_failed = 1;
}

long gs_nbody_step_run(struct gs_nbody_job *job, struct gs_step_times *times) {
  const struct gs_nbody_opts *o = job->o;
  struct gs_progress prog;
  gs_progress_init(&prog, o->progress, job->run->rank, job->step0, o->steps);
  double slowest = 0, ckpt_cost = 0, last_ckpt = MPI_Wtime(), de = job->de0;
  long s = job->step0;
  while (s < o->steps && !job->write_failed) {
    s++;
    int scheduled = o->energy_every > 0 && s % o->energy_every == 0;
    struct gs_step_times *st = &times[s - job->step0 - 1];
    int abandoned = gs_nbody_step_one(job, scheduled, st);
    if (st->total > slowest) slowest = st->total;
    struct gs_nbody_verdict v = gs_nbody_step_decide(job, s, slowest, ckpt_cost, last_ckpt, abandoned);
    if (v.undo)
      job->solver->undo(job->state), s--; /* the checkpoint is of the last completed step */
    else
      gs_nbody_step_outputs(job, s, scheduled, &prog, &de);
    int ckpt_ok = 1;
    if (!job->write_failed && (v.stop || v.interval || (o->checkpoint_every > 0 && s % o->checkpoint_every == 0))) {
      gs_progress_done(&prog);
      double c0 = MPI_Wtime();
      ckpt_ok = gs_nbody_io_checkpoint(job, s) == GS_OK;
      ckpt_cost = MPI_Wtime() - c0;
      last_ckpt = MPI_Wtime();
      if (!ckpt_ok)
        job->failed = job->write_failed = 1;
      else if (job->run->rank == 0)
        printf("# checkpoint: step %ld written to %s/ in %.2f s\n", s, o->output, ckpt_cost);
    }
    double pairs = job->solver->interactions(job->state);
    if (!v.undo) gs_progress_update(&prog, s, s * o->dt, de, pairs / st->total);
    if (v.stop || job->write_failed) {
      gs_progress_done(&prog);
      gs_nbody_step_say_stop(job, s, &v, ckpt_ok);
      break;
    }
  }
  gs_progress_done(&prog);
  return s;
}
