/* gs_matmul_check.h: is a product right? Every run checks every kernel's C:
 *   --ic seed:   every element against the exact closed form (gs_matmul_ref_seed);
 *   --ic random: Freivalds' test of the whole product (C x against A (B x) in double, for
 *                GS_MATMUL_FREIVALDS_VECTORS random x, distributed: each rank its blocks, the
 *                partial sums combined with MPI_Allreduce) and sampled entries of each rank's
 *                block against a double dot product (exact for these inputs).
 * Tolerances are worst-case bounds, so a right result never fails: an element may be off by
 * (gamma_K + 2 u_in) sum_k |a_ik| |b_kj|, gamma_K = K u / (1 - K u), u the accumulation's unit
 * roundoff (2^-24 float, 2^-53 double, 2^-23 tf32: tensor cores may truncate), u_in the inputs'
 * rounding (tf32: 2^-10 when an input has more than 11 significant bits, else 0); zero when the
 * inputs are exact and every partial sum is an integer the type holds exactly (the seed's
 * matrices in double). */
#ifndef GS_MATMUL_CHECK_H
#define GS_MATMUL_CHECK_H

#include <stddef.h>

#include "gs_matmul_job.h"

#define GS_MATMUL_CHECK_SAMPLES 16 /* sampled entries per rank */

/* The factor f of the bound f * sum_k |a||b| for this job (0 where the result is exact), with
 * *exact_below: the largest sum_k |a||b| for which it is exact (0: never). */
double gs_matmul_check_factor(const struct gs_matmul_job *job, double *exact_below);

/* One line for the run header: what is checked and how loosely. */
void gs_matmul_check_describe(const struct gs_matmul_job *job, char *out, size_t size);

/* Check this rank's C (copied down from the device into job->hC) of `kernel`; collective.
 * Prints a mismatch to stderr (the rank's first), returns 1 when every rank passed, else 0 with
 * job->failed set. GPUSIM_TEST_CORRUPT_RESULT=1 (job->corrupt) first makes one element of the
 * last rank's block wrong by far more than any tolerance, so tests can prove FAILED and exit 1. */
int gs_matmul_check_verify(struct gs_matmul_job *job, const char *kernel);

#endif
