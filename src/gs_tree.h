/* gs_tree.h: one Barnes-Hut force evaluation (--solver tree), as every backend's tree primitives
 * take it. Plain C types only: the CPU backend, the CUDA launchers in cuda/ and the drivers share
 * it. Same physics as the direct sum (gs_nbody_force.h): Plummer softening or the seed 003 cutoff
 * law, float4 / double4 (x, y, z, m) positions, (ax, ay, az, phi) results. */
#ifndef GS_TREE_H
#define GS_TREE_H

#include <stddef.h>
#include <stdint.h>

/* When a cell is too close to be taken whole and must be opened. */
enum gs_tree_opening {
  /* Barnes-Hut's geometric test: open when size > theta * distance (the distance from the targets
   * to the cell's centre of mass, its size the cell's extent about that centre). */
  GS_TREE_GEOMETRIC = 0,
  /* GADGET-2's relative test: open when G M size^2 / d^4 > alpha |a_old| (the force error of the
   * cell's monopole against the target's acceleration of the previous evaluation, read from acc on
   * entry), and always when the targets are inside the cell (bounding boxes overlap). The first
   * evaluation of a run (no a_old) uses the geometric test instead. */
  GS_TREE_RELATIVE = 1
};

/* Statistics a walk may add up (device or backend memory, NULL for none), for the flop count. */
enum gs_tree_count {
  GS_TREE_BODY_BODY = 0, /* body-body interactions (opened leaves) */
  GS_TREE_BODY_CELL = 1, /* body-cell interactions (accepted cells, monopole + quadrupole) */
  GS_TREE_NODES = 2,     /* nodes in the tree built (set by build, not added) */
  GS_TREE_GROUPS = 3,    /* target groups walked (0 where a backend walks body by body) */
  GS_TREE_MISSING = 4,   /* the distributed tree: closed nodes the walk had to open (0 unless a bug) */
  GS_TREE_COUNTS = 5
};

/* Which bodies a walk takes as targets, and where it puts their results. */
enum gs_tree_targets {
  /* The bodies [i_first, i_first + i_count) in index order; acc[i - i_first] for body i. */
  GS_TREE_BY_INDEX = 0,
  /* The positions [i_first, i_first + i_count) of the tree's own body order (the order build
   * left in ws, one permutation of [0, n); unsort maps it back), acc[s - i_first] for position
   * s, and nothing for positions past n. A rank that walks a contiguous run of that order walks a
   * compact region of space, whatever the bodies' indices: how P ranks share one tree. */
  GS_TREE_BY_ORDER = 1
};

struct gs_tree_args {
  int precision;         /* 0 single, 1 double */
  int law;               /* enum gs_nbody_law */
  const void *pos;       /* all bodies on this device, in index order */
  uint64_t n;            /* the bodies the tree is built over: pos[0, n) (padding left out) */
  int targets;           /* enum gs_tree_targets */
  uint64_t i_first, i_count; /* targets: bodies (any of [0, npad)) or tree positions, see targets */
  void *acc;             /* i_count results, overwritten (by index, GS_TREE_RELATIVE reads a_old first) */
  const void *aold;      /* by order, GS_TREE_RELATIVE: every body's a_old, pos[0, n)'s index order */
  int potential;         /* 1: also the potential -G sum m / r in acc.w (0 leaves w undefined) */
  double G, eps2, cut2;  /* as in gs_nbody_force.h */
  int opening;           /* enum gs_tree_opening */
  int first;             /* 1: the run's first evaluation (no a_old: the relative test is not used) */
  double theta;          /* opening angle of the geometric test, > 0 */
  double alpha;          /* tolerance of the relative test, > 0 */
  int leaf;              /* most bodies in a leaf bucket (0: the backend's choice) */
  void *ws;              /* backend workspace holding the tree from build to walk, see workspace */
  size_t ws_bytes;
  uint64_t *counts;      /* GS_TREE_COUNTS counters in backend memory, or NULL */
  int (*stop)(void);     /* NULL, or nonzero once the work may be abandoned (host backend only) */
};

#endif
