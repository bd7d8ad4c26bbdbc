/* gs_nbody_options.h: `gpusim nbody`'s options, its entry of the option parser. */
#ifndef GS_NBODY_OPTIONS_H
#define GS_NBODY_OPTIONS_H

#include <stdint.h>

#include "gs_options.h"

struct gs_nbody_opts {
  uint64_t n;                 /* bodies (ignored with --ic FILE) */
  int steps;                  /* time steps */
  double dt, eps;             /* time step, softening length */
  char ic[GS_PATH_MAX];       /* plummer, disk, uniform, or a file */
  uint64_t seed;              /* initial-condition seed */
  int precision;              /* 0 single, 1 double */
  char kernels[GS_LIST_MAX];  /* "all" or a comma list of names / numbers */
  int energy_every;           /* diagnostics every K steps (0: start and end only) */
  int overlap;                /* 1: overlap the exchange with computation */
  int exchange;               /* enum gs_exchange_mode: how positions travel (default auto) */
  int iters;                  /* timed force evaluations per kernel in the ladder table */
  char output[GS_PATH_MAX];   /* directory for snapshots and checkpoints */
  int snapshot_every;         /* snapshot every K steps (0: none) */
  int checkpoint_every;       /* checkpoint every K steps (0: none) */
  double checkpoint_interval; /* ... and every M minutes of wall clock (0: none) */
  char walltime[32];          /* HH:MM:SS budget ("" = none) */
  double walltime_s;          /* the same in seconds (0 = none) */
  char restart[GS_PATH_MAX];  /* checkpoint file or directory to resume from ("" = none) */
  int overwrite;              /* write into an --output holding another run's checkpoint */
  int progress;               /* enum gs_progress_mode */
  int solver;                 /* enum gs_nbody_solver_id */
  double theta;               /* tree: opening angle of the geometric test */
  int opening;                /* tree: enum gs_tree_opening */
  double alpha;               /* tree: tolerance of the relative test */
  int leaf;                   /* tree: bodies per leaf bucket (0: the backend's choice) */
  double force_tol;           /* tree: 99th-percentile relative force error allowed (0: by theta) */
  int tree_layout;            /* tree: enum gs_nbody_layout (-1: the backend's choice) */
  uint64_t tree_cell;         /* tree, domains: most bodies in a domain cell (0: max(4096, N / 16384)) */
  int fmm_order;              /* fmm: expansion order p */
  double fmm_theta;           /* fmm: the dual walk's opening parameter */
};

/* --solver: the all-pairs sum (the reference), the Barnes-Hut tree (gs_nbody_tree.c), or the fast
 * multipole method (gs_nbody_fmm.c). */
enum gs_nbody_solver_id { GS_NBODY_DIRECT = 0, GS_NBODY_TREE = 1, GS_NBODY_FMM = 2 };

/* --tree-layout: domains (each rank holds its domain cells' bodies and the locally essential tree,
 * gs_nbody_dtree.c) or replicated (every rank holds every body and builds the whole tree). */
enum gs_nbody_layout { GS_NBODY_LAYOUT_DOMAINS = 0, GS_NBODY_LAYOUT_REPLICATED = 1 };

/* The tree's defaults: theta, and the relative test's alpha (GADGET-2's documented ErrTolForceAcc). */
#define GS_NBODY_OPTIONS_THETA 0.5
#define GS_NBODY_OPTIONS_ALPHA 0.005

/* The fast multipole solver's defaults (docs/fmm.md, "Accuracy"): the cheapest order and theta that
 * met the tree's usual accuracy (99th percentile 1.5e-3 on a 2^16 Plummer sphere, eps 0.05) with
 * margin. */
#define GS_NBODY_OPTIONS_FMM_ORDER 6
#define GS_NBODY_OPTIONS_FMM_THETA 0.7

/* --force-tol, or the fast multipole solver's usual 99th-percentile error at its order and theta
 * (docs/fmm.md, "Accuracy"). */
double gs_nbody_options_fmm_tol(const struct gs_nbody_opts *b);

/* --force-tol, or its default: the 99th-percentile relative acceleration error allowed at this
 * theta (and alpha with the relative opening), with margin over what a monopole + quadrupole tree
 * gives (docs/tree.md); cutoff_law: the disk's law (enum gs_nbody_law GS_LAW_CUTOFF). */
double gs_nbody_options_force_tol(const struct gs_nbody_opts *b, int cutoff_law);

/* After a restart adopted the checkpoint's solver and tree settings (gs_nbody_io_adopt; ckpt_solver:
 * the checkpoint's solver, enum gs_nbody_solver_id): the tree's options that waited for them,
 * checked against them. GS_OK, or GS_USAGE with msg (the same on every rank). */
int gs_nbody_options_adopted(const struct gs_options *o, const struct gs_nbody_opts *b, int ckpt_solver,
                             struct gs_msg *msg);

/* Is ic one of the generated initial conditions (not a file), in any case? */
int gs_nbody_options_preset(const char *ic);

/* The option table (NULL-terminated), the names --kernel takes (every backend's, NULL-terminated;
 * the first gs_nbody_options_numbered of them also by number: CUDA's ladder and ours), defaults and
 * cross-checks (struct gs_workload). The names are filled in by the defaults. */
extern const struct gs_opt gs_nbody_options_table[];
#define GS_NBODY_OPTIONS_KERNELS_MAX 32
extern const char *gs_nbody_options_kernels[GS_NBODY_OPTIONS_KERNELS_MAX];
extern int gs_nbody_options_numbered;
void gs_nbody_options_defaults(void *opts);
int gs_nbody_options_validate(const struct gs_options *o, void *opts, struct gs_msg *msg);

#endif
