/* gs_backend.h: the backend seam. Drivers own the algorithm (loops, MPI, overlap, timing,
 * verification); a backend owns memory and compute primitives. The CPU backend implements the
 * same primitives synchronously on host memory, so every driver runs in CI without a GPU.
 * Every primitive checks its own errors and aborts the job on failure (gs_error_die). */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../cuda/gs_cuda.h"
#include "gs_bind.h"
#include "gs_error.h"

/* What a rank computes on: a GPU, or the host's cores for the CPU backend. */
struct gs_device_info {
  int index;               /* CUDA device index, -1 on the CPU backend */
  char name[96];           /* "NVIDIA H200", or the CPU model */
  char pci[GS_PCI_MAX];    /* PCI bus id, "" on the CPU backend */
  double mem_bytes;        /* device (or host) memory */
  int sm_count;            /* multiprocessors (CPU: OpenMP threads) */
  int cc_major, cc_minor;  /* compute capability */
  double l2_bytes;         /* L2 cache size */
  double bw_theory;        /* bytes/s: 2 x memory clock x bus width (0 if unknown) */
};

/* An in-order work queue (a CUDA stream; nothing on the CPU, where work runs at once). */
typedef struct gs_queue gs_queue;
/* A gate: close it on a queue and the queue's later work waits until it is opened, so a timed
 * region measures the device's time, not the host's launch overhead. */
typedef struct gs_gate gs_gate;
/* A point in a queue, for timing and cross-queue waits (a CUDA event; a clock read on the CPU). */
typedef struct gs_event gs_event;

struct gs_backend {
  const char *name;      /* "cpu" or "cuda" */
  struct gs_where where; /* this rank, for error messages */

  /* Devices this process can see (CUDA: after CUDA_VISIBLE_DEVICES; 0 without a driver). When
   * the runtime could not count (no driver, a driver older than the runtime), *why (if why is
   * not NULL) gets its error text, else NULL: a broken GPU setup must not pass for "no GPU". */
  int (*device_count)(const char **why);
  /* Make device `gpu` current (-1: keep the runtime's default) and describe it. */
  void (*device_open)(struct gs_backend *be, int gpu, struct gs_device_info *info);
  /* Runtime and driver versions as 1000*major + 10*minor (0 if none). */
  void (*versions)(int *runtime, int *driver);

  /* Device memory, and page-locked host memory for fast asynchronous copies. */
  void *(*alloc_device)(const struct gs_backend *be, size_t bytes);
  void (*free_device)(const struct gs_backend *be, void *p);
  void *(*alloc_host)(const struct gs_backend *be, size_t bytes);
  void (*free_host)(const struct gs_backend *be, void *p);
  void (*zero_device)(const struct gs_backend *be, void *p, size_t bytes, gs_queue *q);

  /* Queues and asynchronous copies on them. */
  gs_queue *(*queue_create)(const struct gs_backend *be);
  void (*queue_destroy)(const struct gs_backend *be, gs_queue *q);
  void (*queue_sync)(const struct gs_backend *be, gs_queue *q);
  void (*queue_wait)(const struct gs_backend *be, gs_queue *q, gs_event *e); /* q waits for e */
  void (*copy_h2d)(const struct gs_backend *be, void *dst, const void *src, size_t bytes, gs_queue *q);
  void (*copy_d2h)(const struct gs_backend *be, void *dst, const void *src, size_t bytes, gs_queue *q);
  void (*copy_d2d)(const struct gs_backend *be, void *dst, const void *src, size_t bytes, gs_queue *q);

  /* Gates (the CPU backend runs work at once: no-ops there). */
  gs_gate *(*gate_create)(const struct gs_backend *be);
  void (*gate_destroy)(const struct gs_backend *be, gs_gate *g);
  void (*gate_close)(const struct gs_backend *be, gs_gate *g, gs_queue *q);
  void (*gate_open)(const struct gs_backend *be, gs_gate *g);

  /* Events. */
  gs_event *(*event_create)(const struct gs_backend *be);
  void (*event_destroy)(const struct gs_backend *be, gs_event *e);
  void (*event_record)(const struct gs_backend *be, gs_event *e, gs_queue *q);
  void (*event_sync)(const struct gs_backend *be, gs_event *e);
  double (*event_seconds)(const struct gs_backend *be, gs_event *start, gs_event *stop);

  /* Reduction (gs_reduce.c): kernel ids of enum gs_reduce_kernel, or GS_RK_OMP on the CPU. */
  int (*reduce_has)(int kernel); /* does this backend run that kernel? */
  size_t (*reduce_workspace)(const struct gs_backend *be, int kernel, int dtype, int op, uint64_t n, int block);
  void (*reduce)(const struct gs_backend *be, int kernel, int dtype, int op, const void *in, uint64_t n,
                 void *ws, size_t ws_bytes, void *out, int block, gs_queue *q);

  /* N-body (gs_nbody.c): kernel ids of enum gs_nbody_kernel, or GS_NK_OMP on the CPU. */
  int (*nbody_has)(int kernel);
  size_t (*nbody_workspace)(const struct gs_backend *be, const struct gs_nbody_force_args *a);
  void (*nbody_forces)(const struct gs_backend *be, const struct gs_nbody_force_args *a, gs_queue *q);
  void (*nbody_kick)(const struct gs_backend *be, int precision, void *vel, const void *acc, uint64_t count,
                     double dt, gs_queue *q);
  void (*nbody_drift)(const struct gs_backend *be, int precision, void *pos, const void *vel, uint64_t count,
                      double dt, gs_queue *q);
  /* Per-body diagnostic terms into terms[k * count + i], k = 0: m v^2 / 2, 1: m phi / 2,
   * 2..4: m v, 5..7: m x; the driver sums each with the reduction kernels. */
  void (*nbody_terms)(const struct gs_backend *be, int precision, const void *pos, const void *vel,
                      const void *acc, uint64_t count, double *terms, gs_queue *q);
};

#define GS_NK_OMP GS_NK_COUNT /* the CPU backend's OpenMP force loop */

/* The CPU backend's N-body primitives (gs_nbody_cpu.c). */
void gs_nbody_cpu_forces(const struct gs_nbody_force_args *a);
void gs_nbody_cpu_kick(int precision, void *vel, const void *acc, uint64_t count, double dt);
void gs_nbody_cpu_drift(int precision, void *pos, const void *vel, uint64_t count, double dt);
void gs_nbody_cpu_terms(int precision, const void *pos, const void *vel, const void *acc, uint64_t count, double *terms);

/* The CPU backend (always built). */
const struct gs_backend *gs_backend_cpu_get(void);
/* The CUDA backend, or NULL in a CPU-only build. */
const struct gs_backend *gs_backend_cuda_get(void);

/* Backend by name, "cpu" or "cuda" (NULL if not built). */
const struct gs_backend *gs_backend_find(const char *name);

#endif
