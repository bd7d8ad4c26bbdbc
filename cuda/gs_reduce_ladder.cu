/* gs_reduce_ladder.cu: the seed reduction ladder, kernels 1..7 (SEEDS.md section 1, after Mark
 * Harris, "Optimizing Parallel Reduction in CUDA"), reproduced step by step so that each step's
 * gain can be measured, plus their host-side planning and launching (gs_reduce_ladder_launch).
 *
 * Differences from the seed, all for correctness, none for speed:
 *   - any element type and op: shared memory holds the accumulator type A (long long for int
 *     inputs, double for float and double) and the "+=" is gs_rd_combine<OP>;
 *   - any n: out-of-range loads read the identity; indices are 64-bit;
 *   - the unrolled last warp (5, 6, 7) is Volta-safe: `volatile` shared memory, each step guarded
 *     by `tid < s` so that no lane reads a slot another lane writes in the same step, and a
 *     __syncwarp() between steps instead of the seed's implicit warp synchrony;
 *   - partials stay on the device: kernels 1..6 are applied again (T = A) to their per-block
 *     partials until one value is left, which the last launch writes into d_out; kernel 7 runs a
 *     fixed, GPU-sized grid and then one block of itself over the partials. */
#include "gs_cuda.h"
#include "gs_reduce_internal.cuh"

/* Dynamic shared memory of the runtime-block-size kernels (1..5), viewed as type A. */
template <typename A>
static __device__ __forceinline__ A *gs_rd_ladder_smem()
{
  extern __shared__ __align__(16) unsigned char gs_rd_ladder_smem_raw[];
  return reinterpret_cast<A *>(gs_rd_ladder_smem_raw);
}

/* Load element i converted to A, or the identity past the end. */
template <int OP, typename T, typename A>
static __device__ __forceinline__ A gs_rd_ladder_load(const T *in, uint64_t i, uint64_t n)
{
  return i < n ? (A)in[i] : gs_rd_identity<OP, A>();
}

/* The seed's unrolled last warp, Volta-safe. bs is the block size (a compile-time constant in
 * kernels 6 and 7, blockDim.x in kernel 5); the +32 step exists only for blocks of 64 or more.
 * Called by all 32 lanes of warp 0, so the full-mask __syncwarp() is legal. */
template <int OP, typename A>
static __device__ __forceinline__ void gs_rd_ladder_last_warp(volatile A *sdata, unsigned tid, unsigned bs)
{
  if (bs >= 64) { if (tid < 32) sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 32]); } __syncwarp();
  if (bs >= 32) { if (tid < 16) sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 16]); } __syncwarp();
  if (bs >= 16) { if (tid < 8)  sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 8]); }  __syncwarp();
  if (bs >= 8)  { if (tid < 4)  sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 4]); }  __syncwarp();
  if (bs >= 4)  { if (tid < 2)  sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 2]); }  __syncwarp();
  if (bs >= 2)  { if (tid < 1)  sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 1]); }
}

/* 1: interleaved addressing, tid % (2*s): divergent warps and a slow modulo. */
template <int OP, typename T, typename A>
static __global__ void gs_rd_reduce1(const T *g_idata, uint64_t n, A *g_odata)
{
  A *sdata = gs_rd_ladder_smem<A>();
  unsigned int tid = threadIdx.x;
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = gs_rd_ladder_load<OP, T, A>(g_idata, i, n);
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* 2: interleaved addressing with a strided index: no divergence, but bank conflicts. */
template <int OP, typename T, typename A>
static __global__ void gs_rd_reduce2(const T *g_idata, uint64_t n, A *g_odata)
{
  A *sdata = gs_rd_ladder_smem<A>();
  unsigned int tid = threadIdx.x;
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = gs_rd_ladder_load<OP, T, A>(g_idata, i, n);
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] = gs_rd_combine<OP, A>(sdata[index], sdata[index + s]);
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* 3: sequential addressing: conflict-free, but half the threads idle from the first step. */
template <int OP, typename T, typename A>
static __global__ void gs_rd_reduce3(const T *g_idata, uint64_t n, A *g_odata)
{
  A *sdata = gs_rd_ladder_smem<A>();
  unsigned int tid = threadIdx.x;
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = gs_rd_ladder_load<OP, T, A>(g_idata, i, n);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* 4: first add during the global load: each thread loads two elements, half the blocks. */
template <int OP, typename T, typename A>
static __global__ void gs_rd_reduce4(const T *g_idata, uint64_t n, A *g_odata)
{
  A *sdata = gs_rd_ladder_smem<A>();
  unsigned int tid = threadIdx.x;
  uint64_t i = (uint64_t)blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = gs_rd_combine<OP, A>(gs_rd_ladder_load<OP, T, A>(g_idata, i, n),
                                    gs_rd_ladder_load<OP, T, A>(g_idata, i + blockDim.x, n));
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* 5: as 4, with the last warp unrolled: no __syncthreads() once s <= 32. */
template <int OP, typename T, typename A>
static __global__ void gs_rd_reduce5(const T *g_idata, uint64_t n, A *g_odata)
{
  A *sdata = gs_rd_ladder_smem<A>();
  unsigned int tid = threadIdx.x;
  uint64_t i = (uint64_t)blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = gs_rd_combine<OP, A>(gs_rd_ladder_load<OP, T, A>(g_idata, i, n),
                                    gs_rd_ladder_load<OP, T, A>(g_idata, i + blockDim.x, n));
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid < 32) gs_rd_ladder_last_warp<OP, A>(sdata, tid, blockDim.x);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* The seed's completely unrolled tree for a compile-time block size (kernels 6 and 7). */
template <int OP, typename A, unsigned int blockSize>
static __device__ __forceinline__ void gs_rd_ladder_unrolled_tree(A *sdata, unsigned int tid)
{
  if (blockSize >= 1024) { if (tid < 512) { sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 512]); } __syncthreads(); }
  if (blockSize >= 512)  { if (tid < 256) { sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 256]); } __syncthreads(); }
  if (blockSize >= 256)  { if (tid < 128) { sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 128]); } __syncthreads(); }
  if (blockSize >= 128)  { if (tid < 64)  { sdata[tid] = gs_rd_combine<OP, A>(sdata[tid], sdata[tid + 64]); }  __syncthreads(); }
  if (tid < 32) gs_rd_ladder_last_warp<OP, A>(sdata, tid, blockSize);
}

/* 6: complete unroll, block size as a template parameter; loads as in 4. */
template <int OP, typename T, typename A, unsigned int blockSize>
static __global__ void __launch_bounds__(blockSize) gs_rd_reduce6(const T *g_idata, uint64_t n, A *g_odata)
{
  __shared__ A sdata[blockSize];
  unsigned int tid = threadIdx.x;
  uint64_t i = (uint64_t)blockIdx.x * (blockSize * 2) + threadIdx.x;
  sdata[tid] = gs_rd_combine<OP, A>(gs_rd_ladder_load<OP, T, A>(g_idata, i, n),
                                    gs_rd_ladder_load<OP, T, A>(g_idata, i + blockSize, n));
  __syncthreads();
  gs_rd_ladder_unrolled_tree<OP, A, blockSize>(sdata, tid);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* 7: many elements per thread: a fixed grid strides over the input, gridSize = blockSize * 2 *
 * gridDim.x, two loads per thread per step; then the tree of 6. Two changes from the 2007 code,
 * both about the latency of a modern GPU's memory: the running sum lives in a register, not in
 * sdata[tid] (a shared-memory read-modify-write per step serialises the loop), and the step loop
 * is unrolled 4 times so 8 independent loads are in flight per thread. The bounds test is hoisted
 * out of the loop: full pairs first, then at most one lone element per thread. */
template <int OP, typename T, typename A, unsigned int blockSize>
static __global__ void __launch_bounds__(blockSize) gs_rd_reduce7(const T *g_idata, uint64_t n, A *g_odata)
{
  __shared__ A sdata[blockSize];
  unsigned int tid = threadIdx.x;
  uint64_t i = (uint64_t)blockIdx.x * (blockSize * 2) + threadIdx.x;
  const uint64_t gridSize = (uint64_t)blockSize * 2 * gridDim.x;
  /* Full pairs this thread owns: i + k * gridSize + blockSize < n. */
  const uint64_t steps = i + blockSize < n ? (n - 1 - blockSize - i) / gridSize + 1 : 0;
  A sum = gs_rd_identity<OP, A>();
#pragma unroll 4
  for (uint64_t k = 0; k < steps; k++) {
    sum = gs_rd_combine<OP, A>(sum, gs_rd_combine<OP, A>((A)g_idata[i], (A)g_idata[i + blockSize]));
    i += gridSize;
  }
  if (i < n) sum = gs_rd_combine<OP, A>(sum, (A)g_idata[i]);
  sdata[tid] = sum;
  __syncthreads();
  gs_rd_ladder_unrolled_tree<OP, A, blockSize>(sdata, tid);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* ---- host side ------------------------------------------------------------------------------ */

/* One launch of kernel k (1..6) over n inputs, one partial per block into out. */
template <int OP, typename TI, typename A>
static cudaError_t gs_rd_ladder_launch(int k, int block, unsigned blocks, const TI *in, uint64_t n,
                                       A *out, cudaStream_t st)
{
  const size_t smem = (size_t)block * sizeof(A);
  switch (k) {
  case GS_RK_INTERLEAVED: gs_rd_reduce1<OP, TI, A><<<blocks, block, smem, st>>>(in, n, out); break;
  case GS_RK_STRIDED:     gs_rd_reduce2<OP, TI, A><<<blocks, block, smem, st>>>(in, n, out); break;
  case GS_RK_SEQUENTIAL:  gs_rd_reduce3<OP, TI, A><<<blocks, block, smem, st>>>(in, n, out); break;
  case GS_RK_FIRST_ADD:   gs_rd_reduce4<OP, TI, A><<<blocks, block, smem, st>>>(in, n, out); break;
  case GS_RK_LAST_WARP:   gs_rd_reduce5<OP, TI, A><<<blocks, block, smem, st>>>(in, n, out); break;
  default:
    switch (block) {
    case 32:   gs_rd_reduce6<OP, TI, A, 32><<<blocks, 32, 0, st>>>(in, n, out); break;
    case 64:   gs_rd_reduce6<OP, TI, A, 64><<<blocks, 64, 0, st>>>(in, n, out); break;
    case 128:  gs_rd_reduce6<OP, TI, A, 128><<<blocks, 128, 0, st>>>(in, n, out); break;
    case 256:  gs_rd_reduce6<OP, TI, A, 256><<<blocks, 256, 0, st>>>(in, n, out); break;
    case 512:  gs_rd_reduce6<OP, TI, A, 512><<<blocks, 512, 0, st>>>(in, n, out); break;
    default:   gs_rd_reduce6<OP, TI, A, 1024><<<blocks, 1024, 0, st>>>(in, n, out); break;
    }
  }
  return cudaGetLastError();
}

/* Kernels 1..6: pass after pass until one value is left. Level 1 reads the input and writes P1
 * partials into buffer X, level 2 reads X and writes P2 into Y, level 3 reads Y and writes into X
 * (P3 <= P1), and so on; whichever level produces a single value writes it into d_out. */
template <int OP, typename T, typename A>
static cudaError_t gs_rd_ladder_passes(int k, const T *in, uint64_t n, unsigned char *ws,
                                       size_t ws_bytes, A *out, int block, cudaStream_t st,
                                       size_t *need)
{
  const uint64_t per_block = (uint64_t)block * (k >= GS_RK_FIRST_ADD ? 2 : 1);
  const uint64_t p1 = (n + per_block - 1) / per_block;
  const uint64_t p2 = (p1 + per_block - 1) / per_block;
  if (p1 > 0x7fffffffull) return cudaErrorInvalidValue; /* beyond gridDim.x */
  size_t bytes = 0;
  if (p1 > 1) bytes = GS_RD_WS_HEADER + gs_rd_ws_align(p1 * sizeof(A)) + (p2 > 1 ? p2 * sizeof(A) : 0);
  if (need) { *need = bytes; return cudaSuccess; }
  if (ws_bytes < bytes || (bytes && !ws)) return cudaErrorInvalidValue;

  A *buf[2] = {NULL, NULL};
  if (p1 > 1) {
    buf[0] = (A *)(ws + GS_RD_WS_HEADER);
    buf[1] = (A *)(ws + GS_RD_WS_HEADER + gs_rd_ws_align(p1 * sizeof(A)));
  }
  uint64_t blocks = p1;
  A *dst = blocks == 1 ? out : buf[0];
  cudaError_t e = gs_rd_ladder_launch<OP, T, A>(k, block, (unsigned)blocks, in, n, dst, st);
  for (int lvl = 1; e == cudaSuccess && blocks > 1; ++lvl) {
    const A *src = dst;
    const uint64_t m = blocks;
    blocks = (m + per_block - 1) / per_block;
    dst = blocks == 1 ? out : buf[lvl & 1];
    e = gs_rd_ladder_launch<OP, A, A>(k, block, (unsigned)blocks, src, m, dst, st);
  }
  return e;
}

/* Kernel 7 for one compile-time block size: grid = SMs x resident blocks per SM, capped by the
 * blocks the data needs; if more than one block ran, one more block of 7 reduces the partials. */
template <int OP, typename T, typename A, unsigned BS>
static cudaError_t gs_rd_ladder_multi(struct gs_cuda_ctx *c, const T *in, uint64_t n, unsigned char *ws,
                                      size_t ws_bytes, A *out, cudaStream_t st, size_t *need)
{
  uint64_t grid = 0;
  const cudaError_t e = gs_rd_persistent_grid<gs_rd_reduce7<OP, T, A, BS>>(c, BS, &grid);
  if (e != cudaSuccess) return e;
  const uint64_t wanted = (n + 2ull * BS - 1) / (2ull * BS);
  if (grid > wanted) grid = wanted;
  const size_t bytes = grid > 1 ? GS_RD_WS_HEADER + grid * sizeof(A) : 0;
  if (need) { *need = bytes; return cudaSuccess; }
  if (ws_bytes < bytes || (bytes && !ws)) return cudaErrorInvalidValue;

  A *partials = grid > 1 ? (A *)(ws + GS_RD_WS_HEADER) : out;
  gs_rd_reduce7<OP, T, A, BS><<<(unsigned)grid, BS, 0, st>>>(in, n, partials);
  if (grid > 1) gs_rd_reduce7<OP, A, A, BS><<<1, BS, 0, st>>>(partials, grid, out);
  return cudaGetLastError();
}

template <int OP, typename T, typename A>
static cudaError_t gs_rd_ladder_typed(struct gs_cuda_ctx *c, int k, const void *d_in, uint64_t n, void *d_ws,
                                      size_t ws_bytes, void *d_out, int block, cudaStream_t st,
                                      size_t *need)
{
  const T *in = (const T *)d_in;
  unsigned char *ws = (unsigned char *)d_ws;
  A *out = (A *)d_out;
  if (k != GS_RK_MULTI) return gs_rd_ladder_passes<OP, T, A>(k, in, n, ws, ws_bytes, out, block, st, need);
  switch (block) {
  case 32:  return gs_rd_ladder_multi<OP, T, A, 32>(c, in, n, ws, ws_bytes, out, st, need);
  case 64:  return gs_rd_ladder_multi<OP, T, A, 64>(c, in, n, ws, ws_bytes, out, st, need);
  case 128: return gs_rd_ladder_multi<OP, T, A, 128>(c, in, n, ws, ws_bytes, out, st, need);
  case 256: return gs_rd_ladder_multi<OP, T, A, 256>(c, in, n, ws, ws_bytes, out, st, need);
  case 512: return gs_rd_ladder_multi<OP, T, A, 512>(c, in, n, ws, ws_bytes, out, st, need);
  default:  return gs_rd_ladder_multi<OP, T, A, 1024>(c, in, n, ws, ws_bytes, out, st, need);
  }
}

template <typename T, typename A>
static cudaError_t gs_rd_ladder_op(struct gs_cuda_ctx *c, int k, int op, const void *d_in, uint64_t n,
                                   void *d_ws, size_t ws_bytes, void *d_out, int block, cudaStream_t st,
                                   size_t *need)
{
  switch (op) {
  case GS_OP_SUM: return gs_rd_ladder_typed<GS_OP_SUM, T, A>(c, k, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  case GS_OP_MIN: return gs_rd_ladder_typed<GS_OP_MIN, T, A>(c, k, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  default:        return gs_rd_ladder_typed<GS_OP_MAX, T, A>(c, k, d_in, n, d_ws, ws_bytes, d_out, block, st, need);
  }
}

extern "C" cudaError_t gs_reduce_ladder_launch(struct gs_cuda_ctx *c, int kernel, int dtype, int op,
                                               const void *d_in, uint64_t n, void *d_ws, size_t ws_bytes,
                                               void *d_out, int block, cudaStream_t stream, size_t *need)
{
  switch (dtype) {
  case GS_DTYPE_INT32:
    return gs_rd_ladder_op<int, long long>(c, kernel, op, d_in, n, d_ws, ws_bytes, d_out, block, stream, need);
  case GS_DTYPE_FLOAT:
    return gs_rd_ladder_op<float, double>(c, kernel, op, d_in, n, d_ws, ws_bytes, d_out, block, stream, need);
  default:
    return gs_rd_ladder_op<double, double>(c, kernel, op, d_in, n, d_ws, ws_bytes, d_out, block, stream, need);
  }
}
