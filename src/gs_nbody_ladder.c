/* gs_nbody_ladder.c: the force-kernel table of seed 004's ladder: each selected kernel's first-step
 * forces, checked against a double-precision CPU direct sum of up to 1024 bodies, and timed
 * (median of --iters, device time where the backend has it), over the harness (gs_bench.h). */
#include "gs_nbody_ladder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
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

void gs_nbody_ladder_params(const struct gs_nbody_job *job, char *out, size_t size, const char *extra) {
  snprintf(out, size, "ic=%s;precision=%s;overlap=%s;steps=%d;dt=%g;eps=%g;%s", job->ic_name,
           job->prec ? "double" : "single", job->o->overlap ? "on" : "off", job->o->steps, job->o->dt, job->o->eps,
           extra);
}

void gs_nbody_ladder_step_row(struct gs_nbody_job *job, const char *kernel, const struct gs_stats *st, int steps,
                              double rate, const char *extra) {
  struct gs_row row = {.workload = "nbody",
                       .rank = -1,
                       .problem_size = job->n,
                       .iterations = steps,
                       .t_min = st->min,
                       .t_median = st->median,
                       .t_max = st->max,
                       .metric = "interactions",
                       .value = rate,
                       .unit = "1/s",
                       .efficiency = -1};
  snprintf(row.kernel, sizeof row.kernel, "%s", kernel);
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(&job->rep, &row);
}

void gs_nbody_ladder_step_stats(const struct gs_run *run, const struct gs_step_times *times, int steps, int nparts,
                                int exchange, struct gs_stats *st) {
  const int cols = nparts + 2 + (exchange != 0);
  double *t = malloc(sizeof *t * (size_t)cols * (size_t)steps);
  if (!t) GS_DIE(&run->where, "malloc", "out of memory");
  for (int s = 0; s < steps; s++) {
    const struct gs_step_times *x = &times[s];
    double parts = 0;
    t[s] = x->total;
    for (int k = 0; k < nparts; k++)
      t[(size_t)(k + 1) * steps + s] = x->part[k], parts += x->part[k];
    if (exchange) t[(size_t)(nparts + 1) * steps + s] = x->exchange, parts += x->exchange;
    t[(size_t)(cols - 1) * steps + s] = x->total - parts;
  }
  for (int c = 0; c < cols; c++)
    st[c] = gs_stats_slowest(&run->where, gs_stats_of(t + (size_t)c * steps, steps), NULL);
  free(t);
}

/* The table's state over the harness: the sample bodies and their reference forces, the timed
 * runs' force arguments, this kernel's error. */
struct gs_nbody_ladder {
  struct gs_nbody_job *job;
  uint64_t *idx;
  double *ref, tol, err;
  int nref;
  void *h_acc;
  struct gs_nbody_force_args a;
};

/* Check first (the timed runs then leave the device's forces as before this harness). */
static void gs_nbody_ladder_prepare(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_nbody_ladder *l = b->w;
  l->err = gs_nbody_ladder_check(l->job, k->id, l->idx, l->ref, l->nref, l->h_acc);
  l->a = gs_nbody_forces_args(l->job, k->id, 0, l->job->npad, 0, 0);
}

/* One force evaluation: this rank's slice from all bodies. */
static void gs_nbody_ladder_once(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_nbody_ladder *l = b->w;
  (void)k;
  gs_nbody_forces_run(l->job, &l->a, b->q);
}

static int gs_nbody_ladder_verify(struct gs_bench *b, const struct gs_kernel *k, struct gs_bench_result *r) {
  const struct gs_nbody_ladder *l = b->w;
  (void)k;
  r->extra[0] = l->err;
  return l->err <= l->tol;
}

static void gs_nbody_ladder_head(struct gs_bench *b) {
  (void)b;
  printf("%-8s %-36s %10s %14s %9s %6s %7s %10s  %s\n", "kernel", "what", "ms", "interactions/s", "GFLOP/s", "step",
         "cum", "max_err", "check");
}

static void gs_nbody_ladder_row(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r) {
  const struct gs_nbody_ladder *l = b->w;
  double t = r->slow.median, rate = (double)l->job->n * (double)l->job->n / t, err = r->extra[0];
  printf("%-8s %-36s %10.3f %14.4e %9.1f %6s %7s %10.2e  %s\n", k->name, k->title, t * 1e3, rate,
         rate * GS_NBODY_FLOPS / 1e9, r->step, r->cum, err, r->ok ? "OK" : "FAILED");
  struct gs_row row = gs_bench_row(b, k, r, "interactions", rate, "1/s", -1);
  char extra[96];
  snprintf(extra, sizeof extra, "phase=forces;max_err=%.3g;check=%s", err, r->ok ? "OK" : "FAILED");
  gs_nbody_ladder_params(l->job, row.params, sizeof row.params, extra);
  gs_report_add(b->rep, &row);
}

static const struct gs_bench_ops gs_nbody_ladder_ops = {
    .head = gs_nbody_ladder_head,
    .prepare = gs_nbody_ladder_prepare,
    .run_once = gs_nbody_ladder_once,
    .verify = gs_nbody_ladder_verify,
    .row = gs_nbody_ladder_row,
};

void gs_nbody_ladder_run(struct gs_nbody_job *job, unsigned mask, double tol) {
  struct gs_nbody_ladder l = {.job = job, .tol = tol};
  l.nref = gs_nbody_ref_sample(job, job->h_pos, &l.idx, &l.ref);
  l.h_acc = malloc((job->count ? job->count : 1) * job->esz);
  if (!l.h_acc) GS_DIE(&job->run->where, "malloc", "out of memory");
  struct gs_bench b = {.run = job->run, .ops = &gs_nbody_ladder_ops, .w = &l, .workload = "nbody", .rep = &job->rep,
                       .kernels = job->kernels, .count = job->be->nbody->count, .mask = mask, .q = job->qc,
                       .warmup = 1, .iters = job->o->iters, .problem_size = job->n};
  gs_bench_table(&b);
  if (b.failed) job->failed = 1;
  job->gate_expired += b.gate_expired;
  free(l.h_acc);
  free(l.idx);
  free(l.ref);
}
