/* gs_cuda.h: the C interface of every CUDA launcher in cuda/. Plain C (no CUDA types), guarded
 * for C++ so the .cu files define these with C linkage. Every launcher returns a cudaError_t as an
 * int (0 = success) and takes its stream as void*, so host C stays free of CUDA C++. */
#ifndef GS_CUDA_H
#define GS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "gs_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reduction kernels, by id. 1..7 are the seed ladder (SEEDS.md section 1); the rest are ours. */
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

/* Device workspace (bytes) kernel k needs for n elements at block size `block` on the current
 * device. The workspace must be zeroed once after allocation; kernels leave it reusable. */
size_t gs_cuda_reduce_workspace(int kernel, int dtype, int op, uint64_t n, int block);

/* Reduce n elements of d_in (type dtype) with op into *d_out, one union gs_acc in device
 * memory. Asynchronous on `stream`. block must be a power of two in [32, 1024] (ignored by cub).
 * Deterministic: same inputs, same result, run after run. Returns cudaError_t. */
int gs_cuda_reduce(int kernel, int dtype, int op, const void *d_in, uint64_t n, void *d_ws,
                   size_t ws_bytes, void *d_out, int block, void *stream);

/* Stop `stream` until *d_flag (mapped host memory) becomes non-zero, or 2 s pass. Returns
 * cudaError_t. */
int gs_cuda_gate_wait(const volatile int *d_flag, void *stream);

/* N-body force kernels, by id: the seed 004 tuning ladder, then ours. */
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

/* Force law: Plummer softening (a = m r / (r^2 + eps^2)^1.5), or the seed 003 hard cutoff (pairs
 * with r^2 < cut2 exert nothing, no softening). */
enum gs_nbody_law { GS_LAW_PLUMMER = 0, GS_LAW_CUTOFF = 1 };

/* One force evaluation: targets pos[i_first, i_first + i_count) feel sources
 * pos[j_first, j_first + j_count). pos holds (x, y, z, m) as float4 (precision 0) or double4
 * (precision 1); acc holds i_count of the same type: (ax, ay, az, potential). */
struct gs_nbody_force_args {
  int kernel;            /* enum gs_nbody_kernel */
  int precision;         /* 0 single, 1 double */
  int law;               /* enum gs_nbody_law */
  const void *pos;       /* all bodies on this device */
  uint64_t i_first, i_count;
  uint64_t j_first, j_count;
  void *acc;             /* i_count results */
  int accumulate;        /* 1: add to acc (a later j range); 0: overwrite */
  int potential;         /* 1: also accumulate the potential -G sum m_j / r in acc.w */
  double G, eps2, cut2;  /* gravitational constant, softening^2, cutoff^2 */
  void *ws;              /* device workspace (jsplit partials), zeroed once by the caller */
  size_t ws_bytes;
  int (*stop)(void);     /* NULL, or nonzero once the work may be abandoned (a stop request): the
                            host backend checks it between bodies; device kernels ignore it */
};

/* Workspace bytes that a force evaluation with these arguments needs (0 for most kernels). */
size_t gs_cuda_nbody_workspace(const struct gs_nbody_force_args *a);

/* Evaluate forces (asynchronous on stream). Returns cudaError_t. */
int gs_cuda_nbody_forces(const struct gs_nbody_force_args *a, void *stream);

/* Leapfrog pieces on count bodies: kick v += a dt (vel and acc as float4/double4, w unused in
 * vel), drift x += v dt (pos w = mass kept). Return cudaError_t. */
int gs_cuda_nbody_kick(int precision, void *vel, const void *acc, uint64_t count, double dt, void *stream);
int gs_cuda_nbody_drift(int precision, void *pos, const void *vel, uint64_t count, double dt, void *stream);

/* Per-body diagnostic terms for count bodies into terms[k * count + i]: k = 0 m v^2 / 2,
 * 1 m phi / 2, 2..4 m v, 5..7 m x (pos, vel, acc as float4/double4). Returns cudaError_t. */
int gs_cuda_nbody_terms(int precision, const void *pos, const void *vel, const void *acc, uint64_t count,
                        double *terms, void *stream);

#ifdef __cplusplus
}
#endif

#endif
