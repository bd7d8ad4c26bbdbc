/* gs_nbody_forces.h: one force evaluation of an N-body job. */
#ifndef GS_NBODY_FORCES_H
#define GS_NBODY_FORCES_H

#include "gs_nbody_job.h"

/* Force arguments for this job: targets = this rank's slice, sources [j_first, +j_count). */
struct gs_nbody_force_args gs_nbody_forces_args(const struct gs_nbody_job *job, int kernel, uint64_t j_first,
                                                uint64_t j_count, int accumulate, int potential);

/* Forces for a on queue q: grows the workspace to what a needs (a synchronisation, only the
 * first time a bigger one is needed), points a at it and launches; empty ranges do nothing. */
void gs_nbody_forces_run(struct gs_nbody_job *job, struct gs_nbody_force_args *a, gs_queue *q);

#endif
