/* The reduction's inputs, reference and CPU backend against plain serial loops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_reduce.h"
#include "gs_test.h"

/* A naive serial reduction, as independent as code gets. */
static union gs_acc naive(const void *buf, enum gs_dtype t, enum gs_op op, uint64_t n) {
  union gs_acc r = gs_reduce_identity(t, op);
  for (uint64_t i = 0; i < n; i++) {
    if (t == GS_DTYPE_INT32) {
      int64_t x = ((const int32_t *)buf)[i];
      r.i = op == GS_OP_SUM ? r.i + x : op == GS_OP_MIN ? (x < r.i ? x : r.i) : (x > r.i ? x : r.i);
    } else {
      double x = t == GS_DTYPE_FLOAT ? ((const float *)buf)[i] : ((const double *)buf)[i];
      r.d = op == GS_OP_SUM ? r.d + x : op == GS_OP_MIN ? fmin(x, r.d) : fmax(x, r.d);
    }
  }
  return r;
}

static int same(enum gs_dtype t, union gs_acc a, union gs_acc b) { return t == GS_DTYPE_INT32 ? a.i == b.i : a.d == b.d; }

int main(void) {
  const uint64_t sizes[] = {1, 2, 31, 33, 1000, 4097, 100003};
  const struct gs_backend *be = gs_backend_cpu_get();
  for (int t = 0; t < GS_DTYPE_COUNT; t++) {
    /* The global sequence is the same however it is split. */
    size_t esz = gs_dtype_size(t);
    char *whole = malloc(1000 * esz), *part = malloc(1000 * esz);
    gs_reduce_fill(whole, t, 0, 1000, 7);
    gs_reduce_fill(part, t, 0, 333, 7);
    gs_reduce_fill(part + 333 * esz, t, 333, 667, 7);
    GS_EXPECT(memcmp(whole, part, 1000 * esz) == 0);
    gs_reduce_fill(part, t, 0, 1000, 8);
    GS_EXPECT(memcmp(whole, part, 1000 * esz) != 0); /* the seed matters */
    /* Never zeros; on the grid and in range. */
    int zeros = 0;
    for (int i = 0; i < 1000; i++) {
      double x = t == GS_DTYPE_INT32 ? ((int32_t *)whole)[i] : t == GS_DTYPE_FLOAT ? ((float *)whole)[i] : ((double *)whole)[i];
      zeros += x == 0;
      double k = t == GS_DTYPE_INT32 ? x : ldexp(x, 20);
      GS_EXPECT(k == floor(k) && fabs(k) <= 1048576);
    }
    GS_EXPECT(zeros < 5);
    free(whole);
    free(part);

    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      uint64_t n = sizes[s];
      void *buf = malloc(n * esz);
      gs_reduce_fill(buf, t, 12345, n, 1);
      for (int op = 0; op < GS_OP_COUNT; op++) {
        double abs_sum;
        union gs_acc ref = gs_reduce_reference(buf, t, op, n, &abs_sum), want = naive(buf, t, op, n), got;
        GS_EXPECT(same(t, ref, want));
        be->reduce(be, GS_RK_OMP, t, op, buf, n, NULL, 0, &got, 256, NULL);
        GS_EXPECT(same(t, got, want));
      }
      free(buf);
    }
  }
  /* int32 sums beyond 32 bits stay exact in the 64-bit accumulator. */
  int32_t *big = malloc(4096 * sizeof *big);
  for (int i = 0; i < 4096; i++) big[i] = INT32_MAX;
  double abs_sum;
  union gs_acc r = gs_reduce_reference(big, GS_DTYPE_INT32, GS_OP_SUM, 4096, &abs_sum), got;
  GS_EXPECT(r.i == (int64_t)4096 * INT32_MAX);
  be->reduce(be, GS_RK_OMP, GS_DTYPE_INT32, GS_OP_SUM, big, 4096, NULL, 0, &got, 256, NULL);
  GS_EXPECT(got.i == (int64_t)4096 * INT32_MAX);
  free(big);
  /* A compensated float reference where naive double summation loses digits. */
  double tricky[4] = {1e16, 1.0, -1e16, 1.0};
  r = gs_reduce_reference(tricky, GS_DTYPE_DOUBLE, GS_OP_SUM, 4, &abs_sum);
  GS_EXPECT(r.d == 2.0);
  /* Kernel names and lists. */
  unsigned mask;
  struct gs_msg msg;
  GS_EXPECT(gs_reduce_kernel_mask("ladder,cub", &mask, &msg) == GS_OK && mask == (0xFEu | 1u << GS_RK_CUB));
  GS_EXPECT(gs_reduce_kernel_mask("omp", &mask, &msg) == GS_OK && mask == 1u << GS_RK_OMP);
  GS_EXPECT(gs_reduce_kernel_mask("1,x", &mask, &msg) == GS_USAGE);
  GS_EXPECT(strcmp(gs_reduce_kernel_name(GS_RK_ONEPASS), "onepass") == 0);
  GS_TEST_DONE();
}
