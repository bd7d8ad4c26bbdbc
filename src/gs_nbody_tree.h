/* gs_nbody_tree.h: --solver tree, the driver's side: the workspace, one Barnes-Hut evaluation
 * (build, then walk, on the compute queue, each timed with the backend's events, then the forces'
 * all-gather) and a step's exchanges and forces. Every rank builds the tree over all N bodies and
 * walks its slice of the tree's body order (gs_nbody_tree.c). */
#ifndef GS_NBODY_TREE_H
#define GS_NBODY_TREE_H

#include "gs_nbody_job.h"

/* Flops counted per interaction: a body-body one as the direct sum's (GS_NBODY_FLOPS), a
 * body-cell one (monopole + quadrupole with the softened kernel) 60: 20 as a body's, 15 for Q r,
 * 5 for r.Q.r, 20 for the powers of 1 / s and putting the terms together. */
#define GS_NBODY_TREE_CELL_FLOPS 60

/* Flags of gs_nbody_tree_forces. */
#define GS_NBODY_TREE_COUNT 1 /* add the walk's counters to job->d_counts */
#define GS_NBODY_TREE_KEEP 2  /* the simulation's forces: the relative test's next a_old */
#define GS_NBODY_TREE_DIAG 4  /* the diagnostics' evaluation: geometric at GS_NBODY_TREE_DIAG_THETA */

/* The energy diagnostics' potential comes from a walk with the geometric test at this theta,
 * whatever the run's --opening, --alpha and --theta (docs/tree.md, "Energy and momentum"): the
 * same criterion for E0 and for every later E. 0.5 is the default --theta, so a default run's own
 * evaluations are that walk and cost nothing more; its potential energy error is measured at the
 * start and printed (about 1e-4 on a Plummer sphere). */
#define GS_NBODY_TREE_DIAG_THETA 0.5

/* Are the run's own evaluations the diagnostics' (geometric test at GS_NBODY_TREE_DIAG_THETA)? */
int gs_nbody_tree_diag_own(const struct gs_nbody_job *job);

/* The workspace, the counters and the forces' arrays, once before the first evaluation. */
void gs_nbody_tree_alloc(struct gs_nbody_job *job);
void gs_nbody_tree_free(struct gs_nbody_job *job);

/* After a restart put the checkpoint's forces in d_acc: every rank's, as the relative test's
 * a_old (collective; nothing for the geometric test). */
void gs_nbody_tree_resume(struct gs_nbody_job *job);

/* The tree's forces on this rank's index slice into acc (count bodies, device memory), the
 * potential if asked: build and walk queued on the compute queue, timed by the events ev[0],
 * ev[1] (build) and ev[1] (ev[3] with P > 1 ranks), ev[2] (walk); with P > 1 the runs balanced
 * from the last walk times, then the forces' all-gather (its wall seconds in job->tree_xs); then
 * the way back into index order. first: no previous accelerations (the relative test then opens
 * as the geometric one); flags: GS_NBODY_TREE_*. Collective. Returns 0, with no build or walk,
 * once job->stop says stop. */
int gs_nbody_tree_forces(struct gs_nbody_job *job, void *acc, int potential, int first, int flags);

/* After gs_nbody_tree_forces: wait for it, its build and walk device seconds. */
void gs_nbody_tree_times(struct gs_nbody_job *job, double *build, double *walk);

/* One step's positions exchange and forces into d_acc: the exchange's wall seconds; build and
 * walk times into st. */
double gs_nbody_tree_step(struct gs_nbody_job *job, int potential, struct gs_step_times *st);

/* The diagnostics' evaluation (GS_NBODY_TREE_DIAG: forces and potential) into the scratch
 * d_acc2: the relative test's a_old is left alone, so the simulation's forces keep their bits.
 * Collective, as every evaluation: every rank calls it, with bodies or none. */
void gs_nbody_tree_scratch(struct gs_nbody_job *job);

#endif
