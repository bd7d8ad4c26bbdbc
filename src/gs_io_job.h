/* gs_io_job.h: what the snapshot front (gs_io.c) shares with the format writers (gs_io_hdf5.c,
 * gs_io_raw.c): one write's state, the failure record and the agreement between ranks
 * (gs_io_job.c). It does not include gs_io.h, which only the front needs. */
#ifndef GS_IO_JOB_H
#define GS_IO_JOB_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>

#include "gs_error.h"
#include "gs_snapshot.h"

/* Rows per collective call: 2^18 rows of 3 doubles is 6 MiB of staging buffer. The cap of 2^26
 * keeps every int count of an MPI call below INT_MAX whatever n_total is (2^31 bodies and more):
 * the raw writer's bytes (rows x 3 x 8) and the serial HDF5 gather's doubles (rows x 3) and
 * displacements. A snapshot of any size is written in pieces of at most this many rows. */
#define GS_IO_ROWS 262144u
#define GS_IO_ROWS_MAX (1u << 26)
_Static_assert((uint64_t)GS_IO_ROWS_MAX * 3 * 8 <= INT_MAX, "a chunk's byte count must fit MPI's int counts");
#define GS_IO_PATH 4096

/* Everything one snapshot write needs, the same on every rank except the slice. */
struct gs_io_job {
  const struct gs_snapshot *s;
  MPI_Comm comm;
  int rank, size;
  int ok;                  /* this rank has seen no failure (the agreed value after gs_io_job_agree) */
  struct gs_msg *msg;      /* the first failure's text */
  uint64_t rows;           /* rows per collective call */
  uint64_t calls;          /* collective calls per array: the same number on every rank */
  uint64_t *ranges;        /* first, count of every rank (MPI_Allgather) */
  unsigned char *buf;      /* staging buffer: rows x 3 x 8 bytes */
  char name[64];           /* snapshot_NNN.EXT */
  char path[GS_IO_PATH];   /* DIR/snapshot_NNN.EXT */
  char tmp[GS_IO_PATH];    /* DIR/.snapshot_NNN.EXT.tmp */
  const char *dir;         /* DIR */
  double lo[3], hi[3];     /* the extent: least and greatest x, y, z over every rank's bodies
                            * (+inf and -inf without any; NaN coordinates left out) */
};

/* Record a local failure; the first one is the one reported. */
void gs_io_job_fail(struct gs_io_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a failed MPI call, with MPI's text for rc. */
void gs_io_job_mpi_fail(struct gs_io_job *j, const char *call, int rc);

/* Checkpoint, collective: 1 when every rank is fine; otherwise every rank gets the lowest failing
 * rank's message (so the report does not depend on timing) and 0. */
int gs_io_job_agree(struct gs_io_job *j);

/* Rank 0, before any data moves: check and reserve `bytes` for the temporary file. */
void gs_io_job_reserve(struct gs_io_job *j, const char *dir, uint64_t bytes, int keep_size);

/* Rows [lo, hi) of this rank's slice that go in collective call k (empty past its end). */
static inline void gs_io_job_rows(const struct gs_io_job *j, uint64_t k, uint64_t *lo, uint64_t *hi) {
  uint64_t n = j->s->count, a = k * j->rows;
  *lo = a < n ? a : n;
  *hi = n - *lo > j->rows ? *lo + j->rows : n;
}

#endif
