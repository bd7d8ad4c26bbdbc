/* gs_matmul_table.c: the timed, checked table of `gpusim matmul` (see the header). */
#include "gs_matmul_table.h"

#include <stdio.h>
#include <stdlib.h>

#include "gs_matmul_check.h"
#include "gs_matmul_grid.h"
#include "gs_matmul_summa.h"
#include "gs_stats.h"

double gs_matmul_table_peak(const struct gs_device_info *dev, int type, const char **source) {
  double peak = type == GS_MATMUL_FLOAT ? dev->flops_fp32 : type == GS_MATMUL_DOUBLE ? dev->flops_fp64 : dev->flops_tf32;
  *source = peak > 0 && dev->flops_source[0] ? dev->flops_source : "unknown for this device";
  return peak > 0 ? peak : 0;
}

double gs_matmul_table_traffic(struct gs_matmul_job *job) {
  if (job->run->size == 1) return 0;
  int k = job->o->iters;
  double *t = malloc(sizeof *t * (size_t)k), unused;
  if (!t) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int i = -job->o->warmup; i < k; i++) {
    GS_CHECK_MPI(&job->run->where, MPI_Barrier(MPI_COMM_WORLD));
    double s = gs_matmul_summa_run(job, NULL, &unused);
    if (i >= 0) t[i] = s;
  }
  double med = gs_stats_of(t, k).median;
  free(t);
  return med;
}

/* The table's state over the harness: the job and this kernel's time in block products per run. */
struct gs_matmul_table_state {
  struct gs_matmul_job *job;
  double *comp;
};

static void gs_matmul_table_prepare(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_matmul_table_state *tb = b->w;
  (void)k;
  tb->comp = malloc(sizeof *tb->comp * (size_t)b->iters);
  if (!tb->comp) GS_DIE(&b->run->where, "malloc", "out of memory");
}

static void gs_matmul_table_release(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_matmul_table_state *tb = b->w;
  (void)k;
  free(tb->comp);
}

/* One product (SUMMA on several ranks), every rank started together by the harness. */
static double gs_matmul_table_once(struct gs_bench *b, const struct gs_kernel *k, int i) {
  struct gs_matmul_table_state *tb = b->w;
  double comp, s = gs_matmul_summa_run(tb->job, k, &comp);
  if (i >= 0) tb->comp[i] = comp;
  return s;
}

/* The hidden fraction of this rank's panel traffic: what the product's time lacks of compute +
 * traffic, over the traffic (1 where there is none), clamped to [0, 1]. */
static double gs_matmul_table_hidden(const struct gs_matmul_job *job, double compute, double t) {
  if (job->t_comm <= 0) return 1;
  double h = (compute + job->t_comm - t) / job->t_comm;
  return h < 0 ? 0 : h > 1 ? 1 : h;
}

/* C comes down and is checked; r->extra: the worst rank's busy share (least time in products),
 * its least hidden traffic share and (rank 0) the sum of C over the job, a fingerprint. */
static int gs_matmul_table_verify(struct gs_bench *b, const struct gs_kernel *k, struct gs_bench_result *r) {
  struct gs_matmul_table_state *tb = b->w;
  struct gs_matmul_job *job = tb->job;
  const struct gs_run *run = job->run;
  job->be->copy_d2h(job->ctx, job->hC, job->dC, job->mloc * job->nloc * job->esz, job->qc);
  job->be->queue_sync(job->ctx, job->qc);
  double compute = gs_stats_of(tb->comp, b->iters).median;
  /* In a fixed order, so equal C blocks give equal sums (--overlap on and off, say). */
  double csum = 0;
  for (uint64_t i = 0; i < job->mloc * job->nloc; i++)
    csum += job->t == GS_DTYPE_DOUBLE ? ((const double *)job->hC)[i] : ((const float *)job->hC)[i];
  int ok = gs_matmul_check_verify(job, k->name);
  double mine[2] = {compute / r->mine.median, gs_matmul_table_hidden(job, compute, r->mine.median)}, worst[2];
  GS_CHECK_MPI(&run->where, MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD));
  r->extra[0] = worst[0], r->extra[1] = worst[1];
  GS_CHECK_MPI(&run->where, MPI_Reduce(&csum, &r->extra[2], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
  return ok;
}

static void gs_matmul_table_head(struct gs_bench *b) {
  if (b->run->size == 1)
    printf("%-12s %-34s %10s %9s %6s %7s %7s  %s\n", "kernel", "what", "ms", "TFLOP/s", "%peak", "step", "cum", "check");
  else
    printf("%-12s %-34s %10s %9s %9s %6s %6s %6s  %s\n", "kernel", "what", "ms", "TF/s/rank", "agg_TF/s", "%peak", "busy",
           "hidden", "check");
}

/* Rank 0: kernel k's result rows, the job's and (several ranks) each rank's. */
static void gs_matmul_table_rows(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r) {
  const struct gs_matmul_job *job = ((struct gs_matmul_table_state *)b->w)->job;
  const struct gs_run *run = job->run;
  const struct gs_matmul_opts *o = job->o;
  double agg = 2.0 * o->m * o->n * o->k / r->slow.median;
  struct gs_row row =
      gs_bench_row(b, k, r, "flops", agg / 1e12, "TFLOP/s", job->peak > 0 ? agg / (job->peak * run->size) : -1);
  snprintf(row.params, sizeof row.params, "type=%s;ic=%s;m=%llu;n=%llu;k=%llu;grid=%dx%d;panel=%llu;overlap=%s;busy=%.3f;"
           "hidden=%.3f;check=%s", gs_matmul_options_type_name(o->type), gs_matmul_options_ic_name(o->ic),
           (unsigned long long)o->m, (unsigned long long)o->n, (unsigned long long)o->k, job->rows, job->cols,
           (unsigned long long)job->panel, o->overlap ? "on" : "off", r->extra[0], r->extra[1], r->ok ? "OK" : "FAILED");
  gs_report_add(b->rep, &row);
  for (int q = 0; run->size > 1 && q < run->size; q++) {
    uint64_t first, mq, nq;
    gs_matmul_grid_range(o->m, job->rows, q / job->cols, &first, &mq);
    gs_matmul_grid_range(o->n, job->cols, q % job->cols, &first, &nq);
    struct gs_row rr = gs_bench_rank_row(&row, r, q);
    rr.value = 2.0 * mq * nq * o->k / r->per_rank[q].median / 1e12;
    rr.efficiency = job->peak > 0 ? rr.value * 1e12 / job->peak : -1;
    gs_report_add(b->rep, &rr);
  }
}

/* Rank 0: kernel k's table line (and each rank's time with several ranks), then its rows. */
static void gs_matmul_table_line(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r) {
  const struct gs_matmul_job *job = ((struct gs_matmul_table_state *)b->w)->job;
  const struct gs_run *run = job->run;
  double t = r->slow.median, agg = 2.0 * job->o->m * job->o->n * job->o->k / t, per = agg / run->size;
  char peak[16] = "-";
  if (job->peak > 0) snprintf(peak, sizeof peak, "%.1f", 100 * per / job->peak);
  if (run->size == 1) {
    printf("%-12s %-34s %10.3f %9.3f %6s %7s %7s  %s\n", k->name, k->title, t * 1e3, agg / 1e12, peak, r->step, r->cum,
           r->ok ? "OK" : "FAILED");
    printf("#   sum of C: %.17g\n", r->extra[2]);
  } else {
    printf("%-12s %-34s %10.3f %9.3f %9.3f %6s %5.1f%% %5.1f%%  %s\n", k->name, k->title, t * 1e3, per / 1e12,
           agg / 1e12, peak, 100 * r->extra[0], 100 * r->extra[1], r->ok ? "OK" : "FAILED");
    printf("#   sum of C: %.17g; per-rank median ms:", r->extra[2]);
    for (int q = 0; q < run->size; q++) printf(" %.3f", r->per_rank[q].median * 1e3);
    printf("\n");
  }
  gs_matmul_table_rows(b, k, r);
}

static const struct gs_bench_ops gs_matmul_table_ops = {
    .head = gs_matmul_table_head,
    .prepare = gs_matmul_table_prepare,
    .release = gs_matmul_table_release,
    .run_timed = gs_matmul_table_once,
    .verify = gs_matmul_table_verify,
    .row = gs_matmul_table_line,
};

void gs_matmul_table_run(struct gs_matmul_job *job, struct gs_bench *b) {
  struct gs_matmul_table_state tb = {.job = job};
  b->ops = &gs_matmul_table_ops;
  b->w = &tb;
  gs_bench_table(b);
  if (b->failed) job->failed = 1;
}
