/* gs_reduce.c: `gpusim reduce` with the input on the device. Each rank reduces its slice with
 * every selected kernel (timed with events, median of --iters after --warmup), checks its result
 * against the CPU reference, and MPI_Allreduce combines the partial results; rank 0 prints the
 * seed's table (ms, GB/s, % of peak, step and cumulative speedups) and the verdict. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_reduce_job.h"

static const struct {
  const char *name, *title;
} gs_rk[GS_RK_LAST] = {
    [GS_RK_INTERLEAVED] = {"1", "interleaved, tid % 2s"},
    [GS_RK_STRIDED] = {"2", "interleaved, strided index"},
    [GS_RK_SEQUENTIAL] = {"3", "sequential addressing"},
    [GS_RK_FIRST_ADD] = {"4", "first add during load"},
    [GS_RK_LAST_WARP] = {"5", "unrolled last warp"},
    [GS_RK_UNROLLED] = {"6", "complete unroll"},
    [GS_RK_MULTI] = {"7", "many elements per thread"},
    [GS_RK_VEC] = {"vec", "shuffles, 16 B loads, 2 launches"},
    [GS_RK_ONEPASS] = {"onepass", "shuffles, 16 B loads, 1 launch"},
    [GS_RK_CUB] = {"cub", "cub::DeviceReduce (baseline)"},
    [GS_RK_OMP] = {"omp", "OpenMP on the host cores"},
};

const char *gs_reduce_kernel_name(int k) { return k > 0 && k < GS_RK_LAST ? gs_rk[k].name : "?"; }
const char *gs_reduce_type_name(enum gs_dtype t) { return t == GS_DTYPE_INT32 ? "int" : t == GS_DTYPE_FLOAT ? "float" : "double"; }
const char *gs_reduce_op_name(enum gs_op op) { return op == GS_OP_SUM ? "sum" : op == GS_OP_MIN ? "min" : "max"; }

const char *gs_reduce_kernel_title(int k) { return k > 0 && k < GS_RK_LAST ? gs_rk[k].title : "?"; }

int gs_reduce_kernel_mask(const char *list, unsigned *mask, struct gs_msg *msg) {
  *mask = 0;
  if (strcmp(list, "all") == 0) {
    for (int k = 1; k < GS_RK_LAST; k++) *mask |= 1u << k;
    return GS_OK;
  }
  const char *p = list;
  while (*p) {
    size_t len = strcspn(p, ",");
    int found = 0;
    if (len == 6 && strncmp(p, "ladder", 6) == 0) *mask |= 0xFEu, found = 1; /* kernels 1..7 */
    for (int k = 1; k < GS_RK_LAST && !found; k++)
      if (strlen(gs_rk[k].name) == len && strncmp(p, gs_rk[k].name, len) == 0) *mask |= 1u << k, found = 1;
    if (!found)
      return gs_error_msg(msg, "--kernel: '%.*s' is not a kernel (all, ladder, 1..7, vec, onepass, cub, omp)", (int)len, p);
    p += len;
    if (*p == ',') p++;
  }
  return GS_OK;
}

int gs_reduce_matches(const struct gs_reduce_job *job, union gs_acc r, union gs_acc ref) {
  if (job->t == GS_DTYPE_INT32) return r.i == ref.i;
  return fabs(r.d - ref.d) <= job->tol;
}

union gs_acc gs_reduce_combine(const struct gs_reduce_job *job, union gs_acc a, union gs_acc b) {
  union gs_acc r;
  if (job->t == GS_DTYPE_INT32)
    r.i = job->op == GS_OP_SUM ? a.i + b.i : job->op == GS_OP_MIN ? (a.i < b.i ? a.i : b.i) : (a.i > b.i ? a.i : b.i);
  else
    r.d = job->op == GS_OP_SUM ? a.d + b.d : job->op == GS_OP_MIN ? fmin(a.d, b.d) : fmax(a.d, b.d);
  return r;
}

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
  const char *tname = gs_reduce_type_name(job->t);
  int status = GS_OK;
  if (!o->total && o->n > UINT64_MAX / ranks)
    status = gs_error_msg(msg, "--n %llu on %d ranks: more than 2^64 elements in all", (unsigned long long)o->n, run->size);
  else if (per_rank > SIZE_MAX / esz || per_rank > (uint64_t)INT64_MAX / esz)
    status = gs_error_msg(msg, "%s %llu: %llu %s elements per rank (%u bytes each): more than 2^63 bytes", o->total ? "--total" : "--n",
                          (unsigned long long)(o->total ? o->total : o->n), (unsigned long long)per_rank, tname, esz);
  if (status == GS_OK) {
    int cpu = run->dev.index < 0, copies = cpu ? (o->source == GS_SOURCE_HOST ? 3 : 2) : 1;
    double ceiling = cpu ? 2.0 * (64 << 20) : 2.0 * (512 << 20); /* gs_reduce_copy_ceiling's buffers */
    double need = ((double)per_rank * esz * copies + ceiling) * (cpu ? run->local_size : 1);
    if (run->dev.mem_bytes > 0 && need > run->dev.mem_bytes)
      status = gs_error_msg(msg, "%s %llu: %.3g GB of %s input per rank does not fit in the %.3g GB of memory of rank %d's %s%s",
                            o->total ? "--total" : "--n", (unsigned long long)(o->total ? o->total : o->n),
                            (double)per_rank * esz / 1e9, tname, run->dev.mem_bytes / 1e9, run->rank, cpu ? "host" : "GPU",
                            cpu ? " (the CPU backend holds it 2 or 3 times, for each rank of the node)" : "");
  }
  return gs_error_agree(MPI_COMM_WORLD, &run->be.where, status, msg);
}

/* Device-copy ceiling: a large device-to-device copy, bytes read plus written per second. */
static void gs_reduce_copy_ceiling(struct gs_reduce_job *job) {
  const struct gs_backend *be = job->be;
  int gpu = job->run->dev.index >= 0;
  /* A fixed size, whatever the input: 2 x 512 MiB on a GPU (far beyond its L2), 2 x 64 MiB on
   * the CPU backend, so the ceiling is the same number in every run. */
  size_t cb = gpu ? (size_t)512 << 20 : (size_t)64 << 20;
  void *a = be->alloc_device(be, cb), *b = be->alloc_device(be, cb);
  be->zero_device(be, a, cb, job->q);
  double t[10];
  for (int i = -2; i < 10; i++) {
    be->event_record(be, job->ev[0], job->q);
    be->copy_d2d(be, b, a, cb, job->q);
    be->event_record(be, job->ev[1], job->q);
    be->event_sync(be, job->ev[1]);
    if (i >= 0) t[i] = be->event_seconds(be, job->ev[0], job->ev[1]);
  }
  job->copy_bw = 2.0 * cb / gs_stats_of(t, 10).median;
  be->free_device(be, a);
  be->free_device(be, b);
}

/* Time one kernel on this rank: warm-up, then --iters event-timed runs. Leaves the result in *res. */
static struct gs_stats gs_reduce_time(struct gs_reduce_job *job, int k, const void *d_in, union gs_acc *res) {
  const struct gs_backend *be = job->be;
  const struct gs_reduce_opts *o = job->o;
  size_t wsb = be->reduce_workspace(be, k, job->t, job->op, job->n, o->block);
  void *ws = wsb ? be->alloc_device(be, wsb) : NULL;
  if (ws) be->zero_device(be, ws, wsb, job->q);
  union gs_acc *d_out = be->alloc_device(be, sizeof *d_out);
  double *t = malloc(sizeof *t * (size_t)o->iters);
  if (!t) GS_DIE(&be->where, "malloc", "out of memory");
  /* The gate holds the queue until the start event, the kernel(s) and the stop event are all
   * submitted: the events then time the device's work, not the host's launch overhead. */
  gs_gate *gate = be->gate_create(be);
  for (int i = -o->warmup; i < o->iters; i++) {
    be->gate_close(be, gate, job->q);
    be->event_record(be, job->ev[0], job->q);
    be->reduce(be, k, job->t, job->op, d_in, job->n, ws, wsb, d_out, o->block, job->q);
    be->event_record(be, job->ev[1], job->q);
    be->gate_open(be, gate);
    be->event_sync(be, job->ev[1]);
    if (i >= 0) t[i] = be->event_seconds(be, job->ev[0], job->ev[1]);
  }
  be->copy_d2h(be, res, d_out, sizeof *res, job->q);
  be->queue_sync(be, job->q);
  struct gs_stats s = gs_stats_of(t, o->iters);
  be->gate_destroy(be, gate);
  free(t);
  be->free_device(be, d_out);
  if (ws) be->free_device(be, ws);
  return s;
}

/* Median cost of the MPI_Allreduce that combines one accumulator, slowest rank, seconds. */
static double gs_reduce_time_allreduce(struct gs_reduce_job *job) {
  const struct gs_run *run = job->run;
  int k = job->o->iters;
  double *t = malloc(sizeof *t * (size_t)k);
  if (!t) GS_DIE(&run->be.where, "malloc", "out of memory");
  union gs_acc in = job->ref_local, out;
  for (int i = -job->o->warmup; i < k; i++) {
    GS_CHECK_MPI(&run->be.where, MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    GS_CHECK_MPI(&run->be.where, MPI_Allreduce(&in, &out, 1, job->mpi_type, job->mpi_op, MPI_COMM_WORLD));
    if (i >= 0) t[i] = MPI_Wtime() - t0;
  }
  double med = gs_stats_of(t, k).median, slow = med;
  free(t);
  GS_CHECK_MPI(&run->be.where, MPI_Allreduce(&med, &slow, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return slow;
}

static void gs_reduce_print_acc(char *out, size_t size, const struct gs_reduce_job *job, union gs_acc a) {
  if (job->t == GS_DTYPE_INT32) snprintf(out, size, "%lld", (long long)a.i);
  else snprintf(out, size, "%.17g", a.d);
}

/* The test hook GPUSIM_TEST_CORRUPT_RESULT=1: the last rank's results are made wrong by one
 * unit, so the tests can prove that a wrong result prints FAILED and exits 1. */
static void gs_reduce_corrupt(const struct gs_reduce_job *job, union gs_acc *res) {
  if (job->t == GS_DTYPE_INT32) res->i += 1;
  else res->d += 1.0;
}

/* Run, verify, combine and report every selected kernel on device-resident input. */
static void gs_reduce_device(struct gs_reduce_job *job, unsigned mask) {
  const struct gs_backend *be = job->be;
  struct gs_run *run = job->run;
  void *d_in = be->alloc_device(be, job->bytes);
  be->copy_h2d(be, d_in, job->h_in, job->bytes, job->q);
  be->queue_sync(be, job->q);
  gs_reduce_copy_ceiling(job);
  double bw_peak = run->dev.bw_theory, ceiling = job->copy_bw;
  GS_CHECK_MPI(&run->be.where, MPI_Bcast(&ceiling, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  struct gs_stats *per_rank = run->rank == 0 ? calloc((size_t)run->size, sizeof *per_rank) : NULL;
  if (run->rank == 0 && !per_rank) GS_DIE(&run->be.where, "calloc", "out of memory");

  if (run->rank == 0) {
    printf("# device-copy ceiling: %.1f GB/s (rank 0: device-to-device copy, bytes read + written, median of 10)\n",
           ceiling / 1e9);
    if (bw_peak > 0) printf("# theoretical bandwidth: %.1f GB/s (%s, from memory clock x bus width)\n", bw_peak / 1e9, run->dev.name);
    printf("%-8s %-34s %10s %9s %9s %6s %6s %6s %7s  %s\n", "kernel", "what", "ms", "GB/s/GPU", "agg_GB/s", "%peak",
           "%copy", "step", "cum", "check");
  }
  double prev = 0, first = 0;
  for (int k = 1; k < GS_RK_LAST; k++) {
    if (!(mask & (1u << k))) continue;
    union gs_acc res;
    struct gs_stats mine = gs_reduce_time(job, k, d_in, &res);
    if (job->corrupt && run->rank == run->size - 1) gs_reduce_corrupt(job, &res);
    int ok_local = gs_reduce_matches(job, res, job->ref_local), ok_all = 0;
    union gs_acc global;
    GS_CHECK_MPI(&run->be.where, MPI_Allreduce(&res, &global, 1, job->mpi_type, job->mpi_op, MPI_COMM_WORLD));
    int ok = ok_local && gs_reduce_matches(job, global, job->ref_global);
    GS_CHECK_MPI(&run->be.where, MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (!ok_all) job->failed = 1;
    if (!ok_local) {
      char got[40], want[40];
      gs_reduce_print_acc(got, sizeof got, job, res);
      gs_reduce_print_acc(want, sizeof want, job, job->ref_local);
      fprintf(stderr, "gpusim: rank %d: kernel %s: result %s, reference %s: FAILED\n", run->rank, gs_rk[k].name, got, want);
    }
    struct gs_stats slow = gs_stats_slowest(&run->be.where, mine, per_rank);
    if (run->rank != 0) continue;
    double t = slow.median, per_gpu = (double)job->total / run->size * gs_dtype_size(job->t) / t;
    double agg = (double)job->total * gs_dtype_size(job->t) / t;
    if (first == 0) first = t;
    char step[16] = "", cum[16] = "";
    if (prev > 0) snprintf(step, sizeof step, "%.2fx", prev / t);
    if (first != t || prev > 0) snprintf(cum, sizeof cum, "%.2fx", first / t);
    char peak[16] = "-";
    if (bw_peak > 0) snprintf(peak, sizeof peak, "%.1f", 100 * per_gpu / bw_peak);
    printf("%-8s %-34s %10.4f %9.1f %9.1f %6s %6.1f %6s %7s  %s\n", gs_rk[k].name, gs_rk[k].title, t * 1e3,
           per_gpu / 1e9, agg / 1e9, peak, 100 * per_gpu / ceiling, step, cum, ok_all ? "OK" : "FAILED");
    prev = t;
    struct gs_row row = {.workload = "reduce", .rank = -1, .problem_size = job->total, .iterations = job->o->iters,
                         .t_min = slow.min, .t_median = slow.median, .t_max = slow.max, .metric = "bandwidth",
                         .value = agg / 1e9, .unit = "GB/s",
                         .efficiency = bw_peak > 0 ? agg / (bw_peak * run->size) : -1};
    snprintf(row.kernel, sizeof row.kernel, "%s", gs_rk[k].name);
    snprintf(row.params, sizeof row.params, "type=%s;op=%s;source=device;block=%d;check=%s;copy_ceiling_GBps=%.1f",
             gs_reduce_type_name(job->t), gs_reduce_op_name(job->op), job->o->block, ok_all ? "OK" : "FAILED",
             ceiling / 1e9);
    gs_report_add(&job->rep, &row);
    for (int r = 0; run->size > 1 && r < run->size; r++) {
      struct gs_row rr = row;
      rr.rank = r;
      rr.t_min = per_rank[r].min, rr.t_median = per_rank[r].median, rr.t_max = per_rank[r].max;
      rr.value = per_gpu * t / per_rank[r].median / 1e9;
      rr.efficiency = bw_peak > 0 ? rr.value * 1e9 / bw_peak : -1;
      gs_report_add(&job->rep, &rr);
    }
    if (run->size > 1) {
      printf("#   per-rank median ms:");
      for (int r = 0; r < run->size; r++) printf(" %.4f", per_rank[r].median * 1e3);
      printf("\n");
    }
  }
  free(per_rank);
  be->free_device(be, d_in);
}

/* The allowed |result - reference|. Inputs lie on a 2^-20 grid in [-1, 1]: every double
 * partial sum of up to 2^33 of them is exact, so any order gives the reference exactly. Past
 * that, the classical worst-case bound for any summation order in double: (n - 1) 2^-53 sum|x|. */
static double gs_reduce_tolerance(const struct gs_reduce_job *job, double abs_sum) {
  if (job->t != GS_DTYPE_INT32 && job->op == GS_OP_SUM && job->total > ((uint64_t)1 << 33))
    return (double)(job->total - 1) * ldexp(1.0, -53) * abs_sum;
  return 0;
}

int gs_reduce_main(struct gs_run *run) {
  struct gs_reduce_job job;
  memset(&job, 0, sizeof job);
  job.run = run;
  job.o = &run->opt->reduce;
  job.be = &run->be;
  job.t = (enum gs_dtype)job.o->dtype;
  job.corrupt = getenv("GPUSIM_TEST_CORRUPT_RESULT") && atoi(getenv("GPUSIM_TEST_CORRUPT_RESULT")) == 1;
  job.op = (enum gs_op)job.o->op;
  const struct gs_backend *be = job.be;
  struct gs_msg msg;

  unsigned asked, mask = 0;
  gs_reduce_kernel_mask(job.o->kernels, &asked, &msg);
  for (int k = 1; k < GS_RK_LAST; k++)
    if ((asked & (1u << k)) && be->reduce_has(k)) mask |= 1u << k;
  if (strcmp(job.o->kernels, "all") != 0 && mask != asked) {
    for (int k = 1; k < GS_RK_LAST; k++)
      if ((asked & (1u << k)) && !be->reduce_has(k)) {
        gs_error_msg(&msg, "--kernel %s does not run on the %s backend (its kernels: %s)", gs_rk[k].name, be->name,
                     strcmp(be->name, "cpu") == 0 ? "omp" : "1..7, vec, onepass, cub");
        break;
      }
    gs_error_report(run->rank, &msg);
    return GS_USAGE;
  }
  if (run->opt->reduce.total && run->opt->reduce.total < (uint64_t)run->size) {
    gs_error_msg(&msg, "--total %llu is smaller than the %d ranks", (unsigned long long)run->opt->reduce.total, run->size);
    gs_error_report(run->rank, &msg);
    return GS_USAGE;
  }

  if (gs_reduce_check_sizes(&job, &msg) != GS_OK) {
    gs_error_report(run->rank, &msg);
    return GS_USAGE;
  }
  gs_reduce_sizes(&job);
  gs_report_init(&job.rep, run);
  struct gs_rank_info *all = run->rank == 0 ? calloc((size_t)run->size, sizeof *all) : NULL;
  if (run->rank == 0 && !all) GS_DIE(&run->be.where, "calloc", "out of memory");
  gs_mpi_gather_ranks(run, all);
  job.q = be->queue_create(be);
  job.ev[0] = be->event_create(be);
  job.ev[1] = be->event_create(be);

  /* Inputs and the reference: outside every timed region. */
  job.h_in = be->alloc_host(be, job.bytes);
  gs_reduce_fill(job.h_in, job.t, job.first, job.n, job.o->seed);
  double abs_local = 0, abs_sum = 0;
  job.ref_local = gs_reduce_reference(job.h_in, job.t, job.op, job.n, &abs_local);
  /* The accumulator's MPI type and op combine the ranks' results. */
  job.mpi_type = job.t == GS_DTYPE_INT32 ? MPI_INT64_T : MPI_DOUBLE;
  job.mpi_op = job.op == GS_OP_SUM ? MPI_SUM : job.op == GS_OP_MIN ? MPI_MIN : MPI_MAX;
  GS_CHECK_MPI(&run->be.where, MPI_Allreduce(&job.ref_local, &job.ref_global, 1, job.mpi_type, job.mpi_op, MPI_COMM_WORLD));
  GS_CHECK_MPI(&run->be.where, MPI_Allreduce(&abs_local, &abs_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  job.tol = gs_reduce_tolerance(&job, abs_sum);

  const char *tname = gs_reduce_type_name(job.t), *oname = gs_reduce_op_name(job.op);
  if (run->rank == 0) {
    gs_report_header(stdout, run, &job.rep, all);
    printf("# reduce: %s %s of %llu elements over %d rank(s) (%llu per rank%s, %.3f GB per rank), block %d, "
           "median of %d after %d warm-up, input on the %s\n",
           tname, oname, (unsigned long long)job.total, run->size, (unsigned long long)job.n,
           job.o->total && job.total % run->size ? " on the first ranks, one less on the rest" : "",
           job.bytes / 1e9, job.o->block, job.o->iters, job.o->warmup, job.o->source == GS_SOURCE_HOST ? "host (pinned, streamed)" : "device");
    if (run->dev.index >= 0)
      printf("# timing: CUDA events around each run, the stream held by a gate until the run is fully queued "
             "(device time, no host launch overhead), median over the runs\n");
    else
      printf("# timing: wall clock around each run, median over the runs\n");
    printf("# inputs: seeded (%llu) uniform %s on [-2^20, 2^20]%s; accumulation in %s\n", (unsigned long long)job.o->seed,
           job.t == GS_DTYPE_INT32 ? "ints" : "values", job.t == GS_DTYPE_INT32 ? "" : " x 2^-20 (a 2^-20 grid in [-1, 1])",
           job.t == GS_DTYPE_INT32 ? "int64 (exact)" : "double");
    fflush(stdout);
  }
  free(all);

  if (job.o->source == GS_SOURCE_HOST) gs_reduce_stream_run(&job, mask);
  else gs_reduce_device(&job, mask);

  double t_allreduce = gs_reduce_time_allreduce(&job);
  if (run->rank == 0) {
    char ref[40];
    gs_reduce_print_acc(ref, sizeof ref, &job, job.ref_global);
    printf("# MPI_Allreduce of the partial results (%s, %s): median %.2f us (slowest rank), not in the times above\n",
           job.t == GS_DTYPE_INT32 ? "MPI_INT64_T" : "MPI_DOUBLE",
           job.op == GS_OP_SUM ? "MPI_SUM" : job.op == GS_OP_MIN ? "MPI_MIN" : "MPI_MAX",
           t_allreduce * 1e6);
    if (job.t == GS_DTYPE_INT32 || job.op != GS_OP_SUM)
      printf("# reference: %s %s = %s (CPU, %s), every kernel must match exactly, per rank and combined\n", tname, oname,
             ref, job.t == GS_DTYPE_INT32 ? "int64" : "exact min/max");
    else if (job.tol == 0)
      printf("# reference: %s sum = %s (CPU, compensated long double); tolerance 0: the inputs make double sums exact\n",
             tname, ref);
    else
      printf("# reference: %s sum = %s (CPU, compensated long double); tolerance %.3g = (n-1) 2^-53 sum|x|\n", tname, ref, job.tol);
    printf("# verification: %s\n", job.failed ? "FAILED" : "OK");
    fflush(stdout);
  }
  int status = job.failed ? GS_FAILED : GS_OK;
  if (gs_report_write(&job.rep, run) != GS_OK) status = GS_FAILED;
  GS_CHECK_MPI(&run->be.where, MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD));

  gs_report_free(&job.rep);
  be->free_host(be, job.h_in);
  be->event_destroy(be, job.ev[0]);
  be->event_destroy(be, job.ev[1]);
  be->queue_destroy(be, job.q);
  return status;
}
