/* gs_reduce_device.c: `gpusim reduce` with the input on the device. Each rank reduces its slice
 * with every selected kernel (timed with events, median of --iters after --warmup), checks its
 * result against the CPU reference, and MPI_Allreduce combines the partial results; rank 0
 * prints the seed's table (ms, GB/s, % of peak, step and cumulative speedups). */
#include "gs_reduce_device.h"

#include <stdio.h>
#include <stdlib.h>

#include "gs_bench.h"
#include "gs_reduce_check.h"
#include "gs_reduce_options.h"

/* Device-copy ceiling: a large device-to-device copy, bytes read plus written per second. */
static void gs_reduce_device_ceiling(struct gs_reduce_job *job) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  /* A fixed size, whatever the input: 2 x 512 MiB on a GPU (far beyond its L2), 2 x 64 MiB
   * where device memory is host memory, so the ceiling is the same number in every run. */
  size_t cb = be->caps & GS_CAP_HOST_MEMORY ? (size_t)64 << 20 : (size_t)512 << 20;
  void *a = be->alloc_device(c, cb), *b = be->alloc_device(c, cb);
  be->zero_device(c, a, cb, job->q);
  double t[10];
  for (int i = -2; i < 10; i++) {
    be->event_record(c, job->ev[0], job->q);
    be->copy_d2d(c, b, a, cb, job->q);
    be->event_record(c, job->ev[1], job->q);
    be->event_sync(c, job->ev[1]);
    if (i >= 0) t[i] = be->event_seconds(c, job->ev[0], job->ev[1]);
  }
  job->copy_bw = 2.0 * cb / gs_stats_of(t, 10).median;
  be->free_device(c, a);
  be->free_device(c, b);
}

/* The table's state over the harness: the job, the input, this kernel's workspace and result. */
struct gs_reduce_device_table {
  struct gs_reduce_job *job;
  const void *d_in;
  void *ws;
  size_t wsb;
  union gs_acc *d_out;
  double bw_peak, ceiling;
};

static void gs_reduce_device_prepare(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_reduce_device_table *tb = b->w;
  struct gs_reduce_job *job = tb->job;
  const struct gs_backend *be = job->be;
  tb->wsb = be->reduce->workspace(job->ctx, k->id, job->t, job->op, job->n);
  tb->ws = tb->wsb ? be->alloc_device(job->ctx, tb->wsb) : NULL;
  if (tb->ws) be->zero_device(job->ctx, tb->ws, tb->wsb, job->q);
  tb->d_out = be->alloc_device(job->ctx, sizeof *tb->d_out);
}

static void gs_reduce_device_release(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_reduce_device_table *tb = b->w;
  (void)k;
  tb->job->be->free_device(tb->job->ctx, tb->d_out);
  if (tb->ws) tb->job->be->free_device(tb->job->ctx, tb->ws);
}

static void gs_reduce_device_once(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_reduce_device_table *tb = b->w;
  struct gs_reduce_job *job = tb->job;
  job->be->reduce->run(job->ctx, k->id, job->t, job->op, tb->d_in, job->n, tb->ws, tb->wsb, tb->d_out, job->q);
}

/* The last timed run's result against the reference, on every rank. */
static int gs_reduce_device_verify(struct gs_bench *b, const struct gs_kernel *k, struct gs_bench_result *r) {
  struct gs_reduce_device_table *tb = b->w;
  struct gs_reduce_job *job = tb->job;
  union gs_acc res;
  (void)r;
  job->be->copy_d2h(job->ctx, &res, tb->d_out, sizeof res, job->q);
  job->be->queue_sync(job->ctx, job->q);
  return gs_reduce_check_verify(job, res, k->name);
}

static void gs_reduce_device_head(struct gs_bench *b) {
  const struct gs_reduce_device_table *tb = b->w;
  const struct gs_run *run = b->run;
  printf("# device-copy ceiling: %.1f GB/s (rank 0: device-to-device copy, bytes read + written, median of 10)\n",
         tb->ceiling / 1e9);
  if (tb->bw_peak > 0)
    printf("# theoretical bandwidth: %.1f GB/s (%s, from memory clock x bus width)\n", tb->bw_peak / 1e9, run->dev.name);
  printf("%-8s %-34s %10s %9s %9s %6s %6s %6s %7s  %s\n", "kernel", "what", "ms", "GB/s/GPU", "agg_GB/s", "%peak",
         "%copy", "step", "cum", "check");
}

/* Rank 0: kernel k's table line and result rows (the job's and, with several ranks, each rank's). */
static void gs_reduce_device_row(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r) {
  const struct gs_reduce_device_table *tb = b->w;
  struct gs_reduce_job *job = tb->job;
  const struct gs_run *run = job->run;
  double t = r->slow.median, per_gpu = (double)job->total / run->size * gs_dtype_size(job->t) / t;
  double agg = (double)job->total * gs_dtype_size(job->t) / t;
  char peak[16] = "-";
  if (tb->bw_peak > 0) snprintf(peak, sizeof peak, "%.1f", 100 * per_gpu / tb->bw_peak);
  printf("%-8s %-34s %10.4f %9.1f %9.1f %6s %6.1f %6s %7s  %s\n", k->name, k->title, t * 1e3, per_gpu / 1e9, agg / 1e9,
         peak, 100 * per_gpu / tb->ceiling, r->step, r->cum, r->ok ? "OK" : "FAILED");
  struct gs_row row =
      gs_bench_row(b, k, r, "bandwidth", agg / 1e9, "GB/s", tb->bw_peak > 0 ? agg / (tb->bw_peak * run->size) : -1);
  snprintf(row.params, sizeof row.params, "type=%s;op=%s;source=device;block=%d;check=%s;copy_ceiling_GBps=%.1f",
           gs_reduce_options_type_name(job->t), gs_reduce_options_op_name(job->op), job->o->block,
           r->ok ? "OK" : "FAILED", tb->ceiling / 1e9);
  gs_report_add(&job->rep, &row);
  for (int q = 0; run->size > 1 && q < run->size; q++) {
    struct gs_row rr = gs_bench_rank_row(&row, r, q);
    rr.value = per_gpu * t / r->per_rank[q].median / 1e9;
    rr.efficiency = tb->bw_peak > 0 ? rr.value * 1e9 / tb->bw_peak : -1;
    gs_report_add(&job->rep, &rr);
  }
  if (run->size > 1) {
    printf("#   per-rank median ms:");
    for (int q = 0; q < run->size; q++) printf(" %.4f", r->per_rank[q].median * 1e3);
    printf("\n");
  }
}

static const struct gs_bench_ops gs_reduce_device_ops = {
    .head = gs_reduce_device_head,
    .prepare = gs_reduce_device_prepare,
    .release = gs_reduce_device_release,
    .run_once = gs_reduce_device_once,
    .verify = gs_reduce_device_verify,
    .row = gs_reduce_device_row,
};

void gs_reduce_device_run(struct gs_reduce_job *job, struct gs_bench *b) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  struct gs_run *run = job->run;
  void *d_in = be->alloc_device(c, job->bytes);
  be->copy_h2d(c, d_in, job->h_in, job->bytes, job->q);
  be->queue_sync(c, job->q);
  gs_reduce_device_ceiling(job);
  struct gs_reduce_device_table tb = {.job = job, .d_in = d_in, .bw_peak = run->dev.bw_theory, .ceiling = job->copy_bw};
  GS_CHECK_MPI(&run->where, MPI_Bcast(&tb.ceiling, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  b->ops = &gs_reduce_device_ops;
  b->w = &tb;
  b->q = job->q;
  gs_bench_table(b);
  job->gate_expired += b->gate_expired;
  if (b->failed) job->failed = 1;
  be->free_device(c, d_in);
}
