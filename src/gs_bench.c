/* gs_bench.c: the measurement harness (see the header). */
#include "gs_bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "gs_kernel_list.h"

int gs_bench_select(struct gs_bench *b, const char *list, const char *const *known, int numbered, struct gs_msg *msg) {
  if (gs_kernel_list_select(list, known, numbered, b->kernels, b->count, b->run->be->name, &b->mask, msg) != GS_OK)
    return GS_USAGE;
  return GS_OK;
}

/* Kernel k's timed runs on this rank, after b->warmup untimed ones. run_once: each run between
 * two events behind a closed gate, so the events time the device's work and not the host's
 * launches (warm-up outside the gate: it may grow a workspace, which synchronises the queue).
 * run_timed: the workload's clock, every rank starting together. */
static struct gs_stats gs_bench_time(struct gs_bench *b, const struct gs_kernel *k, gs_gate *gate, gs_event **ev) {
  const struct gs_backend *be = b->run->be;
  gs_ctx *c = b->run->ctx;
  double *t = malloc(sizeof *t * (size_t)b->iters);
  if (!t) GS_DIE(&b->run->where, "malloc", "out of memory");
  for (int i = -b->warmup; i < b->iters; i++) {
    if (b->ops->run_timed) {
      GS_CHECK_MPI(&b->run->where, MPI_Barrier(MPI_COMM_WORLD));
      double s = b->ops->run_timed(b, k, i);
      if (i >= 0) t[i] = s;
      continue;
    }
    if (i < 0) {
      b->ops->run_once(b, k);
      be->queue_sync(c, b->q);
      continue;
    }
    be->gate_close(c, gate, b->q);
    be->event_record(c, ev[0], b->q);
    b->ops->run_once(b, k);
    be->event_record(c, ev[1], b->q);
    if (be->gate_open(c, gate)) b->gate_expired++;
    be->event_sync(c, ev[1]);
    t[i] = be->event_seconds(c, ev[0], ev[1]);
  }
  struct gs_stats s = gs_stats_of(t, b->iters);
  free(t);
  return s;
}

void gs_bench_table(struct gs_bench *b) {
  struct gs_run *run = b->run;
  const struct gs_backend *be = run->be;
  gs_ctx *c = run->ctx;
  int gated = b->ops->run_timed == NULL;
  gs_gate *gate = gated ? be->gate_create(c) : NULL;
  gs_event *ev[2] = {gated ? be->event_create(c) : NULL, gated ? be->event_create(c) : NULL};
  struct gs_stats *per_rank = run->rank == 0 ? calloc((size_t)run->size, sizeof *per_rank) : NULL;
  if (run->rank == 0 && !per_rank) GS_DIE(&run->where, "calloc", "out of memory");
  if (run->rank == 0 && b->ops->head) b->ops->head(b);
  for (int i = 0; i < b->count; i++) {
    if (!(b->mask & (1u << i))) continue;
    const struct gs_kernel *k = &b->kernels[i];
    struct gs_bench_result r = {.per_rank = per_rank};
    if (b->ops->prepare) b->ops->prepare(b, k);
    r.mine = gs_bench_time(b, k, gate, ev);
    r.ok = b->ops->verify(b, k, &r);
    if (b->ops->release) b->ops->release(b, k);
    if (!r.ok) b->failed = 1;
    r.slow = gs_stats_slowest(&run->where, r.mine, per_rank);
    if (run->rank != 0) continue;
    double t = r.slow.median;
    if (b->first == 0) b->first = t;
    if (b->prev > 0) snprintf(r.step, sizeof r.step, "%.2fx", b->prev / t), snprintf(r.cum, sizeof r.cum, "%.2fx", b->first / t);
    b->prev = t;
    b->ops->row(b, k, &r);
  }
  fflush(stdout);
  free(per_rank);
  if (gated) {
    be->event_destroy(c, ev[0]);
    be->event_destroy(c, ev[1]);
    be->gate_destroy(c, gate);
  }
}

struct gs_row gs_bench_row(const struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r,
                           const char *metric, double value, const char *unit, double efficiency) {
  struct gs_row row = {.rank = -1,
                       .problem_size = b->problem_size,
                       .iterations = b->iters,
                       .t_min = r->slow.min,
                       .t_median = r->slow.median,
                       .t_max = r->slow.max,
                       .value = value,
                       .efficiency = efficiency};
  snprintf(row.workload, sizeof row.workload, "%s", b->workload);
  snprintf(row.kernel, sizeof row.kernel, "%s", k->name);
  snprintf(row.metric, sizeof row.metric, "%s", metric);
  snprintf(row.unit, sizeof row.unit, "%s", unit);
  return row;
}

struct gs_row gs_bench_rank_row(const struct gs_row *job_row, const struct gs_bench_result *r, int q) {
  struct gs_row row = *job_row;
  row.rank = q;
  row.t_min = r->per_rank[q].min, row.t_median = r->per_rank[q].median, row.t_max = r->per_rank[q].max;
  return row;
}

int gs_bench_verdict(const struct gs_run *run, const struct gs_report *rep, int failed) {
  if (run->rank == 0) {
    printf("# verification: %s\n", failed ? "FAILED" : "OK");
    fflush(stdout);
  }
  int status = failed ? GS_FAILED : GS_OK;
  if (gs_report_write(rep, run) != GS_OK) status = GS_FAILED;
  GS_CHECK_MPI(&run->where, MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD));
  return status;
}
