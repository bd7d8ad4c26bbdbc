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
 * A block of 256 threads owns a 128 x 128 tile of C and walks k in steps of BK = 8 (float:
 * GS_MM_BK_F, 8 unless a tuning run says otherwise):
 *   - 8 warps as 4 (M) x 2 (N), each a 32 x 64 warp tile; a warp's lanes as 4 (M) x 8 (N), each
 *     an 8 x 8 thread tile held in registers (64 accumulators). A thread's 8 rows are 8 / V
 *     groups of V consecutive rows, 4 V apart, its 8 columns 8 / V groups of V, 8 V apart, where
 *     V = 16 / sizeof(T) (4 floats, 2 doubles): each group is one 16-byte shared load (LDS.128),
 *     and a warp's load of one group touches 4 (A: broadcast) or 8 (B) consecutive 16-byte words,
 *     one shared-memory wavefront, no bank conflict. Per k step a thread does 64 FMAs for 16 / V
 *     LDS.128.
 *   - Shared memory holds STAGES k-tiles (a ring): A transposed, as[k][m] (padded by V so the
 *     transposing 4-byte stores of a warp spread over all banks and rows stay 16-byte aligned),
 *     B as it is, bs[k][n]. Tiles are filled by cp.async (Ampere/Hopper asynchronous copies,
 *     global -> shared without registers) STAGES - 1 tiles ahead of the one being multiplied:
 *     one __syncthreads per k-tile both publishes the landed tile and frees the one read last.
 *   - A is copied element by element (the copy transposes it), B in 16-byte vectors when B and
 *     ldb allow (VEC), element by element otherwise. cp.async's source size zero-fills what lies
 *     outside the matrix: ragged m, n and k cost no branch in the inner loop and read nothing
 *     outside A or B.
 *   - The epilogue stores V-wide vectors where C and ldc allow (VEC) and the group lies inside n,
 *     guarded scalars elsewhere.
 * float: 3 stages (25 KB) and 2 resident blocks per SM (ptxas capped at 128 registers: 64
 * accumulators, 16 fragment values, addresses). double: 64 accumulators are 128 registers, so
 * one block per SM (up to 255 registers) and 2 stages (33 KB, under the 48 KB of static shared
 * memory). -D overrides for tuning runs. */
#define GS_MM_BM 128
#define GS_MM_BN 128
#ifndef GS_MM_BK_F
#define GS_MM_BK_F 8 /* float's k-tile; double's is 8 (16 would pass the 48 KB of static shared memory) */
#endif
#define GS_MM_THREADS 256
#ifndef GS_MM_STAGES_F
#define GS_MM_STAGES_F 3
#endif
#ifndef GS_MM_STAGES_D
#define GS_MM_STAGES_D 2
#endif

template <typename T> struct gs_mm_shape;
template <> struct gs_mm_shape<float> {
  static constexpr int STAGES = GS_MM_STAGES_F, MINB = 2, V = 4, BK = GS_MM_BK_F;
};
template <> struct gs_mm_shape<double> { static constexpr int STAGES = GS_MM_STAGES_D, MINB = 1, V = 2, BK = 8; };

/* Issue the copies of k-tile [k0, k0 + BK) of A (rows row0..) and B (columns col0..) into one
 * stage. A: 1024 elements, 4 per thread; lanes run along k (a warp reads 4 rows x 8 k). */
template <typename T, bool VEC>
static __device__ __forceinline__ void gs_mm_load_tile(T (*as)[GS_MM_BM + gs_mm_shape<T>::V], T (*bs)[GS_MM_BN], int m,
                                                       int n, int k, const T *A, size_t lda, const T *B, size_t ldb,
                                                       int row0, int col0, int k0) {
  constexpr int V = gs_mm_shape<T>::V, PER = GS_MM_BM * gs_mm_shape<T>::BK / GS_MM_THREADS;
#pragma unroll
  for (int q = 0; q < PER; ++q) {
    const int e = threadIdx.x + q * GS_MM_THREADS, r = e / gs_mm_shape<T>::BK, kk = e % gs_mm_shape<T>::BK;
    const bool in = row0 + r < m && k0 + kk < k;
    const T *src = in ? A + (size_t)(row0 + r) * lda + (k0 + kk) : A;
    gs_mm_cp_async<sizeof(T)>(&as[kk][r], src, in ? (int)sizeof(T) : 0);
  }
  if (VEC) { /* B in V-wide vectors: BN / V per row */
    constexpr int PERV = gs_mm_shape<T>::BK * GS_MM_BN / V / GS_MM_THREADS, ROWV = GS_MM_BN / V;
#pragma unroll
    for (int q = 0; q < PERV; ++q) {
      const int e = threadIdx.x + q * GS_MM_THREADS, kk = e / ROWV, c = (e % ROWV) * V;
      const int left = k0 + kk < k ? n - (col0 + c) : 0, cnt = left < 0 ? 0 : (left > V ? V : left);
      const T *src = cnt ? B + (size_t)(k0 + kk) * ldb + (col0 + c) : B;
      gs_mm_cp_async<16>(&bs[kk][c], src, cnt * (int)sizeof(T));
    }
  } else {
#pragma unroll
    for (int q = 0; q < PER; ++q) {
      const int e = threadIdx.x + q * GS_MM_THREADS, kk = e / GS_MM_BN, c = e % GS_MM_BN;
      const bool in = k0 + kk < k && col0 + c < n;
      const T *src = in ? B + (size_t)(k0 + kk) * ldb + (col0 + c) : B;
      gs_mm_cp_async<sizeof(T)>(&bs[kk][c], src, in ? (int)sizeof(T) : 0);
    }
  }
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

/* The BK rank-1 updates of one stage on the thread's 8 x 8 accumulators; wm, wn: the first row
 * and column of the thread's fragments inside the block tile. */
template <typename T>
static __device__ __forceinline__ void gs_mm_mul_tile(const T (*as)[GS_MM_BM + gs_mm_shape<T>::V],
                                                      const T (*bs)[GS_MM_BN], int wm, int wn, T (&acc)[8][8]) {
  constexpr int V = gs_mm_shape<T>::V;
#pragma unroll
  for (int kk = 0; kk < gs_mm_shape<T>::BK; ++kk) {
    T a[8], b[8];
#pragma unroll
    for (int g = 0; g < 8 / V; ++g) {
      gs_mm_lds(&a[g * V], &as[kk][wm + g * 4 * V]);
      gs_mm_lds(&b[g * V], &bs[kk][wn + g * 8 * V]);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j)
        acc[i][j] = fma(a[i], b[j], acc[i][j]);
  }
}

/* Store (or add) the thread's 8 x 8 outputs; row0, col0: the global position of (wm, wn). */
template <typename T, bool VEC>
static __device__ __forceinline__ void gs_mm_store_tile(T *C, size_t ldc, int m, int n, int row0, int col0,
                                                        const T (&acc)[8][8], int accumulate) {
  constexpr int V = gs_mm_shape<T>::V;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i / V) * 4 * V + i % V;
    if (r >= m) continue;
    T *crow = C + (size_t)r * ldc;
#pragma unroll
    for (int g = 0; g < 8 / V; ++g) {
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
static __global__ void __launch_bounds__(GS_MM_THREADS, gs_mm_shape<T>::MINB)
    gs_mm_simt(int m, int n, int k, const T *__restrict__ A, size_t lda, const T *__restrict__ B, size_t ldb,
               T *__restrict__ C, size_t ldc, int accumulate) {
  constexpr int S = gs_mm_shape<T>::STAGES, V = gs_mm_shape<T>::V;
  __shared__ __align__(16) T as[S][gs_mm_shape<T>::BK][GS_MM_BM + V];
  __shared__ __align__(16) T bs[S][gs_mm_shape<T>::BK][GS_MM_BN];
  const int row0 = blockIdx.y * GS_MM_BM, col0 = blockIdx.x * GS_MM_BN,
            ktiles = (k + gs_mm_shape<T>::BK - 1) / gs_mm_shape<T>::BK;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp % 4) * 32 + (lane / 8) * V, wn = (warp / 4) * 64 + (lane % 8) * V;
  /* Prologue: tiles 0 .. S-2 in flight, one commit group each (empty past the last tile, so the
   * group count below stays exact). */
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < ktiles) gs_mm_load_tile<T, VEC>(as[s], bs[s], m, n, k, A, lda, B, ldb, row0, col0, s * gs_mm_shape<T>::BK);
    gs_mm_cp_commit();
  }
  T acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0;
  for (int t = 0; t < ktiles; ++t) {
    /* S - 1 + t groups committed; at most S - 2 pending means tile t has landed (this thread's
     * part); the barrier makes every thread's part visible and tells that all have finished
     * tile t - 1, whose stage (t + S - 1) % S is refilled next. */
    gs_mm_cp_wait<S - 2>();
    __syncthreads();
    const int next = t + S - 1;
    if (next < ktiles)
      gs_mm_load_tile<T, VEC>(as[next % S], bs[next % S], m, n, k, A, lda, B, ldb, row0, col0,
                              next * gs_mm_shape<T>::BK);
    gs_mm_cp_commit();
    gs_mm_mul_tile<T>(as[t % S], bs[t % S], wm, wn, acc);
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
  return (reinterpret_cast<uintptr_t>(p) % 16) == 0 && ld % gs_mm_shape<T>::V == 0;
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
    const dim3 grid((a.n + GS_MM_BN - 1) / GS_MM_BN, (a.m + GS_MM_BM - 1) / GS_MM_BM);
    if (gs_mm_aligned<T>(a.B, a.ldb) && gs_mm_aligned<T>(a.C, a.ldc))
      gs_mm_simt<T, true><<<grid, GS_MM_THREADS, 0, s>>>(GS_MM_ARGS);
    else
      gs_mm_simt<T, false><<<grid, GS_MM_THREADS, 0, s>>>(GS_MM_ARGS);
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
  const int rows = 65535 * (kernel == GS_MK_SIMT ? GS_MM_BM : GS_MM_TILE);
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
