/* gs_backend_cuda_tree.c: the CUDA backend's Barnes-Hut primitives (--solver tree) over the
 * launchers of cuda/gs_tree_build.cu, cuda/gs_tree_walk.cu and cuda/gs_tree_order.cu. */
#include <config.h>

#include "gs_backend_cuda.h"

static size_t gs_cuda_tree_workspace(gs_ctx *c, const struct gs_tree_args *a) {
  return gs_tree_build_workspace(&c->cu, a);
}

static void gs_cuda_tree_build(gs_ctx *c, const struct gs_tree_args *a, gs_queue *q) {
  GS_CHECK_CUDA(c, gs_tree_build_launch(&c->cu, a, q));
}

static void gs_cuda_tree_walk(gs_ctx *c, const struct gs_tree_args *a, gs_queue *q) {
  GS_CHECK_CUDA(c, gs_tree_walk_launch(&c->cu, a, q));
}

static void gs_cuda_tree_unsort(gs_ctx *c, const struct gs_tree_args *a, const void *src, void *dst, uint64_t d_first,
                                uint64_t d_count, gs_queue *q) {
  GS_CHECK_CUDA(c, gs_tree_order_unsort_launch(&c->cu, a, src, dst, d_first, d_count, q));
}

static void gs_cuda_tree_bounds(gs_ctx *c, const struct gs_tree_args *a, const uint64_t *want, uint64_t *got, int m,
                                gs_queue *q) {
  GS_CHECK_CUDA(c, gs_tree_order_bounds_launch(&c->cu, a, want, got, m, q));
}

const struct gs_tree_ops gs_backend_cuda_tree_ops = {
    .method = "63-bit Morton keys, CUB radix sort, binary radix tree (Karras), moments bottom-up "
              "(monopole + quadrupole), persistent warps walk groups of <= 32 targets (the tree's cells)",
    .workspace = gs_cuda_tree_workspace,
    .build = gs_cuda_tree_build,
    .walk = gs_cuda_tree_walk,
    .unsort = gs_cuda_tree_unsort,
    .bounds = gs_cuda_tree_bounds,
};
