/* gs_backend_cpu_reduce.c: the CPU backend's reduction, one OpenMP loop per (type, op). Sums of
 * ints are exact in int64 and float sums exact in double on our inputs, so the combination
 * order OpenMP picks cannot change the result. */
#include <stdint.h>
#include <string.h>

#include "gs_acc.h"
#include "gs_backend_cpu.h"

/* (_Pragma needs the whole directive as one literal, hence the PRAGMA argument.) */
#define GS_CPU_REDUCE(T, ACC, FIELD, PRAGMA, STEP)          \
  do {                                                      \
    const T *x = (const T *)in;                             \
    ACC acc = id.FIELD;                                     \
    _Pragma(PRAGMA) for (uint64_t i = 0; i < n; i++) STEP;  \
    res.FIELD = acc;                                        \
  } while (0)

#define GS_CPU_REDUCE_OPS(T, ACC, FIELD)                                                                      \
  switch (op) {                                                                                               \
  case GS_OP_SUM:                                                                                             \
    GS_CPU_REDUCE(T, ACC, FIELD, "omp parallel for schedule(static) reduction(+:acc)", acc += (ACC)x[i]);     \
    break;                                                                                                    \
  case GS_OP_MIN:                                                                                             \
    GS_CPU_REDUCE(T, ACC, FIELD, "omp parallel for schedule(static) reduction(min:acc)",                      \
                  acc = (ACC)x[i] < acc ? (ACC)x[i] : acc);                                                   \
    break;                                                                                                    \
  default:                                                                                                    \
    GS_CPU_REDUCE(T, ACC, FIELD, "omp parallel for schedule(static) reduction(max:acc)",                      \
                  acc = (ACC)x[i] > acc ? (ACC)x[i] : acc);                                                   \
    break;                                                                                                    \
  }

static void gs_cpu_reduce_run(gs_ctx *c, int kernel, int dtype, int op, const void *in, uint64_t n, void *ws,
                              size_t ws_bytes, void *out, gs_queue *q) {
  (void)c, (void)kernel, (void)ws, (void)ws_bytes, (void)q;
  union gs_acc res, id = gs_acc_identity(dtype, op);
  if (dtype == GS_DTYPE_INT32) GS_CPU_REDUCE_OPS(int32_t, int64_t, i)
  else if (dtype == GS_DTYPE_FLOAT) GS_CPU_REDUCE_OPS(float, double, d)
  else GS_CPU_REDUCE_OPS(double, double, d)
  memcpy(out, &res, sizeof res);
}

static size_t gs_cpu_reduce_workspace(gs_ctx *c, int kernel, int dtype, int op, uint64_t n) {
  (void)c, (void)kernel, (void)dtype, (void)op, (void)n;
  return 0;
}

/* One kernel; a NULL name ends the list (gs_backend.c reads it so, for --kernel's names). */
const struct gs_kernel gs_backend_cpu_reduce_kernels[] = {
    {"omp", "OpenMP on the host cores", 0, GS_KERNEL_INTERNAL},
    {NULL, NULL, 0, 0},
};

const struct gs_reduce_ops gs_backend_cpu_reduce_ops = {
    .kernels = gs_backend_cpu_reduce_kernels,
    .count = 1,
    .workspace = gs_cpu_reduce_workspace,
    .run = gs_cpu_reduce_run,
};
