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

#ifdef __cplusplus
}
#endif

#endif
