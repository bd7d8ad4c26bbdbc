/* gs_nbody_fmm.h: --solver fmm behind the seam (gs_nbody_solver.h): its state and one evaluation
 * (build, upward pass, dual walk, downward pass on the compute queue, each timed with the
 * solver's own events). Bodies are held in the replicated layout (gs_nbody_repl.h); every rank
 * evaluates all N bodies and keeps its slice's forces, so the forces, bit for bit, do not depend on
 * the rank count (docs/fmm.md, "Ranks"). Its reports are gs_nbody_fmm_report.c's. */
#ifndef GS_NBODY_FMM_H
#define GS_NBODY_FMM_H

#include "gs_nbody_repl.h"

/* Its parts of struct gs_step_times: device seconds of the four primitives. */
#define GS_NBODY_FMM_BUILD 0
#define GS_NBODY_FMM_UP 1
#define GS_NBODY_FMM_WALK 2
#define GS_NBODY_FMM_DOWN 3

/* Flops counted per mutual body-body pair (both bodies' sums: the direct sum's 20 for one side and
 * 8 more for the other's). */
#define GS_NBODY_FMM_PAIR_FLOPS 28

/* Momentum |P - P0| / (M v_rms) allowed after 100 steps, by precision (single, double): the
 * forces of every pair of cells and bodies cancel to round-off, so more is a fault (docs/fmm.md,
 * "Momentum"); the limit grows with the steps. Single precision rounds each stored velocity. */
#define GS_NBODY_FMM_MOMENTUM_SINGLE 1e-5
#define GS_NBODY_FMM_MOMENTUM_DOUBLE 1e-12

/* The fast multipole solver's state on this rank. */
struct gs_nbody_fmm {
  struct gs_nbody_repl repl; /* first: the layout's functions take this state */
  void *tree;                /* the backend's (gs_fmm_ops open) */
  uint64_t *d_counts;        /* GS_FMM_COUNTS counters (backend memory) */
  gs_event *ev[5];           /* before build, after build, upward, walk, downward */
  double m2l, p2p;           /* the last counted evaluation's cell-cell interactions and body pairs */
  double flops;              /* ... and its flops */
};

/* One evaluation at the current positions: this rank's slice of forces and potentials into acc
 * (device, job->count body vectors); counted: the counters read back (m2l, p2p, flops). Returns 0,
 * with nothing computed, once job->stop says stop. */
int gs_nbody_fmm_forces(struct gs_nbody_fmm *f, void *acc, int counted);

/* After gs_nbody_fmm_forces: its four parts' device seconds (GS_NBODY_FMM_*) into part. */
void gs_nbody_fmm_times(struct gs_nbody_fmm *f, double part[4]);

/* The flops of one cell-cell interaction at order p (the tables' multiply-adds, both sides). */
double gs_nbody_fmm_m2l_flops(int order);

/* The momentum limit of the run's precision `steps` steps after P0 (past 100 it grows with them). */
double gs_nbody_fmm_momentum_tol(const struct gs_nbody_job *job, long steps);

#endif
