/* gs_command.h: the subcommands, and the one dispatcher that `gpusim ARGS` (main) and each part
 * of the main job (gs_mainjob.c) go through: the workload table, a command line parsed against
 * it, its --help, and the chosen workload run. Nothing else knows the list of workloads, and
 * nothing here knows the main job, so main -> main job -> dispatcher is a line, not a circle. */
#ifndef GS_COMMAND_H
#define GS_COMMAND_H

#include <stdio.h>

#include "gs_mpi.h"
#include "gs_options.h"

/* Parse argv (argv[0]: the program) against the workload table into o: GS_OK, or GS_USAGE with
 * msg. o->wl is the subcommand, NULL where none is given (the main job). Pure, as
 * gs_options_parse: the same verdict on every rank. */
int gs_command_parse(int argc, char **argv, struct gs_options *o, struct gs_msg *msg);

/* --help of subcommand wl, or of the program where wl is NULL. */
void gs_command_help(FILE *f, const struct gs_workload *wl);

/* Run the parsed subcommand run->opt->wl on every rank; returns its exit status (enum gs_status). */
int gs_command_run(struct gs_run *run);

#endif
