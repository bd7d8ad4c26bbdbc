/* gs_nbody_tree.h: --solver tree behind the seam (gs_nbody_solver.h): its state, one Barnes-Hut
 * evaluation (build, then walk, on the compute queue, each timed with the tree's own events, then
 * the forces' all-gather) and a step's exchanges and forces. Every rank builds the tree over all N
 * bodies and walks its slice of the tree's body order (gs_nbody_tree.c); the bodies are held in
 * the replicated layout (gs_nbody_repl.h). */
#ifndef GS_NBODY_TREE_H
#define GS_NBODY_TREE_H

#include "gs_nbody_repl.h"

/* Flops counted per interaction: a body-body one as the direct sum's (GS_NBODY_FLOPS), a
 * body-cell one (monopole + quadrupole with the softened kernel) 60: 20 as a body's, 15 for Q r,
 * 5 for r.Q.r, 20 for the powers of 1 / s and putting the terms together. */
#define GS_NBODY_TREE_CELL_FLOPS 60

/* Flags of gs_nbody_tree_forces. */
#define GS_NBODY_TREE_COUNT 1 /* add the walk's counters to d_counts */
#define GS_NBODY_TREE_KEEP 2  /* the simulation's forces: the relative test's next a_old */
#define GS_NBODY_TREE_DIAG 4  /* the diagnostics' evaluation: geometric at GS_NBODY_TREE_DIAG_THETA */

/* Its parts of struct gs_step_times: device seconds of the build and of the walk. */
#define GS_NBODY_TREE_BUILD 0
#define GS_NBODY_TREE_WALK 1

/* The energy diagnostics' potential comes from a walk with the geometric test at this theta,
 * whatever the run's --opening, --alpha and --theta (docs/tree.md, "Energy and momentum"): the
 * same criterion for E0 and for every later E. 0.5 is the default --theta, so a default run's own
 * evaluations are that walk and cost nothing more; its potential energy error is measured at the
 * start and printed (about 1e-4 on a Plummer sphere). */
#define GS_NBODY_TREE_DIAG_THETA 0.5

struct gs_nbody_tree_runs;

/* The tree solver's state on this rank. */
struct gs_nbody_tree {
  struct gs_nbody_repl repl;       /* first: the layout's functions take this state */
  void *ws;                        /* the build's and walk's workspace, allocated once */
  size_t ws_bytes;
  uint64_t *d_counts;              /* the walk's counters (GS_TREE_COUNTS, backend memory) */
  void *d_sorted_acc;              /* npad forces in the tree's body order, every rank's run after the gather */
  void *d_aold;                    /* --opening relative: every body's last forces, index order (else NULL) */
  double gather_s;                 /* wall seconds of the last evaluation's forces all-gather */
  struct gs_nbody_tree_runs *runs; /* the ranks' runs of the tree's order (gs_nbody_tree.c) */
  double flops;                    /* flops of one evaluation over all ranks, from the table's counts */
  double inter;                    /* interactions (body-body + body-cell) of one evaluation, all ranks */
  gs_event *ev[4];                 /* ev[0] build start, ev[1] build end, ev[3] runs read, ev[2] walk end */
};

/* The workspace, counters, forces' arrays, events and runs of t (t->repl.job set), once before
 * the first evaluation; close frees them (not t). */
/* The run's tree settings as tree arguments, no arrays (both layouts start from them): the
 * precision, force law (G negated under the planted fault), opening test, leaf size, stop hook;
 * potential and first as given. */
struct gs_tree_args gs_nbody_tree_settings(const struct gs_nbody_job *job, int potential, int first);

void gs_nbody_tree_open(struct gs_nbody_tree *t);
void gs_nbody_tree_close(struct gs_nbody_tree *t);

/* After a restart: the checkpoint's forces in d_acc (gs_nbody_repl_resume), and every rank's as
 * the relative test's a_old (collective; nothing more for the geometric test). */
void gs_nbody_tree_resume(struct gs_nbody_tree *t);

/* Are the run's own evaluations the diagnostics' (geometric test at GS_NBODY_TREE_DIAG_THETA)? */
int gs_nbody_tree_diag_own(const struct gs_nbody_job *job);

/* The tree's forces on this rank's index slice into acc (count bodies, device memory), the
 * potential if asked: build and walk queued on the compute queue, timed by the tree's events;
 * with P > 1 ranks the runs balanced from the last walk times, then the forces' all-gather (its
 * wall seconds in t->gather_s); then the way back into index order. first: no previous
 * accelerations (the relative test then opens as the geometric one); flags: GS_NBODY_TREE_*.
 * Collective. Returns 0, with no build or walk, once job->stop says stop. */
int gs_nbody_tree_forces(struct gs_nbody_tree *t, void *acc, int potential, int first, int flags);

/* After gs_nbody_tree_forces: wait for it, its build and walk device seconds. */
void gs_nbody_tree_times(struct gs_nbody_tree *t, double *build, double *walk);

/* One step's positions exchange and forces into d_acc: the exchange's wall seconds, st->forces
 * and the build and walk times into st->part[]. The potential only where it is the diagnostics'
 * (else they evaluate it themselves). first: the run's first evaluation (no a_old, no exchange:
 * every rank holds every body; st unused). */
double gs_nbody_tree_step(struct gs_nbody_tree *t, int potential, int first, struct gs_step_times *st);

/* The diagnostics' evaluation (GS_NBODY_TREE_DIAG: forces and potential) into the scratch
 * d_acc_scratch: the relative test's a_old is left alone, so the simulation's forces keep their bits.
 * Collective, as every evaluation: every rank calls it, with bodies or none. */
void gs_nbody_tree_scratch(struct gs_nbody_tree *t);

#endif
