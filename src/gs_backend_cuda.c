/* gs_backend_cuda.c: the CUDA backend, in C over the CUDA runtime API: device and pinned
 * buffers, streams, events, and the calls into the kernel launchers of cuda/. Every runtime call
 * and every launch is checked; a failure names rank, host, GPU, call and line, then aborts. */
#include <config.h>

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "../cuda/gs_cuda.h"
#include "gs_backend.h"
#include "gs_reduce.h"

#define GS_CHECK_CUDA(be, call)                                                              \
  do {                                                                                       \
    cudaError_t gs_e_ = (call);                                                              \
    if (gs_e_ != cudaSuccess) gs_error_die(&(be)->where, #call, cudaGetErrorString(gs_e_), __FILE__, __LINE__); \
  } while (0)

static int gs_cuda_device_count(const char **why) {
  int n = 0;
  /* No driver or no device is not an error here: the caller falls back or reports it, with
   * the runtime's reason, so a driver mismatch is told apart from a machine without a GPU. */
  cudaError_t e = cudaGetDeviceCount(&n);
  if (why) *why = e == cudaSuccess ? NULL : cudaGetErrorString(e);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

static void gs_cuda_device_open(struct gs_backend *be, int gpu, struct gs_device_info *info) {
  int dev = 0;
  if (gpu >= 0) GS_CHECK_CUDA(be, cudaSetDevice(gpu));
  GS_CHECK_CUDA(be, cudaGetDevice(&dev));
  be->where.gpu = dev;
  /* Create the context now, so no timed region pays for it. */
  GS_CHECK_CUDA(be, cudaFree(NULL));
  struct cudaDeviceProp p;
  GS_CHECK_CUDA(be, cudaGetDeviceProperties(&p, dev));
  memset(info, 0, sizeof *info);
  info->index = dev;
  snprintf(info->name, sizeof info->name, "%.95s", p.name);
  GS_CHECK_CUDA(be, cudaDeviceGetPCIBusId(info->pci, (int)sizeof info->pci, dev));
  info->mem_bytes = (double)p.totalGlobalMem;
  info->sm_count = p.multiProcessorCount;
  info->cc_major = p.major;
  info->cc_minor = p.minor;
  info->l2_bytes = (double)p.l2CacheSize;
  int clock_khz = 0, bus_bits = 0;
  GS_CHECK_CUDA(be, cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev));
  GS_CHECK_CUDA(be, cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
  /* Double data rate: two transfers per memory clock over the whole bus. */
  info->bw_theory = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0);
}

static void gs_cuda_versions(int *runtime, int *driver) {
  *runtime = *driver = 0;
  if (cudaRuntimeGetVersion(runtime) != cudaSuccess) *runtime = 0;
  if (cudaDriverGetVersion(driver) != cudaSuccess) *driver = 0;
  (void)cudaGetLastError();
}

static void *gs_cuda_alloc_device(const struct gs_backend *be, size_t bytes) {
  void *p = NULL;
  GS_CHECK_CUDA(be, cudaMalloc(&p, bytes ? bytes : 1));
  return p;
}

static void gs_cuda_free_device(const struct gs_backend *be, void *p) { GS_CHECK_CUDA(be, cudaFree(p)); }

static void *gs_cuda_alloc_host(const struct gs_backend *be, size_t bytes) {
  void *p = NULL;
  GS_CHECK_CUDA(be, cudaMallocHost(&p, bytes ? bytes : 1));
  return p;
}

static void gs_cuda_free_host(const struct gs_backend *be, void *p) { GS_CHECK_CUDA(be, cudaFreeHost(p)); }

static void gs_cuda_zero(const struct gs_backend *be, void *p, size_t bytes, gs_queue *q) {
  GS_CHECK_CUDA(be, cudaMemsetAsync(p, 0, bytes, (cudaStream_t)q));
}

static gs_queue *gs_cuda_queue_create(const struct gs_backend *be) {
  cudaStream_t s;
  /* Non-blocking: no implicit synchronisation with the legacy default stream. */
  GS_CHECK_CUDA(be, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return (gs_queue *)s;
}

static void gs_cuda_queue_destroy(const struct gs_backend *be, gs_queue *q) {
  GS_CHECK_CUDA(be, cudaStreamDestroy((cudaStream_t)q));
}

static void gs_cuda_queue_sync(const struct gs_backend *be, gs_queue *q) {
  GS_CHECK_CUDA(be, cudaStreamSynchronize((cudaStream_t)q));
}

static void gs_cuda_queue_wait(const struct gs_backend *be, gs_queue *q, gs_event *e) {
  GS_CHECK_CUDA(be, cudaStreamWaitEvent((cudaStream_t)q, (cudaEvent_t)e, 0));
}

static void gs_cuda_copy_h2d(const struct gs_backend *be, void *dst, const void *src, size_t bytes, gs_queue *q) {
  GS_CHECK_CUDA(be, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)q));
}

static void gs_cuda_copy_d2h(const struct gs_backend *be, void *dst, const void *src, size_t bytes, gs_queue *q) {
  GS_CHECK_CUDA(be, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)q));
}

static void gs_cuda_copy_d2d(const struct gs_backend *be, void *dst, const void *src, size_t bytes, gs_queue *q) {
  GS_CHECK_CUDA(be, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)q));
}

/* A gate is one int of mapped, pinned host memory: the host writes it, the spin kernel reads it. */
struct gs_gate {
  volatile int flag;
};

static gs_gate *gs_cuda_gate_create(const struct gs_backend *be) {
  void *p = NULL;
  GS_CHECK_CUDA(be, cudaHostAlloc(&p, sizeof(gs_gate), cudaHostAllocMapped));
  ((gs_gate *)p)->flag = 1;
  return p;
}

static void gs_cuda_gate_destroy(const struct gs_backend *be, gs_gate *g) { GS_CHECK_CUDA(be, cudaFreeHost(g)); }

static void gs_cuda_gate_close(const struct gs_backend *be, gs_gate *g, gs_queue *q) {
  void *d = NULL;
  g->flag = 0;
  __sync_synchronize();
  GS_CHECK_CUDA(be, cudaHostGetDevicePointer(&d, (void *)g, 0));
  GS_CHECK_CUDA(be, (cudaError_t)gs_cuda_gate_wait((const volatile int *)d, q));
}

static void gs_cuda_gate_open(const struct gs_backend *be, gs_gate *g) {
  (void)be;
  __sync_synchronize();
  g->flag = 1;
}

static gs_event *gs_cuda_event_create(const struct gs_backend *be) {
  cudaEvent_t e;
  GS_CHECK_CUDA(be, cudaEventCreate(&e));
  return (gs_event *)e;
}

static void gs_cuda_event_destroy(const struct gs_backend *be, gs_event *e) {
  GS_CHECK_CUDA(be, cudaEventDestroy((cudaEvent_t)e));
}

static void gs_cuda_event_record(const struct gs_backend *be, gs_event *e, gs_queue *q) {
  GS_CHECK_CUDA(be, cudaEventRecord((cudaEvent_t)e, (cudaStream_t)q));
}

static void gs_cuda_event_sync(const struct gs_backend *be, gs_event *e) {
  GS_CHECK_CUDA(be, cudaEventSynchronize((cudaEvent_t)e));
}

static double gs_cuda_event_seconds(const struct gs_backend *be, gs_event *a, gs_event *b) {
  float ms = 0;
  GS_CHECK_CUDA(be, cudaEventElapsedTime(&ms, (cudaEvent_t)a, (cudaEvent_t)b));
  return ms * 1e-3;
}

static int gs_cuda_reduce_has(int kernel) { return kernel >= GS_RK_INTERLEAVED && kernel < GS_RK_COUNT; }

static size_t gs_cuda_reduce_ws(const struct gs_backend *be, int kernel, int dtype, int op, uint64_t n, int block) {
  (void)be;
  return gs_cuda_reduce_workspace(kernel, dtype, op, n, block);
}

static void gs_cuda_reduce_run(const struct gs_backend *be, int kernel, int dtype, int op, const void *in,
                               uint64_t n, void *ws, size_t ws_bytes, void *out, int block, gs_queue *q) {
  GS_CHECK_CUDA(be, (cudaError_t)gs_cuda_reduce(kernel, dtype, op, in, n, ws, ws_bytes, out, block, q));
}

static int gs_cuda_nbody_has(int kernel) { return kernel >= GS_NK_GLOBAL && kernel < GS_NK_COUNT; }

static size_t gs_cuda_nbody_ws(const struct gs_backend *be, const struct gs_nbody_force_args *a) {
  (void)be;
  return gs_cuda_nbody_workspace(a);
}

static void gs_cuda_nbody_forces_run(const struct gs_backend *be, const struct gs_nbody_force_args *a, gs_queue *q) {
  GS_CHECK_CUDA(be, (cudaError_t)gs_cuda_nbody_forces(a, q));
}

static void gs_cuda_nbody_kick_run(const struct gs_backend *be, int prec, void *vel, const void *acc, uint64_t count,
                                   double dt, gs_queue *q) {
  GS_CHECK_CUDA(be, (cudaError_t)gs_cuda_nbody_kick(prec, vel, acc, count, dt, q));
}

static void gs_cuda_nbody_drift_run(const struct gs_backend *be, int prec, void *pos, const void *vel, uint64_t count,
                                    double dt, gs_queue *q) {
  GS_CHECK_CUDA(be, (cudaError_t)gs_cuda_nbody_drift(prec, pos, vel, count, dt, q));
}

static void gs_cuda_nbody_terms_run(const struct gs_backend *be, int prec, const void *pos, const void *vel,
                                    const void *acc, uint64_t count, double *terms, gs_queue *q) {
  GS_CHECK_CUDA(be, (cudaError_t)gs_cuda_nbody_terms(prec, pos, vel, acc, count, terms, q));
}

static const struct gs_backend gs_cuda_backend = {
    .name = "cuda",
    .device_count = gs_cuda_device_count,
    .device_open = gs_cuda_device_open,
    .versions = gs_cuda_versions,
    .alloc_device = gs_cuda_alloc_device,
    .free_device = gs_cuda_free_device,
    .alloc_host = gs_cuda_alloc_host,
    .free_host = gs_cuda_free_host,
    .zero_device = gs_cuda_zero,
    .queue_create = gs_cuda_queue_create,
    .queue_destroy = gs_cuda_queue_destroy,
    .queue_sync = gs_cuda_queue_sync,
    .queue_wait = gs_cuda_queue_wait,
    .copy_h2d = gs_cuda_copy_h2d,
    .copy_d2h = gs_cuda_copy_d2h,
    .copy_d2d = gs_cuda_copy_d2d,
    .gate_create = gs_cuda_gate_create,
    .gate_destroy = gs_cuda_gate_destroy,
    .gate_close = gs_cuda_gate_close,
    .gate_open = gs_cuda_gate_open,
    .event_create = gs_cuda_event_create,
    .event_destroy = gs_cuda_event_destroy,
    .event_record = gs_cuda_event_record,
    .event_sync = gs_cuda_event_sync,
    .event_seconds = gs_cuda_event_seconds,
    .reduce_has = gs_cuda_reduce_has,
    .reduce_workspace = gs_cuda_reduce_ws,
    .reduce = gs_cuda_reduce_run,
    .nbody_has = gs_cuda_nbody_has,
    .nbody_workspace = gs_cuda_nbody_ws,
    .nbody_forces = gs_cuda_nbody_forces_run,
    .nbody_kick = gs_cuda_nbody_kick_run,
    .nbody_drift = gs_cuda_nbody_drift_run,
    .nbody_terms = gs_cuda_nbody_terms_run,
};

const struct gs_backend *gs_backend_cuda_get(void) { return &gs_cuda_backend; }
