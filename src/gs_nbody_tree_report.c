/* gs_nbody_tree_report.c: --solver tree's header lines, accuracy, timing row and step statistics.
 * The error of a body is |a - a_ref| / |a_ref| (acceleration only), a_ref from the double direct
 * sum of gs_nbody_ref.c; the verdict is on the 99th percentile of the sample. The default
 * tolerance is what the tree usually meets (smooth distributions at N >= 256, docs/tree.md):
 * above it a run is "less accurate than usual", a warning. It FAILS where even the opening test
 * cannot explain the error: the 99th percentile of |a - a_ref| / max(|a_ref|, phi_ref^2 / (G M))
 * above 10x the usual tolerance (at most 1, at least the usual). That scale does not vanish
 * where a body's pulls cancel (phi^2 / (G M) <= sum_j G m_j / r_j^2 by Cauchy-Schwarz, a sum free
 * of cancellation), and 10x is about the worst error one accepted cell of a few point masses can
 * make at that theta (docs/tree.md: 0.075 at 0.3, 0.49 at 0.5, 3.3 at 0.7). */
#include "gs_nbody_tree_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gs_bench.h"
#include "gs_nbody_ladder.h"
#include "gs_nbody_ref.h"
#include "gs_nbody_tree.h"

/* Statistics of the sample's errors (rank 0): relative, and against the force scale (sp99, smax). */
struct gs_tree_err {
  int count;
  double rms, median, p99, max, sp99, smax;
};

/* This rank's sample bodies and their references (gs_nbody_ref_sample_device). */
struct gs_tree_sample {
  uint64_t *idx;
  double *ref;
  int n;
};

static int gs_nbody_tree_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The errors of n sample bodies' forces got[4s..4s+2] (in double) against their references
 * ref[5s..] into err[] (relative) and err[n..] (against the force scale max(|a_ref|, phi_ref^2 /
 * (G M))). */
static void gs_nbody_tree_errors(const struct gs_nbody_job *job, int n, const double *got, const double *ref,
                                 double *err) {
  double gm = job->G * job->mass;
  for (int s = 0; s < n; s++) {
    double d2 = 0, r2 = 0;
    const double *g = got + 4 * s, *r = ref + 5 * s;
    for (int c = 0; c < 3; c++)
      d2 += (g[c] - r[c]) * (g[c] - r[c]), r2 += r[c] * r[c];
    /* A body with no net force (one body, a symmetric spot): its error against the force scale. */
    double scale = r2 > 0 ? sqrt(r2) : r[4] > 0 ? r[4] : 1, wide = gm > 0 ? r[3] * r[3] / gm : 0;
    err[s] = sqrt(d2) / scale;
    err[n + s] = sqrt(d2) / (wide > scale ? wide : scale);
    for (int k = 0; k < 2; k++)
      if (isnan(err[k * n + s])) err[k * n + s] = INFINITY; /* sorts last and fails */
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

/* This rank's host copy of its slice of acc (device), malloc'd. */
static void *gs_nbody_tree_host(struct gs_nbody_job *job, const void *acc) {
  void *h = malloc((job->count ? job->count : 1) * job->esz);
  if (!h) GS_DIE(&job->run->where, "malloc", "out of memory");
  if (job->count) job->be->copy_d2h(job->ctx, h, acc, job->count * job->esz, job->qc);
  job->be->queue_sync(job->ctx, job->qc);
  return h;
}

/* The sample and its references at the current positions (copied into h_pos). */
static struct gs_tree_sample gs_nbody_tree_sample(struct gs_nbody_job *job) {
  struct gs_tree_sample sm;
  job->be->copy_d2h(job->ctx, job->h_pos, job->d_pos, job->npad * job->esz, job->qc);
  job->be->queue_sync(job->ctx, job->qc);
  sm.n = gs_nbody_ref_sample_device(job, job->h_pos, &sm.idx, &sm.ref);
  return sm;
}

/* The statistics of n sample bodies' errors (forces got against references ref, both in double)
 * over the ranks: any rank may hold any of them (rank 0's valid). Collective. */
static struct gs_tree_err gs_nbody_tree_stats(const struct gs_nbody_job *job, int n, const double *got,
                                              const double *ref) {
  double *err = malloc(sizeof *err * 2 * (size_t)(n ? n : 1));
  if (!err) GS_DIE(&job->run->where, "malloc", "out of memory");
  gs_nbody_tree_errors(job, n, got, ref, err);
  struct gs_tree_err e = gs_nbody_tree_gather(job, err, n), w = gs_nbody_tree_gather(job, err + n, n);
  e.sp99 = w.p99, e.smax = w.max;
  free(err);
  return e;
}

/* The errors of the forces in acc (device, this slice) against the sample's references. */
static struct gs_tree_err gs_nbody_tree_check(struct gs_nbody_job *job, const struct gs_tree_sample *sm,
                                              const void *acc) {
  void *h_acc = gs_nbody_tree_host(job, acc);
  double *got = malloc(sizeof *got * 4 * (size_t)(sm->n ? sm->n : 1));
  if (!got) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int s = 0; s < sm->n; s++)
    gs_nbody_ref_get(job, h_acc, sm->idx[s] - job->first, got + 4 * s);
  struct gs_tree_err e = gs_nbody_tree_stats(job, sm->n, got, sm->ref);
  free(h_acc), free(got);
  return e;
}

/* The default tolerance's failing limit: 10x what the tree usually meets, at most 1 (an error as
 * large as the force), never below the usual tolerance itself (theta >= 1, where the usual error
 * is already of the force's size). */
static double gs_nbody_tree_hard(double tol) { return 10 * tol < 1 ? 10 * tol : tol > 1 ? tol : 1; }

/* The solver the check's lines name: this check is also the fast multipole solver's ("fmm"). */
static const char *gs_nbody_tree_who(const struct gs_nbody_job *job) {
  return job->solver ? job->solver->name : "tree";
}

/* Rank 0: one line of errors and the verdict, 1 OK, 2 less accurate than usual (a warning, with
 * a second line), 0 FAILED (job->failed set): above tol when --force-tol gave it, else above the
 * hard limit against the force scale, or no finite errors. */
static int gs_nbody_tree_verdict(struct gs_nbody_job *job, const char *when, const struct gs_tree_err *e,
                                 double tol) {
  int given = job->o->force_tol > 0, finite = isfinite(e->max) && isfinite(e->smax);
  double hard = gs_nbody_tree_hard(tol);
  int v = !finite ? 0 : e->p99 <= tol ? 1 : given || e->sp99 > hard ? 0 : 2;
  if (job->run->rank != 0) return v;
  if (!v) job->failed = 1;
  static const char *const word[] = {"FAILED", "OK", "LESS ACCURATE THAN USUAL"};
  const char *who = gs_nbody_tree_who(job);
  printf("# %s check (%s): %d bodies, |a - a_ref| / |a_ref|: rms %.2e, median %.2e, 99th percentile %.2e, max "
         "%.2e (tolerance %.1e on the 99th percentile): %s\n",
         who, when, e->count, e->rms, e->median, e->p99, e->max, tol, word[v]);
  if (finite && !given && e->p99 > tol && v)
    printf("# %s check (%s): less accurate than usual, not a fault: against the force scale max(|a_ref|, phi_ref^2 / "
           "(G M)) the 99th percentile is %.2e, within the %.1e that fails. The usual tolerance holds on smooth "
           "distributions at N >= 256; few bodies per accepted cell (a small N, a few massive bodies among massless "
           "ones) or cancelling forces give more (docs/tree.md)\n",
           who, when, e->sp99, hard);
  else if (finite && !given && e->p99 > tol)
    printf("# %s check (%s): against the force scale max(|a_ref|, phi_ref^2 / (G M)) the 99th percentile is %.2e, "
           "above the %.1e that fails: more than the opening test allows\n",
           who, when, e->sp99, hard);
  fflush(stdout);
  return v;
}

void gs_nbody_tree_report_restart(const struct gs_nbody_tree *t, const struct gs_ckpt_header *ck) {
  const struct gs_nbody_opts *o = t->repl.job->o;
  if (ck->solver != GS_NBODY_TREE ||
      (ck->theta == o->theta && ck->opening == o->opening && ck->alpha == o->alpha && ck->leaf == o->leaf))
    return; /* another solver's: the driver says so */
  printf("# restart: the checkpoint was written by the tree at theta = %g, %s opening, alpha = %g, leaf %d: with "
         "other settings the state agrees with an uninterrupted run only within the tree's force error\n",
         ck->theta, ck->opening ? "relative" : "geometric", ck->alpha, ck->leaf);
}

void gs_nbody_tree_report_header(const struct gs_nbody_tree *t, double tol) {
  const struct gs_nbody_job *job = t->repl.job;
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
  gs_nbody_tree_report_check_line(job, tol);
}

void gs_nbody_tree_report_check_rule(const struct gs_nbody_job *job, const char *usual_at, double tol) {
  const struct gs_kernel *rk = gs_nbody_ref_kernel(job->be);
  const char *ref = rk ? rk->name : "none", *who = gs_nbody_tree_who(job);
  printf("# check: %s forces of up to %d bodies against a double-precision direct sum (%s kernel '%s', not the %s) "
         "at the start and at the end; error = |a - a_ref| / |a_ref|; ",
         who, GS_NBODY_REF_SAMPLE, job->be->name, ref, who);
  if (job->o->force_tol > 0)
    printf("FAILED when its 99th percentile exceeds %.1e (--force-tol)\n", tol);
  else /* the limits gs_nbody_tree_verdict applies */
    printf("usual tolerance %.1e on its 99th percentile%s (above it: less accurate than usual, a warning); FAILED "
           "when the 99th percentile of |a - a_ref| / max(|a_ref|, phi_ref^2 / (G M)) exceeds %.1e\n",
           tol, usual_at, gs_nbody_tree_hard(tol));
}

void gs_nbody_tree_report_check_line(const struct gs_nbody_job *job, double tol) {
  gs_nbody_tree_report_check_rule(job, "", tol);
  printf("# rates: interactions counted by the walk, %d flops per body-body and %d per body-cell (monopole + "
         "quadrupole); timing: %s, median\n",
         GS_NBODY_FLOPS, GS_NBODY_TREE_CELL_FLOPS, job->run->be->timing);
}

/* The diagnostics' potential (gs_nbody_tree_scratch) against the sample's reference potentials:
 * rank 0 prints how the energy lines' potential is made and its error now, the sampled bodies'
 * |sum m (phi - phi_ref)| / |sum m phi_ref| (with N <= the sample, every body: the error of the
 * potential energy itself). Collective. */
static void gs_nbody_tree_phi_line(struct gs_nbody_job *job, const struct gs_tree_sample *sm, const void *h_pos,
                                   const void *h_acc);
static void gs_nbody_tree_phi_print(struct gs_nbody_job *job, const double w[2]);

static void gs_nbody_tree_potential(struct gs_nbody_tree *t, const struct gs_tree_sample *sm) {
  struct gs_nbody_job *job = t->repl.job;
  gs_nbody_tree_scratch(t);
  /* the forces' all-gather staged through h_pos (--exchange host): the masses from d_pos again */
  job->be->copy_d2h(job->ctx, job->h_pos, job->d_pos, job->npad * job->esz, job->qc);
  void *h_acc = gs_nbody_tree_host(job, job->d_acc_scratch);
  gs_nbody_tree_phi_line(job, sm, job->h_pos, h_acc);
  free(h_acc);
}

/* The potential line of gs_nbody_tree_potential from host copies: every position (h_pos), this
 * rank's slice of the diagnostics' evaluation (h_acc). Collective. */
static void gs_nbody_tree_phi_line(struct gs_nbody_job *job, const struct gs_tree_sample *sm, const void *h_pos,
                                   const void *h_acc) {
  double w[2] = {0, 0};
  for (int s = 0; s < sm->n; s++) {
    double g[4], q[4];
    gs_nbody_ref_get(job, h_acc, sm->idx[s] - job->first, g);
    gs_nbody_ref_get(job, h_pos, sm->idx[s], q);
    w[0] += q[3] * g[3], w[1] += q[3] * sm->ref[5 * s + 3];
  }
  gs_nbody_tree_phi_print(job, w);
}

/* The potential line from this rank's part w of sum m phi (w[0]) and sum m phi_ref (w[1]) over
 * the sample. Collective. */
static void gs_nbody_tree_phi_print(struct gs_nbody_job *job, const double w[2]) {
  double all[2];
  GS_CHECK_MPI(&job->run->where, MPI_Reduce(w, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
  if (job->run->rank != 0) return;
  char err[64] = "undefined (no potential: no mass)";
  if (all[1] != 0) snprintf(err, sizeof err, "%.1e", fabs(all[0] - all[1]) / fabs(all[1]));
  printf("# diagnostics: the energy lines' potential comes from a tree walk with the geometric test at theta = %g, "
         "whatever --opening, --alpha and --theta: one criterion for E0 and every later E, so |dE/E0| is the "
         "integration's drift plus the change of that walk's error (docs/tree.md); its error now, |sum m (phi - "
         "phi_ref)| / |sum m phi_ref| over %s against the direct sum: %s\n",
         GS_NBODY_TREE_DIAG_THETA, job->n <= GS_NBODY_REF_SAMPLE ? "every body" : "the sampled bodies", err);
  fflush(stdout);
}

/* The first evaluation's table over the harness (gs_bench.h): one row, the tree's. The check
 * comes first (prepare), then --iters timed evaluations into the scratch d_acc_scratch (the
 * check's forces their a_old), each the build's and the walk's device seconds; no warm-up: the
 * checked evaluation was one. No gate (run_timed): a backend's build may wait on the host for its
 * own queue (a count read back to size the next launch), which a closed gate would hold up; the
 * events still time the device's work, plus any launch gaps between the tree's kernels. */
struct gs_nbody_tree_bench {
  struct gs_nbody_tree *t;
  double tol, inter[2];
  struct gs_tree_err e;
  int v;                /* the check's verdict (gs_nbody_tree_verdict), rank 0's on every rank */
  double *build, *walk; /* this rank's timed evaluations' parts */
};

/* The walk's counters of one evaluation, summed over the ranks: body-body, body-cell. */
static void gs_nbody_tree_counted(struct gs_nbody_tree *t, double inter[2]) {
  const struct gs_nbody_job *job = t->repl.job;
  uint64_t h[GS_TREE_COUNTS];
  double mine[2];
  job->be->copy_d2h(job->ctx, h, t->d_counts, sizeof h, job->qc);
  job->be->queue_sync(job->ctx, job->qc);
  mine[0] = (double)h[GS_TREE_BODY_BODY], mine[1] = (double)h[GS_TREE_BODY_CELL];
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(mine, inter, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  t->inter = inter[0] + inter[1];
  t->flops = inter[0] * GS_NBODY_FLOPS + inter[1] * GS_NBODY_TREE_CELL_FLOPS;
}

/* The forces at the current positions (counted), checked against the reference; the potential's
 * line. Collective. */
static void gs_nbody_tree_report_prepare(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_nbody_tree_bench *tb = b->w;
  struct gs_nbody_tree *t = tb->t;
  struct gs_nbody_job *job = t->repl.job;
  (void)k;
  job->be->zero_device(job->ctx, t->d_counts, GS_TREE_COUNTS * sizeof(uint64_t), job->qc);
  /* a_old of the timed ones */
  gs_nbody_tree_forces(t, job->d_acc_scratch, 0, 1, GS_NBODY_TREE_COUNT | GS_NBODY_TREE_KEEP);
  gs_nbody_tree_counted(t, tb->inter);
  struct gs_tree_sample sm = gs_nbody_tree_sample(job);
  tb->e = gs_nbody_tree_check(job, &sm, job->d_acc_scratch);
  tb->v = gs_nbody_tree_verdict(job, "start", &tb->e, tb->tol);
  /* the statistics are rank 0's: its verdict is the one every rank gives the harness */
  GS_CHECK_MPI(&job->run->where, MPI_Bcast(&tb->v, 1, MPI_INT, 0, MPI_COMM_WORLD));
  gs_nbody_tree_potential(t, &sm);
  free(sm.idx), free(sm.ref);
}

/* One timed evaluation: its build and walk seconds kept (i >= 0), their sum returned. */
static double gs_nbody_tree_report_run(struct gs_bench *b, const struct gs_kernel *k, int i) {
  struct gs_nbody_tree_bench *tb = b->w;
  double build, walk;
  (void)k;
  gs_nbody_tree_forces(tb->t, tb->t->repl.job->d_acc_scratch, 0, 0, 0);
  gs_nbody_tree_times(tb->t, &build, &walk);
  if (i >= 0) tb->build[i] = build, tb->walk[i] = walk;
  return build + walk;
}

static int gs_nbody_tree_report_bench_verify(struct gs_bench *b, const struct gs_kernel *k, struct gs_bench_result *r) {
  const struct gs_nbody_tree_bench *tb = b->w;
  (void)k;
  r->extra[0] = gs_stats_of(tb->build, b->iters).median, r->extra[1] = gs_stats_of(tb->walk, b->iters).median;
  return tb->v != 0;
}

/* Rank 0: the table's head and row (build and walk: this rank's medians; ms: the slowest rank's
 * median) and its result row. */
static void gs_nbody_tree_report_row(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r) {
  const struct gs_nbody_tree_bench *tb = b->w;
  const struct gs_nbody_tree *tr = tb->t;
  struct gs_nbody_job *job = tr->repl.job;
  const char *ok = tb->v == 1 ? "OK" : tb->v ? "WARNING" : "FAILED";
  double n = job->n ? (double)job->n : 1, t = r->slow.median, build = r->extra[0], walk = r->extra[1];
  printf("%-8s %9s %9s %9s %10s %10s %9s %10s  %s\n", "solver", "build_ms", "walk_ms", "ms", "bb/body", "bc/body",
         "GFLOP/s", "p99_err", "check");
  printf("%-8s %9.3f %9.3f %9.3f %10.1f %10.1f %9.2f %10.2e  %s\n", k->name, build * 1e3, walk * 1e3, t * 1e3,
         tb->inter[0] / n, tb->inter[1] / n, tr->flops / t / 1e9, tb->e.p99, ok);
  struct gs_row row = gs_bench_row(b, k, r, "interactions", tr->inter / t, "1/s", -1);
  char extra[256];
  snprintf(extra, sizeof extra,
           "phase=forces;solver=tree;layout=replicated;theta=%g;opening=%s;build_s=%.4g;walk_s=%.4g;p99_err=%.3g;check=%s",
           job->o->theta, job->o->opening ? "relative" : "geometric", build, walk, tb->e.p99, ok);
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(b->rep, &row);
}

static const struct gs_bench_ops gs_nbody_tree_report_ops = {
    .prepare = gs_nbody_tree_report_prepare,
    .run_timed = gs_nbody_tree_report_run,
    .verify = gs_nbody_tree_report_bench_verify,
    .row = gs_nbody_tree_report_row,
};

/* The harness's kernel list: the tree, its result rows' kernel. */
static const struct gs_kernel gs_nbody_tree_report_kernel[] = {{"tree", "Barnes-Hut", 0, 0}};

void gs_nbody_tree_report_table(struct gs_nbody_tree *t, double tol) {
  struct gs_nbody_job *job = t->repl.job;
  int iters = job->o->iters;
  struct gs_nbody_tree_bench tb = {.t = t, .tol = tol};
  tb.build = malloc(sizeof *tb.build * (size_t)iters), tb.walk = malloc(sizeof *tb.walk * (size_t)iters);
  if (!tb.build || !tb.walk) GS_DIE(&job->run->where, "malloc", "out of memory");
  struct gs_bench b = {.run = job->run, .ops = &gs_nbody_tree_report_ops, .w = &tb, .workload = "nbody",
                       .rep = &job->rep, .kernels = gs_nbody_tree_report_kernel, .count = 1, .mask = 1,
                       .q = job->qc, .warmup = 0, .iters = iters, .problem_size = job->n};
  gs_bench_table(&b);
  if (b.failed) job->failed = 1;
  free(tb.build), free(tb.walk);
}

void gs_nbody_tree_report_final(struct gs_nbody_tree *t, long step, double tol) {
  struct gs_nbody_job *job = t->repl.job;
  char when[48];
  snprintf(when, sizeof when, "end, step %ld", step);
  struct gs_tree_sample sm = gs_nbody_tree_sample(job);
  struct gs_tree_err e = gs_nbody_tree_check(job, &sm, job->d_acc);
  free(sm.idx), free(sm.ref);
  gs_nbody_tree_verdict(job, when, &e, tol);
}

void gs_nbody_tree_report_steps(struct gs_nbody_tree *tr, const struct gs_step_times *times, int steps) {
  struct gs_nbody_job *job = tr->repl.job;
  const struct gs_run *run = job->run;
  /* total, build, walk, exchange, rest: the helper takes parts 0 and 1 in that order */
  _Static_assert(GS_NBODY_TREE_BUILD == 0 && GS_NBODY_TREE_WALK == 1, "the tree's parts: build, then walk");
  struct gs_stats st[5];
  gs_nbody_ladder_step_stats(run, times, steps, 2, 1, st);
  if (run->rank != 0) return;
  double rate = tr->inter / st[0].median;
  printf("# per step (median of %d, slowest rank): total %.3f ms, build %.3f ms, walk %.3f ms, exchange %.3f ms, "
         "integration and the rest %.3f ms; %.4e interactions/s, %.1f GFLOP/s\n",
         steps, st[0].median * 1e3, st[1].median * 1e3, st[2].median * 1e3, st[3].median * 1e3, st[4].median * 1e3,
         rate, tr->flops / st[0].median / 1e9);
  char extra[256];
  snprintf(extra, sizeof extra,
           "phase=step;solver=tree;layout=replicated;build_s=%.6g;walk_s=%.6g;exchange_s=%.6g;integrate_s=%.6g",
           st[1].median, st[2].median, st[3].median, st[4].median);
  gs_nbody_ladder_step_row(job, "tree", &st[0], steps, rate, extra);
}

int gs_nbody_tree_report_compare(struct gs_nbody_job *job, const char *when, int n, const double *got,
                                 const double *ref, const double *diag, double tol, double *p99) {
  struct gs_tree_err e = gs_nbody_tree_stats(job, n, got, ref);
  *p99 = e.p99;
  int v = gs_nbody_tree_verdict(job, when, &e, tol);
  if (diag) {
    double w[2] = {0, 0};
    for (int s = 0; s < n; s++)
      w[0] += diag[2 * s] * diag[2 * s + 1], w[1] += diag[2 * s] * ref[5 * s + 3];
    gs_nbody_tree_phi_print(job, w);
  }
  return v;
}
