/* gs_hilbert.h: the Peano-Hilbert index of a point of a 2^bits grid per axis in 3D, after
 * Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004), our own
 * code. The distributed tree cuts its domain cells along this order (gs_nbody_dtree_cells.c):
 * consecutive indices are face-adjacent grid points, so a run of them is a compact region. */
#ifndef GS_HILBERT_H
#define GS_HILBERT_H

#include <stdint.h>

#define GS_HILBERT_MAX_BITS 21 /* 3 * 21 = 63 index bits */

/* The index, 3 * bits bits, of grid point g (each coordinate below 2^bits, 1 <= bits <=
 * GS_HILBERT_MAX_BITS). The curve starts at the origin. It nests: for any level L <= bits, the
 * points sharing their coordinates' top L bits (one cube of the 2^L grid) are one run of
 * 2^(3 (bits - L)) consecutive indices, whose top 3 L bits are the cube's index on the 2^L grid. */
uint64_t gs_hilbert_index(const uint32_t g[3], int bits);

#endif
