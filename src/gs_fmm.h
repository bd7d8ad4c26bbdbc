/* gs_fmm.h: one fast multipole evaluation (--solver fmm), as every backend's FMM primitives take
 * it. Plain C types only: the CPU backend, a later CUDA port and the drivers share it. The
 * physics is the direct sum's (gs_nbody_force.h) under Plummer softening: (x, y, z, m) float4 or
 * double4 positions in, (ax, ay, az, phi) out; the expansions are Cartesian and in double. */
#ifndef GS_FMM_H
#define GS_FMM_H

#include <stddef.h>
#include <stdint.h>

/* The expansion orders a backend takes: p terms of total degree <= p (docs/fmm.md). */
#define GS_FMM_ORDER_MIN 1
#define GS_FMM_ORDER_MAX 8

/* What an evaluation counts (the counts array of gs_fmm_args; set by each phase, not added). */
enum gs_fmm_count {
  GS_FMM_CELLS = 0,  /* cells of the octree (build) */
  GS_FMM_LEAVES = 1, /* its leaf buckets (build) */
  GS_FMM_M2L = 2,    /* cell-cell interactions, each applied to both cells once (interact) */
  GS_FMM_P2P = 3,    /* body-body pairs summed directly, each applied to both bodies once (interact) */
  GS_FMM_TASKS = 4,  /* the walk's independent tasks (interact) */
  GS_FMM_ROUNDS = 5, /* ... in rounds of tasks that touch disjoint cells (interact) */
  GS_FMM_COUNTS = 6
};

struct gs_fmm_args {
  int precision;     /* 0 single, 1 double: pos's and the results' type */
  const void *pos;   /* n bodies in index order, on this device */
  uint64_t n;
  int potential;     /* 1: the potential -G sum m / r in the results' w (0: w is 0) */
  double G, eps2;    /* gravitational constant, Plummer softening squared (0: unsoftened) */
  int order;         /* expansion order p, GS_FMM_ORDER_MIN..MAX */
  double theta;      /* the dual walk's opening: cells A, B interact through their expansions when
                      * r_A + r_B < theta |z_A - z_B| (r: the farthest body from the centre z) */
  int leaf;          /* most bodies in a leaf bucket (0: the backend's choice) */
  uint64_t *counts;  /* GS_FMM_COUNTS counters (backend memory), or NULL */
  int (*stop)(void); /* NULL, or nonzero once the work may be abandoned (host backend only) */
};

#endif
