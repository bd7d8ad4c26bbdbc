/* gs_nbody_step.c: the time-step loop. Kick-drift-kick leapfrog; after the drift every rank's
 * new positions go to every other rank through pinned host buffers (Open MPI here is not
 * CUDA-aware). With --overlap on, the forces from the rank's own slice (already on the device)
 * are computed while the slices travel a ring of MPI_Sendrecv, and each arriving slice's forces
 * are added as soon as it is copied up; with --overlap off: copy down, MPI_Allgatherv, copy up,
 * then all the forces. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_nbody_job.h"
#include "gs_progress.h"
#include "gs_reduce.h"
#include "gs_signal.h"

struct gs_diag gs_nbody_diagnose(struct gs_nbody_job *job, int fresh) {
  const struct gs_backend *be = job->be;
  double local[8] = {0}, sums[8];
  void *acc = job->d_acc;
  if (fresh && job->count > 0) {
    /* The potential off the energy schedule: a separate evaluation into scratch, so the forces
     * that drive the orbits keep exactly the bits an uninterrupted run would have. */
    struct gs_nbody_force_args a = gs_nbody_args(job, job->kernel, 0, job->npad, 0, 1);
    a.acc = job->d_acc2;
    gs_nbody_forces(job, &a, job->qc);
    acc = job->d_acc2;
  }
  if (job->count > 0) {
    be->nbody_terms(be, job->prec, (const char *)job->d_pos + job->first * job->esz, job->d_vel, acc,
                    job->count, job->d_terms, job->qc);
    /* Each sum with the reduction kernels (deterministic, double accumulation). */
    for (int k = 0; k < 8; k++)
      be->reduce(be, job->rkernel, GS_DTYPE_DOUBLE, GS_OP_SUM, job->d_terms + (size_t)k * job->count, job->count,
                 job->rws, job->rwsb, &job->d_sums[k], 256, job->qc);
    union gs_acc h[8];
    be->copy_d2h(be, h, job->d_sums, sizeof h, job->qc);
    be->queue_sync(be, job->qc);
    for (int k = 0; k < 8; k++) local[k] = h[k].d;
  }
  GS_CHECK_MPI(&be->where, MPI_Allreduce(local, sums, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  struct gs_diag d = {.kinetic = sums[0], .potential = sums[1]};
  d.energy = d.kinetic + d.potential;
  for (int c = 0; c < 3; c++) d.p[c] = sums[2 + c], d.com[c] = sums[5 + c];
  return d;
}

/* Copy this rank's slice of positions down and make the drift visible to the copy queue. */
static void gs_nbody_slice_down(struct gs_nbody_job *job, gs_event *drifted) {
  const struct gs_backend *be = job->be;
  be->event_record(be, drifted, job->qc);
  be->queue_wait(be, job->qx, drifted);
  if (job->count)
    be->copy_d2h(be, (char *)job->h_pos + job->first * job->esz, (const char *)job->d_pos + job->first * job->esz,
                 job->count * job->esz, job->qx);
}

/* One force piece on the compute queue, timed with its own events. */
static void gs_nbody_piece(struct gs_nbody_job *job, int r, int accumulate, int potential, gs_event *e0, gs_event *e1) {
  const struct gs_backend *be = job->be;
  struct gs_nbody_force_args a = gs_nbody_args(job, job->kernel, (uint64_t)job->displs[r], (uint64_t)job->counts[r],
                                               accumulate, potential);
  be->event_record(be, e0, job->qc);
  gs_nbody_forces(job, &a, job->qc);
  be->event_record(be, e1, job->qc);
}

/* Exchange positions and compute forces for this rank's slice. Returns exchange wall seconds. */
static double gs_nbody_exchange_forces(struct gs_nbody_job *job, int potential, double *forces) {
  const struct gs_backend *be = job->be;
  const struct gs_run *run = job->run;
  int P = run->size, r = run->rank;
  gs_event **ev = job->ev; /* ev[2p], ev[2p+1]: force piece p; ev[2P]: drifted; ev[2P+1]: last copy up */
  double t0 = MPI_Wtime(), tx;
  *forces = 0;
  if (P == 1) {
    /* Nothing to exchange: forces from all bodies at once. */
    struct gs_nbody_force_args a = gs_nbody_args(job, job->kernel, 0, job->npad, 0, potential);
    be->event_record(be, ev[0], job->qc);
    gs_nbody_forces(job, &a, job->qc);
    be->event_record(be, ev[1], job->qc);
    be->event_sync(be, ev[1]);
    *forces = be->event_seconds(be, ev[0], ev[1]);
    return 0;
  }
  gs_nbody_slice_down(job, ev[2 * P]);
  if (job->o->overlap) {
    /* Own slice first: its positions are already on the device. */
    gs_nbody_piece(job, r, 0, potential, ev[0], ev[1]);
    be->queue_sync(be, job->qx);
    /* Ring: at step s receive rank (r - s)'s slice from the left, pass on what arrived at s - 1. */
    int left = (r - 1 + P) % P, right = (r + 1) % P;
    for (int s = 1; s < P; s++) {
      int send = (r - s + 1 + P) % P, recv = (r - s + P) % P;
      GS_CHECK_MPI(&be->where, MPI_Sendrecv((char *)job->h_pos + (size_t)job->displs[send] * job->esz, job->counts[send],
                                            job->body_type, right, s, (char *)job->h_pos + (size_t)job->displs[recv] * job->esz,
                                            job->counts[recv], job->body_type, left, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      if (job->counts[recv]) {
        size_t off = (size_t)job->displs[recv] * job->esz;
        be->copy_h2d(be, (char *)job->d_pos + off, (char *)job->h_pos + off, (size_t)job->counts[recv] * job->esz, job->qx);
      }
      be->event_record(be, ev[2 * P + 1], job->qx);
      be->queue_wait(be, job->qc, ev[2 * P + 1]);
      gs_nbody_piece(job, recv, 1, potential, ev[2 * s], ev[2 * s + 1]);
    }
    be->event_sync(be, ev[2 * P + 1]);
    tx = MPI_Wtime() - t0;
    be->queue_sync(be, job->qc);
    for (int s = 0; s < P; s++) *forces += be->event_seconds(be, ev[2 * s], ev[2 * s + 1]);
    return tx;
  }
  be->queue_sync(be, job->qx);
  GS_CHECK_MPI(&be->where, MPI_Allgatherv(MPI_IN_PLACE, 0, job->body_type, job->h_pos, job->counts, job->displs,
                                          job->body_type, MPI_COMM_WORLD));
  be->copy_h2d(be, job->d_pos, job->h_pos, job->npad * job->esz, job->qx);
  be->event_record(be, ev[2 * P + 1], job->qx);
  be->event_sync(be, ev[2 * P + 1]);
  tx = MPI_Wtime() - t0;
  struct gs_nbody_force_args a = gs_nbody_args(job, job->kernel, 0, job->npad, 0, potential);
  be->event_record(be, ev[0], job->qc);
  gs_nbody_forces(job, &a, job->qc);
  be->event_record(be, ev[1], job->qc);
  be->event_sync(be, ev[1]);
  *forces = be->event_seconds(be, ev[0], ev[1]);
  return tx;
}

/* The diagnostics as result rows for --csv and --json (rank 0), one per quantity at full
 * precision, the step and time in params (docs/results-schema.md, "Diagnostics rows"). An
 * undefined |dE/E0| (E0 = 0) has no row. */
static void gs_nbody_diag_rows(struct gs_nbody_job *job, long step, const double v[6]) {
  static const char *names[6] = {"kinetic", "potential", "energy", "energy_error", "momentum", "mass_moment"};
  for (int k = 0; k < 6; k++) {
    if (k == 3 && v[k] < 0) continue;
    struct gs_row row = {.workload = "nbody", .rank = -1, .problem_size = job->n, .unit = "code", .efficiency = -1};
    snprintf(row.kernel, sizeof row.kernel, "%s", gs_nbody_kernel_name(job->kernel));
    snprintf(row.metric, sizeof row.metric, "%s", names[k]);
    row.value = v[k];
    snprintf(row.params, sizeof row.params, "phase=diag;step=%ld;time=%.17g", step, step * job->o->dt);
    gs_report_add(&job->rep, &row);
  }
}

/* One row of the diagnostics table (rank 0), also kept for the energy verdict and the rows.
 * |dE/E0| is "n/a" where E0 = 0 (one body, no mass). */
static void gs_nbody_print_diag(struct gs_nbody_job *job, long step, const struct gs_diag *d) {
  if (job->run->rank != 0) return;
  double p = sqrt(d->p[0] * d->p[0] + d->p[1] * d->p[1] + d->p[2] * d->p[2]);
  double c = sqrt(d->com[0] * d->com[0] + d->com[1] * d->com[1] + d->com[2] * d->com[2]);
  double de = gs_nbody_rel_de(job, d->energy);
  char dE[16] = "n/a";
  if (!(de < 0)) snprintf(dE, sizeof dE, "%.3e", de);
  printf("%8ld %10.5f %14.8f %14.8f %16.9f %11s %11.3e %11.3e\n", step, step * job->o->dt, d->kinetic, d->potential,
         d->energy, dE, p, c);
  fflush(stdout);
  job->de_last = de;
  job->de_step = step;
  const double v[6] = {d->kinetic, d->potential, d->energy, de, p, c};
  gs_nbody_diag_rows(job, step, v);
}

void gs_nbody_print_diag_header(struct gs_nbody_job *job, long step, const struct gs_diag *d) {
  if (job->run->rank == 0)
    printf("%8s %10s %14s %14s %16s %11s %11s %11s\n", "step", "time", "kinetic", "potential", "energy", "|dE/E0|",
           "|P|", "|M x_com|");
  gs_nbody_print_diag(job, step, d);
}

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
static struct gs_nbody_verdict gs_nbody_decide(struct gs_nbody_job *job, long step, double slowest_step,
                                               double ckpt_cost, double last_ckpt, int abandoned) {
  int flags[4] = {gs_signal_pending(), abandoned, 0, 0}, all[4];
  if (job->run->rank == 0) {
    double now = MPI_Wtime();
    if (job->o->walltime_s > 0)
      flags[2] = job->o->walltime_s - (now - job->t_start) < 2 * slowest_step + 2 * ckpt_cost + 1.0;
    flags[3] = job->o->checkpoint_interval > 0 && now - last_ckpt >= 60.0 * job->o->checkpoint_interval;
  }
  GS_CHECK_MPI(&job->be->where, MPI_Allreduce(flags, all, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  struct gs_nbody_verdict v = {.sig = all[0], .undo = all[1], .interval = all[3]};
  v.stop = all[1] || (step < job->o->steps && (all[0] || all[2]));
  return v;
}

/* Keep the state at the start of a step, device to device (no host round trip); undo puts it
 * back bit for bit after an abandoned step. Every rank holds every position. */
static void gs_nbody_keep(struct gs_nbody_job *job, int undo) {
  const struct gs_backend *be = job->be;
  void *live[3] = {job->d_pos, job->d_vel, job->d_acc}, *kept[3] = {job->d_pos0, job->d_vel0, job->d_acc0};
  size_t bytes[3] = {job->npad * job->esz, job->count * job->esz, job->count * job->esz};
  for (int k = 0; k < 3; k++)
    if (bytes[k]) be->copy_d2d(be, undo ? live[k] : kept[k], undo ? kept[k] : live[k], bytes[k], job->qc);
  if (undo) be->queue_sync(be, job->qc);
}

/* One kick-drift-kick step; forces may be abandoned once a stop signal is pending (then the
 * state is partial: the caller undoes it). Returns whether a signal was pending by the end. */
static int gs_nbody_step(struct gs_nbody_job *job, int scheduled, struct gs_step_times *st) {
  const struct gs_backend *be = job->be;
  const double dt = job->o->dt;
  gs_nbody_keep(job, 0);
  GS_CHECK_MPI(&be->where, MPI_Barrier(MPI_COMM_WORLD));
  double t0 = MPI_Wtime();
  if (job->count) {
    be->nbody_kick(be, job->prec, job->d_vel, job->d_acc, job->count, 0.5 * dt, job->qc);
    be->nbody_drift(be, job->prec, (char *)job->d_pos + job->first * job->esz, job->d_vel, job->count, dt, job->qc);
  }
  double t1 = MPI_Wtime(), forces;
  job->stop = gs_signal_pending;
  double exchange = gs_nbody_exchange_forces(job, scheduled, &forces);
  job->stop = NULL;
  double core = MPI_Wtime() - t1;
  if (job->count) be->nbody_kick(be, job->prec, job->d_vel, job->d_acc, job->count, 0.5 * dt, job->qc);
  be->queue_sync(be, job->qc);
  st->total = MPI_Wtime() - t0;
  st->forces = forces;
  st->exchange = exchange;
  st->hidden = exchange > 0 ? (forces + exchange - core) / exchange : 0;
  st->hidden = st->hidden < 0 ? 0 : st->hidden > 1 ? 1 : st->hidden;
  return gs_signal_pending() != 0;
}

/* After step s (rank 0): a checkpoint's line and, on a stop, why and what next. */
static void gs_nbody_say_stop(const struct gs_nbody_job *job, long s, const struct gs_nbody_verdict *v, int ckpt_ok) {
  const struct gs_nbody_opts *o = job->o;
  if (job->run->rank != 0) return;
  const char *why = v->sig ? gs_signal_name(v->sig) : "wall-clock budget nearly spent";
  if (v->undo) printf("# stop: %s came during step %ld, which was abandoned; the state is that of step %ld\n", why, s + 1, s);
  if (v->stop && !ckpt_ok)
    printf("# stopped after step %ld of %d (%s), but its checkpoint could not be written (the error above): nothing "
           "to resume from in %s/\n", s, o->steps, why, o->output);
  else if (job->write_failed)
    printf("# stopped after step %ld of %d: writing to %s/ failed (the error above)\n", s, o->steps, o->output);
  else
    printf("# stopped after step %ld of %d (%s): resume with the same options plus --restart %s\n", s, o->steps, why,
           o->output);
  fflush(stdout);
}

/* Diagnostics on the energy schedule and at the end, and snapshots, after step s. */
static void gs_nbody_outputs(struct gs_nbody_job *job, long s, int scheduled, struct gs_progress *prog, double *de) {
  const struct gs_nbody_opts *o = job->o;
  if (scheduled || s == o->steps) {
    gs_progress_done(prog);
    struct gs_diag d = gs_nbody_diagnose(job, !scheduled);
    gs_nbody_print_diag(job, s, &d);
    *de = gs_nbody_rel_de(job, d.energy);
    if (!isfinite(d.energy)) job->failed = 1;
  }
  if (o->snapshot_every > 0 && (s % o->snapshot_every == 0 || s == o->steps) &&
      gs_nbody_snapshot(job, (int)((s + o->snapshot_every - 1) / o->snapshot_every), s) != GS_OK)
    job->failed = job->write_failed = 1;
}

long gs_nbody_run_steps(struct gs_nbody_job *job, struct gs_step_times *times) {
  const struct gs_nbody_opts *o = job->o;
  struct gs_progress prog;
  gs_progress_init(&prog, o->progress, job->run->rank, job->step0, o->steps);
  double slowest = 0, ckpt_cost = 0, last_ckpt = MPI_Wtime(), de = job->de0;
  long s = job->step0;
  while (s < o->steps && !job->write_failed) {
    s++;
    int scheduled = o->energy_every > 0 && s % o->energy_every == 0;
    struct gs_step_times *st = &times[s - job->step0 - 1];
    int abandoned = gs_nbody_step(job, scheduled, st);
    if (st->total > slowest) slowest = st->total;
    struct gs_nbody_verdict v = gs_nbody_decide(job, s, slowest, ckpt_cost, last_ckpt, abandoned);
    if (v.undo) gs_nbody_keep(job, 1), s--; /* the checkpoint is of the last completed step */
    else gs_nbody_outputs(job, s, scheduled, &prog, &de);
    int ckpt_ok = 1;
    if (!job->write_failed && (v.stop || v.interval || (o->checkpoint_every > 0 && s % o->checkpoint_every == 0))) {
      gs_progress_done(&prog);
      double c0 = MPI_Wtime();
      ckpt_ok = gs_nbody_checkpoint(job, s) == GS_OK;
      ckpt_cost = MPI_Wtime() - c0;
      last_ckpt = MPI_Wtime();
      if (!ckpt_ok) job->failed = job->write_failed = 1;
      else if (job->run->rank == 0) printf("# checkpoint: step %ld written to %s/ in %.2f s\n", s, o->output, ckpt_cost);
    }
    if (!v.undo) gs_progress_update(&prog, s, s * o->dt, de, (double)job->n * (double)job->n / st->total);
    if (v.stop || job->write_failed) {
      gs_progress_done(&prog);
      gs_nbody_say_stop(job, s, &v, ckpt_ok);
      break;
    }
  }
  gs_progress_done(&prog);
  return s;
}
