/* gs_backend_cpu.c: the reference backend's core. A "device buffer" is host memory, a copy is
 * memcpy, a queue runs work at once and an event is a clock read, so the drivers' code (MPI and
 * overlap included) runs unchanged on a machine with no GPU. Its workload primitives (OpenMP)
 * are in gs_backend_cpu_reduce.c, gs_backend_cpu_nbody.c, gs_backend_cpu_matmul.c and
 * gs_backend_cpu_tree.c (the Barnes-Hut tree); it has no device collectives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_backend_cpu.h"
#include "gs_stats.h"

struct gs_event {
  double t;
};

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

static gs_ctx *gs_cpu_open(struct gs_where *where, int gpu, struct gs_device_info *info) {
  (void)gpu;
  where->gpu = -1;
  gs_ctx *c = malloc(sizeof *c);
  if (!c) GS_DIE(where, "malloc", "out of memory");
  c->where = *where;
  memset(info, 0, sizeof *info);
  info->index = -1;
  gs_cpu_model(info->name, sizeof info->name);
  info->mem_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
#ifdef _OPENMP
  info->sm_count = omp_get_max_threads();
#else
  info->sm_count = 1;
#endif
  return c;
}

static void gs_cpu_close(gs_ctx *c) { free(c); }

static void gs_cpu_versions(int *runtime, int *driver) { *runtime = *driver = 0; }

static void *gs_cpu_alloc(gs_ctx *c, size_t bytes) {
  void *p = NULL;
  /* 64-byte alignment: whole cache lines, and what vector code wants. */
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
    char why[64];
    snprintf(why, sizeof why, "out of memory for %zu bytes", bytes);
    GS_DIE(&c->where, "posix_memalign", why);
  }
  return p;
}

static void gs_cpu_free(gs_ctx *c, void *p) {
  (void)c;
  free(p);
}

static void gs_cpu_zero(gs_ctx *c, void *p, size_t bytes, gs_queue *q) {
  (void)c, (void)q;
  memset(p, 0, bytes);
}

/* Work runs at once, so a queue or a gate needs no state; any non-NULL token will do. */
static char gs_cpu_token;

static gs_queue *gs_cpu_queue_create(gs_ctx *c) {
  (void)c;
  return (gs_queue *)&gs_cpu_token;
}

static void gs_cpu_queue_nop(gs_ctx *c, gs_queue *q) { (void)c, (void)q; }
static void gs_cpu_queue_wait(gs_ctx *c, gs_queue *q, gs_event *e) { (void)c, (void)q, (void)e; }

static void gs_cpu_copy(gs_ctx *c, void *dst, const void *src, size_t bytes, gs_queue *q) {
  (void)c, (void)q;
  memcpy(dst, src, bytes);
}

static gs_gate *gs_cpu_gate_create(gs_ctx *c) {
  (void)c;
  return (gs_gate *)&gs_cpu_token;
}
static void gs_cpu_gate_destroy(gs_ctx *c, gs_gate *g) { (void)c, (void)g; }
static void gs_cpu_gate_close(gs_ctx *c, gs_gate *g, gs_queue *q) { (void)c, (void)g, (void)q; }
static int gs_cpu_gate_open(gs_ctx *c, gs_gate *g) {
  (void)c, (void)g;
  return 0;
}

static gs_event *gs_cpu_event_create(gs_ctx *c) { return gs_cpu_alloc(c, sizeof(gs_event)); }
static void gs_cpu_event_destroy(gs_ctx *c, gs_event *e) { gs_cpu_free(c, e); }
static void gs_cpu_event_record(gs_ctx *c, gs_event *e, gs_queue *q) {
  (void)c, (void)q;
  e->t = gs_stats_now();
}
static void gs_cpu_event_sync(gs_ctx *c, gs_event *e) { (void)c, (void)e; }
static double gs_cpu_event_seconds(gs_ctx *c, gs_event *a, gs_event *b) {
  (void)c;
  return b->t - a->t;
}

const struct gs_backend gs_backend_cpu_ops = {
    .name = "cpu",
    .timing = "wall clock around each run",
    .caps = GS_CAP_HOST_MEMORY,
    .device_count = gs_cpu_device_count,
    .versions = gs_cpu_versions,
    .open = gs_cpu_open,
    .close = gs_cpu_close,
    .alloc_device = gs_cpu_alloc,
    .free_device = gs_cpu_free,
    .alloc_host = gs_cpu_alloc,
    .free_host = gs_cpu_free,
    .zero_device = gs_cpu_zero,
    .queue_create = gs_cpu_queue_create,
    .queue_create_urgent = gs_cpu_queue_create,
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
    .reduce = &gs_backend_cpu_reduce_ops,
    .nbody = &gs_backend_cpu_nbody_ops,
    .matmul = &gs_backend_cpu_matmul_ops,
    .tree = &gs_backend_cpu_tree_ops,
    .dtree = &gs_backend_cpu_dtree_ops,
    .fmm = &gs_backend_cpu_fmm_ops,
};
