/* gs_nbody_job.h: internal to the N-body driver: one rank's simulation state, shared by setup
 * and the kernel table (gs_nbody.c) and the step loop with its exchange (gs_nbody_step.c). */
#ifndef GS_NBODY_JOB_H
#define GS_NBODY_JOB_H

#include "gs_backend.h"
#include "gs_checkpoint.h"
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

/* |dE/E0| above which the run's end says "energy: ... DRIFT" (a warning; exit status unchanged). */
#define GS_NBODY_ENERGY_TOL 1e-3

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
  char ic_name[64];          /* plummer, disk, uniform or file: for headers and checkpoints */
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
  void *d_acc2;              /* scratch forces for diagnostics off the energy schedule */
  long step0;                /* steps done before this run (a restart's checkpoint step) */
  double e0;                 /* energy at step 0 */
  double de_last;            /* |dE/E0| of the last diagnostics row, at step de_step (rank 0) */
  long de_step;
  double t_start;            /* MPI_Wtime at the start of the run, for the wall-clock budget */
  struct gs_report rep;
  int failed;
  void *d_pos0, *d_vel0, *d_acc0; /* the state at the start of the step, to undo an abandoned one */
  int (*stop)(void);         /* set while a step's forces may be abandoned (gs_signal_pending) */
  char ckpt_prev[64];        /* the checkpoint file this run wrote last ("" if none) */
  double de0;                /* |dE/E0| at the first step of this run (-1: undefined, E0 = 0) */
  int write_failed;          /* a snapshot or checkpoint could not be written: the run stops */
};

/* Force arguments for this job: targets = this rank's slice, sources [j_first, +j_count). */
struct gs_nbody_force_args gs_nbody_args(const struct gs_nbody_job *job, int kernel, uint64_t j_first,
                                         uint64_t j_count, int accumulate, int potential);

/* Forces for a on queue q: grows the workspace to what a needs (a synchronisation, only the
 * first time a bigger one is needed), points a at it and launches; empty ranges do nothing. */
void gs_nbody_forces(struct gs_nbody_job *job, struct gs_nbody_force_args *a, gs_queue *q);

/* Global diagnostics from the device state (collective). With fresh != 0 the potential is
 * evaluated now into a scratch buffer (d_acc keeps its bits); else acc.w must hold it. */
struct gs_diag gs_nbody_diagnose(struct gs_nbody_job *job, int fresh);

/* The diagnostics table's header and the row of `step`. */
void gs_nbody_print_diag_header(struct gs_nbody_job *job, long step, const struct gs_diag *d);

/* Advance from step job->step0 to --steps with the KDK leapfrog, printing diagnostics and
 * progress, writing snapshots and checkpoints; stops early (after a checkpoint) on a signal or
 * the wall-clock budget. Per-step times into times[0..]; returns the last step done. */
long gs_nbody_run_steps(struct gs_nbody_job *job, struct gs_step_times *times);

/* Every body's position, velocity and acceleration (npad each, global order) on rank 0; NULLs
 * elsewhere. Collective. The caller frees. */
void gs_nbody_gather_state(struct gs_nbody_job *job, void **pos, void **vel, void **acc);

/* Write a checkpoint of the state after `step` (collective). Returns GS_OK or GS_FAILED. */
int gs_nbody_checkpoint(struct gs_nbody_job *job, long step);

/* A checkpoint to resume from (collective: rank 0 reads and checks it against the options the
 * command line gives; every rank learns the header). GS_OK, or GS_USAGE with msg. */
int gs_nbody_restart(struct gs_nbody_job *job, struct gs_ckpt_header *h, void **payload, struct gs_msg *msg);

/* Adopt a checkpoint's run parameters into job and o. */
void gs_nbody_adopt(struct gs_nbody_job *job, const struct gs_ckpt_header *h, struct gs_nbody_opts *o);

/* Write snapshot `index` of the state after `step` (collective). Returns GS_OK or GS_FAILED. */
int gs_nbody_snapshot(struct gs_nbody_job *job, int index, long step);

/* |E - E0| / |E0|, or -1 where it is undefined (E0 = 0: one body, no mass). */
double gs_nbody_rel_de(const struct gs_nbody_job *job, double energy);

/* Before step 0 (collective): create --output (and its parents), check that it takes files,
 * refuse another run's checkpoints there unless --overwrite, clean dead writers' temporaries.
 * Returns the agreed GS_OK, or GS_USAGE with msg. */
int gs_nbody_output_prepare(struct gs_nbody_job *job, struct gs_msg *msg);

/* FNV-1a 64 of every real body's position and velocity in global order (valid on rank 0). */
uint64_t gs_nbody_state_hash(struct gs_nbody_job *job);

#endif
