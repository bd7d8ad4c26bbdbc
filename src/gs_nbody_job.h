/* gs_nbody_job.h: one rank's N-body simulation state, shared by the driver's files (gs_nbody*.c:
 * setup, step loop, energy diagnostics, I/O) and the solvers' (direct, tree: gs_nbody_solver.h;
 * their own state lives in the solver's). Types only. */
#ifndef GS_NBODY_JOB_H
#define GS_NBODY_JOB_H

#include "gs_backend.h"
#include "gs_exchange.h"
#include "gs_mpi.h"
#include "gs_nbody_decomp.h"
#include "gs_nbody_options.h"
#include "gs_report.h"
#include "gs_stats.h"

/* Timings of one step, seconds. */
struct gs_step_times {
  double total;     /* wall time of the whole step */
  double forces;    /* device time of the force kernels */
  double exchange;  /* wall time from the drift to the last positions on the device */
  double hidden;    /* fraction of the exchange hidden behind force computation, 0..1 */
  double part[4];   /* the solver's own parts (the tree's: build and walk device seconds) */
};

#define GS_NBODY_FLOPS 20 /* per interaction, the seed's and the CUDA sample's count */

/* |dE/E0| above which the run's end says "energy: ... DRIFT" (a warning; exit status unchanged). */
#define GS_NBODY_ENERGY_TOL 1e-3

/* Global diagnostics: energies, momentum, and the mass moment sum m x (M times the centre). */
struct gs_diag {
  double kinetic, potential, energy, p[3], com[3];
};

struct gs_nbody_solver;

struct gs_nbody_job {
  struct gs_run *run;
  const struct gs_nbody_opts *o;
  const struct gs_backend *be;
  gs_ctx *ctx;               /* the backend's state on this rank */
  const struct gs_kernel *kernels; /* the backend's force kernels */
  int prec;                  /* 0 single, 1 double */
  size_t esz;                /* bytes per body vector: 16 or 32 */
  int law;                   /* enum gs_nbody_law */
  double G, eps2, cut2;
  char ic_name[64];          /* plummer, disk, uniform or file: for headers and checkpoints */
  uint64_t n, npad;          /* bodies, and padded to whole tiles */
  uint64_t first, count;     /* this rank's id slice of the standard decomposition (snapshots, checkpoints) */
  struct gs_nbody_decomp dec;/* every rank's slice, in whole tiles */
  MPI_Datatype tile_type;    /* one tile of body vectors: MPI counts are in tiles, so N may pass 2^31 */
  /* The replicated layout of today's solvers (gs_nbody_repl.h; the kernel table and the exchange use
   * it too): the driver reaches the bodies only through job->solver. */
  void *h_pos;               /* pinned staging copy of every body */
  void *d_pos, *d_vel, *d_acc;
  void *force_ws;            /* the direct force kernels' workspace (gs_nbody_forces.c) */
  size_t force_ws_bytes;
  double *d_terms;           /* 8 x terms_room diagnostic terms */
  uint64_t terms_room;       /* bodies d_terms and reduce_ws hold: job->count, grown for a solver that holds more */
  union gs_acc *d_sums;      /* their 8 sums */
  void *reduce_ws;           /* the diagnostics sums' reduction workspace */
  size_t reduce_ws_bytes;
  int rkernel;               /* the backend's reduction kernel for the sums (its internal choice) */
  gs_queue *qc, *qcopy;      /* compute and copy queues */
  gs_event **ev;             /* 2 * size + 2 events: the positions' exchange's (force pieces, copies) and the
                              * kernel table's timing (gs_nbody_exchange.c, gs_nbody_ladder.c) */
  gs_gate *gate;
  int kernel;                /* force kernel of the simulation (the backend's id) */
  const char *kname;         /* ... and its name (the tree's: "tree"), for result rows */
  unsigned mask;             /* the selected kernels (over the backend's list), for the direct solver's table */
  void *d_acc_scratch;       /* count forces (and potentials): a solver's evaluations that must not touch d_acc */
  long step0;                /* steps done before this run (a restart's checkpoint step) */
  double e0;                 /* energy at step 0 */
  double p0[3];              /* momentum at step p0_step (0, or a restart's from a checkpoint without it) */
  long p0_step;
  int p0_set;                /* p0 known (set at the start, or read from the checkpoint) */
  double mass;               /* total mass (every rank, from the positions' masses) */
  double dp_last;            /* |P - P0| / sqrt(2 M K) of the last diagnostics row (rank 0; -1: undefined) */
  int corrupt;               /* test hook (gs_error_test_corrupt): the tree walks with -G; the direct check's
                              * sampled forces are spoiled (gs_nbody_ref_corrupt) */
  double de_last;            /* |dE/E0| of the last diagnostics row, at step de_step (rank 0) */
  long de_step;
  double t_start;            /* MPI_Wtime at the start of the run, for the wall-clock budget */
  struct gs_report rep;
  int failed;
  int (*stop)(void);         /* set while a step's forces may be abandoned (gs_signal_pending) */
  char ckpt_prev[64];        /* the checkpoint file this run wrote last ("" if none) */
  double de0;                /* |dE/E0| at the first step of this run (-1: undefined, E0 = 0) */
  int write_failed;          /* a snapshot or checkpoint could not be written: the run stops */
  long gate_expired;         /* timed evaluations whose gate gave up waiting (host time included) */
  const struct gs_nbody_solver *solver; /* --solver's (gs_nbody_solver.h): the only way to the bodies */
  void *state;               /* ... and its state */
  struct gs_exchange xchg;   /* --exchange: how positions travel (gs_exchange.h) */
  uint64_t *slice_offset, *slice_bytes; /* every rank's slice of d_pos in bytes, for the device all-gather */
  int p0_other;              /* resumed from another solver's checkpoint: no momentum verdict (solver->momentum_tol) */
};

#endif
