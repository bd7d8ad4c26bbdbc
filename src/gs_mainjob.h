/* gs_mainjob.h: `gpusim` with no subcommand, the main job: every workload that computes, each
 * run as its subcommand with sizes chosen for the machine and verified as it verifies itself,
 * then one summary table and one verdict. */
#ifndef GS_MAINJOB_H
#define GS_MAINJOB_H

#include "gs_mpi.h"

/* Run the main job on every rank, each part through the subcommands' dispatcher (gs_command.h),
 * as the command line would run it. Returns the exit status: GS_OK when every part verified,
 * else GS_FAILED (a wrong result, a part that could not run, a stop signal, or rows that could
 * not be written). */
int gs_mainjob_run(struct gs_run *run);

#endif
