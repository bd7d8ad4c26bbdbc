/* gs_reduce_stream.c: `gpusim reduce --source host`. The input lives in pinned host memory and
 * is streamed to the device in chunks over several queues, so the copy of chunk c+1 overlaps the
 * kernel on chunk c; PCIe, not the kernel, sets the pace. Shown against the copy alone (the
 * ceiling), the naive serial path (copy everything, then reduce) and pageable memory. The table
 * runs on the measurement harness (gs_bench.h): each of its rows, a path, is one of the harness's
 * kernels, timed by the path's own events (run_timed). */
#include "gs_reduce_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_acc.h"
#include "gs_bench.h"
#include "gs_reduce_check.h"

struct gs_stream {
  struct gs_reduce_job *job;
  int nq;                  /* queues */
  uint64_t chunk, nchunks; /* elements per chunk, chunks */
  gs_queue **q;
  gs_event *start, *stop, **done;
  void **dbuf, **ws; /* per queue: a chunk buffer and a reduction workspace (a workspace
                        serves one queue at a time: each queue has its own) */
  size_t wsb;
  union gs_acc *d_res;             /* one result per chunk, on the device */
  const struct gs_kernel *best;    /* the kernel of the naive paths */
  void *ws_all, *d_all, *pageable; /* the naive paths' workspace, device input, pageable copy */
  size_t wsb_all;
  /* The table's rows, the harness's kernels (row i has id i): a name for the kernel column and the
   * path in the title; for each, how it runs. */
  struct gs_kernel *rows;
  struct gs_stream_path {
    const struct gs_kernel *k; /* the reduction kernel (NULL: copies only) */
    int serial;                /* the naive path from h, else the pipeline */
    const void *h;             /* the input: pinned h_in or the pageable copy */
  } *paths;
  int nrows;
  double copy_t; /* rank 0: the copy-only row's median (the slowest rank's), the others' yardstick */
};

/* One pass over the whole input: copies only (k NULL) or copy + reduce per chunk. Seconds. */
static double gs_stream_once(struct gs_stream *s, const struct gs_kernel *k, const void *h) {
  struct gs_reduce_job *job = s->job;
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  size_t esz = gs_dtype_size(job->t);
  be->event_record(c, s->start, s->q[0]);
  for (int i = 1; i < s->nq; i++)
    be->queue_wait(c, s->q[i], s->start);
  for (uint64_t ch = 0; ch < s->nchunks; ch++) {
    int i = (int)(ch % (uint64_t)s->nq);
    uint64_t off = ch * s->chunk, cnt = job->n - off < s->chunk ? job->n - off : s->chunk;
    be->copy_h2d(c, s->dbuf[i], (const char *)h + off * esz, cnt * esz, s->q[i]);
    if (k)
      be->reduce->run(c, k->id, job->t, job->op, s->dbuf[i], cnt, s->ws[i], s->wsb, &s->d_res[ch], s->q[i]);
  }
  for (int i = 1; i < s->nq; i++) {
    be->event_record(c, s->done[i], s->q[i]);
    be->queue_wait(c, s->q[0], s->done[i]);
  }
  be->event_record(c, s->stop, s->q[0]);
  be->event_sync(c, s->stop);
  return be->event_seconds(c, s->start, s->stop);
}

/* The naive path: one copy of everything from h (pinned or pageable), then one reduction. */
static double gs_stream_serial(struct gs_stream *s, const void *h) {
  struct gs_reduce_job *job = s->job;
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  be->event_record(c, s->start, s->q[0]);
  be->copy_h2d(c, s->d_all, h, job->bytes, s->q[0]);
  be->reduce->run(c, s->best->id, job->t, job->op, s->d_all, job->n, s->ws_all, s->wsb_all, s->d_res, s->q[0]);
  be->event_record(c, s->stop, s->q[0]);
  be->event_sync(c, s->stop);
  return be->event_seconds(c, s->start, s->stop);
}

/* One run of row k's path (the harness starts it on every rank together), seconds. */
static double gs_stream_run_timed(struct gs_bench *b, const struct gs_kernel *k, int i) {
  struct gs_stream *s = b->w;
  const struct gs_stream_path *p = &s->paths[k->id];
  (void)i;
  return p->serial ? gs_stream_serial(s, p->h) : gs_stream_once(s, p->k, p->h);
}

/* The last run's result against the reference (every rank; the copies alone have none). */
static int gs_stream_verify(struct gs_bench *b, const struct gs_kernel *k, struct gs_bench_result *r) {
  struct gs_stream *s = b->w;
  struct gs_reduce_job *job = s->job;
  const struct gs_stream_path *p = &s->paths[k->id];
  (void)r;
  if (!p->k) return 1;
  uint64_t nres = p->serial ? 1 : s->nchunks;
  union gs_acc *res = malloc(sizeof *res * nres), acc = gs_acc_identity(job->t, job->op);
  if (!res) GS_DIE(&job->run->where, "malloc", "out of memory");
  job->be->copy_d2h(job->ctx, res, s->d_res, sizeof *res * nres, s->q[0]);
  job->be->queue_sync(job->ctx, s->q[0]);
  for (uint64_t i = 0; i < nres; i++)
    acc = gs_acc_combine(job->t, job->op, acc, res[i]);
  free(res);
  return gs_reduce_check_verify(job, acc, p->k->name);
}

static void gs_stream_head(struct gs_bench *b) {
  const struct gs_stream *s = b->w;
  printf("# streamed: %llu chunk(s) of up to %llu elements (%.1f MB) over %d stream(s)\n",
         (unsigned long long)s->nchunks, (unsigned long long)s->chunk, s->chunk * gs_dtype_size(s->job->t) / 1e6, s->nq);
  printf("%-8s %-40s %10s %9s %9s %8s %8s  %s\n", "kernel", "path", "ms", "GB/s/GPU", "agg_GB/s", "%pinned", "overlap",
         "check");
}

/* Rank 0: row k's table line and result row; the copy-only row (the first) is the others'
 * yardstick. */
static void gs_stream_row(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r) {
  struct gs_stream *s = b->w;
  const struct gs_stream_path *p = &s->paths[k->id];
  struct gs_reduce_job *job = s->job;
  const struct gs_run *run = job->run;
  double t = r->slow.median;
  if (!p->k) s->copy_t = t;
  const char *check = !p->k ? "-" : r->ok ? "OK" : "FAILED";
  double gbs = (double)job->total / run->size * gs_dtype_size(job->t) / t / 1e9;
  double pinned = (double)job->total / run->size * gs_dtype_size(job->t) / s->copy_t / 1e9;
  char overlap[16] = "-";
  if (p->k && !p->serial) snprintf(overlap, sizeof overlap, "%.1f%%", 100 * s->copy_t / t);
  printf("%-8s %-40s %10.3f %9.2f %9.2f %8.1f %8s  %s\n", k->name, k->title, t * 1e3, gbs, gbs * run->size,
         100 * gbs / pinned, overlap, check);
  struct gs_row row = gs_bench_row(b, k, r, "bandwidth", gbs * run->size, "GB/s", gbs / pinned);
  snprintf(row.params, sizeof row.params, "type=%s;op=%s;source=host;path=%s;streams=%d;chunk=%llu;check=%s",
           gs_reduce_options_type_name(job->t), gs_reduce_options_op_name(job->op), k->title, s->nq,
           (unsigned long long)s->chunk, check);
  gs_report_add(b->rep, &row);
}

static const struct gs_bench_ops gs_stream_ops = {
    .head = gs_stream_head,
    .run_timed = gs_stream_run_timed,
    .verify = gs_stream_verify,
    .row = gs_stream_row,
};

/* The naive paths' kernel: the backend's internal choice if selected, else the last selected
 * kernel that is not a vendor baseline, else the last selected. */
static const struct gs_kernel *gs_stream_best(const struct gs_reduce_job *job) {
  const struct gs_kernel *best = NULL, *plain = NULL, *any = NULL;
  for (int i = 0; i < job->be->reduce->count; i++) {
    if (!(job->mask & (1u << i))) continue;
    const struct gs_kernel *k = &job->kernels[i];
    any = k;
    if (!(k->flags & GS_KERNEL_BASELINE)) plain = k;
    if (k->flags & GS_KERNEL_INTERNAL) best = k;
  }
  return best ? best : plain ? plain : any;
}

/* Queues, chunk buffers, one workspace per queue, and the naive paths' buffers. */
static void gs_stream_setup(struct gs_stream *s, struct gs_reduce_job *job) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  size_t esz = gs_dtype_size(job->t);
  s->job = job;
  s->nq = job->o->streams;
  s->chunk = job->o->chunk < job->n ? job->o->chunk : job->n;
  s->nchunks = (job->n + s->chunk - 1) / s->chunk;
  s->q = calloc((size_t)s->nq, sizeof *s->q);
  s->done = calloc((size_t)s->nq, sizeof *s->done);
  s->dbuf = calloc((size_t)s->nq, sizeof *s->dbuf);
  s->ws = calloc((size_t)s->nq, sizeof *s->ws);
  s->pageable = malloc(job->bytes ? job->bytes : 1);
  if (!s->q || !s->done || !s->dbuf || !s->ws || !s->pageable) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int i = 0; i < be->reduce->count; i++)
    if (job->mask & (1u << i)) {
      size_t w = be->reduce->workspace(c, job->kernels[i].id, job->t, job->op, s->chunk);
      if (w > s->wsb) s->wsb = w;
    }
  for (int i = 0; i < s->nq; i++) {
    s->q[i] = be->queue_create(c);
    s->done[i] = be->event_create(c);
    s->dbuf[i] = be->alloc_device(c, s->chunk * esz);
    s->ws[i] = s->wsb ? be->alloc_device(c, s->wsb) : NULL;
    if (s->ws[i]) be->zero_device(c, s->ws[i], s->wsb, s->q[i]);
  }
  s->start = be->event_create(c);
  s->stop = be->event_create(c);
  s->d_res = be->alloc_device(c, sizeof *s->d_res * s->nchunks);
  s->best = gs_stream_best(job);
  s->wsb_all = be->reduce->workspace(c, s->best->id, job->t, job->op, job->n);
  s->ws_all = s->wsb_all ? be->alloc_device(c, s->wsb_all) : NULL;
  if (s->ws_all) be->zero_device(c, s->ws_all, s->wsb_all, s->q[0]);
  s->d_all = be->alloc_device(c, job->bytes);
  memcpy(s->pageable, job->h_in, job->bytes);
  be->queue_sync(c, s->q[0]);
}

static void gs_stream_teardown(struct gs_stream *s) {
  const struct gs_backend *be = s->job->be;
  gs_ctx *c = s->job->ctx;
  free(s->pageable);
  be->free_device(c, s->d_all);
  if (s->ws_all) be->free_device(c, s->ws_all);
  be->free_device(c, s->d_res);
  be->event_destroy(c, s->start);
  be->event_destroy(c, s->stop);
  for (int i = 0; i < s->nq; i++) {
    if (s->ws[i]) be->free_device(c, s->ws[i]);
    be->free_device(c, s->dbuf[i]);
    be->event_destroy(c, s->done[i]);
    be->queue_destroy(c, s->q[i]);
  }
  free(s->q);
  free(s->done);
  free(s->dbuf);
  free(s->ws);
}

/* The table's rows: the copies alone, the naive path from pinned and from pageable memory, then
 * the pipeline with each selected kernel. */
static void gs_stream_rows(struct gs_stream *s) {
  struct gs_reduce_job *job = s->job;
  int most = 3 + job->be->reduce->count;
  s->rows = calloc((size_t)most, sizeof *s->rows);
  s->paths = calloc((size_t)most, sizeof *s->paths);
  if (!s->rows || !s->paths) GS_DIE(&job->run->where, "malloc", "out of memory");
  s->rows[0] = (struct gs_kernel){"-", "copy only: pinned host -> device", 0, 0};
  s->paths[0] = (struct gs_stream_path){NULL, 0, job->h_in};
  s->rows[1] = (struct gs_kernel){s->best->name, "serial, pinned: copy all, then reduce", 1, 0};
  s->paths[1] = (struct gs_stream_path){s->best, 1, job->h_in};
  s->rows[2] = (struct gs_kernel){s->best->name, "serial, pageable: copy all, then reduce", 2, 0};
  s->paths[2] = (struct gs_stream_path){s->best, 1, s->pageable};
  s->nrows = 3;
  for (int i = 0; i < job->be->reduce->count; i++) {
    if (!(job->mask & (1u << i))) continue;
    s->rows[s->nrows] = (struct gs_kernel){job->kernels[i].name, "pipeline: chunks over streams", s->nrows, 0};
    s->paths[s->nrows++] = (struct gs_stream_path){&job->kernels[i], 0, job->h_in};
  }
}

void gs_reduce_stream_run(struct gs_reduce_job *job, const struct gs_bench *bench) {
  struct gs_stream s = {0};
  gs_stream_setup(&s, job);
  gs_stream_rows(&s);
  /* the caller's harness (run, rows' sink, warm-up, iterations, size) over this table's rows */
  struct gs_bench b = *bench;
  b.ops = &gs_stream_ops, b.w = &s, b.kernels = s.rows, b.count = s.nrows, b.mask = (1u << s.nrows) - 1;
  gs_bench_table(&b);
  if (b.failed) job->failed = 1;
  if (job->run->rank == 0)
    printf("# %%pinned: end-to-end GB/s over the copy-only GB/s; overlap: copy-only time / pipeline time\n");
  free(s.rows), free(s.paths);
  gs_stream_teardown(&s);
}
