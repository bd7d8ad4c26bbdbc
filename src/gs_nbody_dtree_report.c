/* gs_nbody_dtree_report.c: what --tree-layout domains says: its header lines, its check against
 * the double direct sum (the replicated tree's comparison and verdict, gs_nbody_tree_report.c,
 * the sample gathered from the ranks that hold it, the direct sum's parts from every rank), its
 * timing row (over gs_bench.h, as the replicated tree's) and the per-step line with what the
 * distribution costs: domain update, LET exchange (bytes sent by the busiest rank) and load
 * imbalance (slowest walk / mean walk). */
#include "gs_nbody_dtree_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
#include "gs_nbody_dtree_let.h"
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
         "by one rank, the ranks' runs of cells in Peano-Hilbert order cut by the last walk's time; each rank builds "
         "its cells' subtrees and receives the locally essential tree of the others (all-to-all); results bitwise "
         "independent of the rank count; --overlap and --exchange do not apply\n",
         (unsigned long long)d->C);
  printf("# tree method: %s\n", job->be->dtree->method);
  gs_nbody_tree_report_check_line(job, tol);
}

/* The sample's number k of body id (the replicated check's ids, gs_nbody_ref.c: k N / S for k < S,
 * rising with k, S = min(N, GS_NBODY_REF_SAMPLE)), or -1 for a body outside the sample. */
static int gs_nbody_dtree_report_sample_of(const struct gs_nbody_job *job, uint64_t id, uint64_t S) {
  uint64_t k = (id * S + job->n - 1) / job->n; /* the first k with k N / S >= id */
  return k < S && k * job->n / S == id ? (int)k : -1;
}

/* Every sample body, from the rank that holds it to every rank: all[9 k ..] = its x, y, z, m
 * and h's src's four components (held order, the job's precision) in double after a slot for k.
 * O(S) per rank. Collective: every rank enters, one without sample bodies too. */
static void gs_nbody_dtree_report_samples(struct gs_nbody_dtree *d, const struct gs_nbody_dtree_mirror *h, uint64_t S,
                                          double *all) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size, m = 0;
  for (uint64_t i = 0; i < d->b.n; i++)
    m += gs_nbody_dtree_report_sample_of(job, h->id[i], S) >= 0;
  double *rec = malloc(sizeof *rec * 9 * (size_t)(m ? m : 1)), *got = malloc(sizeof *got * 9 * (S ? S : 1));
  int *cnt = malloc(sizeof *cnt * (size_t)P), *dis = calloc((size_t)P, sizeof *dis), mine = 9 * m;
  if (!rec || !got || !cnt || !dis) GS_DIE(&job->run->where, "malloc", "out of memory for the check");
  for (uint64_t i = 0, j = 0; i < d->b.n; i++) {
    int k = gs_nbody_dtree_report_sample_of(job, h->id[i], S);
    if (k < 0) continue;
    rec[9 * j] = k;
    gs_nbody_ref_get(job, h->pos, i, rec + 9 * j + 1), gs_nbody_ref_get(job, h->src, i, rec + 9 * j + 5);
    j++;
  }
  GS_CHECK_MPI(&job->run->where, MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD));
  for (int r = 1; r < P; r++)
    dis[r] = dis[r - 1] + cnt[r - 1];
  if ((uint64_t)dis[P - 1] + (uint64_t)cnt[P - 1] != 9 * S) /* each sample body is held once: a bug if not */
    GS_DIE(&job->run->where, "gs_nbody_dtree_report_samples", "the ranks hold another count of sample bodies");
  GS_CHECK_MPI(&job->run->where, MPI_Allgatherv(rec, mine, MPI_DOUBLE, got, cnt, dis, MPI_DOUBLE, MPI_COMM_WORLD));
  for (uint64_t j = 0; j < S; j++)
    memcpy(all + 9 * (uint64_t)got[9 * j], got + 9 * j, 9 * sizeof *got);
  free(rec), free(got), free(cnt), free(dis);
}

/* The forces src (held acc or the scratch forces) checked as the replicated tree checks its
 * own, in O(N / P) + O(S) memory per rank: the sample bodies (positions and forces) gathered
 * from the ranks that hold them; each rank sums its held bodies' pulls on every sample body in
 * double with the reference's kernel (gs_nbody_ref_partial), the parts reduced to rank 0; then
 * the replicated tree's comparison and verdict (gs_nbody_tree_report_compare). The parts add
 * in another order than one sum over all N, so the reference differs from the replicated
 * check's by round-off (about 1e-16 relative in double): far below any tolerance (1e-3 and
 * more). phi: the potential line too, from the diagnostics' evaluation (which may move bodies:
 * after src is read). Collective. */
static int gs_nbody_dtree_report_check(struct gs_nbody_dtree *d, const char *when, const void *src, double tol,
                                       double *p99, int phi) {
  struct gs_nbody_job *job = d->job;
  uint64_t S = job->n < GS_NBODY_REF_SAMPLE ? job->n : GS_NBODY_REF_SAMPLE, s1 = S ? S : 1;
  int root = job->run->rank == 0, n = (int)S;
  double *all = malloc(sizeof *all * 9 * s1), *tgt = malloc(sizeof *tgt * 4 * s1), *got = malloc(sizeof *got * 4 * s1),
         *part = malloc(sizeof *part * 4 * s1), *sum = calloc(4 * s1, sizeof *sum), *ref = calloc(5 * s1, sizeof *ref),
         *diag = phi ? malloc(sizeof *diag * 2 * s1) : NULL;
  if (!all || !tgt || !got || !part || !sum || !ref || (phi && !diag))
    GS_DIE(&job->run->where, "malloc", "out of memory for the check");
  struct gs_nbody_dtree_mirror h;
  gs_nbody_dtree_held_mirror(d, src, &h); /* the held bodies where the host reads them */
  gs_nbody_dtree_report_samples(d, &h, S, all);
  for (uint64_t k = 0; k < S; k++)
    memcpy(tgt + 4 * k, all + 9 * k + 1, 4 * sizeof *tgt), memcpy(got + 4 * k, all + 9 * k + 5, 4 * sizeof *got);
  gs_nbody_ref_partial(job, h.pos, d->b.n, tgt, n, part);
  gs_nbody_dtree_held_unmirror(&h);
  GS_CHECK_MPI(&job->run->where, MPI_Reduce(part, sum, 4 * n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
  for (uint64_t k = 0; root && k < S; k++) {
    memcpy(ref + 5 * k, sum + 4 * k, 4 * sizeof *ref); /* ref[5k + 4] stays 0, as gs_nbody_ref's device sum */
    gs_nbody_ref_self(job, tgt[4 * k + 3], ref + 5 * k);
  }
  if (phi) { /* the diagnostics' evaluation (it may move bodies: after src and the positions are read) */
    gs_nbody_dtree_let_eval(d, 1, 0, GS_NBODY_DTREE_SCRATCH | GS_NBODY_DTREE_DIAG, NULL);
    gs_nbody_dtree_held_mirror(d, d->scratch, &h);
    gs_nbody_dtree_report_samples(d, &h, S, all);
    gs_nbody_dtree_held_unmirror(&h);
    for (uint64_t k = 0; k < S; k++)
      diag[2 * k] = all[9 * k + 4], diag[2 * k + 1] = all[9 * k + 8]; /* mass, potential */
  }
  int v = gs_nbody_tree_report_compare(job, when, root ? n : 0, got, ref, diag, tol, p99);
  free(all), free(tgt), free(got), free(part), free(sum), free(ref), free(diag);
  return v;
}

/* The first evaluation's table over the harness (gs_bench.h), as the replicated tree's
 * (gs_nbody_tree_report.c): one row, the tree's. The check comes first (prepare: the first
 * evaluation into the held acc, the a_old of the timed ones, so that the relative test costs what
 * a run's does), then --iters timed evaluations into the scratch forces, each on the workload's
 * clock (run_timed: the build may wait on the host for its own queue) with its four parts kept;
 * no warm-up: the checked evaluation was one. Then the held bodies back bit for bit (release: a
 * restart's acc is the checkpoint's) and the run's first cut by count again. */
struct gs_nbody_dtree_report_bench {
  struct gs_nbody_dtree *d;
  double tol, p99; /* p99: the check's, rank 0's */
  int v;           /* the check's verdict, rank 0's on every rank */
  double *part;    /* this rank's timed evaluations' parts: part[k * iters + i] */
};

static void gs_nbody_dtree_report_bench_prepare(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_nbody_dtree_report_bench *db = b->w;
  struct gs_nbody_dtree *d = db->d;
  (void)k;
  d->job->solver->keep(d);
  gs_nbody_dtree_let_eval(d, 0, 1, 0, NULL);
  db->v = gs_nbody_dtree_report_check(d, "start", d->b.acc, db->tol, &db->p99, 1);
  /* the statistics are rank 0's: its verdict is the one every rank gives the harness */
  GS_CHECK_MPI(&d->job->run->where, MPI_Bcast(&db->v, 1, MPI_INT, 0, MPI_COMM_WORLD));
}

/* One timed evaluation: its parts kept (i >= 0), its wall seconds returned. */
static double gs_nbody_dtree_report_bench_run(struct gs_bench *b, const struct gs_kernel *k, int i) {
  struct gs_nbody_dtree_report_bench *db = b->w;
  double part[4] = {0}, t0 = MPI_Wtime();
  (void)k;
  gs_nbody_dtree_let_eval(db->d, 0, 0, GS_NBODY_DTREE_SCRATCH, part);
  double t = MPI_Wtime() - t0;
  for (int p = 0; i >= 0 && p < 4; p++)
    db->part[(size_t)p * b->iters + i] = part[p];
  return t;
}

/* The parts' medians of the slowest rank (collective) into r->extra; the check's verdict. */
static int gs_nbody_dtree_report_bench_verify(struct gs_bench *b, const struct gs_kernel *k,
                                              struct gs_bench_result *r) {
  struct gs_nbody_dtree_report_bench *db = b->w;
  (void)k;
  for (int p = 0; p < 4; p++)
    r->extra[p] = gs_stats_slowest(&b->run->where, gs_stats_of(db->part + (size_t)p * b->iters, b->iters), NULL).median;
  return db->v != 0;
}

static void gs_nbody_dtree_report_bench_release(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_nbody_dtree_report_bench *db = b->w;
  (void)k;
  db->d->job->solver->undo(db->d);
  db->d->measured = 0;
}

/* Rank 0: the table's head and row (the parts: the slowest rank's medians; ms: the slowest
 * rank's median of the whole evaluation) and its result row. */
static void gs_nbody_dtree_report_bench_row(struct gs_bench *b, const struct gs_kernel *k,
                                            const struct gs_bench_result *r) {
  const struct gs_nbody_dtree_report_bench *db = b->w;
  const struct gs_nbody_dtree *d = db->d;
  struct gs_nbody_job *job = d->job;
  const char *ok = db->v == 1 ? "OK" : db->v ? "WARNING" : "FAILED";
  const double *part = r->extra;
  double n = job->n ? (double)job->n : 1, t = r->slow.median;
  printf("%-8s %9s %9s %9s %9s %9s %10s %9s %10s  %s\n", "solver", "domain_ms", "build_ms", "let_ms", "walk_ms", "ms",
         "inter/body", "GFLOP/s", "p99_err", "check");
  printf("%-8s %9.3f %9.3f %9.3f %9.3f %9.3f %10.1f %9.2f %10.2e  %s\n", k->name, part[GS_NBODY_DTREE_DOMAIN] * 1e3,
         part[GS_NBODY_DTREE_BUILD] * 1e3, part[GS_NBODY_DTREE_LET] * 1e3, part[GS_NBODY_DTREE_WALK] * 1e3, t * 1e3,
         d->inter / n, d->flops / t / 1e9, db->p99, ok);
  struct gs_row row = gs_bench_row(b, k, r, "interactions", d->inter / t, "1/s", -1);
  char extra[256];
  snprintf(extra, sizeof extra,
           "phase=forces;solver=tree;layout=domains;theta=%g;opening=%s;domain_s=%.4g;build_s=%.4g;let_s=%.4g;"
           "walk_s=%.4g;p99_err=%.3g;check=%s",
           job->o->theta, job->o->opening ? "relative" : "geometric", part[GS_NBODY_DTREE_DOMAIN],
           part[GS_NBODY_DTREE_BUILD], part[GS_NBODY_DTREE_LET], part[GS_NBODY_DTREE_WALK], db->p99, ok);
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(b->rep, &row);
}

static const struct gs_bench_ops gs_nbody_dtree_report_bench_ops = {
    .prepare = gs_nbody_dtree_report_bench_prepare,
    .release = gs_nbody_dtree_report_bench_release,
    .run_timed = gs_nbody_dtree_report_bench_run,
    .verify = gs_nbody_dtree_report_bench_verify,
    .row = gs_nbody_dtree_report_bench_row,
};

/* The harness's kernel list: the tree, its result rows' kernel. */
static const struct gs_kernel gs_nbody_dtree_report_bench_kernel[] = {{"tree", "Barnes-Hut, domains", 0, 0}};

void gs_nbody_dtree_report_first(struct gs_nbody_dtree *d, double tol) {
  struct gs_nbody_job *job = d->job;
  int iters = job->o->iters;
  struct gs_nbody_dtree_report_bench db = {.d = d, .tol = tol};
  if (!(db.part = malloc(sizeof *db.part * 4 * (size_t)(iters ? iters : 1))))
    GS_DIE(&job->run->where, "malloc", "out of memory");
  struct gs_bench b = {.run = job->run,
                       .ops = &gs_nbody_dtree_report_bench_ops,
                       .w = &db,
                       .workload = "nbody",
                       .rep = &job->rep,
                       .kernels = gs_nbody_dtree_report_bench_kernel,
                       .count = 1,
                       .mask = 1,
                       .q = job->qc,
                       .warmup = 0,
                       .iters = iters,
                       .problem_size = job->n};
  gs_bench_table(&b);
  if (b.failed) job->failed = 1;
  free(db.part);
}

void gs_nbody_dtree_report_final(struct gs_nbody_dtree *d, long step, double tol) {
  char when[48];
  double p99;
  snprintf(when, sizeof when, "end, step %ld", step);
  gs_nbody_dtree_report_check(d, when, d->b.acc, tol, &p99, 0);
}

/* Per step over the ranks: the busiest rank's LET bytes and the slowest walk over the mean walk;
 * their medians over the steps (rank 0). */
static void gs_nbody_dtree_spread(struct gs_nbody_dtree *d, const struct gs_step_times *times, int steps, double *bytes,
                                  double *imbalance) {
  struct gs_nbody_job *job = d->job;
  double *v = calloc(3 * (size_t)steps, sizeof *v), *mx = calloc(3 * (size_t)steps, sizeof *mx);
  if (!v || !mx) GS_DIE(&job->run->where, "calloc", "out of memory");
  for (int s = 0; s < steps; s++)
    v[s] = s < d->let_n ? d->let_bytes[s] : 0, v[steps + s] = times[s].part[GS_NBODY_DTREE_WALK];
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(v, mx, 2 * steps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(v + steps, v + 2 * steps, steps, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  for (int s = 0; s < steps; s++) {
    double mean = v[2 * steps + s] / job->run->size;
    v[s] = mx[s], v[steps + s] = mean > 0 ? mx[steps + s] / mean : 1;
  }
  *bytes = gs_stats_of(v, steps).median, *imbalance = gs_stats_of(v + steps, steps).median;
  free(v), free(mx);
}

/* The most memory a rank held (from its own allocations: the held bodies, their copies, the tree
 * and the exchange buffers; the largest over the ranks), the ranks' together per body of the run,
 * and how far the device's free memory fell since the solver opened (where the backend can say:
 * every rank on that device; the largest) into v[3]. Collective. */
static void gs_nbody_dtree_report_memory(struct gs_nbody_dtree *d, double v[3]) {
  double mine[3] = {d->mem_own, d->dev_free0 - d->dev_free_min}, all = 0;
  GS_CHECK_MPI(&d->job->run->where, MPI_Allreduce(mine, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  GS_CHECK_MPI(&d->job->run->where, MPI_Allreduce(&d->mem_own, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  v[2] = v[1], v[1] = all / (d->job->n ? (double)d->job->n : 1);
}

void gs_nbody_dtree_report_steps(struct gs_nbody_dtree *d, const struct gs_step_times *times, int steps) {
  struct gs_nbody_job *job = d->job;
  const struct gs_run *run = job->run;
  double bytes, imb;
  struct gs_stats st[6]; /* total, the four parts, the rest */
  gs_nbody_ladder_step_stats(run, times, steps, 4, 0, st);
  gs_nbody_dtree_spread(d, times, steps, &bytes, &imb);
  double mem[3];
  gs_nbody_dtree_report_memory(d, mem);
  if (run->rank != 0) return;
  double rate = d->inter / st[0].median;
  printf("# per step (median of %d, slowest rank): total %.3f ms, domain update %.3f ms, build %.3f ms, LET exchange "
         "%.3f ms (%.4g bytes sent by the busiest rank), walk %.3f ms, integration and the rest %.3f ms; load "
         "imbalance %.3f (slowest walk / mean walk); %llu bodies migrated over the run; %.4e interactions/s, %.1f "
         "GFLOP/s\n",
         steps, st[0].median * 1e3, st[3].median * 1e3, st[1].median * 1e3, st[4].median * 1e3, bytes,
         st[2].median * 1e3, st[5].median * 1e3, imb, (unsigned long long)d->migrated, rate,
         d->flops / st[0].median / 1e9);
  printf("# memory per rank (the largest): %.4g GB of the rank's own allocations (held bodies, their copies, the tree, "
         "the exchanges), %.0f bytes a body over the ranks",
         mem[0] / 1e9, mem[1]);
  if (job->be->mem_info)
    printf("; the device's memory in use grew by %.4g GB during the run (its free memory, every rank on it)",
           mem[2] / 1e9);
  printf("\n");
  char extra[320];
  snprintf(extra, sizeof extra,
           "phase=step;solver=tree;layout=domains;domain_s=%.6g;build_s=%.6g;let_s=%.6g;let_bytes=%.6g;walk_s=%.6g;"
           "imbalance=%.4g;migrated=%llu;mem_bytes=%.6g;body_bytes=%.4g",
           st[3].median, st[1].median, st[4].median, bytes, st[2].median, imb, (unsigned long long)d->migrated,
           mem[0], mem[1]);
  gs_nbody_ladder_step_row(job, "tree", &st[0], steps, rate, extra);
}
