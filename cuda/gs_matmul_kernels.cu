/* gs_matmul_kernels.cu: the matrix-multiply entry point of gs_cuda.h (gs_matmul_kernels_launch,
 * gs_matmul_kernels_error_string) and every matmul kernel but cuBLAS (gs_matmul_cublas.cu):
 *   1..6  the seed 003 ladder (SEEDS.md section 3), 32 x 32 tiles, float and double:
 *         global memory, one thread per output; shared tiles stored and read down columns as the
 *         seed's smem-1 does (as[col][row]: 32-way bank conflicts); the same with [32][33] tiles
 *         (smem-2); row-major tile access (smem-3); two and four outputs per thread (smem-4, 5);
 *   7     "simt", ours: a register-blocked, warp-tiled GEMM (below, at gs_mm_simt).
 *   dmma, tc32: ours on the tensor cores, in gs_matmul_tc.cu (launched from here);
 *   wgmma: ours on the TF32 tensor cores through Hopper's wgmma and TMA, in gs_matmul_wgmma.cu.
 * Row-major storage: element (i, j) of a matrix with leading dimension ld is at [i * ld + j].
 * Unlike the seed (N a multiple of 32, one N for all), any m, n, k and any leading dimensions:
 * tiles are loaded with bounds checks and padded with zeros (a padded product adds an exact 0),
 * stores are guarded. Each output is summed by one thread in k order: identical bits run to run.
 *
 * Limits, checked by the launcher: m, n, k <= 2^30 (tile offsets stay in int) and leading
 * dimensions <= INT_MAX (cuBLAS takes int). gridDim.y is at most 65535, so a launch covers at most
 * 65535 tile rows; the launcher walks taller matrices in slices of that many rows. */
#include <config.h>

#include <climits>
#include <cstdint>

#include <cuda_runtime.h>
#ifdef GS_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#include "gs_cuda.h"
#include "gs_matmul_internal.cuh"
#include "gs_types.h"

#define GS_MM_TILE 32 /* the seed's BLOCK_SIZE */
#define GS_MM_DIM_MAX (1u << 30)

/* ---- 1..6: the seed ladder ------------------------------------------------------------------ */

/* Element (r, c) of a rows x cols matrix, or 0 outside it: the zero padding of ragged tiles. */
template <typename T>
static __device__ __forceinline__ T gs_mm_get(const T *M, size_t ld, int r, int c, int rows, int cols) {
  return (r < rows && c < cols) ? M[(size_t)r * ld + c] : T(0);
}

template <typename T> static __device__ __forceinline__ void gs_mm_put(T *C, size_t ldc, int i, int j, T sum, int acc) {
  T *p = C + (size_t)i * ldc + j;
  *p = acc ? *p + sum : sum;
}

/* Step 1: one thread per output (threadIdx.x along a row of C, so B and C are coalesced), A and
 * B straight from global memory. */
template <typename T>
static __global__ void __launch_bounds__(1024)
    gs_mm_global(int m, int n, int k, const T *__restrict__ A, size_t lda, const T *__restrict__ B, size_t ldb,
                 T *__restrict__ C, size_t ldc, int acc) {
  const int i = blockIdx.y * GS_MM_TILE + threadIdx.y, j = blockIdx.x * GS_MM_TILE + threadIdx.x;
  if (i >= m || j >= n) return;
  const T *a = A + (size_t)i * lda, *b = B + j;
  T sum = 0;
  for (int p = 0; p < k; ++p)
    sum += a[p] * b[(size_t)p * ldb];
  gs_mm_put(C, ldc, i, j, sum, acc);
}

/* Steps 2..6: 32 x 32 tiles of A and B in shared memory, one k-tile at a time. A block is
 * 32 x (32 / ROWS) threads, each owning ROWS outputs of one column, 32 / ROWS rows apart.
 *   COLMAJOR (smem-1, smem-2): the seed's as[tx][ty] = a[...ty...tx]: a tile is stored and read
 *     down its columns, so the store and the read of bs[tx][p] hit one bank with all 32 lanes
 *     (stride 32 words; double: 64 words) unless PAD = 1 makes the stride 33 (smem-2).
 *   otherwise (smem-3..5): as[ty][tx], the read as[y][p] is a broadcast and bs[p][tx] is 32
 *     consecutive words. */
template <typename T, int ROWS, int PAD, bool COLMAJOR>
static __global__ void __launch_bounds__(1024)
    gs_mm_smem(int m, int n, int k, const T *__restrict__ A, size_t lda, const T *__restrict__ B, size_t ldb,
               T *__restrict__ C, size_t ldc, int acc) {
  constexpr int STEP = GS_MM_TILE / ROWS;
  __shared__ T as[GS_MM_TILE][GS_MM_TILE + PAD], bs[GS_MM_TILE][GS_MM_TILE + PAD];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * GS_MM_TILE, col0 = blockIdx.x * GS_MM_TILE;
  T sum[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    sum[r] = 0;
  for (int k0 = 0; k0 < k; k0 += GS_MM_TILE) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int y = ty + r * STEP;
      const T a = gs_mm_get(A, lda, row0 + y, k0 + tx, m, k), b = gs_mm_get(B, ldb, k0 + y, col0 + tx, k, n);
      if (COLMAJOR) {
        as[tx][y] = a;
        bs[tx][y] = b;
      } else {
        as[y][tx] = a;
        bs[y][tx] = b;
      }
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < GS_MM_TILE; ++p)
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const int y = ty + r * STEP;
        sum[r] += COLMAJOR ? as[p][y] * bs[tx][p] : as[y][p] * bs[p][tx];
      }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (row0 + ty + r * STEP < m && col0 + tx < n) gs_mm_put(C, ldc, row0 + ty + r * STEP, col0 + tx, sum[r], acc);
}

/* ---- 7: "simt", a register-blocked, warp-tiled GEMM ---------------------------------------
 *
 * A block of 2 BM threads owns a BM x BN tile of C (BN = 16 TN) and walks k in steps of BK:
 *   - Warps as BM / 32 (M) x 2 (N), each a 32 x 8 TN warp tile; a warp's lanes as 4 (M) x 8 (N),
 *     each an 8 x TN thread tile held in registers. A thread's 8 rows are 8 / V groups of V
 *     consecutive rows, 4 V apart, its TN columns TN / V groups of V, 8 V apart, where
 *     V = 16 / sizeof(T) (4 floats, 2 doubles): each group is one 16-byte shared load (LDS.128),
 *     and a warp's load of one group touches 4 (A: broadcast) or 8 (B) consecutive 16-byte words,
 *     one shared-memory wavefront, no bank conflict. Per k step a thread does 8 TN FMAs for
 *     (8 + TN) / V LDS.128.
 *   - Shared memory holds STAGES k-tiles (a ring): A transposed, as[k][m] (padded by V so the
 *     transposing 4-byte stores of a warp spread over all banks and rows stay 16-byte aligned),
 *     B as it is, bs[k][n]. Tiles are filled by cp.async (global -> shared without registers).
 *   - The main loop keeps the shared-memory loads one k step ahead of the FMAs that use them,
 *     across tile boundaries too: at a tile's last k step the thread already holds that step's
 *     fragments, so one barrier there both publishes tile t + 1 (waited for first) and frees tile
 *     t's stage, which takes the copies of tile t + STAGES right after the loads of tile t + 1's
 *     first fragments: STAGES - 1 tiles stay in flight while one is read.
 *   - Copies: a tile that lies wholly inside A and B (the block inside m and n, k covering the
 *     tile) comes through two pointers advanced a tile at a time, with no edge checks (the
 *     checked copies spend more instructions on addresses than the tile has shared loads: at
 *     BK = 8 the loop was 150 integer instructions to 512 FMAs). Other tiles are copied element
 *     by element with checks; cp.async's source size zero-fills what lies outside the matrix, so
 *     ragged m, n and k read nothing outside A or B. A is copied element by element (the copy
 *     transposes it), B in 16-byte vectors when B and ldb allow (VEC), element by element
 *     otherwise.
 *   - The epilogue stores V-wide vectors where C and ldc allow (VEC) and the group lies inside n,
 *     guarded scalars elsewhere.
 * float: 64 x 128 x 16 tiles of 128 threads, 8 x 8 per thread, 3 stages (38 KB), 3 blocks per SM
 * (168 registers). Measured on an H100 (docs/performance.md): 128 x 128 tiles of 256 threads at 2
 * blocks per SM sit on the 128-register cap and spill; BK 8 costs twice the barriers; a third
 * stage gains 1-3%; BK 32, 8 x 16 per thread (64 x 256 or 128 x 256 tiles) and an mbarrier
 * pipeline in place of the barrier were slower or no faster; so were 12 x 8 and 16 x 8 per thread
 * (8 warps per SM), A's tile stored untransposed (16-byte copies, but 5x the register-bank
 * conflicts), copies spread over the k steps, and a loop body of 8 k steps (7-20% slower).
 * On an H200: all of an SM's warps in one block of 8 or 12 (5-10% slower: one barrier stops the
 * SM), a barrier every second tile (4-6 stages, 1% slower), the copies issued before the barrier
 * into the stage the previous one freed, as CUTLASS does (1.5-2.3% slower), a tile's copies in
 * two halves, the second some k steps into the next tile (3.1-3.5% slower), and the copies' row
 * offsets as kernel parameters (0.6% slower). That last one removes the chain of 64-bit adds the
 * compiler makes of gs_mm_feed_next's row steps. Probably the chain helps by spacing the copies
 * out: copies queued together delay the next fragments' shared loads (as at the barrier step).
 * double: 128 x 128 x 8, 256 threads, one block per SM (64 accumulators are 128 registers),
 * 2 stages (33 KB, under the 48 KB of static shared memory). -D knobs for tuning runs:
 * GS_MM_BM_F, GS_MM_TN_F, GS_MM_BK_F, GS_MM_STAGES_F, GS_MM_MINB_F, GS_MM_ZIGZAG. */
#ifndef GS_MM_BM_F
#define GS_MM_BM_F 64
#endif
#ifndef GS_MM_TN_F
#define GS_MM_TN_F 8
#endif
#ifndef GS_MM_BK_F
#define GS_MM_BK_F 16
#endif
#ifndef GS_MM_STAGES_F
#define GS_MM_STAGES_F 3
#endif
#ifndef GS_MM_MINB_F
#define GS_MM_MINB_F 3
#endif
#ifndef GS_MM_ZIGZAG
#define GS_MM_ZIGZAG 2 /* the FMAs' order in the outer product (gs_mm_outer) */
#endif
#ifndef GS_MM_SIMT_GROUP
#define GS_MM_SIMT_GROUP 8 /* tile rows per group of the block order (gs_mm_tile); 1: row by row */
#endif

/* The tiling of one type (above). */
template <typename T> struct gs_mm_shape;
template <> struct gs_mm_shape<float> {
  static constexpr int BM = GS_MM_BM_F, TN = GS_MM_TN_F, BK = GS_MM_BK_F, STAGES = GS_MM_STAGES_F;
  static constexpr int MINB = GS_MM_MINB_F, V = 4;
};
template <> struct gs_mm_shape<double> { static constexpr int BM = 128, TN = 8, BK = 8, STAGES = 2, MINB = 1, V = 2; };
/* What follows from it: PER elements of A, PERV vectors or PERB elements of B copied per thread
 * and tile; SMEM bytes of dynamic shared memory. */
template <typename T> struct gs_mm : gs_mm_shape<T> {
  using P = gs_mm_shape<T>;
  static constexpr int BN = 16 * P::TN, THREADS = 2 * P::BM, WARPS_M = P::BM / 32, AROW = P::BM + P::V;
  static constexpr int PER = P::BM * P::BK / THREADS, PERV = P::BK * BN / P::V / THREADS, PERB = P::BK * BN / THREADS;
  static_assert(P::BM % 32 == 0 && P::TN % P::V == 0 && THREADS % P::BK == 0, "whole warps and copies");
  static_assert(PER * THREADS == P::BM * P::BK && PERV * THREADS * P::V == P::BK * BN, "whole copies per thread");
  static_assert(P::BK % 2 == 0 && P::STAGES >= 2, "the fragment double buffer alternates across tiles");
  static constexpr int SMEM = P::STAGES * P::BK * (AROW + BN) * (int)sizeof(T); /* bytes, dynamic */
};

/* Issue the copies of k-tile [k0, k0 + BK) of A (rows row0..) and B (columns col0..) into one
 * stage, every element checked against the matrices' edges: for the tiles that cross one.
 * A: lanes run along k (a warp reads 32 / BK rows x BK k). */
template <typename T, bool VEC>
static __device__ __forceinline__ void gs_mm_load_edge(T (*as)[gs_mm<T>::AROW], T (*bs)[gs_mm<T>::BN], int m, int n,
                                                       int k, const T *A, size_t lda, const T *B, size_t ldb, int row0,
                                                       int col0, int k0) {
  using H = gs_mm<T>;
#pragma unroll
  for (int q = 0; q < H::PER; ++q) {
    const int e = threadIdx.x + q * H::THREADS, r = e / H::BK, kk = e % H::BK;
    const bool in = row0 + r < m && k0 + kk < k;
    const T *src = in ? A + (size_t)(row0 + r) * lda + (k0 + kk) : A;
    gs_mm_cp_async<sizeof(T)>(&as[kk][r], src, in ? (int)sizeof(T) : 0);
  }
  if (VEC) { /* B in V-wide vectors: BN / V per row */
    constexpr int ROWV = H::BN / H::V;
#pragma unroll
    for (int q = 0; q < H::PERV; ++q) {
      const int e = threadIdx.x + q * H::THREADS, kk = e / ROWV, c = (e % ROWV) * H::V;
      const int left = k0 + kk < k ? n - (col0 + c) : 0, cnt = left < 0 ? 0 : (left > H::V ? H::V : left);
      const T *src = cnt ? B + (size_t)(k0 + kk) * ldb + (col0 + c) : B;
      gs_mm_cp_async<16>(&bs[kk][c], src, cnt * (int)sizeof(T));
    }
  } else {
#pragma unroll
    for (int q = 0; q < H::PERB; ++q) {
      const int e = threadIdx.x + q * H::THREADS, kk = e / H::BN, c = e % H::BN;
      const bool in = k0 + kk < k && col0 + c < n;
      const T *src = in ? B + (size_t)(k0 + kk) * ldb + (col0 + c) : B;
      gs_mm_cp_async<sizeof(T)>(&bs[kk][c], src, in ? (int)sizeof(T) : 0);
    }
  }
}

/* The copies of the tiles that lie wholly inside A and B, in tile order: this thread's first
 * element of A and first piece of B in the next tile; its other elements of A are THREADS / BK
 * rows apart, its other pieces of B BROWS rows apart. A piece of B is a 16-byte vector (VEC) or
 * one element (B or ldb not 16-byte aligned). */
template <typename T, bool VEC> struct gs_mm_feed {
  static constexpr int BW = VEC ? gs_mm<T>::V : 1;                 /* elements per piece of B */
  static constexpr int ROW = gs_mm<T>::BN / BW;                    /* pieces per row of B's tile */
  static constexpr int BROWS = gs_mm<T>::THREADS / ROW;            /* rows between a thread's pieces */
  static constexpr int NB = VEC ? gs_mm<T>::PERV : gs_mm<T>::PERB; /* pieces per thread */
  static_assert(gs_mm<T>::THREADS % ROW == 0, "a row of B's tile in whole pieces per thread");
  const T *a, *b;
  size_t astep, bstep, bnext; /* THREADS / BK rows of A, BROWS rows of B, BK rows of B */
};

template <typename T, bool VEC>
static __device__ __forceinline__ gs_mm_feed<T, VEC> gs_mm_feed_init(const T *A, size_t lda, const T *B, size_t ldb,
                                                                     int row0, int col0) {
  using H = gs_mm<T>;
  using F = gs_mm_feed<T, VEC>;
  const int t = threadIdx.x;
  return F{A + (size_t)(row0 + t / H::BK) * lda + t % H::BK,
           B + (size_t)(t / F::ROW) * ldb + col0 + (t % F::ROW) * F::BW, (size_t)(H::THREADS / H::BK) * lda,
           (size_t)F::BROWS * ldb, (size_t)H::BK * ldb};
}

/* Issue the copies of the feed's next tile into one stage and advance the feed by a tile. */
template <typename T, bool VEC>
static __device__ __forceinline__ void gs_mm_feed_next(T (*as)[gs_mm<T>::AROW], T (*bs)[gs_mm<T>::BN],
                                                       gs_mm_feed<T, VEC> &f) {
  using H = gs_mm<T>;
  using F = gs_mm_feed<T, VEC>;
  const int t = threadIdx.x;
  T *adst = &as[t % H::BK][t / H::BK], *bdst = &bs[t / F::ROW][(t % F::ROW) * F::BW];
#pragma unroll
  for (int q = 0; q < H::PER; ++q)
    gs_mm_cp_async<sizeof(T)>(adst + q * (H::THREADS / H::BK), f.a + q * f.astep, (int)sizeof(T));
#pragma unroll
  for (int q = 0; q < F::NB; ++q)
    gs_mm_cp_async<F::BW * sizeof(T)>(bdst + q * F::BROWS * H::BN, f.b + q * f.bstep, F::BW * (int)sizeof(T));
  f.a += H::BK;
  f.b += f.bnext;
}

/* Issue the copies of k-tile t into one stage (fast for t < full, checked otherwise; nothing for
 * t >= ktiles) and commit them as one group, empty or not, so the group count stays exact. */
template <typename T, bool VEC>
static __device__ __forceinline__ void gs_mm_load(T (*as)[gs_mm<T>::AROW], T (*bs)[gs_mm<T>::BN], gs_mm_feed<T, VEC> &f,
                                                  int t, int full, int ktiles, int m, int n, int k, const T *A,
                                                  size_t lda, const T *B, size_t ldb, int row0, int col0) {
  if (t < full)
    gs_mm_feed_next<T, VEC>(as, bs, f);
  else if (t < ktiles)
    gs_mm_load_edge<T, VEC>(as, bs, m, n, k, A, lda, B, ldb, row0, col0, t * gs_mm<T>::BK);
  gs_mm_cp_commit();
}

/* One 16-byte shared load of V values. */
static __device__ __forceinline__ void gs_mm_lds(float *d, const float *s) {
  const float4 v = *reinterpret_cast<const float4 *>(s);
  d[0] = v.x, d[1] = v.y, d[2] = v.z, d[3] = v.w;
}
static __device__ __forceinline__ void gs_mm_lds(double *d, const double *s) {
  const double2 v = *reinterpret_cast<const double2 *>(s);
  d[0] = v.x, d[1] = v.y;
}

/* The thread's fragments of row kk of a stage: 8 values of A's column and TN of B's row; wm, wn:
 * the first row and column of the thread's fragments inside the block tile. */
template <typename T>
static __device__ __forceinline__ void gs_mm_frag(T (&a)[8], T (&b)[gs_mm<T>::TN], const T *as_kk, const T *bs_kk,
                                                  int wm, int wn) {
  constexpr int V = gs_mm<T>::V;
#pragma unroll
  for (int g = 0; g < 8 / V; ++g)
    gs_mm_lds(&a[g * V], as_kk + wm + g * 4 * V);
#pragma unroll
  for (int g = 0; g < gs_mm<T>::TN / V; ++g)
    gs_mm_lds(&b[g * V], bs_kk + wn + g * 8 * V);
}

/* acc += a b^T, the thread's outer product of one k step. The FMAs snake through it (GS_MM_ZIGZAG
 * 2: down column j, up column j + 1; 1: along row i, back along row i + 1; 0: row by row), so
 * consecutive FMAs share an operand that the register reuse cache supplies: in the SASS, of 1024
 * FMAs per tile, 1041 / 247 / 133 extra same-bank operand reads (2-bank model) for orders 0 / 1 /
 * 2. Each output's sum over k keeps its order: the same bits whatever the order. */
template <typename T>
static __device__ __forceinline__ void gs_mm_outer(T (&acc)[8][gs_mm<T>::TN], const T (&a)[8],
                                                   const T (&b)[gs_mm<T>::TN]) {
  constexpr int TN = gs_mm<T>::TN;
  if constexpr (GS_MM_ZIGZAG == 2) {
#pragma unroll
    for (int j = 0; j < TN; ++j)
#pragma unroll
      for (int ii = 0; ii < 8; ++ii) {
        const int i = (j & 1) ? 7 - ii : ii;
        acc[i][j] = fma(a[i], b[j], acc[i][j]);
      }
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int jj = 0; jj < TN; ++jj) {
        const int j = GS_MM_ZIGZAG == 1 && (i & 1) ? TN - 1 - jj : jj;
        acc[i][j] = fma(a[i], b[j], acc[i][j]);
      }
  }
}

/* Store (or add) the thread's 8 x TN outputs; row0, col0: the global position of (wm, wn). */
template <typename T, bool VEC>
static __device__ __forceinline__ void gs_mm_store_tile(T *C, size_t ldc, int m, int n, int row0, int col0,
                                                        const T (&acc)[8][gs_mm<T>::TN], int accumulate) {
  constexpr int V = gs_mm<T>::V;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i / V) * 4 * V + i % V;
    if (r >= m) continue;
    T *crow = C + (size_t)r * ldc;
#pragma unroll
    for (int g = 0; g < gs_mm<T>::TN / V; ++g) {
      const int c = col0 + g * 8 * V;
      if (VEC && c + V <= n) {
        T v[V];
        if (accumulate) gs_mm_lds(v, crow + c); /* a 16-byte global load, as aligned as the store */
#pragma unroll
        for (int e = 0; e < V; ++e)
          v[e] = accumulate ? v[e] + acc[i][g * V + e] : acc[i][g * V + e];
        if constexpr (V == 4)
          *reinterpret_cast<float4 *>(crow + c) = make_float4(v[0], v[1], v[2], v[3]);
        else
          *reinterpret_cast<double2 *>(crow + c) = make_double2(v[0], v[1]);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (c + e < n) crow[c + e] = accumulate ? crow[c + e] + acc[i][g * V + e] : acc[i][g * V + e];
      }
    }
  }
}

template <typename T, bool VEC>
static __global__ void __launch_bounds__(gs_mm<T>::THREADS, gs_mm<T>::MINB)
    gs_mm_simt(int m, int n, int k, const T *__restrict__ A, size_t lda, const T *__restrict__ B, size_t ldb,
               T *__restrict__ C, size_t ldc, int accumulate) {
  using H = gs_mm<T>;
  constexpr int S = H::STAGES, BK = H::BK, TN = H::TN;
  extern __shared__ __align__(16) unsigned char gs_mm_simt_smem[]; /* may pass the 48 KB of static */
  T(*const as)[BK][H::AROW] = reinterpret_cast<T(*)[BK][H::AROW]>(gs_mm_simt_smem);
  T(*const bs)[BK][H::BN] = reinterpret_cast<T(*)[BK][H::BN]>(gs_mm_simt_smem + S * BK * H::AROW * sizeof(T));
  int tm, tn;
  gs_mm_tile(GS_MM_SIMT_GROUP, &tm, &tn);
  const int row0 = tm * H::BM, col0 = tn * H::BN, ktiles = (k + BK - 1) / BK;
  /* Tiles 0 .. full - 1 lie wholly inside A and B. */
  const int full = row0 + H::BM <= m && col0 + H::BN <= n ? k / BK : 0;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp % H::WARPS_M) * 32 + (lane / 8) * H::V, wn = (warp / H::WARPS_M) * 8 * TN + (lane % 8) * H::V;
  gs_mm_feed<T, VEC> f = gs_mm_feed_init<T, VEC>(A, lda, B, ldb, row0, col0);
#pragma unroll
  for (int s = 0; s < S; ++s)
    gs_mm_load<T, VEC>(as[s], bs[s], f, s, full, ktiles, m, n, k, A, lda, B, ldb, row0, col0);
  T acc[8][TN];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0;
  T fa[2][8], fb[2][TN];
  gs_mm_cp_wait<S - 1>(); /* S groups committed: tile 0 has landed */
  __syncthreads();
  gs_mm_frag<T>(fa[0], fb[0], as[0][0], bs[0][0], wm, wn);
  int cur = 0; /* the stage of tile t */
  for (int t = 0; t < ktiles; ++t) {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk < BK - 1) {
        gs_mm_frag<T>(fa[(kk + 1) % 2], fb[(kk + 1) % 2], as[cur][kk + 1], bs[cur][kk + 1], wm, wn);
      } else {
        /* S + t groups committed: at most S - 2 pending means tile t + 1 has landed. */
        gs_mm_cp_wait<S - 2>();
        __syncthreads();
        /* With 16-byte copies of B, the copies into the freed stage go after the next tile's first
         * fragment loads: ahead of them in the shared-memory queue they delayed those loads, and
         * FMAs writing a register that a queued load or copy still read waited (ncu: 0.6% of issue
         * slots; this order: +0.9% at N = 16384, +1.3% at 8192). With element copies of B the
         * copies-first order measured 8% faster, so it stays there. */
        const int done = cur;
        const auto refill = [&] {
          gs_mm_load<T, VEC>(as[done], bs[done], f, t + S, full, ktiles, m, n, k, A, lda, B, ldb, row0, col0);
        };
        cur = cur + 1 == S ? 0 : cur + 1;
        if constexpr (!VEC) refill();
        if (t + 1 < ktiles) gs_mm_frag<T>(fa[0], fb[0], as[cur][0], bs[cur][0], wm, wn);
        if constexpr (VEC) refill();
      }
      gs_mm_outer<T>(acc, fa[kk % 2], fb[kk % 2]);
    }
  }
  gs_mm_store_tile<T, VEC>(C, ldc, m, n, row0 + wm, col0 + wn, acc, accumulate);
}

/* ---- the launcher ------------------------------------------------------------------------- */

/* The arguments of one launch, typed. */
template <typename T> struct gs_mm_args {
  int m, n, k;
  const T *A;
  size_t lda;
  const T *B;
  size_t ldb;
  T *C;
  size_t ldc;
  int acc;
};

template <typename T> static bool gs_mm_aligned(const void *p, size_t ld) {
  return (reinterpret_cast<uintptr_t>(p) % 16) == 0 && ld % gs_mm<T>::V == 0;
}

/* One launch of kernel on a.m <= 65535 tile rows. */
template <typename T> static cudaError_t gs_mm_launch_one(int kernel, const gs_mm_args<T> &a, cudaStream_t s) {
  const dim3 tiles32((a.n + GS_MM_TILE - 1) / GS_MM_TILE, (a.m + GS_MM_TILE - 1) / GS_MM_TILE);
  const dim3 full(GS_MM_TILE, GS_MM_TILE), half(GS_MM_TILE, GS_MM_TILE / 2), quarter(GS_MM_TILE, GS_MM_TILE / 4);
#define GS_MM_ARGS a.m, a.n, a.k, a.A, a.lda, a.B, a.ldb, a.C, a.ldc, a.acc
  switch (kernel) {
  case GS_MK_GLOBAL:
    gs_mm_global<T><<<tiles32, full, 0, s>>>(GS_MM_ARGS);
    break;
  case GS_MK_SMEM1:
    gs_mm_smem<T, 1, 0, true><<<tiles32, full, 0, s>>>(GS_MM_ARGS);
    break;
  case GS_MK_SMEM2:
    gs_mm_smem<T, 1, 1, true><<<tiles32, full, 0, s>>>(GS_MM_ARGS);
    break;
  case GS_MK_SMEM3:
    gs_mm_smem<T, 1, 0, false><<<tiles32, full, 0, s>>>(GS_MM_ARGS);
    break;
  case GS_MK_SMEM4:
    gs_mm_smem<T, 2, 0, false><<<tiles32, half, 0, s>>>(GS_MM_ARGS);
    break;
  case GS_MK_SMEM5:
    gs_mm_smem<T, 4, 0, false><<<tiles32, quarter, 0, s>>>(GS_MM_ARGS);
    break;
  case GS_MK_SIMT: {
    const dim3 grid((a.n + gs_mm<T>::BN - 1) / gs_mm<T>::BN, (a.m + gs_mm<T>::BM - 1) / gs_mm<T>::BM);
    const bool vec = gs_mm_aligned<T>(a.B, a.ldb) && gs_mm_aligned<T>(a.C, a.ldc);
    const auto simt = vec ? gs_mm_simt<T, true> : gs_mm_simt<T, false>;
    const cudaError_t e = cudaFuncSetAttribute(simt, cudaFuncAttributeMaxDynamicSharedMemorySize, gs_mm<T>::SMEM);
    if (e != cudaSuccess) return e;
    simt<<<grid, gs_mm<T>::THREADS, gs_mm<T>::SMEM, s>>>(GS_MM_ARGS);
    break;
  }
  default:
    return cudaErrorInvalidValue;
  }
#undef GS_MM_ARGS
  return cudaGetLastError();
}

/* Our kernels on the whole matrix, in slices of at most 65535 tile rows (gridDim.y). */
template <typename T>
static cudaError_t gs_mm_run(int kernel, int m, int n, int k, const void *A, size_t lda, const void *B, size_t ldb,
                             void *C, size_t ldc, int acc, cudaStream_t s) {
  const int rows = 65535 * (kernel == GS_MK_SIMT ? gs_mm<T>::BM : GS_MM_TILE);
  for (int r = 0; r < m; r += rows) {
    const gs_mm_args<T> a = {m - r < rows ? m - r : rows,
                             n,
                             k,
                             static_cast<const T *>(A) + (size_t)r * lda,
                             lda,
                             static_cast<const T *>(B),
                             ldb,
                             static_cast<T *>(C) + (size_t)r * ldc,
                             ldc,
                             acc};
    const cudaError_t e = gs_mm_launch_one<T>(kernel, a, s);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

static bool gs_mm_is_cublas(int kernel) { return kernel == GS_MK_CUBLAS || kernel == GS_MK_CUBLAS_TF32; }

/* cudaErrorInvalidValue for arguments no kernel takes, cudaErrorNotSupported for cuBLAS in a
 * build without it, cudaSuccess otherwise. A matrix with no element may be NULL; its leading
 * dimension must still cover its row. */
static cudaError_t gs_mm_check(const struct gs_cuda_ctx *c, int kernel, int dtype, uint64_t m, uint64_t n, uint64_t k,
                               const void *A, uint64_t lda, const void *B, uint64_t ldb, const void *C, uint64_t ldc) {
  if (!c || kernel < GS_MK_GLOBAL || kernel >= GS_MK_COUNT) return cudaErrorInvalidValue;
  if (dtype != GS_DTYPE_FLOAT && dtype != GS_DTYPE_DOUBLE) return cudaErrorInvalidValue;
  const bool float_only = kernel == GS_MK_CUBLAS_TF32 || kernel == GS_MK_TC32 || kernel == GS_MK_WGMMA;
  if (float_only && dtype != GS_DTYPE_FLOAT) return cudaErrorInvalidValue;
  if (kernel == GS_MK_DMMA && dtype != GS_DTYPE_DOUBLE) return cudaErrorInvalidValue;
#ifndef GS_HAVE_CUBLAS
  if (gs_mm_is_cublas(kernel)) return cudaErrorNotSupported;
#endif
  if (m > GS_MM_DIM_MAX || n > GS_MM_DIM_MAX || k > GS_MM_DIM_MAX) return cudaErrorInvalidValue;
  if (lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX) return cudaErrorInvalidValue;
  if (lda < k || ldb < n || ldc < n) return cudaErrorInvalidValue;
  if ((m && k && !A) || (k && n && !B) || (m && n && !C)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

extern "C" int gs_matmul_kernels_launch(struct gs_cuda_ctx *c, int kernel, int dtype, uint64_t m, uint64_t n,
                                        uint64_t k, const void *A, uint64_t lda, const void *B, uint64_t ldb, void *C,
                                        uint64_t ldc, int accumulate, void *stream) {
  const cudaError_t bad = gs_mm_check(c, kernel, dtype, m, n, k, A, lda, B, ldb, C, ldc);
  if (bad != cudaSuccess) return (int)bad;
  if (m == 0 || n == 0) return (int)cudaSuccess;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const size_t es = gs_dtype_size((enum gs_dtype)dtype);
  /* k = 0: the product is the zero matrix (cuBLAS too takes this path, for one answer). */
  if (k == 0) return accumulate ? (int)cudaSuccess : (int)cudaMemset2DAsync(C, ldc * es, 0, n * es, m, s);
#ifdef GS_HAVE_CUBLAS
  if (gs_mm_is_cublas(kernel))
    return gs_matmul_cublas_gemm(c, kernel == GS_MK_CUBLAS_TF32, dtype, m, n, k, A, lda, B, ldb, C, ldc, accumulate,
                                 stream);
#endif
  if (kernel == GS_MK_WGMMA)
    return (int)gs_matmul_wgmma_launch(c, (int)m, (int)n, (int)k, static_cast<const float *>(A), lda,
                                       static_cast<const float *>(B), ldb, static_cast<float *>(C), ldc, accumulate, s);
  if (kernel == GS_MK_DMMA || kernel == GS_MK_TC32)
    return (int)gs_matmul_tc_launch(c, kernel, (int)m, (int)n, (int)k, A, lda, B, ldb, C, ldc, accumulate, s);
  if (dtype == GS_DTYPE_FLOAT)
    return (int)gs_mm_run<float>(kernel, (int)m, (int)n, (int)k, A, lda, B, ldb, C, ldc, accumulate, s);
  return (int)gs_mm_run<double>(kernel, (int)m, (int)n, (int)k, A, lda, B, ldb, C, ldc, accumulate, s);
}

extern "C" const char *gs_matmul_kernels_error_string(int e) {
  if (e >= GS_MATMUL_CUBLAS_STATUS) {
#ifdef GS_HAVE_CUBLAS
    return cublasGetStatusName(static_cast<cublasStatus_t>(e - GS_MATMUL_CUBLAS_STATUS));
#else
    return "a cuBLAS status in a build without cuBLAS";
#endif
  }
  return cudaGetErrorString(static_cast<cudaError_t>(e));
}
