/* gs_matmul.h: `gpusim matmul`, the matrix-multiply workload (its gs_workload entry). */
#ifndef GS_MATMUL_H
#define GS_MATMUL_H

#include "gs_workload.h"

extern const struct gs_workload gs_matmul_workload;

#endif
