/* gs_nbody_ladder.h: the force-kernel table (seed 004's ladder, then ours). */
#ifndef GS_NBODY_LADDER_H
#define GS_NBODY_LADDER_H

#include <stddef.h>

#include "gs_nbody_job.h"

/* Time and verify every selected kernel (mask over job->kernels) on the initial positions,
 * with tolerance tol; prints the table (rank 0) and sets job->failed on a failed check. */
void gs_nbody_ladder_run(struct gs_nbody_job *job, unsigned mask, double tol);

/* The params column of an nbody result row: the run's settings, then extra. */
void gs_nbody_ladder_params(const struct gs_nbody_job *job, char *out, size_t size, const char *extra);

/* A simulation's per-step result row (rank 0; every solver writes one): the whole job's, of kernel,
 * its times the slowest rank's per-step statistics st over steps, its value rate interactions per
 * second, its params the run's settings then extra (which starts "phase=step"). */
void gs_nbody_ladder_step_row(struct gs_nbody_job *job, const char *kernel, const struct gs_stats *st, int steps,
                              double rate, const char *extra);

/* The slowest rank's per-step statistics (a collective: every rank calls it) of the columns total,
 * part[0..nparts-1], the exchange where exchange is set, and the rest (total less those). */
void gs_nbody_ladder_step_stats(const struct gs_run *run, const struct gs_step_times *times, int steps, int nparts,
                                int exchange, struct gs_stats *st);

#endif
