/* gs_backend_cuda_matmul.c: the CUDA backend's matrix-multiply primitive over the launcher of
 * cuda/gs_matmul_kernels.cu; its kernel list (the seed 003 ladder, ours, and cuBLAS, which only a
 * build with cuBLAS runs) is in gs_backend_cuda_names.c, which every build has. */
#include <config.h>

#include "gs_backend_cuda.h"

/* The list (gs_backend_cuda_names.c) holds every matmul kernel, one per id, the two cuBLAS rows
 * last: without cuBLAS the sub-table stops before them, so no driver can ask for them. */
#ifdef GS_HAVE_CUBLAS
#define GS_CUDA_MATMUL_COUNT (GS_MK_COUNT - 1)
#else
#define GS_CUDA_MATMUL_COUNT (GS_MK_COUNT - 3)
#endif

/* The launcher returns a cudaError_t or a cuBLAS status (gs_cuda.h): GS_CHECK_CUDA's check, with
 * gs_matmul_kernels_error_string to name either. */
static void gs_cuda_matmul_gemm(gs_ctx *c, int kernel, int dtype, uint64_t m, uint64_t n, uint64_t k, const void *A,
                                uint64_t lda, const void *B, uint64_t ldb, void *C, uint64_t ldc, int accumulate,
                                gs_queue *q) {
  const int e = gs_matmul_kernels_launch(&c->cu, &c->mm, kernel, dtype, m, n, k, A, lda, B, ldb, C, ldc, accumulate, q);
  if (e != 0) GS_DIE(&c->where, "gs_matmul_kernels_launch", gs_matmul_kernels_error_string(e));
}

/* What gemm made on first use (the cuBLAS handle, the staging workspace), freed here, by the
 * sub-table that made it; the next gemm makes them again. */
static void gs_cuda_matmul_release(gs_ctx *c) {
  const int e = gs_matmul_kernels_free(&c->mm);
  if (e != 0) GS_DIE(&c->where, "gs_matmul_kernels_free", gs_matmul_kernels_error_string(e));
}

const struct gs_matmul_ops gs_backend_cuda_matmul_ops = {
    .kernels = gs_backend_cuda_names_matmul,
    .count = GS_CUDA_MATMUL_COUNT,
    .gemm = gs_cuda_matmul_gemm,
    .release = gs_cuda_matmul_release,
};
