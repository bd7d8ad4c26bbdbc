/* gs_backend_cuda.c: the CUDA backend's core, in C over the CUDA runtime API: device and pinned
 * buffers, streams, events and gates. Its workload primitives call the launchers of cuda/ from
 * gs_backend_cuda_reduce.c, gs_backend_cuda_nbody.c, gs_backend_cuda_matmul.c and
 * gs_backend_cuda_tree.c; its device collectives (NCCL) are gs_backend_cuda_coll.c. Every
 * runtime call and every launch is checked; a failure names rank, host, GPU, call and line, then
 * aborts. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend_cuda.h"

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

/* Dense peaks, TFLOP/s: FP32, FP64 (tensor), TF32 (tensor), from NVIDIA's H100 and H200 datasheets,
 * known by compute capability and multiprocessor count rather than by name: 9.0 with 132 SMs is
 * an H100 SXM, H100 NVL or H200 (GH200 too), with 114 an H100 PCIe. */
static const struct {
  int cc_major, cc_minor, sm_count;
  double fp32, fp64, tf32;
} gs_cuda_peaks[] = {
    {9, 0, 132, 67.0, 67.0, 494.7},
    {9, 0, 114, 51.2, 51.2, 378.0},
};

static void gs_cuda_describe_peaks(struct gs_device_info *info) {
  for (size_t i = 0; i < sizeof gs_cuda_peaks / sizeof gs_cuda_peaks[0]; i++) {
    if (info->cc_major != gs_cuda_peaks[i].cc_major || info->cc_minor != gs_cuda_peaks[i].cc_minor ||
        info->sm_count != gs_cuda_peaks[i].sm_count)
      continue;
    info->flops_fp32 = gs_cuda_peaks[i].fp32 * 1e12;
    info->flops_fp64 = gs_cuda_peaks[i].fp64 * 1e12;
    info->flops_tf32 = gs_cuda_peaks[i].tf32 * 1e12;
    snprintf(info->flops_source, sizeof info->flops_source, "NVIDIA H100/H200 datasheet, dense");
    return;
  }
}

/* Make the device current and describe it, creating its context now so no timed region pays. */
static void gs_cuda_describe(gs_ctx *c, int gpu, struct gs_device_info *info) {
  int dev = 0;
  if (gpu >= 0) GS_CHECK_CUDA(c, cudaSetDevice(gpu));
  GS_CHECK_CUDA(c, cudaGetDevice(&dev));
  c->where.gpu = dev;
  /* Create the context now, so no timed region pays for it. */
  GS_CHECK_CUDA(c, cudaFree(NULL));
  struct cudaDeviceProp p;
  GS_CHECK_CUDA(c, cudaGetDeviceProperties(&p, dev));
  memset(info, 0, sizeof *info);
  info->index = dev;
  snprintf(info->name, sizeof info->name, "%.95s", p.name);
  GS_CHECK_CUDA(c, cudaDeviceGetPCIBusId(info->pci, (int)sizeof info->pci, dev));
  info->mem_bytes = (double)p.totalGlobalMem;
  info->sm_count = p.multiProcessorCount;
  info->cc_major = p.major;
  info->cc_minor = p.minor;
  info->l2_bytes = (double)p.l2CacheSize;
  int clock_khz = 0, bus_bits = 0;
  GS_CHECK_CUDA(c, cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev));
  GS_CHECK_CUDA(c, cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
  /* Double data rate: two transfers per memory clock over the whole bus. */
  info->bw_theory = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0);
  gs_cuda_describe_peaks(info);
}

static gs_ctx *gs_cuda_open(struct gs_where *where, int gpu, struct gs_device_info *info) {
  gs_ctx *c = calloc(1, sizeof *c);
  if (!c) GS_DIE(where, "calloc", "out of memory");
  c->where = *where;
  gs_cuda_describe(c, gpu, info);
  GS_CHECK_CUDA(c, gs_cuda_ctx_init(&c->cu, info->index));
  *where = c->where;
  return c;
}

/* Each workload's state is freed by its own sub-table (matmul's release, which its driver calls
 * at its end; again here for a caller that did not: a second release does nothing). */
static void gs_cuda_close(gs_ctx *c) {
  gs_backend_cuda_matmul_ops.release(c);
  free(c);
}

static void gs_cuda_versions(int *runtime, int *driver) {
  *runtime = *driver = 0;
  if (cudaRuntimeGetVersion(runtime) != cudaSuccess) *runtime = 0;
  if (cudaDriverGetVersion(driver) != cudaSuccess) *driver = 0;
  (void)cudaGetLastError();
}

static void *gs_cuda_alloc_device(gs_ctx *c, size_t bytes) {
  void *p = NULL;
  GS_CHECK_CUDA(c, cudaMalloc(&p, bytes ? bytes : 1));
  return p;
}

static void gs_cuda_free_device(gs_ctx *c, void *p) { GS_CHECK_CUDA(c, cudaFree(p)); }

static void *gs_cuda_alloc_host(gs_ctx *c, size_t bytes) {
  void *p = NULL;
  GS_CHECK_CUDA(c, cudaMallocHost(&p, bytes ? bytes : 1));
  return p;
}

static void gs_cuda_free_host(gs_ctx *c, void *p) { GS_CHECK_CUDA(c, cudaFreeHost(p)); }

static void gs_cuda_mem_info(gs_ctx *c, double *free_bytes, double *total_bytes) {
  size_t f = 0, t = 0;
  GS_CHECK_CUDA(c, cudaMemGetInfo(&f, &t));
  *free_bytes = (double)f, *total_bytes = (double)t;
}

static void gs_cuda_zero(gs_ctx *c, void *p, size_t bytes, gs_queue *q) {
  GS_CHECK_CUDA(c, cudaMemsetAsync(p, 0, bytes, (cudaStream_t)q));
}

static gs_queue *gs_cuda_queue_create(gs_ctx *c) {
  cudaStream_t s;
  /* Non-blocking: no implicit synchronisation with the legacy default stream. */
  GS_CHECK_CUDA(c, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return (gs_queue *)s;
}

static gs_queue *gs_cuda_queue_create_urgent(gs_ctx *c) {
  int least, greatest;
  cudaStream_t s;
  GS_CHECK_CUDA(c, cudaDeviceGetStreamPriorityRange(&least, &greatest));
  GS_CHECK_CUDA(c, cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
  return (gs_queue *)s;
}

static void gs_cuda_queue_destroy(gs_ctx *c, gs_queue *q) { GS_CHECK_CUDA(c, cudaStreamDestroy((cudaStream_t)q)); }

static void gs_cuda_queue_sync(gs_ctx *c, gs_queue *q) { GS_CHECK_CUDA(c, cudaStreamSynchronize((cudaStream_t)q)); }

static void gs_cuda_queue_wait(gs_ctx *c, gs_queue *q, gs_event *e) {
  GS_CHECK_CUDA(c, cudaStreamWaitEvent((cudaStream_t)q, (cudaEvent_t)e, 0));
}

static void gs_cuda_copy_h2d(gs_ctx *c, void *dst, const void *src, size_t bytes, gs_queue *q) {
  GS_CHECK_CUDA(c, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)q));
}

static void gs_cuda_copy_d2h(gs_ctx *c, void *dst, const void *src, size_t bytes, gs_queue *q) {
  GS_CHECK_CUDA(c, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)q));
}

static void gs_cuda_copy_d2d(gs_ctx *c, void *dst, const void *src, size_t bytes, gs_queue *q) {
  GS_CHECK_CUDA(c, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)q));
}

/* A gate is two ints of mapped, pinned host memory: the host writes the flag and the spin kernel
 * reads it; the kernel sets `expired` when it gave up waiting. */
struct gs_gate {
  volatile int flag;
  volatile int expired;
};

static gs_gate *gs_cuda_gate_create(gs_ctx *c) {
  void *p = NULL;
  GS_CHECK_CUDA(c, cudaHostAlloc(&p, sizeof(gs_gate), cudaHostAllocMapped));
  ((gs_gate *)p)->flag = 1;
  ((gs_gate *)p)->expired = 0;
  return p;
}

static void gs_cuda_gate_destroy(gs_ctx *c, gs_gate *g) { GS_CHECK_CUDA(c, cudaFreeHost(g)); }

static void gs_cuda_gate_close(gs_ctx *c, gs_gate *g, gs_queue *q) {
  void *d = NULL;
  g->flag = 0;
  g->expired = 0;
  __sync_synchronize();
  GS_CHECK_CUDA(c, cudaHostGetDevicePointer(&d, (void *)g, 0));
  gs_gate *dg = d;
  GS_CHECK_CUDA(c, gs_gate_launch(&dg->flag, &dg->expired, q));
}

static int gs_cuda_gate_open(gs_ctx *c, gs_gate *g) {
  (void)c;
  __sync_synchronize();
  int expired = g->expired; /* set by the kernel before it let the queue run */
  g->flag = 1;
  return expired;
}

static gs_event *gs_cuda_event_create(gs_ctx *c) {
  cudaEvent_t e;
  GS_CHECK_CUDA(c, cudaEventCreate(&e));
  return (gs_event *)e;
}

static void gs_cuda_event_destroy(gs_ctx *c, gs_event *e) { GS_CHECK_CUDA(c, cudaEventDestroy((cudaEvent_t)e)); }

static void gs_cuda_event_record(gs_ctx *c, gs_event *e, gs_queue *q) {
  GS_CHECK_CUDA(c, cudaEventRecord((cudaEvent_t)e, (cudaStream_t)q));
}

static void gs_cuda_event_sync(gs_ctx *c, gs_event *e) { GS_CHECK_CUDA(c, cudaEventSynchronize((cudaEvent_t)e)); }

static double gs_cuda_event_seconds(gs_ctx *c, gs_event *a, gs_event *b) {
  float ms = 0;
  GS_CHECK_CUDA(c, cudaEventElapsedTime(&ms, (cudaEvent_t)a, (cudaEvent_t)b));
  return ms * 1e-3;
}

const struct gs_backend gs_backend_cuda_ops = {
    .name = "cuda",
    .timing = "CUDA events around each run, the stream held by a gate until the run is fully queued "
              "(device time, no host launch overhead)",
    .caps = GS_CAP_DEVICES | GS_CAP_CONCURRENT | GS_CAP_DEVICE_TIMING,
    .device_count = gs_cuda_device_count,
    .versions = gs_cuda_versions,
    .open = gs_cuda_open,
    .close = gs_cuda_close,
    .alloc_device = gs_cuda_alloc_device,
    .free_device = gs_cuda_free_device,
    .alloc_host = gs_cuda_alloc_host,
    .free_host = gs_cuda_free_host,
    .zero_device = gs_cuda_zero,
    .mem_info = gs_cuda_mem_info,
    .queue_create = gs_cuda_queue_create,
    .queue_create_urgent = gs_cuda_queue_create_urgent,
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
    .reduce = &gs_backend_cuda_reduce_ops,
    .nbody = &gs_backend_cuda_nbody_ops,
    .matmul = &gs_backend_cuda_matmul_ops,
    .tree = &gs_backend_cuda_tree_ops,
    .dtree = &gs_backend_cuda_dtree_ops,
#ifdef GS_HAVE_NCCL
    .coll = &gs_backend_cuda_coll_ops,
#endif
};
