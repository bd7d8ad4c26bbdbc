/* gs_backend_cpu_matmul.c: the CPU backend's matrix multiply, one OpenMP cache-blocked loop per
 * element type. Each thread owns blocks of rows of C; within a block, i-k-j order streams rows
 * of B and C (unit stride, vectorised with omp simd: a row of C never overlaps one of B), and k
 * and j are tiled so a tile of B stays in cache while a block of rows uses it. C accumulates in the element type, as a GPU
 * kernel's registers would: float results round like a float kernel's. */
#include <stdint.h>
#include <string.h>

#include "gs_backend_cpu.h"
#include "gs_types.h"

#define GS_CPU_MM_ROWS 16  /* rows of C per block (a thread's unit of work) */
#define GS_CPU_MM_KT 128   /* k per tile */
#define GS_CPU_MM_JT 512   /* columns per tile: a KT x JT tile of B is 256 KiB in float */

/* (_Pragma needs the whole directive as one literal.) */
#define GS_CPU_MM(T)                                                                                  \
  do {                                                                                                \
    const T *a = A, *b = B;                                                                           \
    T *cc = C;                                                                                        \
    _Pragma("omp parallel for schedule(static)")                                                      \
    for (uint64_t i0 = 0; i0 < m; i0 += GS_CPU_MM_ROWS) {                                             \
      uint64_t i1 = i0 + GS_CPU_MM_ROWS < m ? i0 + GS_CPU_MM_ROWS : m;                                \
      if (!accumulate)                                                                                \
        for (uint64_t i = i0; i < i1; i++) memset(cc + i * ldc, 0, n * sizeof(T));                    \
      for (uint64_t j0 = 0; j0 < n; j0 += GS_CPU_MM_JT) {                                             \
        uint64_t jn = n - j0 < GS_CPU_MM_JT ? n - j0 : GS_CPU_MM_JT;                                  \
        for (uint64_t k0 = 0; k0 < k; k0 += GS_CPU_MM_KT) {                                           \
          uint64_t k1 = k0 + GS_CPU_MM_KT < k ? k0 + GS_CPU_MM_KT : k;                                \
          for (uint64_t i = i0; i < i1; i++) {                                                        \
            T *restrict crow = cc + i * ldc + j0;                                                     \
            for (uint64_t kk = k0; kk < k1; kk++) {                                                   \
              const T aik = a[i * lda + kk], *restrict brow = b + kk * ldb + j0;                      \
              _Pragma("omp simd") for (uint64_t j = 0; j < jn; j++) crow[j] += aik * brow[j];         \
            }                                                                                         \
          }                                                                                           \
        }                                                                                             \
      }                                                                                               \
    }                                                                                                 \
  } while (0)

static void gs_cpu_matmul_gemm(gs_ctx *c, int kernel, int dtype, uint64_t m, uint64_t n, uint64_t k, const void *A,
                               uint64_t lda, const void *B, uint64_t ldb, void *C, uint64_t ldc, int accumulate,
                               gs_queue *q) {
  (void)c, (void)kernel, (void)q;
  if (dtype == GS_DTYPE_DOUBLE) GS_CPU_MM(double);
  else GS_CPU_MM(float);
}

/* One kernel; a NULL name ends the list (gs_backend.c reads it so, for --kernel's names). */
const struct gs_kernel gs_backend_cpu_matmul_kernels[] = {
    {"omp", "OpenMP, cache-blocked i-k-j", 0, GS_KERNEL_FLOAT | GS_KERNEL_DOUBLE | GS_KERNEL_INTERNAL},
    {NULL, NULL, 0, 0},
};

const struct gs_matmul_ops gs_backend_cpu_matmul_ops = {
    .kernels = gs_backend_cpu_matmul_kernels,
    .count = 1,
    .gemm = gs_cpu_matmul_gemm,
};
