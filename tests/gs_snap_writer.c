/* gs_snap_writer.c: test helper for tests/mpi/snapshot_read.sh. Under mpiexec, writes snapshot
 * INDEX of N bodies split unevenly over the ranks into DIR with gs_io_write_snapshot, so that an
 * independent reader (h5dump, h5py, Python's struct) can check what gs_io wrote.
 *
 *   gs_snap_writer DIR N [INDEX [TIME]]
 *
 * Body i (global index) has, exactly as the script recomputes them:
 *   x = i + 0.5, y = -0.25 i, z = 0.125 (i mod 7) - 1,
 *   vx = (i mod 5) - 2, vy = 0.5 i, vz = 1 / (i + 3)   (not a binary fraction: all 17 digits count),
 *   mass = (1 + i mod 3) / 1024;
 * and the snapshot has step 42, G = 1, eps = 0.01, ic "snaptest", time TIME (default 1.5).
 * Rank r holds [N r^2 / P^2, N (r+1)^2 / P^2): uneven, and with N < P some ranks hold nothing.
 * Prints the format on rank 0; on failure every rank prints "rank R: error: MSG" and exits 1. */
#include <config.h>

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gs_io.h"
#include "gs_mpi.h"

static uint64_t gs_split(uint64_t n, int r, int p) {
  /* n r^2 / p^2 without overflow for the test's sizes (n < 2^40, p < 2^10) */
  return n * (uint64_t)r * (uint64_t)r / ((uint64_t)p * (uint64_t)p);
}

int main(int argc, char **argv) {
  gs_mpi_init(&argc, &argv, MPI_THREAD_SINGLE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: gs_snap_writer DIR N [INDEX [TIME]]\n");
    gs_mpi_finalize();
    return 2;
  }
  uint64_t n = strtoull(argv[2], NULL, 10);
  int index = argc > 3 ? atoi(argv[3]) : 0;
  double time = argc > 4 ? strtod(argv[4], NULL) : 1.5;
  uint64_t first = gs_split(n, rank, size), count = gs_split(n, rank + 1, size) - first;
  double *pos = malloc(3 * (count + 1) * sizeof *pos), *vel = malloc(3 * (count + 1) * sizeof *vel);
  double *mass = malloc((count + 1) * sizeof *mass);
  if (!pos || !vel || !mass) {
    fprintf(stderr, "rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (uint64_t k = 0; k < count; k++) {
    uint64_t i = first + k;
    double di = (double)i;
    pos[3 * k] = di + 0.5;
    pos[3 * k + 1] = -0.25 * di;
    pos[3 * k + 2] = 0.125 * (double)(i % 7) - 1;
    vel[3 * k] = (double)(i % 5) - 2;
    vel[3 * k + 1] = 0.5 * di;
    vel[3 * k + 2] = 1.0 / (di + 3);
    mass[k] = (double)(1 + i % 3) / 1024;
  }
  struct gs_snapshot s = {.n_total = n, .first = first, .count = count, .pos = pos, .vel = vel, .mass = mass,
                          .time = time, .step = 42, .G = 1.0, .eps = 0.01, .ic = "snaptest"};
  struct gs_msg msg;
  int rc = gs_io_write_snapshot(argv[1], index, &s, MPI_COMM_WORLD, &msg);
  if (rc != GS_OK) {
    printf("rank %d: error: %s\n", rank, msg.text);
  } else if (rank == 0) {
    printf("format: %s\n", gs_io_format());
  }
  fflush(stdout);
  free(pos);
  free(vel);
  free(mass);
  gs_mpi_finalize();
  return rc == GS_OK ? 0 : 1;
}
