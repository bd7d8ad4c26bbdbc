/* The reduction's inputs, reference and CPU backend against plain serial loops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_acc.h"
#include "gs_backend.h"
#include "gs_kernel_list.h"
#include "gs_reduce_options.h"
#include "gs_reduce_ref.h"
#include "gs_test.h"

/* A naive serial reduction, as independent as code gets. */
static union gs_acc naive(const void *buf, enum gs_dtype t, enum gs_op op, uint64_t n) {
  union gs_acc r = gs_acc_identity(t, op);
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

static const struct gs_backend *be;
static gs_ctx *ctx;
static int omp; /* the CPU backend's kernel id */

/* The CPU backend's reduction of n elements of buf. */
static union gs_acc cpu_reduce(const void *buf, enum gs_dtype t, enum gs_op op, uint64_t n) {
  union gs_acc got;
  be->reduce->run(ctx, omp, t, op, buf, n, NULL, 0, &got, NULL);
  return got;
}

/* Kernel lists against the workload's names and the backend's own list. */
static void test_kernel_lists(void) {
  unsigned mask;
  struct gs_msg msg;
  struct gs_reduce_opts opts;
  gs_reduce_options_defaults(&opts); /* they make the names, from the backends' lists */
  const char *const *known = gs_reduce_options_kernels;
  const struct gs_reduce_ops *ops = be->reduce;
  char ok[] = "Ladder,CUB", bad[] = "1,x"; /* the check writes a valid list back in lowercase */
  GS_EXPECT(gs_kernel_list_check(ok, known, 0, &msg) == GS_OK && strcmp(ok, "ladder,cub") == 0);
  GS_EXPECT(gs_kernel_list_check(bad, known, 0, &msg) == GS_USAGE && strstr(msg.text, "'x' is not a kernel"));
  GS_EXPECT(gs_kernel_list_select("omp", known, 0, ops->kernels, ops->count, "cpu", &mask, &msg) == GS_OK && mask == 1);
  GS_EXPECT(gs_kernel_list_select("all", known, 0, ops->kernels, ops->count, "cpu", &mask, &msg) == GS_OK && mask == 1);
  GS_EXPECT(gs_kernel_list_select("omp,cub", known, 0, ops->kernels, ops->count, "cpu", &mask, &msg) == GS_USAGE);
  GS_EXPECT(strstr(msg.text, "--kernel cub does not run on the cpu backend (its kernels: omp)") != NULL);
  GS_EXPECT(gs_kernel_list_select("ladder", known, 0, ops->kernels, ops->count, "cpu", &mask, &msg) == GS_USAGE);
}

int main(void) {
  const uint64_t sizes[] = {1, 2, 31, 33, 1000, 4097, 100003};
  struct gs_where w = {.rank = 0, .gpu = -1, .host = "test"};
  struct gs_device_info info;
  be = gs_backend_find("cpu");
  ctx = be->open(&w, -1, &info);
  omp = be->reduce->kernels[0].id;
  GS_EXPECT(be->reduce->count == 1 && strcmp(be->reduce->kernels[0].name, "omp") == 0);
  for (int t = 0; t < GS_DTYPE_COUNT; t++) {
    /* The global sequence is the same however it is split. */
    size_t esz = gs_dtype_size(t);
    char *whole = malloc(1000 * esz), *part = malloc(1000 * esz);
    gs_reduce_ref_fill(whole, t, 0, 1000, 7);
    gs_reduce_ref_fill(part, t, 0, 333, 7);
    gs_reduce_ref_fill(part + 333 * esz, t, 333, 667, 7);
    GS_EXPECT(memcmp(whole, part, 1000 * esz) == 0);
    gs_reduce_ref_fill(part, t, 0, 1000, 8);
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
      gs_reduce_ref_fill(buf, t, 12345, n, 1);
      for (int op = 0; op < GS_OP_COUNT; op++) {
        double abs_sum;
        union gs_acc ref = gs_reduce_ref_compute(buf, t, op, n, &abs_sum), want = naive(buf, t, op, n), got;
        GS_EXPECT(same(t, ref, want));
        got = cpu_reduce(buf, t, op, n);
        GS_EXPECT(same(t, got, want));
      }
      free(buf);
    }
  }
  /* int32 sums beyond 32 bits stay exact in the 64-bit accumulator. */
  int32_t *big = malloc(4096 * sizeof *big);
  for (int i = 0; i < 4096; i++) big[i] = INT32_MAX;
  double abs_sum;
  union gs_acc r = gs_reduce_ref_compute(big, GS_DTYPE_INT32, GS_OP_SUM, 4096, &abs_sum), got;
  GS_EXPECT(r.i == (int64_t)4096 * INT32_MAX);
  got = cpu_reduce(big, GS_DTYPE_INT32, GS_OP_SUM, 4096);
  GS_EXPECT(got.i == (int64_t)4096 * INT32_MAX);
  /* A compensated float reference where naive double summation loses digits. */
  double tricky[4] = {1e16, 1.0, -1e16, 1.0};
  r = gs_reduce_ref_compute(tricky, GS_DTYPE_DOUBLE, GS_OP_SUM, 4, &abs_sum);
  GS_EXPECT(r.d == 2.0);
  /* Nothing reduces to the identity, on the backend and in the reference alike (gs_acc.h). */
  for (int t = 0; t < GS_DTYPE_COUNT; t++)
    for (int op = 0; op < GS_OP_COUNT; op++) {
      union gs_acc id = gs_acc_identity(t, op), ref = gs_reduce_ref_compute(big, t, op, 0, &abs_sum);
      GS_EXPECT(same(t, cpu_reduce(big, t, op, 0), id) && same(t, ref, id));
    }
  GS_EXPECT(gs_acc_identity(GS_DTYPE_INT32, GS_OP_MIN).i == INT64_MAX && gs_acc_identity(GS_DTYPE_DOUBLE, GS_OP_MAX).d == -INFINITY);
  free(big);
  test_kernel_lists();
  be->close(ctx);
  GS_TEST_DONE();
}
