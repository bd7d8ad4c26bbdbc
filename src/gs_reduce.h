/* gs_reduce.h: `gpusim reduce`, the parallel reduction, as an entry of the workload table. */
#ifndef GS_REDUCE_H
#define GS_REDUCE_H

#include "gs_workload.h"

extern const struct gs_workload gs_reduce_workload;

#endif
