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

/* ---- 7: "simt", a register-blocked, warp-tiled GEMM on packed tiles -------------------------
 *
 * A block of 2 BM threads owns a BM x BN tile of C (BN = 16 TN) and walks k in steps of BK:
 *   - Warps as BM / 32 (M) x 2 (N), each a 32 x 8 TN warp tile; a warp's lanes as 4 (M) x 8 (N),
 *     each an 8 x TN thread tile held in registers. A thread's 8 rows are 8 / V groups of V
 *     consecutive rows, 4 V apart, its TN columns TN / V groups of V, 8 V apart, where
 *     V = 16 / sizeof(T) (4 floats, 2 doubles): each group is one 16-byte shared load (LDS.128),
 *     and a warp's load of one group touches 4 (A: broadcast) or 8 (B) consecutive 16-byte words,
 *     one shared-memory wavefront, no bank conflict. Per k step a thread does 8 TN FMAs for
 *     (8 + TN) / V LDS.128.
 *   - A and B come packed (gs_mm_pack_a, gs_mm_pack_b: launched before the kernel, on its stream,
 *     into c's workspace): each k-tile of A, transposed (BK x BM), and of B (BK x BN) is one
 *     contiguous block, zero where it lies outside the matrix. Every copy is then a 16-byte
 *     cp.async (global -> shared without registers) at a fixed offset from one pointer per
 *     operand, the same for any m, n, k, leading dimension and alignment, with no edge checks.
 *     Unpacked, a thread copied A element by element (the copy transposed it) through a chain of
 *     64-bit address adds, B by vectors only where B and ldb allowed, and tiles at an edge through
 *     a checked path: integer work that kept the registers above 128. The packs read and write
 *     each operand once, a few per cent of the product's time (docs/performance.md).
 *   - Shared memory holds STAGES k-tiles (a ring): as[k][m] and bs[k][n], rows as packed.
 *   - The main loop keeps the shared-memory loads one k step ahead of the FMAs that use them,
 *     across tile boundaries too: at a tile's last k step the thread already holds that step's
 *     fragments, so one barrier there both publishes tile t + 1 (waited for first) and frees tile
 *     t's stage, which takes the copies of tile t + STAGES right after the loads of tile t + 1's
 *     first fragments: STAGES - 1 tiles stay in flight while one is read.
 *   - The epilogue stores V-wide vectors where C and ldc allow (VEC) and the group lies inside n,
 *     guarded scalars elsewhere; rows past m (the packed zeros) are not stored.
 * float: 64 x 128 x 32 tiles of 128 threads, 8 x 8 per thread, 2 stages (48 KB), 4 blocks per SM
 * (128 registers: 16 warps), FMAs in row-snake order. With both operands packed ptxas fits the
 * kernel in 128 registers, so 4 blocks share an SM and a barrier stops only a quarter of its
 * warps; k-tiles of 32 halve the barriers per FMA, and 2 stages of them still fit 4 blocks in
 * shared memory. Each step, and the shapes, pipelines and copy orders that measured slower, are in
 * docs/performance.md (matmul sections from "The SIMT and FP64 kernels reworked" on).
 * double: 128 x 128 x 8, 256 threads, one block per SM (64 accumulators are 128 registers),
 * 2 stages (32 KB, under the 48 KB of static shared memory), FMAs in column-snake order.
 * -D knobs for tuning runs: GS_MM_BM_F, GS_MM_TN_F, GS_MM_BK_F, GS_MM_STAGES_F, GS_MM_MINB_F,
 * GS_MM_ZIGZAG_F. */
#ifndef GS_MM_BM_F
#define GS_MM_BM_F 64
#endif
#ifndef GS_MM_TN_F
#define GS_MM_TN_F 8
#endif
#ifndef GS_MM_BK_F
#define GS_MM_BK_F 32
#endif
#ifndef GS_MM_STAGES_F
#define GS_MM_STAGES_F 2
#endif
#ifndef GS_MM_MINB_F
#define GS_MM_MINB_F 4
#endif
#ifndef GS_MM_ZIGZAG_F
#define GS_MM_ZIGZAG_F 1 /* the FMAs' order in the outer product (gs_mm_outer) */
#endif
#ifndef GS_MM_SIMT_GROUP
#define GS_MM_SIMT_GROUP 8 /* tile rows per group of the block order (gs_mm_tile); 1: row by row */
#endif

/* The tiling of one type (above); ZZ: the FMA order of gs_mm_outer. */
template <typename T> struct gs_mm_shape;
template <> struct gs_mm_shape<float> {
  static constexpr int BM = GS_MM_BM_F, TN = GS_MM_TN_F, BK = GS_MM_BK_F, STAGES = GS_MM_STAGES_F;
  static constexpr int MINB = GS_MM_MINB_F, V = 4, ZZ = GS_MM_ZIGZAG_F;
};
template <> struct gs_mm_shape<double> {
  static constexpr int BM = 128, TN = 8, BK = 8, STAGES = 2, MINB = 1, V = 2, ZZ = 2;
};
/* What follows from it: CHUNKA and CHUNKB elements per packed k-tile of A and of B; SMEM bytes of
 * dynamic shared memory. */
template <typename T> struct gs_mm : gs_mm_shape<T> {
  using P = gs_mm_shape<T>;
  static constexpr int BN = 16 * P::TN, THREADS = 2 * P::BM, WARPS_M = P::BM / 32;
  static constexpr int CHUNKA = P::BM * P::BK, CHUNKB = P::BK * BN;
  static_assert(P::BM % 32 == 0 && P::TN % P::V == 0, "whole warps and fragments");
  static_assert(CHUNKA % (THREADS * P::V) == 0 && CHUNKB % (THREADS * P::V) == 0, "whole copies per thread");
  static_assert(THREADS * P::V % P::BM == 0 && THREADS * P::V % BN == 0, "a thread's copies in one column");
  static_assert(P::BK % 2 == 0 && P::STAGES >= 2, "the fragment double buffer alternates across tiles");
  static constexpr int SMEM = P::STAGES * (CHUNKA + CHUNKB) * (int)sizeof(T); /* bytes, dynamic */
};

/* Issue the copies of one packed tile (ROWS x COLS elements, contiguous at src) into shared
 * memory of row stride LD: 16-byte copies, a warp's covering 512 consecutive bytes. */
template <typename T, int ROWS, int COLS, int LD>
static __device__ __forceinline__ void gs_mm_copy_tile(T *dst, const T *src) {
  using H = gs_mm<T>;
  constexpr int PER = ROWS * COLS / (H::THREADS * H::V), STEP = H::THREADS * H::V / COLS; /* rows between copies */
  const int e = threadIdx.x * H::V;
  dst += e / COLS * LD + e % COLS;
  src += e;
#pragma unroll
  for (int q = 0; q < PER; ++q)
    gs_mm_cp_async<16>(dst + q * STEP * LD, src + q * H::THREADS * H::V, 16);
}

/* Issue the copies of k-tile t (a and b: its packed tiles of A and B; nothing for t >= ktiles)
 * into one stage, advance a and b to the next, and commit the copies as one group, empty or not,
 * so the group count stays exact. */
template <typename T>
static __device__ __forceinline__ void gs_mm_load(T (*as)[gs_mm<T>::BM], T (*bs)[gs_mm<T>::BN], const T *&a,
                                                  const T *&b, int t, int ktiles) {
  using H = gs_mm<T>;
  if (t < ktiles) {
    gs_mm_copy_tile<T, H::BK, H::BM, H::BM>(&as[0][0], a);
    gs_mm_copy_tile<T, H::BK, H::BN, H::BN>(&bs[0][0], b);
    a += H::CHUNKA;
    b += H::CHUNKB;
  }
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

/* One 16-byte store of V values. */
static __device__ __forceinline__ void gs_mm_stv(float *d, const float *v) {
  *reinterpret_cast<float4 *>(d) = make_float4(v[0], v[1], v[2], v[3]);
}
static __device__ __forceinline__ void gs_mm_stv(double *d, const double *v) {
  *reinterpret_cast<double2 *>(d) = make_double2(v[0], v[1]);
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

/* acc += a b^T, the thread's outer product of one k step. The FMAs snake through it (ZZ 2: down
 * column j, up column j + 1; 1: along row i, back along row i + 1; 0: row by row), so consecutive
 * FMAs share an operand that the register reuse cache supplies. Which order has the fewest
 * same-bank operand reads depends on ptxas's register assignment, which shifts with any change
 * to the kernel, and the fewest reads need not be the fastest: so the order is a knob (ZZ, from
 * GS_MM_ZIGZAG_F for float), set to the one measured fastest on the current kernel (the counts
 * and timings of each: docs/performance.md). Each output's sum over k keeps its order: the same
 * bits whatever the order. */
template <typename T>
static __device__ __forceinline__ void gs_mm_outer(T (&acc)[8][gs_mm<T>::TN], const T (&a)[8],
                                                   const T (&b)[gs_mm<T>::TN]) {
  constexpr int TN = gs_mm<T>::TN;
  if constexpr (gs_mm<T>::ZZ == 2) {
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
        const int j = gs_mm<T>::ZZ == 1 && (i & 1) ? TN - 1 - jj : jj;
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
        gs_mm_stv(crow + c, v);
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
    gs_mm_simt(int m, int n, int ktiles, const T *__restrict__ Ap, const T *__restrict__ Bp, T *__restrict__ C,
               size_t ldc, int accumulate) {
  using H = gs_mm<T>;
  constexpr int S = H::STAGES, BK = H::BK, TN = H::TN;
  extern __shared__ __align__(16) unsigned char gs_mm_simt_smem[]; /* may pass the 48 KB of static */
  T(*const as)[BK][H::BM] = reinterpret_cast<T(*)[BK][H::BM]>(gs_mm_simt_smem);
  T(*const bs)[BK][H::BN] = reinterpret_cast<T(*)[BK][H::BN]>(gs_mm_simt_smem + S * BK * H::BM * sizeof(T));
  int tm, tn;
  gs_mm_tile(GS_MM_SIMT_GROUP, &tm, &tn);
  const int row0 = tm * H::BM, col0 = tn * H::BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp % H::WARPS_M) * 32 + (lane / 8) * H::V, wn = (warp / H::WARPS_M) * 8 * TN + (lane % 8) * H::V;
  const T *a = Ap + (size_t)tm * ktiles * H::CHUNKA, *b = Bp + (size_t)tn * ktiles * H::CHUNKB;
#pragma unroll
  for (int s = 0; s < S; ++s)
    gs_mm_load<T>(as[s], bs[s], a, b, s, ktiles);
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
        /* The copies into the freed stage go after the next tile's first fragment loads: ahead of
         * them in the shared-memory queue they delayed those loads, and FMAs writing a register
         * that a queued load or copy still read waited (ncu: 0.6% of issue slots; this order:
         * +0.9% at N = 16384, +1.3% at 8192). */
        const int done = cur;
        cur = cur + 1 == S ? 0 : cur + 1;
        if (t + 1 < ktiles) gs_mm_frag<T>(fa[0], fb[0], as[cur][0], bs[cur][0], wm, wn);
        gs_mm_load<T>(as[done], bs[done], a, b, t + S, ktiles);
      }
      gs_mm_outer<T>(acc, fa[kk % 2], fb[kk % 2]);
    }
  }
  gs_mm_store_tile<T, VEC>(C, ldc, m, n, row0 + wm, col0 + wn, acc, accumulate);
}

/* The packing of simt's operands (in c's workspace, by gs_mm_run_simt): A and B as tiles, each
 * tile contiguous, zero outside the matrix, so that the kernel copies whole tiles with 16-byte
 * copies and no edge checks whatever the sizes, leading dimensions and alignment:
 *   A: tile (tm, kt) at (tm ktiles + kt) CHUNKA, A's rows [tm BM, tm BM + BM) x k [kt BK, kt BK +
 *      BK) transposed (row kk of the tile is BM elements of A's column kt BK + kk), as the
 *      kernel's as[k][m] holds it;
 *   B: tile (tn, kt) at (tn ktiles + kt) CHUNKB, B's rows [kt BK, kt BK + BK) x columns [tn BN,
 *      tn BN + BN) as they are.
 * A block packs one tile at a time (grid-stride over the tiles), reading along the matrix's rows
 * and writing 16-byte vectors. */
#define GS_MM_PACK_THREADS 256

/* k-tiles of simt's tiling of type T over depth k (the packs' and the kernel's count). */
template <typename T> static __host__ __device__ size_t gs_mm_ktiles(int k) {
  return ((size_t)k + gs_mm<T>::BK - 1) / gs_mm<T>::BK;
}

template <typename T>
static __global__ void __launch_bounds__(GS_MM_PACK_THREADS)
    gs_mm_pack_a(int m, int k, const T *__restrict__ A, size_t lda, T *__restrict__ Ap) {
  using H = gs_mm<T>;
  constexpr int BM = H::BM, BK = H::BK, V = H::V;
  static_assert(H::CHUNKA % (GS_MM_PACK_THREADS * V) == 0, "whole vectors per thread");
  __shared__ T tile[BK][BM + 1]; /* + 1: a warp's stores down the columns spread over the banks */
  const size_t ktiles = gs_mm_ktiles<T>(k), tiles = (m + (size_t)BM - 1) / BM * ktiles;
  for (size_t c = blockIdx.x; c < tiles; c += gridDim.x) {
    const int row0 = (int)(c / ktiles) * BM, k0 = (int)(c % ktiles) * BK;
#pragma unroll
    for (int q = 0; q < H::CHUNKA / GS_MM_PACK_THREADS; ++q) { /* lanes along k: BK elements of a row */
      const int e = threadIdx.x + q * GS_MM_PACK_THREADS, r = e / BK, kk = e % BK;
      tile[kk][r] = row0 + r < m && k0 + kk < k ? A[(size_t)(row0 + r) * lda + (k0 + kk)] : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < H::CHUNKA / (GS_MM_PACK_THREADS * V); ++q) {
      const int e = (threadIdx.x + q * GS_MM_PACK_THREADS) * V;
      T v[V];
#pragma unroll
      for (int i = 0; i < V; ++i)
        v[i] = tile[e / BM][e % BM + i];
      gs_mm_stv(Ap + c * H::CHUNKA + e, v);
    }
    __syncthreads();
  }
}

template <typename T>
static __global__ void __launch_bounds__(GS_MM_PACK_THREADS)
    gs_mm_pack_b(int k, int n, const T *__restrict__ B, size_t ldb, T *__restrict__ Bp) {
  using H = gs_mm<T>;
  constexpr int BN = H::BN, BK = H::BK, V = H::V;
  static_assert(H::CHUNKB % (GS_MM_PACK_THREADS * V) == 0, "whole vectors per thread");
  const size_t ktiles = gs_mm_ktiles<T>(k), tiles = (n + (size_t)BN - 1) / BN * ktiles;
  for (size_t c = blockIdx.x; c < tiles; c += gridDim.x) {
    const int col0 = (int)(c / ktiles) * BN, k0 = (int)(c % ktiles) * BK;
#pragma unroll
    for (int q = 0; q < H::CHUNKB / (GS_MM_PACK_THREADS * V); ++q) {
      const int e = (threadIdx.x + q * GS_MM_PACK_THREADS) * V, kk = e / BN, col = col0 + e % BN;
      const bool in = k0 + kk < k;
      const T *row = B + (size_t)(in ? k0 + kk : 0) * ldb; /* no address past B for the padding rows */
      T v[V];
#pragma unroll
      for (int i = 0; i < V; ++i)
        v[i] = in && col + i < n ? row[col + i] : T(0);
      gs_mm_stv(Bp + c * H::CHUNKB + e, v);
    }
  }
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
  default:
    return cudaErrorInvalidValue;
  }
#undef GS_MM_ARGS
  return cudaGetLastError();
}

/* The number of blocks of a grid-stride launch over `tiles` tiles. */
static unsigned gs_mm_pack_grid(size_t tiles) { return (unsigned)(tiles < INT_MAX ? tiles : INT_MAX); }

/* simt: A and B packed into st's workspace (gs_mm_pack_a, gs_mm_pack_b), then the product in
 * slices of at most 65535 tile rows (gridDim.y). */
template <typename T>
static cudaError_t gs_mm_run_simt(struct gs_matmul_state *st, const gs_mm_args<T> &a, cudaStream_t s) {
  using H = gs_mm<T>;
  const size_t tiles_m = (a.m + H::BM - 1) / H::BM, tiles_n = (a.n + H::BN - 1) / H::BN;
  const size_t ktiles = gs_mm_ktiles<T>(a.k), abytes = tiles_m * ktiles * H::CHUNKA * sizeof(T);
  void *ws = nullptr;
  cudaError_t e =
      static_cast<cudaError_t>(gs_matmul_kernels_workspace(st, abytes + tiles_n * ktiles * H::CHUNKB * sizeof(T), &ws));
  if (e != cudaSuccess) return e;
  T *Ap = static_cast<T *>(ws), *Bp = Ap + abytes / sizeof(T); /* whole tiles of A: Bp stays 16-byte aligned */
  gs_mm_pack_a<T><<<gs_mm_pack_grid(tiles_m * ktiles), GS_MM_PACK_THREADS, 0, s>>>(a.m, a.k, a.A, a.lda, Ap);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  gs_mm_pack_b<T><<<gs_mm_pack_grid(tiles_n * ktiles), GS_MM_PACK_THREADS, 0, s>>>(a.k, a.n, a.B, a.ldb, Bp);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  const auto simt = gs_mm_aligned<T>(a.C, a.ldc) ? gs_mm_simt<T, true> : gs_mm_simt<T, false>;
  if ((e = cudaFuncSetAttribute(simt, cudaFuncAttributeMaxDynamicSharedMemorySize, H::SMEM)) != cudaSuccess) return e;
  for (size_t r = 0; r < tiles_m; r += 65535) {
    const size_t rows = tiles_m - r < 65535 ? tiles_m - r : 65535, row0 = r * H::BM;
    const int m = (size_t)a.m - row0 < rows * H::BM ? (int)((size_t)a.m - row0) : (int)(rows * H::BM);
    const dim3 grid((unsigned)tiles_n, (unsigned)rows);
    simt<<<grid, H::THREADS, H::SMEM, s>>>(m, a.n, (int)ktiles, Ap + r * ktiles * H::CHUNKA, Bp, a.C + row0 * a.ldc,
                                           a.ldc, a.acc);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return cudaSuccess;
}

/* Our kernels on the whole matrix: simt above, the ladder in slices of at most 65535 tile rows
 * (gridDim.y). */
template <typename T>
static cudaError_t gs_mm_run(struct gs_matmul_state *st, int kernel, int m, int n, int k, const void *A, size_t lda,
                             const void *B, size_t ldb, void *C, size_t ldc, int acc, cudaStream_t s) {
  if (kernel == GS_MK_SIMT) {
    const gs_mm_args<T> a = {
        m, n, k, static_cast<const T *>(A), lda, static_cast<const T *>(B), ldb, static_cast<T *>(C), ldc, acc};
    return gs_mm_run_simt<T>(st, a, s);
  }
  const int rows = 65535 * GS_MM_TILE;
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

extern "C" int gs_matmul_kernels_launch(struct gs_cuda_ctx *c, struct gs_matmul_state *st, int kernel, int dtype,
                                        uint64_t m, uint64_t n, uint64_t k, const void *A, uint64_t lda, const void *B,
                                        uint64_t ldb, void *C, uint64_t ldc, int accumulate, void *stream) {
  const cudaError_t bad = gs_mm_check(c, kernel, dtype, m, n, k, A, lda, B, ldb, C, ldc);
  if (bad != cudaSuccess) return (int)bad;
  if (!st) return (int)cudaErrorInvalidValue;
  if (m == 0 || n == 0) return (int)cudaSuccess;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const size_t es = gs_dtype_size((enum gs_dtype)dtype);
  /* k = 0: the product is the zero matrix (cuBLAS too takes this path, for one answer). */
  if (k == 0) return accumulate ? (int)cudaSuccess : (int)cudaMemset2DAsync(C, ldc * es, 0, n * es, m, s);
#ifdef GS_HAVE_CUBLAS
  if (gs_mm_is_cublas(kernel))
    return gs_matmul_cublas_gemm(st, kernel == GS_MK_CUBLAS_TF32, dtype, m, n, k, A, lda, B, ldb, C, ldc, accumulate,
                                 stream);
#endif
  if (kernel == GS_MK_WGMMA)
    return (int)gs_matmul_wgmma_launch(c, st, (int)m, (int)n, (int)k, static_cast<const float *>(A), lda,
                                       static_cast<const float *>(B), ldb, static_cast<float *>(C), ldc, accumulate, s);
  if (kernel == GS_MK_DMMA || kernel == GS_MK_TC32)
    return (int)gs_matmul_tc_launch(c, kernel, (int)m, (int)n, (int)k, A, lda, B, ldb, C, ldc, accumulate, s);
  if (dtype == GS_DTYPE_FLOAT)
    return (int)gs_mm_run<float>(st, kernel, (int)m, (int)n, (int)k, A, lda, B, ldb, C, ldc, accumulate, s);
  return (int)gs_mm_run<double>(st, kernel, (int)m, (int)n, (int)k, A, lda, B, ldb, C, ldc, accumulate, s);
}

extern "C" int gs_matmul_kernels_workspace(struct gs_matmul_state *st, size_t bytes, void **p) {
  if (!st || !p) return (int)cudaErrorInvalidValue;
  if (st->ws_bytes < bytes || !st->ws) {
    cudaError_t e = st->ws ? cudaFree(st->ws) : cudaSuccess;
    st->ws = NULL;
    st->ws_bytes = 0;
    if (e == cudaSuccess) e = cudaMalloc(&st->ws, bytes ? bytes : 1);
    if (e != cudaSuccess) {
      st->ws = NULL;
      return (int)e;
    }
    st->ws_bytes = bytes;
  }
  *p = st->ws;
  return (int)cudaSuccess;
}

extern "C" int gs_matmul_kernels_free(struct gs_matmul_state *st) {
  if (!st) return (int)cudaErrorInvalidValue;
  const cudaError_t e = st->ws ? cudaFree(st->ws) : cudaSuccess;
  st->ws = NULL;
  st->ws_bytes = 0;
  if (e != cudaSuccess) return (int)e;
#ifdef GS_HAVE_CUBLAS
  return gs_matmul_cublas_free(st);
#else
  return (int)cudaSuccess;
#endif
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
