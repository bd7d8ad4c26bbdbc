/* gs_nbody_exchange.h: the position exchange of one step, overlapped with the forces. */
#ifndef GS_NBODY_EXCHANGE_H
#define GS_NBODY_EXCHANGE_H

#include "gs_nbody_job.h"

/* Exchange positions (after this rank's drift) and compute the forces on its slice, with the
 * potential if asked. Returns the exchange's wall seconds; *forces gets the force kernels' time. */
double gs_nbody_exchange_run(struct gs_nbody_job *job, int potential, double *forces);

/* Every rank's positions (after each rank's drift) onto this device, on no overlap: the tree
 * solver's exchange. Returns its wall seconds (0 on one rank). */
double gs_nbody_exchange_all(struct gs_nbody_job *job);

#endif
