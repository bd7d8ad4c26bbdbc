/* gs_backend_cpu_dtree.h: private to the CPU backend's distributed tree (gs_backend_cpu_dtree.c
 * builds the cells' subtrees and the messages, gs_backend_cpu_dmerge.c merges and walks,
 * gs_backend_cpu_dbody.c keeps the held bodies). */
#ifndef GS_BACKEND_CPU_DTREE_H
#define GS_BACKEND_CPU_DTREE_H

#include "gs_backend_cpu.h"

/* A growing host buffer of bytes (the messages of the locally essential trees). */
struct gs_cpu_dtree_msg {
  char *data;
  size_t bytes, cap;
};

/* The state between build and walk: this rank's cells' subtrees over its sorted bodies. */
struct gs_cpu_dtree {
  struct gs_dtree_node *node; /* every local cell's subtree, root first, children after parents */
  uint64_t nodes, node_cap;
  double *body; /* the held bodies (x, y, z, m) in double, sorted order */
  uint64_t n, body_cap;
  uint64_t *root; /* local cell k's root node */
  int ncell;
  struct gs_cpu_dtree_msg out; /* the last let's messages */
};

/* The locally essential tree on the wire: per cell fragment, uint64 {cell, nodes, bodies}, then
 * one kind byte per node (breadth first from the cell's root, each open node's children
 * contiguous after every node before them), then each node's payload in that order, then the
 * buckets' bodies (x, y, z, m; float where the run is float, exact: they were floats). Only what
 * the receiver's walk reads and cannot recompute travels; child and body indices follow from the
 * order:
 * - a closed node (kind GS_CPU_DLET_SHUT: no target of the receiver may open it):
 *   GS_CPU_DLET_CLOSED doubles, com, mass, q, tr, size (gs_backend_cpu_dtree_pack), all that the
 *   walk's test and cell kernel read; not its box, which only the walk's "target inside" test
 *   reads, false for every target here (the sender opens any node whose box overlaps a target
 *   cell's tight box), so the receiver gives it an empty box; no indices (nothing below it comes);
 * - an open node with k children (kind k, 1..8): its tight box (6 doubles; none for the root,
 *   whose record is the cell table's); the receiver recomputes its moments from its children with
 *   the builder's code (gs_backend_cpu_tree_moments), so they are the sender's bits;
 * - a bucket with its bodies (open, or closed but its bodies fewer bytes than a closed record):
 *   kind GS_CPU_DLET_BUCKET + its count where that is at most GS_CPU_DLET_FEW, else kind 0 and its
 *   count (uint64); the receiver recomputes its box and moments from its bodies. */
#define GS_CPU_DLET_SHUT 255
#define GS_CPU_DLET_BUCKET 8
#define GS_CPU_DLET_FEW (GS_CPU_DLET_SHUT - 1 - GS_CPU_DLET_BUCKET)
#define GS_CPU_DLET_CLOSED 12
/* May the walk open node nd for some target in T's box (with |a_old| >= T's amin)? 1 whenever
 * the boxes overlap, whatever the opening test says: a closed node travels without its box (see
 * above), so the receiver's walk could not see a target inside it. */
int gs_backend_cpu_dtree_may_open(const struct gs_tree_args *a, const struct gs_dtree_node *nd,
                                  const struct gs_dtree_cell *T);
/* A closed node's doubles into rec (the sender; the receiver reads them back in this order). */
void gs_backend_cpu_dtree_pack(const struct gs_dtree_node *nd, double rec[GS_CPU_DLET_CLOSED]);

/* Room for nodes nodes and bodies bodies in t. */
void gs_backend_cpu_dtree_reserve(gs_ctx *c, struct gs_cpu_dtree *t, uint64_t nodes, uint64_t bodies);
/* Vector i of a precision's (x, y, z, w) array v in double. */
void gs_backend_cpu_dtree_get(int precision, const void *v, uint64_t i, double q[4]);
/* The first digit where keys x and y differ (GS_DTREE_LEVELS: none), and digit d of key k. */
int gs_backend_cpu_dtree_digit(uint64_t x, uint64_t y);
int gs_backend_cpu_dtree_at(uint64_t k, int d);

/* struct gs_dtree_ops' walk (gs_backend_cpu_dmerge.c). */
uint64_t gs_backend_cpu_dmerge_walk(gs_ctx *c, void *t, const struct gs_tree_args *a, const struct gs_dtree_cell *table,
                                    int ncell, int cell0, const void *recv, const uint64_t *rbytes, int P,
                                    const struct gs_dtree_bodies *b, double *work);
/* Its primitives over the held bodies (gs_backend_cpu_dbody.c): struct gs_dtree_ops' box, sort,
 * lower, sums, spread, pack and unpack. */
void gs_backend_cpu_dbody_box(gs_ctx *c, void *t, int precision, const struct gs_dtree_bodies *b, double m[6]);
void gs_backend_cpu_dbody_sort(gs_ctx *c, void *t, int precision, const struct gs_dtree_cube *cube,
                               struct gs_dtree_bodies *b);
void gs_backend_cpu_dbody_lower(gs_ctx *c, void *t, const struct gs_dtree_bodies *b, const uint64_t *want,
                                uint64_t *got, int m);
void gs_backend_cpu_dbody_sums(gs_ctx *c, void *t, const struct gs_dtree_bodies *b, const uint64_t *at, int nc,
                               double *w);
void gs_backend_cpu_dbody_spread(gs_ctx *c, void *t, struct gs_dtree_bodies *b, double seconds);
void gs_backend_cpu_dbody_pack(gs_ctx *c, void *t, int precision, const struct gs_dtree_bodies *b,
                               const struct gs_dtree_run *runs, int nrun, void *buf);
void gs_backend_cpu_dbody_unpack(gs_ctx *c, void *t, int precision, const void *buf, uint64_t n,
                                 struct gs_dtree_bodies *b, uint64_t at);

#endif
