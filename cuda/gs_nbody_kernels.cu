/* gs_nbody_kernels.cu: the N-body force entry points of gs_cuda.h (gs_nbody_kernels_workspace,
 * gs_nbody_kernels_launch) and every force kernel:
 *   1..6  the seed 004 tuning ladder (SEEDS.md section 4, after Burtscher), one step per kernel:
 *         global memory, rsqrt, shared-memory tiles, unroll 8, no i != j, FMA ordering;
 *   7     "multi": each thread owns K targets (4 single, 2 double), so one shared-memory load
 *         feeds K interactions; a tile loop of compile-time length with no branch in it; the
 *         reciprocal square root without denormal fix-ups (the seed's -ftz=true step);
 *   8     "jsplit": kernel 7 over a 2D grid when the targets alone cannot fill the GPU: slice y
 *         of the j range writes raw partial sums to the workspace, and a second kernel adds the
 *         slices of each target in slice order (deterministic, no atomics) into acc.
 * Physics: a_i = G sum_j m_j (x_j - x_i) / (r^2 + eps2)^1.5, potential -G sum_{j != i} m_j / r,
 * or the seed 003 cutoff law (eps2 = 0, pairs with r^2 < cut2 exert nothing).
 *
 * Kernels 5+ have no i != j test, so they need eps2 > 0 (Plummer) or cut2 > 0 (cutoff) for the
 * self pair: gs_nbody_kernels_launch refuses zero there; kernels 1..4 accept zero.
 *
 * Differences from the seed, none for speed: bodies are AoS (x, y, z, m) float4 / double4, as
 * the interface has them (the seed had SoA arrays); the i != j test of kernels 3 and 4 compares
 * tile-local 32-bit indices (the same test as the seed's int j, without 64-bit compares); the
 * cutoff law, the potential (a template flag: the force-only path pays nothing) and the double
 * versions are ours. Kernels 5+ count the self term in the potential (m_i / eps) and subtract it
 * after the loop, with the very rsqrt the loop used. */
#include <cmath>

#include <cuda/std/limits>

#include "gs_cuda.h"
#include "gs_nbody_internal.cuh"

/* Block size of kernels 1..6, the seed's THREADS. */
#define GS_NB_SEED_BLOCK 256

/* Kernels 7 and 8: threads per block, targets per thread, resident blocks per SM asked of ptxas
 * (__launch_bounds__), per precision; -D overrides them for tuning runs.
 * Single: 13 issue slots per interaction (3 FADD, 3 FFMA, MUFU.RSQ, 3 FMUL, 3 FFMA) plus one
 * LDS.128 per 4 interactions. 128 x 8 = 1024 threads per SM caps ptxas at 64 registers (it takes
 * 79 when free, which would leave room for 6 blocks): 8 warps per scheduler, each with 4
 * independent targets, to hide the MUFU and LDS latencies. Blocks of 128 rather than 256 halve
 * the grain of the last wave. Double: 17 DP operations per interaction, each 2 cycles of a
 * scheduler's 16-lane DP pipe, so the DP pipe and not the issue slot is the limit; 2 targets per
 * thread already make the tile load (2 LDS.128 per source) negligible; ptxas takes 106-118
 * registers, under the cap of 128 that 4 blocks of 128 leave. */
#ifndef GS_NB_BLOCK_F
#define GS_NB_BLOCK_F 128
#endif
#ifndef GS_NB_K_F
#define GS_NB_K_F 4
#endif
/* 6 resident blocks of 128 per SM leave ptxas 79 registers, no spills: 3% faster at N = 2^20
 * than 8 blocks at 64 registers (H200, docs/performance.md). */
#ifndef GS_NB_MINB_F
#define GS_NB_MINB_F 6
#endif
#ifndef GS_NB_BLOCK_D
#define GS_NB_BLOCK_D 128
#endif
#ifndef GS_NB_K_D
#define GS_NB_K_D 2
#endif
#ifndef GS_NB_MINB_D
#define GS_NB_MINB_D 4
#endif
/* Unroll of the tile loop of kernels 7 and 8: 8 bodies x K targets per trip keeps the loop
 * branch and counter under 1% of the issue slots and the body inside the instruction cache. */
#ifndef GS_NB_UNROLL
#define GS_NB_UNROLL 8
#endif

template <typename T> struct gs_nb_shape;
template <> struct gs_nb_shape<float> {
  static constexpr int B = GS_NB_BLOCK_F, K = GS_NB_K_F, MINB = GS_NB_MINB_F;
};
template <> struct gs_nb_shape<double> {
  static constexpr int B = GS_NB_BLOCK_D, K = GS_NB_K_D, MINB = GS_NB_MINB_D;
};

/* ---- kernels 1..6: the seed ladder ---------------------------------------------------------- */

/* One interaction of ladder step STEP (a gs_nbody_kernel id, 1..6), added to (ax, ay, az, phi).
 * Steps 1..4 skip cutoff pairs with a branch, as they skip i == j; steps 5 and 6 have no branch
 * left: a select zeroes 1/r instead (the seed's point of step 5). */
template <typename T, int LAW, bool POT, int STEP>
static __device__ __forceinline__ void gs_nb_seed_pair(const gs_nb_vec_t<T> &pi, const gs_nb_vec_t<T> &pj,
                                                T e2, T cut2, T &ax, T &ay, T &az, T &phi)
{
  const T dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
  T dsq, dinv;
  if constexpr (STEP >= GS_NK_FMA) {
    dsq = dx * dx + (dy * dy + (dz * dz + e2)); /* three FFMA; step 5 pays FMUL, 2 FFMA, FADD */
    dinv = gs_nb_rsqrt(dsq);
  } else {
    dsq = dx * dx + dy * dy + dz * dz;
    if constexpr (LAW == GS_LAW_CUTOFF && STEP < GS_NK_SOFTEN)
      if (dsq < cut2) return;
    dinv = STEP == GS_NK_GLOBAL ? T(1) / gs_nb_sqrt(dsq + e2) : gs_nb_rsqrt(dsq + e2);
  }
  if constexpr (LAW == GS_LAW_CUTOFF && STEP >= GS_NK_SOFTEN) dinv = dsq < cut2 ? T(0) : dinv;
  const T scale = pj.w * dinv * dinv * dinv;
  ax += dx * scale;
  ay += dy * scale;
  az += dz * scale;
  if constexpr (POT) phi += pj.w * dinv;
}

/* GS_NB_TWO_LEVEL: every kernel sums the forces in two levels, a partial over each run of 128 or
 * 256 sources (a tile), then the partials. In single precision a running sum of N same-signed
 * float terms loses ~N ulps (8.7e-4 relative at N = 2^20, measured on an H200 with one level);
 * two levels cut the longest chain of roundings from N to N/tile + tile, for 3-4 extra adds per
 * tile. It changes none of the seed's lessons, only the error they carry. */

/* 1 "global", 2 "rsqrt": one thread per target, every source read from global memory (through
 * L1: the whole warp reads the same body), the seed's if (i != j). */
template <typename T, int LAW, bool POT, int STEP>
static __global__ void __launch_bounds__(GS_NB_SEED_BLOCK)
gs_nb_global_kernel(const gs_nb_vec_t<T> *__restrict__ pos, uint64_t i_first, uint64_t i_count,
                    uint64_t j_first, uint64_t j_count, gs_nb_vec_t<T> *__restrict__ acc, T G,
                    T e2, T cut2, int accumulate)
{
  const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= i_count) return;
  const uint64_t i = i_first + k, j_end = j_first + j_count;
  const gs_nb_vec_t<T> pi = pos[i];
  /* Two-level sums (see GS_NB_TWO_LEVEL): a partial per run of GS_NB_SEED_BLOCK sources. */
  T ax = 0, ay = 0, az = 0, phi = 0;
  for (uint64_t j0 = j_first; j0 < j_end; j0 += GS_NB_SEED_BLOCK) {
    const uint64_t j1 = min(j0 + GS_NB_SEED_BLOCK, j_end);
    T px = 0, py = 0, pz = 0, pp = 0;
    for (uint64_t j = j0; j < j1; ++j)
      if (i != j) gs_nb_seed_pair<T, LAW, POT, STEP>(pi, pos[j], e2, cut2, px, py, pz, pp);
    ax += px, ay += py, az += pz, phi += pp;
  }
  gs_nb_store<T, POT>(acc, k, ax, ay, az, phi, G, accumulate);
}

/* 3 "shared", 4 "unroll", 5 "soften", 6 "fma": the seed's blocking. Each thread copies one body
 * of the tile; the inner loop runs over the `bound` bodies the tile has (the last one is partial).
 * Threads past i_count still load and synchronise; they only skip the store. */
template <typename T, int LAW, bool POT, int STEP>
static __global__ void __launch_bounds__(GS_NB_SEED_BLOCK)
gs_nb_shared_kernel(const gs_nb_vec_t<T> *__restrict__ pos, uint64_t i_first, uint64_t i_count,
                    uint64_t j_first, uint64_t j_count, gs_nb_vec_t<T> *__restrict__ acc, T G,
                    T e2, T cut2, int accumulate)
{
  using V = gs_nb_vec_t<T>;
  __shared__ V tile[GS_NB_SEED_BLOCK];
  const unsigned tid = threadIdx.x;
  const uint64_t k = (uint64_t)blockIdx.x * GS_NB_SEED_BLOCK + tid;
  const bool live = k < i_count;
  const uint64_t i = i_first + k;
  const V pi = live ? pos[i] : gs_nb_make<T>(0, 0, 0, 0);
  T sx = 0, sy = 0, sz = 0, sphi = 0; /* totals; the tile's partial sums are ax, ay, az, phi */
  for (uint64_t j1 = 0; j1 < j_count; j1 += GS_NB_SEED_BLOCK) {
    if (j1 + tid < j_count) tile[tid] = pos[j_first + j1 + tid];
    T ax = 0, ay = 0, az = 0, phi = 0;
    __syncthreads();
    const int bound = (int)min(j_count - j1, (uint64_t)GS_NB_SEED_BLOCK);
    if constexpr (STEP <= GS_NK_UNROLL) {
      /* i != j as a tile-local index: self is i's slot in this tile, or -1 (the unsigned
       * difference wraps to a huge value when i precedes the tile) */
      const uint64_t off = i - (j_first + j1);
      const int self = off < (uint64_t)bound ? (int)off : -1;
      if constexpr (STEP == GS_NK_SHARED) {
        for (int j2 = 0; j2 < bound; ++j2)
          if (j2 != self) gs_nb_seed_pair<T, LAW, POT, STEP>(pi, tile[j2], e2, cut2, ax, ay, az, phi);
      } else {
#pragma unroll 8
        for (int j2 = 0; j2 < bound; ++j2)
          if (j2 != self) gs_nb_seed_pair<T, LAW, POT, STEP>(pi, tile[j2], e2, cut2, ax, ay, az, phi);
      }
    } else {
#pragma unroll 8
      for (int j2 = 0; j2 < bound; ++j2)
        gs_nb_seed_pair<T, LAW, POT, STEP>(pi, tile[j2], e2, cut2, ax, ay, az, phi);
    }
    sx += ax, sy += ay, sz += az, sphi += phi;
    __syncthreads();
  }
  if (!live) return;
  T ax = sx, ay = sy, az = sz, phi = sphi;
  /* Steps 5, 6: the loop added m_i * rsqrt(0 + eps2) for j == i (the force term is 0 * that);
   * dsq is exactly eps2 there in both orderings, so this removes the same value. */
  if constexpr (POT && LAW == GS_LAW_PLUMMER && STEP >= GS_NK_SOFTEN)
    if (gs_nb_is_source(i, j_first, j_count)) phi -= pi.w * gs_nb_rsqrt(e2);
  gs_nb_store<T, POT>(acc, k, ax, ay, az, phi, G, accumulate);
}

/* ---- kernels 7 and 8 ------------------------------------------------------------------------ */

/* K targets' running sums, kept in registers (every index below is a compile-time constant). */
template <typename T, int K>
struct gs_nb_targets {
  T x[K], y[K], z[K], m[K];
  T ax[K], ay[K], az[K], phi[K];
};

/* Load the block's targets: thread tid of block `blk` owns k = blk*B*K + s*B + tid, s < K, so each
 * of the K loads (and stores later) is coalesced. Targets past i_count sit at the origin with
 * mass 0: they compute harmless values that are never stored. */
template <typename T>
static __device__ __forceinline__ void gs_nb_load_targets(const gs_nb_vec_t<T> *__restrict__ pos, uint64_t i_first,
                                                   uint64_t i_count, uint64_t k0,
                                                   gs_nb_targets<T, gs_nb_shape<T>::K> &t)
{
  constexpr int B = gs_nb_shape<T>::B, K = gs_nb_shape<T>::K;
#pragma unroll
  for (int s = 0; s < K; ++s) {
    const uint64_t k = k0 + (uint64_t)s * B;
    const gs_nb_vec_t<T> p = k < i_count ? pos[i_first + k] : gs_nb_make<T>(0, 0, 0, 0);
    t.x[s] = p.x; t.y[s] = p.y; t.z[s] = p.z; t.m[s] = p.w;
    t.ax[s] = 0; t.ay[s] = 0; t.az[s] = 0; t.phi[s] = 0;
  }
}

/* Sources [jb, je) into the block's targets, one tile of B bodies at a time. The tile loop has a
 * compile-time trip count: the last tile is padded with bodies of mass 0 at the origin, which add
 * exactly 0 (Plummer: 1/r stays finite as r^2 + eps2 >= eps2 > 0; cutoff: r = 0 is cut). Per
 * interaction: 3 sub, 3 FMA for dsq (the step 6 ordering), 1 rsqrt, 3 mul, 3 FMA; the potential
 * adds one add (m/r is the first product of the scale anyway); the cutoff a compare and select. */
template <typename T, int LAW, bool POT>
static __device__ __forceinline__ void gs_nb_multi_tiles(const gs_nb_vec_t<T> *__restrict__ pos, uint64_t jb,
                                                  uint64_t je, T e2, T cut2, gs_nb_vec_t<T> *tile,
                                                  gs_nb_targets<T, gs_nb_shape<T>::K> &t)
{
  constexpr int B = gs_nb_shape<T>::B, K = gs_nb_shape<T>::K;
  constexpr int U = GS_NB_UNROLL; /* #pragma unroll does not expand macros */
  const unsigned tid = threadIdx.x;
  /* Two-level sums (GS_NB_TWO_LEVEL): the registers hold one tile's partial sums, the totals
   * live in this thread's own shared-memory slots, so no register is spent on them. */
  __shared__ gs_nb_vec_t<T> total[B * K];
#pragma unroll
  for (int s = 0; s < K; ++s) total[s * B + tid] = gs_nb_make<T>(0, 0, 0, 0);
  for (uint64_t j0 = jb; j0 < je; j0 += B) {
    const uint64_t j = j0 + tid;
    tile[tid] = j < je ? pos[j] : gs_nb_make<T>(0, 0, 0, 0);
#pragma unroll
    for (int s = 0; s < K; ++s) t.ax[s] = 0, t.ay[s] = 0, t.az[s] = 0, t.phi[s] = 0;
    __syncthreads();
#pragma unroll U
    for (int jj = 0; jj < B; ++jj) {
      const gs_nb_vec_t<T> pj = tile[jj]; /* one broadcast LDS.128 (two in double) for K pairs */
#pragma unroll
      for (int s = 0; s < K; ++s) {
        const T dx = pj.x - t.x[s], dy = pj.y - t.y[s], dz = pj.z - t.z[s];
        const T dsq = dx * dx + (dy * dy + (dz * dz + e2));
        T inv = gs_nb_rsqrt_lean(dsq);
        if constexpr (LAW == GS_LAW_CUTOFF) inv = dsq < cut2 ? T(0) : inv;
        const T mr = pj.w * inv;
        const T scale = mr * (inv * inv);
        t.ax[s] += dx * scale;
        t.ay[s] += dy * scale;
        t.az[s] += dz * scale;
        if constexpr (POT) t.phi[s] += mr;
      }
    }
#pragma unroll
    for (int s = 0; s < K; ++s) {
      gs_nb_vec_t<T> &sum = total[s * B + tid];
      sum.x += t.ax[s], sum.y += t.ay[s], sum.z += t.az[s], sum.w += t.phi[s];
    }
    __syncthreads();
  }
#pragma unroll
  for (int s = 0; s < K; ++s) {
    const gs_nb_vec_t<T> sum = total[s * B + tid];
    t.ax[s] = sum.x, t.ay[s] = sum.y, t.az[s] = sum.z, t.phi[s] = sum.w;
  }
}

/* Take the self term out of the potential (Plummer; the cutoff law never counted it): the loop
 * added m_i * rsqrt_lean(eps2) when i is a source. */
template <typename T, int LAW, bool POT>
static __device__ __forceinline__ T gs_nb_self_fix(T phi, T m, uint64_t i, uint64_t j_first,
                                            uint64_t j_count, T e2)
{
  if constexpr (POT && LAW == GS_LAW_PLUMMER)
    if (gs_nb_is_source(i, j_first, j_count)) phi -= m * gs_nb_rsqrt_lean(e2);
  return phi;
}

/* 7 "multi": one block per B*K targets, all sources. */
template <typename T, int LAW, bool POT>
static __global__ void __launch_bounds__(gs_nb_shape<T>::B, gs_nb_shape<T>::MINB)
gs_nb_multi_kernel(const gs_nb_vec_t<T> *__restrict__ pos, uint64_t i_first, uint64_t i_count,
                   uint64_t j_first, uint64_t j_count, gs_nb_vec_t<T> *__restrict__ acc, T G, T e2,
                   T cut2, int accumulate)
{
  constexpr int B = gs_nb_shape<T>::B, K = gs_nb_shape<T>::K;
  __shared__ gs_nb_vec_t<T> tile[B];
  const uint64_t k0 = (uint64_t)blockIdx.x * (B * K) + threadIdx.x;
  gs_nb_targets<T, K> t;
  gs_nb_load_targets<T>(pos, i_first, i_count, k0, t);
  gs_nb_multi_tiles<T, LAW, POT>(pos, j_first, j_first + j_count, e2, cut2, tile, t);
#pragma unroll
  for (int s = 0; s < K; ++s) {
    const uint64_t k = k0 + (uint64_t)s * B;
    if (k >= i_count) break;
    const T phi = gs_nb_self_fix<T, LAW, POT>(t.phi[s], t.m[s], i_first + k, j_first, j_count, e2);
    gs_nb_store<T, POT>(acc, k, t.ax[s], t.ay[s], t.az[s], phi, G, accumulate);
  }
}

/* 8 "jsplit", first launch: block (x, y) takes targets as kernel 7's block x and sources
 * [j_first + y*slice_len, ...) clipped to the range, and stores its raw sums (no G, no sign, no
 * self fix) as part[y*i_count + k]: every slice's row is written coalesced. */
template <typename T, int LAW, bool POT>
static __global__ void __launch_bounds__(gs_nb_shape<T>::B, gs_nb_shape<T>::MINB)
gs_nb_slice_kernel(const gs_nb_vec_t<T> *__restrict__ pos, uint64_t i_first, uint64_t i_count,
                   uint64_t j_first, uint64_t j_count, uint64_t slice_len, T e2, T cut2,
                   gs_nb_vec_t<T> *__restrict__ part)
{
  constexpr int B = gs_nb_shape<T>::B, K = gs_nb_shape<T>::K;
  __shared__ gs_nb_vec_t<T> tile[B];
  const uint64_t k0 = (uint64_t)blockIdx.x * (B * K) + threadIdx.x;
  const uint64_t jb = j_first + blockIdx.y * slice_len;
  const uint64_t je = min(jb + slice_len, j_first + j_count);
  gs_nb_targets<T, K> t;
  gs_nb_load_targets<T>(pos, i_first, i_count, k0, t);
  gs_nb_multi_tiles<T, LAW, POT>(pos, jb, je, e2, cut2, tile, t);
  gs_nb_vec_t<T> *row = part + (uint64_t)blockIdx.y * i_count;
#pragma unroll
  for (int s = 0; s < K; ++s) {
    const uint64_t k = k0 + (uint64_t)s * B;
    if (k >= i_count) break;
    row[k] = gs_nb_make<T>(t.ax[s], t.ay[s], t.az[s], POT ? t.phi[s] : T(0));
  }
}

/* 8 "jsplit", second launch: one thread per target adds its `slices` partials in slice order
 * (the same order every run), then finishes as kernel 7 does. */
template <typename T, int LAW, bool POT>
static __global__ void __launch_bounds__(GS_NB_SEED_BLOCK)
gs_nb_slice_sum_kernel(const gs_nb_vec_t<T> *__restrict__ pos, uint64_t i_first, uint64_t i_count,
                       uint64_t j_first, uint64_t j_count, const gs_nb_vec_t<T> *__restrict__ part,
                       unsigned slices, gs_nb_vec_t<T> *__restrict__ acc, T G, T e2, int accumulate)
{
  const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= i_count) return;
  T ax = 0, ay = 0, az = 0, phi = 0;
  for (unsigned s = 0; s < slices; ++s) {
    const gs_nb_vec_t<T> p = part[(uint64_t)s * i_count + k];
    ax += p.x; ay += p.y; az += p.z;
    if constexpr (POT) phi += p.w;
  }
  if constexpr (POT && LAW == GS_LAW_PLUMMER)
    phi = gs_nb_self_fix<T, LAW, POT>(phi, pos[i_first + k].w, i_first + k, j_first, j_count, e2);
  gs_nb_store<T, POT>(acc, k, ax, ay, az, phi, G, accumulate);
}

/* ---- host side ------------------------------------------------------------------------------ */

/* Kernel 8's j-split plan. The model: the slice kernel's blocks are bi targets blocks times S
 * slices of at most tps = ceil(jt / S) source tiles each; the block scheduler deals them out to the
 * SMs, so the busiest SM gets L = ceil(blocks / SMs) of them and the grid takes L * tps units of one
 * block-tile, times (1 + GS_NB_SPLIT_TAIL / L) for what a few blocks per SM lose: one resident
 * block of 128 threads reaches about 80% of an SM's rate, and the scheduler does not deal a small
 * grid out evenly (measured on 2 H200: 2^16 targets ran 2.60 ms with one block per SM, 2.11 ms with
 * 31; docs/performance.md). The one-wave-per-`occ` model used before counted a part-filled wave as
 * a full one and so never split 2^19 targets: their 1024 blocks left 100 SMs with 8 and 32 with 7,
 * 3% lost, where 33 slices (256 blocks on every SM) ran 3.3% faster. A split adds the partials'
 * traffic and a second launch: GS_NB_SPLIT_FIXED units plus one per GS_NB_SPLIT_BYTES written and
 * read back. S = 1 is kept unless a split is predicted to save more than GS_NB_SPLIT_GAIN; among the
 * splits, the fewest slices within GS_NB_SPLIT_SLACK of the best prediction win (less workspace and
 * partial traffic for a difference below what the model resolves). */
#define GS_NB_SPLIT_TAIL 0.25
#define GS_NB_SPLIT_FIXED 2.0
#define GS_NB_SPLIT_BYTES (8.0 * 1024 * 1024)
#define GS_NB_SPLIT_GAIN 0.01
#define GS_NB_SPLIT_SLACK 0.005
#define GS_NB_MAX_SLICES 256u

struct gs_nb_plan {
  unsigned slices;    /* 1: kernel 7's launch, no workspace */
  uint64_t slice_len; /* sources per slice, a multiple of the tile but for the last slice */
  size_t ws;          /* partials: slices * i_count vectors */
};

/* Predicted time of `blocks` blocks of at most tps tiles each (see above). */
static double gs_nb_grid_time(uint64_t blocks, uint64_t tps, int sms)
{
  const uint64_t L = (blocks + sms - 1) / sms;
  return (double)L * (double)tps * (1.0 + GS_NB_SPLIT_TAIL / (double)L);
}

/* The SM count comes from the launch context c: the same c gives the workspace query and the
 * launch the same plan. */
template <typename T, int LAW, bool POT>
static cudaError_t gs_nb_split_plan(struct gs_cuda_ctx *c, uint64_t i_count, uint64_t j_count, gs_nb_plan *p)
{
  constexpr uint64_t B = gs_nb_shape<T>::B, K = gs_nb_shape<T>::K;
  p->slices = 1;
  p->slice_len = j_count;
  p->ws = 0;
  const uint64_t bi = (i_count + B * K - 1) / (B * K), jt = (j_count + B - 1) / B;
  if (jt < 2) return cudaSuccess;
  const int sms = c->sm_count > 0 ? c->sm_count : 1;

  const uint64_t smax = jt < GS_NB_MAX_SLICES ? jt : GS_NB_MAX_SLICES;
  double t[GS_NB_MAX_SLICES + 1];
  double best = t[1] = gs_nb_grid_time(bi, jt, sms);
  for (uint64_t s = 2; s <= smax; ++s) {
    const uint64_t tps = (jt + s - 1) / s;
    t[s] = -1;
    if ((jt + tps - 1) / tps != s) continue; /* s slices of tps tiles would leave one empty */
    const double bytes = 2.0 * (double)s * (double)i_count * sizeof(gs_nb_vec_t<T>);
    t[s] = gs_nb_grid_time(bi * s, tps, sms) + GS_NB_SPLIT_FIXED + bytes / GS_NB_SPLIT_BYTES;
    if (t[s] < best) best = t[s];
  }
  if (best >= (1.0 - GS_NB_SPLIT_GAIN) * t[1]) return cudaSuccess;
  for (uint64_t s = 2; s <= smax; ++s)
    if (t[s] >= 0 && t[s] <= (1.0 + GS_NB_SPLIT_SLACK) * best) {
      const uint64_t tps = (jt + s - 1) / s;
      p->slices = (unsigned)s;
      p->slice_len = tps * B;
      p->ws = (size_t)s * (size_t)i_count * sizeof(gs_nb_vec_t<T>);
      break;
    }
  return cudaSuccess;
}

/* Blocks of `per` targets for n targets, or 0 when the grid would not fit in gridDim.x. */
static unsigned gs_nb_blocks(uint64_t n, uint64_t per)
{
  const uint64_t b = (n + per - 1) / per;
  return b <= 0x7fffffffu ? (unsigned)b : 0u;
}

/* Plan (need != NULL: store the workspace bytes, launch nothing) or launch one force evaluation.
 * The arguments were checked by gs_nb_check; i_count >= 1. */
template <typename T, int LAW, bool POT>
static cudaError_t gs_nb_launch(struct gs_cuda_ctx *c, const struct gs_nbody_force_args *a, cudaStream_t st,
                                size_t *need)
{
  using V = gs_nb_vec_t<T>;
  constexpr int B = gs_nb_shape<T>::B, K = gs_nb_shape<T>::K;
  const V *pos = (const V *)a->pos;
  V *acc = (V *)a->acc;
  const T G = (T)a->G, e2 = LAW == GS_LAW_PLUMMER ? (T)a->eps2 : T(0), cut2 = (T)a->cut2;
  const uint64_t i0 = a->i_first, ni = a->i_count, j0 = a->j_first, nj = a->j_count;
  const int accu = a->accumulate != 0;

  gs_nb_plan plan = {1, nj, 0};
  if (a->kernel == GS_NK_JSPLIT) {
    const cudaError_t e = gs_nb_split_plan<T, LAW, POT>(c, ni, nj, &plan);
    if (e != cudaSuccess) return e;
  }
  const unsigned gseed = gs_nb_blocks(ni, GS_NB_SEED_BLOCK), gmulti = gs_nb_blocks(ni, (uint64_t)B * K);
  if (!gseed || !gmulti) return cudaErrorInvalidValue;
  if (need) { *need = plan.ws; return cudaSuccess; }
  if (plan.ws && (a->ws_bytes < plan.ws || !a->ws || ((uintptr_t)a->ws & 15u))) return cudaErrorInvalidValue;

  const unsigned sb = GS_NB_SEED_BLOCK;
  switch (a->kernel) {
  case GS_NK_GLOBAL:
    gs_nb_global_kernel<T, LAW, POT, GS_NK_GLOBAL><<<gseed, sb, 0, st>>>(pos, i0, ni, j0, nj, acc, G, e2, cut2, accu);
    break;
  case GS_NK_RSQRT:
    gs_nb_global_kernel<T, LAW, POT, GS_NK_RSQRT><<<gseed, sb, 0, st>>>(pos, i0, ni, j0, nj, acc, G, e2, cut2, accu);
    break;
  case GS_NK_SHARED:
    gs_nb_shared_kernel<T, LAW, POT, GS_NK_SHARED><<<gseed, sb, 0, st>>>(pos, i0, ni, j0, nj, acc, G, e2, cut2, accu);
    break;
  case GS_NK_UNROLL:
    gs_nb_shared_kernel<T, LAW, POT, GS_NK_UNROLL><<<gseed, sb, 0, st>>>(pos, i0, ni, j0, nj, acc, G, e2, cut2, accu);
    break;
  case GS_NK_SOFTEN:
    gs_nb_shared_kernel<T, LAW, POT, GS_NK_SOFTEN><<<gseed, sb, 0, st>>>(pos, i0, ni, j0, nj, acc, G, e2, cut2, accu);
    break;
  case GS_NK_FMA:
    gs_nb_shared_kernel<T, LAW, POT, GS_NK_FMA><<<gseed, sb, 0, st>>>(pos, i0, ni, j0, nj, acc, G, e2, cut2, accu);
    break;
  default: /* GS_NK_MULTI, GS_NK_JSPLIT */
    if (plan.slices == 1) {
      gs_nb_multi_kernel<T, LAW, POT><<<gmulti, B, 0, st>>>(pos, i0, ni, j0, nj, acc, G, e2, cut2, accu);
    } else {
      V *part = (V *)a->ws;
      gs_nb_slice_kernel<T, LAW, POT><<<dim3(gmulti, plan.slices), B, 0, st>>>(pos, i0, ni, j0, nj, plan.slice_len,
                                                                              e2, cut2, part);
      gs_nb_slice_sum_kernel<T, LAW, POT><<<gseed, sb, 0, st>>>(pos, i0, ni, j0, nj, part, plan.slices, acc, G, e2,
                                                                accu);
    }
    break;
  }
  return cudaGetLastError();
}

template <typename T>
static cudaError_t gs_nb_launch_t(struct gs_cuda_ctx *c, const struct gs_nbody_force_args *a, cudaStream_t st,
                                  size_t *need)
{
  const bool pot = a->potential != 0;
  if (a->law == GS_LAW_PLUMMER)
    return pot ? gs_nb_launch<T, GS_LAW_PLUMMER, true>(c, a, st, need)
               : gs_nb_launch<T, GS_LAW_PLUMMER, false>(c, a, st, need);
  return pot ? gs_nb_launch<T, GS_LAW_CUTOFF, true>(c, a, st, need)
             : gs_nb_launch<T, GS_LAW_CUTOFF, false>(c, a, st, need);
}

/* A length in precision T that is finite and >= 0; with positive, a normal number (kernels 5+
 * have no i != j test and need a nonzero 1/eps or cut, and kernels 7, 8 flush denormals). */
template <typename T>
static bool gs_nb_length_ok(double v, bool positive)
{
  if (!std::isfinite(v) || v < 0 || !std::isfinite((double)(T)v)) return false;
  return !positive || (T)v >= cuda::std::numeric_limits<T>::min();
}

/* Everything about the arguments that does not need the device. Pointers are checked only when
 * launching (need == NULL): the workspace query takes arguments without buffers. */
static cudaError_t gs_nb_check(const struct gs_nbody_force_args *a, bool launching)
{
  if (!a) return cudaErrorInvalidValue;
  if (a->kernel < GS_NK_GLOBAL || a->kernel >= GS_NK_COUNT) return cudaErrorInvalidValue;
  if (a->precision != 0 && a->precision != 1) return cudaErrorInvalidValue;
  if (a->law != GS_LAW_PLUMMER && a->law != GS_LAW_CUTOFF) return cudaErrorInvalidValue;
  if (a->i_first + a->i_count < a->i_first || a->j_first + a->j_count < a->j_first) return cudaErrorInvalidValue;
  if (!std::isfinite(a->G)) return cudaErrorInvalidValue;
  const bool no_self_test = a->kernel >= GS_NK_SOFTEN;
  const bool single = a->precision == 0;
  const double len = a->law == GS_LAW_PLUMMER ? a->eps2 : a->cut2;
  if (single ? !gs_nb_length_ok<float>(len, no_self_test) : !gs_nb_length_ok<double>(len, no_self_test))
    return cudaErrorInvalidValue;
  if (launching && a->i_count > 0) {
    const size_t align = 16; /* float4; gs_nb_double4 moves as two 16-byte halves */
    if (!a->pos || !a->acc || ((uintptr_t)a->pos % align) || ((uintptr_t)a->acc % align))
      return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

/* Returns 0 for invalid arguments (gs_nbody_kernels_launch then fails with cudaErrorInvalidValue),
 * for every kernel but 8, and for kernel 8 when the targets fill the GPU without a split. The
 * answer depends on c's device (its SM count and the kernel's occupancy there). */
extern "C" size_t gs_nbody_kernels_workspace(struct gs_cuda_ctx *c, const struct gs_nbody_force_args *a)
{
  size_t need = 0;
  if (!c || gs_nb_check(a, false) != cudaSuccess || a->kernel != GS_NK_JSPLIT || a->i_count == 0) return 0;
  const cudaError_t e =
      a->precision == 0 ? gs_nb_launch_t<float>(c, a, 0, &need) : gs_nb_launch_t<double>(c, a, 0, &need);
  return e == cudaSuccess ? need : 0;
}

/* No targets: nothing to do and nothing launched. No sources: the kernels run with an empty loop,
 * so acc is overwritten with zeros (or left as it is when accumulating). */
extern "C" int gs_nbody_kernels_launch(struct gs_cuda_ctx *c, const struct gs_nbody_force_args *a, void *stream)
{
  if (!c) return (int)cudaErrorInvalidValue;
  cudaError_t e = gs_nb_check(a, true);
  if (e != cudaSuccess) return (int)e;
  if (a->i_count == 0) return (int)cudaSuccess;
  const cudaStream_t st = (cudaStream_t)stream;
  e = a->precision == 0 ? gs_nb_launch_t<float>(c, a, st, NULL) : gs_nb_launch_t<double>(c, a, st, NULL);
  return (int)e;
}
