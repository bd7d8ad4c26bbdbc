/* gs_dtree.h: the domain-decomposed Barnes-Hut tree (--tree-layout domains), as the solver
 * (gs_nbody_dtree*.c) and a backend's distributed primitives (struct gs_dtree_ops) share it.
 * Plain C types only, like gs_tree.h. The tree is the compressed octree of the bodies on a 21-bit
 * Morton key grid over the global cube (docs/tree.md, "Domains"): it depends only on the body set,
 * never on which rank builds which part of it. */
#ifndef GS_DTREE_H
#define GS_DTREE_H

#include <stdint.h>

#define GS_DTREE_BITS 21 /* key bits per axis: 63-bit keys, one 3-bit digit per level */
#define GS_DTREE_LEVELS 21

/* One node: the CPU tree's node record (gs_backend_cpu_tree.c builds its replicated tree from it
 * too), moments in double. In the distributed tree children are contiguous as there. */
struct gs_dtree_node {
  double lo[3], hi[3];   /* the tight box of its bodies */
  double com[3], mass;   /* centre of mass (the box centre where the mass is zero) and mass */
  double q[6];           /* traceless quadrupole about com: xx, yy, zz, xy, xz, yz */
  double tr;             /* trace of the second moment sum m |y|^2 */
  double size;           /* largest distance from com to a corner of the box */
  uint64_t first, count; /* its bodies: positions [first, first + count) of the body array */
  uint64_t child;        /* index of its first child (children are contiguous) */
  uint32_t nchild;       /* 0 for a leaf */
  int depth;             /* build's depth (replicated tree); the split digit (distributed tree) */
  int closed;            /* distributed tree: a remote node whose children or bodies were not sent */
};

/* A domain cell: a key prefix whose bodies one rank holds whole. The cell table (every cell of
 * every rank, grouped by owner in rank order, each rank's in key order) is replicated. */
struct gs_dtree_cell {
  struct gs_dtree_node node; /* its subtree's root (moments, tight box, count) */
  double amin;               /* min |a_old| over its bodies (+inf where the test does not read it) */
  uint64_t key;              /* the prefix's first key */
  int level;                 /* the prefix's digits */
  int owner;                 /* the rank that holds it */
};

/* This rank's bodies as the primitives see them: n held bodies, vectors of the run's precision,
 * with their global ids, keys and work weights (host or device memory, as the backend's). */
struct gs_dtree_bodies {
  uint64_t n;
  void *pos, *vel, *acc; /* acc: the last forces, |a_old| of the relative test */
  uint64_t *id, *key;
  double *work; /* seconds of the last walk spent on each body (moves with it) */
};

/* One held body on the wire when it changes rank (struct gs_dtree_ops pack and unpack): pos, vel
 * and acc (vectors of the run's precision, esz bytes each), then its id and its work. */
#define GS_DTREE_ROW(esz) (3 * (esz) + 2 * sizeof(uint64_t))

/* Rows [from, from + count) of the held bodies to rows [to, to + count) of a pack buffer. */
struct gs_dtree_run {
  uint64_t from, count, to;
};

/* The global cube of the keys: lo and the edge (0: every body in one key). */
struct gs_dtree_cube {
  double lo[3], edge;
};

#endif
