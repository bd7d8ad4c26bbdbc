/* gs_cuda_ctx.cu: the launch facts of one device (struct gs_cuda_ctx, gs_cuda.h), the only place
 * in cuda/ that asks the runtime for them: the SM count, read once when the context is made, and
 * each kernel's resident blocks per SM, asked once per (kernel, block size) and remembered in the
 * context. The launchers size their persistent grids and plans from these numbers and keep no
 * state of their own, so a context's owner decides how long the answers live. It also holds the
 * cuBLAS handle (made by gs_matmul_cublas.cu on first use) and the kernels' device workspace
 * (grown on demand), which gs_cuda_ctx_free releases, and the driver's tensor-map encoder that
 * gs_matmul_wgmma.cu looks up on first use (a function pointer: nothing to release). */
#include <config.h>

#include <cuda_runtime.h>
#ifdef GS_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#include "gs_cuda.h"

extern "C" int gs_cuda_ctx_init(struct gs_cuda_ctx *c, int device)
{
  if (!c) return (int)cudaErrorInvalidValue;
  int sms = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  c->device = device;
  c->sm_count = e == cudaSuccess ? sms : 0;
  c->nocc = 0;
  c->cublas = NULL;
  c->ws = NULL;
  c->ws_bytes = 0;
  c->tmap_encode = NULL;
  return (int)e;
}

extern "C" int gs_cuda_ctx_free(struct gs_cuda_ctx *c)
{
  if (!c) return (int)cudaErrorInvalidValue;
  const cudaError_t e = c->ws ? cudaFree(c->ws) : cudaSuccess;
  c->ws = NULL;
  c->ws_bytes = 0;
  if (e != cudaSuccess) return (int)e;
#ifdef GS_HAVE_CUBLAS
  if (c->cublas) {
    const cublasStatus_t st = cublasDestroy(static_cast<cublasHandle_t>(c->cublas));
    c->cublas = NULL;
    if (st != CUBLAS_STATUS_SUCCESS) return GS_MATMUL_CUBLAS_STATUS + (int)st;
  }
#endif
  return (int)cudaSuccess;
}

extern "C" int gs_cuda_ctx_workspace(struct gs_cuda_ctx *c, size_t bytes, void **p)
{
  if (!c || !p) return (int)cudaErrorInvalidValue;
  if (c->ws_bytes < bytes || !c->ws) {
    cudaError_t e = c->ws ? cudaFree(c->ws) : cudaSuccess;
    c->ws = NULL;
    c->ws_bytes = 0;
    if (e == cudaSuccess) e = cudaMalloc(&c->ws, bytes ? bytes : 1);
    if (e != cudaSuccess) {
      c->ws = NULL;
      return (int)e;
    }
    c->ws_bytes = bytes;
  }
  *p = c->ws;
  return (int)cudaSuccess;
}

/* A linear search: a run launches a handful of (kernel, block) pairs, and a pointer compare per
 * entry costs nanoseconds where the runtime's answer costs microseconds. */
extern "C" int gs_cuda_ctx_occupancy(struct gs_cuda_ctx *c, const void *func, int block, int *per_sm)
{
  if (!c || !func || !per_sm) return (int)cudaErrorInvalidValue;
  for (int k = 0; k < c->nocc; ++k)
    if (c->occ[k].func == func && c->occ[k].block == block) {
      *per_sm = c->occ[k].per_sm;
      return (int)cudaSuccess;
    }
  int n = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, func, block, 0);
  if (e != cudaSuccess) return (int)e;
  if (n < 1) n = 1;
  if (c->nocc < GS_CUDA_OCC_MAX) { /* when full, the answer is still right, only not kept */
    c->occ[c->nocc].func = func;
    c->occ[c->nocc].block = block;
    c->occ[c->nocc].per_sm = n;
    c->nocc++;
  }
  *per_sm = n;
  return (int)cudaSuccess;
}
