/* gs_acc.h: the accumulator of a reduction and its algebra, the one definition shared by the
 * CPU backend, the CPU reference, the drivers and the CUDA kernels (host and device code alike).
 * An accumulator is int64 for int32 inputs and double for float and double inputs (gs_types.h). */
#ifndef GS_ACC_H
#define GS_ACC_H

#include <math.h>
#include <stdint.h>

#include "gs_types.h"

#ifdef __CUDACC__
#define GS_ACC_HD __host__ __device__
#else
#define GS_ACC_HD
#endif

/* The identity of op in the accumulator type: 0 for sums; for min and max the accumulator's
 * extreme, +-infinity for doubles (so an input of infinities still returns itself) and the
 * int64 extremes for ints. It is also the result of reducing nothing, on every backend. */
static inline GS_ACC_HD union gs_acc gs_acc_identity(int dtype, int op) {
  union gs_acc a;
  if (dtype == GS_DTYPE_INT32) a.i = op == GS_OP_SUM ? 0 : op == GS_OP_MIN ? INT64_MAX : INT64_MIN;
  else a.d = op == GS_OP_SUM ? 0.0 : op == GS_OP_MIN ? (double)INFINITY : -(double)INFINITY;
  return a;
}

/* a op b. Compare-and-select for min and max, so the result is one operand bit for bit. */
static inline GS_ACC_HD union gs_acc gs_acc_combine(int dtype, int op, union gs_acc a, union gs_acc b) {
  union gs_acc r;
  if (dtype == GS_DTYPE_INT32)
    r.i = op == GS_OP_SUM ? a.i + b.i : op == GS_OP_MIN ? (b.i < a.i ? b.i : a.i) : (a.i < b.i ? b.i : a.i);
  else
    r.d = op == GS_OP_SUM ? a.d + b.d : op == GS_OP_MIN ? (b.d < a.d ? b.d : a.d) : (a.d < b.d ? b.d : a.d);
  return r;
}

#endif
