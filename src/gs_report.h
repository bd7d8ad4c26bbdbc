/* gs_report.h: what rank 0 prints and writes: the `#` header, per-rank lines, and result rows
 * in the tidy schema of docs/results-schema.md for --csv and --json. */
#ifndef GS_REPORT_H
#define GS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "gs_mpi.h"

#define GS_SCHEMA_VERSION 1

/* One result row (one kernel, one metric). Strings are copied. */
struct gs_row {
  char workload[16];    /* "reduce", "nbody" */
  char kernel[32];      /* kernel name */
  uint64_t problem_size;/* elements or bodies, over all ranks */
  int iterations;       /* timed repetitions */
  double t_min, t_median, t_max; /* seconds, over repetitions (slowest rank for each) */
  char metric[32];      /* "bandwidth", "interactions", ... */
  double value;         /* the metric's value */
  char unit[16];        /* "GB/s", ... */
  double efficiency;    /* value over the stated ceiling (0..1), or -1 if none */
  char params[512];     /* workload-specific key=value;... (type, op, source, block, ...) */
  int rank;             /* -1 for the whole job, else the rank the row is about */
};

/* The rows of one run, and the run's identity. */
struct gs_report {
  struct gs_row *rows;
  int count, cap;
  char run_id[40];      /* same on every rank (rank 0's clock and pid) */
  char job_id[64];      /* SLURM_JOB_ID / PBS_JOBID / JOB_ID, or "" */
  char timestamp[32];   /* ISO 8601 UTC, start of the run */
  char mpi_library[128];/* first line of MPI_Get_library_version */
  char cuda_version[32];/* "13.0/13.0" runtime/driver, or "none" */
  char gpu_model[96];   /* rank 0's device name */
};

/* Fill the identity fields (collective: rank 0's run id is broadcast). */
void gs_report_init(struct gs_report *rep, const struct gs_run *run);

/* Print the `#` header; with all != NULL (rank 0 after gs_mpi_gather_ranks) one line per rank.
 * Nothing inside the main job (run->sink), which printed it once. */
void gs_report_header(FILE *f, const struct gs_run *run, const struct gs_report *rep,
                      const struct gs_rank_info *all);

/* Add a row. */
void gs_report_add(struct gs_report *rep, const struct gs_row *row);

/* On rank 0: append rows to --csv (header written if new) and write --json, each atomically;
 * inside the main job (run->sink), add them to the sink instead (it writes them all at its end).
 * Returns GS_OK, or GS_FAILED after printing why (an I/O error is not worth an abort). */
int gs_report_write(const struct gs_report *rep, const struct gs_run *run);

/* Free the rows. */
void gs_report_free(struct gs_report *rep);

#endif
