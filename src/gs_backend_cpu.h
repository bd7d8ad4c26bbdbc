/* gs_backend_cpu.h: private to the CPU backend's files: its per-rank state and its workload
 * sub-tables. */
#ifndef GS_BACKEND_CPU_H
#define GS_BACKEND_CPU_H

#include "gs_backend.h"

/* The CPU backend's per-rank state: only who it is, for error messages. */
struct gs_ctx {
  struct gs_where where;
};

/* Its reduction (gs_backend_cpu_reduce.c), N-body (gs_backend_cpu_nbody.c) and matrix-multiply
 * (gs_backend_cpu_matmul.c) primitives. */
extern const struct gs_reduce_ops gs_backend_cpu_reduce_ops;
extern const struct gs_nbody_ops gs_backend_cpu_nbody_ops;
extern const struct gs_matmul_ops gs_backend_cpu_matmul_ops;
/* Its Barnes-Hut tree (gs_backend_cpu_tree.c), also the reference the tests check. */
extern const struct gs_tree_ops gs_backend_cpu_tree_ops;
/* Its distributed tree (gs_backend_cpu_dtree.c), which shares the replicated tree's node moments,
 * opening test and kernels (gs_backend_cpu_tree.c), so that both compute alike. */
extern const struct gs_dtree_ops gs_backend_cpu_dtree_ops;
/* The replicated tree's octree over a->pos[0, a->n) (a->leaf, a->precision), without moments: nodes
 * into node (room for 2n; breadth first, so depths are contiguous and every child comes after its
 * parent, with each node's tight box, bodies, children and depth), the bodies' double (x, y, z, m)
 * rows in the tree's order into body (4n), their indices into idx (n); tmp (n) is scratch. Returns
 * the nodes made. The fast multipole solver (gs_backend_cpu_fmm.c) builds on it too. */
uint64_t gs_backend_cpu_tree_grow(const struct gs_tree_args *a, struct gs_dtree_node *node, double *body, uint64_t *idx,
                                  uint64_t *tmp);
/* Its fast multipole solver (gs_backend_cpu_fmm.c and _walk.c, _expand.c), on the tree's octree. */
extern const struct gs_fmm_ops gs_backend_cpu_fmm_ops;
/* Node k's moments: from its bodies (body: double (x, y, z, m) rows) or its children's. */
void gs_backend_cpu_tree_moments(struct gs_dtree_node *node, const double *body, uint64_t k);
/* Must nd be opened for a target at x (|a_old| = aold)? */
int gs_backend_cpu_tree_open(const struct gs_tree_args *a, const struct gs_dtree_node *nd, const double x[3],
                             double aold);
/* An accepted cell's monopole and quadrupole at x added to out; e2 = eps^2 or 0. */
void gs_backend_cpu_tree_cell(const struct gs_dtree_node *nd, const double x[3], double G, double e2, double out[4]);
/* Leaf nd's bodies on the target with id self at x (a body whose idx is self is skipped). */
void gs_backend_cpu_tree_leaf(const struct gs_tree_args *a, const double *body, const uint64_t *idx,
                              const struct gs_dtree_node *nd, uint64_t self, const double x[3], double out[4]);

#endif
