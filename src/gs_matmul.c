/* gs_matmul.c: `gpusim matmul`: C = A * B, row-major, any M, N, K. The kernels this backend runs
 * for --type, the grid and the blocks (gs_matmul_setup.c), the header, the timed and checked table
 * (gs_matmul_table.c: the plain kernel table on one rank, SUMMA (gs_matmul_summa.c) on several),
 * and the verdict. */
#include "gs_matmul.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
#include "gs_matmul_check.h"
#include "gs_matmul_job.h"
#include "gs_matmul_setup.h"
#include "gs_matmul_table.h"

/* The kernel flag that says a kernel runs this --type. */
static unsigned gs_matmul_type_flag(int type) {
  return type == GS_MATMUL_FLOAT ? GS_KERNEL_FLOAT : type == GS_MATMUL_DOUBLE ? GS_KERNEL_DOUBLE : GS_KERNEL_TF32;
}

/* Does kernel k run --type type? tf32: the kernels flagged for it; float and double: those
 * flagged for the type and not TF32 (a TF32 kernel is not a float result). */
static int gs_matmul_runs(const struct gs_kernel *k, int type) {
  if (type == GS_MATMUL_TF32) return (k->flags & GS_KERNEL_TF32) != 0;
  return (k->flags & gs_matmul_type_flag(type)) && !(k->flags & GS_KERNEL_TF32);
}

/* The kernels of --kernel that run --type on this backend: GS_USAGE with msg (the same on every
 * rank) when the backend has none, or a named kernel does not run the type. */
static int gs_matmul_plan(struct gs_matmul_job *job, struct gs_bench *b, struct gs_msg *msg) {
  const struct gs_matmul_ops *ops = job->be->matmul;
  const char *tname = gs_matmul_options_type_name(job->o->type);
  if (!ops || ops->count == 0) return gs_error_msg(msg, "the %s backend has no matmul kernels", job->be->name);
  b->kernels = ops->kernels, b->count = ops->count;
  if (gs_bench_select(b, job->o->kernels, gs_matmul_options_kernels, gs_matmul_options_numbered, msg) != GS_OK)
    return GS_USAGE;
  job->mask = b->mask;
  unsigned runs = 0;
  for (int i = 0; i < ops->count; i++)
    if (gs_matmul_runs(&ops->kernels[i], job->o->type)) runs |= 1u << i;
  for (int i = 0; i < ops->count && strcmp(job->o->kernels, "all") != 0; i++)
    if ((job->mask & (1u << i)) && !(runs & (1u << i)))
      return gs_error_msg(msg, "--kernel %s does not run --type %s on the %s backend", ops->kernels[i].name, tname,
                          job->be->name);
  b->mask = job->mask &= runs;
  if (!job->mask) return gs_error_msg(msg, "no kernel of the %s backend runs --type %s", job->be->name, tname);
  return GS_OK;
}

/* Rank 0: the run header and what this run does. */
static void gs_matmul_header(struct gs_matmul_job *job, const struct gs_rank_info *all) {
  const struct gs_run *run = job->run;
  const struct gs_matmul_opts *o = job->o;
  char check[400];
  gs_report_header(stdout, run, &job->rep, all);
  printf("# matmul: C (%llu x %llu) = A (%llu x %llu) * B (%llu x %llu), %s, row-major, --ic %s; %.3g GFLOP (2 M N K); "
         "median of %d after %d warm-up\n", (unsigned long long)o->m, (unsigned long long)o->n, (unsigned long long)o->m,
         (unsigned long long)o->k, (unsigned long long)o->k, (unsigned long long)o->n, gs_matmul_options_type_name(o->type),
         gs_matmul_options_ic_name(o->ic), 2.0 * o->m * o->n * o->k / 1e9, o->iters, o->warmup);
  if (run->size > 1) {
    printf("# SUMMA: %d x %d process grid%s, C in blocks of up to %llu x %llu per rank; %llu panels of up to %llu "
           "(A along process rows, B along process columns), overlap %s\n",
           job->rows, job->cols, job->rows == 1 || job->cols == 1 ? " (1D)" : "",
           (unsigned long long)((o->m + job->rows - 1) / job->rows),
           (unsigned long long)((o->n + job->cols - 1) / job->cols), (unsigned long long)job->npanels,
           (unsigned long long)job->panel, o->overlap ? "on (double-buffered, copy queue)" : "off (serial)");
    printf("# exchange: A panels %s; B panels %s\n", job->cols > 1 ? job->xrow.note : "stay (one process column)",
           job->rows > 1 ? job->xcol.note : "stay (one process row)");
    if (o->overlap && !(run->be->caps & GS_CAP_CONCURRENT))
      printf("# overlap: the %s backend runs each queue's work at once, so no traffic can hide behind a product\n",
             run->be->name);
  }
  /* No gate here: a run is a few launches, or a schedule the host takes part in (MPI). */
  printf("# timing: %s, %s\n",
         run->be->caps & GS_CAP_DEVICE_TIMING ? "events on the compute queue around each run (device time; not gated, "
                                                "so the first launch's host overhead of a few us is in it)"
                                              : "wall clock around each run",
         run->size > 1 ? "from the first panel's broadcast to the last block product" : "one product");
  gs_matmul_check_describe(job, check, sizeof check);
  printf("# check: %s\n", check);
  if (job->peak > 0)
    printf("# peak: %.1f TFLOP/s %s per device (%s: %s)\n", job->peak / 1e12,
           o->type == GS_MATMUL_FLOAT ? "FP32" : o->type == GS_MATMUL_DOUBLE ? "FP64 tensor" : "TF32 tensor", run->dev.name,
           job->peak_src);
  else printf("# peak: %s (%s): no %%peak\n", job->peak_src, run->dev.name);
  fflush(stdout);
}

/* The panel traffic alone, slowest rank, printed by rank 0 (several ranks only). */
static void gs_matmul_traffic(struct gs_matmul_job *job) {
  const struct gs_run *run = job->run;
  job->t_comm = gs_matmul_table_traffic(job);
  double slow = 0;
  GS_CHECK_MPI(&run->where, MPI_Reduce(&job->t_comm, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
  if (run->rank == 0 && run->size > 1) {
    printf("# panel traffic alone: %.3f ms (slowest rank; copies down, broadcasts, copies up, no product): busy = time in "
           "block products / total, hidden = share of it the products covered (worst rank)\n", slow * 1e3);
    fflush(stdout);
  }
}

static int gs_matmul_main(struct gs_run *run) {
  struct gs_matmul_job job = {.run = run, .o = gs_options_workload(run->opt), .be = run->be, .ctx = run->ctx};
  job.kernels = job.be->matmul ? job.be->matmul->kernels : NULL;
  job.t = gs_matmul_options_dtype(job.o->type);
  job.esz = gs_dtype_size(job.t);
  job.mpi_t = job.t == GS_DTYPE_DOUBLE ? MPI_DOUBLE : MPI_FLOAT;
  job.ref = (struct gs_matmul_ref){.ic = job.o->ic, .seed = job.o->seed, .m = job.o->m, .n = job.o->n, .k = job.o->k};
  job.corrupt = gs_error_test_corrupt("matmul");
  struct gs_bench b = {.run = run, .workload = "matmul", .rep = &job.rep, .warmup = job.o->warmup,
                       .iters = job.o->iters, .problem_size = job.o->m * job.o->n};
  struct gs_msg msg;
  if (gs_matmul_plan(&job, &b, &msg) != GS_OK) {
    gs_error_report(run->rank, &msg);
    return GS_USAGE;
  }
  if (gs_matmul_setup_grid(&job, &msg) != GS_OK) {
    gs_error_report(run->rank, &msg);
    return GS_USAGE;
  }
  if (gs_matmul_setup_check(&job, &msg) != GS_OK || gs_matmul_setup_exchange(&job, &msg) != GS_OK) {
    gs_error_report(run->rank, &msg);
    gs_exchange_close(&job.xrow);
    gs_exchange_close(&job.xcol);
    MPI_Comm_free(&job.row_comm);
    MPI_Comm_free(&job.col_comm);
    return GS_USAGE;
  }
  job.peak = gs_matmul_table_peak(&run->dev, job.o->type, &job.peak_src);
  gs_report_init(&job.rep, run);
  struct gs_rank_info *all = run->rank == 0 ? calloc((size_t)run->size, sizeof *all) : NULL;
  if (run->rank == 0 && !all) GS_DIE(&run->where, "calloc", "out of memory");
  gs_mpi_gather_ranks(run, all);
  if (run->rank == 0) gs_matmul_header(&job, all);
  free(all);
  gs_matmul_setup_buffers(&job);
  gs_matmul_traffic(&job);
  gs_matmul_table_run(&job, &b);
  int status = gs_bench_verdict(run, &job.rep, job.failed);
  gs_report_free(&job.rep);
  gs_matmul_setup_free(&job);
  return status;
}

const struct gs_workload gs_matmul_workload = {
    .name = "matmul",
    .summary = "matrix multiply C = A * B: the seed's shared-memory ladder, SIMT and cuBLAS, SUMMA across ranks",
    .opts = gs_matmul_options_table,
    .opts_size = sizeof(struct gs_matmul_opts),
    .defaults = gs_matmul_options_defaults,
    .validate = gs_matmul_options_validate,
    .kernels = gs_matmul_options_kernels, /* filled in by its defaults, numbered as gs_matmul_options_numbered says */
    .main = gs_matmul_main,
};
