/* gs_nbody_step.h: the N-body time-step loop. */
#ifndef GS_NBODY_STEP_H
#define GS_NBODY_STEP_H

#include "gs_nbody_job.h"

/* Advance from step job->step0 to --steps with the KDK leapfrog, printing diagnostics and
 * progress, writing snapshots and checkpoints; stops early (after a checkpoint) on a signal or
 * the wall-clock budget. Per-step times into times[0..]; returns the last step done. */
long gs_nbody_step_run(struct gs_nbody_job *job, struct gs_step_times *times);

#endif
