/* gs_nbody_tree_report.c: --solver tree's header lines, accuracy, timing row and step statistics.
 * The error of a body is |a - a_ref| / |a_ref| (acceleration only), a_ref from the double CPU
 * direct sum of gs_nbody_ref.c; the verdict is on the 99th percentile of the sample. */
#include "gs_nbody_tree_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gs_nbody_ladder.h"
#include "gs_nbody_ref.h"
#include "gs_nbody_tree.h"

/* Statistics of the sample's errors (rank 0). */
struct gs_tree_err {
  int count;
  double rms, median, p99, max;
};

static int gs_nbody_tree_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* This rank's sample errors of the forces acc (host copy of the slice) into err[]. */
static void gs_nbody_tree_errors(const struct gs_nbody_job *job, const void *acc, const uint64_t *idx,
                                 const double *ref, int nref, double *err) {
  for (int s = 0; s < nref; s++) {
    double g[4], d2 = 0, r2 = 0;
    const double *r = ref + 5 * s;
    gs_nbody_ref_get(job, acc, idx[s] - job->first, g);
    for (int c = 0; c < 3; c++)
      d2 += (g[c] - r[c]) * (g[c] - r[c]), r2 += r[c] * r[c];
    /* A body with no net force (one body, a symmetric spot): its error against the force scale. */
    double scale = r2 > 0 ? sqrt(r2) : r[4] > 0 ? r[4] : 1;
    err[s] = sqrt(d2) / scale;
    if (isnan(err[s])) err[s] = INFINITY; /* sorts last and fails */
  }
}

/* Every rank's errors to rank 0, and their statistics there. */
static struct gs_tree_err gs_nbody_tree_gather(const struct gs_nbody_job *job, const double *err, int nref) {
  const struct gs_run *run = job->run;
  struct gs_tree_err e = {0};
  int *counts = calloc((size_t)run->size, sizeof *counts), *displ = calloc((size_t)run->size, sizeof *displ);
  double *all = malloc(sizeof *all * GS_NBODY_REF_SAMPLE);
  if (!counts || !displ || !all) GS_DIE(&run->where, "malloc", "out of memory");
  GS_CHECK_MPI(&run->where, MPI_Gather(&nref, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
  for (int r = 1; r < run->size; r++)
    displ[r] = displ[r - 1] + counts[r - 1];
  GS_CHECK_MPI(&run->where,
               MPI_Gatherv(err, nref, MPI_DOUBLE, all, counts, displ, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  if (run->rank == 0) {
    e.count = displ[run->size - 1] + counts[run->size - 1];
    qsort(all, (size_t)e.count, sizeof *all, gs_nbody_tree_cmp);
    double sum = 0;
    for (int k = 0; k < e.count; k++)
      sum += all[k] * all[k];
    if (e.count) {
      int p = (int)ceil(0.99 * e.count) - 1;
      e.rms = sqrt(sum / e.count), e.median = all[e.count / 2], e.p99 = all[p < 0 ? 0 : p];
      e.max = all[e.count - 1];
    }
  }
  free(counts), free(displ), free(all);
  return e;
}

/* The errors of the forces in acc (device, this slice) at the positions in h_pos. */
static struct gs_tree_err gs_nbody_tree_check(struct gs_nbody_job *job, const void *acc) {
  uint64_t *idx;
  double *ref;
  int nref = gs_nbody_ref_sample_device(job, job->h_pos, &idx, &ref);
  void *h_acc = malloc((job->count ? job->count : 1) * job->esz);
  double *err = malloc(sizeof *err * (size_t)(nref ? nref : 1));
  if (!h_acc || !err) GS_DIE(&job->run->where, "malloc", "out of memory");
  if (job->count) job->be->copy_d2h(job->ctx, h_acc, acc, job->count * job->esz, job->qc);
  job->be->queue_sync(job->ctx, job->qc);
  gs_nbody_ref_corrupt(job, h_acc, idx, nref);
  gs_nbody_tree_errors(job, h_acc, idx, ref, nref, err);
  struct gs_tree_err e = gs_nbody_tree_gather(job, err, nref);
  free(idx), free(ref), free(h_acc), free(err);
  return e;
}

/* Rank 0: one line of errors and the verdict; job->failed above tol (or no finite errors). */
static int gs_nbody_tree_verdict(struct gs_nbody_job *job, const char *when, const struct gs_tree_err *e,
                                 double tol) {
  int ok = e->p99 <= tol && isfinite(e->max);
  if (job->run->rank != 0) return ok;
  if (!ok) job->failed = 1;
  printf("# tree check (%s): %d bodies, |a - a_ref| / |a_ref|: rms %.2e, median %.2e, 99th percentile %.2e, max "
         "%.2e (tolerance %.1e on the 99th percentile): %s\n",
         when, e->count, e->rms, e->median, e->p99, e->max, tol, ok ? "OK" : "FAILED");
  fflush(stdout);
  return ok;
}

void gs_nbody_tree_report_restart(const struct gs_nbody_job *job, const struct gs_ckpt_header *ck) {
  const struct gs_nbody_opts *o = job->o;
  static const char *const solver[] = {"direct", "tree"};
  int tree = ck->solver == 1 && job->tree;
  if (ck->solver == (job->tree ? 1 : 0) &&
      (!tree || (ck->theta == o->theta && ck->opening == o->opening && ck->alpha == o->alpha && ck->leaf == o->leaf)))
    return;
  if (tree)
    printf("# restart: the checkpoint was written by the tree at theta = %g, %s opening, alpha = %g, leaf %d: with "
           "other settings the state agrees with an uninterrupted run only within the tree's force error\n",
           ck->theta, ck->opening ? "relative" : "geometric", ck->alpha, ck->leaf);
  else
    printf("# restart: the checkpoint was written by the %s solver, this run uses the %s one: the state agrees with "
           "an uninterrupted run only within the tree's force error\n",
           solver[ck->solver == 1], solver[job->tree]);
}

void gs_nbody_tree_report_header(const struct gs_nbody_job *job, double tol) {
  const struct gs_nbody_opts *o = job->o;
  char leaf[48] = "leaf buckets of the backend's size";
  if (o->leaf > 0) snprintf(leaf, sizeof leaf, "leaf buckets of at most %d bodies", o->leaf);
  static const char *share = "every rank builds the whole tree and walks its slice of the tree's body order (a "
                              "compact region); positions and forces all-gathered, --overlap does not apply";
  if (o->opening == 1)
    printf("# solver: tree (Barnes-Hut), relative opening (GADGET-2's) alpha = %g, the first evaluation geometric "
           "at theta = %g; %s; %s\n",
           o->alpha, o->theta, leaf, share);
  else
    printf("# solver: tree (Barnes-Hut), geometric opening theta = %g; %s; %s\n", o->theta, leaf, share);
  printf("# tree method: %s\n", job->be->tree->method);
  const struct gs_kernel *rk = gs_nbody_ref_kernel(job->be);
  const char *ref = rk ? rk->name : "none";
  printf("# check: tree forces of up to %d bodies against a double-precision direct sum (%s kernel '%s', not the tree) "
         "at the start and at the end; error = |a - a_ref| / |a_ref|; FAILED when its 99th percentile exceeds %.1e\n",
         GS_NBODY_REF_SAMPLE, job->be->name, ref, tol);
  printf("# rates: interactions counted by the walk, %d flops per body-body and %d per body-cell (monopole + "
         "quadrupole); timing: %s, median\n",
         GS_NBODY_FLOPS, GS_NBODY_TREE_CELL_FLOPS, job->run->be->timing);
}

/* The sample's errors of the forces in acc (device, this slice) at the current positions. */
static struct gs_tree_err gs_nbody_tree_measure(struct gs_nbody_job *job, const void *acc) {
  /* The positions on the device are the current ones (one rank skips the exchange's staging). */
  job->be->copy_d2h(job->ctx, job->h_pos, job->d_pos, job->npad * job->esz, job->qc);
  return gs_nbody_tree_check(job, acc);
}

/* --iters timed evaluations into the scratch d_acc2 (the table's first one's forces their a_old):
 * total, build and walk, median of this rank. No gate: a backend's build may wait on the host
 * for its own queue (a count read back to size the next launch), which a closed gate would hold
 * up; the events still time the device's work, plus any launch gaps between the tree's kernels. */
static struct gs_stats gs_nbody_tree_time(struct gs_nbody_job *job, double *build, double *walk) {
  int iters = job->o->iters;
  double *t = malloc(sizeof *t * 3 * (size_t)iters);
  if (!t) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int i = 0; i < iters; i++) {
    gs_nbody_tree_forces(job, job->d_acc2, 0, 0, 0);
    gs_nbody_tree_times(job, &t[iters + i], &t[2 * iters + i]);
    t[i] = t[iters + i] + t[2 * iters + i];
  }
  struct gs_stats s = gs_stats_of(t, iters);
  *build = gs_stats_of(t + iters, iters).median, *walk = gs_stats_of(t + 2 * iters, iters).median;
  free(t);
  return s;
}

/* The walk's counters of one evaluation, summed over the ranks: body-body, body-cell. */
static void gs_nbody_tree_counted(struct gs_nbody_job *job, double inter[2]) {
  uint64_t h[GS_TREE_COUNTS];
  double mine[2];
  job->be->copy_d2h(job->ctx, h, job->d_counts, sizeof h, job->qc);
  job->be->queue_sync(job->ctx, job->qc);
  mine[0] = (double)h[GS_TREE_BODY_BODY], mine[1] = (double)h[GS_TREE_BODY_CELL];
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(mine, inter, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  job->tree_inter = inter[0] + inter[1];
  job->tree_flops = inter[0] * GS_NBODY_FLOPS + inter[1] * GS_NBODY_TREE_CELL_FLOPS;
}

/* Rank 0: the table's row and its result row. */
static void gs_nbody_tree_row(struct gs_nbody_job *job, const struct gs_stats *slow, double build, double walk,
                              const double inter[2], const struct gs_tree_err *e, int ok) {
  double n = job->n ? (double)job->n : 1, t = slow->median;
  printf("%-8s %9s %9s %9s %10s %10s %9s %10s  %s\n", "solver", "build_ms", "walk_ms", "ms", "bb/body", "bc/body",
         "GFLOP/s", "p99_err", "check");
  printf("%-8s %9.3f %9.3f %9.3f %10.1f %10.1f %9.2f %10.2e  %s\n", "tree", build * 1e3, walk * 1e3, t * 1e3,
         inter[0] / n, inter[1] / n, job->tree_flops / t / 1e9, e->p99, ok ? "OK" : "FAILED");
  struct gs_row row = {.workload = "nbody",
                       .kernel = "tree",
                       .rank = -1,
                       .problem_size = job->n,
                       .iterations = job->o->iters,
                       .t_min = slow->min,
                       .t_median = t,
                       .t_max = slow->max,
                       .metric = "interactions",
                       .value = job->tree_inter / t,
                       .unit = "1/s",
                       .efficiency = -1};
  char extra[160];
  snprintf(extra, sizeof extra, "phase=forces;solver=tree;theta=%g;opening=%s;build_s=%.4g;walk_s=%.4g;p99_err=%.3g;check=%s",
           job->o->theta, job->o->opening ? "relative" : "geometric", build, walk, e->p99, ok ? "OK" : "FAILED");
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(&job->rep, &row);
  fflush(stdout);
}

void gs_nbody_tree_report_table(struct gs_nbody_job *job, double tol) {
  job->be->zero_device(job->ctx, job->d_counts, GS_TREE_COUNTS * sizeof(uint64_t), job->qc);
  gs_nbody_tree_forces(job, job->d_acc2, 0, 1, GS_NBODY_TREE_COUNT | GS_NBODY_TREE_KEEP); /* a_old of the timed ones */
  double inter[2], build, walk;
  gs_nbody_tree_counted(job, inter);
  struct gs_tree_err e = gs_nbody_tree_measure(job, job->d_acc2);
  int ok = gs_nbody_tree_verdict(job, "start", &e, tol);
  struct gs_stats slow = gs_stats_slowest(&job->run->where, gs_nbody_tree_time(job, &build, &walk), NULL);
  if (job->run->rank == 0) gs_nbody_tree_row(job, &slow, build, walk, inter, &e, ok);
}

void gs_nbody_tree_report_final(struct gs_nbody_job *job, long step, double tol) {
  char when[48];
  snprintf(when, sizeof when, "end, step %ld", step);
  struct gs_tree_err e = gs_nbody_tree_measure(job, job->d_acc);
  gs_nbody_tree_verdict(job, when, &e, tol);
}

void gs_nbody_tree_report_steps(struct gs_nbody_job *job, const struct gs_step_times *times, int steps) {
  const struct gs_run *run = job->run;
  double *t = malloc(sizeof *t * 5 * (size_t)steps);
  struct gs_stats st[5];
  if (!t) GS_DIE(&run->where, "malloc", "out of memory");
  for (int s = 0; s < steps; s++) {
    const struct gs_step_times *x = &times[s];
    t[s] = x->total, t[steps + s] = x->build, t[2 * steps + s] = x->walk, t[3 * steps + s] = x->exchange;
    t[4 * steps + s] = x->total - x->build - x->walk - x->exchange;
  }
  for (int c = 0; c < 5; c++)
    st[c] = gs_stats_slowest(&run->where, gs_stats_of(t + (size_t)c * steps, steps), NULL);
  free(t);
  if (run->rank != 0) return;
  double rate = job->tree_inter / st[0].median;
  printf("# per step (median of %d, slowest rank): total %.3f ms, build %.3f ms, walk %.3f ms, exchange %.3f ms, "
         "integration and the rest %.3f ms; %.4e interactions/s, %.1f GFLOP/s\n",
         steps, st[0].median * 1e3, st[1].median * 1e3, st[2].median * 1e3, st[3].median * 1e3, st[4].median * 1e3,
         rate, job->tree_flops / st[0].median / 1e9);
  struct gs_row row = {.workload = "nbody", .kernel = "tree", .rank = -1, .problem_size = job->n,
                       .iterations = steps, .t_min = st[0].min, .t_median = st[0].median, .t_max = st[0].max,
                       .metric = "interactions", .value = rate, .unit = "1/s", .efficiency = -1};
  char extra[160];
  snprintf(extra, sizeof extra, "phase=step;solver=tree;build_s=%.6g;walk_s=%.6g;exchange_s=%.6g;integrate_s=%.6g",
           st[1].median, st[2].median, st[3].median, st[4].median);
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(&job->rep, &row);
}
