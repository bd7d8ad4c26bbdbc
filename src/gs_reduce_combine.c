/* gs_reduce_combine.c: the device combine of the partial results (see the header). */
#include "gs_reduce_combine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_exchange.h"
#include "gs_reduce_check.h"
#include "gs_stats.h"

/* Timed all-reduces of d_in into d_out on q, each after a barrier, until every device has the
 * result; the slowest rank's median. */
static double gs_reduce_combine_time(struct gs_reduce_job *job, struct gs_exchange *x, const void *d_in, void *d_out,
                                     gs_event *done) {
  const struct gs_backend *be = job->be;
  int k = job->o->iters;
  double *t = malloc(sizeof *t * (size_t)k);
  if (!t) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int i = -job->o->warmup; i < k; i++) {
    GS_CHECK_MPI(&job->run->where, MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    be->coll->allreduce(job->ctx, x->coll, d_in, d_out, 1, job->t, job->op, job->q);
    be->event_record(job->ctx, done, job->q);
    gs_exchange_wait(x, done);
    if (i >= 0) t[i] = MPI_Wtime() - t0;
  }
  double med = gs_stats_of(t, k).median, slow = med;
  free(t);
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(&med, &slow, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return slow;
}

double gs_reduce_combine_device(struct gs_reduce_job *job, int *matched, char *why, size_t why_size) {
  const struct gs_backend *be = job->be;
  struct gs_exchange x;
  struct gs_msg msg;
  if (gs_exchange_open(&x, job->run, MPI_COMM_WORLD, GS_EXCHANGE_NCCL, &msg) != GS_OK) {
    const char *text = strstr(msg.text, ": "); /* past "--exchange nccl: " */
    snprintf(why, why_size, "%s", text ? text + 2 : msg.text);
    gs_exchange_close(&x);
    return -1;
  }
  union gs_acc *d = be->alloc_device(job->ctx, 2 * sizeof *d), result;
  gs_event *done = be->event_create(job->ctx);
  be->copy_h2d(job->ctx, d, &job->ref_local, sizeof *d, job->q);
  be->queue_sync(job->ctx, job->q);
  double t = gs_reduce_combine_time(job, &x, d, d + 1, done);
  be->copy_d2h(job->ctx, &result, d + 1, sizeof result, job->q);
  be->queue_sync(job->ctx, job->q);
  int ok = gs_reduce_check_matches(job, result, job->ref_global), all = 0;
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
  if (!ok) {
    char got[40], want[40];
    gs_reduce_check_format(got, sizeof got, job, result);
    gs_reduce_check_format(want, sizeof want, job, job->ref_global);
    fprintf(stderr, "gpusim: rank %d: device combine (%s all-reduce) gave %s, the reference is %s\n", job->run->rank,
            be->coll->name, got, want);
  }
  *matched = all;
  if (!all) job->failed = 1;
  be->event_destroy(job->ctx, done);
  be->free_device(job->ctx, d);
  gs_exchange_close(&x);
  return t;
}
