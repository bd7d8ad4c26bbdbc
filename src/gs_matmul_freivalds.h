/* gs_matmul_freivalds.h: Freivalds' test of a distributed product: C x against A (B x), in
 * double, for GS_MATMUL_FREIVALDS_VECTORS random vectors x (|x_j| in [1/2, 1]). No rank holds a whole
 * matrix: B x is summed over each rank's B block and combined over all ranks (a K-vector), then
 * A (B x) and C x over each rank's A and C blocks (M-vectors, combined the same way); A and B
 * elements are made again from their indices (gs_matmul_ref.h), C is this rank's copy. */
#ifndef GS_MATMUL_FREIVALDS_H
#define GS_MATMUL_FREIVALDS_H

#include "gs_matmul_job.h"

#define GS_MATMUL_FREIVALDS_VECTORS 3 /* a wrong C passes each vector with chance < 1/2 */

/* Collective. C's elements may be off by f sum_k |a||b| (gs_matmul_check_factor). Returns 1 when
 * every row i of this rank's block passes within (f + 3 (N + K) 2^-53) (|A| (|B| 1))_i (the
 * double evaluation of both sides included); else 0 with the first failing row's index, C x,
 * A (B x) and tolerance. */
int gs_matmul_freivalds_run(const struct gs_matmul_job *job, double f, uint64_t *row, double *got, double *want,
                            double *tol);

#endif
