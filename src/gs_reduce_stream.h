/* gs_reduce_stream.h: the reduce driver's streamed path (--source host). */
#ifndef GS_REDUCE_STREAM_H
#define GS_REDUCE_STREAM_H

#include "gs_bench.h"
#include "gs_reduce_job.h"

/* The --source host pipeline and its contrasts (copy only, serial pinned and pageable), a table
 * on the harness b (its run, rows, warm-up, iterations and size; the kernels --kernel selected
 * are job->mask); sets job->failed on a wrong result. */
void gs_reduce_stream_run(struct gs_reduce_job *job, const struct gs_bench *b);

#endif
