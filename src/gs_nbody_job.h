/* gs_nbody_job.h: internal to the N-body driver: one rank's simulation state, shared by setup
 * and the kernel table (gs_nbody.c) and the step loop with its exchange (gs_nbody_step.c). */
#ifndef GS_NBODY_JOB_H
#define GS_NBODY_JOB_H

#include "gs_backend.h"
#include "gs_ic.h"
#include "gs_mpi.h"
#include "gs_nbody.h"
#include "gs_report.h"
#include "gs_stats.h"

#define GS_NBODY_TILE 128 /* slices are whole tiles of bodies; the padding has zero mass */

/* Timings of one step, seconds. */
struct gs_step_times {
  double total;     /* wall time of the whole step */
  double forces;    /* device time of the force kernels */
  double exchange;  /* wall time from the drift to the last positions on the device */
  double hidden;    /* fraction of the exchange hidden behind force computation, 0..1 */
};

/* Global diagnostics: energies, momentum, and the mass moment sum m x (M times the centre). */
struct gs_diag {
  double kinetic, potential, energy, p[3], com[3];
};

struct gs_nbody_job {
  struct gs_run *run;
  const struct gs_nbody_opts *o;
  const struct gs_backend *be;
  int prec;                  /* 0 single, 1 double */
  size_t esz;                /* bytes per body vector: 16 or 32 */
  int law;                   /* enum gs_nbody_law */
  double G, eps2, cut2;
  char ic_name[32];          /* for the header */
  uint64_t n, npad;          /* bodies, and padded to whole tiles */
  uint64_t first, count;     /* this rank's slice */
  int *counts, *displs;      /* every rank's slice, in bodies (for MPI_Allgatherv) */
  MPI_Datatype body_type;    /* esz bytes */
  void *h_pos;               /* pinned staging copy of every body */
  void *d_pos, *d_vel, *d_acc;
  void *ws;                  /* force workspace */
  size_t wsb;
  double *d_terms;           /* 8 x count diagnostic terms */
  union gs_acc *d_sums;      /* their 8 sums */
  void *rws;                 /* reduction workspace */
  size_t rwsb;
  int rkernel;               /* reduction kernel for the sums */
  gs_queue *qc, *qx;         /* compute and copy queues */
  gs_event **ev;             /* 2 * size + 2 events for timing the force pieces and copies */
  gs_gate *gate;
  int kernel;                /* force kernel of the simulation */
  struct gs_report rep;
  int failed;
};

/* Force arguments for this job: targets = this rank's slice, sources [j_first, +j_count). */
struct gs_nbody_force_args gs_nbody_args(const struct gs_nbody_job *job, int kernel, uint64_t j_first,
                                         uint64_t j_count, int accumulate, int potential);

/* Make sure the force workspace fits args (grows it). */
void gs_nbody_workspace_fit(struct gs_nbody_job *job, const struct gs_nbody_force_args *a);

/* Global diagnostics from the device state (collective). Needs acc.w = potential. */
struct gs_diag gs_nbody_diagnose(struct gs_nbody_job *job);

/* Advance `steps` KDK leapfrog steps, printing diagnostics; per-step times into times. */
void gs_nbody_run_steps(struct gs_nbody_job *job, struct gs_diag *d0, struct gs_step_times *times);

#endif
