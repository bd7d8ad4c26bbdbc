/* gs_nbody_tree.h: --solver tree, the driver's side: the workspace, one Barnes-Hut evaluation
 * (build, then walk, on the compute queue, each timed with the backend's events) and a step's
 * exchange and forces. Every rank builds the tree over all N bodies and walks its own slice. */
#ifndef GS_NBODY_TREE_H
#define GS_NBODY_TREE_H

#include "gs_nbody_job.h"

/* Flops counted per interaction: a body-body one as the direct sum's (GS_NBODY_FLOPS), a
 * body-cell one (monopole + quadrupole with the softened kernel) 60: 20 as a body's, 15 for Q r,
 * 5 for r.Q.r, 20 for the powers of 1 / s and putting the terms together. */
#define GS_NBODY_TREE_CELL_FLOPS 60

/* The workspace and the counters, on the compute queue, once before the first evaluation. */
void gs_nbody_tree_alloc(struct gs_nbody_job *job);
void gs_nbody_tree_free(struct gs_nbody_job *job);

/* The tree's forces on this rank's slice into acc (count bodies, device memory), the potential
 * if asked, queued on the compute queue between the events ev[0], ev[1] (build) and ev[2]
 * (walk); first: no previous accelerations in acc (the relative test then opens as the
 * geometric one); counts: add the walk's counters to job->d_counts. Returns 0 and queues
 * nothing once job->stop says stop. */
int gs_nbody_tree_forces(struct gs_nbody_job *job, void *acc, int potential, int first, int counts);

/* After gs_nbody_tree_forces: wait for it, its build and walk device seconds. */
void gs_nbody_tree_times(struct gs_nbody_job *job, double *build, double *walk);

/* One step's positions exchange and forces into d_acc: the exchange's wall seconds; build and
 * walk times into st. */
double gs_nbody_tree_step(struct gs_nbody_job *job, int potential, struct gs_step_times *st);

/* Forces with the potential into the scratch d_acc2, for diagnostics off the energy schedule:
 * the previous accelerations are d_acc's, so the simulation's forces keep their bits. */
void gs_nbody_tree_scratch(struct gs_nbody_job *job);

#endif
