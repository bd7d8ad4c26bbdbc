/* gs_nbody.h: `gpusim nbody`, the N-body simulation (all-pairs or tree), as an entry of the workload table. */
#ifndef GS_NBODY_H
#define GS_NBODY_H

#include "gs_workload.h"

extern const struct gs_workload gs_nbody_workload;

#endif
