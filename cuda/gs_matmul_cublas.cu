/* gs_matmul_cublas.cu: the cuBLAS baseline of gpusim matmul (gs_matmul_cublas_gemm, gs_cuda.h):
 * SGEMM, DGEMM, and SGEMM on the TF32 tensor cores (cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32:
 * float in and out, inputs rounded to TF32's 10-bit mantissa, float accumulation). Built only
 * where configure found cuBLAS (GS_HAVE_CUBLAS).
 *
 * Row-major through column-major cuBLAS: a row-major r x c matrix with leading dimension ld is,
 * read column-major with the same ld, its c x r transpose. So row-major C = A B is column-major
 * C^T = B^T A^T: gemm(n, m, k, B, ldb, A, lda, C, ldc), B first, nothing transposed or copied.
 *
 * The handle lives in the caller's matmul state (st->cublas), made on the first call and bound to the
 * caller's stream on every call (cublasSetStream), so calls on different streams each run on
 * their own. The default math mode: plain SGEMM stays FP32 (cuBLAS uses TF32 there only when asked
 * or through NVIDIA_TF32_OVERRIDE). A cuBLAS failure comes back as GS_MATMUL_CUBLAS_STATUS + its
 * cublasStatus_t (gs_cuda.h). */
#include <config.h>

#include <climits>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gs_cuda.h"
#include "gs_types.h"

static int gs_mm_cublas_status(cublasStatus_t st) {
  return st == CUBLAS_STATUS_SUCCESS ? 0 : GS_MATMUL_CUBLAS_STATUS + (int)st;
}

/* The handle of s, made now if s has none. */
static cublasStatus_t gs_mm_cublas_handle(struct gs_matmul_state *s, cublasHandle_t *h) {
  if (!s->cublas) {
    cublasHandle_t made = NULL;
    const cublasStatus_t st = cublasCreate(&made);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    s->cublas = made;
  }
  *h = static_cast<cublasHandle_t>(s->cublas);
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" int gs_matmul_cublas_free(struct gs_matmul_state *s) {
  if (!s || !s->cublas) return 0;
  const cublasStatus_t st = cublasDestroy(static_cast<cublasHandle_t>(s->cublas));
  s->cublas = NULL;
  return gs_mm_cublas_status(st);
}

/* The arguments were checked by gs_matmul_kernels_launch, which calls this for m, n, k >= 1; only
 * what would make the casts below wrong is checked again. */
extern "C" int gs_matmul_cublas_gemm(struct gs_matmul_state *s, int tf32, int dtype, uint64_t m, uint64_t n, uint64_t k,
                                     const void *A, uint64_t lda, const void *B, uint64_t ldb, void *C, uint64_t ldc,
                                     int accumulate, void *stream) {
  if (!s || (dtype != GS_DTYPE_FLOAT && dtype != GS_DTYPE_DOUBLE) || (tf32 && dtype != GS_DTYPE_FLOAT))
    return (int)cudaErrorInvalidValue;
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
    return (int)cudaErrorInvalidValue;
  if (m == 0 || n == 0) return (int)cudaSuccess;
  cublasHandle_t h;
  cublasStatus_t st = gs_mm_cublas_handle(s, &h);
  if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetStream(h, static_cast<cudaStream_t>(stream));
  if (st != CUBLAS_STATUS_SUCCESS) return gs_mm_cublas_status(st);
  const int M = (int)n, N = (int)m, K = (int)k; /* the column-major problem C^T = B^T A^T */
  if (dtype == GS_DTYPE_DOUBLE) {
    const double one = 1.0, beta = accumulate ? 1.0 : 0.0;
    st = cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, static_cast<const double *>(B), (int)ldb,
                     static_cast<const double *>(A), (int)lda, &beta, static_cast<double *>(C), (int)ldc);
  } else {
    const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
    if (tf32)
      st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, B, CUDA_R_32F, (int)ldb, A, CUDA_R_32F, (int)lda,
                        &beta, C, CUDA_R_32F, (int)ldc, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    else
      st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, static_cast<const float *>(B), (int)ldb,
                       static_cast<const float *>(A), (int)lda, &beta, static_cast<float *>(C), (int)ldc);
  }
  return gs_mm_cublas_status(st);
}
