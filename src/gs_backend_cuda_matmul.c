/* gs_backend_cuda_matmul.c: the CUDA backend's matrix-multiply primitive over the launcher of
 * cuda/gs_matmul_kernels.cu, and its kernel list: the seed 003 ladder, ours (simt; dmma, double
 * only, and tc32 and wgmma, tf32 only, on the tensor cores), and cuBLAS (only in a build with cuBLAS:
 * without it the rows are absent, so no driver can ask for them). */
#include <config.h>

#include "gs_backend_cuda.h"

#define GS_FD (GS_KERNEL_FLOAT | GS_KERNEL_DOUBLE)

static const struct gs_kernel gs_cuda_matmul_kernels[] = {
    {"global", "1 thread/output, global memory", GS_MK_GLOBAL, GS_KERNEL_LADDER | GS_FD},
    {"smem1", "32x32 shared tiles, column access", GS_MK_SMEM1, GS_KERNEL_LADDER | GS_FD},
    {"smem2", "+ padded [32][33] tiles", GS_MK_SMEM2, GS_KERNEL_LADDER | GS_FD},
    {"smem3", "+ row-major tile access", GS_MK_SMEM3, GS_KERNEL_LADDER | GS_FD},
    {"smem4", "+ 2 outputs/thread", GS_MK_SMEM4, GS_KERNEL_LADDER | GS_FD},
    {"smem5", "+ 4 outputs/thread", GS_MK_SMEM5, GS_KERNEL_LADDER | GS_FD},
    {"simt", "warp-tiled, 8x8/thread, packed tiles", GS_MK_SIMT, GS_FD | GS_KERNEL_STAGED},
    {"dmma", "FP64 tensor cores, mma.sync, cp.async", GS_MK_DMMA, GS_KERNEL_DOUBLE},
    {"tc32", "TF32 tensor cores, mma.sync, cp.async", GS_MK_TC32, GS_KERNEL_TF32 | GS_KERNEL_FLOAT},
    {"wgmma", "TF32 tensor cores, wgmma, TMA (sm_90a)", GS_MK_WGMMA,
     GS_KERNEL_TF32 | GS_KERNEL_FLOAT | GS_KERNEL_STAGED},
#ifdef GS_HAVE_CUBLAS
    {"cublas", "cuBLAS SGEMM/DGEMM (baseline)", GS_MK_CUBLAS, GS_KERNEL_BASELINE | GS_FD},
    {"cublas-tf32", "cuBLAS TF32 tensor cores (baseline)", GS_MK_CUBLAS_TF32,
     GS_KERNEL_BASELINE | GS_KERNEL_TF32 | GS_KERNEL_FLOAT},
#endif
};

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
    .kernels = gs_cuda_matmul_kernels,
    .count = sizeof gs_cuda_matmul_kernels / sizeof *gs_cuda_matmul_kernels,
    .gemm = gs_cuda_matmul_gemm,
    .release = gs_cuda_matmul_release,
};
