/* gs_reduce_internal.cuh: shared by the reduction sources in cuda/ (CUDA C++ only, never
 * included from C). Owns what the ladder (gs_reduce_ladder.cu) and the modern kernels plus the
 * dispatcher (gs_reduce_kernels.cu) have in common:
 *   - the combine operator and its identity, selected at compile time by the gs_op value;
 *   - the workspace layout shared by every kernel id;
 *   - warp and block reductions built on __shfl_down_sync;
 *   - the persistent-grid size (SMs x occupancy, cached) of kernels 7, 8 and 9;
 *   - the ladder's entry point, called by the dispatcher.
 * Accumulator types: long long for int inputs, double for float and double inputs (gs_types.h). */
#ifndef GS_REDUCE_INTERNAL_CUH
#define GS_REDUCE_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include <cuda/std/limits>

#include "gs_types.h"

/* Workspace layout, the same for every kernel id, so that one workspace sized for the largest
 * need can serve all kernels in turn: bytes [0, GS_WS_HEADER) hold onepass' arrival counter and
 * nothing else ever writes there; scratch (partials, CUB temp storage) starts at GS_WS_HEADER.
 * A kernel that needs no scratch for a given n needs no workspace at all (0 bytes). */
#define GS_WS_HEADER ((size_t)256)

/* Round up to 256 bytes: keeps every scratch array on its own cache lines, and CUB's temp storage
 * aligned the way CUB aligns its own allocations. */
static inline size_t gs_ws_align(size_t b) { return (b + 255) & ~(size_t)255; }

/* Combine two values under op OP. Written as compare-and-select, not fmin/fmax, so that MIN/MAX
 * return one of the operands bit for bit (the exact extreme element). */
template <int OP, typename A>
__device__ __forceinline__ A gs_combine(A a, A b)
{
  if constexpr (OP == GS_OP_SUM)
    return a + b;
  else if constexpr (OP == GS_OP_MIN)
    return b < a ? b : a;
  else
    return a < b ? b : a;
}

/* Neutral element of OP in type V, used to pad threads and blocks that hold no data. For
 * floating types MIN/MAX use +-infinity, so that an input of infinities still returns itself;
 * n == 0 never reaches a kernel (the dispatcher writes gs_empty_result there). */
template <int OP, typename V>
__host__ __device__ constexpr V gs_identity()
{
  if constexpr (OP == GS_OP_SUM)
    return V(0);
  else if constexpr (OP == GS_OP_MIN)
    return cuda::std::numeric_limits<V>::has_infinity ? cuda::std::numeric_limits<V>::infinity()
                                                      : cuda::std::numeric_limits<V>::max();
  else
    return cuda::std::numeric_limits<V>::has_infinity ? -cuda::std::numeric_limits<V>::infinity()
                                                      : cuda::std::numeric_limits<V>::lowest();
}

/* Sum of a warp's 32 values into lane 0, in a fixed tree order. */
template <int OP, typename A>
__device__ __forceinline__ A gs_warp_reduce(A v)
{
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = gs_combine<OP>(v, __shfl_down_sync(0xffffffffu, v, off));
  return v;
}

/* Block reduction into thread 0 (other threads get garbage). blockDim.x is a multiple of 32, at
 * most 1024. Warps reduce by shuffles, lane 0 of each parks its value in shared memory, warp 0
 * reduces those. The caller must __syncthreads() before calling this twice in one kernel. */
template <int OP, typename A>
__device__ __forceinline__ A gs_block_reduce(A v)
{
  __shared__ A warp_part[32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  v = gs_warp_reduce<OP>(v);
  if (lane == 0) warp_part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? warp_part[lane] : gs_identity<OP, A>();
    v = gs_warp_reduce<OP>(v);
  }
  return v;
}

/* Devices whose occupancy figures gs_persistent_grid caches (more still work, uncached). */
#define GS_MAX_DEVICES 64

/* Persistent grid for a kernel (kernels 7, 8, 9): SM count x resident blocks per SM at this block
 * size. The SM count is read every call (a cheap attribute read); the occupancy answer, which has
 * to look up the kernel's attributes, is cached per kernel, device and block size, because at 2^20
 * elements each microsecond of host time per call shows. Racing threads store the same value. */
template <auto Kernel>
static cudaError_t gs_persistent_grid(int block, uint64_t *grid)
{
  static std::atomic<int> cache[GS_MAX_DEVICES][6];
  int dev = 0, sms = 0, per_sm = 0, lg = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e != cudaSuccess) return e;
  while ((32 << lg) < block) ++lg;
  if (dev < GS_MAX_DEVICES) per_sm = cache[dev][lg].load(std::memory_order_relaxed);
  if (per_sm == 0) {
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, block, 0);
    if (e != cudaSuccess) return e;
    if (per_sm < 1) per_sm = 1;
    if (dev < GS_MAX_DEVICES) cache[dev][lg].store(per_sm, std::memory_order_relaxed);
  }
  *grid = (uint64_t)sms * (uint64_t)per_sm;
  return cudaSuccess;
}

/* The seed ladder, kernels 1..7 (gs_reduce_ladder.cu). With need != NULL it only stores the
 * workspace bytes the call would use and launches nothing; otherwise it checks ws_bytes against
 * that and launches on `stream`. n >= 1, block is a valid power of two: the dispatcher checked. */
cudaError_t gs_ladder_reduce(int kernel, int dtype, int op, const void *d_in, uint64_t n,
                             void *d_ws, size_t ws_bytes, void *d_out, int block,
                             cudaStream_t stream, size_t *need);

#endif
