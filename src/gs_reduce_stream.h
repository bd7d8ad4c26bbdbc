/* gs_reduce_stream.h: the reduce driver's streamed path (--source host). */
#ifndef GS_REDUCE_STREAM_H
#define GS_REDUCE_STREAM_H

#include "gs_reduce_job.h"

/* The --source host pipeline and its contrasts (copy only, serial pinned and pageable); sets
 * job->failed on a wrong result. */
void gs_reduce_stream_run(struct gs_reduce_job *job);

#endif
