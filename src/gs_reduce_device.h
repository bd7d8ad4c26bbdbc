/* gs_reduce_device.h: the reduce driver's device-resident path. */
#ifndef GS_REDUCE_DEVICE_H
#define GS_REDUCE_DEVICE_H

#include "gs_reduce_job.h"

/* Run, verify, combine and report every selected kernel on device-resident input (sets
 * job->failed on a wrong result). */
void gs_reduce_device_run(struct gs_reduce_job *job);

#endif
