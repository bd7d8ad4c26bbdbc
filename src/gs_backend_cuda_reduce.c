/* gs_backend_cuda_reduce.c: the CUDA backend's reduction primitives over the launchers of
 * cuda/gs_reduce_kernels.cu, and its kernel list: the seed ladder, ours, and CUB. */
#include <config.h>

#include "gs_backend_cuda.h"

#define GS_CUDA_REDUCE_BLOCK 256 /* the block size when the caller leaves the choice to us */

static const struct gs_kernel gs_cuda_reduce_kernels[] = {
    {"1", "interleaved, tid % 2s", GS_RK_INTERLEAVED, GS_KERNEL_LADDER},
    {"2", "interleaved, strided index", GS_RK_STRIDED, GS_KERNEL_LADDER},
    {"3", "sequential addressing", GS_RK_SEQUENTIAL, GS_KERNEL_LADDER},
    {"4", "first add during load", GS_RK_FIRST_ADD, GS_KERNEL_LADDER},
    {"5", "unrolled last warp", GS_RK_LAST_WARP, GS_KERNEL_LADDER},
    {"6", "complete unroll", GS_RK_UNROLLED, GS_KERNEL_LADDER},
    {"7", "many elements per thread", GS_RK_MULTI, GS_KERNEL_LADDER},
    {"vec", "shuffles, 16 B loads, 2 launches", GS_RK_VEC, 0},
    /* One launch, deterministic, double accumulation: the N-body diagnostics' sums use it. */
    {"onepass", "shuffles, 16 B loads, 1 launch", GS_RK_ONEPASS, GS_KERNEL_INTERNAL},
    {"cub", "cub::DeviceReduce (baseline)", GS_RK_CUB, GS_KERNEL_BASELINE},
};

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
    .kernels = gs_cuda_reduce_kernels,
    .count = sizeof gs_cuda_reduce_kernels / sizeof *gs_cuda_reduce_kernels,
    .workspace = gs_cuda_reduce_workspace,
    .run = gs_cuda_reduce_run,
    .set_block = gs_cuda_reduce_set_block,
};
