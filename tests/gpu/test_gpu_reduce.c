/* Every reduction kernel of the CUDA backend (its list, be->reduce->kernels) x type x op at odd and
 * tiny sizes, from an unaligned start, and at more than 2^31 elements: exact against the CPU
 * reference, the output poisoned before each run, and bitwise identical run to run; and n = 0,
 * which must give gs_acc_identity bit for bit (the CPU backend is held to the same). Exits 77
 * without a GPU. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "gs_acc.h"
#include "gs_backend.h"
#include "gs_mpi.h"
#include "gs_reduce_ref.h"
#include "../unit/gs_test.h"
#include "gs_gpu_skip.h"

/* What every check runs on: the backend, this rank's state on the GPU, a queue, and the one
 * union gs_acc the kernels write. */
struct rig {
  const struct gs_backend *be;
  gs_ctx *c;
  gs_queue *q;
  union gs_acc *d_out;
};

static int same(enum gs_dtype t, union gs_acc a, union gs_acc b) {
  return t == GS_DTYPE_INT32 ? a.i == b.i : a.d == b.d;
}

/* Reduce n elements at d_in with kernel k, at block 256 and then 128, into got[0] and got[1]; the
 * output is poisoned before each run. The workspace is sized by the backend for the larger need
 * (more blocks at 128) and zeroed once, as the drivers do. */
static void run2(const struct rig *r, const struct gs_kernel *k, enum gs_dtype t, enum gs_op op, const void *d_in,
                 uint64_t n, union gs_acc got[2]) {
  const struct gs_backend *be = r->be;
  be->reduce->set_block(r->c, 256);
  size_t wsb = be->reduce->workspace(r->c, k->id, t, op, n);
  be->reduce->set_block(r->c, 128);
  const size_t w128 = be->reduce->workspace(r->c, k->id, t, op, n);
  if (w128 > wsb) wsb = w128;
  void *ws = wsb ? be->alloc_device(r->c, wsb) : NULL;
  if (ws) be->zero_device(r->c, ws, wsb, r->q);
  for (int rep = 0; rep < 2; rep++) {
    union gs_acc poison;
    memset(&poison, 0xA5, sizeof poison);
    be->copy_h2d(r->c, r->d_out, &poison, sizeof poison, r->q);
    be->reduce->set_block(r->c, rep ? 128 : 256);
    be->reduce->run(r->c, k->id, t, op, d_in, n, ws, wsb, r->d_out, r->q);
    be->copy_d2h(r->c, &got[rep], r->d_out, sizeof got[rep], r->q);
    be->queue_sync(r->c, r->q);
  }
  if (ws) be->free_device(r->c, ws);
}

/* Kernel k on n elements at d_in: both runs must give ref. */
static void check(const struct rig *r, const struct gs_kernel *k, enum gs_dtype t, enum gs_op op, const void *d_in,
                  uint64_t n, union gs_acc ref, const char *what) {
  union gs_acc got[2];
  run2(r, k, t, op, d_in, n, got);
  if (!same(t, got[0], ref) || !same(t, got[1], ref)) {
    fprintf(stderr, "kernel %s type %d op %d n %llu %s: got %lld/%.17g and %lld/%.17g, want %lld/%.17g\n", k->name, t,
            op, (unsigned long long)n, what, (long long)got[0].i, got[0].d, (long long)got[1].i, got[1].d,
            (long long)ref.i, ref.d);
    gs_test_failures++;
  }
}

/* n = 0: every kernel, type and op writes gs_acc_identity, bit for bit, over the poison. */
static void check_empty(const struct rig *r, const void *d_in) {
  const struct gs_reduce_ops *ro = r->be->reduce;
  for (int i = 0; i < ro->count; i++)
    for (int t = 0; t < GS_DTYPE_COUNT; t++)
      for (int op = 0; op < GS_OP_COUNT; op++) {
        const union gs_acc want = gs_acc_identity(t, op);
        union gs_acc got[2];
        run2(r, &ro->kernels[i], t, op, d_in, 0, got);
        if (memcmp(&got[0], &want, sizeof want) || memcmp(&got[1], &want, sizeof want)) {
          fprintf(stderr, "kernel %s type %d op %d n 0: got %lld/%.17g and %lld/%.17g, want identity %lld/%.17g\n",
                  ro->kernels[i].name, t, op, (long long)got[0].i, got[0].d, (long long)got[1].i, got[1].d,
                  (long long)want.i, want.d);
          gs_test_failures++;
        }
      }
  printf("n = 0: %d failure(s) so far\n", gs_test_failures);
}

/* Odd and tiny sizes of every type, aligned and offset by one element, every op and kernel. */
static void check_sizes(const struct rig *r) {
  const struct gs_backend *be = r->be;
  const uint64_t sizes[] = {1, 2, 31, 33, 1000, 4097, 65539, (1u << 20) + 7, (3u << 22) + 5};
  const uint64_t nmax = (3u << 22) + 5;
  for (int t = 0; t < GS_DTYPE_COUNT; t++) {
    const size_t esz = gs_dtype_size(t);
    char *h = malloc(nmax * esz);
    gs_reduce_ref_fill(h, t, 99, nmax, 3);
    char *d = be->alloc_device(r->c, nmax * esz);
    be->copy_h2d(r->c, d, h, nmax * esz, r->q);
    be->queue_sync(r->c, r->q);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      const uint64_t n = sizes[s];
      for (int op = 0; op < GS_OP_COUNT; op++) {
        double abs_sum;
        const union gs_acc ref = gs_reduce_ref_compute(h, t, op, n, &abs_sum);
        const union gs_acc ref1 = gs_reduce_ref_compute(h + esz, t, op, n - 1, &abs_sum);
        for (int i = 0; i < be->reduce->count; i++) {
          check(r, &be->reduce->kernels[i], t, op, d, n, ref, "aligned");
          if (n > 1) check(r, &be->reduce->kernels[i], t, op, d + esz, n - 1, ref1, "offset by one element");
        }
      }
    }
    be->free_device(r->c, d);
    free(h);
    printf("type %d: %d failure(s) so far\n", t, gs_test_failures);
  }
}

/* More than 2^31 elements: 64-bit indexing everywhere. */
static void check_big(const struct rig *r) {
  const struct gs_backend *be = r->be;
  const uint64_t big = ((uint64_t)1 << 31) + 63;
  for (int t = GS_DTYPE_INT32; t <= GS_DTYPE_FLOAT; t++) {
    const enum gs_op op = t == GS_DTYPE_INT32 ? GS_OP_SUM : GS_OP_MAX;
    void *h = be->alloc_host(r->c, big * 4), *d = be->alloc_device(r->c, big * 4);
    gs_reduce_ref_fill(h, t, 0, big, 5);
    if (t == GS_DTYPE_FLOAT) ((float *)h)[big - 1] = 2.0f; /* the max sits past 2^31 */
    be->copy_h2d(r->c, d, h, big * 4, r->q);
    be->queue_sync(r->c, r->q);
    double abs_sum;
    const union gs_acc ref = gs_reduce_ref_compute(h, t, op, big, &abs_sum);
    for (int i = 0; i < be->reduce->count; i++)
      check(r, &be->reduce->kernels[i], t, op, d, big, ref, "2^31+63");
    be->free_device(r->c, d);
    be->free_host(r->c, h);
    printf("> 2^31, type %d: %d failure(s) so far\n", t, gs_test_failures);
  }
}

/* The exit status of a run that finds no GPU (or no CUDA backend in this build). */
static int no_gpu(const struct gs_backend *be) {
  const char *why = NULL;
  if (be && be->device_count(&why) > 0) return 0;
  char text[256];
  snprintf(text, sizeof text, "%s%s",
           !be   ? "CPU-only build (configured without CUDA)"
           : why ? "cudaGetDeviceCount failed: "
                 : "the CUDA runtime shows no device",
           be && why ? why : "");
  return gs_gpu_skip(text);
}

int main(int argc, char **argv) {
  gs_mpi_init(&argc, &argv, MPI_THREAD_SINGLE);
  struct rig r = {gs_backend_find("cuda"), NULL, NULL, NULL};
  const int rc = no_gpu(r.be);
  if (rc) {
    gs_mpi_finalize();
    return rc;
  }
  struct gs_where w = {0, -1, "test"};
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  struct gs_device_info info;
  r.c = r.be->open(&w, -1, &info);
  printf("GPU: %s (%s), %d SMs; %d reduction kernels\n", info.name, info.pci, info.sm_count, r.be->reduce->count);
  r.q = r.be->queue_create(r.c);
  r.d_out = r.be->alloc_device(r.c, sizeof *r.d_out);
  void *d_small = r.be->alloc_device(r.c, 64);

  check_empty(&r, d_small);
  check_sizes(&r);
  check_big(&r);

  r.be->free_device(r.c, d_small);
  r.be->free_device(r.c, r.d_out);
  r.be->queue_destroy(r.c, r.q);
  r.be->close(r.c);
  gs_mpi_finalize();
  GS_TEST_DONE();
}
