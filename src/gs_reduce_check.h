/* gs_reduce_check.h: verification of a reduction's results against the CPU reference. */
#ifndef GS_REDUCE_CHECK_H
#define GS_REDUCE_CHECK_H

#include <stddef.h>

#include "gs_reduce_job.h"

/* The allowed |result - reference| for this job, given sum |x| over all ranks (0: exact). */
double gs_reduce_check_tolerance(const struct gs_reduce_job *job, double abs_sum);

/* Does result r match reference ref within job->tol? */
int gs_reduce_check_matches(const struct gs_reduce_job *job, union gs_acc r, union gs_acc ref);

/* An accumulator as text: an integer, or %.17g. */
void gs_reduce_check_format(char *out, size_t size, const struct gs_reduce_job *job, union gs_acc a);

/* Verify this rank's result of `kernel` against its slice's reference, and the results combined
 * with MPI_Allreduce against the whole array's (collective). A rank's mismatch is printed to
 * stderr; returns 1 when every rank matched, else 0 with job->failed set. The test hook
 * GPUSIM_TEST_CORRUPT_RESULT=1 (job->corrupt) makes the last rank's result wrong by one unit
 * first, so tests can prove that a wrong result prints FAILED and exits 1. */
int gs_reduce_check_verify(struct gs_reduce_job *job, union gs_acc mine, const char *kernel);

#endif
