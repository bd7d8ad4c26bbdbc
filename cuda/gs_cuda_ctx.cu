/* gs_cuda_ctx.cu: the launch facts of one device (struct gs_cuda_ctx, gs_cuda.h), the only place
 * in cuda/ that asks the runtime for them: the SM count, read once when the context is made, and
 * each kernel's resident blocks per SM, asked once per (kernel, block size) and remembered in the
 * context. The launchers size their persistent grids and plans from these numbers and keep no
 * state of their own, so a context's owner decides how long the answers live. What matmul's
 * launchers make on first use (cuBLAS handle, workspace, tensor-map encoder) is struct
 * gs_matmul_state's (gs_matmul_kernels.cu), not the context's. */
#include <config.h>

#include <cuda_runtime.h>

#include "gs_cuda.h"

extern "C" int gs_cuda_ctx_init(struct gs_cuda_ctx *c, int device)
{
  if (!c) return (int)cudaErrorInvalidValue;
  int sms = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  c->device = device;
  c->sm_count = e == cudaSuccess ? sms : 0;
  c->nocc = 0;
  return (int)e;
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
