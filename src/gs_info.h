/* gs_info.h: `gpusim info`, the per-rank placement table. */
#ifndef GS_INFO_H
#define GS_INFO_H

#include "gs_mpi.h"

/* The `gpusim info` subcommand. Returns an exit status. */
int gs_info_main(struct gs_run *run);

#endif
