/* gs_types.h: small value types shared by host C, the backends and the CUDA launchers.
 * Plain C, no CUDA types, so cuda/gs_cuda.h and every .c file can include it. */
#ifndef GS_TYPES_H
#define GS_TYPES_H

#include <stdint.h>

/* Element type of a reduction input. */
enum gs_dtype { GS_DTYPE_INT32 = 0, GS_DTYPE_FLOAT = 1, GS_DTYPE_DOUBLE = 2, GS_DTYPE_COUNT };

/* Reduction operator. */
enum gs_op { GS_OP_SUM = 0, GS_OP_MIN = 1, GS_OP_MAX = 2, GS_OP_COUNT };

/* Accumulator / result of one reduction: int64 for int32 inputs (sums of 2^30 ints overflow
 * 32 bits), double for float and double inputs (float sums accumulate in double). */
union gs_acc {
  int64_t i;
  double d;
};

/* Bytes of one element of the given type. */
static inline unsigned gs_dtype_size(enum gs_dtype t) { return t == GS_DTYPE_DOUBLE ? 8u : 4u; }

#endif
