/* gs_io.c: N-body snapshots (gs_io.h; the layouts are in docs/snapshot-format.md), the part that
 * does not depend on the format: checks, names, chunking and the commit. The writers are
 * gs_io_hdf5.c (HDF5 builds) and gs_io_raw.c (without HDF5); what they share with this file,
 * the failure record and the agreement between ranks, is gs_io_job.c.
 *
 * One write, whatever the format:
 *   1. every rank checks the slices (contiguous, ordered by rank, summing to n_total), rank 0
 *      makes DIR (and its parents) if missing, and the ranks reduce the extent for the header;
 *   2. rank 0 checks and reserves the file's space (gs_io_job_reserve says why), then the data
 *      goes to DIR/.snapshot_NNN.EXT.tmp:
 *      - parallel HDF5: the file is opened with the MPI-IO driver on comm, every rank writes its
 *        own hyperslab [first, first + count) with collective transfers;
 *      - serial HDF5: rank 0 owns the file and the rows come to it with MPI_Gatherv, a bounded
 *        number of rows at a time (no count near INT_MAX, no copy of the whole snapshot);
 *      - raw: MPI-IO, every rank writes its rows at its own offset with MPI_File_write_at_all;
 *   3. rank 0 fsyncs the file, renames it over DIR/snapshot_NNN.EXT and fsyncs DIR (the raw
 *      format then writes its JSON sidecar atomically, so a .json means a complete .bin).
 *
 * Errors never abort: every rank keeps making the same sequence of collective calls whatever
 * failed locally, and at each checkpoint the ranks agree (MPI_Allreduce), so all return GS_FAILED
 * together with the message of the lowest failing rank. A failing MPI call is such an error too
 * (the world communicator returns errors: MPI_ERRORS_RETURN). (A write failing inside a
 * collective MPI-IO transfer can leave the MPI library itself out of step between ranks:
 * gs_io_job_reserve keeps a full disk from getting that far.) Collective calls are made in chunks
 * of at most GS_IO_ROWS rows (the environment variable of that name on rank 0 overrides it, which
 * the tests use to cross chunk boundaries with a few bodies), so that no int count of an MPI call
 * grows with the number of bodies (gs_io_job.h). */
#include <config.h>

#include "gs_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_file.h"
#include "gs_io_job.h"
#ifdef GS_HAVE_HDF5
#include "gs_io_hdf5.h"
#else
#include "gs_io_raw.h"
#endif

const char *gs_io_format(void) {
#if defined(GS_HAVE_HDF5_PARALLEL)
  return "HDF5 (parallel, collective)";
#elif defined(GS_HAVE_HDF5)
  return "HDF5 (serial, via rank 0)";
#else
  return "raw binary + JSON";
#endif
}

/* The extent of the snapshot, the same on every rank: the box that holds every body, for readers
 * that need one (yt takes a box, and drops what lies outside it). One MPI_Allreduce that every rank
 * makes, a rank without bodies too (its +inf, -inf change nothing); the maxima go as minima of
 * their negatives. A NaN coordinate fails every comparison and so is left out. */
static void gs_io_extent(struct gs_io_job *j) {
  const struct gs_snapshot *s = j->s;
  double mine[6], all[6];
  for (int c = 0; c < 3; c++) mine[c] = mine[3 + c] = INFINITY;
  for (uint64_t i = 0; s->pos && i < s->count; i++)
    for (int c = 0; c < 3; c++) {
      double x = s->pos[3 * i + c];
      if (x < mine[c]) mine[c] = x;
      if (-x < mine[3 + c]) mine[3 + c] = -x;
    }
  int rc = MPI_Allreduce(mine, all, 6, MPI_DOUBLE, MPI_MIN, j->comm);
  if (rc != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_Allreduce (the extent)", rc);
  for (int c = 0; c < 3; c++) j->lo[c] = all[c], j->hi[c] = -all[3 + c];
}

/* Names, slice checks, DIR, chunking, extent. Collective; returns the agreed status. */
static int gs_io_setup(struct gs_io_job *j, const char *dir, int index, const char *ext) {
  const struct gs_snapshot *s = j->s;
  j->dir = dir;
  snprintf(j->path, sizeof j->path, "%s/snapshot_%03d.%s", dir ? dir : "(null)", index, ext);
  snprintf(j->name, sizeof j->name, "snapshot_%03d.%s", index, ext);
  if (!dir || !*dir) gs_io_job_fail(j, "no directory given");
  if (index < 0) gs_io_job_fail(j, "negative snapshot index %d", index);
  int n = snprintf(j->tmp, sizeof j->tmp, "%s/.%s.tmp", dir ? dir : "", j->name);
  if (n < 0 || (size_t)n >= sizeof j->tmp) gs_io_job_fail(j, "directory name too long");
  if (s->count > 0 && (!s->pos || !s->vel || !s->mass)) gs_io_job_fail(j, "rank %d: no data for %" PRIu64 " bodies", j->rank, s->count);

  /* Every rank sees every slice, so every rank reaches the same verdict on them. */
  uint64_t mine[3] = {s->first, s->count, s->n_total};
  j->ranges = malloc(3 * sizeof(uint64_t) * (size_t)j->size);
  if (!j->ranges) {
    gs_io_job_fail(j, "out of memory");
    return gs_io_job_agree(j); /* the agreement reaches every rank before anyone gathers */
  }
  if (!gs_io_job_agree(j)) return 0;
  int rc = MPI_Allgather(mine, 3, MPI_UINT64_T, j->ranges, 3, MPI_UINT64_T, j->comm);
  if (rc != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_Allgather (the slices)", rc);
  uint64_t next = 0;
  for (int r = 0; r < j->size && j->ok; r++) {
    const uint64_t *q = j->ranges + 3 * r;
    if (q[2] != s->n_total)
      gs_io_job_fail(j, "ranks disagree on the number of bodies (%" PRIu64 " on rank 0, %" PRIu64 " on rank %d)", j->ranges[2], q[2], r);
    else if (q[0] != next || q[1] > s->n_total - next)
      gs_io_job_fail(j, "rank %d holds bodies [%" PRIu64 ", +%" PRIu64 ") where [%" PRIu64 ", ...) of %" PRIu64 " was expected", r, q[0], q[1], next, s->n_total);
    else
      next += q[1];
  }
  if (j->ok && next != s->n_total) gs_io_job_fail(j, "the ranks hold %" PRIu64 " of %" PRIu64 " bodies", next, s->n_total);

  /* Rank 0's chunk size for all, and DIR made once. */
  unsigned long rows = GS_IO_ROWS;
  if (j->rank == 0) {
    const char *e = getenv("GS_IO_ROWS");
    if (e && *e) rows = strtoul(e, NULL, 10);
    if (rows < 1 || rows > GS_IO_ROWS_MAX) rows = GS_IO_ROWS;
    struct stat st;
    if (j->ok && gs_file_mkdirs(dir) != 0) gs_io_job_fail(j, "cannot create directory %s: %s", dir, strerror(errno));
    else if (j->ok && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) gs_io_job_fail(j, "%s is not a directory", dir);
  }
  /* A rank that misses rank 0's chunk size keeps its own: the agreement below stops every rank
   * before the chunked collectives, whose number must be the same on all. */
  rc = MPI_Bcast(&rows, 1, MPI_UNSIGNED_LONG, 0, j->comm);
  if (rc != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_Bcast (rows per call)", rc);
  j->rows = rows;
  uint64_t calls = (s->count + j->rows - 1) / j->rows;
  if ((rc = MPI_Allreduce(&calls, &j->calls, 1, MPI_UINT64_T, MPI_MAX, j->comm)) != MPI_SUCCESS)
    gs_io_job_mpi_fail(j, "MPI_Allreduce (calls per array)", rc);
  gs_io_extent(j);
  j->buf = malloc((size_t)j->rows * 24);
  if (!j->buf) gs_io_job_fail(j, "out of memory for a %" PRIu64 "-row buffer", j->rows);
  return gs_io_job_agree(j);
}
/* Rank 0 puts the finished temporary file in place (fsync, rename, fsync DIR) or, after a failure
 * anywhere, removes it. Collective; returns the agreed status. */
static int gs_io_commit(struct gs_io_job *j, const char *dir) {
  int all_ok = gs_io_job_agree(j);
  if (j->rank == 0) {
    if (!all_ok) {
      unlink(j->tmp);
    } else {
      /* fsync through a new descriptor: the writers' data must be on disk before the rename. */
      int fd = open(j->tmp, O_RDONLY);
      if (fd < 0 || fsync(fd) != 0) gs_io_job_fail(j, "fsync: %s", strerror(errno));
      if (fd >= 0) close(fd);
      if (j->ok && gs_file_rename(j->tmp, j->path) != 0)
        gs_io_job_fail(j, "cannot rename %s to %s: %s", j->tmp, j->path, strerror(errno));
      int dfd = j->ok ? open(dir, O_RDONLY | O_DIRECTORY) : -1;
      if (j->ok && (dfd < 0 || fsync(dfd) != 0)) gs_io_job_fail(j, "fsync of the directory: %s", strerror(errno));
      if (dfd >= 0) close(dfd);
      if (!j->ok) unlink(j->tmp);
    }
  }
  return all_ok && gs_io_job_agree(j);
}

/* This rank's place in comm; without it no collective call can be made, so the write ends here
 * (an invalid communicator fails the same way on every rank). */
static int gs_io_place(struct gs_io_job *j, const char *dir, int index) {
  int rc = MPI_Comm_rank(j->comm, &j->rank);
  const char *call = "MPI_Comm_rank";
  if (rc == MPI_SUCCESS) {
    rc = MPI_Comm_size(j->comm, &j->size);
    call = "MPI_Comm_size";
  }
  if (rc == MPI_SUCCESS) return 1;
  snprintf(j->path, sizeof j->path, "%d in %s", index, dir ? dir : "(null)");
  gs_io_job_mpi_fail(j, call, rc);
  return 0;
}

int gs_io_write_snapshot(const char *dir, int index, const struct gs_snapshot *s, MPI_Comm comm, struct gs_msg *msg) {
  static const struct gs_snapshot none = {0};
  struct gs_io_job job = {0}, *j = &job;
  j->s = s ? s : &none;
  j->comm = comm;
  j->ok = 1;
  j->msg = msg;
  if (!gs_io_place(j, dir, index)) return GS_FAILED;
  if (!s) gs_io_job_fail(j, "no snapshot data");
  /* Each step's status is agreed, so every rank takes the same branches. */
#ifdef GS_HAVE_HDF5
  if (gs_io_setup(j, dir, index, "hdf5")) {
    gs_io_hdf5_write(j);
    gs_io_commit(j, dir);
  }
#else
  if (gs_io_setup(j, dir, index, "bin")) {
    gs_io_raw_write(j);
    if (gs_io_commit(j, dir)) {
      if (j->rank == 0) gs_io_raw_write_sidecar(j, dir, index);
      gs_io_job_agree(j);
    }
  }
#endif
  free(j->ranges);
  free(j->buf);
  return j->ok ? GS_OK : GS_FAILED;
}

int gs_io_find_snapshot(const char *dir, int first, int last, char *name, size_t size) {
  int best = -1, index, end;
  DIR *d = opendir(dir);
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) {
    const char *n = e->d_name;
    if (sscanf(n, "snapshot_%d%n", &index, &end) != 1 || end < 12 || index < first || index > last) continue;
    if (strcmp(n + end, ".hdf5") != 0 && strcmp(n + end, ".bin") != 0 && strcmp(n + end, ".json") != 0) continue;
    if (best < 0 || index < best) best = index, snprintf(name, size, "%s", n);
  }
  closedir(d);
  return best;
}
