/* gpusim.c: main. MPI start-up, option parsing and dispatch (a subcommand: gs_command.c; none: the
 * main job, gs_mainjob.c, whose parts go through the same dispatcher), --help and --version, and
 * exit codes: 0 ok, 1 failed verification or runtime error, 2 bad input (one line from rank 0). */
#include <config.h>

#include <mpi.h>
#include <stdio.h>

#include "gs_command.h"
#include "gs_error.h"
#include "gs_mainjob.h"
#include "gs_mpi.h"
#include "gs_options.h"
#include "gs_version.h"

/* End the job with status on every rank, after a clean MPI_Finalize. */
static int gs_finish(struct gs_run *run, int status) {
  if (run) gs_mpi_teardown(run);
  fflush(stdout);
  gs_mpi_finalize();
  return status;
}

int main(int argc, char **argv) {
  int rank;
  /* Before MPI_Init: a singleton's MPI library may set its own size variables. */
  int launcher_size = gs_mpi_launcher_size();
  /* FUNNELED: OpenMP threads compute, only the main thread calls MPI. */
  gs_mpi_init(&argc, &argv, MPI_THREAD_FUNNELED);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  static struct gs_options opt; /* static: it holds a workload's whole options struct */
  struct gs_msg msg;
  if (gs_command_parse(argc, argv, &opt, &msg) != GS_OK) {
    gs_error_report(rank, &msg);
    return gs_finish(NULL, GS_USAGE);
  }
  if (opt.help || opt.version) {
    if (rank == 0 && opt.help) gs_command_help(stdout, opt.wl);
    if (rank == 0 && opt.version && !opt.help) gs_version_print(stdout, "", NULL);
    return gs_finish(NULL, GS_OK);
  }

  struct gs_run run;
  if (gs_mpi_setup(&opt, launcher_size, &run, &msg) != GS_OK) {
    gs_error_report(rank, &msg);
    return gs_finish(&run, GS_USAGE);
  }
  return gs_finish(&run, opt.wl ? gs_command_run(&run) : gs_mainjob_run(&run));
}
