/* gs_command.c: the workload table and the dispatch through it. A new workload is one line of
 * the table below. */
#include "gs_command.h"

#include "gs_info.h"
#include "gs_matmul.h"
#include "gs_nbody.h"
#include "gs_reduce.h"

/* Every workload, in the order --help lists them. */
static const struct gs_workload *const gs_command_table[] = {
    &gs_info_workload,
    &gs_reduce_workload,
    &gs_nbody_workload,
    &gs_matmul_workload,
    NULL,
};

int gs_command_parse(int argc, char **argv, struct gs_options *o, struct gs_msg *msg) {
  return gs_options_parse(argc, argv, gs_command_table, o, msg);
}

void gs_command_help(FILE *f, const struct gs_workload *wl) { gs_options_help(f, gs_command_table, wl); }

int gs_command_run(struct gs_run *run) { return run->opt->wl->main(run); }
