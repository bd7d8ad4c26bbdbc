/* gs_stats.h: repeated timings: min/median/max, and the slowest rank's over the job. */
#ifndef GS_STATS_H
#define GS_STATS_H

#include "gs_error.h"

/* Min, median and max of repeated timings, seconds. */
struct gs_stats {
  double min, median, max;
};

/* Seconds on the monotonic clock (for intervals: never jumps with the wall clock). */
double gs_stats_now(void);

/* Sort t[0..k) (k >= 1) and return its min/median/max. */
struct gs_stats gs_stats_of(double *t, int k);

/* The stats of the rank with the largest median (valid on rank 0; collective on the world);
 * each rank's stats land in per_rank[] on rank 0 when per_rank is not NULL. */
struct gs_stats gs_stats_slowest(const struct gs_where *w, struct gs_stats mine, struct gs_stats *per_rank);

#endif
