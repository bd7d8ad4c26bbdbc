/* gs_reduce_kernels.cu: the reduction entry points of gs_cuda.h (gs_reduce_kernels_workspace,
 * gs_reduce_kernels_launch) and our modern kernels:
 *   8 "vec":     each thread of a persistent grid streams 16-byte vectors, GS_RD_VEC_UNROLL loads in
 *                flight per step, into a register accumulator; shuffle block reduction; one partial
 *                per block; a second, single-block launch reduces the partials into d_out.
 *   9 "onepass": the same main loop in one launch: the last block to arrive (an atomic counter in
 *                the workspace header) reduces all partials in index order and resets the counter.
 * The dispatcher validates arguments, handles n == 0, and routes kernels 1..7 to
 * gs_reduce_ladder.cu and kernel 10 to gs_reduce_cub.cu. Workspace layout: gs_reduce_internal.cuh.
 * Launch facts (SM count, occupancy) come from the caller's struct gs_cuda_ctx, so the workspace
 * query and the launch make the same plan when given the same context.
 *
 * Determinism: the grid depends only on (device, kernel, n, block); every thread reduces a fixed
 * set of elements in a fixed order; blocks and partials combine in fixed trees. No floating-point
 * atomics anywhere; onepass' only atomic counts arrivals and decides nothing about the value. */
#include <cuda/atomic>
#include <cuda/std/type_traits>

#include "gs_cuda.h"
#include "gs_reduce_cub.h"
#include "gs_reduce_internal.cuh"

/* 16-byte loads in flight per thread per loop step. Four keep 64-96 KB in flight per SM, two to
 * three times what Little's law asks of HBM3e at 4.8 TB/s. Measured on an H200: 2 and 8 are
 * within noise of 4 from 2^24 elements up; 2 is slower at 2^20. */
#ifndef GS_RD_VEC_UNROLL
#define GS_RD_VEC_UNROLL 4
#endif

/* gs_rd_vec_kernel and gs_rd_onepass_kernel carry no __launch_bounds__: ptxas then takes 30-34
 * registers and spills nothing, which fits blocks of 1024 threads (64 at most) at 75-100%
 * occupancy. Tried: __launch_bounds__(1024) squeezed ptxas into 32 registers with spills;
 * (1024, 1) and __maxnreg__(40) let it unroll further into 40-64 registers, spilling or halving
 * occupancy, for no gain. Should a later ptxas exceed 64, a 1024-thread launch fails and the
 * launcher reports it. */

/* The 16-byte vector of element type T. */
template <typename T>
using gs_rd_vec_t = cuda::std::conditional_t<sizeof(T) == 8, double2,
                                          cuda::std::conditional_t<cuda::std::is_same_v<T, int>, int4, float4>>;

/* A thread's private accumulator: the accumulator type for sums (int sums would overflow, float
 * sums must be exact), the element type itself for MIN/MAX (the extreme is exact in T, and that
 * saves a conversion per element: one at the end instead). */
template <int OP, typename T, typename A>
using gs_rd_tacc_t = cuda::std::conditional_t<OP == GS_OP_SUM, A, T>;

/* Combine the lanes of one vector: a two-level tree for four lanes, one step for two. */
template <int OP, typename T, typename A>
static __device__ __forceinline__ gs_rd_tacc_t<OP, T, A> gs_rd_fold(gs_rd_vec_t<T> v)
{
  using TA = gs_rd_tacc_t<OP, T, A>;
  if constexpr (sizeof(T) == 8)
    return gs_rd_combine<OP, TA>((TA)v.x, (TA)v.y);
  else
    return gs_rd_combine<OP, TA>(gs_rd_combine<OP, TA>((TA)v.x, (TA)v.y), gs_rd_combine<OP, TA>((TA)v.z, (TA)v.w));
}

/* Streaming 16-byte load: read once, so ask the caches to evict it first (ld.global.cs). */
template <typename V>
static __device__ __forceinline__ V gs_rd_ld_stream(const V *p)
{
  return __ldcs(p);
}

/* One thread's share of in[0, n), the main loop of kernels 8 and 9.
 * Split of the input: a scalar head up to the first 16-byte boundary (d_in is only element-
 * aligned: chunks of bigger arrays arrive here), nvec whole vectors, a scalar tail; head and tail
 * hold fewer than one vector each and go to the first threads of the grid.
 * The vectors are cut into tiles of blockDim.x * U; block b takes tiles b, b + gridDim.x, ... and
 * in each tile thread t loads vectors t, t + blockDim.x, ...: every load instruction is coalesced
 * across the warp, and the U loads are independent, so all are in flight before the first add.
 * The trip count is computed once, so the loop itself costs a pointer add and a counter. The
 * vectors past the last whole tile (fewer than one tile) are spread over the whole grid. */
template <int OP, typename T, typename A>
static __device__ __forceinline__ gs_rd_tacc_t<OP, T, A> gs_rd_vec_thread(const T *__restrict__ in, uint64_t n)
{
  using V = gs_rd_vec_t<T>;
  using TA = gs_rd_tacc_t<OP, T, A>;
  constexpr unsigned EPV = 16 / sizeof(T); /* elements per vector */
  constexpr unsigned U = GS_RD_VEC_UNROLL;
  const unsigned tid = threadIdx.x, bd = blockDim.x;
  const uint64_t gtid = (uint64_t)blockIdx.x * bd + tid;
  TA acc = gs_rd_identity<OP, TA>();

  const unsigned mis = (unsigned)(((uintptr_t)in & 15u) / sizeof(T));
  uint64_t head = mis ? EPV - mis : 0;
  if (head > n) head = n;
  const uint64_t nvec = (n - head) / EPV;
  const uint64_t tail0 = head + nvec * EPV;
  if (gtid < head) acc = gs_rd_combine<OP, TA>(acc, (TA)in[gtid]);
  if (gtid < n - tail0) acc = gs_rd_combine<OP, TA>(acc, (TA)in[tail0 + gtid]);

  const V *vin = reinterpret_cast<const V *>(in + head);
  const uint64_t tile = (uint64_t)bd * U;
  const uint64_t ntiles = nvec / tile;
  if (blockIdx.x < ntiles) {
    unsigned iters = (unsigned)((ntiles - 1 - blockIdx.x) / gridDim.x) + 1;
    const uint64_t step = (uint64_t)gridDim.x * tile;
    const V *p = vin + blockIdx.x * tile + tid;
    for (; iters; --iters, p += step) {
      V x[U];
#pragma unroll
      for (unsigned u = 0; u < U; ++u) x[u] = gs_rd_ld_stream(p + u * bd);
      TA s[U];
#pragma unroll
      for (unsigned u = 0; u < U; ++u) s[u] = gs_rd_fold<OP, T, A>(x[u]);
#pragma unroll
      for (unsigned w = 1; w < U; w *= 2)
#pragma unroll
        for (unsigned u = 0; u < U; u += 2 * w) s[u] = gs_rd_combine<OP, TA>(s[u], s[u + w]);
      acc = gs_rd_combine<OP, TA>(acc, s[0]);
    }
  }
  for (uint64_t i = ntiles * tile + gtid; i < nvec; i += (uint64_t)gridDim.x * bd)
    acc = gs_rd_combine<OP, TA>(acc, gs_rd_fold<OP, T, A>(gs_rd_ld_stream(vin + i)));
  return acc;
}

/* Thread 0's share of a block-wide reduction of m partials, read in index order: thread t takes
 * t, t + blockDim.x, ..., then the fixed block tree. Reads go to L2 (__ldcg): in onepass the
 * partials were written by other blocks of the same launch, and L1 is not coherent. */
template <int OP, typename A>
static __device__ __forceinline__ A gs_rd_partials(const A *partials, unsigned m)
{
  A v = gs_rd_identity<OP, A>();
  for (unsigned i = threadIdx.x; i < m; i += blockDim.x) v = gs_rd_combine<OP, A>(v, __ldcg(partials + i));
  return gs_rd_block_reduce<OP, A>(v);
}

/* 8 "vec", first launch: one partial per block (into d_out itself when the grid is one block). */
template <int OP, typename T, typename A>
static __global__ void gs_rd_vec_kernel(const T *__restrict__ in, uint64_t n, A *partials)
{
  const A b = gs_rd_block_reduce<OP, A>((A)gs_rd_vec_thread<OP, T, A>(in, n));
  if (threadIdx.x == 0) partials[blockIdx.x] = b;
}

/* 8 "vec", second launch: one block reduces the m partials into out. */
template <int OP, typename A>
static __global__ void __launch_bounds__(1024) gs_rd_vec_final_kernel(const A *partials, unsigned m, A *out)
{
  const A r = gs_rd_partials<OP, A>(partials, m);
  if (threadIdx.x == 0) *out = r;
}

/* 9 "onepass": each block publishes its partial and counts its arrival; the block that arrives
 * last reduces every partial in index order (not arrival order: deterministic), writes out and
 * resets the counter for the next launch on this workspace. */
template <int OP, typename T, typename A>
static __global__ void gs_rd_onepass_kernel(const T *__restrict__ in, uint64_t n, A *partials, unsigned *counter,
                                            A *out)
{
  __shared__ bool am_last;
  const A b = gs_rd_block_reduce<OP, A>((A)gs_rd_vec_thread<OP, T, A>(in, n));
  if (gridDim.x == 1) { /* a single block needs neither partials nor counter */
    if (threadIdx.x == 0) *out = b;
    return;
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = b;
    /* One acq_rel read-modify-write at device scope: its release half publishes our partial
     * before our arrival counts, its acquire half (in the last block) makes every partial
     * published before the earlier arrivals visible to us. Measured on an H200 it costs about
     * 0.3-0.4 us less per launch than __threadfence(); atomicAdd(); __threadfence(). */
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrivals(*counter);
    am_last = arrivals.fetch_add(1u, cuda::std::memory_order_acq_rel) == gridDim.x - 1;
  }
  /* Orders the rest of the last block after thread 0's acquire (and separates the two uses of
   * gs_rd_block_reduce's shared memory). */
  __syncthreads();
  if (!am_last) return;
  const A r = gs_rd_partials<OP, A>(partials, gridDim.x);
  if (threadIdx.x == 0) {
    *out = r;
    *counter = 0; /* nobody else touches it in this launch: the next launch finds it at zero */
  }
}

/* n == 0: write the result of an empty reduction. */
static __global__ void gs_rd_fill_acc_kernel(union gs_acc *out, union gs_acc v) { *out = v; }

/* ---- host side ------------------------------------------------------------------------------ */

/* Kernels 8 and 9 for one op and type pair: plan the grid, size or check the workspace, launch.
 * The grid is the persistent one, capped by the tiles the data has (at least one block), so small
 * inputs get no idle blocks and onepass at 2^20 runs in one short wave. */
template <int OP, typename T, typename A>
static cudaError_t gs_rd_modern_typed(struct gs_cuda_ctx *c, int kernel, const void *d_in, uint64_t n, void *d_ws,
                                      size_t ws_bytes, void *d_out, int block, cudaStream_t st, size_t *need)
{
  const T *in = (const T *)d_in;
  unsigned char *ws = (unsigned char *)d_ws;
  A *out = (A *)d_out;
  const bool onepass = kernel == GS_RK_ONEPASS;
  uint64_t grid = 0;
  cudaError_t e = onepass ? gs_rd_persistent_grid<gs_rd_onepass_kernel<OP, T, A>>(c, block, &grid)
                          : gs_rd_persistent_grid<gs_rd_vec_kernel<OP, T, A>>(c, block, &grid);
  if (e != cudaSuccess) return e;
  /* Blocks that have a whole tile of work (a slight overcount: head and tail are scalar). */
  const uint64_t tile = (uint64_t)block * GS_RD_VEC_UNROLL * (16 / sizeof(T));
  const uint64_t wanted = (n + tile - 1) / tile;
  if (grid > wanted) grid = wanted;
  if (grid < 1) grid = 1;

  const size_t bytes = grid > 1 ? GS_RD_WS_HEADER + grid * sizeof(A) : 0;
  if (need) { *need = bytes; return cudaSuccess; }
  if (ws_bytes < bytes || (bytes && !ws)) return cudaErrorInvalidValue;
  A *partials = grid > 1 ? (A *)(ws + GS_RD_WS_HEADER) : out;

  if (onepass) {
    gs_rd_onepass_kernel<OP, T, A><<<(unsigned)grid, block, 0, st>>>(in, n, partials, (unsigned *)ws, out);
  } else {
    gs_rd_vec_kernel<OP, T, A><<<(unsigned)grid, block, 0, st>>>(in, n, partials);
    if (grid > 1) gs_rd_vec_final_kernel<OP, A><<<1, block, 0, st>>>(partials, (unsigned)grid, out);
  }
  return cudaGetLastError();
}

template <typename T, typename A>
static cudaError_t gs_rd_modern_op(struct gs_cuda_ctx *c, int kernel, int op, const void *d_in, uint64_t n,
                                   void *d_ws, size_t ws_bytes, void *d_out, int block, cudaStream_t st,
                                   size_t *need)
{
  switch (op) {
  case GS_OP_SUM:
    return gs_rd_modern_typed<GS_OP_SUM, T, A>(c, kernel, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  case GS_OP_MIN:
    return gs_rd_modern_typed<GS_OP_MIN, T, A>(c, kernel, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  default:
    return gs_rd_modern_typed<GS_OP_MAX, T, A>(c, kernel, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  }
}

/* Kernel 10: CUB sizes its own temp storage; the workspace header stays ours. */
static cudaError_t gs_rd_dispatch_cub(int dtype, int op, const void *d_in, uint64_t n, void *d_ws, size_t ws_bytes,
                                      void *d_out, cudaStream_t st, size_t *need)
{
  size_t temp = 0;
  if (need) {
    const cudaError_t e = (cudaError_t)gs_reduce_cub_run(dtype, op, NULL, n, NULL, &temp, NULL, st);
    *need = GS_RD_WS_HEADER + temp;
    return e;
  }
  if (!d_ws || ws_bytes <= GS_RD_WS_HEADER) return cudaErrorInvalidValue;
  temp = ws_bytes - GS_RD_WS_HEADER;
  return (cudaError_t)gs_reduce_cub_run(dtype, op, d_in, n, (unsigned char *)d_ws + GS_RD_WS_HEADER, &temp, d_out, st);
}

/* Shared by both entry points so that the workspace they agree on comes from one plan: with need
 * != NULL it only sizes the workspace, otherwise it launches. */
static cudaError_t gs_rd_dispatch(struct gs_cuda_ctx *c, int kernel, int dtype, int op, const void *d_in,
                                  uint64_t n, void *d_ws, size_t ws_bytes, void *d_out, int block,
                                  cudaStream_t st, size_t *need)
{
  if (!c || kernel < GS_RK_INTERLEAVED || kernel >= GS_RK_COUNT) return cudaErrorInvalidValue;
  if (dtype < 0 || dtype >= GS_DTYPE_COUNT || op < 0 || op >= GS_OP_COUNT) return cudaErrorInvalidValue;
  if (kernel != GS_RK_CUB && (block < 32 || block > 1024 || (block & (block - 1)) != 0))
    return cudaErrorInvalidValue;
  if (!need && (!d_out || (n > 0 && !d_in))) return cudaErrorInvalidValue;

  if (n == 0) {
    if (need) { *need = 0; return cudaSuccess; }
    gs_rd_fill_acc_kernel<<<1, 1, 0, st>>>((union gs_acc *)d_out, gs_acc_identity(dtype, op));
    return cudaGetLastError();
  }
  if (kernel == GS_RK_CUB) return gs_rd_dispatch_cub(dtype, op, d_in, n, d_ws, ws_bytes, d_out, st, need);
  if (kernel <= GS_RK_MULTI)
    return gs_reduce_ladder_launch(c, kernel, dtype, op, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  switch (dtype) {
  case GS_DTYPE_INT32:
    return gs_rd_modern_op<int, long long>(c, kernel, op, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  case GS_DTYPE_FLOAT:
    return gs_rd_modern_op<float, double>(c, kernel, op, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  default:
    return gs_rd_modern_op<double, double>(c, kernel, op, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  }
}

/* Returns 0 for invalid arguments (gs_reduce_kernels_launch then fails with cudaErrorInvalidValue)
 * and when the call needs no scratch. For the same (kernel, dtype, op, block), a smaller n never
 * needs more, and a workspace sized for one kernel id may serve others up to its size. */
extern "C" size_t gs_reduce_kernels_workspace(struct gs_cuda_ctx *c, int kernel, int dtype, int op, uint64_t n,
                                              int block)
{
  size_t need = 0;
  if (gs_rd_dispatch(c, kernel, dtype, op, NULL, n, NULL, 0, NULL, block, 0, &need) != cudaSuccess) return 0;
  return need;
}

extern "C" int gs_reduce_kernels_launch(struct gs_cuda_ctx *c, int kernel, int dtype, int op, const void *d_in,
                                        uint64_t n, void *d_ws, size_t ws_bytes, void *d_out, int block,
                                        void *stream)
{
  return (int)gs_rd_dispatch(c, kernel, dtype, op, d_in, n, d_ws, ws_bytes, d_out, block, (cudaStream_t)stream,
                             NULL);
}
