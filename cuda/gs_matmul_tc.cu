/* gs_matmul_tc.cu: the tensor-core matrix multiplies of gs_matmul_kernels_launch (via
 * gs_matmul_tc_launch of gs_matmul_internal.cuh):
 *   "dmma"  double on the FP64 tensor cores: mma.sync m16n8k8 .f64 in device code for sm_90 and
 *           later, m8n8k4 .f64 for sm_80 and sm_86/89 (half the rate on an H200);
 *   "tc32"  float data on the TF32 tensor cores: each input rounded to TF32 (cvt.rna, to nearest,
 *           ties away), products and sums in FP32: mma.sync m16n8k8 .tf32 (sm_80+).
 * Row-major storage, any m, n, k and leading dimensions, as every kernel of gs_matmul_kernels.cu.
 *
 * One template for both (T = double or float; gs_mm_tc_cfg below holds the shapes):
 *   - A block owns a BM x BN tile of C and walks k in steps of BK. Shared memory holds STAGES
 *     k-tiles (a ring, dynamic shared memory) filled by cp.async, one __syncthreads per k-tile,
 *     placed so that STAGES tiles are in flight or landed (the SIMT kernel's pipeline; dmma also
 *     loads its fragments one mma k-step ahead of the mma instructions). A tile is
 *     stored as in global memory: A's rows (k contiguous), B's rows (n contiguous), so 16-byte
 *     copies move it when A, B and their leading dimensions allow (VEC), element copies
 *     otherwise. Tiles wholly inside A and B take 16-byte copies without checks, in a loop of
 *     their own; at the edges cp.async's source size zero-fills what lies outside the matrices:
 *     ragged m, n, k cost nothing in the inner loop (a zero product adds an exact 0) and nothing
 *     outside A or B is read.
 *   - Warps as WARPS_M x WARPS_N (dmma: 2 x 2 on a 128 x 64 tile, two blocks per SM; tc32: 2 x 4
 *     on 128 x 256, one block), each a 64 x 32 (64 x 64) warp tile of MI x NI mma fragments (MI x NI
 *     accumulators of the mma's C layout in registers). Per mma k-step a warp loads its A and B
 *     fragments from shared memory with plain loads, one element per register, in the layout the
 *     PTX ISA gives (groupID g = lane / 4, t = lane % 4): A element (g + 8 i', t + 4 i''), B
 *     element (k = t + 4 i, n = g). Rows are padded against bank conflicts: A's row stride is
 *     BK + 4 elements, so the 8 rows g of a load start 4 elements (16 or 32 bytes) apart and a
 *     warp's 32 loads cover all banks once (double: each half-warp's 16); B's row stride is
 *     BN + 32 / sizeof(T) elements, so the 4 rows t start 8 floats or 4 doubles apart: the same.
 *   - Blocks are numbered in groups of GS_MM_TC_GROUP tile rows, column by column inside a
 *     group, so blocks that run together share A's rows and B's columns in L2.
 *   - The epilogue writes (or adds) each accumulator where it lies inside C.
 * Each output is summed in the same order every run: identical bits run to run.
 *
 * -D knobs for tuning runs (defaults first): GS_MM_DMMA_SHAPE (1688 on sm_90, else 884) | 16816,
 * GS_MM_DMMA_BN 64 | 128 with GS_MM_DMMA_WARPS_N 2 | 4 (128: one block per SM), GS_MM_DMMA_BK
 * 16 | 32 with GS_MM_DMMA_STAGES 3 | 2 (two blocks per SM fit BK 32 x 2 stages or BK 16 x 3),
 * GS_MM_DMMA_PREFETCH 1 | 0, GS_MM_TC32_BN 256 | 128 with GS_MM_TC32_WARPS_N 4 | 2,
 * GS_MM_TC32_STAGES 3 | 2 | 4, GS_MM_TC_GROUP 8 | 16, GS_MM_TC_FULL 1 | 0. Measured on an H200 and an H100 at
 * N = 8192: docs/performance.md. */
#include <config.h>

#include <cstdint>

#include <cuda_runtime.h>

#include "gs_cuda.h"
#include "gs_matmul_internal.cuh"

/* The FP64 mma shape: m8n8k4 runs at half the FP64 tensor-core rate of an H200 (27 against 43
 * TFLOP/s for m16n8k16 in this kernel), but the m16n8 shapes are sm_90's: m16n8k8 where the
 * device code is for sm_90 or later (cuBLAS's shape; with the fragment prefetch m16n8k16 spills),
 * m8n8k4 below. GS_MM_DMMA_SHAPE forces one. */
#ifndef GS_MM_DMMA_SHAPE
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define GS_MM_DMMA_SHAPE 884
#else
#define GS_MM_DMMA_SHAPE 1688
#endif
#define GS_MM_DMMA_SHAPE_AUTO 1
#endif
/* dmma: 128 x 64 x 16 block tiles of 4 warps, 3 stages (86 KB), so that two blocks share an SM:
 * one block's barrier and copies overlap the other's mma. One block of 8 warps on 128 x 128 tiles
 * kept the DMMA pipe busy only 69% of the time (46.7 against 51.0 TFLOP/s at N = 8192). */
#ifndef GS_MM_DMMA_BK
#define GS_MM_DMMA_BK 16
#endif
#ifndef GS_MM_DMMA_WARPS_M
#define GS_MM_DMMA_WARPS_M 2
#endif
#ifndef GS_MM_DMMA_WARPS_N
#define GS_MM_DMMA_WARPS_N 2
#endif
#ifndef GS_MM_DMMA_STAGES
#define GS_MM_DMMA_STAGES 3
#endif
#ifndef GS_MM_DMMA_PREFETCH
#define GS_MM_DMMA_PREFETCH 1 /* fragments one k-step ahead (0: just before their mma) */
#endif
#ifndef GS_MM_DMMA_BN
#define GS_MM_DMMA_BN 64
#endif
#ifndef GS_MM_TC32_WARPS_N
#define GS_MM_TC32_WARPS_N 4
#endif
#ifndef GS_MM_TC32_BN
#define GS_MM_TC32_BN 256
#endif
#ifndef GS_MM_TC32_STAGES
#define GS_MM_TC32_STAGES 3
#endif
#ifndef GS_MM_TC_GROUP
#define GS_MM_TC_GROUP 8
#endif
#ifndef GS_MM_TC_FULL
#define GS_MM_TC_FULL 1 /* unchecked copies for the tiles inside A and B (0: every copy checked) */
#endif

#if GS_MM_DMMA_SHAPE != 884 && GS_MM_DMMA_SHAPE != 1688 && GS_MM_DMMA_SHAPE != 16816
#error "GS_MM_DMMA_SHAPE: 884, 1688 or 16816"
#endif

/* The shapes: block tile BM x BN x BK, warps, stages; the mma is AM x 8 x AK; frag: what an
 * operand register holds (double; the TF32 bits of a float). */
template <typename T> struct gs_mm_tc_cfg;
template <> struct gs_mm_tc_cfg<double> {
  static constexpr int BM = 128, BN = GS_MM_DMMA_BN, BK = GS_MM_DMMA_BK, STAGES = GS_MM_DMMA_STAGES;
  static constexpr int WARPS_M = GS_MM_DMMA_WARPS_M, WARPS_N = GS_MM_DMMA_WARPS_N;
  static constexpr bool PREFETCH = GS_MM_DMMA_PREFETCH;
  static constexpr int AM = GS_MM_DMMA_SHAPE == 884 ? 8 : 16;
  static constexpr int AK = GS_MM_DMMA_SHAPE == 884 ? 4 : GS_MM_DMMA_SHAPE == 1688 ? 8 : 16;
  using frag = double;
};
template <> struct gs_mm_tc_cfg<float> {
  static constexpr int BM = 128, BN = GS_MM_TC32_BN, BK = 32, WARPS_M = 2, WARPS_N = GS_MM_TC32_WARPS_N;
  static constexpr int STAGES = GS_MM_TC32_STAGES;
  static constexpr bool PREFETCH = false;
  static constexpr int AM = 16, AK = 8;
  using frag = uint32_t;
};

/* What follows from the shapes. */
template <typename T> struct gs_mm_tc : gs_mm_tc_cfg<T> {
  using P = gs_mm_tc_cfg<T>;
  static constexpr int THREADS = 32 * P::WARPS_M * P::WARPS_N;
  static constexpr int WTM = P::BM / P::WARPS_M, WTN = P::BN / P::WARPS_N;      /* warp tile */
  static constexpr int MI = WTM / P::AM, NI = WTN / 8;                          /* fragments per warp tile */
  static constexpr int NA = P::AM * P::AK / 32, NB = P::AK / 4, NC = P::AM / 4; /* registers per fragment */
  static constexpr int V = 16 / (int)sizeof(T);                                 /* elements per 16-byte copy */
  static constexpr int LDA_S = P::BK + 4, LDB_S = P::BN + 32 / (int)sizeof(T);  /* padded row strides */
  static constexpr int STAGE = P::BM * LDA_S + P::BK * LDB_S;                   /* elements per stage */
  static constexpr int SMEM = P::STAGES * STAGE * (int)sizeof(T);               /* bytes */
  static_assert(WTM % P::AM == 0 && WTN % 8 == 0 && P::BK % P::AK == 0, "warp tile of whole fragments");
  static_assert(P::BM * P::BK / V % THREADS == 0 && P::BK * P::BN / V % THREADS == 0, "whole copies per thread");
  static_assert(P::STAGES >= 2, "a pipeline needs two stages");
};

template <typename T> struct gs_mm_tc_acc { T v[gs_mm_tc<T>::MI][gs_mm_tc<T>::NI][gs_mm_tc<T>::NC]; };

/* ---- the mma instructions (D = A B + D in place) ------------------------------------------- */

#if GS_MM_DMMA_SHAPE == 884
static __device__ __forceinline__ void gs_mm_tc_mma(double (&d)[2], const double (&a)[1], const double (&b)[1]) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a[0]), "d"(b[0]));
}
/* The m16n8 FP64 shapes exist from sm_90 on; the launcher never runs them on an older device. */
#elif GS_MM_DMMA_SHAPE == 1688
static __device__ __forceinline__ void gs_mm_tc_mma(double (&d)[4], const double (&a)[4], const double (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
  __trap();
#endif
}
#elif GS_MM_DMMA_SHAPE == 16816
static __device__ __forceinline__ void gs_mm_tc_mma(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
      "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
#else
  __trap();
#endif
}
#endif

static __device__ __forceinline__ void gs_mm_tc_mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* An operand as the mma takes it: a double as it is, a float rounded to TF32. */
static __device__ __forceinline__ double gs_mm_tc_in(double x) { return x; }
static __device__ __forceinline__ uint32_t gs_mm_tc_in(float x) {
  uint32_t u;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(u) : "f"(x));
  return u;
}

/* ---- the pieces of the kernel -------------------------------------------------------------- */

/* Where a block's tiles come from, and this thread's share of their 16-byte copies (VEC). Every
 * k-tile a thread copies the same column chunk (V elements) of rows RA apart of A's tile and of
 * rows RB apart of B's tile: the addresses and which rows and columns lie inside the matrices are
 * worked out once here, so a k-tile's copies cost a few instructions each (ragged tiles included),
 * not the index arithmetic that would otherwise outnumber the mma instructions. */
template <typename T> struct gs_mm_tc_src {
  static constexpr int CA = gs_mm_tc<T>::BK / gs_mm_tc<T>::V,
                       RA = gs_mm_tc<T>::THREADS / CA; /* A: chunks per row, rows apart */
  static constexpr int CB = gs_mm_tc<T>::BN / gs_mm_tc<T>::V, RB = gs_mm_tc<T>::THREADS / CB; /* B: the same */
  static constexpr int NA = gs_mm_tc<T>::BM / RA, NB = gs_mm_tc<T>::BK / RB;               /* copies per thread */
  static_assert(gs_mm_tc<T>::THREADS % CA == 0 && gs_mm_tc<T>::THREADS % CB == 0 && gs_mm_tc<T>::BM % RA == 0 &&
                    gs_mm_tc<T>::BK % RB == 0 && NA <= 32,
                "each thread copies whole rows' chunks");
  const T *A, *B;
  size_t lda, ldb;
  int m, n, k, row0, col0;
  const T *a, *b;      /* VEC: the thread's first chunk of A and of B at k0 = 0 */
  size_t astep, bstep; /* RA rows of A, RB rows of B */
  unsigned arows;      /* bit q: the thread's q-th row of A lies inside m */
  int ca, rb, bcnt;    /* its A chunk's column and B chunk's row in the tile; B elements inside n */
  int sa, sb;          /* where its first chunks go in a stage */
};

template <typename T>
static __device__ __forceinline__ gs_mm_tc_src<T> gs_mm_tc_src_init(int m, int n, int k, const T *A, size_t lda,
                                                                    const T *B, size_t ldb, int row0, int col0) {
  using G = gs_mm_tc<T>;
  using S = gs_mm_tc_src<T>;
  gs_mm_tc_src<T> s = {A, B, lda, ldb, m, n, k, row0, col0};
  const int ra = threadIdx.x / S::CA, cb = threadIdx.x % S::CB * G::V;
  s.ca = threadIdx.x % S::CA * G::V;
  s.rb = threadIdx.x / S::CB;
  s.a = A + (size_t)(row0 + ra) * lda + s.ca; /* read only for rows inside m */
  s.b = B + (size_t)s.rb * ldb + (col0 + cb); /* read only when bcnt > 0 */
  s.astep = (size_t)S::RA * lda;
  s.bstep = (size_t)S::RB * ldb;
  s.arows = 0;
#pragma unroll
  for (int q = 0; q < S::NA; ++q)
    if (row0 + ra + q * S::RA < m) s.arows |= 1u << q;
  const int left = n - (col0 + cb);
  s.bcnt = left < 0 ? 0 : (left > G::V ? G::V : left);
  s.sa = ra * G::LDA_S + s.ca;
  s.sb = G::BM * G::LDA_S + s.rb * G::LDB_S + cb;
  return s;
}

/* VEC: the 16-byte copies of k-tile k0 into stage st; cp.async reads the chunk's elements inside
 * the matrix and zero-fills the rest. */
template <typename T>
static __device__ __forceinline__ void gs_mm_tc_load_vec(T *st, const gs_mm_tc_src<T> &s, int k0) {
  using G = gs_mm_tc<T>;
  using S = gs_mm_tc_src<T>;
  const int kl = s.k - k0 - s.ca, acnt = kl < 0 ? 0 : (kl > G::V ? G::V : kl);
#pragma unroll
  for (int q = 0; q < S::NA; ++q) {
    const bool in = (s.arows >> q & 1u) && acnt;
    gs_mm_cp_async<16>(st + s.sa + q * S::RA * G::LDA_S, in ? s.a + k0 + q * s.astep : s.A,
                       in ? acnt * (int)sizeof(T) : 0);
  }
  const T *b = s.b + (size_t)k0 * s.ldb;
#pragma unroll
  for (int q = 0; q < S::NB; ++q) {
    const bool in = s.bcnt && k0 + s.rb + q * S::RB < s.k;
    gs_mm_cp_async<16>(st + s.sb + q * S::RB * G::LDB_S, in ? b + q * s.bstep : s.B, in ? s.bcnt * (int)sizeof(T) : 0);
  }
}

/* Element copies (A, B or a leading dimension not 16-byte aligned): A's tile (rows row0..,
 * columns k0..) and B's (rows k0.., columns col0..) into stage st, one element per copy. */
template <typename T>
static __device__ __forceinline__ void gs_mm_tc_load_elem(T *st, const gs_mm_tc_src<T> &s, int k0) {
  using G = gs_mm_tc<T>;
  constexpr int PA = G::BM * G::BK / G::THREADS, PB = G::BK * G::BN / G::THREADS;
#pragma unroll 4 /* fully unrolled, the addresses spill registers */
  for (int q = 0; q < PA; ++q) {
    const int e = threadIdx.x + q * G::THREADS, r = e / G::BK, c = e % G::BK;
    const bool in = s.row0 + r < s.m && k0 + c < s.k;
    const T *src = in ? s.A + (size_t)(s.row0 + r) * s.lda + (k0 + c) : s.A;
    gs_mm_cp_async<sizeof(T)>(st + r * G::LDA_S + c, src, in ? (int)sizeof(T) : 0);
  }
  T *sb = st + G::BM * G::LDA_S;
#pragma unroll 4
  for (int q = 0; q < PB; ++q) {
    const int e = threadIdx.x + q * G::THREADS, r = e / G::BN, c = e % G::BN;
    const bool in = k0 + r < s.k && s.col0 + c < s.n;
    const T *src = in ? s.B + (size_t)(k0 + r) * s.ldb + (s.col0 + c) : s.B;
    gs_mm_cp_async<sizeof(T)>(sb + r * G::LDB_S + c, src, in ? (int)sizeof(T) : 0);
  }
}

/* VEC, a k-tile wholly inside A and B: the same 16-byte copies without a check (the checks
 * were most of the loop's integer instructions). */
template <typename T>
static __device__ __forceinline__ void gs_mm_tc_load_full(T *st, const gs_mm_tc_src<T> &s, int k0) {
  using G = gs_mm_tc<T>;
  using S = gs_mm_tc_src<T>;
  const T *a = s.a + k0, *b = s.b + (size_t)k0 * s.ldb;
#pragma unroll
  for (int q = 0; q < S::NA; ++q) gs_mm_cp_async<16>(st + s.sa + q * S::RA * G::LDA_S, a + q * s.astep, 16);
#pragma unroll
  for (int q = 0; q < S::NB; ++q) gs_mm_cp_async<16>(st + s.sb + q * S::RB * G::LDB_S, b + q * s.bstep, 16);
}

/* The copies of k-tile k0 into stage st; FAST: the tile lies wholly inside A and B (VEC). */
template <typename T, bool VEC, bool FAST>
static __device__ __forceinline__ void gs_mm_tc_load(T *st, const gs_mm_tc_src<T> &s, int k0) {
  if constexpr (FAST)
    gs_mm_tc_load_full<T>(st, s, k0);
  else if constexpr (VEC)
    gs_mm_tc_load_vec<T>(st, s, k0);
  else
    gs_mm_tc_load_elem<T>(st, s, k0);
}

/* The warp's operand fragments of one mma k-step. */
template <typename T> struct gs_mm_tc_frags {
  typename gs_mm_tc<T>::frag a[gs_mm_tc<T>::MI][gs_mm_tc<T>::NA], b[gs_mm_tc<T>::NI][gs_mm_tc<T>::NB];
};

/* Load the fragments of the mma k-step at column kk of a stage (A's tile at sa, B's at sb); wm, wn:
 * the warp tile's first row and column in the block tile. */
template <typename T>
static __device__ __forceinline__ void gs_mm_tc_frag(gs_mm_tc_frags<T> &f, const T *sa, const T *sb, int kk, int wm,
                                                     int wn) {
  using G = gs_mm_tc<T>;
  constexpr int RA = G::AM / 8; /* A registers per k column: 1 (m8) or 2 (m16: rows g, g + 8) */
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < G::MI; ++mi)
#pragma unroll
    for (int i = 0; i < G::NA; ++i)
      f.a[mi][i] = gs_mm_tc_in(sa[(wm + mi * G::AM + g + 8 * (i % RA)) * G::LDA_S + kk + t + 4 * (i / RA)]);
#pragma unroll
  for (int ni = 0; ni < G::NI; ++ni)
#pragma unroll
    for (int i = 0; i < G::NB; ++i)
      f.b[ni][i] = gs_mm_tc_in(sb[(kk + t + 4 * i) * G::LDB_S + wn + ni * 8 + g]);
}

/* The mma instructions of one k-step on the warp's accumulators. */
template <typename T>
static __device__ __forceinline__ void gs_mm_tc_mul(const gs_mm_tc_frags<T> &f, gs_mm_tc_acc<T> &acc) {
#pragma unroll
  for (int mi = 0; mi < gs_mm_tc<T>::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < gs_mm_tc<T>::NI; ++ni)
      gs_mm_tc_mma(acc.v[mi][ni], f.a[mi], f.b[ni]);
}

/* Write (or add) the warp's accumulators inside C; r0, c0: the warp tile's global position.
 * Accumulator i of a fragment is element (g + 8 (i / 2), 2 t + i % 2). */
template <typename T>
static __device__ __forceinline__ void gs_mm_tc_store(T *C, size_t ldc, int m, int n, int r0, int c0,
                                                      const gs_mm_tc_acc<T> &acc, int accumulate) {
  using G = gs_mm_tc<T>;
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < G::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < G::NI; ++ni)
#pragma unroll
      for (int i = 0; i < G::NC; ++i) {
        const int r = r0 + mi * G::AM + g + 8 * (i / 2), c = c0 + ni * 8 + 2 * t + i % 2;
        if (r >= m || c >= n) continue;
        T *p = C + (size_t)r * ldc + c;
        *p = accumulate ? *p + acc.v[mi][ni][i] : acc.v[mi][ni][i];
      }
}

/* The fragments a warp holds: one k-step's, or two with PREFETCH (the step's and the next). */
template <typename T> using gs_mm_tc_hold = gs_mm_tc_frags<T>[gs_mm_tc<T>::PREFETCH ? 2 : 1];

/* The mma k-steps of tile t (in stage cur) with one barrier, at its last k-step once the warp
 * holds that step's fragments: it both publishes tile t + 1 (waited for first) and frees tile
 * t's stage, which at once takes the copies of tile t + S (S tiles in flight or landed). With
 * PREFETCH the fragments are loaded one k-step ahead of the mma instructions that use them,
 * across tile boundaries too (the SIMT kernel's loop; twice the fragment registers); without,
 * just before them. FAST: tile t + S lies inside A and B. */
template <typename T, bool VEC, bool FAST>
static __device__ __forceinline__ void gs_mm_tc_step(T *sm, const gs_mm_tc_src<T> &src, gs_mm_tc_hold<T> &f,
                                                     gs_mm_tc_acc<T> &acc, int &cur, int t, int ktiles, int wm,
                                                     int wn) {
  using G = gs_mm_tc<T>;
  constexpr int S = G::STAGES, KS = G::BK / G::AK;
  static_assert(!G::PREFETCH || KS % 2 == 0, "the fragment double buffer alternates across tiles");
#pragma unroll
  for (int ks = 0; ks < KS; ++ks) {
    const T *st = sm + cur * G::STAGE;
    if (!G::PREFETCH) gs_mm_tc_frag<T>(f[0], st, st + G::BM * G::LDA_S, ks * G::AK, wm, wn);
    if (ks < KS - 1) {
      if (G::PREFETCH) gs_mm_tc_frag<T>(f[(ks + 1) % 2], st, st + G::BM * G::LDA_S, (ks + 1) * G::AK, wm, wn);
    } else {
      /* S + t groups committed: at most S - 2 pending means tile t + 1 has landed. */
      gs_mm_cp_wait<S - 2>();
      __syncthreads();
      if (FAST || t + S < ktiles) gs_mm_tc_load<T, VEC, FAST>(sm + cur * G::STAGE, src, (t + S) * G::BK);
      gs_mm_cp_commit();
      cur = cur + 1 == S ? 0 : cur + 1;
      const T *nx = sm + cur * G::STAGE;
      if (G::PREFETCH && t + 1 < ktiles) gs_mm_tc_frag<T>(f[0], nx, nx + G::BM * G::LDA_S, 0, wm, wn);
    }
    gs_mm_tc_mul<T>(f[G::PREFETCH ? ks % 2 : 0], acc);
  }
}

template <typename T, bool VEC>
static __global__ void __launch_bounds__(gs_mm_tc<T>::THREADS, 1)
    gs_mm_tc_gemm(int m, int n, int k, const T *__restrict__ A, size_t lda, const T *__restrict__ B, size_t ldb,
                  T *__restrict__ C, size_t ldc, int accumulate) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 /* the launcher refuses older devices */
  using G = gs_mm_tc<T>;
  constexpr int S = G::STAGES;
  extern __shared__ __align__(16) unsigned char gs_mm_tc_smem[];
  T *const sm = reinterpret_cast<T *>(gs_mm_tc_smem);
  int tm, tn;
  gs_mm_tile(GS_MM_TC_GROUP, &tm, &tn);
  const int row0 = tm * G::BM, col0 = tn * G::BN, ktiles = (k + G::BK - 1) / G::BK;
  const int warp = threadIdx.x / 32, wm = (warp % G::WARPS_M) * G::WTM, wn = (warp / G::WARPS_M) * G::WTN;
  const gs_mm_tc_src<T> src = gs_mm_tc_src_init<T>(m, n, k, A, lda, B, ldb, row0, col0);
  /* Tiles 0 .. full - 1 lie wholly inside A and B. */
  const int full = row0 + G::BM <= m && col0 + G::BN <= n ? k / G::BK : 0;
  /* Prologue: tiles 0 .. S-1 in flight, one commit group each (empty past the last tile). */
#pragma unroll
  for (int s = 0; s < S; ++s) {
    if (s < ktiles) gs_mm_tc_load<T, VEC, false>(sm + s * G::STAGE, src, s * G::BK);
    gs_mm_cp_commit();
  }
  gs_mm_tc_acc<T> acc;
#pragma unroll
  for (int mi = 0; mi < G::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < G::NI; ++ni)
#pragma unroll
      for (int i = 0; i < G::NC; ++i)
        acc.v[mi][ni][i] = 0;
  gs_mm_tc_hold<T> f;
  gs_mm_cp_wait<S - 1>(); /* S groups committed: tile 0 has landed */
  __syncthreads();
  if (G::PREFETCH) gs_mm_tc_frag<T>(f[0], sm, sm + G::BM * G::LDA_S, 0, wm, wn);
  int cur = 0, t = 0; /* tile t is in stage cur */
  /* While the tile to be copied lies inside A and B, unchecked copies; then checked ones. Two
   * loops rather than a test per tile: each keeps only its own copies' registers live. */
  if constexpr (VEC && GS_MM_TC_FULL)
    for (; t + S < full; ++t) gs_mm_tc_step<T, VEC, true>(sm, src, f, acc, cur, t, ktiles, wm, wn);
  for (; t < ktiles; ++t) gs_mm_tc_step<T, VEC, false>(sm, src, f, acc, cur, t, ktiles, wm, wn);
  gs_mm_tc_store<T>(C, ldc, m, n, row0 + wm, col0 + wn, acc, accumulate);
#endif
}

/* ---- the launcher ------------------------------------------------------------------------- */

/* The kernel on the whole matrix, in slices of at most 65535 tile rows (gridDim.y). */
template <typename T, bool VEC>
static cudaError_t gs_mm_tc_run(int m, int n, int k, const T *A, size_t lda, const T *B, size_t ldb, T *C, size_t ldc,
                                int acc, cudaStream_t s) {
  using G = gs_mm_tc<T>;
  cudaError_t e = cudaFuncSetAttribute(gs_mm_tc_gemm<T, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize, G::SMEM);
  if (e != cudaSuccess) return e;
  const int tiles_n = (n + G::BN - 1) / G::BN, tiles_m = (m + G::BM - 1) / G::BM;
  for (int r = 0; r < tiles_m; r += 65535) {
    const int rows = tiles_m - r < 65535 ? tiles_m - r : 65535;
    const size_t row = (size_t)r * G::BM;
    const int mm = (size_t)m - row < (size_t)rows * G::BM ? (int)((size_t)m - row) : rows * G::BM;
    gs_mm_tc_gemm<T, VEC><<<dim3(tiles_n, rows), G::THREADS, G::SMEM, s>>>(mm, n, k, A + row * lda, lda, B, ldb,
                                                                           C + row * ldc, ldc, acc);
    e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

/* 16-byte copies need A, B and every row of theirs 16-byte aligned. */
template <typename T>
static cudaError_t gs_mm_tc_pick(int m, int n, int k, const void *A, size_t lda, const void *B, size_t ldb, void *C,
                                 size_t ldc, int acc, cudaStream_t s) {
  constexpr int V = gs_mm_tc<T>::V;
  const bool vec = reinterpret_cast<uintptr_t>(A) % 16 == 0 && lda % V == 0 &&
                   reinterpret_cast<uintptr_t>(B) % 16 == 0 && ldb % V == 0;
  const T *a = static_cast<const T *>(A), *b = static_cast<const T *>(B);
  T *c = static_cast<T *>(C);
  return vec ? gs_mm_tc_run<T, true>(m, n, k, a, lda, b, ldb, c, ldc, acc, s)
             : gs_mm_tc_run<T, false>(m, n, k, a, lda, b, ldb, c, ldc, acc, s);
}

cudaError_t gs_matmul_tc_launch(const struct gs_cuda_ctx *c, int kernel, int m, int n, int k, const void *A, size_t lda,
                                const void *B, size_t ldb, void *C, size_t ldc, int acc, cudaStream_t s) {
  int major = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, c->device);
  if (e != cudaSuccess) return e;
#ifdef GS_MM_DMMA_SHAPE_AUTO
  const int need = 8;
#else
  const int need = kernel == GS_MK_DMMA && GS_MM_DMMA_SHAPE != 884 ? 9 : 8;
#endif
  if (major < need) return cudaErrorNotSupported;
  if (kernel == GS_MK_DMMA) return gs_mm_tc_pick<double>(m, n, k, A, lda, B, ldb, C, ldc, acc, s);
  return gs_mm_tc_pick<float>(m, n, k, A, lda, B, ldb, C, ldc, acc, s);
}
