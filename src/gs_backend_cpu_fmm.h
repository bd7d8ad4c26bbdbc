/* gs_backend_cpu_fmm.h: private to the CPU backend's fast multipole files: the state its
 * primitives share from build to unsort (gs_backend_cpu_fmm.c: build, passes, table;
 * gs_backend_cpu_fmm_walk.c: the dual walk). */
#ifndef GS_BACKEND_CPU_FMM_H
#define GS_BACKEND_CPU_FMM_H

#include "gs_backend_cpu.h"
#include "gs_backend_cpu_fmm_expand.h"

/* The top of the tree: cells of more than max(GS_CPU_FMM_TASK_MIN, n / GS_CPU_FMM_TASK_SHARE)
 * bodies that have children. The cells just below it, the frontier, root disjoint subtrees: the
 * units of the passes' and the walk's threads (gs_backend_cpu_fmm_walk.c). */
#define GS_CPU_FMM_TASK_MIN 2048
#define GS_CPU_FMM_TASK_SHARE 16

/* One evaluation's tree and expansions, grown as n grows and kept across evaluations. */
struct gs_fmm_cpu {
  const struct gs_where *where; /* the rank, for errors */
  struct gs_fmm_expand ex;     /* the tables of the order last built for */
  uint64_t n, nodes, cap;      /* bodies, cells, room for n */
  struct gs_dtree_node *node;  /* the octree (gs_backend_cpu_tree_grow), 2 cap */
  double *body;                /* its (x, y, z, m) rows in the tree's order, 4 cap */
  uint64_t *idx, *tmp;         /* the bodies' indices in that order; scratch */
  double *x, *y, *z, *m;       /* the bodies in the tree's order, by component (the direct sums' operands) */
  double *ax, *ay, *az, *phi;  /* their accelerations and potentials (without G from the expansions' part) */
  double *centre, *radius;     /* per cell: the expansions' centre (centre of mass) and farthest body from it */
  double *M, *T;               /* per cell: nc multipole and nc local coefficients */
  uint64_t ccap, cells;        /* coefficients M and T hold (cells x nc), cells centre and radius hold */
  int32_t *front;              /* per cell: its frontier cell's number (frontier order), -1 in the top */
  uint64_t *roots, nroots;     /* the frontier cells in the tree's order */
  uint64_t ntop, fcap;         /* the top's cells lie among the first ntop (front -1); room of front */
  struct gs_fmm_walk *walk;    /* the dual walk's lists (gs_backend_cpu_fmm_walk.c) */
};

/* *p (NULL or grown here) grown to hold count elements of size bytes, its contents kept: the
 * one way the build and the walk grow the arrays they keep from evaluation to evaluation. */
void gs_backend_cpu_fmm_grow(struct gs_fmm_cpu *t, void *p, uint64_t count, size_t size);

/* The dual walk: every cell-cell interaction and leaf-leaf pair of the tree, each applied to both
 * sides (T, and ax, ay, az, phi); counters into a->counts. */
void gs_backend_cpu_fmm_walk_run(struct gs_fmm_cpu *t, const struct gs_fmm_args *a);
void gs_backend_cpu_fmm_walk_free(struct gs_fmm_cpu *t);

#endif
