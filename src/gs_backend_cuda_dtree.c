/* gs_backend_cuda_dtree.c: the CUDA backend's distributed-tree primitives (struct gs_dtree_ops) over
 * the launchers of cuda/gs_tree_d*.cu: the held bodies stay on the device from one evaluation to
 * the next, and so does everything the tree makes of them; the host sees the small arrays the
 * solver's cells and cut need, the cell records, and the messages' sizes. */
#include <config.h>

#include <stdlib.h>

#include "gs_backend_cuda.h"

/* The device state and the queue its work runs on. */
struct gs_cuda_dtree {
  struct gs_tree_dstate *s;
  gs_queue *q;
};

static void *gs_cuda_dtree_open(gs_ctx *c, gs_queue *q) {
  struct gs_cuda_dtree *t = calloc(1, sizeof *t);
  if (!t) GS_DIE(&c->where, "calloc", "out of memory");
  GS_CHECK_CUDA(c, gs_tree_dbody_open(&t->s));
  t->q = q;
  return t;
}

static void gs_cuda_dtree_close(gs_ctx *c, void *p) {
  (void)c;
  struct gs_cuda_dtree *t = p;
  if (!t) return;
  gs_tree_dbody_close(t->s);
  free(t);
}

static size_t gs_cuda_dtree_bytes(gs_ctx *c, void *p) {
  (void)c;
  return gs_tree_dbody_bytes(((struct gs_cuda_dtree *)p)->s);
}

static void gs_cuda_dtree_box(gs_ctx *c, void *p, int precision, const struct gs_dtree_bodies *b, double m[6]) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dbody_box(t->s, precision, b->pos, b->n, m, t->q));
}

static void gs_cuda_dtree_sort(gs_ctx *c, void *p, int precision, const struct gs_dtree_cube *cube,
                               struct gs_dtree_bodies *b) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dbody_sort(t->s, precision, cube, b, t->q));
}

static void gs_cuda_dtree_lower(gs_ctx *c, void *p, const struct gs_dtree_bodies *b, const uint64_t *want,
                                uint64_t *got, int m) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dbody_lower(t->s, b->key, b->n, want, got, m, t->q));
}

static void gs_cuda_dtree_sums(gs_ctx *c, void *p, const struct gs_dtree_bodies *b, const uint64_t *at, int nc,
                               double *w) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dbody_sums(t->s, b->work, at, nc, w, t->q));
}

static void gs_cuda_dtree_spread(gs_ctx *c, void *p, struct gs_dtree_bodies *b, double seconds) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dbody_spread(t->s, b->work, b->n, seconds, t->q));
}

static void gs_cuda_dtree_pack(gs_ctx *c, void *p, int precision, const struct gs_dtree_bodies *b,
                               const struct gs_dtree_run *runs, int nrun, void *buf) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dbody_pack(t->s, precision, b, runs, nrun, buf, t->q));
}

static void gs_cuda_dtree_unpack(gs_ctx *c, void *p, int precision, const void *buf, uint64_t n,
                                 struct gs_dtree_bodies *b, uint64_t at) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dbody_unpack(t->s, precision, buf, n, b, at, t->q));
}

static void gs_cuda_dtree_build(gs_ctx *c, void *p, const struct gs_tree_args *a, const struct gs_dtree_bodies *b,
                                const uint64_t *at, struct gs_dtree_cell *cells, int ncell) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dbuild_launch(&c->cu, t->s, a, b, at, cells, ncell, t->q));
}

/* The top over the table first (the LET tests the receivers' cells through it; the walk then
 * finds it made), then the messages. */
static void gs_cuda_dtree_let(gs_ctx *c, void *p, const struct gs_tree_args *a, const struct gs_dtree_cell *table,
                              const int *first, int P, int me, uint64_t *bytes, const void **out) {
  struct gs_cuda_dtree *t = p;
  GS_CHECK_CUDA(c, gs_tree_dtop_launch(t->s, a, table, first[P], first[me], me, t->q));
  GS_CHECK_CUDA(c, gs_tree_dlet_launch(&c->cu, t->s, a, table, first, P, me, bytes, out, t->q));
}

static uint64_t gs_cuda_dtree_walk(gs_ctx *c, void *p, const struct gs_tree_args *a, const struct gs_dtree_cell *table,
                                   int ncell, int cell0, const void *recv, const uint64_t *rbytes, int P,
                                   const struct gs_dtree_bodies *b, double *work) {
  struct gs_cuda_dtree *t = p;
  uint64_t missing = 0;
  GS_CHECK_CUDA(c, gs_tree_dmerge_walk(&c->cu, t->s, a, table, ncell, cell0, recv, rbytes, P, b, work, &missing, t->q));
  return missing;
}

const struct gs_dtree_ops gs_backend_cuda_dtree_ops = {
    .method = "CUDA: Morton keys (the CPU's bits), CUB radix sort by (key, id), each domain cell's binary radix tree "
              "(Karras, ties by id) with moments bottom-up (monopole + quadrupole), the top trie over the cells from "
              "the gathered records, locally essential trees built level by level on the device, merged there, and "
              "the replicated tree's walk (persistent warps, groups of <= 32 within one cell) over the merged tree",
    .leaf = GS_CUDA_TREE_LEAF,
    /* cuda/gs_tree_dstate.cuh: 28 bytes of order, links, cells and groups; a node (4 vectors, its
     * children and range) and a body in the merged tree */
    .body_bytes = {28 + 4 * 16 + 16 + 16, 28 + 4 * 32 + 16 + 32},
    .open = gs_cuda_dtree_open,
    .close = gs_cuda_dtree_close,
    .bytes = gs_cuda_dtree_bytes,
    .box = gs_cuda_dtree_box,
    .sort = gs_cuda_dtree_sort,
    .lower = gs_cuda_dtree_lower,
    .sums = gs_cuda_dtree_sums,
    .spread = gs_cuda_dtree_spread,
    .pack = gs_cuda_dtree_pack,
    .unpack = gs_cuda_dtree_unpack,
    .build = gs_cuda_dtree_build,
    .let = gs_cuda_dtree_let,
    .walk = gs_cuda_dtree_walk,
};
