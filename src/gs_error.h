/* gs_error.h: status codes, the runtime-failure path (rank/host/GPU/call/file:line, then
 * MPI_Abort) and the user-error path (one line from rank 0, exit 2). */
#ifndef GS_ERROR_H
#define GS_ERROR_H

#include <mpi.h>
#include <stddef.h>

/* Exit statuses: 0 ok, 1 wrong result or failure, 2 bad user input (automake: 77 skip, 99 hard). */
enum gs_status { GS_OK = 0, GS_FAILED = 1, GS_USAGE = 2 };

#define GS_HOST_MAX 64
#define GS_MSG_MAX 512

/* Who is failing: enough to find the process and the GPU in a 1000-rank job log. */
struct gs_where {
  int rank;                /* rank in MPI_COMM_WORLD */
  int gpu;                 /* CUDA device index, -1 without one */
  char host[GS_HOST_MAX];  /* node name */
};

/* A user-error message, made on every rank identically and printed by rank 0 only. */
struct gs_msg {
  char text[GS_MSG_MAX];
};

/* Fill msg with a printf-style text; returns GS_USAGE so parsers can `return gs_error_msg(...)`. */
int gs_error_msg(struct gs_msg *msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "gpusim: error: TEXT" from rank 0 only (to stderr). */
void gs_error_report(int rank, const struct gs_msg *msg);

/* Seconds MPI_Abort may take before the process ends itself (gs_error_die). */
#define GS_ERROR_ABORT_S 3

/* Runtime failure: print rank, host, GPU, the failing call and where, then MPI_Abort(1). */
_Noreturn void gs_error_die(const struct gs_where *w, const char *call, const char *why,
                            const char *file, int line);

/* Abort with a printf-style reason (allocation failure, I/O error, broken invariant). */
#define GS_DIE(w, call, why) gs_error_die((w), (call), (why), __FILE__, __LINE__)

/* Check an MPI call (MPI_ERRORS_RETURN is set on the world communicator in main). */
#define GS_CHECK_MPI(w, call)                                             \
  do {                                                                    \
    int gs_rc_ = (call);                                                  \
    if (gs_rc_ != MPI_SUCCESS) gs_error_mpi_die((w), #call, gs_rc_, __FILE__, __LINE__); \
  } while (0)

/* Helper of GS_CHECK_MPI: turn an MPI error code into text and die. */
_Noreturn void gs_error_mpi_die(const struct gs_where *w, const char *call, int rc, const char *file,
                                int line);

/* A user error found by some ranks only (a binding conflict, a missing GPU): every rank passes its
 * own status and message; the first failing rank's message is returned on every rank along with
 * GS_USAGE, or GS_OK when every rank is fine. Collective on comm. */
int gs_error_agree(MPI_Comm comm, const struct gs_where *w, int status, struct gs_msg *msg);

/* Test hook: should this run plant a wrong result in `part` (reduce, nbody-direct, nbody-tree,
 * matmul), to prove that its check catches it? GPUSIM_TEST_CORRUPT_RESULT=1 plants one in every
 * part, =PART in that one only (the main job runs them all: each must fail it on its own). */
int gs_error_test_corrupt(const char *part);

#endif
