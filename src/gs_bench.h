/* gs_bench.h: the measurement harness every workload's kernel table runs on. A workload fills in
 * struct gs_bench_ops (run once, verify, its table line and rows) over its own state; the harness
 * does the rest once for all: the kernels --kernel selects on this backend, warm-up, the timed
 * runs (gated device events, or the workload's own clock started together on every rank), the
 * median, the slowest rank, the speedup columns, the result rows' shared fields, and the verdict
 * line, the --csv/--json write and the exit status every rank returns. */
#ifndef GS_BENCH_H
#define GS_BENCH_H

#include "gs_backend.h"
#include "gs_mpi.h"
#include "gs_report.h"
#include "gs_stats.h"

struct gs_bench;

/* What one kernel gave. */
struct gs_bench_result {
  struct gs_stats mine, slow;      /* this rank's timed runs; the slowest rank's (valid on rank 0) */
  const struct gs_stats *per_rank; /* rank 0: every rank's */
  int ok;                          /* verify's answer: right on every rank */
  char step[16], cum[16];          /* "1.23x" against the previous and the first kernel ("" for the first) */
  double extra[4];                 /* the workload's own numbers, from verify to row */
};

/* A workload's part. Callbacks get the harness (b->w is the workload's state). */
struct gs_bench_ops {
  /* Rank 0: the table's head line. */
  void (*head)(struct gs_bench *b);
  /* Every rank, before and after kernel k's runs (workspaces; NULL: nothing). */
  void (*prepare)(struct gs_bench *b, const struct gs_kernel *k);
  void (*release)(struct gs_bench *b, const struct gs_kernel *k);
  /* One run of k queued on b->q: the harness gates it and times it with events. NULL when the
   * workload times its runs itself (run_timed). */
  void (*run_once)(struct gs_bench *b, const struct gs_kernel *k);
  /* One run of k, started together on every rank (barrier), returning its seconds; i is the run's
   * number, < 0 in warm-up. */
  double (*run_timed)(struct gs_bench *b, const struct gs_kernel *k, int i);
  /* Every rank, after the timed runs: is the result right everywhere (the same answer on every
   * rank)? May fill r->extra. */
  int (*verify)(struct gs_bench *b, const struct gs_kernel *k, struct gs_bench_result *r);
  /* Rank 0: k's table line and result rows (gs_bench_row). */
  void (*row)(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r);
};

struct gs_bench {
  struct gs_run *run;
  const struct gs_bench_ops *ops;
  void *w;                         /* the workload's state */
  const char *workload;            /* rows' workload column */
  struct gs_report *rep;           /* where rows go */
  const struct gs_kernel *kernels; /* the backend's kernels for this workload */
  int count;
  unsigned mask;                   /* the selected ones (bit i: kernels[i]), from gs_bench_select */
  gs_queue *q;                     /* run_once's queue */
  int warmup, iters;               /* untimed and timed runs per kernel */
  uint64_t problem_size;           /* rows' problem size */
  int failed;                      /* a kernel failed verification */
  long gate_expired;               /* timed runs whose gate gave up waiting (host time in them) */
  double prev, first;              /* the previous and first kernels' median, for the speedups */
};

/* The kernels of --kernel `list` (checked against the workload's names `known`, the first
 * `numbered` also by number) that b's backend runs, into b->mask: GS_OK, or GS_USAGE with msg,
 * the same on every rank. */
int gs_bench_select(struct gs_bench *b, const char *list, const char *const *known, int numbered, struct gs_msg *msg);

/* Time, verify and report every selected kernel in the backend's order (collective). */
void gs_bench_table(struct gs_bench *b);

/* A whole-job row for kernel k from r (times, workload, size, iterations) with the metric given;
 * params left empty. */
struct gs_row gs_bench_row(const struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r,
                           const char *metric, double value, const char *unit, double efficiency);

/* Row for rank q: a copy of the job's row with q's times (the caller sets value and efficiency). */
struct gs_row gs_bench_rank_row(const struct gs_row *job_row, const struct gs_bench_result *r, int q);

/* The end of a run: rank 0 prints "# verification: OK|FAILED", the rows are written (--csv,
 * --json, or the main job's sink); returns the exit status, the same on every rank. */
int gs_bench_verdict(const struct gs_run *run, const struct gs_report *rep, int failed);

#endif
