/* gs_backend_cpu_dtree.h: private to the CPU backend's distributed tree (gs_backend_cpu_dtree.c
 * builds the cells' subtrees and the messages, gs_backend_cpu_dmerge.c merges and walks). */
#ifndef GS_BACKEND_CPU_DTREE_H
#define GS_BACKEND_CPU_DTREE_H

#include "gs_backend_cpu.h"

/* The state between build and walk: this rank's cells' subtrees over its sorted bodies. */
struct gs_cpu_dtree {
  struct gs_dtree_node *node; /* every local cell's subtree, root first, children after parents */
  uint64_t nodes, node_cap;
  double *body;               /* the held bodies (x, y, z, m) in double, sorted order */
  uint64_t n, body_cap;
  uint64_t *root;             /* local cell k's root node */
  int ncell;
};

/* Room for nodes nodes and bodies bodies in t. */
void gs_backend_cpu_dtree_reserve(gs_ctx *c, struct gs_cpu_dtree *t, uint64_t nodes, uint64_t bodies);
/* Vector i of a precision's (x, y, z, w) array v in double. */
void gs_backend_cpu_dtree_get(int precision, const void *v, uint64_t i, double q[4]);
/* The first digit where keys x and y differ (GS_DTREE_LEVELS: none), and digit d of key k. */
int gs_backend_cpu_dtree_digit(uint64_t x, uint64_t y);
int gs_backend_cpu_dtree_at(uint64_t k, int d);

/* struct gs_dtree_ops' walk (gs_backend_cpu_dmerge.c). */
uint64_t gs_backend_cpu_dmerge_walk(gs_ctx *c, void *t, const struct gs_tree_args *a, const struct gs_dtree_cell *table,
                                    int ncell, int cell0, const struct gs_dtree_msg *recv,
                                    const struct gs_dtree_bodies *b, double *work);

#endif
