/* gs_info.h: `gpusim info`, the per-rank placement table. */
#ifndef GS_INFO_H
#define GS_INFO_H

#include "gs_workload.h"

/* The `info` workload (no options, no kernels). */
extern const struct gs_workload gs_info_workload;

#endif
