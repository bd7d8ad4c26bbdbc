/* gs_nbody_ladder.c: the force-kernel table of seed 004's ladder: each selected kernel's first-step
 * forces, checked against a double-precision CPU direct sum of up to 1024 bodies, and timed
 * (median of --iters, device time where the backend has it). */
#include "gs_nbody_ladder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_nbody_forces.h"
#include "gs_nbody_ref.h"

/* Largest error of the device's forces (with potential) on the sample bodies, over all ranks. */
static double gs_nbody_ladder_check(struct gs_nbody_job *job, int kernel, const uint64_t *idx, const double *ref,
                                    int nref, void *h_acc) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  struct gs_nbody_force_args a = gs_nbody_forces_args(job, kernel, 0, job->npad, 0, 1);
  gs_nbody_forces_run(job, &a, job->qc);
  if (a.i_count) be->copy_d2h(c, h_acc, job->d_acc, job->count * job->esz, job->qc);
  be->queue_sync(c, job->qc);
  gs_nbody_ref_corrupt(job, h_acc, idx, nref);
  double worst = 0;
  for (int s = 0; s < nref; s++) {
    double g[4];
    gs_nbody_ref_get(job, h_acc, idx[s] - job->first, g);
    const double *r = ref + 5 * s;
    double da = sqrt((g[0] - r[0]) * (g[0] - r[0]) + (g[1] - r[1]) * (g[1] - r[1]) + (g[2] - r[2]) * (g[2] - r[2]));
    double ea = r[4] > 0 ? da / r[4] : da, ep = r[3] != 0 ? fabs(g[3] - r[3]) / fabs(r[3]) : fabs(g[3]);
    double e = ea > ep ? ea : ep;
    if (!(e <= worst)) worst = e; /* NaN propagates as a failure */
  }
  double all = worst;
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return isnan(worst) ? NAN : all;
}

/* Median time of one force evaluation (this rank's slice from all bodies), device time. */
static struct gs_stats gs_nbody_ladder_time(struct gs_nbody_job *job, int kernel) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  struct gs_nbody_force_args a = gs_nbody_forces_args(job, kernel, 0, job->npad, 0, 0);
  int iters = job->o->iters;
  double *t = malloc(sizeof *t * (size_t)iters);
  if (!t) GS_DIE(&job->run->where, "malloc", "out of memory");
  /* Warm-up outside the gate: it may grow the workspace, which synchronises the queue. */
  gs_nbody_forces_run(job, &a, job->qc);
  for (int i = 0; i < iters; i++) {
    be->gate_close(c, job->gate, job->qc);
    be->event_record(c, job->ev[0], job->qc);
    gs_nbody_forces_run(job, &a, job->qc);
    be->event_record(c, job->ev[1], job->qc);
    if (be->gate_open(c, job->gate)) job->gate_expired++;
    be->event_sync(c, job->ev[1]);
    t[i] = be->event_seconds(c, job->ev[0], job->ev[1]);
  }
  struct gs_stats s = gs_stats_of(t, iters);
  free(t);
  return s;
}

void gs_nbody_ladder_params(const struct gs_nbody_job *job, char *out, size_t size, const char *extra) {
  snprintf(out, size, "ic=%s;precision=%s;overlap=%s;steps=%d;dt=%g;eps=%g;%s", job->ic_name,
           job->prec ? "double" : "single", job->o->overlap ? "on" : "off", job->o->steps, job->o->dt, job->o->eps,
           extra);
}

void gs_nbody_ladder_run(struct gs_nbody_job *job, unsigned mask, double tol) {
  struct gs_run *run = job->run;
  uint64_t *idx;
  double *ref;
  int nref = gs_nbody_ref_sample(job, job->h_pos, &idx, &ref);
  void *h_acc = malloc((job->count ? job->count : 1) * job->esz);
  if (!h_acc) GS_DIE(&job->run->where, "malloc", "out of memory");
  if (run->rank == 0)
    printf("%-8s %-36s %10s %14s %9s %6s %7s %10s  %s\n", "kernel", "what", "ms", "interactions/s", "GFLOP/s", "step",
           "cum", "max_err", "check");
  double prev = 0, first = 0, pairs = (double)job->n * (double)job->n;
  for (int i = 0; i < job->be->nbody->count; i++) {
    if (!(mask & (1u << i))) continue;
    const struct gs_kernel *k = &job->kernels[i];
    double err = gs_nbody_ladder_check(job, k->id, idx, ref, nref, h_acc);
    int ok = err <= tol;
    if (!ok) job->failed = 1;
    struct gs_stats slow = gs_stats_slowest(&job->run->where, gs_nbody_ladder_time(job, k->id), NULL);
    if (run->rank != 0) continue;
    double t = slow.median, rate = pairs / t;
    if (first == 0) first = t;
    char step[16] = "", cum[16] = "";
    if (prev > 0) snprintf(step, sizeof step, "%.2fx", prev / t), snprintf(cum, sizeof cum, "%.2fx", first / t);
    prev = t;
    printf("%-8s %-36s %10.3f %14.4e %9.1f %6s %7s %10.2e  %s\n", k->name, k->title, t * 1e3, rate,
           rate * GS_NBODY_FLOPS / 1e9, step, cum, err, ok ? "OK" : "FAILED");
    struct gs_row row = {.workload = "nbody",
                         .rank = -1,
                         .problem_size = job->n,
                         .iterations = job->o->iters,
                         .t_min = slow.min,
                         .t_median = slow.median,
                         .t_max = slow.max,
                         .metric = "interactions",
                         .value = rate,
                         .unit = "1/s",
                         .efficiency = -1};
    snprintf(row.kernel, sizeof row.kernel, "%s", k->name);
    char extra[96];
    snprintf(extra, sizeof extra, "phase=forces;max_err=%.3g;check=%s", err, ok ? "OK" : "FAILED");
    gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
    gs_report_add(&job->rep, &row);
  }
  fflush(stdout);
  free(h_acc);
  free(idx);
  free(ref);
}
