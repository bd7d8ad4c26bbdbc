/* gs_backend_cpu_fmm.c: the CPU backend's fast multipole primitives (--solver fmm; struct
 * gs_fmm_ops), Dehnen's falcON scheme in double:
 * - build: the replicated tree's serial octree (gs_backend_cpu_tree_grow: tight boxes, leaf
 *   buckets, breadth first), its bodies copied out by component in the tree's order;
 * - upward (OpenMP over the frontier's subtrees, gs_backend_cpu_fmm.h, then the top): each cell's
 *   centre of mass, the farthest of its bodies from it, and its multipole (P2M at leaves, M2M from
 *   its children);
 * - interact: the dual walk (gs_backend_cpu_fmm_walk.c), mutual;
 * - downward (the top, then OpenMP over the frontier's subtrees): each local expansion shifted to
 *   the children (L2L), then evaluated at the leaves' bodies (L2P) and added to their direct sums.
 * Every cell's and body's sums run in a fixed order, so the bits do not depend on the threads. */
#include "gs_backend_cpu_fmm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GS_CPU_FMM_LEAF 16 /* bodies per leaf bucket when the driver leaves it to us (docs/fmm.md) */

static void *gs_cpu_fmm_open(gs_ctx *c) {
  struct gs_fmm_cpu *t = calloc(1, sizeof *t);
  if (!t) GS_DIE(&c->where, "calloc", "out of memory");
  t->where = &c->where;
  return t;
}

static void gs_cpu_fmm_close(gs_ctx *c, void *s) {
  (void)c;
  struct gs_fmm_cpu *t = s;
  gs_backend_cpu_fmm_walk_free(t);
  void *all[] = {t->node, t->body, t->idx, t->tmp, t->x, t->ax, t->centre, t->radius, t->M, t->T, t->front, t->roots};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++)
    free(all[k]);
  free(t);
}

void gs_backend_cpu_fmm_grow(struct gs_fmm_cpu *t, void *p, uint64_t count, size_t size) {
  void **q = p, *r = realloc(*q, count ? count * size : 1);
  if (!r) GS_DIE(t->where, "realloc", "out of memory");
  *q = r;
}

/* The top and the frontier (gs_backend_cpu_fmm.h). Breadth first, a top cell's children come
 * after it: the top's cells are among the first ntop, marked -1. */
static void gs_cpu_fmm_frontier(struct gs_fmm_cpu *t) {
  uint64_t top = t->n / GS_CPU_FMM_TASK_SHARE > GS_CPU_FMM_TASK_MIN ? t->n / GS_CPU_FMM_TASK_SHARE : GS_CPU_FMM_TASK_MIN;
  if (t->nodes > t->fcap || !t->front) {
    gs_backend_cpu_fmm_grow(t, &t->front, t->nodes, sizeof *t->front);
    gs_backend_cpu_fmm_grow(t, &t->roots, t->nodes, sizeof *t->roots);
    t->fcap = t->nodes;
  }
  t->nroots = t->ntop = 0;
  for (uint64_t k = 0; k < t->nodes; k++) {
    const struct gs_dtree_node *nd = &t->node[k];
    int is_top = nd->nchild && nd->count > top, under = k > 0 && t->front[k] == -2; /* -2: a top cell's child */
    if (k == 0 || under) {
      t->front[k] = is_top ? -1 : (int32_t)t->nroots;
      if (is_top) t->ntop = k + 1;
      else t->roots[t->nroots++] = k;
    }
    for (uint32_t ch = 0; ch < nd->nchild; ch++)
      t->front[nd->child + ch] = t->front[k] >= 0 ? t->front[k] : -2;
  }
}

static void gs_cpu_fmm_build(gs_ctx *c, void *s, const struct gs_fmm_args *a, gs_queue *q) {
  (void)c, (void)q;
  struct gs_fmm_cpu *t = s;
  if (t->ex.order != a->order) gs_backend_cpu_fmm_expand_plan(&t->ex, a->order);
  if (a->n > t->cap || !t->x) { /* room for one at least: no null arrays when n = 0 */
    uint64_t n = a->n;
    gs_backend_cpu_fmm_grow(t, &t->node, 2 * n, sizeof *t->node);
    gs_backend_cpu_fmm_grow(t, &t->body, 4 * n, sizeof *t->body);
    gs_backend_cpu_fmm_grow(t, &t->idx, n, sizeof *t->idx), gs_backend_cpu_fmm_grow(t, &t->tmp, n, sizeof *t->tmp);
    gs_backend_cpu_fmm_grow(t, &t->x, 4 * n, sizeof *t->x), gs_backend_cpu_fmm_grow(t, &t->ax, 4 * n, sizeof *t->ax);
    t->cap = n;
  }
  t->y = t->x + t->cap, t->z = t->y + t->cap, t->m = t->z + t->cap;
  t->ay = t->ax + t->cap, t->az = t->ay + t->cap, t->phi = t->az + t->cap;
  struct gs_tree_args ta = {.precision = a->precision, .pos = a->pos, .n = a->n,
                            .leaf = a->leaf > 0 ? a->leaf : GS_CPU_FMM_LEAF};
  t->n = a->n;
  t->nodes = gs_backend_cpu_tree_grow(&ta, t->node, t->body, t->idx, t->tmp);
  for (uint64_t j = 0; j < a->n; j++)
    t->x[j] = t->body[4 * j], t->y[j] = t->body[4 * j + 1], t->z[j] = t->body[4 * j + 2], t->m[j] = t->body[4 * j + 3];
  if (t->nodes * (uint64_t)t->ex.nc > t->ccap || t->nodes > t->cells || !t->M) {
    gs_backend_cpu_fmm_grow(t, &t->centre, 3 * t->nodes, sizeof *t->centre);
    gs_backend_cpu_fmm_grow(t, &t->radius, t->nodes, sizeof *t->radius);
    gs_backend_cpu_fmm_grow(t, &t->M, t->nodes * t->ex.nc, sizeof *t->M);
    gs_backend_cpu_fmm_grow(t, &t->T, t->nodes * t->ex.nc, sizeof *t->T);
    t->ccap = t->nodes * t->ex.nc, t->cells = t->nodes;
  }
  gs_cpu_fmm_frontier(t);
  if (a->counts) {
    uint64_t leaves = 0;
    for (uint64_t k = 0; k < t->nodes; k++)
      leaves += !t->node[k].nchild;
    a->counts[GS_FMM_CELLS] = t->nodes, a->counts[GS_FMM_LEAVES] = leaves;
  }
}

/* Cell k's centre, radius and multipole, from its bodies (a leaf) or its children's. */
static void gs_cpu_fmm_up(struct gs_fmm_cpu *t, uint64_t k) {
  const struct gs_dtree_node *nd = &t->node[k];
  const int nc = t->ex.nc;
  double *z = t->centre + 3 * k, *M = t->M + k * nc, mass = 0, mx[3] = {0, 0, 0};
  if (nd->nchild) {
    for (uint32_t c = 0; c < nd->nchild; c++) {
      uint64_t ch = nd->child + c;
      double w = t->M[ch * nc];
      mass += w;
      for (int d = 0; d < 3; d++)
        mx[d] += w * t->centre[3 * ch + d];
    }
  } else {
    for (uint64_t j = nd->first; j < nd->first + nd->count; j++)
      mass += t->m[j], mx[0] += t->m[j] * t->x[j], mx[1] += t->m[j] * t->y[j], mx[2] += t->m[j] * t->z[j];
  }
  for (int d = 0; d < 3; d++)
    z[d] = mass != 0 ? mx[d] / mass : 0.5 * (nd->lo[d] + nd->hi[d]);
  memset(M, 0, sizeof *M * (size_t)nc);
  if (nd->nchild) {
    for (uint32_t c = 0; c < nd->nchild; c++) {
      uint64_t ch = nd->child + c;
      const double d[3] = {t->centre[3 * ch] - z[0], t->centre[3 * ch + 1] - z[1], t->centre[3 * ch + 2] - z[2]};
      gs_backend_cpu_fmm_expand_m2m(&t->ex, t->M + ch * nc, d, M);
    }
  } else {
    gs_backend_cpu_fmm_expand_p2m(&t->ex, t->x + nd->first, t->y + nd->first, t->z + nd->first, t->m + nd->first,
                                  nd->count, z, M);
  }
  /* the farthest body itself, not the children's bound: a tighter radius accepts more pairs */
  double r2 = 0;
  for (uint64_t j = nd->first; j < nd->first + nd->count; j++) {
    double dx = t->x[j] - z[0], dy = t->y[j] - z[1], dz = t->z[j] - z[2], d2 = dx * dx + dy * dy + dz * dz;
    r2 = d2 > r2 ? d2 : r2;
  }
  t->radius[k] = sqrt(r2);
}

/* Cell k's subtree, children before parents. */
static void gs_cpu_fmm_up_tree(struct gs_fmm_cpu *t, uint64_t k) {
  const struct gs_dtree_node *nd = &t->node[k];
  for (uint32_t c = 0; c < nd->nchild; c++)
    gs_cpu_fmm_up_tree(t, nd->child + c);
  gs_cpu_fmm_up(t, k);
}

/* The frontier's subtrees on the threads (one parallel loop, no wait per depth), then the top. */
static void gs_cpu_fmm_upward(gs_ctx *c, void *s, const struct gs_fmm_args *a, gs_queue *q) {
  (void)c, (void)a, (void)q;
  struct gs_fmm_cpu *t = s;
#pragma omp parallel for schedule(dynamic, 1)
  for (uint64_t r = 0; r < t->nroots; r++)
    gs_cpu_fmm_up_tree(t, t->roots[r]);
  for (uint64_t k = t->ntop; k-- > 0;)
    if (t->front[k] < 0) gs_cpu_fmm_up(t, k);
}

static void gs_cpu_fmm_interact(gs_ctx *c, void *s, const struct gs_fmm_args *a, gs_queue *q) {
  (void)c, (void)q;
  struct gs_fmm_cpu *t = s;
  memset(t->T, 0, sizeof *t->T * t->nodes * (size_t)t->ex.nc);
  memset(t->ax, 0, sizeof *t->ax * 4 * t->cap);
  gs_backend_cpu_fmm_walk_run(t, a);
}

/* Cell k's local expansion to its children, or (a leaf) to its bodies: G times it added to
 * their direct sums. */
static void gs_cpu_fmm_down(struct gs_fmm_cpu *t, uint64_t k, double G) {
  const struct gs_dtree_node *nd = &t->node[k];
  const int nc = t->ex.nc;
  const double *z = t->centre + 3 * k, *T = t->T + k * nc;
  for (uint32_t c = 0; c < nd->nchild; c++) {
    uint64_t ch = nd->child + c;
    const double d[3] = {t->centre[3 * ch] - z[0], t->centre[3 * ch + 1] - z[1], t->centre[3 * ch + 2] - z[2]};
    gs_backend_cpu_fmm_expand_l2l(&t->ex, T, d, t->T + ch * nc);
  }
  if (nd->nchild) return;
  for (uint64_t j = nd->first; j < nd->first + nd->count; j++) {
    const double u[3] = {t->x[j] - z[0], t->y[j] - z[1], t->z[j] - z[2]};
    double out[4] = {0, 0, 0, 0};
    gs_backend_cpu_fmm_expand_l2p(&t->ex, T, u, out);
    t->ax[j] += G * out[0], t->ay[j] += G * out[1], t->az[j] += G * out[2], t->phi[j] += G * out[3];
  }
}

/* Cell k's subtree, parents before children. */
static void gs_cpu_fmm_down_tree(struct gs_fmm_cpu *t, uint64_t k, double G) {
  const struct gs_dtree_node *nd = &t->node[k];
  gs_cpu_fmm_down(t, k, G);
  for (uint32_t c = 0; c < nd->nchild; c++)
    gs_cpu_fmm_down_tree(t, nd->child + c, G);
}

/* The top first (its locals reach the frontier), then the frontier's subtrees on the threads. */
static void gs_cpu_fmm_downward(gs_ctx *c, void *s, const struct gs_fmm_args *a, gs_queue *q) {
  (void)c, (void)q;
  struct gs_fmm_cpu *t = s;
  for (uint64_t k = 0; k < t->ntop; k++)
    if (t->front[k] < 0) gs_cpu_fmm_down(t, k, a->G);
#pragma omp parallel for schedule(dynamic, 1)
  for (uint64_t r = 0; r < t->nroots; r++)
    gs_cpu_fmm_down_tree(t, t->roots[r], a->G);
}

static void gs_cpu_fmm_unsort(gs_ctx *c, void *s, const struct gs_fmm_args *a, void *dst, uint64_t d_first,
                              uint64_t d_count, gs_queue *q) {
  (void)c, (void)q;
  const struct gs_fmm_cpu *t = s;
#pragma omp parallel for schedule(static)
  for (uint64_t j = 0; j < t->n; j++) {
    uint64_t i = t->idx[j] - d_first;
    if (i >= d_count) continue;
    const double v[4] = {t->ax[j], t->ay[j], t->az[j], a->potential ? t->phi[j] : 0};
    for (int d = 0; d < 4; d++) {
      if (a->precision) ((double *)dst)[4 * i + d] = v[d];
      else ((float *)dst)[4 * i + d] = (float)v[d];
    }
  }
}

const struct gs_fmm_ops gs_backend_cpu_fmm_ops = {
    .method = "CPU: the tree's serial octree (leaf buckets, default 16 bodies); Cartesian expansions about the cells' "
              "centres of mass in double; a mutual dual walk (falcON) in rounds of tasks on disjoint subtrees "
              "(OpenMP), leaf pairs by mutual direct sums; upward and downward passes over the same subtrees (OpenMP)",
    .leaf = GS_CPU_FMM_LEAF,
    .open = gs_cpu_fmm_open,
    .close = gs_cpu_fmm_close,
    .build = gs_cpu_fmm_build,
    .upward = gs_cpu_fmm_upward,
    .interact = gs_cpu_fmm_interact,
    .downward = gs_cpu_fmm_downward,
    .unsort = gs_cpu_fmm_unsort,
};
