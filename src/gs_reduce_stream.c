/* gs_reduce_stream.c: `gpusim reduce --source host`. The input lives in pinned host memory and
 * is streamed to the device in chunks over several queues, so the copy of chunk c+1 overlaps the
 * kernel on chunk c; PCIe, not the kernel, sets the pace. Shown against the copy alone (the
 * ceiling), the naive serial path (copy everything, then reduce) and pageable memory. */
#include <stdlib.h>
#include <string.h>

#include "gs_reduce_job.h"

struct gs_stream {
  struct gs_reduce_job *job;
  int nq;                   /* queues */
  uint64_t chunk, nchunks;  /* elements per chunk, chunks */
  gs_queue **q;
  gs_event *start, *stop, **done;
  void **dbuf, **ws;        /* per queue: a chunk buffer and a reduction workspace */
  size_t wsb;
  union gs_acc *d_res;      /* one result per chunk, on the device */
};

/* One pass over the whole input: copies only (kernel 0) or copy + reduce per chunk. Seconds. */
static double gs_stream_once(struct gs_stream *s, int kernel, const void *h) {
  struct gs_reduce_job *job = s->job;
  const struct gs_backend *be = job->be;
  size_t esz = gs_dtype_size(job->t);
  be->event_record(be, s->start, s->q[0]);
  for (int i = 1; i < s->nq; i++) be->queue_wait(be, s->q[i], s->start);
  for (uint64_t c = 0; c < s->nchunks; c++) {
    int i = (int)(c % (uint64_t)s->nq);
    uint64_t off = c * s->chunk, cnt = job->n - off < s->chunk ? job->n - off : s->chunk;
    be->copy_h2d(be, s->dbuf[i], (const char *)h + off * esz, cnt * esz, s->q[i]);
    if (kernel) be->reduce(be, kernel, job->t, job->op, s->dbuf[i], cnt, s->ws[i], s->wsb, &s->d_res[c], job->o->block, s->q[i]);
  }
  for (int i = 1; i < s->nq; i++) {
    be->event_record(be, s->done[i], s->q[i]);
    be->queue_wait(be, s->q[0], s->done[i]);
  }
  be->event_record(be, s->stop, s->q[0]);
  be->event_sync(be, s->stop);
  return be->event_seconds(be, s->start, s->stop);
}

/* The naive path: one copy of everything from h (pinned or pageable), then one reduction. */
static double gs_stream_serial(struct gs_stream *s, int kernel, const void *h, void *d_all, void *ws, size_t wsb) {
  struct gs_reduce_job *job = s->job;
  const struct gs_backend *be = job->be;
  be->event_record(be, s->start, s->q[0]);
  be->copy_h2d(be, d_all, h, job->bytes, s->q[0]);
  be->reduce(be, kernel, job->t, job->op, d_all, job->n, ws, wsb, s->d_res, job->o->block, s->q[0]);
  be->event_record(be, s->stop, s->q[0]);
  be->event_sync(be, s->stop);
  return be->event_seconds(be, s->start, s->stop);
}

/* Repeat one variant (warm-up, then --iters), verify its result, return the slowest rank's stats. */
static struct gs_stats gs_stream_measure(struct gs_stream *s, int kernel, int serial, const void *h, void *d_all,
                                         void *ws, size_t wsb, int *ok_all) {
  struct gs_reduce_job *job = s->job;
  const struct gs_backend *be = job->be;
  int iters = job->o->iters;
  double *t = malloc(sizeof *t * (size_t)iters);
  if (!t) GS_DIE(&be->where, "malloc", "out of memory");
  for (int i = -job->o->warmup; i < iters; i++) {
    double ti = serial ? gs_stream_serial(s, kernel, h, d_all, ws, wsb) : gs_stream_once(s, kernel, h);
    if (i >= 0) t[i] = ti;
  }
  struct gs_stats mine = gs_stats_of(t, iters);
  free(t);
  *ok_all = 1;
  if (kernel) {
    uint64_t nres = serial ? 1 : s->nchunks;
    union gs_acc *res = malloc(sizeof *res * nres), acc = gs_reduce_identity(job->t, job->op), global;
    if (!res) GS_DIE(&be->where, "malloc", "out of memory");
    be->copy_d2h(be, res, s->d_res, sizeof *res * nres, s->q[0]);
    be->queue_sync(be, s->q[0]);
    for (uint64_t c = 0; c < nres; c++) acc = gs_reduce_combine(job, acc, res[c]);
    free(res);
    GS_CHECK_MPI(&be->where, MPI_Allreduce(&acc, &global, 1, job->mpi_type, job->mpi_op, MPI_COMM_WORLD));
    int ok = gs_reduce_matches(job, acc, job->ref_local) && gs_reduce_matches(job, global, job->ref_global);
    GS_CHECK_MPI(&be->where, MPI_Allreduce(&ok, ok_all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (!*ok_all) job->failed = 1;
  }
  return gs_stats_slowest(&be->where, mine, NULL);
}

static void gs_stream_row(struct gs_stream *s, const char *kernel, const char *what, struct gs_stats st, double copy_t,
                          int show_overlap, const char *check) {
  struct gs_reduce_job *job = s->job;
  const struct gs_run *run = job->run;
  if (run->rank != 0) return;
  double gbs = (double)job->total / run->size * gs_dtype_size(job->t) / st.median / 1e9;
  double pinned = (double)job->total / run->size * gs_dtype_size(job->t) / copy_t / 1e9;
  char overlap[16] = "-";
  if (show_overlap) snprintf(overlap, sizeof overlap, "%.1f%%", 100 * copy_t / st.median);
  printf("%-8s %-40s %10.3f %9.2f %9.2f %8.1f %8s  %s\n", kernel, what, st.median * 1e3, gbs, gbs * run->size,
         100 * gbs / pinned, overlap, check);
  struct gs_row row = {.workload = "reduce", .rank = -1, .problem_size = job->total, .iterations = job->o->iters,
                       .t_min = st.min, .t_median = st.median, .t_max = st.max, .metric = "bandwidth",
                       .value = gbs * run->size, .unit = "GB/s", .efficiency = gbs / pinned};
  snprintf(row.kernel, sizeof row.kernel, "%s", kernel);
  snprintf(row.params, sizeof row.params, "type=%s;op=%s;source=host;path=%s;streams=%d;chunk=%llu;check=%s",
           gs_reduce_type_name(job->t), gs_reduce_op_name(job->op), what, s->nq,
           (unsigned long long)s->chunk, check);
  gs_report_add(&job->rep, &row);
}

void gs_reduce_stream_run(struct gs_reduce_job *job, unsigned mask) {
  const struct gs_backend *be = job->be;
  const struct gs_run *run = job->run;
  struct gs_stream s = {.job = job, .nq = job->o->streams};
  s.chunk = job->o->chunk < job->n ? job->o->chunk : job->n;
  s.nchunks = (job->n + s.chunk - 1) / s.chunk;
  s.q = calloc((size_t)s.nq, sizeof *s.q);
  s.done = calloc((size_t)s.nq, sizeof *s.done);
  s.dbuf = calloc((size_t)s.nq, sizeof *s.dbuf);
  s.ws = calloc((size_t)s.nq, sizeof *s.ws);
  if (!s.q || !s.done || !s.dbuf || !s.ws) GS_DIE(&be->where, "calloc", "out of memory");
  size_t esz = gs_dtype_size(job->t);
  for (int k = 1; k < GS_RK_LAST; k++)
    if (mask & (1u << k)) {
      size_t w = be->reduce_workspace(be, k, job->t, job->op, s.chunk, job->o->block);
      if (w > s.wsb) s.wsb = w;
    }
  for (int i = 0; i < s.nq; i++) {
    s.q[i] = be->queue_create(be);
    s.done[i] = be->event_create(be);
    s.dbuf[i] = be->alloc_device(be, s.chunk * esz);
    s.ws[i] = s.wsb ? be->alloc_device(be, s.wsb) : NULL;
    if (s.ws[i]) be->zero_device(be, s.ws[i], s.wsb, s.q[i]);
  }
  s.start = be->event_create(be);
  s.stop = be->event_create(be);
  s.d_res = be->alloc_device(be, sizeof *s.d_res * s.nchunks);

  /* The naive paths use the best kernel selected: onepass, else the highest id. */
  int best = 0;
  for (int k = 1; k < GS_RK_LAST; k++)
    if ((mask & (1u << k)) && k != GS_RK_CUB && best != GS_RK_ONEPASS) best = k;
  if (!best)
    for (int k = 1; k < GS_RK_LAST; k++)
      if (mask & (1u << k)) best = k;
  size_t wsb_all = be->reduce_workspace(be, best, job->t, job->op, job->n, job->o->block);
  void *ws_all = wsb_all ? be->alloc_device(be, wsb_all) : NULL;
  if (ws_all) be->zero_device(be, ws_all, wsb_all, s.q[0]);
  void *d_all = be->alloc_device(be, job->bytes);
  void *pageable = malloc(job->bytes ? job->bytes : 1);
  if (!pageable) GS_DIE(&be->where, "malloc", "out of memory for the pageable copy");
  memcpy(pageable, job->h_in, job->bytes);
  be->queue_sync(be, s.q[0]);

  if (run->rank == 0) {
    printf("# streamed: %llu chunk(s) of up to %llu elements (%.1f MB) over %d stream(s)\n", (unsigned long long)s.nchunks,
           (unsigned long long)s.chunk, s.chunk * esz / 1e6, s.nq);
    printf("%-8s %-40s %10s %9s %9s %8s %8s  %s\n", "kernel", "path", "ms", "GB/s/GPU", "agg_GB/s", "%pinned",
           "overlap", "check");
  }
  int ok;
  struct gs_stats copy = gs_stream_measure(&s, 0, 0, job->h_in, NULL, NULL, 0, &ok);
  double copy_t = copy.median;
  GS_CHECK_MPI(&be->where, MPI_Bcast(&copy_t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  gs_stream_row(&s, "-", "copy only: pinned host -> device", copy, copy_t, 0, "-");
  const char *bname = gs_reduce_kernel_name(best);
  struct gs_stats st = gs_stream_measure(&s, best, 1, job->h_in, d_all, ws_all, wsb_all, &ok);
  gs_stream_row(&s, bname, "serial, pinned: copy all, then reduce", st, copy_t, 0, ok ? "OK" : "FAILED");
  st = gs_stream_measure(&s, best, 1, pageable, d_all, ws_all, wsb_all, &ok);
  gs_stream_row(&s, bname, "serial, pageable: copy all, then reduce", st, copy_t, 0, ok ? "OK" : "FAILED");
  for (int k = 1; k < GS_RK_LAST; k++) {
    if (!(mask & (1u << k))) continue;
    st = gs_stream_measure(&s, k, 0, job->h_in, NULL, NULL, 0, &ok);
    gs_stream_row(&s, gs_reduce_kernel_name(k), "pipeline: chunks over streams", st, copy_t, 1, ok ? "OK" : "FAILED");
  }
  if (run->rank == 0)
    printf("# %%pinned: end-to-end GB/s over the copy-only GB/s; overlap: copy-only time / pipeline time\n");

  free(pageable);
  be->free_device(be, d_all);
  if (ws_all) be->free_device(be, ws_all);
  be->free_device(be, s.d_res);
  be->event_destroy(be, s.start);
  be->event_destroy(be, s.stop);
  for (int i = 0; i < s.nq; i++) {
    if (s.ws[i]) be->free_device(be, s.ws[i]);
    be->free_device(be, s.dbuf[i]);
    be->event_destroy(be, s.done[i]);
    be->queue_destroy(be, s.q[i]);
  }
  free(s.q);
  free(s.done);
  free(s.dbuf);
  free(s.ws);
}
