/* gs_matmul_internal.cuh: shared by the matrix-multiply sources in cuda/ (CUDA C++ only, never
 * included from C): the cp.async helpers of the pipelined kernels (the SIMT kernel of
 * gs_matmul_kernels.cu and the tensor-core kernels of gs_matmul_tc.cu), the block order that
 * groups tile rows for L2, and the entry points of the tensor-core kernels (gs_matmul_tc.cu,
 * gs_matmul_wgmma.cu), called by gs_matmul_kernels_launch once it has checked the arguments. */
#ifndef GS_MATMUL_INTERNAL_CUH
#define GS_MATMUL_INTERNAL_CUH

#include <cstddef>

#include <cuda_runtime.h>

#include "gs_cuda.h"

/* cp.async of N bytes (4, 8 or 16) from global src to shared dst, of which the first src_bytes
 * are read and the rest zero-filled. Before Ampere: a plain copy (the pipeline still works,
 * without the overlap). */
template <int N> static __device__ __forceinline__ void gs_mm_cp_async(void *dst, const void *src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (N == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(src_bytes) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(N), "r"(src_bytes)
                 : "memory");
#else
  for (int b = 0; b < N; ++b)
    static_cast<char *>(dst)[b] = b < src_bytes ? static_cast<const char *>(src)[b] : 0;
#endif
}

static __device__ __forceinline__ void gs_mm_cp_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Wait until at most PENDING of this thread's committed copy groups are still in flight. */
template <int PENDING> static __device__ __forceinline__ void gs_mm_cp_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

/* This block's tile row and column: the grid's blocks in groups of `group` tile rows, down the
 * rows of a group first, then along its columns, so that the blocks running at one time share
 * A's rows and B's columns in L2 (row by row, a wave of blocks reads all of B). */
static __device__ __forceinline__ void gs_mm_tile(int group, int *tm, int *tn) {
  const long long gx = gridDim.x, gy = gridDim.y, lin = (long long)blockIdx.y * gx + blockIdx.x;
  const long long span = (long long)group * gx, first = lin / span * group;
  const long long rows = gy - first < group ? gy - first : group, in = lin % span;
  *tm = (int)(first + in % rows);
  *tn = (int)(in / rows);
}

/* GS_MK_DMMA (T = double, FP64 tensor cores) or GS_MK_TC32 (T = float, TF32 tensor cores):
 * C (m x n) = A (m x k) * B (k x n), or += with acc, row-major, on stream s. The arguments are
 * already checked (gs_matmul_kernels_launch: sizes, leading dimensions, pointers, dtype) and
 * m, n, k > 0. cudaErrorNotSupported on a device older than the kernel needs (sm_80; sm_90 for
 * the m16n8 FP64 shapes). Returns the launch's error. */
cudaError_t gs_matmul_tc_launch(const struct gs_cuda_ctx *c, int kernel, int m, int n, int k, const void *A, size_t lda,
                                const void *B, size_t ldb, void *C, size_t ldc, int acc, cudaStream_t s);

/* GS_MK_WGMMA: the same contract as above for float data on the TF32 tensor cores through wgmma
 * and TMA (gs_matmul_wgmma.cu); stages B^T (and A when its rows are not 16-byte aligned) in st's
 * workspace. cudaErrorNotSupported unless the build has sm_90a code and the device is CC 9.0. */
cudaError_t gs_matmul_wgmma_launch(struct gs_cuda_ctx *c, struct gs_matmul_state *st, int m, int n, int k,
                                   const float *A, size_t lda, const float *B, size_t ldb, float *C, size_t ldc,
                                   int acc, cudaStream_t s);

/* The workspace bytes gs_matmul_wgmma_launch needs for these arguments. */
size_t gs_matmul_wgmma_workspace(int m, int n, int k, const void *A, size_t lda);

#endif
