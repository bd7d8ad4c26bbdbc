/* gs_backend_cpu_dmerge.c: the CPU backend's merged distributed tree and its walk. The node array
 * is the top trie (built alike on every rank from the replicated cell table: the compressed octree
 * over the cell prefixes, each top node's children cells or top nodes in digit order, moments from
 * the children with the replicated tree's code), then this rank's cell subtrees, then the received
 * fragments; a remote cell whose root was not received is its table record, closed. The walk of
 * each held body is the replicated CPU tree's depth-first walk (same test, kernels and child
 * order), its own body skipped by global id. Every cell is a node of the global compressed tree
 * and every branch point above the cells a top node, so the tree walked is the same on any rank
 * count, bit for bit; only which nodes are present differs, and a walk that must open a closed
 * node counts it (a bug: the caller fails the run) and takes it whole. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend_cpu_dtree.h"

#define GS_CPU_DMERGE_STACK (7 * 2 * GS_DTREE_LEVELS + 16)

/* The merged tree being made: nodes, bodies (local first) and their ids (remote: none). */
struct gs_cpu_dmerge {
  struct gs_dtree_node *m;
  uint64_t nodes, top;
  double *body;
  uint64_t *idx, bodies;
  uint64_t *cellslot; /* the top area's slot of every cell */
  char *istop;        /* slot s is a top node (not a cell) */
};

/* The top trie's shape over the cells in key order (ord: the table's indices in key order; the
 * table is grouped by owner): slot 0 the root; a top node over cells [i, j) of that order has one
 * child per digit at the first digit where their prefixes differ, contiguous slots. */
static void gs_cpu_dmerge_shape(struct gs_cpu_dmerge *g, const struct gs_dtree_cell *table, const int *ord, int ncell,
                                int *queue) {
  g->top = 1;
  if (ncell == 1) {
    g->cellslot[0] = 0, g->istop[0] = 0;
    return;
  }
  int nq = 1; /* queue of (slot, i, j) triples */
  queue[0] = 0, queue[1] = 0, queue[2] = ncell, g->istop[0] = 1;
  for (int q = 0; q < nq; q++) {
    int s = queue[3 * q], i = queue[3 * q + 1], j = queue[3 * q + 2];
    int d = gs_backend_cpu_dtree_digit(table[ord[i]].key, table[ord[j - 1]].key);
    struct gs_dtree_node *nd = &g->m[s];
    memset(nd, 0, sizeof *nd);
    nd->depth = d, nd->child = g->top;
    for (int a = i, b = i + 1; b <= j; b++) {
      if (b < j && gs_backend_cpu_dtree_at(table[ord[b]].key, d) == gs_backend_cpu_dtree_at(table[ord[a]].key, d))
        continue;
      uint64_t slot = g->top++;
      nd->nchild++;
      g->istop[slot] = b - a > 1;
      if (b - a == 1)
        g->cellslot[ord[a]] = slot;
      else
        queue[3 * nq] = (int)slot, queue[3 * nq + 1] = a, queue[3 * nq + 2] = b, nq++;
      a = b;
    }
  }
}

/* A cell's key and table index, to sort the table into key order (keys are distinct). */
struct gs_cpu_dmerge_key {
  uint64_t key;
  int k;
};

static int gs_cpu_dmerge_by_key(const void *a, const void *b) {
  uint64_t x = ((const struct gs_cpu_dmerge_key *)a)->key, y = ((const struct gs_cpu_dmerge_key *)b)->key;
  return x < y ? -1 : x > y;
}

/* The table's indices in key order into ord. */
static void gs_cpu_dmerge_order(gs_ctx *c, const struct gs_dtree_cell *table, int ncell, int *ord) {
  struct gs_cpu_dmerge_key *s = malloc(sizeof *s * (size_t)(ncell ? ncell : 1));
  if (!s) GS_DIE(&c->where, "malloc", "out of memory for the merged tree");
  for (int k = 0; k < ncell; k++)
    s[k] = (struct gs_cpu_dmerge_key){table[k].key, k};
  qsort(s, (size_t)ncell, sizeof *s, gs_cpu_dmerge_by_key);
  for (int k = 0; k < ncell; k++)
    ord[k] = s[k].k;
  free(s);
}

/* One received fragment (the wire format of gs_backend_cpu_dtree.h) read in place. */
struct gs_cpu_dmerge_frag {
  uint64_t cell, nn, nb;
  const unsigned char *kind;
  const char *pay, *body;
};

/* The fragment at p: its parts into f; returns its length in bytes. */
static size_t gs_cpu_dmerge_frag(const char *p, int precision, struct gs_cpu_dmerge_frag *f) {
  uint64_t head[3];
  size_t pay = 0;
  memcpy(head, p, sizeof head);
  f->cell = head[0], f->nn = head[1], f->nb = head[2];
  f->kind = (const unsigned char *)p + sizeof head, f->pay = p + sizeof head + f->nn;
  for (uint64_t k = 0; k < f->nn; k++)
    pay += f->kind[k] == GS_CPU_DLET_SHUT          ? GS_CPU_DLET_CLOSED * sizeof(double)
           : !f->kind[k]                           ? sizeof(uint64_t)
           : k && f->kind[k] <= GS_CPU_DLET_BUCKET ? 6 * sizeof(double)
                                                   : 0;
  f->body = f->pay + pay;
  return sizeof head + f->nn + pay + f->nb * 4 * (precision ? sizeof(double) : sizeof(float));
}

/* Nodes and bodies of the received fragments (a first pass, to size the arrays). */
static void gs_cpu_dmerge_count(const char *recv, uint64_t bytes, int precision, uint64_t *nodes, uint64_t *bodies) {
  struct gs_cpu_dmerge_frag f;
  *nodes = *bodies = 0;
  for (size_t at = 0; at < bytes;) {
    at += gs_cpu_dmerge_frag(recv + at, precision, &f);
    *nodes += f.nn, *bodies += f.nb;
  }
}

/* Node record r placed at slot s: its children moved by off, its bucket's bodies by boff. */
static void gs_cpu_dmerge_put(struct gs_cpu_dmerge *g, uint64_t s, const struct gs_dtree_node *r, uint64_t off,
                              uint64_t boff) {
  g->m[s] = *r;
  if (r->nchild)
    g->m[s].child += off;
  else if (!r->closed)
    g->m[s].first += boff;
}

/* Fragment f's nodes at base + k (its root at its cell's slot, which keeps the table's record):
 * closed ones from their doubles with an empty box (no target of ours is inside them), open
 * ones' boxes, children and bodies (base and bbase) from the order. */
static void gs_cpu_dmerge_place(struct gs_cpu_dmerge *g, const struct gs_cpu_dmerge_frag *f, uint64_t base,
                                uint64_t bbase) {
  const char *pl = f->pay;
  uint64_t nextc = 1, nextb = 0;
  for (uint64_t k = 0; k < f->nn; k++) {
    struct gs_dtree_node *nd = &g->m[k ? base + k : g->cellslot[f->cell]];
    if (k) memset(nd, 0, sizeof *nd);
    nd->closed = 0, nd->nchild = 0;
    if (f->kind[k] == GS_CPU_DLET_SHUT) {
      double rec[GS_CPU_DLET_CLOSED];
      memcpy(rec, pl, sizeof rec), pl += sizeof rec;
      memcpy(nd->com, rec, sizeof nd->com), nd->mass = rec[3];
      memcpy(nd->q, rec + 4, sizeof nd->q), nd->tr = rec[10], nd->size = rec[11];
      for (int c = 0; c < 3; c++)
        nd->lo[c] = INFINITY, nd->hi[c] = -INFINITY;
      nd->closed = 1;
    } else if (!f->kind[k] || f->kind[k] > GS_CPU_DLET_BUCKET) {
      nd->count = f->kind[k] - (uint64_t)GS_CPU_DLET_BUCKET;
      if (!f->kind[k]) memcpy(&nd->count, pl, sizeof nd->count), pl += sizeof nd->count;
      nd->first = bbase + nextb, nextb += nd->count;
    } else {
      if (k) memcpy(nd->lo, pl, sizeof nd->lo), memcpy(nd->hi, pl + sizeof nd->lo, sizeof nd->hi), pl += 48;
      nd->child = base + nextc, nd->nchild = f->kind[k], nextc += f->kind[k];
    }
  }
}

/* Fragment f's open nodes below its root, deepest first: buckets' tight boxes from their bodies,
 * moments with the builder's code from the same inputs, so the sender's bits. */
static void gs_cpu_dmerge_finish(struct gs_cpu_dmerge *g, const struct gs_cpu_dmerge_frag *f, uint64_t base) {
  for (uint64_t k = f->nn; k-- > 1;) {
    struct gs_dtree_node *nd = &g->m[base + k];
    if (nd->closed) continue;
    for (uint64_t j = nd->first; j < nd->first + nd->count && !nd->nchild; j++)
      for (int c = 0; c < 3; c++) {
        double x = g->body[4 * j + c];
        if (j == nd->first || x < nd->lo[c]) nd->lo[c] = x;
        if (j == nd->first || x > nd->hi[c]) nd->hi[c] = x;
      }
    gs_backend_cpu_tree_moments(g->m, g->body, base + k);
  }
}

/* The received fragments: appended, their roots into their cells' slots. */
static void gs_cpu_dmerge_received(struct gs_cpu_dmerge *g, const char *recv, uint64_t bytes, int precision) {
  struct gs_cpu_dmerge_frag f;
  for (size_t at = 0; at < bytes;) {
    uint64_t base = g->nodes, bbase = g->bodies;
    at += gs_cpu_dmerge_frag(recv + at, precision, &f);
    gs_cpu_dmerge_place(g, &f, base, bbase);
    for (uint64_t k = 0; k < 4 * f.nb; k++) {
      float x;
      if (precision)
        memcpy(g->body + 4 * bbase + k, f.body + k * sizeof(double), sizeof(double));
      else
        memcpy(&x, f.body + k * sizeof x, sizeof x), g->body[4 * bbase + k] = x;
    }
    for (uint64_t k = 0; k < f.nb; k++)
      g->idx[bbase + k] = UINT64_MAX; /* remote bodies are never a target */
    g->nodes += f.nn, g->bodies += f.nb;
    gs_cpu_dmerge_finish(g, &f, base);
  }
}

/* The top nodes' boxes, counts and moments from their children, deepest first (children come
 * after their parents). */
static void gs_cpu_dmerge_moments(struct gs_cpu_dmerge *g) {
  for (uint64_t s = g->top; s-- > 0;) {
    if (!g->istop[s]) continue;
    struct gs_dtree_node *nd = &g->m[s];
    for (uint32_t k = 0; k < nd->nchild; k++) {
      const struct gs_dtree_node *ch = &g->m[nd->child + k];
      nd->count += ch->count;
      for (int c = 0; c < 3; c++) {
        if (!k || ch->lo[c] < nd->lo[c]) nd->lo[c] = ch->lo[c];
        if (!k || ch->hi[c] > nd->hi[c]) nd->hi[c] = ch->hi[c];
      }
    }
    gs_backend_cpu_tree_moments(g->m, g->body, s);
  }
}

/* The merged tree of table, the local subtrees t and the received fragments into g. */
static void gs_cpu_dmerge_make(gs_ctx *c, struct gs_cpu_dmerge *g, const struct gs_cpu_dtree *t,
                               const struct gs_dtree_cell *table, int ncell, int cell0, const char *recv,
                               uint64_t bytes, int precision) {
  uint64_t rn, rb;
  gs_cpu_dmerge_count(recv, bytes, precision, &rn, &rb);
  uint64_t cap = 2 * (uint64_t)ncell + t->nodes + rn;
  g->m = malloc(sizeof *g->m * cap), g->body = malloc(4 * sizeof *g->body * (t->n + rb + 1));
  g->idx = malloc(sizeof *g->idx * (t->n + rb + 1)), g->cellslot = malloc(sizeof *g->cellslot * (size_t)ncell);
  g->istop = calloc(2 * (size_t)ncell, 1);
  int *queue = malloc(3 * sizeof *queue * 2 * (size_t)ncell), *ord = malloc(sizeof *ord * (size_t)ncell);
  if (!g->m || !g->body || !g->idx || !g->cellslot || !g->istop || !queue || !ord)
    GS_DIE(&c->where, "malloc", "out of memory for the merged tree");
  gs_cpu_dmerge_order(c, table, ncell, ord);
  gs_cpu_dmerge_shape(g, table, ord, ncell, queue);
  free(queue), free(ord);
  if (t->n) memcpy(g->body, t->body, 4 * sizeof *g->body * t->n); /* a rank with no cell has no body array */
  g->bodies = t->n, g->nodes = g->top;
  for (int k = 0; k < ncell; k++) { /* remote cells: their table records, closed until received */
    g->m[g->cellslot[k]] = table[k].node;
    g->m[g->cellslot[k]].nchild = 0, g->m[g->cellslot[k]].closed = 1;
  }
  for (int k = 0; k < t->ncell; k++)
    gs_cpu_dmerge_put(g, g->cellslot[cell0 + k], &t->node[t->root[k]], g->top, 0);
  for (uint64_t j = 0; j < t->nodes; j++)
    gs_cpu_dmerge_put(g, g->top + j, &t->node[j], g->top, 0);
  g->nodes += t->nodes;
  gs_cpu_dmerge_received(g, recv, bytes, precision);
  gs_cpu_dmerge_moments(g);
}

/* The forces on the target self at x; counts of body-body and body-cell interactions into cnt,
 * closed nodes the walk had to open into *missing. */
static void gs_cpu_dmerge_one(const struct gs_tree_args *a, const struct gs_cpu_dmerge *g, uint64_t self,
                              const double x[3], double aold, double out[4], uint64_t cnt[2], uint64_t *missing) {
  uint64_t stack[GS_CPU_DMERGE_STACK];
  int sp = 1;
  double e2 = a->law == GS_LAW_PLUMMER ? a->eps2 : 0;
  stack[0] = 0;
  while (sp > 0) {
    const struct gs_dtree_node *nd = &g->m[stack[--sp]];
    int open = gs_backend_cpu_tree_open(a, nd, x, aold);
    if (open && nd->closed) (*missing)++;
    if (!open || nd->closed) {
      gs_backend_cpu_tree_cell(nd, x, a->G, e2, out), cnt[1]++;
    } else if (!nd->nchild) {
      gs_backend_cpu_tree_leaf(a, g->body, g->idx, nd, self, x, out), cnt[0] += nd->count;
    } else {
      for (uint32_t c = nd->nchild; c-- > 0;)
        stack[sp++] = nd->child + c; /* the first child on top: visited in digit order */
    }
  }
}

uint64_t gs_backend_cpu_dmerge_walk(gs_ctx *c, void *p, const struct gs_tree_args *a, const struct gs_dtree_cell *table,
                                    int ncell, int cell0, const void *recv, const uint64_t *rbytes, int P,
                                    const struct gs_dtree_bodies *b, double *work) {
  const struct gs_cpu_dtree *t = p;
  struct gs_cpu_dmerge g = {0};
  uint64_t bytes = 0; /* the messages are contiguous and self-delimiting: read as one */
  for (int r = 0; r < P; r++)
    bytes += rbytes[r];
  gs_cpu_dmerge_make(c, &g, t, table, ncell, cell0, recv, bytes, a->precision);
  memcpy(g.idx, b->id, sizeof *g.idx * t->n);
  uint64_t bb = 0, bc = 0, missing = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : bb, bc, missing)
  for (uint64_t i = 0; i < t->n; i++) {
    if (a->stop && a->stop()) continue; /* abandoned: one body's work bounds the wait */
    double out[4] = {0}, aold = 0, g4[4];
    uint64_t cnt[2] = {0, 0};
    if (a->opening == GS_TREE_RELATIVE && !a->first) {
      gs_backend_cpu_dtree_get(a->precision, b->acc, i, g4);
      aold = sqrt(g4[0] * g4[0] + g4[1] * g4[1] + g4[2] * g4[2]);
    }
    gs_cpu_dmerge_one(a, &g, b->id[i], g.body + 4 * i, aold, out, cnt, &missing);
    if (!a->potential) out[3] = 0;
    for (int d = 0; d < 4; d++) {
      if (a->precision)
        ((double *)a->acc)[4 * i + d] = out[d];
      else
        ((float *)a->acc)[4 * i + d] = (float)out[d];
    }
    if (work) work[i] = (double)(cnt[0] + cnt[1]);
    bb += cnt[0], bc += cnt[1];
  }
  if (a->counts) a->counts[GS_TREE_BODY_BODY] += bb, a->counts[GS_TREE_BODY_CELL] += bc;
  free(g.m), free(g.body), free(g.idx), free(g.cellslot), free(g.istop);
  return missing;
}
