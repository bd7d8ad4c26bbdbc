/* gs_reduce.h: `gpusim reduce`, its kernel names, input generator and CPU reference. */
#ifndef GS_REDUCE_H
#define GS_REDUCE_H

#include <stdint.h>

#include "../cuda/gs_cuda.h"
#include "gs_error.h"
#include "gs_types.h"

#define GS_RK_OMP GS_RK_COUNT        /* the CPU backend's OpenMP reduction */
#define GS_RK_LAST (GS_RK_COUNT + 1) /* one past the last kernel id */

struct gs_run;

/* Name of kernel id k ("1".."7", "vec", "onepass", "cub", "omp"). */
const char *gs_reduce_kernel_name(int k);
/* A longer description for tables ("interleaved %", ...). */
const char *gs_reduce_kernel_title(int k);
/* "int", "float", "double"; "sum", "min", "max" (the --type and --op spellings). */
const char *gs_reduce_type_name(enum gs_dtype t);
const char *gs_reduce_op_name(enum gs_op op);
/* Parse "all" or a comma list of ids and names into a bit mask (bit k = kernel id k). */
int gs_reduce_kernel_mask(const char *list, unsigned *mask, struct gs_msg *msg);

/* Fill buf with elements [first, first+count) of the global input sequence for seed: the same
 * global index gives the same value whatever the rank count. ints are uniform in
 * [-2^20, 2^20]; floats and doubles are uniform in [-1, 1] on a 2^-20 grid, so every double
 * partial sum of up to 2^32 of them is exact and any summation order gives the same result. */
void gs_reduce_fill(void *buf, enum gs_dtype t, uint64_t first, uint64_t count, uint64_t seed);

/* Independent reference of a slice on the CPU: int64 sums, Neumaier-compensated long double sums
 * for floats, exact min/max. Also returns sum |x| (for the float error bound). */
union gs_acc gs_reduce_reference(const void *buf, enum gs_dtype t, enum gs_op op, uint64_t n, double *abs_sum);

/* Identity of op for type t as an accumulator. */
union gs_acc gs_reduce_identity(enum gs_dtype t, enum gs_op op);

/* The `gpusim reduce` subcommand. Returns an exit status. */
int gs_reduce_main(struct gs_run *run);

#endif
