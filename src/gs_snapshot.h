/* gs_snapshot.h: one rank's part of an N-body snapshot, what gs_io.h writes. A header of its own
 * so that the writers' shared state (gs_io_job.h) need not include gs_io.h: gs_io.c includes the
 * writers, and the module graph stays without a cycle. */
#ifndef GS_SNAPSHOT_H
#define GS_SNAPSHOT_H

#include <stdint.h>

/* One rank's part of a snapshot: bodies [first, first + count) of n_total, in global order. */
struct gs_snapshot {
  uint64_t n_total;      /* bodies in the whole snapshot (no padding) */
  uint64_t first, count; /* this rank's bodies; ranks' ranges are contiguous and ordered by rank */
  const double *pos;     /* count x 3: x0 y0 z0 x1 ... */
  const double *vel;     /* count x 3 */
  const double *mass;    /* count */
  double time;           /* simulated time */
  long step;             /* step number */
  double G;              /* gravitational constant of the run */
  double eps;            /* softening length (0 for the cutoff law) */
  const char *ic;        /* initial-condition name, for the header */
};

#endif
