/* gs_error.c: the two error paths. A user error is detected the same way on every rank and
 * reported once by rank 0 with exit status 2; a runtime failure names the rank, host, GPU, call
 * and source line, then aborts the whole job so no rank waits forever in a collective. */
#define _POSIX_C_SOURCE 200809L
#include "gs_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gs_error_msg(struct gs_msg *msg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg->text, sizeof msg->text, fmt, ap);
  va_end(ap);
  return GS_USAGE;
}

void gs_error_report(int rank, const struct gs_msg *msg) {
  if (rank != 0) return;
  fprintf(stderr, "gpusim: error: %s\n", msg->text);
  fflush(stderr);
}

_Noreturn void gs_error_die(const struct gs_where *w, const char *call, const char *why,
                            const char *file, int line) {
  char gpu[16] = "none";
  if (w && w->gpu >= 0) snprintf(gpu, sizeof gpu, "%d", w->gpu);
  fprintf(stderr, "gpusim: fatal: rank %d on %s (GPU %s): %s failed: %s [%s:%d]\n", w ? w->rank : -1,
          w ? w->host : "?", gpu, call, why, file, line);
  fflush(stderr);
  /* When a peer rank is already gone, Open MPI's MPI_Abort can wait for mpirun's SIGKILL (25 s in
   * the job scripts): SIGALRM's default action ends this process first. */
  alarm(GS_ERROR_ABORT_S);
  MPI_Abort(MPI_COMM_WORLD, 1);
  for (;;) { /* MPI_Abort does not return; keep the compiler sure of it */
  }
}

_Noreturn void gs_error_mpi_die(const struct gs_where *w, const char *call, int rc, const char *file,
                                int line) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error %d", rc);
  gs_error_die(w, call, text, file, line);
}

int gs_error_agree(MPI_Comm comm, const struct gs_where *w, int status, struct gs_msg *msg) {
  int size, rank;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  /* The lowest failing rank's message wins, so the report does not depend on timing. */
  int mine = status != GS_OK ? rank : size, first = size;
  GS_CHECK_MPI(w, MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return GS_OK;
  GS_CHECK_MPI(w, MPI_Bcast(msg->text, (int)sizeof msg->text, MPI_CHAR, first, comm));
  return GS_USAGE;
}

int gs_error_test_corrupt(const char *part) {
  const char *v = getenv("GPUSIM_TEST_CORRUPT_RESULT");
  return v && (strcmp(v, "1") == 0 || strcmp(v, part) == 0);
}
