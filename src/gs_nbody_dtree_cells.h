/* gs_nbody_dtree_cells.h: one evaluation's domains under --tree-layout domains
 * (gs_nbody_dtree_cells.c). */
#ifndef GS_NBODY_DTREE_CELLS_H
#define GS_NBODY_DTREE_CELLS_H

#include "gs_nbody_dtree_held.h"

/* The global cube, the keys and sort, the cells (rounds of global counts), the cut (by last work,
 * else count) and the migration; then the held bodies are sorted and d->at holds this rank's
 * cells. Collective. Returns the bodies this rank sent away. */
uint64_t gs_nbody_dtree_cells_update(struct gs_nbody_dtree *d);
/* What the cells keep from one evaluation to the next, freed. */
void gs_nbody_dtree_cells_free(struct gs_nbody_dtree *d);

#endif
