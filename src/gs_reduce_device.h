/* gs_reduce_device.h: the reduce driver's device-resident path. */
#ifndef GS_REDUCE_DEVICE_H
#define GS_REDUCE_DEVICE_H

#include "gs_bench.h"
#include "gs_reduce_job.h"

/* Run, verify, combine and report every selected kernel (b's mask) on device-resident input over
 * the harness b (sets job->failed on a wrong result). */
void gs_reduce_device_run(struct gs_reduce_job *job, struct gs_bench *b);

#endif
