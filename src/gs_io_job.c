/* gs_io_job.c: what every part of a snapshot write shares (gs_io_job.h): the failure record,
 * the agreement between ranks, and the space reserved before any data moves. */
#define _GNU_SOURCE /* fallocate (Linux); everything else is POSIX */
#include "gs_io_job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Record a failure, replacing what was recorded before. */
static void gs_io_job_vset(struct gs_io_job *j, const char *fmt, va_list ap) {
  j->ok = 0;
  int n = snprintf(j->msg->text, sizeof j->msg->text, "snapshot %s: ", j->path);
  if (n < 0 || (size_t)n >= sizeof j->msg->text) n = 0;
  vsnprintf(j->msg->text + n, sizeof j->msg->text - (size_t)n, fmt, ap);
}
static void gs_io_job_set(struct gs_io_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gs_io_job_set(struct gs_io_job *j, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gs_io_job_vset(j, fmt, ap);
  va_end(ap);
}

void gs_io_job_fail(struct gs_io_job *j, const char *fmt, ...) {
  if (!j->ok) return;
  va_list ap;
  va_start(ap, fmt);
  gs_io_job_vset(j, fmt, ap);
  va_end(ap);
}

/* MPI's text for an error code; the code itself when MPI cannot say. */
static void gs_io_job_mpi_text(int rc, char text[MPI_MAX_ERROR_STRING]) {
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
}

void gs_io_job_mpi_fail(struct gs_io_job *j, const char *call, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  gs_io_job_mpi_text(rc, text);
  gs_io_job_fail(j, "%s failed: %s", call, text);
}

int gs_io_job_agree(struct gs_io_job *j) {
  int mine = j->ok ? j->size : j->rank, first = j->size;
  int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, j->comm);
  if (rc != MPI_SUCCESS) {
    gs_io_job_mpi_fail(j, "MPI_Allreduce (agreeing on the status)", rc);
    return 0;
  }
  if (first == j->size) return 1;
  rc = MPI_Bcast(j->msg->text, (int)sizeof j->msg->text, MPI_CHAR, first, j->comm);
  j->ok = 0;
  if (rc != MPI_SUCCESS && j->rank != first) {
    /* The failing rank's message did not arrive (the buffer may hold part of it): say so. */
    char text[MPI_MAX_ERROR_STRING];
    gs_io_job_mpi_text(rc, text);
    gs_io_job_set(j, "MPI_Bcast of rank %d's failure failed: %s", first, text);
  }
  return 0;
}

/* Before any data moves: the space for `bytes` in the temporary file, so that a full disk
 * is a clean error here and not a write failing in the middle of a collective transfer (where
 * Open MPI's OMPIO and HDF5's collective metadata can be left out of step between ranks and
 * hang). statvfs catches a disk without room; fallocate then reserves the blocks where the file
 * system can (past the end of the file with keep_size, as HDF5 owns the file's size). */
void gs_io_job_reserve(struct gs_io_job *j, const char *dir, uint64_t bytes, int keep_size) {
  struct statvfs v;
  if (statvfs(dir, &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize < bytes) {
    gs_io_job_fail(j, "not enough space in %s: %.1f MiB needed, %.1f MiB free", dir, bytes / 1048576.0,
               (double)v.f_bavail * v.f_frsize / 1048576.0);
    return;
  }
  int fd = open(j->tmp, O_WRONLY | O_CREAT | (keep_size ? 0 : O_TRUNC), 0644);
  if (fd < 0) {
    gs_io_job_fail(j, "cannot create %s: %s", j->tmp, strerror(errno));
    return;
  }
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
  if (bytes > 0 && fallocate(fd, keep_size ? FALLOC_FL_KEEP_SIZE : 0, 0, (off_t)bytes) != 0 &&
      errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL)
    gs_io_job_fail(j, "cannot reserve %.1f MiB: %s", bytes / 1048576.0, strerror(errno));
#endif
  close(fd);
}
