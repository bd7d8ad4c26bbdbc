/* gs_nbody_exchange.h: the position exchange of one step, overlapped with the forces. */
#ifndef GS_NBODY_EXCHANGE_H
#define GS_NBODY_EXCHANGE_H

#include "gs_nbody_job.h"

/* Exchange positions (after this rank's drift) and compute the forces on its slice, with the
 * potential if asked. Returns the exchange's wall seconds; *forces gets the force kernels' time. */
double gs_nbody_exchange_run(struct gs_nbody_job *job, int potential, double *forces);

/* Where every rank's part of an array of npad body vectors lies, for an all-gather: MPI counts
 * and displacements in units of type (rank r's part is counts[r] of them from displs[r]), and the
 * same parts in bytes for the device path. */
struct gs_nbody_parts {
  MPI_Datatype type;
  const int *counts, *displs;
  const uint64_t *first, *bytes;
};

/* Every rank's part p of d onto this device, with no overlap: d is a device array of npad body
 * vectors whose own part the compute queue wrote (the drift, or the tree solver's forces).
 * Returns its wall seconds (0 on one rank). The host mode stages through h_pos, whose contents it
 * replaces. */
double gs_nbody_exchange_gatherv(struct gs_nbody_job *job, void *d, const struct gs_nbody_parts *p);

/* gs_nbody_exchange_gatherv over the ranks' slices (the positions' decomposition): d_pos, every
 * position after each rank's drift, or another array in d_pos's layout. */
double gs_nbody_exchange_gather(struct gs_nbody_job *job, void *d);

#endif
