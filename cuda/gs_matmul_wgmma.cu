/* gs_matmul_wgmma.cu: "wgmma", float data on the TF32 tensor cores through Hopper's warpgroup
 * MMA (wgmma.mma_async) with operands in shared memory filled by TMA (cp.async.bulk.tensor), for
 * gs_matmul_kernels_launch (via gs_matmul_wgmma_launch of gs_matmul_internal.cuh).
 *
 * Why not tc32 (gs_matmul_tc.cu): mma.sync takes its operands from registers, so every operand
 * passes through shared-memory loads and a conversion first, and at TF32 rates those loads are
 * as many as the tensor cores can take. wgmma reads both operands straight from shared memory
 * and TMA fills it without the threads, so the warps only issue the MMAs.
 *
 * What wgmma asks, and what follows:
 *   - TF32 operands must be K-major in shared memory (no transpose for 32-bit types). A is
 *     row-major (k contiguous): it is. B is row-major k x n (n contiguous): it is not, so each
 *     call first writes B^T (n x k, k contiguous) into a workspace held by the context, rounding
 *     each element to TF32 (cvt.rna) on the way. A goes to the tensor cores as it is, and they
 *     read its TF32 bits (truncation): gs_matmul_check's tf32 tolerance allows either.
 *   - TMA reads a matrix through a tensor map whose row stride must be a multiple of 16 bytes
 *     and whose base is 16-byte aligned: B^T's rows are padded to a multiple of 4 floats; A is
 *     used in place when it qualifies, else copied into the workspace with padded rows first.
 *     TMA zero-fills what lies outside the matrix, so ragged m, n, k add exact zeros and nothing
 *     outside A or B^T is read.
 *   - The 128-byte swizzle (TMA writes it, the wgmma descriptors read it) keeps both sides free
 *     of bank conflicts; it needs k-tiles of 128 bytes (BK = 32 floats) and stages aligned to
 *     1024 bytes.
 *
 * The kernel: a block owns a 128 x 256 tile of C and walks k in steps of 32 through a ring of
 * STAGES shared-memory stages. Three warpgroups (warp specialization):
 *   - the producer (warpgroup 0; one thread) waits for a stage to be empty, tells its "full"
 *     barrier how many bytes to expect and starts the two TMA copies of the next k-tile;
 *   - two consumers (warpgroups 1 and 2) each own 64 rows x 256 columns of the tile (128 FP32
 *     accumulators a thread): they wait for a stage to be full, issue its four m64n256k8
 *     wgmmas, keep one k-tile of wgmmas in flight, and mark the previous stage empty once its
 *     wgmmas are done (one arrival per warp).
 * The epilogue writes (or adds) each accumulator inside C, two neighbours at a time when C
 * allows 8-byte stores. Blocks are numbered in groups of GROUP tile rows for L2 reuse, as in
 * gs_matmul_tc.cu. Each output is summed in the same order every run: identical bits.
 *
 * wgmma exists only in sm_90a code: the build compiles this file for compute_90a where the arch
 * list has 90 (m4/gs_cuda.m4 defines GS_HAVE_SM90A), and the launcher says cudaErrorNotSupported
 * on any other device or build. */
#include <config.h>

#include <climits>
#include <cstdint>

#include <cuda.h> /* CUtensorMap and its enums: types only, the encoder comes through cudart */
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "gs_cuda.h"
#include "gs_matmul_internal.cuh"

/* The device code exists only in the sm_90a pass. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GS_MM_WG_DEVICE 1
#endif

namespace {

constexpr int BM = 128, BN = 256, BK = 32, STAGES = 4;
#ifdef GS_MM_WG_DEVICE
constexpr int GROUP = 8; /* tile rows per block group */
#endif
constexpr int CONSUMERS = 2, THREADS = 128 * (1 + CONSUMERS);
constexpr int A_BYTES = BM * BK * 4, B_BYTES = BN * BK * 4, STAGE_BYTES = A_BYTES + B_BYTES;
/* The stages, 1024 bytes of slack to align them, and the 2 x STAGES barriers. */
constexpr int SMEM = STAGES * STAGE_BYTES + 1024 + 2 * STAGES * 8;
static_assert(BK * 4 == 128, "a k-tile row is one 128-byte swizzle row");
static_assert(A_BYTES % 1024 == 0 && B_BYTES % 1024 == 0, "stages stay 1024-byte aligned");

/* ---- device pieces: barriers, TMA, wgmma -------------------------------------------------- */

#ifdef GS_MM_WG_DEVICE
__device__ __forceinline__ uint32_t gs_mm_wg_smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void gs_mm_wg_bar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* The producer's arrival: this phase completes once `bytes` have landed. */
__device__ __forceinline__ void gs_mm_wg_bar_expect(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void gs_mm_wg_bar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* Wait until the barrier's phase of this parity has completed. */
__device__ __forceinline__ void gs_mm_wg_bar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}

/* TMA: the box at (c0 = column, c1 = row) of the map into shared memory at dst, counted on bar. */
__device__ __forceinline__ void gs_mm_wg_tma(uint32_t dst, const CUtensorMap *map, int c0, int c1, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

/* A shared-memory matrix descriptor: K-major rows of 128 bytes, 128-byte swizzle, 8-row groups
 * 1024 bytes apart (the stride field); the leading field is unused in this layout (1). Moving
 * the start address by 32 bytes steps k by 8 inside the swizzled rows. */
__device__ __forceinline__ uint64_t gs_mm_wg_desc(uint32_t addr) {
  return static_cast<uint64_t>((addr & 0x3ffff) >> 4) | static_cast<uint64_t>(1) << 16 |
         static_cast<uint64_t>(1024 >> 4) << 32 | static_cast<uint64_t>(1) << 62;
}

/* Keep the compiler from moving an accumulator across the asynchronous wgmma. */
__device__ __forceinline__ void gs_mm_wg_pin(float (&d)[128]) {
#pragma unroll
  for (int i = 0; i < 128; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

#define GS_MM_WG_D4(i) "+f"(d[(i)]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3])
#define GS_MM_WG_D16(i) GS_MM_WG_D4(i), GS_MM_WG_D4((i) + 4), GS_MM_WG_D4((i) + 8), GS_MM_WG_D4((i) + 12)
#define GS_MM_WG_D64(i) GS_MM_WG_D16(i), GS_MM_WG_D16((i) + 16), GS_MM_WG_D16((i) + 32), GS_MM_WG_D16((i) + 48)

/* d (64 x 256, this warpgroup's) = A (64 x 8 at da) B (8 x 256 at db), + d when acc. The first
 * k-step starts from acc = 0 rather than from zeroed registers: zeroing them with ordinary
 * instructions makes ptxas serialize every wgmma of the loop (its warning C7515). */
__device__ __forceinline__ void gs_mm_wg_mma(float (&d)[128], uint64_t da, uint64_t db, int acc) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
               "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
               "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
               "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
               "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
               "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
               "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
               "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
               "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
               "}, %128, %129, p, 1, 1;\n}\n"
               : GS_MM_WG_D64(0), GS_MM_WG_D64(64)
               : "l"(da), "l"(db), "r"(acc));
}

/* Write (or add) a consumer thread's accumulators inside C; (r0, c0): where its accumulator 0
 * goes. Accumulator i of warp w (in its warpgroup), lane 4 g + q: row 16 w + g + 8 ((i / 2) % 2),
 * column 8 (i / 4) + 2 q + i % 2 of the warpgroup's 64 x 256. pairs: C and ldc allow 8-byte
 * stores of neighbours i, i + 1. */
__device__ __forceinline__ void gs_mm_wg_store(const float (&d)[128], float *C, size_t ldc, int m, int n, int r0,
                                               int c0, int accumulate, int pairs) {
#pragma unroll
  for (int i = 0; i < 128; i += 2) {
    const int r = r0 + 8 * ((i / 2) % 2), c = c0 + 8 * (i / 4);
    if (r >= m || c >= n) continue;
    float *p = C + (size_t)r * ldc + c;
    if (pairs && c + 1 < n) {
      float2 v = make_float2(d[i], d[i + 1]);
      if (accumulate) {
        const float2 o = *reinterpret_cast<float2 *>(p);
        v.x += o.x;
        v.y += o.y;
      }
      *reinterpret_cast<float2 *>(p) = v;
    } else {
      p[0] = accumulate ? p[0] + d[i] : d[i];
      if (c + 1 < n) p[1] = accumulate ? p[1] + d[i + 1] : d[i + 1];
    }
  }
}
#endif

/* ---- the kernels ---------------------------------------------------------------------------- */

/* Bt (n x k, row stride ldt) = B^T (B: k x n, row stride ldb), each element rounded to TF32;
 * 32 x 32 tiles through shared memory so both sides are read and written along rows. */
__global__ void gs_mm_wg_transpose(const float *__restrict__ B, size_t ldb, int k, int n, float *__restrict__ Bt,
                                   size_t ldt) {
#ifdef GS_MM_WG_DEVICE /* launched only where the gemm below exists (cvt.rna.tf32 needs sm_80) */
  __shared__ float t[32][33];
  const int tiles_n = (n + 31) / 32, tiles_k = (k + 31) / 32;
  for (int tk = blockIdx.y; tk < tiles_k; tk += gridDim.y)
    for (int tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
      const int k0 = tk * 32, n0 = tn * 32;
      for (int r = threadIdx.y; r < 32; r += blockDim.y)
        if (k0 + r < k && n0 + threadIdx.x < n) {
          uint32_t u;
          asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(u) : "f"(B[(size_t)(k0 + r) * ldb + n0 + threadIdx.x]));
          t[r][threadIdx.x] = __uint_as_float(u);
        }
      __syncthreads();
      for (int r = threadIdx.y; r < 32; r += blockDim.y)
        if (n0 + r < n && k0 + threadIdx.x < k) Bt[(size_t)(n0 + r) * ldt + k0 + threadIdx.x] = t[threadIdx.x][r];
      __syncthreads();
    }
#endif
}

/* C = A B, or C += A B (accumulate), on the tile rows tm0 .. tm0 + tiles_m - 1; ta maps A (m rows
 * of k), tb maps B^T (n rows of k). */
__global__ void __launch_bounds__(THREADS, 1)
    gs_mm_wg_gemm(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, int m, int n, int k,
                  int tm0, int tiles_m, float *__restrict__ C, size_t ldc, int accumulate, int pairs) {
#ifdef GS_MM_WG_DEVICE
  extern __shared__ unsigned char gs_mm_wg_smem_raw[];
  const uint32_t raw = gs_mm_wg_smem(gs_mm_wg_smem_raw), base = (raw + 1023) & ~1023u;
  const uint32_t sa = base, sb = base + STAGES * A_BYTES, full = sb + STAGES * B_BYTES, empty = full + STAGES * 8;

  /* This block's tile: groups of GROUP tile rows, down the rows of a group first. */
  const int tiles_n = (n + BN - 1) / BN;
  const long long lin = blockIdx.x, span = (long long)GROUP * tiles_n, first = lin / span * GROUP;
  const int rows = tiles_m - first < GROUP ? (int)(tiles_m - first) : GROUP, in = (int)(lin % span);
  const int tm = tm0 + (int)first + in % rows, tn = in / rows;
  const int ktiles = (k + BK - 1) / BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      gs_mm_wg_bar_init(full + 8 * s, 1);
      gs_mm_wg_bar_init(empty + 8 * s, 4 * CONSUMERS); /* one arrival per consumer warp */
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int wg = threadIdx.x / 128;
  if (wg == 0) { /* the producer */
    if (threadIdx.x == 0)
      for (int t = 0; t < ktiles; ++t) {
        const int s = t % STAGES, round = t / STAGES;
        if (round > 0) gs_mm_wg_bar_wait(empty + 8 * s, (round - 1) & 1);
        gs_mm_wg_bar_expect(full + 8 * s, STAGE_BYTES);
        gs_mm_wg_tma(sa + s * A_BYTES, &ta, t * BK, tm * BM, full + 8 * s);
        gs_mm_wg_tma(sb + s * B_BYTES, &tb, t * BK, tn * BN, full + 8 * s);
      }
    return;
  }

  /* A consumer: rows 64 (wg - 1) .. of the tile. k >= 1 (the caller's k = 0 writes zeros), so
   * the first k-step sets every d. */
  float d[128];
  const uint32_t arow = (wg - 1) * 64 * BK * 4;
  for (int t = 0; t < ktiles; ++t) {
    const int s = t % STAGES;
    gs_mm_wg_bar_wait(full + 8 * s, (t / STAGES) & 1);
    gs_mm_wg_pin(d);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk)
      gs_mm_wg_mma(d, gs_mm_wg_desc(sa + s * A_BYTES + arow + kk * 32), gs_mm_wg_desc(sb + s * B_BYTES + kk * 32),
                   t > 0 || kk > 0);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    /* At most this k-tile's wgmmas still run: the previous stage is free again. */
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    gs_mm_wg_pin(d);
    if (t > 0 && threadIdx.x % 32 == 0) gs_mm_wg_bar_arrive(empty + 8 * ((t - 1) % STAGES));
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  gs_mm_wg_pin(d);

  const int w = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
  gs_mm_wg_store(d, C, ldc, m, n, tm * BM + (wg - 1) * 64 + 16 * w + lane / 4, tn * BN + 2 * (lane % 4), accumulate,
                 pairs);
#endif
}

/* ---- the launcher ------------------------------------------------------------------------- */

/* The driver's tensor-map encoder, through cudart (no link against libcuda), looked up once per
 * matmul state and kept there (st->tmap_encode), with matmul's other first-use things. */
cudaError_t gs_mm_wg_encoder(struct gs_matmul_state *st, PFN_cuTensorMapEncodeTiled_v12000 *fn) {
  if (!st->tmap_encode) {
    void *p = nullptr;
    cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050 /* the versioned lookup; the plain one is deprecated from 12.5 on */
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess) return e;
    if (q != cudaDriverEntryPointSuccess || !p) return cudaErrorNotSupported;
    st->tmap_encode = p;
  }
  *fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(st->tmap_encode);
  return cudaSuccess;
}

/* A map of a rows x cols float matrix (row stride ld elements, a multiple of 4) in boxes of
 * box_rows x 32, 128-byte swizzle, zeros outside. */
cudaError_t gs_mm_wg_map(struct gs_matmul_state *st, CUtensorMap *map, const float *p, int rows, int cols, size_t ld,
                         int box_rows) {
  PFN_cuTensorMapEncodeTiled_v12000 encode;
  const cudaError_t e = gs_mm_wg_encoder(st, &encode);
  if (e != cudaSuccess) return e;
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)ld * 4};
  const cuuint32_t box[2] = {BK, (cuuint32_t)box_rows}, unit[2] = {1, 1};
  const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float *>(p), dims, strides, box, unit,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

size_t gs_mm_wg_round4(size_t x) { return (x + 3) / 4 * 4; }

/* Whether this build has the kernel for this device: sm_90a code runs on compute capability
 * 9.0 only. */
cudaError_t gs_mm_wg_supported(const struct gs_cuda_ctx *c) {
#ifdef GS_HAVE_SM90A
  int major = 0, minor = 0;
  cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, c->device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, c->device);
  if (e != cudaSuccess) return e;
  return major == 9 && minor == 0 ? cudaSuccess : cudaErrorNotSupported;
#else
  (void)c;
  return cudaErrorNotSupported;
#endif
}

} // namespace

size_t gs_matmul_wgmma_workspace(int m, int n, int k, const void *A, size_t lda) {
  const size_t kp = gs_mm_wg_round4((size_t)k), bt = ((size_t)n * kp * 4 + 255) / 256 * 256;
  const bool a_in_place = reinterpret_cast<uintptr_t>(A) % 16 == 0 && lda % 4 == 0;
  return bt + (a_in_place ? 0 : (size_t)m * kp * 4);
}

cudaError_t gs_matmul_wgmma_launch(struct gs_cuda_ctx *c, struct gs_matmul_state *st, int m, int n, int k,
                                   const float *A, size_t lda, const float *B, size_t ldb, float *C, size_t ldc,
                                   int acc, cudaStream_t s) {
  cudaError_t e = gs_mm_wg_supported(c);
  if (e != cudaSuccess) return e;
  void *ws = nullptr;
  e = static_cast<cudaError_t>(gs_matmul_kernels_workspace(st, gs_matmul_wgmma_workspace(m, n, k, A, lda), &ws));
  if (e != cudaSuccess) return e;
  const size_t kp = gs_mm_wg_round4((size_t)k);
  float *bt = static_cast<float *>(ws);
  const dim3 tb(32, 8), tg((unsigned)((n + 31) / 32 < 65535 ? (n + 31) / 32 : 65535),
                           (unsigned)((k + 31) / 32 < 65535 ? (k + 31) / 32 : 65535));
  gs_mm_wg_transpose<<<tg, tb, 0, s>>>(B, ldb, k, n, bt, kp);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  const float *a = A;
  size_t la = lda;
  if (reinterpret_cast<uintptr_t>(A) % 16 != 0 || lda % 4 != 0) { /* TMA needs 16-byte rows */
    float *ap = bt + ((size_t)n * kp * 4 + 255) / 256 * 256 / 4;
    e = cudaMemcpy2DAsync(ap, kp * 4, A, lda * 4, (size_t)k * 4, (size_t)m, cudaMemcpyDeviceToDevice, s);
    if (e != cudaSuccess) return e;
    a = ap;
    la = kp;
  }
  CUtensorMap ma, mb;
  if ((e = gs_mm_wg_map(st, &ma, a, m, k, la, BM)) != cudaSuccess ||
      (e = gs_mm_wg_map(st, &mb, bt, n, k, kp, BN)) != cudaSuccess)
    return e;
  if ((e = cudaFuncSetAttribute(gs_mm_wg_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM)) != cudaSuccess)
    return e;
  const int pairs = reinterpret_cast<uintptr_t>(C) % 8 == 0 && ldc % 2 == 0;
  const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const int per_launch = INT_MAX / tiles_n; /* tile rows per launch: the grid stays below 2^31 blocks */
  for (int r = 0; r < tiles_m; r += per_launch) {
    const int rows = tiles_m - r < per_launch ? tiles_m - r : per_launch;
    gs_mm_wg_gemm<<<(unsigned)rows * tiles_n, THREADS, SMEM, s>>>(ma, mb, m, n, k, r, rows, C, ldc, acc, pairs);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return cudaSuccess;
}
