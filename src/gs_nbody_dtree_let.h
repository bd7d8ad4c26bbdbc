/* gs_nbody_dtree_let.h: one evaluation of --tree-layout domains after its domains
 * (gs_nbody_dtree_let.c). */
#ifndef GS_NBODY_DTREE_LET_H
#define GS_NBODY_DTREE_LET_H

#include "gs_nbody_dtree_held.h"

/* Its parts of struct gs_step_times (seconds of this rank). */
#define GS_NBODY_DTREE_BUILD 0  /* cell subtrees */
#define GS_NBODY_DTREE_WALK 1   /* merge and walk */
#define GS_NBODY_DTREE_DOMAIN 2 /* cube, cells, cut and migration */
#define GS_NBODY_DTREE_LET 3    /* the cell table's gather and the LET exchange */

/* Flags of gs_nbody_dtree_let_eval. */
#define GS_NBODY_DTREE_SCRATCH 1 /* into the scratch forces (held acc keeps its bits), no balance update */
#define GS_NBODY_DTREE_DIAG 2    /* the diagnostics' walk: geometric at theta 0.5, with the potential */

/* Build, the table, the LET exchange and the walk into held acc (or the scratch forces), part[]
 * (if not NULL) timed. flags: GS_NBODY_DTREE_*; first: no a_old. Collective; a walk that met a
 * closed node fails the run. */
void gs_nbody_dtree_let_eval(struct gs_nbody_dtree *d, int potential, int first, int flags, double part[4]);

#endif
