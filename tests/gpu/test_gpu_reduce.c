/* Every CUDA reduction kernel x type x op at odd and tiny sizes, from an unaligned start, and at
 * more than 2^31 elements: exact against the CPU reference, the output poisoned before each run,
 * and bitwise identical run to run. Exits 77 without a GPU. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_mpi.h"
#include "gs_reduce.h"
#include "../unit/gs_test.h"
#include "gs_gpu_skip.h"

static int same(enum gs_dtype t, union gs_acc a, union gs_acc b) { return t == GS_DTYPE_INT32 ? a.i == b.i : a.d == b.d; }

/* Reduce n elements at d_in with kernel k twice; check both against ref. */
static void check(struct gs_backend *be, gs_queue *q, int k, enum gs_dtype t, enum gs_op op, const void *d_in,
                  uint64_t n, union gs_acc ref, union gs_acc *d_out, const char *what) {
  /* Runs at block 256 and 128: the workspace must fit the larger need (more blocks at 128). */
  size_t wsb = be->reduce_workspace(be, k, t, op, n, 256), w128 = be->reduce_workspace(be, k, t, op, n, 128);
  if (w128 > wsb) wsb = w128;
  void *ws = wsb ? be->alloc_device(be, wsb) : NULL;
  if (ws) be->zero_device(be, ws, wsb, q);
  union gs_acc got[2];
  for (int rep = 0; rep < 2; rep++) {
    union gs_acc poison;
    memset(&poison, 0xA5, sizeof poison);
    be->copy_h2d(be, d_out, &poison, sizeof poison, q);
    be->reduce(be, k, t, op, d_in, n, ws, wsb, d_out, rep ? 128 : 256, q);
    be->copy_d2h(be, &got[rep], d_out, sizeof got[rep], q);
    be->queue_sync(be, q);
  }
  if (!same(t, got[0], ref) || !same(t, got[1], ref)) {
    fprintf(stderr, "kernel %s type %d op %d n %llu %s: got %lld/%.17g, want %lld/%.17g\n", gs_reduce_kernel_name(k), t,
            op, (unsigned long long)n, what, (long long)got[0].i, got[0].d, (long long)ref.i, ref.d);
    gs_test_failures++;
  }
  if (ws) be->free_device(be, ws);
}

int main(int argc, char **argv) {
  gs_mpi_init(&argc, &argv, MPI_THREAD_SINGLE);
  const struct gs_backend *cuda = gs_backend_cuda_get();
  const char *why = NULL;
  if (!cuda || cuda->device_count(&why) == 0) {
    char text[256];
    snprintf(text, sizeof text, "%s%s", !cuda ? "CPU-only build (configured without CUDA)" : why ? "cudaGetDeviceCount failed: " : "the CUDA runtime shows no device", why ? why : "");
    int rc = gs_gpu_skip(text);
    gs_mpi_finalize();
    return rc;
  }
  struct gs_backend be = *cuda;
  strcpy(be.where.host, "test");
  struct gs_device_info dev;
  be.device_open(&be, 0, &dev);
  printf("GPU: %s (%s), %d SMs\n", dev.name, dev.pci, dev.sm_count);
  gs_queue *q = be.queue_create(&be);
  union gs_acc *d_out = be.alloc_device(&be, sizeof *d_out);

  const uint64_t sizes[] = {1, 2, 31, 33, 1000, 4097, 65539, (1u << 20) + 7, (3u << 22) + 5};
  const uint64_t nmax = (3u << 22) + 5;
  for (int t = 0; t < GS_DTYPE_COUNT; t++) {
    size_t esz = gs_dtype_size(t);
    char *h = malloc(nmax * esz);
    gs_reduce_fill(h, t, 99, nmax, 3);
    char *d = be.alloc_device(&be, nmax * esz);
    be.copy_h2d(&be, d, h, nmax * esz, q);
    be.queue_sync(&be, q);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      uint64_t n = sizes[s];
      for (int op = 0; op < GS_OP_COUNT; op++) {
        double abs_sum;
        union gs_acc ref = gs_reduce_reference(h, t, op, n, &abs_sum);
        union gs_acc ref1 = gs_reduce_reference(h + esz, t, op, n - 1, &abs_sum);
        for (int k = 1; k < GS_RK_COUNT; k++) {
          check(&be, q, k, t, op, d, n, ref, d_out, "aligned");
          if (n > 1) check(&be, q, k, t, op, d + esz, n - 1, ref1, d_out, "offset by one element");
        }
      }
    }
    be.free_device(&be, d);
    free(h);
    printf("type %d: %d failure(s) so far\n", t, gs_test_failures);
  }

  /* More than 2^31 elements: 64-bit indexing everywhere. */
  const uint64_t big = ((uint64_t)1 << 31) + 63;
  for (int t = GS_DTYPE_INT32; t <= GS_DTYPE_FLOAT; t++) {
    enum gs_op op = t == GS_DTYPE_INT32 ? GS_OP_SUM : GS_OP_MAX;
    void *h = be.alloc_host(&be, big * 4), *d = be.alloc_device(&be, big * 4);
    gs_reduce_fill(h, t, 0, big, 5);
    if (t == GS_DTYPE_FLOAT) ((float *)h)[big - 1] = 2.0f; /* the max sits past 2^31 */
    be.copy_h2d(&be, d, h, big * 4, q);
    be.queue_sync(&be, q);
    double abs_sum;
    union gs_acc ref = gs_reduce_reference(h, t, op, big, &abs_sum);
    for (int k = 1; k < GS_RK_COUNT; k++) check(&be, q, k, t, op, d, big, ref, d_out, "2^31+63");
    be.free_device(&be, d);
    be.free_host(&be, h);
    printf("> 2^31, type %d: %d failure(s) so far\n", t, gs_test_failures);
  }
  be.free_device(&be, d_out);
  be.queue_destroy(&be, q);
  gs_mpi_finalize();
  GS_TEST_DONE();
}
