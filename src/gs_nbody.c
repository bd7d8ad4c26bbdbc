/* gs_nbody.c: `gpusim nbody`. Sets up the bodies (every rank holds every position, owns the
 * velocities of a contiguous slice of whole tiles), times and verifies each selected force
 * kernel on the first step's forces against a double-precision CPU direct sum, then runs the
 * kick-drift-kick leapfrog with the last kernel of the list (gs_nbody_step.c) and reports the
 * energy error and the per-step compute, exchange and overlap. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_checkpoint.h"
#include "gs_io.h"
#include "gs_nbody_job.h"
#include "gs_signal.h"
#include "gs_reduce.h"

static const struct {
  const char *name, *title;
} gs_nk[GS_NK_OMP + 1] = {
    [GS_NK_GLOBAL] = {"global", "1 thread/body, global memory, i != j"},
    [GS_NK_RSQRT] = {"rsqrt", "+ rsqrtf"},
    [GS_NK_SHARED] = {"shared", "+ shared-memory tiles"},
    [GS_NK_UNROLL] = {"unroll", "+ unroll 8"},
    [GS_NK_SOFTEN] = {"soften", "+ softening, no i != j branch"},
    [GS_NK_FMA] = {"fma", "+ FMA-friendly ordering"},
    [GS_NK_MULTI] = {"multi", "several bodies/thread, Hopper tiles"},
    [GS_NK_JSPLIT] = {"jsplit", "multi + j range split over blocks"},
    [GS_NK_OMP] = {"omp", "OpenMP direct sum on the host"},
};

#define GS_NBODY_FLOPS 20 /* per interaction, the seed's and the CUDA sample's count */

const char *gs_nbody_kernel_name(int k) { return k > 0 && k <= GS_NK_OMP ? gs_nk[k].name : "?"; }

int gs_nbody_kernel_mask(const char *list, unsigned *mask, struct gs_msg *msg) {
  *mask = 0;
  if (strcmp(list, "all") == 0) {
    for (int k = 1; k <= GS_NK_OMP; k++) *mask |= 1u << k;
    return GS_OK;
  }
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    int found = 0;
    if (len == 6 && strncmp(p, "ladder", 6) == 0) *mask |= 0x7Eu, found = 1; /* the seed's steps 1..6 */
    for (int k = 1; k <= GS_NK_OMP && !found; k++) {
      char id[4];
      snprintf(id, sizeof id, "%d", k);
      if ((strlen(gs_nk[k].name) == len && strncmp(p, gs_nk[k].name, len) == 0) ||
          (k < GS_NK_OMP && strlen(id) == len && strncmp(p, id, len) == 0))
        *mask |= 1u << k, found = 1;
    }
    if (!found)
      return gs_error_msg(msg, "--kernel: '%.*s' is not a force kernel (all, ladder, 1..8 or global, rsqrt, shared, "
                               "unroll, soften, fma, multi, jsplit, omp)", (int)len, p);
    p += len;
    if (*p == ',') p++;
  }
  return GS_OK;
}

struct gs_nbody_force_args gs_nbody_args(const struct gs_nbody_job *job, int kernel, uint64_t j_first, uint64_t j_count,
                                         int accumulate, int potential) {
  struct gs_nbody_force_args a = {.kernel = kernel, .precision = job->prec, .law = job->law, .pos = job->d_pos,
                                  .i_first = job->first, .i_count = job->count, .j_first = j_first,
                                  .j_count = j_count, .acc = job->d_acc, .accumulate = accumulate,
                                  .potential = potential, .G = job->G, .eps2 = job->eps2, .cut2 = job->cut2,
                                  .ws = job->ws, .ws_bytes = job->wsb, .stop = job->stop};
  return a;
}

void gs_nbody_forces(struct gs_nbody_job *job, struct gs_nbody_force_args *a, gs_queue *q) {
  const struct gs_backend *be = job->be;
  if (!a->i_count || !a->j_count || (a->stop && a->stop())) return; /* nothing, or abandoned */
  size_t need = be->nbody_workspace(be, a);
  if (need > job->wsb) {
    be->queue_sync(be, job->qc); /* the workspace is only ever used on the compute queue */
    if (job->ws) be->free_device(be, job->ws);
    job->ws = be->alloc_device(be, need);
    be->zero_device(be, job->ws, need, job->qc);
    job->wsb = need;
  }
  a->ws = job->ws;
  a->ws_bytes = job->wsb;
  be->nbody_forces(be, a, q);
}

/* Bodies from --ic, the same on every rank. */
static int gs_nbody_bodies(struct gs_nbody_job *job, struct gs_bodies *b, struct gs_msg *msg) {
  const char *ic = job->o->ic;
  int status = GS_OK;
  job->law = GS_LAW_PLUMMER;
  job->G = 1.0;
  job->eps2 = job->o->eps * job->o->eps;
  snprintf(job->ic_name, sizeof job->ic_name, "%.63s", ic);
  if (strcmp(ic, "plummer") == 0 || strcmp(ic, "disk") == 0 || strcmp(ic, "uniform") == 0) {
    if (gs_ic_alloc(b, job->o->n) != 0) GS_DIE(&job->be->where, "gs_ic_alloc", "out of memory for the bodies");
    if (ic[0] == 'p') gs_ic_plummer(b, job->o->seed);
    else if (ic[0] == 'u') gs_ic_uniform(b, job->o->seed);
    else {
      gs_ic_disk(b, job->o->seed);
      /* The seed 003 model: G m = 10 with unit masses, no force closer than 0.01. */
      job->law = GS_LAW_CUTOFF;
      job->G = 10.0;
      job->eps2 = 0.0;
      job->cut2 = 0.01 * 0.01;
    }
  } else {
    status = gs_ic_read(ic, b, msg);
    snprintf(job->ic_name, sizeof job->ic_name, "file");
  }
  return gs_error_agree(MPI_COMM_WORLD, &job->be->where, status, msg);
}

/* Sizes checked before anything is allocated for them (collective: the lowest failing rank's
 * message wins). The position all-gather counts bodies in MPI ints; each rank holds every
 * position (on the host and the device), its slice's velocities, accelerations and energy
 * terms, and, while initial conditions are made, all bodies in double. The CPU backend's device
 * is host memory, shared by the node's ranks. */
static int gs_nbody_check_size(const struct gs_nbody_job *job, uint64_t n, struct gs_msg *msg) {
  const struct gs_run *run = job->run;
  uint64_t npad = (n + GS_NBODY_TILE - 1) / GS_NBODY_TILE * GS_NBODY_TILE;
  int cpu = run->dev.index < 0, status = GS_OK;
  double esz = (double)job->esz, slice = (double)npad / run->size + GS_NBODY_TILE;
  double need = (double)npad * esz * (cpu ? 2 : 1) + slice * (3 * esz + 64) + (cpu ? 56.0 * (double)n : 0);
  if (npad > (uint64_t)INT_MAX)
    status = gs_error_msg(msg, "%llu bodies: more than the %d that MPI's int counts allow", (unsigned long long)n,
                          INT_MAX / GS_NBODY_TILE * GS_NBODY_TILE);
  else if (run->dev.mem_bytes > 0 && need * (cpu ? run->local_size : 1) > run->dev.mem_bytes)
    status = gs_error_msg(msg, "%llu bodies: %.3g GB per rank (%s precision) does not fit in the %.3g GB of memory of "
                          "rank %d's %s%s", (unsigned long long)n, need / 1e9, job->prec ? "double" : "single",
                          run->dev.mem_bytes / 1e9, run->rank, cpu ? "host" : "GPU",
                          cpu && run->local_size > 1 ? ", shared by the node's ranks" : "");
  return gs_error_agree(MPI_COMM_WORLD, &run->be.where, status, msg);
}

/* Slices of whole tiles: sizes differ by at most one tile; the padding sits at the end. */
static void gs_nbody_decompose(struct gs_nbody_job *job) {
  int P = job->run->size;
  uint64_t tiles = (job->n + GS_NBODY_TILE - 1) / GS_NBODY_TILE, base = tiles / P, extra = tiles % P;
  job->npad = tiles * GS_NBODY_TILE;
  job->counts = malloc(sizeof(int) * P);
  job->displs = malloc(sizeof(int) * P);
  if (!job->counts || !job->displs) GS_DIE(&job->be->where, "malloc", "out of memory");
  for (int r = 0; r < P; r++) {
    uint64_t t0 = r * base + ((uint64_t)r < extra ? (uint64_t)r : extra), nt = base + ((uint64_t)r < extra);
    job->displs[r] = (int)(t0 * GS_NBODY_TILE);
    job->counts[r] = (int)(nt * GS_NBODY_TILE);
  }
  job->first = (uint64_t)job->displs[job->run->rank];
  job->count = (uint64_t)job->counts[job->run->rank];
  MPI_Type_contiguous((int)job->esz, MPI_BYTE, &job->body_type);
  MPI_Type_commit(&job->body_type);
}

/* Position (x, y, z, m) of body i from the packed host array, in double. */
static void gs_nbody_get(const struct gs_nbody_job *job, const void *pos, uint64_t i, double q[4]) {
  for (int c = 0; c < 4; c++)
    q[c] = job->prec ? ((const double *)pos)[4 * i + c] : ((const float *)pos)[4 * i + c];
}

/* The reference for the first step's forces: a double-precision direct sum on the CPU, for up
 * to 1024 bodies spread over all ranks; ref[5k..5k+4] = ax, ay, az, phi, and the sum of the
 * force terms' magnitudes (the error scale, free of cancellation). */
static int gs_nbody_reference(const struct gs_nbody_job *job, uint64_t **idx, double **ref) {
  uint64_t S = job->n < 1024 ? job->n : 1024;
  int local = 0;
  for (uint64_t k = 0; k < S; k++) {
    uint64_t i = k * job->n / S;
    local += i >= job->first && i < job->first + job->count;
  }
  *idx = malloc(sizeof **idx * (local ? local : 1));
  *ref = calloc((size_t)(local ? local : 1) * 5, sizeof **ref);
  if (!*idx || !*ref) GS_DIE(&job->be->where, "malloc", "out of memory");
  int m = 0;
  for (uint64_t k = 0; k < S; k++) {
    uint64_t i = k * job->n / S;
    if (i >= job->first && i < job->first + job->count) (*idx)[m++] = i;
  }
#pragma omp parallel for schedule(dynamic)
  for (int s = 0; s < local; s++) {
    uint64_t i = (*idx)[s];
    double qi[4], a[5] = {0};
    gs_nbody_get(job, job->h_pos, i, qi);
    for (uint64_t j = 0; j < job->n; j++) {
      double qj[4];
      gs_nbody_get(job, job->h_pos, j, qj);
      double dx = qj[0] - qi[0], dy = qj[1] - qi[1], dz = qj[2] - qi[2], r2 = dx * dx + dy * dy + dz * dz;
      if (job->law == GS_LAW_CUTOFF ? r2 < job->cut2 : j == i) continue;
      if (job->law == GS_LAW_PLUMMER) r2 += job->eps2;
      double inv = 1.0 / sqrt(r2), s3 = job->G * qj[3] * inv * inv * inv;
      a[0] += dx * s3, a[1] += dy * s3, a[2] += dz * s3;
      a[3] -= job->G * qj[3] * inv;
      a[4] += sqrt(dx * dx + dy * dy + dz * dz) * s3;
    }
    memcpy(*ref + 5 * s, a, sizeof a);
  }
  return local;
}

/* Largest error of the device's forces (with potential) on the sample bodies, over all ranks. */
static double gs_nbody_check(struct gs_nbody_job *job, int kernel, const uint64_t *idx, const double *ref, int nref,
                             void *h_acc) {
  const struct gs_backend *be = job->be;
  struct gs_nbody_force_args a = gs_nbody_args(job, kernel, 0, job->npad, 0, 1);
  gs_nbody_forces(job, &a, job->qc);
  if (a.i_count) be->copy_d2h(be, h_acc, job->d_acc, job->count * job->esz, job->qc);
  be->queue_sync(be, job->qc);
  double worst = 0;
  for (int s = 0; s < nref; s++) {
    double g[4];
    gs_nbody_get(job, h_acc, idx[s] - job->first, g);
    const double *r = ref + 5 * s;
    double da = sqrt((g[0] - r[0]) * (g[0] - r[0]) + (g[1] - r[1]) * (g[1] - r[1]) + (g[2] - r[2]) * (g[2] - r[2]));
    double ea = r[4] > 0 ? da / r[4] : da, ep = r[3] != 0 ? fabs(g[3] - r[3]) / fabs(r[3]) : fabs(g[3]);
    double e = ea > ep ? ea : ep;
    if (!(e <= worst)) worst = e; /* NaN propagates as a failure */
  }
  double all = worst;
  GS_CHECK_MPI(&be->where, MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return isnan(worst) ? NAN : all;
}

/* Median time of one force evaluation (this rank's slice from all bodies), device time. */
static struct gs_stats gs_nbody_time_kernel(struct gs_nbody_job *job, int kernel) {
  const struct gs_backend *be = job->be;
  struct gs_nbody_force_args a = gs_nbody_args(job, kernel, 0, job->npad, 0, 0);
  int iters = job->o->iters;
  double *t = malloc(sizeof *t * (size_t)iters);
  if (!t) GS_DIE(&be->where, "malloc", "out of memory");
  /* Warm-up outside the gate: it may grow the workspace, which synchronises the queue. */
  gs_nbody_forces(job, &a, job->qc);
  for (int i = 0; i < iters; i++) {
    be->gate_close(be, job->gate, job->qc);
    be->event_record(be, job->ev[0], job->qc);
    gs_nbody_forces(job, &a, job->qc);
    be->event_record(be, job->ev[1], job->qc);
    be->gate_open(be, job->gate);
    be->event_sync(be, job->ev[1]);
    t[i] = be->event_seconds(be, job->ev[0], job->ev[1]);
  }
  struct gs_stats s = gs_stats_of(t, iters);
  free(t);
  return s;
}

/* Buffers and queues. */
static void gs_nbody_alloc(struct gs_nbody_job *job) {
  const struct gs_backend *be = job->be;
  size_t slice = (job->count ? job->count : 1) * job->esz;
  job->h_pos = be->alloc_host(be, job->npad * job->esz);
  job->qc = be->queue_create(be);
  job->qx = be->queue_create(be);
  int nev = 2 * job->run->size + 2;
  job->ev = malloc(sizeof *job->ev * (size_t)nev);
  if (!job->ev) GS_DIE(&be->where, "malloc", "out of memory");
  for (int e = 0; e < nev; e++) job->ev[e] = be->event_create(be);
  job->gate = be->gate_create(be);
  job->d_pos = be->alloc_device(be, job->npad * job->esz);
  job->d_vel = be->alloc_device(be, slice);
  job->d_acc = be->alloc_device(be, slice);
  job->d_acc2 = be->alloc_device(be, slice);
  job->d_terms = be->alloc_device(be, 8 * (job->count ? job->count : 1) * sizeof(double));
  job->d_sums = be->alloc_device(be, 8 * sizeof(union gs_acc));
  job->rkernel = be->reduce_has(GS_RK_ONEPASS) ? GS_RK_ONEPASS : GS_RK_OMP;
  job->rwsb = be->reduce_workspace(be, job->rkernel, GS_DTYPE_DOUBLE, GS_OP_SUM, job->count ? job->count : 1, 256);
  job->rws = job->rwsb ? be->alloc_device(be, job->rwsb) : NULL;
  if (job->rws) be->zero_device(be, job->rws, job->rwsb, job->qc);
  /* The state at the start of each step (a device copy): a stop request may abandon a step. */
  job->d_pos0 = be->alloc_device(be, job->npad * job->esz);
  job->d_vel0 = be->alloc_device(be, slice);
  job->d_acc0 = be->alloc_device(be, slice);
}

/* Fresh bodies into the packed (x, y, z, m) / (vx, vy, vz, 0) layout, and up to the device. */
static void gs_nbody_load_bodies(struct gs_nbody_job *job, const struct gs_bodies *b) {
  const struct gs_backend *be = job->be;
  memset(job->h_pos, 0, job->npad * job->esz);
  void *h_vel = calloc(job->count ? job->count : 1, job->esz);
  if (!h_vel) GS_DIE(&be->where, "calloc", "out of memory");
  for (uint64_t i = 0; i < job->n; i++) {
    double q[4] = {b->x[i], b->y[i], b->z[i], b->m[i]}, v[4] = {b->vx[i], b->vy[i], b->vz[i], 0};
    int mine = i >= job->first && i < job->first + job->count;
    for (int c = 0; c < 4; c++) {
      if (job->prec) ((double *)job->h_pos)[4 * i + c] = q[c];
      else ((float *)job->h_pos)[4 * i + c] = (float)q[c];
      if (mine && job->prec) ((double *)h_vel)[4 * (i - job->first) + c] = v[c];
      else if (mine) ((float *)h_vel)[4 * (i - job->first) + c] = (float)v[c];
    }
  }
  be->copy_h2d(be, job->d_pos, job->h_pos, job->npad * job->esz, job->qc);
  be->copy_h2d(be, job->d_vel, h_vel, job->count * job->esz, job->qc);
  be->queue_sync(be, job->qc);
  free(h_vel);
}

/* A checkpoint's state (on rank 0: pos | vel | acc, npad bodies each) to every rank: positions
 * to all, velocities and accelerations to their owners. Leaves this rank's accelerations in
 * acc_slice (malloc'd) for after the kernel table, which overwrites d_acc. */
static void gs_nbody_load_checkpoint(struct gs_nbody_job *job, const char *payload, void **acc_slice) {
  const struct gs_backend *be = job->be;
  size_t part = job->npad * job->esz, mine = (job->count ? job->count : 1) * job->esz;
  if (job->run->rank == 0) memcpy(job->h_pos, payload, part);
  GS_CHECK_MPI(&be->where, MPI_Bcast(job->h_pos, (int)job->npad, job->body_type, 0, MPI_COMM_WORLD));
  void *vel = malloc(mine);
  *acc_slice = malloc(mine);
  if (!vel || !*acc_slice) GS_DIE(&be->where, "malloc", "out of memory");
  GS_CHECK_MPI(&be->where, MPI_Scatterv(payload ? payload + part : NULL, job->counts, job->displs, job->body_type, vel,
                                        (int)job->count, job->body_type, 0, MPI_COMM_WORLD));
  GS_CHECK_MPI(&be->where, MPI_Scatterv(payload ? payload + 2 * part : NULL, job->counts, job->displs, job->body_type,
                                        *acc_slice, (int)job->count, job->body_type, 0, MPI_COMM_WORLD));
  be->copy_h2d(be, job->d_pos, job->h_pos, part, job->qc);
  be->copy_h2d(be, job->d_vel, vel, job->count * job->esz, job->qc);
  be->queue_sync(be, job->qc);
  free(vel);
}

static void gs_nbody_teardown(struct gs_nbody_job *job) {
  const struct gs_backend *be = job->be;
  void *dev[] = {job->d_pos, job->d_vel, job->d_acc, job->d_acc2, job->d_terms, job->d_sums, job->ws, job->rws,
                 job->d_pos0, job->d_vel0, job->d_acc0};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
    if (dev[i]) be->free_device(be, dev[i]);
  for (int e = 0; e < 2 * job->run->size + 2; e++) be->event_destroy(be, job->ev[e]);
  be->gate_destroy(be, job->gate);
  be->queue_destroy(be, job->qc);
  be->queue_destroy(be, job->qx);
  be->free_host(be, job->h_pos);
  MPI_Type_free(&job->body_type);
  free(job->ev);
  free(job->counts);
  free(job->displs);
  gs_report_free(&job->rep);
}

static void gs_nbody_params(const struct gs_nbody_job *job, char *out, size_t size, const char *extra) {
  snprintf(out, size, "ic=%s;precision=%s;overlap=%s;steps=%d;dt=%g;eps=%g;%s", job->ic_name,
           job->prec ? "double" : "single", job->o->overlap ? "on" : "off", job->o->steps, job->o->dt, job->o->eps, extra);
}

/* Time and verify every selected kernel on the initial positions; the table of the seed 004 ladder. */
static void gs_nbody_ladder(struct gs_nbody_job *job, unsigned mask, double tol) {
  struct gs_run *run = job->run;
  uint64_t *idx;
  double *ref;
  int nref = gs_nbody_reference(job, &idx, &ref);
  void *h_acc = malloc((job->count ? job->count : 1) * job->esz);
  if (!h_acc) GS_DIE(&job->be->where, "malloc", "out of memory");
  if (run->rank == 0)
    printf("%-8s %-36s %10s %14s %9s %6s %7s %10s  %s\n", "kernel", "what", "ms", "interactions/s", "GFLOP/s", "step",
           "cum", "max_err", "check");
  double prev = 0, first = 0, pairs = (double)job->n * (double)job->n;
  for (int k = 1; k <= GS_NK_OMP; k++) {
    if (!(mask & (1u << k))) continue;
    double err = gs_nbody_check(job, k, idx, ref, nref, h_acc);
    int ok = err <= tol;
    if (!ok) job->failed = 1;
    struct gs_stats slow = gs_stats_slowest(&job->be->where, gs_nbody_time_kernel(job, k), NULL);
    if (run->rank != 0) continue;
    double t = slow.median, rate = pairs / t;
    if (first == 0) first = t;
    char step[16] = "", cum[16] = "";
    if (prev > 0) snprintf(step, sizeof step, "%.2fx", prev / t), snprintf(cum, sizeof cum, "%.2fx", first / t);
    prev = t;
    printf("%-8s %-36s %10.3f %14.4e %9.1f %6s %7s %10.2e  %s\n", gs_nk[k].name, gs_nk[k].title, t * 1e3, rate,
           rate * GS_NBODY_FLOPS / 1e9, step, cum, err, ok ? "OK" : "FAILED");
    struct gs_row row = {.workload = "nbody", .rank = -1, .problem_size = job->n, .iterations = job->o->iters,
                         .t_min = slow.min, .t_median = slow.median, .t_max = slow.max, .metric = "interactions",
                         .value = rate, .unit = "1/s", .efficiency = -1};
    snprintf(row.kernel, sizeof row.kernel, "%s", gs_nk[k].name);
    char extra[96];
    snprintf(extra, sizeof extra, "phase=forces;max_err=%.3g;check=%s", err, ok ? "OK" : "FAILED");
    gs_nbody_params(job, row.params, sizeof row.params, extra);
    gs_report_add(&job->rep, &row);
  }
  fflush(stdout);
  free(h_acc);
  free(idx);
  free(ref);
}

/* Selected kernels that this backend runs; GS_USAGE if the user named one it cannot. */
static int gs_nbody_kernels(struct gs_nbody_job *job, unsigned *mask, struct gs_msg *msg) {
  unsigned asked;
  gs_nbody_kernel_mask(job->o->kernels, &asked, msg);
  *mask = 0;
  for (int k = 1; k <= GS_NK_OMP; k++)
    if (asked & (1u << k)) {
      if (job->be->nbody_has(k)) *mask |= 1u << k, job->kernel = k;
      else if (strcmp(job->o->kernels, "all") != 0)
        return gs_error_msg(msg, "--kernel %s does not run on the %s backend (its kernels: %s)", gs_nk[k].name,
                            job->be->name, strcmp(job->be->name, "cpu") == 0 ? "omp" : "1..8");
    }
  return GS_OK;
}

int gs_nbody_main(struct gs_run *run) {
  struct gs_nbody_job job;
  memset(&job, 0, sizeof job);
  job.t_start = MPI_Wtime();
  job.run = run;
  struct gs_nbody_opts o = run->opt->nbody; /* a restart fills in the checkpoint's values */
  job.o = &o;
  job.be = &run->be;
  job.prec = o.precision;
  job.esz = job.prec ? 32 : 16;
  gs_signal_install();
  struct gs_msg msg;
  unsigned mask;
  if (gs_nbody_kernels(&job, &mask, &msg) != GS_OK) {
    gs_error_report(run->rank, &msg);
    return GS_USAGE;
  }
  struct gs_bodies b = {0};
  struct gs_ckpt_header ck;
  void *payload = NULL, *acc_slice = NULL;
  /* Sizes first (a file's or a checkpoint's count is known only once read), then the output
   * directory is made and checked before any work, so no step is lost to it. */
  int made = !o.restart[0] && (strcmp(o.ic, "plummer") == 0 || strcmp(o.ic, "disk") == 0 || strcmp(o.ic, "uniform") == 0);
  int status = made ? gs_nbody_check_size(&job, o.n, &msg) : GS_OK;
  if (status == GS_OK) status = o.restart[0] ? gs_nbody_restart(&job, &ck, &payload, &msg) : gs_nbody_bodies(&job, &b, &msg);
  if (status == GS_OK && o.restart[0]) gs_nbody_adopt(&job, &ck, &o);
  job.n = o.restart[0] ? job.n : b.n;
  if (status == GS_OK) status = gs_nbody_check_size(&job, job.n, &msg);
  if (status == GS_OK) status = gs_nbody_output_prepare(&job, &msg);
  if (status != GS_OK) {
    gs_error_report(run->rank, &msg);
    gs_ic_free(&b);
    free(payload);
    return GS_USAGE;
  }
  gs_nbody_decompose(&job);
  gs_report_init(&job.rep, run);
  struct gs_rank_info *all = run->rank == 0 ? calloc((size_t)run->size, sizeof *all) : NULL;
  if (run->rank == 0 && !all) GS_DIE(&job.be->where, "calloc", "out of memory");
  gs_mpi_gather_ranks(run, all);
  gs_nbody_alloc(&job);
  if (o.restart[0]) gs_nbody_load_checkpoint(&job, payload, &acc_slice);
  else gs_nbody_load_bodies(&job, &b);
  free(payload);
  gs_ic_free(&b);

  /* Single precision: rsqrtf and float sums; two-level sums keep the error near sqrt(N) ulps. */
  double u = job.prec ? ldexp(1.0, -53) : ldexp(1.0, -24), tol = 4.0 * u * sqrt((double)job.n);
  if (tol < (job.prec ? 1e-12 : 1e-5)) tol = job.prec ? 1e-12 : 1e-5;
  if (run->rank == 0) {
    gs_report_header(stdout, run, &job.rep, all);
    printf("# nbody: %s, N = %llu (padded to %llu in tiles of %d), %s precision, steps %ld..%d of dt = %g, overlap %s\n",
           job.ic_name, (unsigned long long)job.n, (unsigned long long)job.npad, GS_NBODY_TILE,
           job.prec ? "double" : "single", job.step0, o.steps, o.dt, o.overlap ? "on" : "off");
    if (o.restart[0])
      printf("# restart: from %s at step %ld (written by %d rank(s)%s)\n", o.restart, job.step0, ck.ranks,
             ck.ranks == run->size ? "" : "; with another rank count the forces sum in another order: same state "
                                          "only within round-off");
    if (job.law == GS_LAW_PLUMMER)
      printf("# force: G = %g, Plummer softening eps = %g; kick-drift-kick leapfrog\n", job.G, o.eps);
    else
      printf("# force: G m = %g (unit masses), no force closer than %g (the seed 003 model); kick-drift-kick leapfrog\n",
             job.G, sqrt(job.cut2));
    printf("# check: first-step forces of up to 1024 bodies against a double-precision CPU direct sum; error = "
           "max(|a - a_ref| / sum_j |G m_j r_ij| / r_ij^3, |phi - phi_ref| / |phi_ref|); tolerance %.2e\n", tol);
    printf("# rates: N^2 interactions per force evaluation, %d flops each (the seed's count, for both precisions)%s\n",
           GS_NBODY_FLOPS, run->dev.index >= 0 ? "; device time (gated CUDA events), median" : "; wall time, median");
    if (o.snapshot_every > 0 || o.checkpoint_every > 0 || o.checkpoint_interval > 0 || o.walltime_s > 0)
      printf("# output: %s/ (snapshots: %s)\n", o.output, gs_io_format());
    fflush(stdout);
  }
  free(all);

  gs_nbody_ladder(&job, mask, tol);

  /* The simulation, with the last kernel of the list. */
  struct gs_diag d0;
  if (o.restart[0]) {
    /* The checkpoint's forces, bit for bit: the first half-kick must not see recomputed ones. */
    job.be->copy_h2d(job.be, job.d_acc, acc_slice, job.count * job.esz, job.qc);
    job.be->queue_sync(job.be, job.qc);
    d0 = gs_nbody_diagnose(&job, 1);
  } else {
    struct gs_nbody_force_args a = gs_nbody_args(&job, job.kernel, 0, job.npad, 0, 1);
    gs_nbody_forces(&job, &a, job.qc);
    job.be->queue_sync(job.be, job.qc);
    d0 = gs_nbody_diagnose(&job, 0);
    job.e0 = d0.energy;
    if (o.snapshot_every > 0 && gs_nbody_snapshot(&job, 0, 0) != GS_OK) job.failed = job.write_failed = 1;
  }
  free(acc_slice);
  job.de0 = gs_nbody_rel_de(&job, d0.energy);
  if (run->rank == 0) printf("# simulation with kernel %s\n", gs_nk[job.kernel].name);
  gs_nbody_print_diag_header(&job, job.step0, &d0);
  long remaining = o.steps - job.step0;
  struct gs_step_times *times = calloc((size_t)(remaining > 0 ? remaining : 1), sizeof *times);
  if (!times) GS_DIE(&job.be->where, "calloc", "out of memory");
  long last = gs_nbody_run_steps(&job, times);
  int steps = (int)(last - job.step0);

  if (steps > 0) {
    double *t[4];
    for (int c = 0; c < 4; c++) {
      t[c] = malloc(sizeof(double) * (size_t)steps);
      if (!t[c]) GS_DIE(&job.be->where, "malloc", "out of memory");
    }
    for (int s = 0; s < steps; s++)
      t[0][s] = times[s].total, t[1][s] = times[s].forces, t[2][s] = times[s].exchange, t[3][s] = times[s].hidden;
    struct gs_stats st[4];
    for (int c = 0; c < 4; c++) st[c] = gs_stats_slowest(&job.be->where, gs_stats_of(t[c], steps), NULL);
    if (run->rank == 0) {
      double rate = (double)job.n * (double)job.n / st[0].median;
      char hidden[64];
      /* The CPU backend runs every piece at once, so its "exchange" includes the own slice's
       * forces and nothing can overlap: no hidden fraction to speak of. */
      if (run->dev.index >= 0) snprintf(hidden, sizeof hidden, "%.0f%% of the exchange hidden", 100 * st[3].median);
      else snprintf(hidden, sizeof hidden, "no overlap on the CPU backend");
      printf("# per step (median of %d, slowest rank): total %.3f ms, forces %.3f ms, exchange %.3f ms, %s; "
             "%.4e interactions/s, %.1f GFLOP/s\n",
             steps, st[0].median * 1e3, st[1].median * 1e3, st[2].median * 1e3, hidden, rate, rate * GS_NBODY_FLOPS / 1e9);
      struct gs_row row = {.workload = "nbody", .rank = -1, .problem_size = job.n, .iterations = steps,
                           .t_min = st[0].min, .t_median = st[0].median, .t_max = st[0].max,
                           .metric = "interactions", .value = rate, .unit = "1/s", .efficiency = -1};
      snprintf(row.kernel, sizeof row.kernel, "%s", gs_nk[job.kernel].name);
      char extra[128];
      snprintf(extra, sizeof extra, "phase=step;forces_s=%.6g;exchange_s=%.6g;hidden=%.3f", st[1].median,
               st[2].median, st[3].median);
      gs_nbody_params(&job, row.params, sizeof row.params, extra);
      gs_report_add(&job.rep, &row);
    }
    for (int c = 0; c < 4; c++) free(t[c]);
  }
  free(times);
  uint64_t hash = gs_nbody_state_hash(&job);
  int failed = job.failed, any = 0;
  GS_CHECK_MPI(&job.be->where, MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (run->rank == 0) {
    printf("# final state: step %ld, t = %.17g, positions and velocities FNV-1a 64 = %016llx\n", last, last * o.dt,
           (unsigned long long)hash);
    /* Energy conservation is the integration's accuracy at this dt, not a malfunction: reported
     * apart from the force verification, and a drift past the tolerance is a warning. */
    if (job.de_last < 0)
      printf("# energy: |dE/E0| undefined (E0 = 0: one body or no mass): no verdict\n");
    else
      printf("# energy: |dE/E0| = %.3e at step %ld (tolerance %.0e): %s\n", job.de_last, job.de_step,
             GS_NBODY_ENERGY_TOL, job.de_last <= GS_NBODY_ENERGY_TOL ? "OK" : "DRIFT (a warning; see README, nbody)");
    printf("# verification: %s\n", any ? "FAILED" : "OK");
    fflush(stdout);
  }
  status = any ? GS_FAILED : GS_OK;
  if (gs_report_write(&job.rep, run) != GS_OK) status = GS_FAILED;
  GS_CHECK_MPI(&job.be->where, MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD));
  gs_nbody_teardown(&job);
  return status;
}
