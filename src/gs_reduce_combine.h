/* gs_reduce_combine.h: the ranks' partial results combined on the devices (be->coll's all-reduce,
 * NCCL), timed beside MPI_Allreduce on the host and verified like it. */
#ifndef GS_REDUCE_COMBINE_H
#define GS_REDUCE_COMBINE_H

#include <stddef.h>

#include "gs_reduce_job.h"

/* Median seconds (slowest rank) of one all-reduce of the ranks' reference partials, device to
 * device, from the host's call to the result on every device; -1 where this build or backend has
 * no device collectives (why gets the reason). The combined result must match the reference of
 * the whole array as the MPI combine's does: *matched is 1 when it did on every rank (else 0, and job->failed is set).
 * Collective. */
double gs_reduce_combine_device(struct gs_reduce_job *job, int *matched, char *why, size_t why_size);

#endif
