/* gs_matmul_job.h: one rank's matrix-multiply job, shared by the driver (gs_matmul.c), its setup
 * (gs_matmul_setup.c), the SUMMA schedule (gs_matmul_summa.c), the timed table
 * (gs_matmul_table.c) and the verification (gs_matmul_check.c). Types only. */
#ifndef GS_MATMUL_JOB_H
#define GS_MATMUL_JOB_H

#include "gs_backend.h"
#include "gs_exchange.h"
#include "gs_matmul_options.h"
#include "gs_matmul_ref.h"
#include "gs_mpi.h"
#include "gs_report.h"

struct gs_matmul_job {
  struct gs_run *run;
  const struct gs_matmul_opts *o;
  const struct gs_backend *be;
  gs_ctx *ctx;
  const struct gs_kernel *kernels; /* the backend's matmul kernels */
  unsigned mask;                   /* the selected ones (bit i: kernels[i]) */
  enum gs_dtype t;                 /* storage: float (also for tf32) or double */
  size_t esz;                      /* bytes per element */
  MPI_Datatype mpi_t;              /* MPI_FLOAT or MPI_DOUBLE */
  struct gs_matmul_ref ref;        /* the inputs */
  /* The grid (gs_matmul_grid.h): rows x cols processes, this rank at (prow, pcol). */
  int rows, cols, prow, pcol;
  MPI_Comm row_comm;               /* this process row, ranked by column */
  MPI_Comm col_comm;               /* this process column, ranked by row */
  uint64_t i0, mloc, j0, nloc;     /* this rank's C block: rows [i0, i0 + mloc), columns [j0, j0 + nloc) */
  uint64_t ka0, kaloc;             /* its A block's K columns (A block: mloc x kaloc) */
  uint64_t kb0, kbloc;             /* its B block's K rows (B block: kbloc x nloc) */
  uint64_t panel;                  /* panel width (K itself on one rank: no panels) */
  uint64_t npanels;
  /* Device blocks: A stored panel by panel (each panel mloc x width, row-major, so one panel is
   * one contiguous copy), B and C row-major; received panels (two of each, double-buffered) and
   * their pinned host staging; C's host copy for the check. */
  void *dA, *dB, *dC, *dpa[2], *dpb[2], *hpa[2], *hpb[2], *hC;
  gs_queue *qc, *qx;               /* compute queue, copy queue */
  gs_event *start, *stop, *up[2], *done[2]; /* a product's ends; panel s copied up; slot s free */
  gs_event **ev;                   /* ev[2p], ev[2p + 1]: block product of panel p */
  double peak;                     /* FLOP/s of one device for this type (0: unknown) */
  const char *peak_src;            /* where that number comes from */
  double t_comm;                   /* this rank's panel traffic alone, median seconds */
  struct gs_report rep;
  int failed;                      /* some check failed on some rank */
  int corrupt;                     /* test hook: make the last rank's C wrong */
  struct gs_exchange xrow, xcol;   /* --exchange for A's panels (process rows) and B's (columns) */
};

#endif
