/* gs_stats.c: statistics of repeated timings. The median is what tables show: robust to the
 * odd slow run (a page fault, another process); min and max go to the CSV. */
#define _POSIX_C_SOURCE 200809L
#include "gs_stats.h"

#include <stdlib.h>
#include <time.h>

double gs_stats_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int gs_stats_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

struct gs_stats gs_stats_of(double *t, int k) {
  qsort(t, (size_t)k, sizeof *t, gs_stats_cmp);
  struct gs_stats s = {t[0], k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]), t[k - 1]};
  return s;
}

struct gs_stats gs_stats_slowest(const struct gs_where *w, struct gs_stats mine, struct gs_stats *per_rank) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct gs_stats *all = per_rank;
  if (rank == 0 && !all && !(all = calloc((size_t)size, sizeof *all))) GS_DIE(w, "calloc", "out of memory");
  GS_CHECK_MPI(w, MPI_Gather(&mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  struct gs_stats slow = mine;
  for (int r = 0; rank == 0 && r < size; r++)
    if (all[r].median > slow.median) slow = all[r];
  if (all != per_rank) free(all);
  return slow;
}
