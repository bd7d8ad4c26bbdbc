/* gs_reduce_ref.h: the reduction's input generator and its independent CPU reference. */
#ifndef GS_REDUCE_REF_H
#define GS_REDUCE_REF_H

#include <stdint.h>

#include "gs_acc.h"

/* Fill buf with elements [first, first+count) of the global input sequence for seed: the same
 * global index gives the same value whatever the rank count. ints are uniform in
 * [-2^20, 2^20]; floats and doubles are uniform in [-1, 1] on a 2^-20 grid, so every double
 * partial sum of up to 2^32 of them is exact and any summation order gives the same result. */
void gs_reduce_ref_fill(void *buf, enum gs_dtype t, uint64_t first, uint64_t count, uint64_t seed);

/* Independent reference of a slice on the CPU: int64 sums, Neumaier-compensated long double sums
 * for floats, exact min/max (n = 0: gs_acc_identity). Also returns sum |x| (for the float error
 * bound). */
union gs_acc gs_reduce_ref_compute(const void *buf, enum gs_dtype t, enum gs_op op, uint64_t n, double *abs_sum);

#endif
