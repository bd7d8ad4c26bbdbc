/* gs_nbody_energy.c: the run's global diagnostics (kinetic, potential and total energy, momentum,
 * centre of mass), summed on the device with the backend's reduction, their table, result rows
 * and the relative energy error. */
#include "gs_nbody_energy.h"

#include <math.h>
#include <stdio.h>

#include "gs_acc.h"
#include "gs_nbody_solver.h"

/* Room for n bodies' terms and their sums' workspace: a solver's held count may grow past the
 * standard slice (the distributed tree's domains), the driver's buffers with it. */
static void gs_nbody_energy_room(struct gs_nbody_job *job, uint64_t n) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  if (n <= job->terms_room) return;
  be->queue_sync(c, job->qc);
  job->terms_room = n + n / 4;
  be->free_device(c, job->d_terms);
  job->d_terms = be->alloc_device(c, 8 * job->terms_room * sizeof(double));
  if (job->reduce_ws) be->free_device(c, job->reduce_ws);
  job->reduce_ws_bytes = be->reduce->workspace(c, job->rkernel, GS_DTYPE_DOUBLE, GS_OP_SUM, job->terms_room);
  job->reduce_ws = job->reduce_ws_bytes ? be->alloc_device(c, job->reduce_ws_bytes) : NULL;
  if (job->reduce_ws) be->zero_device(c, job->reduce_ws, job->reduce_ws_bytes, job->qc);
}

struct gs_diag gs_nbody_energy_measure(struct gs_nbody_job *job, int fresh) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  double local[8] = {0}, sums[8];
  /* The solver's accelerations with the potential (a scratch evaluation when fresh, the held
   * forces keep their bits; collective), over the bodies this rank holds. */
  const void *acc = job->solver->potential(job->state, fresh);
  struct gs_nbody_held h;
  job->solver->held(job->state, &h);
  gs_nbody_energy_room(job, h.count < GS_NBODY_ENERGY_CHUNK ? h.count : GS_NBODY_ENERGY_CHUNK);
  for (uint64_t at = 0; at < h.count; at += GS_NBODY_ENERGY_CHUNK) {
    uint64_t n = h.count - at < GS_NBODY_ENERGY_CHUNK ? h.count - at : GS_NBODY_ENERGY_CHUNK;
    size_t o = at * job->esz;
    be->nbody->terms(c, job->prec, (const char *)h.pos + o, (const char *)h.vel + o, (const char *)acc + o, n,
                     job->d_terms, job->qc);
    /* Each sum with the reduction kernels (deterministic, double accumulation). */
    for (int k = 0; k < 8; k++)
      be->reduce->run(c, job->rkernel, GS_DTYPE_DOUBLE, GS_OP_SUM, job->d_terms + (size_t)k * n, n, job->reduce_ws,
                      job->reduce_ws_bytes, &job->d_sums[k], job->qc);
    union gs_acc part[8];
    be->copy_d2h(c, part, job->d_sums, sizeof part, job->qc);
    be->queue_sync(c, job->qc);
    for (int k = 0; k < 8; k++)
      local[k] += part[k].d;
  }
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(local, sums, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  struct gs_diag d = {.kinetic = sums[0], .potential = sums[1]};
  d.energy = d.kinetic + d.potential;
  for (int c = 0; c < 3; c++)
    d.p[c] = sums[2 + c], d.com[c] = sums[5 + c];
  return d;
}

/* The diagnostics as result rows for --csv and --json (rank 0), one per quantity at full
 * precision, the step and time in params (docs/results-schema.md, "Diagnostics rows"). An
 * undefined |dE/E0| (E0 = 0) has no row. */
static void gs_nbody_energy_rows(struct gs_nbody_job *job, long step, const double v[6]) {
  static const char *names[6] = {"kinetic", "potential", "energy", "energy_error", "momentum", "mass_moment"};
  for (int k = 0; k < 6; k++) {
    if (k == 3 && v[k] < 0) continue;
    struct gs_row row = {.workload = "nbody", .rank = -1, .problem_size = job->n, .unit = "code", .efficiency = -1};
    snprintf(row.kernel, sizeof row.kernel, "%s", job->kname);
    snprintf(row.metric, sizeof row.metric, "%s", names[k]);
    row.value = v[k];
    snprintf(row.params, sizeof row.params, "phase=diag;step=%ld;time=%.17g", step, step * job->o->dt);
    gs_report_add(&job->rep, &row);
  }
}

/* One row of the diagnostics table (rank 0), also kept for the energy verdict and the rows.
 * |dE/E0| is "n/a" where E0 = 0 (one body, no mass). */
void gs_nbody_energy_print(struct gs_nbody_job *job, long step, const struct gs_diag *d) {
  if (job->run->rank != 0) return;
  double p = sqrt(d->p[0] * d->p[0] + d->p[1] * d->p[1] + d->p[2] * d->p[2]);
  double c = sqrt(d->com[0] * d->com[0] + d->com[1] * d->com[1] + d->com[2] * d->com[2]);
  double de = gs_nbody_energy_rel_de(job, d->energy);
  char dE[16] = "n/a";
  if (!(de < 0)) snprintf(dE, sizeof dE, "%.3e", de);
  printf("%8ld %10.5f %14.8f %14.8f %16.9f %11s %11.3e %11.3e\n", step, step * job->o->dt, d->kinetic, d->potential,
         d->energy, dE, p, c);
  fflush(stdout);
  job->de_last = de;
  job->de_step = step;
  job->dp_last = gs_nbody_energy_rel_dp(job, d);
  const double v[6] = {d->kinetic, d->potential, d->energy, de, p, c};
  gs_nbody_energy_rows(job, step, v);
}

void gs_nbody_energy_header(struct gs_nbody_job *job, long step, const struct gs_diag *d) {
  if (job->run->rank == 0)
    printf("%8s %10s %14s %14s %16s %11s %11s %11s\n", "step", "time", "kinetic", "potential", "energy", "|dE/E0|",
           "|P|", "|M x_com|");
  gs_nbody_energy_print(job, step, d);
}

double gs_nbody_energy_rel_de(const struct gs_nbody_job *job, double energy) {
  return job->e0 == 0 ? -1 : fabs(energy - job->e0) / fabs(job->e0);
}

double gs_nbody_energy_rel_dp(const struct gs_nbody_job *job, const struct gs_diag *d) {
  double dp2 = 0, scale2 = 2 * job->mass * d->kinetic;
  for (int c = 0; c < 3; c++)
    dp2 += (d->p[c] - job->p0[c]) * (d->p[c] - job->p0[c]);
  return job->p0_set && scale2 > 0 ? sqrt(dp2 / scale2) : -1;
}
