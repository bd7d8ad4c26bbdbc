/* gs_backend_cuda_reduce.c: the CUDA backend's reduction primitives over the launchers of
 * cuda/gs_reduce_kernels.cu; its kernel list (the seed ladder, ours, and CUB) is in
 * gs_backend_cuda_names.c, which every build has. */
#include <config.h>

#include "gs_backend_cuda.h"

#define GS_CUDA_REDUCE_BLOCK 256 /* the block size when the caller leaves the choice to us */

static size_t gs_cuda_reduce_workspace(gs_ctx *c, int kernel, int dtype, int op, uint64_t n) {
  return gs_reduce_kernels_workspace(&c->cu, kernel, dtype, op, n,
                                     c->reduce_block ? c->reduce_block : GS_CUDA_REDUCE_BLOCK);
}

static void gs_cuda_reduce_run(gs_ctx *c, int kernel, int dtype, int op, const void *in, uint64_t n, void *ws,
                               size_t ws_bytes, void *out, gs_queue *q) {
  GS_CHECK_CUDA(c, gs_reduce_kernels_launch(&c->cu, kernel, dtype, op, in, n, ws, ws_bytes, out,
                                            c->reduce_block ? c->reduce_block : GS_CUDA_REDUCE_BLOCK, q));
}

static void gs_cuda_reduce_set_block(gs_ctx *c, int block) { c->reduce_block = block; }

const struct gs_reduce_ops gs_backend_cuda_reduce_ops = {
    .kernels = gs_backend_cuda_names_reduce,
    .count = GS_RK_COUNT - 1, /* the list holds every reduction kernel, one per id */
    .workspace = gs_cuda_reduce_workspace,
    .run = gs_cuda_reduce_run,
    .set_block = gs_cuda_reduce_set_block,
};
