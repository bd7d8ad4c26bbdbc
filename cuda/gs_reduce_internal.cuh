/* gs_reduce_internal.cuh: shared by the reduction sources in cuda/ (CUDA C++ only, never
 * included from C). Owns what the ladder (gs_reduce_ladder.cu) and the modern kernels plus the
 * dispatcher (gs_reduce_kernels.cu) have in common:
 *   - the combine operator and its identity, selected at compile time by the gs_op value (the
 *     identity is gs_acc_identity of gs_acc.h, the one every backend uses);
 *   - the workspace layout shared by every kernel id;
 *   - warp and block reductions built on __shfl_down_sync;
 *   - the persistent-grid size (SMs x occupancy, from the launch context) of kernels 7, 8 and 9;
 *   - the ladder's entry point, called by the dispatcher.
 * Accumulator types: long long for int inputs, double for float and double inputs (gs_types.h). */
#ifndef GS_REDUCE_INTERNAL_CUH
#define GS_REDUCE_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include "gs_acc.h"
#include "gs_cuda.h"

/* Workspace layout, the same for every kernel id, so that one workspace sized for the largest
 * need can serve all kernels in turn: bytes [0, GS_RD_WS_HEADER) hold onepass' arrival counter and
 * nothing else ever writes there; scratch (partials, CUB temp storage) starts at GS_RD_WS_HEADER.
 * A kernel that needs no scratch for a given n needs no workspace at all (0 bytes). */
#define GS_RD_WS_HEADER ((size_t)256)

/* Round up to 256 bytes: keeps every scratch array on its own cache lines, and CUB's temp storage
 * aligned the way CUB aligns its own allocations. */
static inline size_t gs_rd_ws_align(size_t b) { return (b + 255) & ~(size_t)255; }

/* Combine two values under op OP. Written as compare-and-select, not fmin/fmax, so that MIN/MAX
 * return one of the operands bit for bit (the exact extreme element): gs_acc_combine's rule,
 * here for any type, because kernels 8 and 9 also combine elements before they widen them. */
template <int OP, typename A>
__device__ __forceinline__ A gs_rd_combine(A a, A b)
{
  if constexpr (OP == GS_OP_SUM)
    return a + b;
  else if constexpr (OP == GS_OP_MIN)
    return b < a ? b : a;
  else
    return a < b ? b : a;
}

/* Neutral element of OP in type V, used to pad threads and blocks that hold no data:
 * gs_acc_identity (0; +-infinity for doubles, so that an input of infinities still returns itself;
 * the int64 extremes for ints). V is an accumulator type (long long, double), or, in the MIN/MAX
 * thread accumulators of kernels 8 and 9 (gs_rd_tacc_t in gs_reduce_kernels.cu), the element type
 * itself. For float that is the same value (0 and +-infinity are exact in float and widen back
 * unchanged). An int cannot hold the int64 extremes: it gets them saturated, INT32_MAX / INT32_MIN,
 * which widen to values that are no int64 identity but are neutral for every value an int32 input
 * can put into the accumulator; and the padding never is the result, since a kernel always sees
 * at least one element (n == 0 never reaches a kernel: the dispatcher writes gs_acc_identity). */
template <int OP, typename V>
static __host__ __device__ __forceinline__ V gs_rd_identity()
{
  if constexpr (cuda::std::is_same_v<V, long long>) {
    return gs_acc_identity(GS_DTYPE_INT32, OP).i;
  } else if constexpr (cuda::std::is_same_v<V, double>) {
    return gs_acc_identity(GS_DTYPE_DOUBLE, OP).d;
  } else if constexpr (cuda::std::is_same_v<V, float>) {
    return (float)gs_acc_identity(GS_DTYPE_FLOAT, OP).d;
  } else {
    static_assert(cuda::std::is_same_v<V, int>, "gs_rd_identity: an accumulator or element type");
    const long long a = gs_acc_identity(GS_DTYPE_INT32, OP).i;
    constexpr int hi = cuda::std::numeric_limits<int>::max(), lo = cuda::std::numeric_limits<int>::lowest();
    return a > hi ? hi : a < lo ? lo : (int)a;
  }
}

/* Sum of a warp's 32 values into lane 0, in a fixed tree order. */
template <int OP, typename A>
__device__ __forceinline__ A gs_rd_warp_reduce(A v)
{
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = gs_rd_combine<OP>(v, __shfl_down_sync(0xffffffffu, v, off));
  return v;
}

/* Block reduction into thread 0 (other threads get garbage). blockDim.x is a multiple of 32, at
 * most 1024. Warps reduce by shuffles, lane 0 of each parks its value in shared memory, warp 0
 * reduces those. The caller must __syncthreads() before calling this twice in one kernel. */
template <int OP, typename A>
__device__ __forceinline__ A gs_rd_block_reduce(A v)
{
  __shared__ A warp_part[32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  v = gs_rd_warp_reduce<OP>(v);
  if (lane == 0) warp_part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? warp_part[lane] : gs_rd_identity<OP, A>();
    v = gs_rd_warp_reduce<OP>(v);
  }
  return v;
}

/* Persistent grid for a kernel (kernels 7, 8, 9): SM count x resident blocks per SM at this block
 * size, both from the launch context c (read once per device and remembered there: at 2^20
 * elements each microsecond of host time per call shows). */
template <auto Kernel>
static cudaError_t gs_rd_persistent_grid(struct gs_cuda_ctx *c, int block, uint64_t *grid)
{
  int per_sm = 0;
  const cudaError_t e = (cudaError_t)gs_cuda_ctx_occupancy(c, (const void *)Kernel, block, &per_sm);
  if (e != cudaSuccess) return e;
  *grid = (uint64_t)c->sm_count * (uint64_t)per_sm;
  return cudaSuccess;
}

/* The seed ladder, kernels 1..7 (gs_reduce_ladder.cu). With need != NULL it only stores the
 * workspace bytes the call would use and launches nothing; otherwise it checks ws_bytes against
 * that and launches on `stream`. n >= 1, block is a valid power of two, c is not NULL: the
 * dispatcher checked. C linkage, like every entry point in cuda/, so its symbol is its name. */
extern "C" cudaError_t gs_reduce_ladder_launch(struct gs_cuda_ctx *c, int kernel, int dtype, int op,
                                               const void *d_in, uint64_t n, void *d_ws, size_t ws_bytes,
                                               void *d_out, int block, cudaStream_t stream, size_t *need);

#endif
