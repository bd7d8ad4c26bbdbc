/* gs_cuda.h: the C interface of every CUDA launcher in cuda/, for the CUDA backend
 * (src/gs_backend_cuda*.c, the only host files that include it) and the GPU tests. Plain C (no
 * CUDA types), guarded for C++ so the .cu files define these with C linkage. Every launcher
 * returns a cudaError_t as an int (0 = success) and takes its stream as void*. The shared C types
 * (element types, accumulators, force and tree arguments) live in src/ and are included from
 * there. */
#ifndef GS_CUDA_H
#define GS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "gs_acc.h"
#include "gs_dtree.h"
#include "gs_nbody_force.h"
#include "gs_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- per-device launch facts (gs_cuda_ctx.cu) ---- */

#define GS_CUDA_OCC_MAX 64 /* occupancy answers a context remembers (more are asked each time) */

/* What the launchers need to know about the device they launch on, owned by the CUDA backend's
 * per-rank state (one per process, used by the one thread that launches): the SM count read once
 * at open, and occupancy answers remembered per kernel and block size, because asking needs the
 * kernel's attributes (microseconds per call, which show at 2^20 elements). No launcher keeps
 * state of its own; what a workload's launchers make on first use is that workload's (struct
 * gs_matmul_state), not the context's. Plain numbers: nothing to free. */
struct gs_cuda_ctx {
  int device;    /* CUDA device index */
  int sm_count;  /* multiprocessors */
  int nocc;      /* entries used in occ */
  struct {
    const void *func;  /* kernel entry */
    int block;         /* threads per block */
    int per_sm;        /* resident blocks per SM */
  } occ[GS_CUDA_OCC_MAX];
};

/* Fill c for `device` (which must be current). Returns cudaError_t. */
int gs_cuda_ctx_init(struct gs_cuda_ctx *c, int device);

/* Resident blocks per SM of kernel `func` (a __global__ function's address) at `block` threads
 * and no dynamic shared memory, at least 1; remembered in c. Returns cudaError_t. */
int gs_cuda_ctx_occupancy(struct gs_cuda_ctx *c, const void *func, int block, int *per_sm);

/* ---- reduction (gs_reduce_kernels.cu) ---- */

/* The CUDA backend's reduction kernels, by id. 1..7 are the seed ladder (SEEDS.md section 1). */
enum gs_reduce_kernel {
  GS_RK_INTERLEAVED = 1,  /* 1: interleaved addressing, tid % (2*s): divergent */
  GS_RK_STRIDED = 2,      /* 2: interleaved, strided index: bank conflicts */
  GS_RK_SEQUENTIAL = 3,   /* 3: sequential addressing */
  GS_RK_FIRST_ADD = 4,    /* 4: first add during global load */
  GS_RK_LAST_WARP = 5,    /* 5: unrolled last warp (Volta-safe) */
  GS_RK_UNROLLED = 6,     /* 6: complete unroll, compile-time block size */
  GS_RK_MULTI = 7,        /* 7: many elements per thread, grid-stride */
  GS_RK_VEC = 8,          /* warp shuffles, 16-byte loads, persistent grid, two launches */
  GS_RK_ONEPASS = 9,      /* as vec, but one launch: the last block to finish reduces partials */
  GS_RK_CUB = 10,         /* cub::DeviceReduce baseline */
  GS_RK_COUNT
};

/* Device workspace (bytes) kernel k needs for n elements at block size `block` on c's device.
 * The workspace must be zeroed once after allocation; kernels leave it reusable. One workspace
 * serves one stream at a time: onepass keeps its arrival counter there, so two launches in
 * flight on two streams must each have their own. */
size_t gs_reduce_kernels_workspace(struct gs_cuda_ctx *c, int kernel, int dtype, int op, uint64_t n, int block);

/* Reduce n elements of d_in (type dtype) with op into *d_out, one union gs_acc in device
 * memory. Asynchronous on `stream`. block must be a power of two in [32, 1024] (ignored by cub).
 * n = 0 gives gs_acc_identity. Deterministic: same inputs, same result, run after run. */
int gs_reduce_kernels_launch(struct gs_cuda_ctx *c, int kernel, int dtype, int op, const void *d_in, uint64_t n,
                             void *d_ws, size_t ws_bytes, void *d_out, int block, void *stream);

/* ---- timing gate (gs_gate.cu) ---- */

/* Stop `stream` until *d_flag (mapped host memory) becomes non-zero, or 2 s pass; in that case
 * the kernel sets *d_expired (mapped host memory) to 1, so the host can tell that the timed
 * region behind the gate started before it was fully queued. Returns cudaError_t. */
int gs_gate_launch(const volatile int *d_flag, volatile int *d_expired, void *stream);

/* ---- N-body (gs_nbody_kernels.cu, gs_nbody_integrate.cu, gs_nbody_diag.cu) ---- */

/* The CUDA backend's force kernels, by id: the seed 004 tuning ladder, then ours. */
enum gs_nbody_kernel {
  GS_NK_GLOBAL = 1,  /* one thread per body, j from global memory, 1/sqrtf, if (i != j) */
  GS_NK_RSQRT = 2,   /* + rsqrtf */
  GS_NK_SHARED = 3,  /* + shared-memory tiles of bodies */
  GS_NK_UNROLL = 4,  /* + #pragma unroll over the tile */
  GS_NK_SOFTEN = 5,  /* + no i != j branch: softening makes the self term zero */
  GS_NK_FMA = 6,     /* + FMA-friendly ordering dx*dx + (dy*dy + (dz*dz + eps2)) */
  GS_NK_MULTI = 7,   /* several target bodies per thread, tiles sized for Hopper */
  GS_NK_JSPLIT = 8,  /* as multi, j range split over blocks when targets are few */
  GS_NK_COUNT
};

/* Workspace bytes that a force evaluation with these arguments needs on c's device (0 for most
 * kernels). The same c must be passed to the launch, which makes the same plan. */
size_t gs_nbody_kernels_workspace(struct gs_cuda_ctx *c, const struct gs_nbody_force_args *a);

/* Evaluate forces (asynchronous on stream). */
int gs_nbody_kernels_launch(struct gs_cuda_ctx *c, const struct gs_nbody_force_args *a, void *stream);

/* Leapfrog pieces on count bodies: kick v += a dt (vel and acc as float4/double4, w unused in
 * vel), drift x += v dt (pos w = mass kept). */
int gs_nbody_integrate_kick(struct gs_cuda_ctx *c, int precision, void *vel, const void *acc, uint64_t count,
                            double dt, void *stream);
int gs_nbody_integrate_drift(struct gs_cuda_ctx *c, int precision, void *pos, const void *vel, uint64_t count,
                             double dt, void *stream);

/* Per-body diagnostic terms for count bodies into terms[k * count + i]: k = 0 m v^2 / 2,
 * 1 m phi / 2, 2..4 m v, 5..7 m x (pos, vel, acc as float4/double4). */
int gs_nbody_diag_terms(struct gs_cuda_ctx *c, int precision, const void *pos, const void *vel, const void *acc,
                        uint64_t count, double *terms, void *stream);

/* ---- Barnes-Hut tree (gs_tree_build.cu, gs_tree_walk.cu, gs_tree_order.cu) ---- */

/* Workspace bytes for a tree over a->n bodies with a->i_count targets in a->precision (0 for
 * invalid arguments, which the launchers refuse with cudaErrorInvalidValue). Depends on nothing
 * else, so a caller can allocate once per run; the launchers initialise what they use. */
size_t gs_tree_build_workspace(struct gs_cuda_ctx *c, const struct gs_tree_args *a);

/* Build the tree over pos[0, n) in a->ws (asynchronous on stream): box, Morton keys, sort, radix
 * tree, moments; sets a->counts[GS_TREE_NODES] when counts is not NULL. Any n below 2^30,
 * coincident bodies included. */
int gs_tree_build_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, void *stream);

/* Forces (and the potential with a->potential) on the targets (a->targets) from the tree in
 * a->ws, built from the same pos and n earlier on the same stream; adds the interactions and
 * groups to a->counts (if not NULL). Deterministic: the same positions and targets give bitwise
 * the same results. */
int gs_tree_walk_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, void *stream);

/* gs_tree_ops.unsort (gs_backend.h) over the tree in a->ws. */
int gs_tree_order_unsort_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, const void *src, void *dst,
                          uint64_t d_first, uint64_t d_count, void *stream);

/* gs_tree_ops.bounds (gs_backend.h): group starts at or after want[0..m), synchronous on stream. */
int gs_tree_order_bounds_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, const uint64_t *want, uint64_t *got,
                          int m, void *stream);

/* ---- distributed tree (gs_tree_dbody.cu, gs_tree_dbuild.cu, gs_tree_dtop.cu, gs_tree_dlet.cu,
 * gs_tree_dmerge.cu): struct gs_dtree_ops' primitives (gs_backend.h) on one rank's device. Each
 * returns once its work on stream is done (a cudaError_t as an int); the bodies b are device
 * memory, arrays named host are host memory. ---- */

/* Most bodies in a leaf bucket where --leaf leaves it to the backend (both layouts). */
#define GS_CUDA_TREE_LEAF 16

/* The device buffers the primitives keep from one to the next (grown, never shrunk). */
struct gs_tree_dstate;
int gs_tree_dbody_open(struct gs_tree_dstate **s);
void gs_tree_dbody_close(struct gs_tree_dstate *s);
/* The device bytes s holds now. */
size_t gs_tree_dbody_bytes(const struct gs_tree_dstate *s);
/* m[6] (host): per axis the least position and the negated greatest of pos[0, n). */
int gs_tree_dbody_box(struct gs_tree_dstate *s, int precision, const void *pos, uint64_t n, double m[6],
                      void *stream);
/* The keys (the CPU backend's bits) and b sorted by (key, id), every array permuted alike. */
int gs_tree_dbody_sort(struct gs_tree_dstate *s, int precision, const struct gs_dtree_cube *cube,
                       struct gs_dtree_bodies *b, void *stream);
/* got[k] (host) = the first of the n sorted keys not below want[k] (host), k < m. */
int gs_tree_dbody_lower(struct gs_tree_dstate *s, const uint64_t *key, uint64_t n, const uint64_t *want, uint64_t *got,
                        int m, void *stream);
/* w[k] (host) = work summed over [at[k], at[k + 1]) (at: host, nc + 1 of them). */
int gs_tree_dbody_sums(struct gs_tree_dstate *s, const double *work, const uint64_t *at, int nc, double *w,
                       void *stream);
/* work[0, n) rescaled to sum to seconds. */
int gs_tree_dbody_spread(struct gs_tree_dstate *s, double *work, uint64_t n, double seconds, void *stream);
/* gs_dtree_ops' pack (runs: host) and unpack. */
int gs_tree_dbody_pack(struct gs_tree_dstate *s, int precision, const struct gs_dtree_bodies *b,
                       const struct gs_dtree_run *runs, int nrun, void *buf, void *stream);
int gs_tree_dbody_unpack(struct gs_tree_dstate *s, int precision, const void *buf, uint64_t n,
                         struct gs_dtree_bodies *b, uint64_t at, void *stream);
/* gs_dtree_ops' build: the local tree over b (sorted), its cells' roots and groups; cells[k]'s
 * node and amin (host). */
int gs_tree_dbuild_launch(struct gs_cuda_ctx *c, struct gs_tree_dstate *s, const struct gs_tree_args *a,
                          const struct gs_dtree_bodies *b, const uint64_t *at, struct gs_dtree_cell *cells, int ncell,
                          void *stream);
/* The cell table (host, ncell cells by owner, this rank's from cell0, as built) on the device in
 * key order, and the top trie above the cells: what let and walk read. */
int gs_tree_dtop_launch(struct gs_tree_dstate *s, const struct gs_tree_args *a, const struct gs_dtree_cell *table,
                        int ncell, int cell0, int me, void *stream);
/* gs_dtree_ops' let: every other rank's message into the state's send buffer (*out), bytes[r]
 * (host) each. */
int gs_tree_dlet_launch(struct gs_cuda_ctx *c, struct gs_tree_dstate *s, const struct gs_tree_args *a,
                        const struct gs_dtree_cell *table, const int *first, int P, int me, uint64_t *bytes,
                        const void **out, void *stream);
/* gs_dtree_ops' walk: the messages recv (device; rbytes: host) merged, b's bodies walked into
 * a->acc, interactions per body into work (NULL: none), the counts added into a->counts (host);
 * *missing: the closed nodes the walk had to open. */
int gs_tree_dmerge_walk(struct gs_cuda_ctx *c, struct gs_tree_dstate *s, const struct gs_tree_args *a,
                        const struct gs_dtree_cell *table, int ncell, int cell0, const void *recv,
                        const uint64_t *rbytes, int P, const struct gs_dtree_bodies *b, double *work,
                        uint64_t *missing, void *stream);

/* ---- matrix multiply (gs_matmul_kernels.cu, gs_matmul_cublas.cu) ---- */

/* The CUDA backend's matmul kernels, by id: the seed 003 ladder (SEEDS.md section 3), ours, and
 * cuBLAS. */
enum gs_matmul_kernel {
  GS_MK_GLOBAL = 1,  /* one thread per output, A and B from global memory */
  GS_MK_SMEM1 = 2,   /* 32 x 32 shared tiles, transposed (column) access: bank conflicts */
  GS_MK_SMEM2 = 3,   /* + padded [32][33] tiles */
  GS_MK_SMEM3 = 4,   /* + row-major tile access */
  GS_MK_SMEM4 = 5,   /* + two outputs per thread */
  GS_MK_SMEM5 = 6,   /* + four outputs per thread */
  GS_MK_SIMT = 7,    /* ours: register-blocked, warp-tiled, on A and B packed in tiles, async copies */
  GS_MK_CUBLAS = 8,  /* cuBLAS SGEMM / DGEMM (baseline) */
  GS_MK_CUBLAS_TF32 = 9, /* cuBLAS with TF32 tensor-core math (baseline, float inputs) */
  GS_MK_DMMA = 10,   /* ours: double on the FP64 tensor cores (mma.sync .f64, gs_matmul_tc.cu) */
  GS_MK_TC32 = 11,   /* ours: float data on the TF32 tensor cores (mma.sync .tf32, gs_matmul_tc.cu) */
  GS_MK_WGMMA = 12,  /* ours: the same through Hopper's wgmma and TMA (sm_90a, gs_matmul_wgmma.cu) */
  GS_MK_COUNT
};

/* What the matmul launchers make on first use and keep between calls, the caller's to own (the
 * CUDA backend's matmul sub-table: made by its gemm, freed by its release): the cuBLAS handle
 * (gs_matmul_cublas.cu), the device workspace of the kernels that stage their inputs (simt, wgmma:
 * grown on demand) and the driver's tensor-map encoder (wgmma's; a function pointer, nothing to
 * release). All zero to start. */
struct gs_matmul_state {
  void *cublas;      /* the cuBLAS handle; NULL until the first cuBLAS call */
  void *ws;          /* the workspace; NULL until the first staging call */
  size_t ws_bytes;
  void *tmap_encode; /* cuTensorMapEncodeTiled; NULL until the first wgmma call */
};

/* C (m x n, ldc) = A (m x k, lda) * B (k x n, ldb), or += with accumulate; row-major, dtype
 * GS_DTYPE_FLOAT or GS_DTYPE_DOUBLE, any sizes. Asynchronous on stream. cudaErrorInvalidValue for
 * a kernel that does not run this dtype (cublas-tf32, tc32 and wgmma: float only; dmma: double
 * only), a bad size or a NULL pointer; cudaErrorNotSupported for the cuBLAS ids in a build
 * without cuBLAS, for dmma and tc32 on a device older than sm_80, and for wgmma on any device but
 * compute capability 9.0 or in a build without sm_90a code; cudaErrorMemoryAllocation when the
 * workspace does not fit. simt and wgmma stage their inputs in st's workspace
 * (gs_matmul_kernels_workspace; at most (m + n + 256) x (k + 32) elements): one such call at a
 * time per state; NULL c or st is cudaErrorInvalidValue.
 * Sizes: m, n, k <= 2^30, leading dimensions <= INT_MAX and at least the row (lda >= k, ldb >= n,
 * ldc >= n); a matrix with no element may be NULL. m or n = 0: nothing; k = 0: C = 0 (unchanged
 * with accumulate). C must not overlap A or B.
 * These two functions return a cudaError_t, or, when cuBLAS fails, GS_MATMUL_CUBLAS_STATUS plus
 * its cublasStatus_t (a range no cudaError_t uses, so a cuBLAS failure is told apart from a
 * runtime one); gs_matmul_kernels_error_string names either. */
#define GS_MATMUL_CUBLAS_STATUS 100000
int gs_matmul_kernels_launch(struct gs_cuda_ctx *c, struct gs_matmul_state *st, int kernel, int dtype, uint64_t m, uint64_t n, uint64_t k,
                             const void *A, uint64_t lda, const void *B, uint64_t ldb, void *C, uint64_t ldc,
                             int accumulate, void *stream);

/* The same through cuBLAS (GS_MK_CUBLAS, GS_MK_CUBLAS_TF32), called by gs_matmul_kernels_launch. */
int gs_matmul_cublas_gemm(struct gs_matmul_state *st, int tf32, int dtype, uint64_t m, uint64_t n, uint64_t k,
                          const void *A, uint64_t lda, const void *B, uint64_t ldb, void *C, uint64_t ldc,
                          int accumulate, void *stream);

/* Release what st holds (the cuBLAS handle, the workspace; zero after, so a second call does
 * nothing and the next launch makes them again). Returns cudaError_t, or GS_MATMUL_CUBLAS_STATUS
 * + the status of cublasDestroy. */
int gs_matmul_kernels_free(struct gs_matmul_state *st);

/* st's device workspace of at least `bytes`, in *p. It is kept between calls and grown when too
 * small: growing frees the old one first, which waits for the whole device (cudaFree), so the
 * first call of a size pays that and later ones nothing. One workspace: work queued on two
 * streams at once must not both use it. Returns cudaError_t. */
int gs_matmul_kernels_workspace(struct gs_matmul_state *st, size_t bytes, void **p);

/* Destroy st's cuBLAS handle (builds with cuBLAS; gs_matmul_kernels_free calls it). Returns 0 or
 * GS_MATMUL_CUBLAS_STATUS + the status of cublasDestroy. */
int gs_matmul_cublas_free(struct gs_matmul_state *st);

/* What a value returned by the functions above means: cudaGetErrorString's text, or the
 * cuBLAS status name ("CUBLAS_STATUS_..."). Never NULL. */
const char *gs_matmul_kernels_error_string(int e);

#ifdef __cplusplus
}
#endif

#endif
