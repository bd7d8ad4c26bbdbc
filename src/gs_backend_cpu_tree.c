/* gs_backend_cpu_tree.c: the CPU backend's Barnes-Hut tree (--solver tree), also the reference
 * that CI checks against the direct sum. Simple rather than fast:
 * - build (serial, deterministic): a top-down octree. Each node's box is the tight box of its
 *   bodies and a node with more than `leaf` bodies splits at the box's midpoints into its
 *   non-empty octants. A node whose bodies would all fall into one octant (coincident bodies, or
 *   bodies one rounding apart) or that sits at the depth limit stays a leaf whatever it holds, so
 *   every inner node has at least two children: at most 2n - 1 nodes, never an overflow, no hang.
 * - moments (double, bottom-up): mass, centre of mass, the traceless quadrupole
 *   Q = sum m (3 y y^T - |y|^2 I) about the centre and the trace T = sum m |y|^2.
 * - walk (OpenMP over targets, schedule(dynamic)): one depth-first walk per target. An accepted
 *   cell adds its monopole and quadrupole with the force law's kernel: for Plummer softening the
 *   expansion of -G m / sqrt(r^2 + eps^2) to second order, which is the traceless form plus one
 *   term in eps^2 T (kept); for the cutoff law (eps = 0) a cell is accepted only if all its bodies
 *   lie beyond the cutoff, so excluded pairs are met one by one in leaves as in the direct sum.
 *   Opened leaves add their bodies exactly as the direct sum does (in double).
 * The same positions give bitwise the same forces: the build is serial and each target's sum
 * runs in the tree's fixed order, whatever the threads, the slice or the rank. */
#include <math.h>
#include <string.h>

#include "gs_backend_cpu.h"

#define GS_CPU_TREE_LEAF 8   /* bodies per leaf bucket when the driver leaves it to us */
#define GS_CPU_TREE_DEPTH 64 /* a node this deep is a leaf, whatever it holds */
#define GS_CPU_TREE_STACK (7 * GS_CPU_TREE_DEPTH + 8)

/* struct gs_dtree_node (gs_dtree.h): the distributed tree (gs_backend_cpu_dtree.c) shares it and
 * the moments, opening test and kernels below. */

/* The workspace: a header, then nodes[2n], sorted double positions body[4n], their original
 * indices idx[n] and a partition buffer tmp[n]. Only n decides its size. */
struct gs_cpu_tree {
  uint64_t nodes;
  struct gs_dtree_node *node;
  double *body;
  uint64_t *idx, *tmp;
};

#define GS_CPU_TREE_HEAD 64

static size_t gs_cpu_tree_workspace(gs_ctx *c, const struct gs_tree_args *a) {
  (void)c;
  return GS_CPU_TREE_HEAD + a->n * (2 * sizeof(struct gs_dtree_node) + 4 * sizeof(double) + 2 * sizeof(uint64_t));
}

static struct gs_cpu_tree gs_cpu_tree_view(const struct gs_tree_args *a) {
  struct gs_cpu_tree t;
  char *p = (char *)a->ws + GS_CPU_TREE_HEAD;
  memcpy(&t.nodes, a->ws, sizeof t.nodes);
  t.node = (struct gs_dtree_node *)p;
  t.body = (double *)(p + 2 * a->n * sizeof(struct gs_dtree_node));
  t.idx = (uint64_t *)(t.body + 4 * a->n);
  t.tmp = t.idx + a->n;
  return t;
}

/* Body i of pos as (x, y, z, m) in double. */
static void gs_cpu_tree_get(const struct gs_tree_args *a, uint64_t i, double q[4]) {
  for (int c = 0; c < 4; c++)
    q[c] = a->precision ? ((const double *)a->pos)[4 * i + c] : ((const float *)a->pos)[4 * i + c];
}

static int gs_cpu_tree_octant(const double *x, const double mid[3]) {
  return (x[0] > mid[0]) | (x[1] > mid[1]) << 1 | (x[2] > mid[2]) << 2;
}

/* Node k's box, then its split into non-empty octants appended at *nn (a stable partition of its
 * bodies' indices), unless it stays a leaf. */
static void gs_cpu_tree_split(const struct gs_tree_args *a, struct gs_cpu_tree *t, uint64_t k, uint64_t leaf,
                              uint64_t *nn) {
  struct gs_dtree_node *nd = &t->node[k];
  double q[4], mid[3];
  uint64_t cnt[8] = {0}, off[8];
  for (uint64_t j = nd->first; j < nd->first + nd->count; j++) {
    gs_cpu_tree_get(a, t->idx[j], q);
    for (int c = 0; c < 3; c++) {
      if (j == nd->first || q[c] < nd->lo[c]) nd->lo[c] = q[c];
      if (j == nd->first || q[c] > nd->hi[c]) nd->hi[c] = q[c];
    }
  }
  nd->nchild = 0;
  if (nd->count <= leaf || nd->depth >= GS_CPU_TREE_DEPTH) return;
  for (int c = 0; c < 3; c++)
    mid[c] = 0.5 * (nd->lo[c] + nd->hi[c]);
  for (uint64_t j = nd->first; j < nd->first + nd->count; j++)
    gs_cpu_tree_get(a, t->idx[j], q), cnt[gs_cpu_tree_octant(q, mid)]++;
  for (int o = 0; o < 8; o++)
    if (cnt[o] == nd->count) return; /* all in one octant: no split can separate them */
  for (int o = 0, s = 0; o < 8; o++)
    off[o] = nd->first + (uint64_t)s, s += (int)cnt[o];
  for (uint64_t j = nd->first; j < nd->first + nd->count; j++)
    gs_cpu_tree_get(a, t->idx[j], q), t->tmp[off[gs_cpu_tree_octant(q, mid)]++] = t->idx[j];
  memcpy(t->idx + nd->first, t->tmp + nd->first, nd->count * sizeof *t->idx);
  nd->child = *nn;
  for (int o = 0; o < 8; o++) {
    if (!cnt[o]) continue;
    struct gs_dtree_node *ch = &t->node[(*nn)++];
    ch->first = off[o] - cnt[o], ch->count = cnt[o], ch->depth = nd->depth + 1;
    nd->nchild++;
  }
}

/* The second moment sum m y y^T of node k about its centre, as a full 3 x 3 matrix. */
static void gs_cpu_tree_second(const struct gs_dtree_node *nd, double m2[3][3]) {
  static const int ij[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  for (int s = 0; s < 6; s++) {
    double v = (nd->q[s] + (s < 3 ? nd->tr : 0)) / 3.0;
    m2[ij[s][0]][ij[s][1]] = m2[ij[s][1]][ij[s][0]] = v;
  }
}

/* Node k's moments: from its bodies (a leaf) or its children's (parallel-axis shifts). */
void gs_backend_cpu_tree_moments(struct gs_dtree_node *node, const double *body, uint64_t k) {
  static const int ij[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  struct gs_dtree_node *nd = &node[k];
  uint64_t parts = nd->nchild ? nd->nchild : nd->count;
  double m = 0, mx[3] = {0}, m2[3][3] = {{0}};
  for (uint64_t p = 0; p < parts; p++) {
    const double *b = nd->nchild ? node[nd->child + p].com : body + 4 * (nd->first + p);
    double w = nd->nchild ? node[nd->child + p].mass : b[3];
    m += w;
    for (int c = 0; c < 3; c++)
      mx[c] += w * b[c];
  }
  for (int c = 0; c < 3; c++)
    nd->com[c] = m != 0 ? mx[c] / m : 0.5 * (nd->lo[c] + nd->hi[c]);
  nd->mass = m;
  for (uint64_t p = 0; p < parts; p++) {
    const double *b = nd->nchild ? node[nd->child + p].com : body + 4 * (nd->first + p);
    double w = nd->nchild ? node[nd->child + p].mass : b[3], y[3], own[3][3] = {{0}};
    if (nd->nchild) gs_cpu_tree_second(&node[nd->child + p], own);
    for (int c = 0; c < 3; c++)
      y[c] = b[c] - nd->com[c];
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++)
        m2[r][c] += own[r][c] + w * y[r] * y[c];
  }
  nd->tr = m2[0][0] + m2[1][1] + m2[2][2];
  for (int s = 0; s < 6; s++)
    nd->q[s] = 3 * m2[ij[s][0]][ij[s][1]] - (s < 3 ? nd->tr : 0);
  double d2 = 0;
  for (int c = 0; c < 3; c++) {
    double lo = nd->com[c] - nd->lo[c], hi = nd->hi[c] - nd->com[c], e = lo > hi ? lo : hi;
    d2 += e * e;
  }
  nd->size = sqrt(d2);
}

uint64_t gs_backend_cpu_tree_grow(const struct gs_tree_args *a, struct gs_dtree_node *node, double *body, uint64_t *idx,
                                  uint64_t *tmp) {
  struct gs_cpu_tree t = {.node = node, .body = body, .idx = idx, .tmp = tmp};
  uint64_t leaf = a->leaf > 0 ? (uint64_t)a->leaf : GS_CPU_TREE_LEAF, nn = a->n ? 1 : 0;
  for (uint64_t i = 0; i < a->n; i++)
    t.idx[i] = i;
  if (a->n) memset(&t.node[0], 0, sizeof t.node[0]), t.node[0].count = a->n;
  /* Breadth first: a node's children are appended after every node made before them. */
  for (uint64_t k = 0; k < nn; k++)
    gs_cpu_tree_split(a, &t, k, leaf, &nn);
  for (uint64_t j = 0; j < a->n; j++)
    gs_cpu_tree_get(a, t.idx[j], t.body + 4 * j);
  return nn;
}

static void gs_cpu_tree_build(gs_ctx *c, const struct gs_tree_args *a, gs_queue *q) {
  (void)c, (void)q;
  struct gs_cpu_tree t = gs_cpu_tree_view(a);
  uint64_t nn = gs_backend_cpu_tree_grow(a, t.node, t.body, t.idx, t.tmp);
  for (uint64_t k = nn; k-- > 0;)
    gs_backend_cpu_tree_moments(t.node, t.body, k); /* children come after their parent */
  memcpy(a->ws, &nn, sizeof nn);
  if (a->counts) a->counts[GS_TREE_NODES] = nn;
}

/* Must node nd be opened for a target at x (|a_old| = aold)? */
int gs_backend_cpu_tree_open(const struct gs_tree_args *a, const struct gs_dtree_node *nd, const double x[3],
                            double aold) {
  double d2 = 0;
  int inside = 1;
  for (int c = 0; c < 3; c++) {
    double r = nd->com[c] - x[c];
    d2 += r * r;
    inside &= x[c] >= nd->lo[c] && x[c] <= nd->hi[c];
  }
  if (inside) return 1;
  if (a->law == GS_LAW_CUTOFF) {
    double reach = nd->size + sqrt(a->cut2); /* some body may lie inside the cutoff */
    if (d2 < reach * reach) return 1;
  }
  if (a->opening == GS_TREE_RELATIVE && !a->first)
    return a->G * nd->mass * nd->size * nd->size > a->alpha * aold * d2 * d2;
  return nd->size * nd->size > a->theta * a->theta * d2;
}

/* An accepted cell's monopole and quadrupole at x into out (ax, ay, az, phi); e2 = eps^2 or 0. */
void gs_backend_cpu_tree_cell(const struct gs_dtree_node *nd, const double x[3], double G, double e2, double out[4]) {
  const double *q = nd->q;
  double r[3] = {nd->com[0] - x[0], nd->com[1] - x[1], nd->com[2] - x[2]};
  double s2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + e2;
  double inv = 1 / sqrt(s2), inv2 = inv * inv, inv3 = inv * inv2, inv5 = inv3 * inv2, inv7 = inv5 * inv2;
  double qr[3] = {q[0] * r[0] + q[3] * r[1] + q[4] * r[2], q[3] * r[0] + q[1] * r[1] + q[5] * r[2],
                  q[4] * r[0] + q[5] * r[1] + q[2] * r[2]};
  double rqr = r[0] * qr[0] + r[1] * qr[1] + r[2] * qr[2], e2t = e2 * nd->tr;
  double radial = G * (nd->mass * inv3 + 2.5 * (rqr - e2t) * inv7);
  for (int c = 0; c < 3; c++)
    out[c] += radial * r[c] - G * inv5 * qr[c];
  out[3] -= G * (nd->mass * inv + 0.5 * (rqr - e2t) * inv5);
}

/* Leaf nd's bodies (double (x, y, z, m) rows of body, ids idx) on the target self at x, exactly as
 * the direct sum adds them. */
void gs_backend_cpu_tree_leaf(const struct gs_tree_args *a, const double *body, const uint64_t *idx,
                              const struct gs_dtree_node *nd, uint64_t self, const double x[3], double out[4]) {
  for (uint64_t j = nd->first; j < nd->first + nd->count; j++) {
    const double *b = body + 4 * j;
    double dx = b[0] - x[0], dy = b[1] - x[1], dz = b[2] - x[2], r2 = dx * dx + dy * dy + dz * dz;
    if (a->law == GS_LAW_CUTOFF) {
      if (r2 < a->cut2) continue;
    } else {
      if (idx[j] == self) continue;
      r2 += a->eps2;
    }
    double inv = 1 / sqrt(r2), s = a->G * b[3] * inv * inv * inv;
    out[0] += dx * s, out[1] += dy * s, out[2] += dz * s;
    out[3] -= a->G * b[3] * inv;
  }
}

/* The forces on target i at x: counts of body-body and body-cell interactions into cnt. */
static void gs_cpu_tree_walk_one(const struct gs_tree_args *a, const struct gs_cpu_tree *t, uint64_t i,
                                 const double x[3], double aold, double out[4], uint64_t cnt[2]) {
  uint64_t stack[GS_CPU_TREE_STACK];
  int sp = t->nodes ? 1 : 0;
  double e2 = a->law == GS_LAW_PLUMMER ? a->eps2 : 0;
  stack[0] = 0;
  while (sp > 0) {
    const struct gs_dtree_node *nd = &t->node[stack[--sp]];
    if (!gs_backend_cpu_tree_open(a, nd, x, aold)) {
      gs_backend_cpu_tree_cell(nd, x, a->G, e2, out), cnt[1]++;
    } else if (!nd->nchild) {
      gs_backend_cpu_tree_leaf(a, t->body, t->idx, nd, i, x, out), cnt[0] += nd->count;
    } else {
      for (uint32_t c = nd->nchild; c-- > 0;)
        stack[sp++] = nd->child + c; /* the first child on top: visited in octant order */
    }
  }
}

/* Component d of vector k of a precision's (x, y, z, w) array. */
static double gs_cpu_tree_comp(const struct gs_tree_args *a, const void *v, uint64_t k, int d) {
  return a->precision ? ((const double *)v)[4 * k + d] : ((const float *)v)[4 * k + d];
}

static void gs_cpu_tree_walk(gs_ctx *c, const struct gs_tree_args *a, gs_queue *q) {
  (void)c, (void)q;
  const struct gs_cpu_tree t = gs_cpu_tree_view(a);
  const int by_order = a->targets == GS_TREE_BY_ORDER;
  uint64_t bb = 0, bc = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : bb, bc)
  for (uint64_t k = 0; k < a->i_count; k++) {
    if (a->stop && a->stop()) continue; /* abandoned: one body's work bounds the wait */
    double x[4], out[4] = {0}, aold = 0;
    uint64_t cnt[2] = {0, 0}, s = a->i_first + k, i = by_order ? (s < a->n ? t.idx[s] : UINT64_MAX) : s;
    if (i != UINT64_MAX) {
      gs_cpu_tree_get(a, i, x);
      /* by index, a_old is acc's own entry; by order, the caller's array in index order */
      const void *old = by_order ? a->aold : a->acc;
      uint64_t at = by_order ? i : k;
      if (a->opening == GS_TREE_RELATIVE && !a->first)
        for (int d = 0; d < 3; d++)
          aold += gs_cpu_tree_comp(a, old, at, d) * gs_cpu_tree_comp(a, old, at, d);
      gs_cpu_tree_walk_one(a, &t, i, x, sqrt(aold), out, cnt);
    }
    if (!a->potential) out[3] = 0;
    for (int d = 0; d < 4; d++) {
      if (a->precision) ((double *)a->acc)[4 * k + d] = out[d];
      else ((float *)a->acc)[4 * k + d] = (float)out[d];
    }
    bb += cnt[0], bc += cnt[1];
  }
  if (a->counts) a->counts[GS_TREE_BODY_BODY] += bb, a->counts[GS_TREE_BODY_CELL] += bc;
}

static void gs_cpu_tree_unsort(gs_ctx *c, const struct gs_tree_args *a, const void *src, void *dst, uint64_t d_first,
                               uint64_t d_count, gs_queue *q) {
  (void)c, (void)q;
  const struct gs_cpu_tree t = gs_cpu_tree_view(a);
  size_t vb = a->precision ? 4 * sizeof(double) : 4 * sizeof(float);
  for (uint64_t s = 0; s < a->n; s++)
    if (t.idx[s] - d_first < d_count) memcpy((char *)dst + (t.idx[s] - d_first) * vb, (const char *)src + s * vb, vb);
}

/* Every position is a boundary: the walk goes body by body. */
static void gs_cpu_tree_bounds(gs_ctx *c, const struct gs_tree_args *a, const uint64_t *want, uint64_t *got, int m,
                               gs_queue *q) {
  (void)c, (void)q;
  for (int k = 0; k < m; k++)
    got[k] = want[k] < a->n ? want[k] : a->n;
}

const struct gs_tree_ops gs_backend_cpu_tree_ops = {
    .method = "CPU: serial top-down octree on tight boxes (leaf buckets, default 8 bodies), monopole + traceless "
              "quadrupole in double, one depth-first walk per body (OpenMP, dynamic)",
    .workspace = gs_cpu_tree_workspace,
    .build = gs_cpu_tree_build,
    .walk = gs_cpu_tree_walk,
    .unsort = gs_cpu_tree_unsort,
    .bounds = gs_cpu_tree_bounds,
};
