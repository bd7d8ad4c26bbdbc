/* gs_reduce_device.c: `gpusim reduce` with the input on the device. Each rank reduces its slice
 * with every selected kernel (timed with events, median of --iters after --warmup), checks its
 * result against the CPU reference, and MPI_Allreduce combines the partial results; rank 0
 * prints the seed's table (ms, GB/s, % of peak, step and cumulative speedups). */
#include "gs_reduce_device.h"

#include <stdio.h>
#include <stdlib.h>

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

/* Time one kernel on this rank: warm-up, then --iters event-timed runs. Leaves the result in *res. */
static struct gs_stats gs_reduce_device_time(struct gs_reduce_job *job, const struct gs_kernel *k, const void *d_in,
                                             union gs_acc *res) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  const struct gs_reduce_opts *o = job->o;
  size_t wsb = be->reduce->workspace(c, k->id, job->t, job->op, job->n, o->block);
  void *ws = wsb ? be->alloc_device(c, wsb) : NULL;
  if (ws) be->zero_device(c, ws, wsb, job->q);
  union gs_acc *d_out = be->alloc_device(c, sizeof *d_out);
  double *t = malloc(sizeof *t * (size_t)o->iters);
  if (!t) GS_DIE(&job->run->where, "malloc", "out of memory");
  /* The gate holds the queue until the start event, the kernel(s) and the stop event are all
   * submitted: the events then time the device's work, not the host's launch overhead. */
  gs_gate *gate = be->gate_create(c);
  for (int i = -o->warmup; i < o->iters; i++) {
    be->gate_close(c, gate, job->q);
    be->event_record(c, job->ev[0], job->q);
    be->reduce->run(c, k->id, job->t, job->op, d_in, job->n, ws, wsb, d_out, o->block, job->q);
    be->event_record(c, job->ev[1], job->q);
    if (be->gate_open(c, gate) && i >= 0) job->gate_expired++;
    be->event_sync(c, job->ev[1]);
    if (i >= 0) t[i] = be->event_seconds(c, job->ev[0], job->ev[1]);
  }
  be->copy_d2h(c, res, d_out, sizeof *res, job->q);
  be->queue_sync(c, job->q);
  struct gs_stats s = gs_stats_of(t, o->iters);
  be->gate_destroy(c, gate);
  free(t);
  be->free_device(c, d_out);
  if (ws) be->free_device(c, ws);
  return s;
}

/* Progress through the table: the previous and first kernels' times, for the speedups. */
struct gs_reduce_device_table {
  double prev, first, bw_peak, ceiling;
  struct gs_stats *per_rank; /* rank 0: every rank's stats of the current kernel */
};

/* Rank 0: kernel k's table line and result rows (the job's and, with several ranks, each rank's). */
static void gs_reduce_device_row(struct gs_reduce_job *job, struct gs_reduce_device_table *tb,
                                 const struct gs_kernel *k, struct gs_stats slow, int ok_all) {
  const struct gs_run *run = job->run;
  double t = slow.median, per_gpu = (double)job->total / run->size * gs_dtype_size(job->t) / t;
  double agg = (double)job->total * gs_dtype_size(job->t) / t;
  if (tb->first == 0) tb->first = t;
  char step[16] = "", cum[16] = "", peak[16] = "-";
  if (tb->prev > 0) snprintf(step, sizeof step, "%.2fx", tb->prev / t);
  if (tb->first != t || tb->prev > 0) snprintf(cum, sizeof cum, "%.2fx", tb->first / t);
  if (tb->bw_peak > 0) snprintf(peak, sizeof peak, "%.1f", 100 * per_gpu / tb->bw_peak);
  printf("%-8s %-34s %10.4f %9.1f %9.1f %6s %6.1f %6s %7s  %s\n", k->name, k->title, t * 1e3, per_gpu / 1e9, agg / 1e9,
         peak, 100 * per_gpu / tb->ceiling, step, cum, ok_all ? "OK" : "FAILED");
  tb->prev = t;
  struct gs_row row = {.workload = "reduce",
                       .rank = -1,
                       .problem_size = job->total,
                       .iterations = job->o->iters,
                       .t_min = slow.min,
                       .t_median = slow.median,
                       .t_max = slow.max,
                       .metric = "bandwidth",
                       .value = agg / 1e9,
                       .unit = "GB/s",
                       .efficiency = tb->bw_peak > 0 ? agg / (tb->bw_peak * run->size) : -1};
  snprintf(row.kernel, sizeof row.kernel, "%s", k->name);
  snprintf(row.params, sizeof row.params, "type=%s;op=%s;source=device;block=%d;check=%s;copy_ceiling_GBps=%.1f",
           gs_reduce_options_type_name(job->t), gs_reduce_options_op_name(job->op), job->o->block,
           ok_all ? "OK" : "FAILED", tb->ceiling / 1e9);
  gs_report_add(&job->rep, &row);
  for (int r = 0; run->size > 1 && r < run->size; r++) {
    struct gs_row rr = row;
    rr.rank = r;
    rr.t_min = tb->per_rank[r].min, rr.t_median = tb->per_rank[r].median, rr.t_max = tb->per_rank[r].max;
    rr.value = per_gpu * t / tb->per_rank[r].median / 1e9;
    rr.efficiency = tb->bw_peak > 0 ? rr.value * 1e9 / tb->bw_peak : -1;
    gs_report_add(&job->rep, &rr);
  }
  if (run->size > 1) {
    printf("#   per-rank median ms:");
    for (int r = 0; r < run->size; r++)
      printf(" %.4f", tb->per_rank[r].median * 1e3);
    printf("\n");
  }
}

void gs_reduce_device_run(struct gs_reduce_job *job) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  struct gs_run *run = job->run;
  void *d_in = be->alloc_device(c, job->bytes);
  be->copy_h2d(c, d_in, job->h_in, job->bytes, job->q);
  be->queue_sync(c, job->q);
  gs_reduce_device_ceiling(job);
  struct gs_reduce_device_table tb = {.bw_peak = run->dev.bw_theory, .ceiling = job->copy_bw};
  GS_CHECK_MPI(&run->where, MPI_Bcast(&tb.ceiling, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  tb.per_rank = run->rank == 0 ? calloc((size_t)run->size, sizeof *tb.per_rank) : NULL;
  if (run->rank == 0 && !tb.per_rank) GS_DIE(&run->where, "calloc", "out of memory");
  if (run->rank == 0) {
    printf("# device-copy ceiling: %.1f GB/s (rank 0: device-to-device copy, bytes read + written, median of 10)\n",
           tb.ceiling / 1e9);
    if (tb.bw_peak > 0)
      printf("# theoretical bandwidth: %.1f GB/s (%s, from memory clock x bus width)\n", tb.bw_peak / 1e9,
             run->dev.name);
    printf("%-8s %-34s %10s %9s %9s %6s %6s %6s %7s  %s\n", "kernel", "what", "ms", "GB/s/GPU", "agg_GB/s", "%peak",
           "%copy", "step", "cum", "check");
  }
  for (int i = 0; i < be->reduce->count; i++) {
    if (!(job->mask & (1u << i))) continue;
    const struct gs_kernel *k = &job->kernels[i];
    union gs_acc res;
    struct gs_stats mine = gs_reduce_device_time(job, k, d_in, &res);
    int ok_all = gs_reduce_check_verify(job, res, k->name);
    struct gs_stats slow = gs_stats_slowest(&run->where, mine, tb.per_rank);
    if (run->rank == 0) gs_reduce_device_row(job, &tb, k, slow, ok_all);
  }
  free(tb.per_rank);
  be->free_device(c, d_in);
}
