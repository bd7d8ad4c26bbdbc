/* gs_backend_cpu_dtree.c: the CPU backend's distributed-tree primitives (struct gs_dtree_ops):
 * the compressed key-grid octree of each domain cell and the locally essential trees for the other
 * ranks; the held bodies' primitives are gs_backend_cpu_dbody.c's, the merged tree's walk
 * gs_backend_cpu_dmerge.c's.
 * Node moments, the opening test and the kernels are the replicated CPU tree's
 * (gs_backend_cpu_tree.c), so a node's record depends only on its bodies in (key, id) order:
 * bitwise the same whichever rank builds it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend_cpu.h"
#include "gs_backend_cpu_dtree.h"

#define GS_CPU_DTREE_LEAF 8 /* as the replicated CPU tree's buckets */

static void *gs_cpu_dtree_grow(gs_ctx *c, void *p, size_t bytes) {
  void *q = realloc(p, bytes ? bytes : 1);
  if (!q) GS_DIE(&c->where, "realloc", "out of memory for the distributed tree");
  return q;
}

void gs_backend_cpu_dtree_reserve(gs_ctx *c, struct gs_cpu_dtree *t, uint64_t nodes, uint64_t bodies) {
  if (nodes > t->node_cap) {
    t->node_cap = nodes + nodes / 2 + 16;
    t->node = gs_cpu_dtree_grow(c, t->node, t->node_cap * sizeof *t->node);
  }
  if (bodies > t->body_cap) {
    t->body_cap = bodies + bodies / 2 + 16;
    t->body = gs_cpu_dtree_grow(c, t->body, t->body_cap * 4 * sizeof *t->body);
  }
}

static void *gs_cpu_dtree_open(gs_ctx *c, gs_queue *q) {
  (void)q; /* work runs at once */
  struct gs_cpu_dtree *t = calloc(1, sizeof *t);
  if (!t) GS_DIE(&c->where, "calloc", "out of memory");
  return t;
}

static size_t gs_cpu_dtree_bytes(gs_ctx *c, void *p) {
  (void)c;
  const struct gs_cpu_dtree *t = p;
  return t->node_cap * sizeof *t->node + t->body_cap * 4 * sizeof *t->body + (size_t)t->ncell * sizeof *t->root +
         t->out.cap;
}

static void gs_cpu_dtree_close(gs_ctx *c, void *p) {
  (void)c;
  struct gs_cpu_dtree *t = p;
  if (!t) return;
  free(t->node), free(t->body), free(t->root), free(t->out.data);
  free(t);
}

void gs_backend_cpu_dtree_get(int precision, const void *v, uint64_t i, double q[4]) {
  for (int c = 0; c < 4; c++)
    q[c] = precision ? ((const double *)v)[4 * i + c] : ((const float *)v)[4 * i + c];
}

/* The first digit (0 = the top level) where keys x and y differ; GS_DTREE_LEVELS if none. */
int gs_backend_cpu_dtree_digit(uint64_t x, uint64_t y) {
  uint64_t d = x ^ y;
  if (!d) return GS_DTREE_LEVELS;
  int h = 63 - __builtin_clzll(d);
  return (3 * GS_DTREE_LEVELS - 1 - h) / 3;
}

/* Digit d of key k. */
int gs_backend_cpu_dtree_at(uint64_t k, int d) { return (int)(k >> (3 * (GS_DTREE_LEVELS - 1 - d)) & 7); }

/* Node k (bodies [first, first + count) of t->body, keys key): its tight box, then, unless it is
 * a leaf bucket (few bodies, or one key), its children, one per non-empty digit at the first
 * digit where its keys differ, appended at t->nodes. */
static void gs_cpu_dtree_split(gs_ctx *c, struct gs_cpu_dtree *t, const uint64_t *key, uint64_t k, uint64_t leaf) {
  struct gs_dtree_node *nd = &t->node[k];
  for (uint64_t j = nd->first; j < nd->first + nd->count; j++)
    for (int d = 0; d < 3; d++) {
      double x = t->body[4 * j + d];
      if (j == nd->first || x < nd->lo[d]) nd->lo[d] = x;
      if (j == nd->first || x > nd->hi[d]) nd->hi[d] = x;
    }
  uint64_t end = nd->first + nd->count;
  int dig = gs_backend_cpu_dtree_digit(key[nd->first], key[end - 1]);
  nd->nchild = 0, nd->depth = dig, nd->closed = 0;
  if (nd->count <= leaf || dig == GS_DTREE_LEVELS) return;
  uint64_t first = nd->first, nchild = 0;
  for (uint64_t j = first + 1; j <= end; j++)
    nchild += j == end || gs_backend_cpu_dtree_at(key[j], dig) != gs_backend_cpu_dtree_at(key[j - 1], dig);
  gs_backend_cpu_dtree_reserve(c, t, t->nodes + nchild, 0);
  nd = &t->node[k];
  nd->child = t->nodes;
  for (uint64_t j = first + 1, from = first; j <= end; j++) {
    if (j < end && gs_backend_cpu_dtree_at(key[j], dig) == gs_backend_cpu_dtree_at(key[j - 1], dig)) continue;
    struct gs_dtree_node *ch = &t->node[t->nodes++];
    memset(ch, 0, sizeof *ch);
    ch->first = from, ch->count = j - from, from = j;
    nd->nchild++;
  }
}

/* min |a_old| over bodies [from, to) of acc (the relative test's bound for a target box). */
static double gs_cpu_dtree_amin(const struct gs_tree_args *a, const void *acc, uint64_t from, uint64_t to) {
  double m = INFINITY;
  if (a->opening != GS_TREE_RELATIVE || a->first) return m;
  for (uint64_t i = from; i < to; i++) {
    double g[4], s = 0;
    gs_backend_cpu_dtree_get(a->precision, acc, i, g);
    for (int d = 0; d < 3; d++)
      s += g[d] * g[d];
    s = sqrt(s);
    if (s < m) m = s;
  }
  return m;
}

static void gs_cpu_dtree_build(gs_ctx *c, void *p, const struct gs_tree_args *a, const struct gs_dtree_bodies *b,
                               const uint64_t *at, struct gs_dtree_cell *cells, int ncell) {
  struct gs_cpu_dtree *t = p;
  uint64_t leaf = a->leaf > 0 ? (uint64_t)a->leaf : GS_CPU_DTREE_LEAF;
  t->nodes = 0, t->n = b->n;
  gs_backend_cpu_dtree_reserve(c, t, 2 * b->n + 1, b->n);
  t->root = gs_cpu_dtree_grow(c, t->root, sizeof *t->root * (size_t)(ncell ? ncell : 1));
  for (uint64_t i = 0; i < b->n; i++)
    gs_backend_cpu_dtree_get(a->precision, b->pos, i, t->body + 4 * i);
  for (int k = 0; k < ncell; k++) {
    uint64_t r = t->nodes++;
    t->root[k] = r;
    memset(&t->node[r], 0, sizeof t->node[r]);
    t->node[r].first = at[k], t->node[r].count = at[k + 1] - at[k];
    for (uint64_t j = r; j < t->nodes; j++) /* breadth first: children after their parent */
      gs_cpu_dtree_split(c, t, b->key, j, leaf);
    for (uint64_t j = t->nodes; j-- > r;)
      gs_backend_cpu_tree_moments(t->node, t->body, j);
    cells[k].node = t->node[r];
    cells[k].amin = gs_cpu_dtree_amin(a, b->acc, at[k], at[k + 1]);
  }
}

/* gs_backend_cpu_dtree.h. The walk's test with the distance from com to the box (per axis as the walk
 * computes its differences: rounding is monotone, so no target's d2 is below it), theta^2 and
 * alpha shrunk by 2^-12 against the products' rounding: when in doubt, open (it only sends more). */
int gs_backend_cpu_dtree_may_open(const struct gs_tree_args *a, const struct gs_dtree_node *nd,
                                  const struct gs_dtree_cell *T) {
  const double margin = 1 - 1.0 / 4096;
  const struct gs_dtree_node *tb = &T->node;
  double d2 = 0;
  int overlap = 1;
  for (int c = 0; c < 3; c++) {
    double lo = tb->lo[c] - nd->com[c], hi = nd->com[c] - tb->hi[c], r = lo > hi ? lo : hi;
    if (r < 0) r = 0;
    d2 += r * r;
    overlap &= tb->lo[c] <= nd->hi[c] && tb->hi[c] >= nd->lo[c];
  }
  if (overlap) return 1;
  if (a->law == GS_LAW_CUTOFF) {
    double reach = nd->size + sqrt(a->cut2);
    if (d2 < reach * reach) return 1;
  }
  if (a->opening == GS_TREE_RELATIVE && !a->first)
    return a->G * nd->mass * nd->size * nd->size > a->alpha * margin * T->amin * d2 * d2;
  return nd->size * nd->size > a->theta * a->theta * margin * d2;
}

static int gs_cpu_dtree_needed(const struct gs_tree_args *a, const struct gs_dtree_node *nd,
                               const struct gs_dtree_cell *targets, int ntarget) {
  for (int k = 0; k < ntarget; k++)
    if (targets[k].node.count && gs_backend_cpu_dtree_may_open(a, nd, &targets[k])) return 1;
  return 0;
}

static void gs_cpu_dtree_put(gs_ctx *c, struct gs_cpu_dtree_msg *m, const void *p, size_t bytes) {
  if (m->bytes + bytes > m->cap) {
    m->cap = (m->bytes + bytes) * 2 + 4096;
    m->data = gs_cpu_dtree_grow(c, m->data, m->cap);
  }
  memcpy(m->data + m->bytes, p, bytes);
  m->bytes += bytes;
}

void gs_backend_cpu_dtree_pack(const struct gs_dtree_node *nd, double rec[GS_CPU_DLET_CLOSED]) {
  memcpy(rec, nd->com, sizeof nd->com), rec[3] = nd->mass;
  memcpy(rec + 4, nd->q, sizeof nd->q), rec[10] = nd->tr, rec[11] = nd->size;
}

/* One cell's fragment for a receiver, breadth first from the root: the nodes it may open get
 * their children (contiguous), the open buckets their bodies, the rest stay closed. src and kind
 * (gs_backend_cpu_dtree.h) grow as needed; returns the node count, its bodies into *nb. */
static uint64_t gs_cpu_dtree_frag_nodes(gs_ctx *c, const struct gs_cpu_dtree *t, const struct gs_tree_args *a,
                                        uint64_t root, const struct gs_dtree_cell *targets, int ntarget, uint64_t **src,
                                        unsigned char **kind, uint64_t *cap, uint64_t *nb) {
  uint64_t nn = 1, row = 4 * (a->precision ? sizeof(double) : sizeof(float));
  (*src)[0] = root, *nb = 0;
  for (uint64_t q = 0; q < nn; q++) {
    const struct gs_dtree_node *nd = &t->node[(*src)[q]];
    /* a bucket whose bodies are fewer bytes than its closed record goes as its bodies: the
     * receiver recomputes the same record from them (and would be exact even opening it) */
    int small = !nd->nchild && nd->count * row < GS_CPU_DLET_CLOSED * sizeof(double);
    if (q > 0 && !small && !gs_cpu_dtree_needed(a, nd, targets, ntarget)) {
      (*kind)[q] = GS_CPU_DLET_SHUT;
      continue;
    }
    (*kind)[q] = (unsigned char)(nd->nchild                                  ? nd->nchild
                                 : nd->count && nd->count <= GS_CPU_DLET_FEW ? GS_CPU_DLET_BUCKET + nd->count
                                                                             : 0); /* 0: a count follows */
    if (!nd->nchild) *nb += nd->count;
    if (nn + nd->nchild > *cap) {
      *cap = 2 * (nn + nd->nchild);
      *src = gs_cpu_dtree_grow(c, *src, sizeof **src * *cap), *kind = gs_cpu_dtree_grow(c, *kind, *cap);
    }
    for (uint32_t k = 0; k < nd->nchild; k++)
      (*src)[nn++] = nd->child + k;
  }
  return nn;
}

/* One cell's fragment in the wire format of gs_backend_cpu_dtree.h, appended to out. */
static void gs_cpu_dtree_fragment(gs_ctx *c, struct gs_cpu_dtree *t, const struct gs_tree_args *a, uint64_t cell,
                                  uint64_t root, const struct gs_dtree_cell *targets, int ntarget,
                                  struct gs_cpu_dtree_msg *out) {
  uint64_t cap = 64, nb, *src = malloc(sizeof *src * cap);
  unsigned char *kind = malloc(cap);
  if (!src || !kind) GS_DIE(&c->where, "malloc", "out of memory");
  uint64_t nn = gs_cpu_dtree_frag_nodes(c, t, a, root, targets, ntarget, &src, &kind, &cap, &nb);
  uint64_t head[3] = {cell, nn, nb};
  gs_cpu_dtree_put(c, out, head, sizeof head);
  gs_cpu_dtree_put(c, out, kind, nn);
  for (uint64_t q = 0; q < nn; q++) {
    const struct gs_dtree_node *nd = &t->node[src[q]];
    double rec[GS_CPU_DLET_CLOSED];
    if (kind[q] == GS_CPU_DLET_SHUT) {
      gs_backend_cpu_dtree_pack(nd, rec);
      gs_cpu_dtree_put(c, out, rec, sizeof rec);
    } else if (!kind[q]) {
      gs_cpu_dtree_put(c, out, &nd->count, sizeof nd->count);
    } else if (q > 0 && kind[q] <= GS_CPU_DLET_BUCKET) {
      gs_cpu_dtree_put(c, out, nd->lo, sizeof nd->lo), gs_cpu_dtree_put(c, out, nd->hi, sizeof nd->hi);
    }
  }
  for (uint64_t q = 0; q < nn; q++) { /* exact in float where the run is float: its doubles came from floats */
    if (t->node[src[q]].nchild || kind[q] == GS_CPU_DLET_SHUT) continue;
    const struct gs_dtree_node *nd = &t->node[src[q]];
    if (a->precision) {
      gs_cpu_dtree_put(c, out, t->body + 4 * nd->first, nd->count * 4 * sizeof *t->body);
      continue;
    }
    for (uint64_t j = 4 * nd->first; j < 4 * (nd->first + nd->count); j++) {
      float f = (float)t->body[j];
      gs_cpu_dtree_put(c, out, &f, sizeof f);
    }
  }
  free(src), free(kind);
}

/* Every other rank's fragments (gs_backend_cpu_dtree.h's wire format) into t's buffer, receiver
 * after receiver: those of this rank's cells some target of the receiver may open. */
static void gs_cpu_dtree_let(gs_ctx *c, void *p, const struct gs_tree_args *a, const struct gs_dtree_cell *table,
                             const int *first, int P, int me, uint64_t *bytes, const void **out) {
  struct gs_cpu_dtree *t = p;
  t->out.bytes = 0;
  for (int r = 0; r < P; r++) {
    size_t before = t->out.bytes;
    const struct gs_dtree_cell *targets = table + first[r];
    int ntarget = first[r + 1] - first[r];
    for (int k = 0; k < t->ncell && r != me; k++)
      if (gs_cpu_dtree_needed(a, &t->node[t->root[k]], targets, ntarget))
        gs_cpu_dtree_fragment(c, t, a, (uint64_t)(first[me] + k), t->root[k], targets, ntarget, &t->out);
    bytes[r] = t->out.bytes - before;
  }
  *out = t->out.data;
}

static void gs_cpu_dtree_build_all(gs_ctx *c, void *p, const struct gs_tree_args *a, const struct gs_dtree_bodies *b,
                                   const uint64_t *at, struct gs_dtree_cell *cells, int ncell) {
  ((struct gs_cpu_dtree *)p)->ncell = ncell;
  gs_cpu_dtree_build(c, p, a, b, at, cells, ncell);
}

const struct gs_dtree_ops gs_backend_cpu_dtree_ops = {
    .method = "CPU: Morton keys (21 bits per axis) and a (key, id) sort per rank, the compressed key-grid octree of "
              "each domain cell (leaf buckets, default 8 bodies), monopole + traceless quadrupole in double, one "
              "depth-first walk per body over the merged tree (OpenMP, dynamic)",
    .leaf = GS_CPU_DTREE_LEAF,
    /* the cells' nodes (at most 2 a body) twice, the tree's and the merged tree's, and the bodies in
     * double and their ids twice */
    .body_bytes = {4 * sizeof(struct gs_dtree_node) + 80, 4 * sizeof(struct gs_dtree_node) + 80},
    .open = gs_cpu_dtree_open,
    .close = gs_cpu_dtree_close,
    .bytes = gs_cpu_dtree_bytes,
    .box = gs_backend_cpu_dbody_box,
    .sort = gs_backend_cpu_dbody_sort,
    .lower = gs_backend_cpu_dbody_lower,
    .sums = gs_backend_cpu_dbody_sums,
    .spread = gs_backend_cpu_dbody_spread,
    .pack = gs_backend_cpu_dbody_pack,
    .unpack = gs_backend_cpu_dbody_unpack,
    .build = gs_cpu_dtree_build_all,
    .let = gs_cpu_dtree_let,
    .walk = gs_backend_cpu_dmerge_walk,
};
