/* gs_nbody_decomp.h: the N-body decomposition. Bodies are split over the ranks in slices of
 * whole tiles; MPI moves them in units of one tile (a derived datatype), so its int counts and
 * displacements count tiles, not bodies, and N may exceed 2^31 (up to INT_MAX tiles). No MPI
 * here: the driver builds the tile datatype and passes tiles/tile0 to its collectives. */
#ifndef GS_NBODY_DECOMP_H
#define GS_NBODY_DECOMP_H

#include <stdint.h>

#include "gs_error.h"

#define GS_NBODY_TILE 128 /* slices are whole tiles of bodies; the padding has zero mass */

struct gs_nbody_decomp {
  uint64_t n;     /* bodies */
  uint64_t npad;  /* padded to whole tiles */
  int ranks;
  int *tiles;     /* every rank's slice in tiles: the counts of MPI calls on a tile datatype */
  int *tile0;     /* its first tile: the displacements */
};

/* Split n bodies over ranks in slices of whole tiles that differ by at most one tile, the padding
 * at the end. GS_OK, or GS_USAGE with msg when n is 0 or the tiles would not fit MPI's int counts
 * and displacements (more than INT_MAX tiles). Allocates; free with gs_nbody_decomp_free. */
int gs_nbody_decomp_make(struct gs_nbody_decomp *d, uint64_t n, int ranks, struct gs_msg *msg);
void gs_nbody_decomp_free(struct gs_nbody_decomp *d);

/* Rank r's first body and body count (uint64: no int anywhere). Whole tiles: the slice holding
 * the last body also holds the padding; a rank with no tile has count 0. The counts fall with the
 * rank (the extra tiles go to the first ranks): rank 0's slice is never smaller than another's. */
uint64_t gs_nbody_decomp_first(const struct gs_nbody_decomp *d, int r);
uint64_t gs_nbody_decomp_count(const struct gs_nbody_decomp *d, int r);
/* The ids of rank r's slice that are bodies of the n (its padding cut off): [*lo, *hi), empty
 * (n, n) where the slice begins past the last body. */
void gs_nbody_decomp_bodies(const struct gs_nbody_decomp *d, int r, uint64_t n, uint64_t *lo, uint64_t *hi);

#endif
