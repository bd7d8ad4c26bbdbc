/* gs_backend_cuda_tree.c: the CUDA backend's Barnes-Hut primitives (--solver tree) over the
 * launchers of cuda/gs_tree_build.cu and cuda/gs_tree_walk.cu. */
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

const struct gs_tree_ops gs_backend_cuda_tree_ops = {
    .method = "63-bit Morton keys, CUB radix sort, binary radix tree (Karras), moments bottom-up "
              "(monopole + quadrupole), warp walks by groups of 32 targets",
    .workspace = gs_cuda_tree_workspace,
    .build = gs_cuda_tree_build,
    .walk = gs_cuda_tree_walk,
};
