/* gs_nbody.h: `gpusim nbody` and its kernel names. */
#ifndef GS_NBODY_H
#define GS_NBODY_H

#include "gs_error.h"

struct gs_run;

/* Name of force kernel id k ("global", ..., "jsplit", "omp"). */
const char *gs_nbody_kernel_name(int k);
/* Parse "all", "ladder" or a comma list of ids (1..8) and names into a bit mask (bit k = id k). */
int gs_nbody_kernel_mask(const char *list, unsigned *mask, struct gs_msg *msg);

/* The `gpusim nbody` subcommand. Returns an exit status. */
int gs_nbody_main(struct gs_run *run);

#endif
