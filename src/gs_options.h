/* gs_options.h: the command line. One option table per subcommand plus the common options,
 * parsed into struct gs_options (no globals) and validated identically on every rank. */
#ifndef GS_OPTIONS_H
#define GS_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "gs_error.h"

#define GS_PATH_MAX 1024
#define GS_LIST_MAX 256

/* Subcommands. */
enum gs_cmd { GS_CMD_NONE = 0, GS_CMD_INFO, GS_CMD_REDUCE, GS_CMD_NBODY, GS_CMD_COUNT };

/* --backend values, in the order of the option's choice list. */
enum gs_backend_kind { GS_BACKEND_AUTO = 0, GS_BACKEND_CUDA, GS_BACKEND_CPU };

/* --source values for reduce. */
enum gs_source { GS_SOURCE_DEVICE = 0, GS_SOURCE_HOST };

/* Options every subcommand takes. */
struct gs_common_opts {
  int backend;                  /* enum gs_backend_kind */
  char gpu_bind[GS_LIST_MAX];   /* "local", "none" or a comma list of device indices */
  int gpu_share;                /* allow several ranks of one node on the same GPU */
  char csv[GS_PATH_MAX];        /* append result rows to this CSV file ("" = none) */
  char json[GS_PATH_MAX];       /* write result rows to this JSON file ("" = none) */
};

/* `gpusim reduce` options. */
struct gs_reduce_opts {
  uint64_t n;                 /* elements per rank (0 = from total) */
  uint64_t total;             /* elements over all ranks, for strong scaling (0 = unset) */
  int dtype;                  /* enum gs_dtype */
  int op;                     /* enum gs_op */
  char kernels[GS_LIST_MAX];  /* "all" or a comma list of ids / names */
  int block;                  /* threads per block */
  int iters, warmup;          /* timed and untimed repetitions */
  int source;                 /* enum gs_source */
  int streams;                /* CUDA streams for --source host */
  uint64_t chunk;             /* elements per chunk for --source host */
  uint64_t seed;              /* input generator seed */
};

/* `gpusim nbody` options. */
struct gs_nbody_opts {
  uint64_t n;                 /* bodies (ignored with --ic FILE) */
  int steps;                  /* time steps */
  double dt, eps;             /* time step, softening length */
  char ic[GS_PATH_MAX];       /* plummer, disk, uniform, or a file */
  uint64_t seed;              /* initial-condition seed */
  int precision;              /* 0 single, 1 double */
  char kernels[GS_LIST_MAX];  /* "all" or a comma list of ids / names */
  int energy_every;           /* diagnostics every K steps (0: start and end only) */
  int overlap;                /* 1: overlap the exchange with computation */
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
};

/* Everything the command line says. */
struct gs_options {
  int cmd;      /* enum gs_cmd */
  int help;     /* --help given: print help for cmd (or the program) and exit 0 */
  int version;  /* --version given */
  struct gs_common_opts common;
  struct gs_reduce_opts reduce;
  struct gs_nbody_opts nbody;
  char given[1024];  /* "|name|" of every option the command line gave, for gs_options_given */
};

/* Parse argv into o (defaults first). Returns GS_OK, or GS_USAGE with msg filled. Pure: no MPI,
 * no printing, so every rank reaches the same verdict and tests can call it. */
int gs_options_parse(int argc, char **argv, struct gs_options *o, struct gs_msg *msg);

/* Print the help of a subcommand (GS_CMD_NONE: the program's) to f. */
void gs_options_help(FILE *f, int cmd);

/* Parse an unsigned count: 123, 2^30, 256M (K/M/G/T = 2^10/2^20/2^30/2^40), 1e6.
 * Returns 0, or -1 not a number, -2 too large for 64 bits, -3 negative. */
int gs_options_parse_u64(const char *s, uint64_t *out);

/* Did the command line give option `name` (long name without "--")? */
int gs_options_given(const struct gs_options *o, const char *name);

/* Parse HH:MM:SS (or MM:SS, or SS) into seconds; -1 if malformed. */
double gs_options_parse_hms(const char *s);

/* Name of a subcommand ("info", ...). */
const char *gs_options_cmd_name(int cmd);

#endif
