/* gs_backend_cpu.c: the reference backend. A "device buffer" is host memory, a copy is memcpy,
 * a queue runs work at once and an event is a clock read, so the drivers' code (MPI and overlap
 * included) runs unchanged on a machine with no GPU. Compute uses OpenMP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <time.h>

#include "gs_backend.h"
#include "gs_reduce.h"

struct gs_event {
  double t;
};

static double gs_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int gs_cpu_device_count(const char **why) {
  if (why) *why = NULL;
  return 0;
}

/* The CPU model from /proc/cpuinfo, or "cpu". */
static void gs_cpu_model(char *out, size_t size) {
  snprintf(out, size, "cpu");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      colon += 2;
      colon[strcspn(colon, "\n")] = 0;
      snprintf(out, size, "%s", colon);
      break;
    }
  }
  fclose(f);
}

static void gs_cpu_device_open(struct gs_backend *be, int gpu, struct gs_device_info *info) {
  (void)gpu;
  memset(info, 0, sizeof *info);
  info->index = -1;
  be->where.gpu = -1;
  gs_cpu_model(info->name, sizeof info->name);
  info->mem_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
#ifdef _OPENMP
  info->sm_count = omp_get_max_threads();
#else
  info->sm_count = 1;
#endif
}

static void gs_cpu_versions(int *runtime, int *driver) { *runtime = *driver = 0; }

static void *gs_cpu_alloc(const struct gs_backend *be, size_t bytes) {
  void *p = NULL;
  /* 64-byte alignment: whole cache lines, and what vector code wants. */
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
    char why[64];
    snprintf(why, sizeof why, "out of memory for %zu bytes", bytes);
    GS_DIE(&be->where, "posix_memalign", why);
  }
  return p;
}

static void gs_cpu_free(const struct gs_backend *be, void *p) {
  (void)be;
  free(p);
}

static void gs_cpu_zero(const struct gs_backend *be, void *p, size_t bytes, gs_queue *q) {
  (void)be, (void)q;
  memset(p, 0, bytes);
}

static gs_queue *gs_cpu_queue_create(const struct gs_backend *be) {
  (void)be;
  /* Work runs at once, so a queue needs no state; any non-NULL token will do. */
  static char token;
  return (gs_queue *)&token;
}

static void gs_cpu_queue_nop(const struct gs_backend *be, gs_queue *q) { (void)be, (void)q; }
static void gs_cpu_queue_wait(const struct gs_backend *be, gs_queue *q, gs_event *e) { (void)be, (void)q, (void)e; }

static void gs_cpu_copy(const struct gs_backend *be, void *dst, const void *src, size_t bytes, gs_queue *q) {
  (void)be, (void)q;
  memcpy(dst, src, bytes);
}

static gs_gate *gs_cpu_gate_create(const struct gs_backend *be) { return (gs_gate *)gs_cpu_queue_create(be); }
static void gs_cpu_gate_destroy(const struct gs_backend *be, gs_gate *g) { (void)be, (void)g; }
static void gs_cpu_gate_close(const struct gs_backend *be, gs_gate *g, gs_queue *q) { (void)be, (void)g, (void)q; }
static void gs_cpu_gate_open(const struct gs_backend *be, gs_gate *g) { (void)be, (void)g; }

static gs_event *gs_cpu_event_create(const struct gs_backend *be) { return gs_cpu_alloc(be, sizeof(gs_event)); }
static void gs_cpu_event_destroy(const struct gs_backend *be, gs_event *e) { gs_cpu_free(be, e); }
static void gs_cpu_event_record(const struct gs_backend *be, gs_event *e, gs_queue *q) {
  (void)be, (void)q;
  e->t = gs_cpu_now();
}
static void gs_cpu_event_sync(const struct gs_backend *be, gs_event *e) { (void)be, (void)e; }
static double gs_cpu_event_seconds(const struct gs_backend *be, gs_event *a, gs_event *b) {
  (void)be;
  return b->t - a->t;
}

static int gs_cpu_reduce_has(int kernel) { return kernel == GS_RK_OMP; }

static size_t gs_cpu_reduce_workspace(const struct gs_backend *be, int kernel, int dtype, int op, uint64_t n,
                                      int block) {
  (void)be, (void)kernel, (void)dtype, (void)op, (void)n, (void)block;
  return 0;
}

/* One OpenMP loop per (type, op). Sums of ints are exact in int64 and float sums exact in
 * double on our inputs, so the combination order OpenMP picks cannot change the result.
 * (_Pragma needs the whole directive as one literal, hence the PRAGMA argument.) */
#define GS_CPU_REDUCE(T, ACC, FIELD, PRAGMA, INIT, STEP) \
  do {                                                   \
    const T *x = (const T *)in;                          \
    ACC acc = (INIT);                                    \
    _Pragma(PRAGMA) for (uint64_t i = 0; i < n; i++) STEP; \
    res.FIELD = acc;                                     \
  } while (0)

#define GS_CPU_REDUCE_OPS(T, ACC, FIELD)                                                                   \
  switch (op) {                                                                                            \
  case GS_OP_SUM:                                                                                          \
    GS_CPU_REDUCE(T, ACC, FIELD, "omp parallel for schedule(static) reduction(+:acc)", 0, acc += (ACC)x[i]); \
    break;                                                                                                 \
  case GS_OP_MIN:                                                                                          \
    GS_CPU_REDUCE(T, ACC, FIELD, "omp parallel for schedule(static) reduction(min:acc)", id.FIELD,           \
                  acc = (ACC)x[i] < acc ? (ACC)x[i] : acc);                                                \
    break;                                                                                                 \
  default:                                                                                                 \
    GS_CPU_REDUCE(T, ACC, FIELD, "omp parallel for schedule(static) reduction(max:acc)", id.FIELD,           \
                  acc = (ACC)x[i] > acc ? (ACC)x[i] : acc);                                                \
    break;                                                                                                 \
  }

static void gs_cpu_reduce(const struct gs_backend *be, int kernel, int dtype, int op, const void *in, uint64_t n,
                          void *ws, size_t ws_bytes, void *out, int block, gs_queue *q) {
  (void)be, (void)kernel, (void)ws, (void)ws_bytes, (void)block, (void)q;
  union gs_acc res, id = gs_reduce_identity(dtype, op);
  if (dtype == GS_DTYPE_INT32) GS_CPU_REDUCE_OPS(int32_t, int64_t, i)
  else if (dtype == GS_DTYPE_FLOAT) GS_CPU_REDUCE_OPS(float, double, d)
  else GS_CPU_REDUCE_OPS(double, double, d)
  memcpy(out, &res, sizeof res);
}

static int gs_cpu_nbody_has(int kernel) { return kernel == GS_NK_OMP; }

static size_t gs_cpu_nbody_workspace(const struct gs_backend *be, const struct gs_nbody_force_args *a) {
  (void)be, (void)a;
  return 0;
}

static void gs_cpu_nbody_forces(const struct gs_backend *be, const struct gs_nbody_force_args *a, gs_queue *q) {
  (void)be, (void)q;
  gs_nbody_cpu_forces(a);
}

static void gs_cpu_nbody_kick(const struct gs_backend *be, int prec, void *vel, const void *acc, uint64_t count,
                              double dt, gs_queue *q) {
  (void)be, (void)q;
  gs_nbody_cpu_kick(prec, vel, acc, count, dt);
}

static void gs_cpu_nbody_drift(const struct gs_backend *be, int prec, void *pos, const void *vel, uint64_t count,
                               double dt, gs_queue *q) {
  (void)be, (void)q;
  gs_nbody_cpu_drift(prec, pos, vel, count, dt);
}

static void gs_cpu_nbody_terms(const struct gs_backend *be, int prec, const void *pos, const void *vel,
                               const void *acc, uint64_t count, double *terms, gs_queue *q) {
  (void)be, (void)q;
  gs_nbody_cpu_terms(prec, pos, vel, acc, count, terms);
}

static const struct gs_backend gs_cpu_backend = {
    .name = "cpu",
    .device_count = gs_cpu_device_count,
    .device_open = gs_cpu_device_open,
    .versions = gs_cpu_versions,
    .alloc_device = gs_cpu_alloc,
    .free_device = gs_cpu_free,
    .alloc_host = gs_cpu_alloc,
    .free_host = gs_cpu_free,
    .zero_device = gs_cpu_zero,
    .queue_create = gs_cpu_queue_create,
    .queue_destroy = gs_cpu_queue_nop,
    .queue_sync = gs_cpu_queue_nop,
    .queue_wait = gs_cpu_queue_wait,
    .copy_h2d = gs_cpu_copy,
    .copy_d2h = gs_cpu_copy,
    .copy_d2d = gs_cpu_copy,
    .gate_create = gs_cpu_gate_create,
    .gate_destroy = gs_cpu_gate_destroy,
    .gate_close = gs_cpu_gate_close,
    .gate_open = gs_cpu_gate_open,
    .event_create = gs_cpu_event_create,
    .event_destroy = gs_cpu_event_destroy,
    .event_record = gs_cpu_event_record,
    .event_sync = gs_cpu_event_sync,
    .event_seconds = gs_cpu_event_seconds,
    .reduce_has = gs_cpu_reduce_has,
    .reduce_workspace = gs_cpu_reduce_workspace,
    .reduce = gs_cpu_reduce,
    .nbody_has = gs_cpu_nbody_has,
    .nbody_workspace = gs_cpu_nbody_workspace,
    .nbody_forces = gs_cpu_nbody_forces,
    .nbody_kick = gs_cpu_nbody_kick,
    .nbody_drift = gs_cpu_nbody_drift,
    .nbody_terms = gs_cpu_nbody_terms,
};

const struct gs_backend *gs_backend_cpu_get(void) { return &gs_cpu_backend; }
