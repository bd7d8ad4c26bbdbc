/* gs_nbody_dtree_report.c: what --tree-layout domains says: its header lines, its check against
 * the double direct sum (the replicated tree's check and verdict, gs_nbody_tree_report.c, on the
 * standard id slices gathered from wherever the bodies are), its timing row and the per-step line
 * with what the distribution costs: domain update, LET exchange (bytes sent by the busiest rank)
 * and load imbalance (slowest walk / mean walk). */
#include "gs_nbody_dtree.h"

#include <stdio.h>
#include <stdlib.h>

#include "gs_nbody_ladder.h"
#include "gs_nbody_ref.h"
#include "gs_nbody_tree.h"
#include "gs_nbody_tree_report.h"

void gs_nbody_dtree_report_header(struct gs_nbody_dtree *d, double tol) {
  const struct gs_nbody_job *job = d->job;
  const struct gs_nbody_opts *o = job->o;
  char leaf[48] = "leaf buckets of the backend's size";
  if (o->leaf > 0) snprintf(leaf, sizeof leaf, "leaf buckets of at most %d bodies", o->leaf);
  if (o->opening == 1)
    printf("# solver: tree (Barnes-Hut), relative opening (GADGET-2's) alpha = %g, the first evaluation geometric "
           "at theta = %g; %s\n",
           o->alpha, o->theta, leaf);
  else
    printf("# solver: tree (Barnes-Hut), geometric opening theta = %g; %s\n", o->theta, leaf);
  printf("# tree layout: domains: cells of at most %llu bodies (--tree-cell) on a Morton key grid, each held whole "
         "by one rank, the ranks' runs of cells cut by the last walk's time; each rank builds its cells' subtrees "
         "and receives the locally essential tree of the others (all-to-all); results bitwise independent of the "
         "rank count; --overlap and --exchange do not apply\n",
         (unsigned long long)d->C);
  printf("# tree method: %s\n", job->be->dtree->method);
  gs_nbody_tree_report_check_line(job, tol);
}

/* The forces src (held acc or the scratch forces) checked: every position to every rank (the
 * reference sums over all N; at the start and the end only), this rank's slice of the forces. */
static int gs_nbody_dtree_report_check(struct gs_nbody_dtree *d, const char *when, const void *src, double tol,
                                       double *p99, int phi) {
  struct gs_nbody_job *job = d->job;
  size_t mine = (job->count ? job->count : 1) * job->esz;
  void *pos = malloc(mine), *acc = malloc(mine), *all = malloc(job->npad * job->esz), *pot = NULL;
  if (!pos || !acc || !all) GS_DIE(&job->run->where, "malloc", "out of memory for the check");
  gs_nbody_dtree_slices(d, src, pos, NULL, acc);
  if (phi) { /* the diagnostics' evaluation (it may move bodies: after src is read) */
    gs_nbody_dtree_let_eval(d, 1, 0, GS_NBODY_DTREE_SCRATCH | GS_NBODY_DTREE_DIAG, NULL);
    if (!(pot = malloc(mine))) GS_DIE(&job->run->where, "malloc", "out of memory for the check");
    gs_nbody_dtree_slices(d, d->scratch, pos, NULL, pot);
  }
  GS_CHECK_MPI(&job->run->where, MPI_Allgatherv(pos, job->dec.tiles[job->run->rank], job->tile_type, all,
                                                job->dec.tiles, job->dec.tile0, job->tile_type, MPI_COMM_WORLD));
  int v = gs_nbody_tree_report_verify(job, when, all, acc, pot, tol, p99);
  free(pos), free(acc), free(all), free(pot);
  return v;
}

/* Rank 0: the table's row and its result row. */
static void gs_nbody_dtree_row(struct gs_nbody_dtree *d, const struct gs_stats *s, const double part[4], double p99,
                               int v) {
  struct gs_nbody_job *job = d->job;
  const char *ok = v == 1 ? "OK" : v ? "WARNING" : "FAILED";
  double n = job->n ? (double)job->n : 1, t = s->median;
  printf("%-8s %9s %9s %9s %9s %9s %10s %9s %10s  %s\n", "solver", "domain_ms", "build_ms", "let_ms", "walk_ms", "ms",
         "inter/body", "GFLOP/s", "p99_err", "check");
  printf("%-8s %9.3f %9.3f %9.3f %9.3f %9.3f %10.1f %9.2f %10.2e  %s\n", "tree", part[GS_NBODY_DTREE_DOMAIN] * 1e3,
         part[GS_NBODY_DTREE_BUILD] * 1e3, part[GS_NBODY_DTREE_LET] * 1e3, part[GS_NBODY_DTREE_WALK] * 1e3, t * 1e3,
         d->inter / n, d->flops / t / 1e9, p99, ok);
  struct gs_row row = {.workload = "nbody", .kernel = "tree", .rank = -1, .problem_size = job->n,
                       .iterations = job->o->iters, .t_min = s->min, .t_median = t, .t_max = s->max,
                       .metric = "interactions", .value = d->inter / t, .unit = "1/s", .efficiency = -1};
  char extra[200];
  snprintf(extra, sizeof extra,
           "phase=forces;solver=tree;layout=domains;theta=%g;opening=%s;domain_s=%.4g;let_s=%.4g;walk_s=%.4g;"
           "p99_err=%.3g;check=%s",
           job->o->theta, job->o->opening ? "relative" : "geometric", part[GS_NBODY_DTREE_DOMAIN],
           part[GS_NBODY_DTREE_LET], part[GS_NBODY_DTREE_WALK], p99, ok);
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(&job->rep, &row);
  fflush(stdout);
}

void gs_nbody_dtree_report_first(struct gs_nbody_dtree *d, double tol) {
  struct gs_nbody_job *job = d->job;
  int iters = job->o->iters;
  double p99 = 0, part[4] = {0}, *t = malloc(sizeof *t * 5 * (size_t)(iters ? iters : 1));
  if (!t) GS_DIE(&job->run->where, "malloc", "out of memory");
  /* The first evaluation into the held acc, the a_old of the timed ones (the relative test's
   * cost is that of a run's), then the held bodies back bit for bit (a restart's acc is the
   * checkpoint's) and the first cut of the run by count again. */
  job->solver->keep(d);
  gs_nbody_dtree_let_eval(d, 0, 1, 0, NULL);
  int v = gs_nbody_dtree_report_check(d, "start", d->b.acc, tol, &p99, 1);
  for (int i = 0; i < iters; i++) { /* timed: into the scratch forces */
    double t0 = MPI_Wtime();
    gs_nbody_dtree_let_eval(d, 0, 0, GS_NBODY_DTREE_SCRATCH, part);
    t[i] = MPI_Wtime() - t0;
    for (int k = 0; k < 4; k++)
      t[(size_t)(k + 1) * iters + i] = part[k];
  }
  struct gs_stats s = gs_stats_slowest(&job->run->where, gs_stats_of(t, iters), NULL);
  for (int k = 0; k < 4; k++)
    part[k] = gs_stats_slowest(&job->run->where, gs_stats_of(t + (size_t)(k + 1) * iters, iters), NULL).median;
  free(t);
  job->solver->undo(d);
  d->measured = 0;
  if (job->run->rank == 0) gs_nbody_dtree_row(d, &s, part, p99, v);
}

void gs_nbody_dtree_report_final(struct gs_nbody_dtree *d, long step, double tol) {
  char when[48];
  double p99;
  snprintf(when, sizeof when, "end, step %ld", step);
  gs_nbody_dtree_report_check(d, when, d->b.acc, tol, &p99, 0);
}

/* Per step over the ranks: the busiest rank's LET bytes and the slowest walk over the mean walk;
 * their medians over the steps (rank 0). */
static void gs_nbody_dtree_spread(struct gs_nbody_dtree *d, const struct gs_step_times *times, int steps,
                                  double *bytes, double *imbalance) {
  struct gs_nbody_job *job = d->job;
  double *v = calloc(3 * (size_t)steps, sizeof *v), *mx = calloc(3 * (size_t)steps, sizeof *mx);
  if (!v || !mx) GS_DIE(&job->run->where, "calloc", "out of memory");
  for (int s = 0; s < steps; s++)
    v[s] = s < d->let_n ? d->let_bytes[s] : 0, v[steps + s] = times[s].part[GS_NBODY_DTREE_WALK];
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(v, mx, 2 * steps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  GS_CHECK_MPI(&job->run->where,
               MPI_Allreduce(v + steps, v + 2 * steps, steps, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  for (int s = 0; s < steps; s++) {
    double mean = v[2 * steps + s] / job->run->size;
    v[s] = mx[s], v[steps + s] = mean > 0 ? mx[steps + s] / mean : 1;
  }
  *bytes = gs_stats_of(v, steps).median, *imbalance = gs_stats_of(v + steps, steps).median;
  free(v), free(mx);
}

void gs_nbody_dtree_report_steps(struct gs_nbody_dtree *d, const struct gs_step_times *times, int steps) {
  struct gs_nbody_job *job = d->job;
  const struct gs_run *run = job->run;
  double *t = malloc(sizeof *t * 6 * (size_t)steps), bytes, imb;
  struct gs_stats st[6];
  if (!t) GS_DIE(&run->where, "malloc", "out of memory");
  for (int s = 0; s < steps; s++) {
    const struct gs_step_times *x = &times[s];
    double parts = 0;
    t[s] = x->total;
    for (int k = 0; k < 4; k++)
      t[(size_t)(k + 1) * steps + s] = x->part[k], parts += x->part[k];
    t[5 * (size_t)steps + s] = x->total - parts;
  }
  for (int c = 0; c < 6; c++)
    st[c] = gs_stats_slowest(&run->where, gs_stats_of(t + (size_t)c * steps, steps), NULL);
  free(t);
  gs_nbody_dtree_spread(d, times, steps, &bytes, &imb);
  if (run->rank != 0) return;
  double rate = d->inter / st[0].median;
  printf("# per step (median of %d, slowest rank): total %.3f ms, domain update %.3f ms, build %.3f ms, LET exchange "
         "%.3f ms (%.4g bytes sent by the busiest rank), walk %.3f ms, integration and the rest %.3f ms; load "
         "imbalance %.3f (slowest walk / mean walk); %llu bodies migrated over the run; %.4e interactions/s, %.1f "
         "GFLOP/s\n",
         steps, st[0].median * 1e3, st[3].median * 1e3, st[1].median * 1e3, st[4].median * 1e3, bytes,
         st[2].median * 1e3, st[5].median * 1e3, imb, (unsigned long long)d->migrated, rate,
         d->flops / st[0].median / 1e9);
  struct gs_row row = {.workload = "nbody", .kernel = "tree", .rank = -1, .problem_size = job->n,
                       .iterations = steps, .t_min = st[0].min, .t_median = st[0].median, .t_max = st[0].max,
                       .metric = "interactions", .value = rate, .unit = "1/s", .efficiency = -1};
  char extra[200];
  snprintf(extra, sizeof extra,
           "phase=step;solver=tree;layout=domains;domain_s=%.6g;build_s=%.6g;let_s=%.6g;let_bytes=%.6g;walk_s=%.6g;"
           "imbalance=%.4g;migrated=%llu",
           st[3].median, st[1].median, st[4].median, bytes, st[2].median, imb, (unsigned long long)d->migrated);
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(&job->rep, &row);
}
