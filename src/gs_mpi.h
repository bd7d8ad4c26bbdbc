/* gs_mpi.h: a run's place in the job: world and node communicators, node-local rank, the
 * backend choice and the GPU binding, and the per-rank descriptions rank 0 prints. */
#ifndef GS_MPI_H
#define GS_MPI_H

#include <mpi.h>

#include "gs_backend.h"
#include "gs_error.h"
#include "gs_options.h"

struct gs_report;

/* One rank's identity, gathered to rank 0 for `info` and the run header. */
struct gs_rank_info {
  int rank, local_rank, local_size;
  char host[GS_HOST_MAX];
  struct gs_device_info dev;
};

/* Everything a subcommand needs about where it runs. No globals: passed down. */
struct gs_run {
  const struct gs_options *opt;
  int rank, size;              /* in MPI_COMM_WORLD */
  int local_rank, local_size;  /* in this node's shared-memory communicator */
  int nodes;                   /* distinct nodes in the job */
  MPI_Comm node;               /* this node's ranks */
  struct gs_where where;       /* this rank, its host and GPU, for error messages */
  const struct gs_backend *be; /* the chosen backend's table */
  gs_ctx *ctx;                 /* ... and its state on this rank */
  struct gs_device_info dev;   /* the device this rank computes on */
  char backend_note[160];      /* why that backend was chosen */
  double mem_bytes;            /* what the size checks assume of dev's memory: dev.mem_bytes, or
                                * GPUSIM_MEMORY_LIMIT where that is less (0: unknown, not checked) */
  char mem_note[112];          /* " (capped by GPUSIM_MEMORY_LIMIT=...)" where that limit set mem_bytes, else "" */
  struct gs_report *sink;      /* in the main job (gs_mainjob.c): a workload's rows go here, not to
                                  --csv/--json, and its header is not printed again (NULL: alone) */
};

/* Ranks the launcher meant to start, from its environment (SLURM, PMI, Open MPI), or 0 if it
 * says nothing. A job of size 1 where this is > 1 was started as singletons. */
int gs_mpi_launcher_size(void);

/* Set up run: communicators, backend, GPU binding, the memory the size checks assume. launcher_size
 * is gs_mpi_launcher_size() read before MPI_Init (an MPI library may set its own variables for a
 * singleton). Collective. Returns GS_OK, or GS_USAGE with the same msg on every rank (no GPU,
 * shared GPU, singletons, a bad GPUSIM_MEMORY_LIMIT). */
int gs_mpi_setup(const struct gs_options *opt, int launcher_size, struct gs_run *run, struct gs_msg *msg);

/* Free what gs_mpi_setup made (closing the backend). */
void gs_mpi_teardown(struct gs_run *run);

/* MPI_Init_thread(required); a library that provides less is a runtime failure (the job
 * aborts, naming the levels). In a sanitized build
 * (configure --enable-sanitizers) what MPI_Init allocates on this thread is never counted as a
 * leak: it is Open MPI's, much of it from components it loads and unloads again, whose stacks
 * the leak report cannot name (no gpusim code runs inside MPI_Init). */
void gs_mpi_init(int *argc, char ***argv, int required);

/* MPI_Finalize; in a sanitized build the leak check runs first, while Open MPI's components are
 * still loaded: its own allocations are then still reachable or, where it lost them, named for
 * tests/lsan.supp. At exit they would be unloaded, their leaks "<unknown module>", matched only
 * after a slow full unwind of every malloc. */
void gs_mpi_finalize(void);

/* Gather every rank's identity to rank 0 (all: size entries there, unused elsewhere). */
void gs_mpi_gather_ranks(const struct gs_run *run, struct gs_rank_info *all);

#endif
