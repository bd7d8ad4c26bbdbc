/* gs_reduce.c: `gpusim reduce`: sizes, inputs and the CPU reference, the header, then the
 * device-resident (gs_reduce_device.c) or streamed (gs_reduce_stream.c) path, the cost of the
 * MPI_Allreduce that combines the ranks, and the verdict. */
#include "gs_reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
#include "gs_reduce_check.h"
#include "gs_reduce_combine.h"
#include "gs_reduce_device.h"
#include "gs_reduce_job.h"
#include "gs_reduce_ref.h"
#include "gs_reduce_stream.h"

/* Split the global problem: --n per rank, or --total spread as evenly as possible. */
static void gs_reduce_sizes(struct gs_reduce_job *job) {
  const struct gs_run *run = job->run;
  uint64_t size = (uint64_t)run->size, rank = (uint64_t)run->rank;
  if (job->o->total) {
    uint64_t base = job->o->total / size, extra = job->o->total % size;
    job->n = base + (rank < extra);
    job->first = rank * base + (rank < extra ? rank : extra);
    job->total = job->o->total;
  } else {
    job->n = job->o->n;
    job->first = rank * job->n;
    job->total = job->n * size;
  }
  job->bytes = job->n * gs_dtype_size(job->t);
}

/* Every size this run will allocate, checked before any is used: the total over all ranks and
 * the bytes of a rank's slice must not wrap 64 bits, and the buffers must fit in the memory this
 * rank has (the CPU backend's "device" is host memory, shared by the node's ranks and holding
 * the input twice, three times streamed). Collective: the lowest failing rank's message wins. */
static int gs_reduce_check_sizes(const struct gs_reduce_job *job, struct gs_msg *msg) {
  const struct gs_run *run = job->run;
  const struct gs_reduce_opts *o = job->o;
  uint64_t ranks = (uint64_t)run->size, per_rank = o->total ? o->total / ranks + (o->total % ranks != 0) : o->n;
  unsigned esz = gs_dtype_size(job->t);
  const char *tname = gs_reduce_options_type_name(job->t);
  int status = GS_OK;
  if (!o->total && o->n > UINT64_MAX / ranks)
    status =
        gs_error_msg(msg, "--n %llu on %d ranks: more than 2^64 elements in all", (unsigned long long)o->n, run->size);
  else if (per_rank > SIZE_MAX / esz || per_rank > (uint64_t)INT64_MAX / esz)
    status = gs_error_msg(msg, "%s %llu: %llu %s elements per rank (%u bytes each): more than 2^63 bytes",
                          o->total ? "--total" : "--n", (unsigned long long)(o->total ? o->total : o->n),
                          (unsigned long long)per_rank, tname, esz);
  if (status == GS_OK) {
    int cpu = (run->be->caps & GS_CAP_HOST_MEMORY) != 0, copies = cpu ? (o->source == GS_SOURCE_HOST ? 3 : 2) : 1;
    double ceiling = cpu ? 2.0 * (64 << 20) : 2.0 * (512 << 20); /* the device-copy ceiling's buffers */
    double need = ((double)per_rank * esz * copies + ceiling) * (cpu ? run->local_size : 1);
    if (run->mem_bytes > 0 && need > run->mem_bytes)
      status = gs_error_msg(
          msg, "%s %llu: %.3g GB of %s input per rank does not fit in the %.3g GB of memory of rank %d's %s%s%s",
          o->total ? "--total" : "--n", (unsigned long long)(o->total ? o->total : o->n), (double)per_rank * esz / 1e9,
          tname, run->mem_bytes / 1e9, run->rank, cpu ? "host" : "GPU",
          cpu ? " (the CPU backend holds it 2 or 3 times, for each rank of the node)" : "", run->mem_note);
  }
  return gs_error_agree(MPI_COMM_WORLD, &run->where, status, msg);
}

/* Median cost of the MPI_Allreduce that combines one accumulator, slowest rank, seconds. */
static double gs_reduce_time_allreduce(struct gs_reduce_job *job) {
  const struct gs_run *run = job->run;
  int k = job->o->iters;
  double *t = malloc(sizeof *t * (size_t)k);
  if (!t) GS_DIE(&run->where, "malloc", "out of memory");
  union gs_acc in = job->ref_local, out;
  for (int i = -job->o->warmup; i < k; i++) {
    GS_CHECK_MPI(&run->where, MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    GS_CHECK_MPI(&run->where, MPI_Allreduce(&in, &out, 1, job->mpi_type, job->mpi_op, MPI_COMM_WORLD));
    if (i >= 0) t[i] = MPI_Wtime() - t0;
  }
  double med = gs_stats_of(t, k).median, slow = med;
  free(t);
  GS_CHECK_MPI(&run->where, MPI_Allreduce(&med, &slow, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return slow;
}

/* The kernels this backend runs out of --kernel, and sizes that make sense: GS_USAGE with msg
 * (the same on every rank) otherwise. */
static int gs_reduce_plan(struct gs_reduce_job *job, struct gs_bench *b, struct gs_msg *msg) {
  const struct gs_run *run = job->run;
  if (gs_bench_select(b, job->o->kernels, gs_reduce_options_kernels, 0, msg) != GS_OK) return GS_USAGE;
  job->mask = b->mask;
  if (job->o->total && job->o->total < (uint64_t)run->size)
    return gs_error_msg(msg, "--total %llu is smaller than the %d ranks", (unsigned long long)job->o->total, run->size);
  return gs_reduce_check_sizes(job, msg);
}

/* Queues, events, the input and its reference (outside every timed region), the tolerance. */
static void gs_reduce_setup(struct gs_reduce_job *job) {
  const struct gs_backend *be = job->be;
  struct gs_run *run = job->run;
  job->q = be->queue_create(job->ctx);
  if (be->reduce->set_block) be->reduce->set_block(job->ctx, job->o->block); /* --block: a backend's own knob */
  job->ev[0] = be->event_create(job->ctx);
  job->ev[1] = be->event_create(job->ctx);
  job->h_in = be->alloc_host(job->ctx, job->bytes);
  gs_reduce_ref_fill(job->h_in, job->t, job->first, job->n, job->o->seed);
  double abs_local = 0, abs_sum = 0;
  job->ref_local = gs_reduce_ref_compute(job->h_in, job->t, job->op, job->n, &abs_local);
  /* The accumulator's MPI type and op combine the ranks' results. */
  job->mpi_type = job->t == GS_DTYPE_INT32 ? MPI_INT64_T : MPI_DOUBLE;
  job->mpi_op = job->op == GS_OP_SUM ? MPI_SUM : job->op == GS_OP_MIN ? MPI_MIN : MPI_MAX;
  GS_CHECK_MPI(&run->where,
               MPI_Allreduce(&job->ref_local, &job->ref_global, 1, job->mpi_type, job->mpi_op, MPI_COMM_WORLD));
  GS_CHECK_MPI(&run->where, MPI_Allreduce(&abs_local, &abs_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  job->tol = gs_reduce_check_tolerance(job, abs_sum);
}

/* Rank 0: the run header and what this run does. */
static void gs_reduce_header(struct gs_reduce_job *job, const struct gs_rank_info *all) {
  const struct gs_run *run = job->run;
  gs_report_header(stdout, run, &job->rep, all);
  printf("# reduce: %s %s of %llu elements over %d rank(s) (%llu per rank%s, %.3f GB per rank), block %d, "
         "median of %d after %d warm-up, input on the %s\n",
         gs_reduce_options_type_name(job->t), gs_reduce_options_op_name(job->op), (unsigned long long)job->total,
         run->size, (unsigned long long)job->n,
         job->o->total && job->total % run->size ? " on the first ranks, one less on the rest" : "", job->bytes / 1e9,
         job->o->block, job->o->iters, job->o->warmup,
         job->o->source == GS_SOURCE_HOST ? "host (pinned, streamed)" : "device");
  printf("# timing: %s, median over the runs\n", run->be->timing);
  printf("# inputs: seeded (%llu) uniform %s on [-2^20, 2^20]%s; accumulation in %s\n",
         (unsigned long long)job->o->seed, job->t == GS_DTYPE_INT32 ? "ints" : "values",
         job->t == GS_DTYPE_INT32 ? "" : " x 2^-20 (a 2^-20 grid in [-1, 1])",
         job->t == GS_DTYPE_INT32 ? "int64 (exact)" : "double");
  fflush(stdout);
}

/* Rank 0: the combine's cost, the reference, timing caveats and the verdict. */
static void gs_reduce_verdict(struct gs_reduce_job *job, double t_allreduce, double t_device, int matched,
                              const char *no_device, long expired) {
  const char *tname = gs_reduce_options_type_name(job->t), *oname = gs_reduce_options_op_name(job->op);
  char ref[40];
  gs_reduce_check_format(ref, sizeof ref, job, job->ref_global);
  printf("# MPI_Allreduce of the partial results (%s, %s): median %.2f us (slowest rank), not in the times above\n",
         job->t == GS_DTYPE_INT32 ? "MPI_INT64_T" : "MPI_DOUBLE",
         job->op == GS_OP_SUM   ? "MPI_SUM"
         : job->op == GS_OP_MIN ? "MPI_MIN"
                                : "MPI_MAX",
         t_allreduce * 1e6);
  if (t_device >= 0)
    printf("# device combine (%s all-reduce of the partial results, device to device): median %.2f us (slowest "
           "rank), result %s\n",
           job->be->coll->name, t_device * 1e6, matched ? "matches the reference" : "WRONG");
  else
    printf("# device combine: none (%s)\n", no_device);
  if (expired)
    printf("# timing: WARNING: in %ld timed run(s) the gate gave up waiting (2 s) before the run was queued: "
           "those times include host time\n",
           expired);
  if (job->t == GS_DTYPE_INT32 || job->op != GS_OP_SUM)
    printf("# reference: %s %s = %s (CPU, %s), every kernel must match exactly, per rank and combined\n", tname, oname,
           ref, job->t == GS_DTYPE_INT32 ? "int64" : "exact min/max");
  else if (job->tol == 0)
    printf("# reference: %s sum = %s (CPU, compensated long double); tolerance 0: the inputs make double sums exact\n",
           tname, ref);
  else
    printf("# reference: %s sum = %s (CPU, compensated long double); tolerance %.3g = (n-1) 2^-53 sum|x|\n", tname, ref,
           job->tol);
  fflush(stdout);
}

static void gs_reduce_teardown(struct gs_reduce_job *job) {
  const struct gs_backend *be = job->be;
  gs_report_free(&job->rep);
  if (be->reduce->set_block) be->reduce->set_block(job->ctx, 0); /* the backend's choice again (the main job) */
  be->free_host(job->ctx, job->h_in);
  be->event_destroy(job->ctx, job->ev[0]);
  be->event_destroy(job->ctx, job->ev[1]);
  be->queue_destroy(job->ctx, job->q);
}

static int gs_reduce_main(struct gs_run *run) {
  struct gs_reduce_job job = {.run = run, .o = gs_options_workload(run->opt), .be = run->be, .ctx = run->ctx};
  job.kernels = job.be->reduce->kernels;
  job.t = (enum gs_dtype)job.o->dtype;
  job.op = (enum gs_op)job.o->op;
  job.corrupt = gs_error_test_corrupt("reduce");
  struct gs_bench b = {.run = run, .workload = "reduce", .rep = &job.rep, .kernels = job.kernels,
                       .count = job.be->reduce->count, .warmup = job.o->warmup, .iters = job.o->iters};
  struct gs_msg msg;
  if (gs_reduce_plan(&job, &b, &msg) != GS_OK) {
    gs_error_report(run->rank, &msg);
    return GS_USAGE;
  }
  gs_reduce_sizes(&job);
  b.problem_size = job.total;
  gs_report_init(&job.rep, run);
  struct gs_rank_info *all = run->rank == 0 ? calloc((size_t)run->size, sizeof *all) : NULL;
  if (run->rank == 0 && !all) GS_DIE(&run->where, "calloc", "out of memory");
  gs_mpi_gather_ranks(run, all);
  gs_reduce_setup(&job);
  if (run->rank == 0) gs_reduce_header(&job, all);
  free(all);

  if (job.o->source == GS_SOURCE_HOST)
    gs_reduce_stream_run(&job, &b);
  else
    gs_reduce_device_run(&job, &b);

  double t_allreduce = gs_reduce_time_allreduce(&job);
  char no_device[200] = "";
  int matched = 0;
  double t_device = gs_reduce_combine_device(&job, &matched, no_device, sizeof no_device);
  long expired = 0;
  GS_CHECK_MPI(&run->where, MPI_Reduce(&job.gate_expired, &expired, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  if (run->rank == 0) gs_reduce_verdict(&job, t_allreduce, t_device, matched, no_device, expired);
  int status = gs_bench_verdict(run, &job.rep, job.failed);
  gs_reduce_teardown(&job);
  return status;
}

const struct gs_workload gs_reduce_workload = {
    .name = "reduce",
    .summary = "parallel reduction: the seed ladder, modern kernels and CUB, MPI_Allreduce",
    .opts = gs_reduce_options_table,
    .opts_size = sizeof(struct gs_reduce_opts),
    .defaults = gs_reduce_options_defaults,
    .validate = gs_reduce_options_validate,
    .kernels = gs_reduce_options_kernels, /* filled in by its defaults */
    .main = gs_reduce_main,
};
