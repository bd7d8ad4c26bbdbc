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
 * precision, the step and time in params (docs/results-schema.md, "Diagnostics rows"). */
static void gs_nbody_diag_rows(struct gs_nbody_job *job, long step, const double v[6]) {
  static const char *names[6] = {"kinetic", "potential", "energy", "energy_error", "momentum", "mass_moment"};
  for (int k = 0; k < 6; k++) {
    struct gs_row row = {.workload = "nbody", .rank = -1, .problem_size = job->n, .unit = "code", .efficiency = -1};
    snprintf(row.kernel, sizeof row.kernel, "%s", gs_nbody_kernel_name(job->kernel));
    snprintf(row.metric, sizeof row.metric, "%s", names[k]);
    row.value = v[k];
    snprintf(row.params, sizeof row.params, "phase=diag;step=%ld;time=%.17g", step, step * job->o->dt);
    gs_report_add(&job->rep, &row);
  }
}

/* One row of the diagnostics table (rank 0), also kept for the energy verdict and the rows. */
static void gs_nbody_print_diag(struct gs_nbody_job *job, long step, const struct gs_diag *d) {
  if (job->run->rank != 0) return;
  double p = sqrt(d->p[0] * d->p[0] + d->p[1] * d->p[1] + d->p[2] * d->p[2]);
  double c = sqrt(d->com[0] * d->com[0] + d->com[1] * d->com[1] + d->com[2] * d->com[2]);
  double de = fabs(d->energy - job->e0) / fabs(job->e0);
  printf("%8ld %10.5f %14.8f %14.8f %16.9f %11.3e %11.3e %11.3e\n", step, step * job->o->dt, d->kinetic, d->potential,
         d->energy, de, p, c);
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

/* After a step, one collective decides for every rank: stop (a stop signal on any rank, or, by
 * rank 0's clock, too little of the wall-clock budget left for another step and a checkpoint;
 * never after the last step) and checkpoint now (the interval has passed on rank 0's clock). */
static void gs_nbody_decide(struct gs_nbody_job *job, long step, double slowest_step, double ckpt_cost,
                            double last_ckpt, int *sig, int *stop, int *interval) {
  int flags[3] = {gs_signal_pending(), 0, 0}, all[3];
  if (job->run->rank == 0) {
    double now = MPI_Wtime();
    if (job->o->walltime_s > 0)
      flags[1] = job->o->walltime_s - (now - job->t_start) < 2 * slowest_step + 2 * ckpt_cost + 1.0;
    flags[2] = job->o->checkpoint_interval > 0 && now - last_ckpt >= 60.0 * job->o->checkpoint_interval;
  }
  GS_CHECK_MPI(&job->be->where, MPI_Allreduce(flags, all, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  *sig = all[0];
  *stop = step < job->o->steps && (all[0] || all[1]);
  *interval = all[2];
}

long gs_nbody_run_steps(struct gs_nbody_job *job, struct gs_step_times *times) {
  const struct gs_backend *be = job->be;
  const struct gs_nbody_opts *o = job->o;
  const double dt = o->dt;
  struct gs_progress prog;
  gs_progress_init(&prog, o->progress, job->run->rank, job->step0, o->steps);
  double slowest = 0, ckpt_cost = 0, last_ckpt = MPI_Wtime(), last_de = -1;
  long s = job->step0;
  while (s < o->steps) {
    s++;
    int scheduled = o->energy_every > 0 && s % o->energy_every == 0;
    GS_CHECK_MPI(&be->where, MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    if (job->count) {
      be->nbody_kick(be, job->prec, job->d_vel, job->d_acc, job->count, 0.5 * dt, job->qc);
      be->nbody_drift(be, job->prec, (char *)job->d_pos + job->first * job->esz, job->d_vel, job->count, dt, job->qc);
    }
    double t1 = MPI_Wtime(), forces;
    double exchange = gs_nbody_exchange_forces(job, scheduled, &forces);
    double core = MPI_Wtime() - t1;
    if (job->count) be->nbody_kick(be, job->prec, job->d_vel, job->d_acc, job->count, 0.5 * dt, job->qc);
    be->queue_sync(be, job->qc);
    struct gs_step_times *st = &times[s - job->step0 - 1];
    st->total = MPI_Wtime() - t0;
    st->forces = forces;
    st->exchange = exchange;
    st->hidden = exchange > 0 ? (forces + exchange - core) / exchange : 0;
    st->hidden = st->hidden < 0 ? 0 : st->hidden > 1 ? 1 : st->hidden;
    if (st->total > slowest) slowest = st->total;

    /* Diagnostics on the energy schedule, and at the end. */
    if (scheduled || s == o->steps) {
      gs_progress_done(&prog);
      struct gs_diag d = gs_nbody_diagnose(job, !scheduled);
      gs_nbody_print_diag(job, s, &d);
      last_de = fabs(d.energy - job->e0) / fabs(job->e0);
      if (!isfinite(d.energy)) job->failed = 1;
    }
    if (o->snapshot_every > 0 && (s % o->snapshot_every == 0 || s == o->steps) &&
        gs_nbody_snapshot(job, (int)((s + o->snapshot_every - 1) / o->snapshot_every), s) != GS_OK)
      job->failed = 1;
    int sig, stop, interval;
    gs_nbody_decide(job, s, slowest, ckpt_cost, last_ckpt, &sig, &stop, &interval);
    if (stop || interval || (o->checkpoint_every > 0 && s % o->checkpoint_every == 0)) {
      gs_progress_done(&prog);
      double c0 = MPI_Wtime();
      if (gs_nbody_checkpoint(job, s) != GS_OK) job->failed = 1;
      ckpt_cost = MPI_Wtime() - c0;
      last_ckpt = MPI_Wtime();
      if (job->run->rank == 0)
        printf("# checkpoint: step %ld written to %s/ in %.2f s\n", s, o->output, ckpt_cost);
    }
    gs_progress_update(&prog, s, s * dt, last_de, (double)job->n * (double)job->n / st->total);
    if (stop) {
      gs_progress_done(&prog);
      if (job->run->rank == 0) {
        printf("# stopped after step %ld of %d (%s): resume with the same options plus --restart %s\n", s, o->steps,
               sig ? gs_signal_name(sig) : "wall-clock budget nearly spent", o->output);
        fflush(stdout);
      }
      break;
    }
  }
  gs_progress_done(&prog);
  return s;
}
