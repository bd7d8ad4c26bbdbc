/* gs_reduce_job.h: one rank's reduction job, shared by the driver (gs_reduce.c), its
 * device-resident path (gs_reduce_device.c), its streamed host path (gs_reduce_stream.c) and
 * its verification (gs_reduce_check.c). Types only. */
#ifndef GS_REDUCE_JOB_H
#define GS_REDUCE_JOB_H

#include "gs_backend.h"
#include "gs_mpi.h"
#include "gs_reduce_options.h"
#include "gs_report.h"
#include "gs_stats.h"

struct gs_reduce_job {
  struct gs_run *run;
  const struct gs_reduce_opts *o;
  const struct gs_backend *be;
  gs_ctx *ctx;                /* the backend's state on this rank */
  const struct gs_kernel *kernels; /* the backend's reduction kernels */
  unsigned mask;              /* the selected ones (bit i: kernels[i]) */
  enum gs_dtype t;
  enum gs_op op;
  uint64_t n, first, total;   /* this rank's elements, its first global index, all ranks' */
  size_t bytes;               /* this rank's input bytes */
  void *h_in;                 /* pinned host copy of this rank's input */
  union gs_acc ref_local;     /* CPU reference of this rank's slice */
  union gs_acc ref_global;    /* ... and of the whole array */
  double tol;                 /* allowed |result - reference| (0: exact) */
  gs_queue *q;                /* main queue */
  gs_event *ev[2];            /* timing events */
  double copy_bw;             /* measured device-copy ceiling, bytes/s (read + write) */
  MPI_Datatype mpi_type;      /* of the accumulator */
  MPI_Op mpi_op;              /* of the operator */
  struct gs_report rep;
  int failed;                 /* some check failed on some rank */
  int corrupt;                /* test hook: make the last rank's results wrong */
  long gate_expired;          /* timed runs whose gate gave up waiting (host time included) */
};

#endif
