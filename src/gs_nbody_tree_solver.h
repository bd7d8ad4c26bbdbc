/* gs_nbody_tree_solver.h: what both layouts of the tree solver share (gs_nbody_tree_solver.c, the
 * replicated layout's table; gs_nbody_dtree.c, the domains'): its settings and checkpoint fields
 * are the tree's, whichever layout holds the bodies, so that either restarts the other. */
#ifndef GS_NBODY_TREE_SOLVER_H
#define GS_NBODY_TREE_SOLVER_H

#include "gs_nbody_solver.h"

/* A restart's tree settings (--theta, --opening, --alpha, --leaf) from checkpoint h where the
 * command line (opt) left them out. */
void gs_nbody_tree_solver_adopt(const struct gs_ckpt_header *h, struct gs_nbody_opts *o, const struct gs_options *opt);

/* GS_OK, or GS_USAGE with msg: the backend has no tree, or --kernel (a direct-sum option) was given.
 * Sets job->kname. */
int gs_nbody_tree_solver_check(struct gs_nbody_job *job, struct gs_msg *msg);

/* The tree's fields of a checkpoint header (layout-free). */
void gs_nbody_tree_solver_ckpt(const struct gs_nbody_job *job, struct gs_ckpt_header *h);

#endif
