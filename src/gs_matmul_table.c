/* gs_matmul_table.c: the timed, checked table of `gpusim matmul` (see the header). */
#include "gs_matmul_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_matmul_check.h"
#include "gs_matmul_grid.h"
#include "gs_matmul_summa.h"
#include "gs_stats.h"

/* Dense peaks per GPU, TFLOP/s: FP32 (SIMT), FP64 (tensor cores, what DGEMM uses), TF32 (tensor
 * cores), from NVIDIA's H100 and H200 datasheets. The first name that `device` contains wins. */
static const struct {
  const char *name;
  double fp32, fp64, tf32;
} gs_matmul_table_peaks[] = {
    {"H200", 67.0, 67.0, 494.7},
    {"H100 PCIe", 51.2, 51.2, 378.0},
    {"H100", 67.0, 67.0, 494.7},
};

double gs_matmul_table_peak(const char *device, int type, const char **source) {
  *source = "unknown for this device";
  for (size_t i = 0; i < sizeof gs_matmul_table_peaks / sizeof gs_matmul_table_peaks[0]; i++) {
    if (!strstr(device, gs_matmul_table_peaks[i].name)) continue;
    *source = "NVIDIA H100/H200 datasheet, dense";
    double t = type == GS_MATMUL_FLOAT ? gs_matmul_table_peaks[i].fp32
               : type == GS_MATMUL_DOUBLE ? gs_matmul_table_peaks[i].fp64 : gs_matmul_table_peaks[i].tf32;
    return t * 1e12;
  }
  return 0;
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

/* What one kernel gave on this rank, and over the job. */
struct gs_matmul_table_res {
  struct gs_stats mine, slow; /* this rank's product times; the slowest rank's (rank 0) */
  double compute;             /* this rank's median seconds in block products */
  double busy, hidden;        /* slowest rank's compute share; the least hidden fraction over ranks */
  double csum;                /* this rank's sum of its C block, then (rank 0) the job's: a fingerprint */
  int ok;
};

/* Time kernel k: warm-up, then --iters products, each started together (barrier); C comes down. */
static void gs_matmul_table_time(struct gs_matmul_job *job, const struct gs_kernel *k, struct gs_matmul_table_res *r) {
  const struct gs_backend *be = job->be;
  int n = job->o->iters;
  double *t = malloc(sizeof *t * 2 * (size_t)n), comp;
  if (!t) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int i = -job->o->warmup; i < n; i++) {
    GS_CHECK_MPI(&job->run->where, MPI_Barrier(MPI_COMM_WORLD));
    double s = gs_matmul_summa_run(job, k, &comp);
    if (i >= 0) t[i] = s, t[n + i] = comp;
  }
  be->copy_d2h(job->ctx, job->hC, job->dC, job->mloc * job->nloc * job->esz, job->qc);
  be->queue_sync(job->ctx, job->qc);
  r->mine = gs_stats_of(t, n);
  r->compute = gs_stats_of(t + n, n).median;
  free(t);
  /* In a fixed order, so equal C blocks give equal sums (--overlap on and off, say). */
  r->csum = 0;
  for (uint64_t i = 0; i < job->mloc * job->nloc; i++)
    r->csum += job->t == GS_DTYPE_DOUBLE ? ((const double *)job->hC)[i] : ((const float *)job->hC)[i];
}

/* The hidden fraction of this rank's panel traffic: what the product's time lacks of compute +
 * traffic, over the traffic (1 where there is none), clamped to [0, 1]. */
static double gs_matmul_table_hidden(const struct gs_matmul_job *job, const struct gs_matmul_table_res *r) {
  if (job->t_comm <= 0) return 1;
  double h = (r->compute + job->t_comm - r->mine.median) / job->t_comm;
  return h < 0 ? 0 : h > 1 ? 1 : h;
}

/* Progress through the table: the previous and first kernels' times, for the speedups. */
struct gs_matmul_table_state {
  double prev, first;
  struct gs_stats *per_rank; /* rank 0: every rank's stats of the current kernel */
};

static void gs_matmul_table_head(const struct gs_matmul_job *job) {
  if (job->run->size == 1)
    printf("%-12s %-34s %10s %9s %6s %7s %7s  %s\n", "kernel", "what", "ms", "TFLOP/s", "%peak", "step", "cum", "check");
  else
    printf("%-12s %-34s %10s %9s %9s %6s %6s %6s  %s\n", "kernel", "what", "ms", "TF/s/rank", "agg_TF/s", "%peak", "busy",
           "hidden", "check");
}

/* Rank 0: kernel k's result rows, the job's and (several ranks) each rank's. */
static void gs_matmul_table_rows(struct gs_matmul_job *job, const struct gs_matmul_table_state *tb,
                                 const struct gs_kernel *k, const struct gs_matmul_table_res *r) {
  const struct gs_run *run = job->run;
  const struct gs_matmul_opts *o = job->o;
  double agg = 2.0 * o->m * o->n * o->k / r->slow.median;
  struct gs_row row = {.workload = "matmul", .rank = -1, .problem_size = o->m * o->n, .iterations = o->iters,
                       .t_min = r->slow.min, .t_median = r->slow.median, .t_max = r->slow.max, .metric = "flops",
                       .value = agg / 1e12, .unit = "TFLOP/s", .efficiency = job->peak > 0 ? agg / (job->peak * run->size) : -1};
  snprintf(row.kernel, sizeof row.kernel, "%s", k->name);
  snprintf(row.params, sizeof row.params, "type=%s;ic=%s;m=%llu;n=%llu;k=%llu;grid=%dx%d;panel=%llu;overlap=%s;busy=%.3f;"
           "hidden=%.3f;check=%s", gs_matmul_options_type_name(o->type), gs_matmul_options_ic_name(o->ic),
           (unsigned long long)o->m, (unsigned long long)o->n, (unsigned long long)o->k, job->rows, job->cols,
           (unsigned long long)job->panel, o->overlap ? "on" : "off", r->busy, r->hidden, r->ok ? "OK" : "FAILED");
  gs_report_add(&job->rep, &row);
  for (int q = 0; run->size > 1 && q < run->size; q++) {
    uint64_t first, mq, nq;
    gs_matmul_grid_range(o->m, job->rows, q / job->cols, &first, &mq);
    gs_matmul_grid_range(o->n, job->cols, q % job->cols, &first, &nq);
    struct gs_row rr = row;
    rr.rank = q;
    rr.t_min = tb->per_rank[q].min, rr.t_median = tb->per_rank[q].median, rr.t_max = tb->per_rank[q].max;
    rr.value = 2.0 * mq * nq * o->k / tb->per_rank[q].median / 1e12;
    rr.efficiency = job->peak > 0 ? rr.value * 1e12 / job->peak : -1;
    gs_report_add(&job->rep, &rr);
  }
}

/* Rank 0: kernel k's table line (and each rank's time with several ranks). */
static void gs_matmul_table_line(struct gs_matmul_job *job, struct gs_matmul_table_state *tb, const struct gs_kernel *k,
                                 const struct gs_matmul_table_res *r) {
  const struct gs_run *run = job->run;
  double t = r->slow.median, agg = 2.0 * job->o->m * job->o->n * job->o->k / t, per = agg / run->size;
  char peak[16] = "-", step[16] = "", cum[16] = "";
  if (job->peak > 0) snprintf(peak, sizeof peak, "%.1f", 100 * per / job->peak);
  if (tb->first == 0) tb->first = t;
  if (tb->prev > 0) snprintf(step, sizeof step, "%.2fx", tb->prev / t);
  if (tb->prev > 0) snprintf(cum, sizeof cum, "%.2fx", tb->first / t);
  tb->prev = t;
  if (run->size == 1) {
    printf("%-12s %-34s %10.3f %9.3f %6s %7s %7s  %s\n", k->name, k->title, t * 1e3, agg / 1e12, peak, step, cum,
           r->ok ? "OK" : "FAILED");
    printf("#   sum of C: %.17g\n", r->csum);
    return;
  }
  printf("%-12s %-34s %10.3f %9.3f %9.3f %6s %5.1f%% %5.1f%%  %s\n", k->name, k->title, t * 1e3, per / 1e12, agg / 1e12,
         peak, 100 * r->busy, 100 * r->hidden, r->ok ? "OK" : "FAILED");
  printf("#   sum of C: %.17g; per-rank median ms:", r->csum);
  for (int q = 0; q < run->size; q++) printf(" %.3f", tb->per_rank[q].median * 1e3);
  printf("\n");
}

void gs_matmul_table_run(struct gs_matmul_job *job) {
  struct gs_run *run = job->run;
  struct gs_matmul_table_state tb = {0};
  tb.per_rank = run->rank == 0 ? calloc((size_t)run->size, sizeof *tb.per_rank) : NULL;
  if (run->rank == 0 && !tb.per_rank) GS_DIE(&run->where, "calloc", "out of memory");
  if (run->rank == 0) gs_matmul_table_head(job);
  for (int i = 0; i < job->be->matmul->count; i++) {
    if (!(job->mask & (1u << i))) continue;
    const struct gs_kernel *k = &job->kernels[i];
    struct gs_matmul_table_res r;
    gs_matmul_table_time(job, k, &r);
    r.ok = gs_matmul_check_verify(job, k->name);
    r.slow = gs_stats_slowest(&run->where, r.mine, tb.per_rank);
    /* The worst rank's shares: least time in products, least traffic hidden. */
    double mine[2] = {r.compute / r.mine.median, gs_matmul_table_hidden(job, &r)}, worst[2];
    GS_CHECK_MPI(&run->where, MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD));
    r.busy = worst[0], r.hidden = worst[1];
    double csum = r.csum;
    GS_CHECK_MPI(&run->where, MPI_Reduce(&csum, &r.csum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    if (run->rank == 0) {
      gs_matmul_table_line(job, &tb, k, &r);
      gs_matmul_table_rows(job, &tb, k, &r);
    }
  }
  fflush(stdout);
  free(tb.per_rank);
}
