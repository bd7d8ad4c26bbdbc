/* The matmul launcher of cuda/ on a GPU (gs_matmul_kernels_launch): every kernel x dtype (float,
 * double; cublas-tf32 and tc32 float only, dmma double only) on ragged sizes (1x1x1 ..
 * 515x777x260 and 1100x600x200, several 128 x 128 blocks of the SIMT tiling, a k = 0 case, a
 * matrix taller than one launch's 65535 tile rows), minimal and padded leading dimensions, aligned
 * and misaligned B and C (the SIMT kernel's vector and scalar paths; the tensor-core kernels'
 * 16-byte copies need A, B, lda and ldb aligned, else they copy elements: odd lda and a misaligned
 * B take that path), overwrite and accumulate, against a long double CPU product:
 *   - integer-valued inputs (small integers, the seed's a = 2j + i, b = j - i): every partial sum
 *     is an integer below 2^24, exact in float and in TF32 products, so the result must be exact;
 *   - random inputs in [-1, 1]: |C - ref| <= scale * (sum_p |a_ip b_pj| + |C0|) with scale
 *     (k + 4) 2^-24 (float), 2^-9 + (k + 4) 2^-23 (TF32: each input rounded or truncated to a
 *     10-bit mantissa, 2^-10 each, and sums that may truncate), (k + 4) 2^-53 (double): the bound
 *     of any summation order of k + 1 terms, plus the reference's own rounding.
 * Outside the product: the padding of A and B (columns past the row, rows past the matrix) is NaN,
 * so a kernel that reads it makes NaN outputs; C's padding and the space after it hold a sentinel
 * that must survive, and C's inside starts as NaN when not accumulating, so an output left
 * unwritten fails. Also: identical bits run to run (our kernels), the argument checks (nothing
 * launched, C untouched), m = 0 / n = 0 with NULL pointers, the cuBLAS handle's life in the matmul
 * state (gs_matmul_kernels_free), and in a build without cuBLAS its ids answering NotSupported.
 * Failures name kernel, dtype, sizes and the first wrong element. Exits 77 without a GPU (and in
 * a CPU-only build). */
#include "gs_gpu_skip.h"
#include <config.h>
#ifndef GS_HAVE_CUDA
int main(void) { return gs_gpu_skip("CPU-only build (configured without CUDA)"); }
#else
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gs_cuda.h"
#include "gs_gpu_skip.h" /* again, for its CUDA part */
#include "gs_gpu_check.h"
#include "gs_types.h"


#define GUARD 64       /* elements after each matrix: NaN (A, B), sentinel (C) */
#define SENT (-777.25) /* C's padding and guard: no product of these inputs is this */

struct kern {
  int id;
  const char *name;
  int floats, doubles, ours, tf32;
};
/* What the launcher makes on first use (cuBLAS handle, workspace), the test's to own and free. */
static struct gs_matmul_state g_mm;

static const struct kern g_kerns[] = {
    {GS_MK_GLOBAL, "global", 1, 1, 1, 0}, {GS_MK_SMEM1, "smem1", 1, 1, 1, 0},
    {GS_MK_SMEM2, "smem2", 1, 1, 1, 0},   {GS_MK_SMEM3, "smem3", 1, 1, 1, 0},
    {GS_MK_SMEM4, "smem4", 1, 1, 1, 0},   {GS_MK_SMEM5, "smem5", 1, 1, 1, 0},
    {GS_MK_SIMT, "simt", 1, 1, 1, 0},     {GS_MK_DMMA, "dmma", 0, 1, 1, 0},
    {GS_MK_TC32, "tc32", 1, 0, 1, 1},     {GS_MK_WGMMA, "wgmma", 1, 0, 1, 1},
#ifdef GS_HAVE_CUBLAS
    {GS_MK_CUBLAS, "cublas", 1, 1, 0, 0}, {GS_MK_CUBLAS_TF32, "cublas-tf32", 1, 0, 0, 1},
#endif
};
#define NKERNS ((int)(sizeof g_kerns / sizeof *g_kerns))

enum { KIND_INT, KIND_RANDOM, KIND_SEED };
static const char *const g_kind_name[] = {"integers", "random", "seed"};

/* One product: sizes, leading dimensions, element offsets of B and C from a 256-byte boundary
 * (1: not 16-byte aligned), accumulate, input kind. */
struct mm_case {
  uint64_t m, n, k, lda, ldb, ldc;
  int offb, offc, acc, kind;
};

/* Host copies in double (values exactly what the device gets), padded as on the device. */
struct mm_data {
  struct mm_case c;
  int dtype;
  size_t na, nb, nc;
  double *A, *B, *C0;  /* C0: C before the call */
  double *ref, *scale; /* m x n: expected value and its error scale */
};

static double value(int kind, int dtype, uint64_t i, uint64_t j, int which) {
  if (kind == KIND_SEED) return which == 0 ? 2.0 * (double)j + (double)i : (double)j - (double)i;
  if (kind == KIND_INT) return (double)((int)(urand() * 9) - 4);
  const double x = urand() * 2 - 1;
  return dtype == GS_DTYPE_FLOAT ? (double)(float)x : x;
}

/* rows x cols in a rows x ld buffer of rows * ld + GUARD elements, `pad` outside. */
static double *fill(int kind, int dtype, uint64_t rows, uint64_t cols, uint64_t ld, int which, double pad,
                    size_t *count) {
  *count = (size_t)(rows * ld) + GUARD;
  double *h = malloc(*count * sizeof *h);
  if (!h) exit(1);
  for (size_t e = 0; e < *count; ++e)
    h[e] = pad;
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < cols; ++j)
      h[i * ld + j] = value(kind, dtype, i, j, which);
  return h;
}

/* Row by row, B's rows read in order (the long double sums per column kept in two rows). */
static void reference(struct mm_data *d) {
  const struct mm_case *c = &d->c;
  d->ref = malloc((c->m * c->n + 1) * sizeof *d->ref);
  d->scale = malloc((c->m * c->n + 1) * sizeof *d->scale);
  if (!d->ref || !d->scale) exit(1);
#pragma omp parallel for schedule(dynamic, 16)
  for (long long i = 0; i < (long long)c->m; ++i) {
    long double *s = calloc(2 * c->n + 1, sizeof *s), *a = s + c->n;
    if (!s) exit(1);
    for (uint64_t p = 0; p < c->k; ++p) {
      const long double x = d->A[i * c->lda + p];
      const double *b = d->B + p * c->ldb;
      for (uint64_t j = 0; j < c->n; ++j) {
        const long double t = x * b[j];
        s[j] += t;
        a[j] += fabsl(t);
      }
    }
    for (uint64_t j = 0; j < c->n; ++j) {
      const double c0 = d->C0[i * c->ldc + j];
      d->ref[i * c->n + j] = (double)(c->acc ? c0 + s[j] : s[j]);
      d->scale[i * c->n + j] = (double)(c->acc ? a[j] + fabs(c0) : a[j]);
    }
    free(s);
  }
}

static void make_data(struct mm_data *d, const struct mm_case *c, int dtype) {
  memset(d, 0, sizeof *d);
  d->c = *c;
  d->dtype = dtype;
  d->A = fill(c->kind, dtype, c->m, c->k, c->lda, 0, NAN, &d->na);
  d->B = fill(c->kind, dtype, c->k, c->n, c->ldb, 1, NAN, &d->nb);
  /* accumulate: C0 of the input kind (seed kind: small integers); else NaN, all overwritten */
  d->C0 = fill(c->kind == KIND_SEED ? KIND_INT : c->kind, dtype, c->m, c->n, c->ldc, 2, SENT, &d->nc);
  if (!c->acc)
    for (uint64_t i = 0; i < c->m; ++i)
      for (uint64_t j = 0; j < c->n; ++j)
        d->C0[i * c->ldc + j] = NAN;
  reference(d);
}

static void free_data(struct mm_data *d) {
  free(d->A);
  free(d->B);
  free(d->C0);
  free(d->ref);
  free(d->scale);
}

/* A device buffer holding h (count elements in dtype) `off` elements past a 256-byte boundary;
 * *base is what to free. */
static void *to_dev(const double *h, size_t count, int dtype, int off, void **base) {
  const size_t es = gs_dtype_size(dtype);
  char *b = NULL;
  CK(cudaMalloc((void **)&b, (count + off) * es));
  void *tmp = malloc(count * es);
  if (!tmp) exit(1);
  for (size_t e = 0; e < count; ++e)
    if (dtype == GS_DTYPE_FLOAT)
      ((float *)tmp)[e] = (float)h[e];
    else
      ((double *)tmp)[e] = h[e];
  CK(cudaMemcpy(b + off * es, tmp, count * es, cudaMemcpyHostToDevice));
  /* A pageable-to-device cudaMemcpy may return before its DMA lands, and our stream is
   * non-blocking: wait for it, or a kernel on that stream can read the old contents. */
  CK(cudaDeviceSynchronize());
  free(tmp);
  *base = b;
  return b + off * es;
}

static double *from_dev(const void *d, size_t count, int dtype) {
  const size_t es = gs_dtype_size(dtype);
  void *tmp = malloc(count * es);
  double *h = malloc(count * sizeof *h);
  if (!tmp || !h) exit(1);
  CK(cudaMemcpy(tmp, d, count * es, cudaMemcpyDeviceToHost));
  for (size_t e = 0; e < count; ++e)
    h[e] = dtype == GS_DTYPE_FLOAT ? (double)((float *)tmp)[e] : ((double *)tmp)[e];
  free(tmp);
  return h;
}

/* The error bound of any summation order of k products and C0, k + 1 roundings, with slack for
 * the reference's own rounding to double; TF32 adds both inputs' rounding (truncation: 2^-10
 * each) and sums that may truncate (an ulp, 2^-23, per add). */
static double tol_scale(const struct kern *kn, int dtype, uint64_t k) {
  if (dtype == GS_DTYPE_DOUBLE) return (double)(k + 4) * ldexp(1, -53);
  if (kn->tf32) return ldexp(1, -9) + (double)(k + 4) * ldexp(1, -23);
  return (double)(k + 4) * ldexp(1, -24);
}

static void describe(char *buf, size_t len, const struct kern *kn, const struct mm_data *d) {
  const struct mm_case *c = &d->c;
  snprintf(buf, len, "%s %s m=%llu n=%llu k=%llu lda=%llu ldb=%llu ldc=%llu offB=%d offC=%d %s %s", kn->name,
           d->dtype == GS_DTYPE_FLOAT ? "float" : "double", (unsigned long long)c->m, (unsigned long long)c->n,
           (unsigned long long)c->k, (unsigned long long)c->lda, (unsigned long long)c->ldb, (unsigned long long)c->ldc,
           c->offb, c->offc, c->acc ? "accumulate" : "overwrite", g_kind_name[c->kind]);
}

/* Compare C as read back (nc elements) with the reference and the untouched padding; one FAIL
 * line with the first wrong element, or a pass. */
static void compare(const struct kern *kn, const struct mm_data *d, const double *got) {
  const struct mm_case *c = &d->c;
  const int exact = c->kind != KIND_RANDOM;
  const double ts = tol_scale(kn, d->dtype, c->k);
  char what[512], head[320];
  for (size_t e = 0; e < d->nc; ++e) {
    const uint64_t i = e / c->ldc, j = e % c->ldc;
    if (i >= c->m || j >= c->n) { /* padding or guard: the sentinel, bit for bit */
      if (got[e] == SENT) continue;
      describe(head, sizeof head, kn, d);
      snprintf(what, sizeof what, "%s: wrote outside C at element %zu (row %llu col %llu): %.17g", head, e,
               (unsigned long long)i, (unsigned long long)j, got[e]);
      expect(0, what);
      return;
    }
    const double want = d->ref[i * c->n + j], tol = exact ? 0 : ts * d->scale[i * c->n + j];
    if (fabs(got[e] - want) <= tol) continue; /* false for NaN */
    describe(head, sizeof head, kn, d);
    snprintf(what, sizeof what, "%s: C(%llu,%llu) = %.17g, want %.17g (|error| %.3g > tol %.3g)", head,
             (unsigned long long)i, (unsigned long long)j, got[e], want, fabs(got[e] - want), tol);
    expect(0, what);
    return;
  }
  expect(1, "");
}

/* Run kernel kn on d (C reset from C0), read C back; NULL after a failed call. */
static double *run(struct gs_cuda_ctx *ctx, const struct kern *kn, const struct mm_data *d, const void *dA,
                   const void *dB, void *dC, cudaStream_t st) {
  const struct mm_case *c = &d->c;
  const size_t es = gs_dtype_size(d->dtype);
  void *tmp = malloc(d->nc * es);
  if (!tmp) exit(1);
  for (size_t e = 0; e < d->nc; ++e)
    if (d->dtype == GS_DTYPE_FLOAT)
      ((float *)tmp)[e] = (float)d->C0[e];
    else
      ((double *)tmp)[e] = d->C0[e];
  CK(cudaMemcpy(dC, tmp, d->nc * es, cudaMemcpyHostToDevice));
  CK(cudaDeviceSynchronize()); /* as in the upload above */
  free(tmp);
  const int e =
      gs_matmul_kernels_launch(ctx, &g_mm, kn->id, d->dtype, c->m, c->n, c->k, dA, c->lda, dB, c->ldb, dC, c->ldc,
                               c->acc, st);
  const cudaError_t s = cudaStreamSynchronize(st);
  char head[320], what[512];
  if (e != 0 || s != cudaSuccess) {
    describe(head, sizeof head, kn, d);
    snprintf(what, sizeof what, "%s: launch returned %d (%s), sync %s", head, e, gs_matmul_kernels_error_string(e),
             cudaGetErrorString(s));
    expect(0, what);
    return NULL;
  }
  return from_dev(dC, d->nc, d->dtype);
}

/* Every kernel that runs d's dtype on d; our kernels twice on random inputs, bits compared. */
static void run_case(struct gs_cuda_ctx *ctx, const struct mm_case *c, int dtype, cudaStream_t st) {
  struct mm_data d;
  make_data(&d, c, dtype);
  void *bA, *bB, *bC;
  const void *dA = to_dev(d.A, d.na, dtype, 0, &bA), *dB = to_dev(d.B, d.nb, dtype, c->offb, &bB);
  void *dC = to_dev(d.C0, d.nc, dtype, c->offc, &bC);
  for (int q = 0; q < NKERNS; ++q) {
    const struct kern *kn = &g_kerns[q];
    if (!(dtype == GS_DTYPE_FLOAT ? kn->floats : kn->doubles)) continue;
    double *got = run(ctx, kn, &d, dA, dB, dC, st);
    if (!got) continue;
    compare(kn, &d, got);
    if (kn->ours && c->kind == KIND_RANDOM) {
      double *again = run(ctx, kn, &d, dA, dB, dC, st);
      char head[320], what[400];
      describe(head, sizeof head, kn, &d);
      snprintf(what, sizeof what, "%s: two runs differ", head);
      expect(again && memcmp(got, again, d.nc * sizeof *got) == 0, what);
      free(again);
    }
    free(got);
  }
  CK(cudaFree(bA));
  CK(cudaFree(bB));
  CK(cudaFree(bC));
  free_data(&d);
}

/* m, n, k, lda, ldb, ldc, offB, offC, accumulate, kind */
static const struct mm_case g_cases[] = {
    {1, 1, 1, 1, 1, 1, 0, 0, 0, KIND_INT},
    {1, 1, 1, 1, 1, 1, 0, 0, 1, KIND_RANDOM},
    {31, 33, 17, 17, 33, 33, 0, 0, 0, KIND_INT},
    {31, 33, 17, 17, 33, 33, 0, 0, 0, KIND_RANDOM},
    {97, 65, 129, 129, 65, 65, 0, 0, 0, KIND_RANDOM},
    {97, 65, 129, 131, 67, 70, 0, 0, 1, KIND_INT}, /* padded, ld not multiples of 4: scalar paths */
    {128, 128, 128, 128, 128, 128, 0, 0, 0, KIND_INT},
    {128, 128, 128, 128, 128, 128, 0, 0, 1, KIND_RANDOM},
    {130, 131, 33, 36, 136, 132, 0, 0, 0, KIND_RANDOM}, /* padded, ld multiples of 4: vector paths */
    {257, 255, 130, 130, 255, 255, 0, 0, 0, KIND_INT},
    {257, 255, 130, 130, 256, 256, 1, 1, 0, KIND_RANDOM}, /* B and C not 16-byte aligned */
    {257, 255, 130, 132, 256, 260, 0, 1, 1, KIND_INT},    /* only C misaligned */
    {257, 255, 130, 130, 256, 256, 1, 0, 0, KIND_INT},    /* only B misaligned */
    {64, 70, 0, 0, 70, 70, 0, 0, 0, KIND_INT},            /* k = 0: C = 0 */
    {64, 70, 0, 3, 72, 72, 0, 0, 1, KIND_RANDOM},         /* k = 0, accumulate: C unchanged */
    {96, 96, 96, 96, 96, 96, 0, 0, 0, KIND_SEED},
    {515, 777, 260, 260, 777, 777, 0, 0, 0, KIND_INT}, /* SIMT: 9 x 7 blocks of 9 k-tiles (float), 5 x 7 of 33 */
    {515, 777, 260, 264, 780, 780, 0, 0, 0, KIND_RANDOM},
    {515, 777, 260, 260, 777, 777, 0, 0, 1, KIND_RANDOM},
    /* 9 tile rows of 128: the tensor-core kernels' block groups of 8 tile rows and a remainder */
    {1100, 600, 200, 200, 600, 600, 0, 0, 0, KIND_INT},
    {1100, 600, 200, 204, 608, 604, 0, 0, 1, KIND_RANDOM},
    {65535u * 128 + 33, 1, 2, 2, 1, 1, 0, 0, 0, KIND_INT}, /* more tile rows than one launch's grid */
};
#define NCASES ((int)(sizeof g_cases / sizeof *g_cases))

/* A small device problem for the checks below: 64 x 64 x 64 integers, C read back. */
struct small {
  void *A, *B, *C;
  double ref[64 * 64];
};

static void small_make(struct small *sm, int dtype) {
  double a[64 * 64], b[64 * 64];
  for (int e = 0; e < 64 * 64; ++e)
    a[e] = (double)(e % 7 - 3), b[e] = (double)(e % 5 - 2);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      double s = 0;
      for (int p = 0; p < 64; ++p)
        s += a[i * 64 + p] * b[p * 64 + j];
      sm->ref[i * 64 + j] = s;
    }
  void *base;
  sm->A = to_dev(a, 64 * 64, dtype, 0, &base);
  sm->B = to_dev(b, 64 * 64, dtype, 0, &base);
  sm->C = to_dev(a, 64 * 64, dtype, 0, &base);
}

static void small_free(struct small *sm) {
  CK(cudaFree(sm->A));
  CK(cudaFree(sm->B));
  CK(cudaFree(sm->C));
}

/* Whether C (64 x 64) holds the product. */
static int small_right(const struct small *sm, int dtype) {
  double *got = from_dev(sm->C, 64 * 64, dtype);
  int ok = 1;
  for (int e = 0; e < 64 * 64; ++e)
    ok = ok && got[e] == sm->ref[e];
  free(got);
  return ok;
}

static int small_launch(struct gs_cuda_ctx *ctx, int kernel, int dtype, const struct small *sm, cudaStream_t st) {
  return gs_matmul_kernels_launch(ctx, &g_mm, kernel, dtype, 64, 64, 64, sm->A, 64, sm->B, 64, sm->C, 64, 0, st);
}

/* Arguments every kernel refuses with cudaErrorInvalidValue, launching nothing: C keeps its
 * bytes and no error is left behind. */
#define UNDER_TEST INT_MIN
struct bad_call {
  const char *what;
  int kernel, dtype; /* UNDER_TEST: the kernel under test */
  uint64_t m, n, k, lda, ldb, ldc;
  int null_a, null_b, null_c, null_ctx;
};
static const struct bad_call g_bad[] = {
    {"kernel 0", 0, GS_DTYPE_FLOAT, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"kernel GS_MK_COUNT", GS_MK_COUNT, GS_DTYPE_FLOAT, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"kernel -3", -3, GS_DTYPE_FLOAT, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"cublas-tf32 with double", GS_MK_CUBLAS_TF32, GS_DTYPE_DOUBLE, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"tc32 with double", GS_MK_TC32, GS_DTYPE_DOUBLE, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"wgmma with double", GS_MK_WGMMA, GS_DTYPE_DOUBLE, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"dmma with float", GS_MK_DMMA, GS_DTYPE_FLOAT, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"dtype int32", UNDER_TEST, GS_DTYPE_INT32, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"dtype GS_DTYPE_COUNT", UNDER_TEST, GS_DTYPE_COUNT, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"A NULL", UNDER_TEST, GS_DTYPE_FLOAT, 4, 4, 4, 4, 4, 4, 1, 0, 0, 0},
    {"B NULL", UNDER_TEST, GS_DTYPE_DOUBLE, 4, 4, 4, 4, 4, 4, 0, 1, 0, 0},
    {"C NULL", UNDER_TEST, GS_DTYPE_FLOAT, 4, 4, 4, 4, 4, 4, 0, 0, 1, 0},
    {"context NULL", UNDER_TEST, GS_DTYPE_FLOAT, 4, 4, 4, 4, 4, 4, 0, 0, 0, 1},
    {"lda < k", UNDER_TEST, GS_DTYPE_FLOAT, 4, 4, 4, 3, 4, 4, 0, 0, 0, 0},
    {"ldb < n", UNDER_TEST, GS_DTYPE_DOUBLE, 4, 4, 4, 4, 3, 4, 0, 0, 0, 0},
    {"ldc < n", UNDER_TEST, GS_DTYPE_FLOAT, 4, 4, 4, 4, 4, 3, 0, 0, 0, 0},
    {"lda < k, k = 1, lda = 0", UNDER_TEST, GS_DTYPE_FLOAT, 4, 4, 1, 0, 4, 4, 0, 0, 0, 0},
    {"m > 2^30", UNDER_TEST, GS_DTYPE_FLOAT, (1ull << 30) + 1, 4, 4, 4, 4, 4, 0, 0, 0, 0},
    {"n > 2^30", UNDER_TEST, GS_DTYPE_FLOAT, 4, (1ull << 30) + 1, 4, 4, (1ull << 30) + 1, (1ull << 30) + 1, 0, 0, 0, 0},
    {"k > 2^30", UNDER_TEST, GS_DTYPE_FLOAT, 4, 4, (1ull << 30) + 1, (1ull << 30) + 1, 4, 4, 0, 0, 0, 0},
    {"lda > INT_MAX", UNDER_TEST, GS_DTYPE_FLOAT, 4, 4, 4, (uint64_t)INT_MAX + 1, 4, 4, 0, 0, 0, 0},
    {"ldc > INT_MAX", UNDER_TEST, GS_DTYPE_DOUBLE, 4, 4, 4, 4, 4, (uint64_t)INT_MAX + 1, 0, 0, 0, 0},
};

/* The dtype a bad call on the kernel under test uses: its own float or double, where the kernel
 * runs only the other one (so the call is refused for the fault it names, not for the dtype). */
static int bad_dtype(const struct kern *kn, const struct bad_call *b) {
  if (b->kernel != UNDER_TEST) return b->dtype;
  if (b->dtype == GS_DTYPE_FLOAT && !kn->floats) return GS_DTYPE_DOUBLE;
  if (b->dtype == GS_DTYPE_DOUBLE && !kn->doubles) return GS_DTYPE_FLOAT;
  return b->dtype;
}

static void check_one_bad(struct gs_cuda_ctx *ctx, const struct kern *kn, const struct bad_call *b, void *buf,
                          cudaStream_t st) {
  const unsigned char pattern = 0x5a;
  CK(cudaMemset(buf, pattern, 4096));
  const int kernel = b->kernel == UNDER_TEST ? kn->id : b->kernel;
  const int e = gs_matmul_kernels_launch(b->null_ctx ? NULL : ctx, &g_mm, kernel, bad_dtype(kn, b), b->m, b->n, b->k,
                                         b->null_a ? NULL : buf, b->lda, b->null_b ? NULL : buf, b->ldb,
                                         b->null_c ? NULL : buf, b->ldc, 0, st);
  CK(cudaStreamSynchronize(st));
  const cudaError_t left = cudaGetLastError();
  unsigned char h[4096];
  CK(cudaMemcpy(h, buf, sizeof h, cudaMemcpyDeviceToHost));
  int same = 1;
  for (size_t i = 0; i < sizeof h; ++i)
    same = same && h[i] == pattern;
  char what[256];
  snprintf(what, sizeof what, "%s (kernel %s): returned %d (%s), want cudaErrorInvalidValue; C %s; error left: %s",
           b->what, kn->name, e, gs_matmul_kernels_error_string(e), same ? "untouched" : "CHANGED",
           cudaGetErrorString(left));
  expect(e == (int)cudaErrorInvalidValue && same && left == cudaSuccess, what);
}

static void check_args(struct gs_cuda_ctx *ctx, cudaStream_t st) {
  void *buf;
  CK(cudaMalloc(&buf, 4096));
  for (int q = 0; q < NKERNS; ++q)
    for (size_t b = 0; b < sizeof g_bad / sizeof *g_bad; ++b)
      check_one_bad(ctx, &g_kerns[q], &g_bad[b], buf, st);
  CK(cudaFree(buf));
}

/* m = 0 or n = 0: nothing to do, success; a matrix with no element may be NULL (A when m = 0,
 * B and C when n = 0, all when k is 0 too). */
static void check_empty(struct gs_cuda_ctx *ctx, cudaStream_t st) {
  void *buf;
  CK(cudaMalloc(&buf, 4096));
  for (int q = 0; q < NKERNS; ++q) {
    const struct kern *kn = &g_kerns[q];
    const int t = kn->floats ? GS_DTYPE_FLOAT : GS_DTYPE_DOUBLE;
    char what[128];
    snprintf(what, sizeof what, "%s: m = 0 or n = 0 is a success, empty matrices NULL", kn->name);
    const int e1 = gs_matmul_kernels_launch(ctx, &g_mm, kn->id, t, 0, 5, 5, NULL, 5, buf, 5, NULL, 5, 0, st);
    const int e2 = gs_matmul_kernels_launch(ctx, &g_mm, kn->id, t, 5, 0, 5, buf, 5, NULL, 0, NULL, 0, 1, st);
    const int e3 = gs_matmul_kernels_launch(ctx, &g_mm, kn->id, t, 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0, st);
    CK(cudaStreamSynchronize(st));
    expect(e1 == 0 && e2 == 0 && e3 == 0 && cudaGetLastError() == cudaSuccess, what);
  }
  CK(cudaFree(buf));
}

/* Each kernel runs on the stream it is given (cuBLAS: bound to it with cublasSetStream): held
 * behind a closed gate there, C must not change until the gate opens. One warm-up run first, so
 * nothing is loaded or allocated (which may synchronize) while the gate holds the stream. */
static void check_stream(struct gs_cuda_ctx *ctx, cudaStream_t st) {
  volatile int *h;
  int *d;
  CK(cudaHostAlloc((void **)&h, 2 * sizeof(int), cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void **)&d, (void *)h, 0));
  for (int q = 0; q < NKERNS; ++q) {
    const struct kern *kn = &g_kerns[q];
    const int dtype = kn->doubles ? GS_DTYPE_DOUBLE : GS_DTYPE_FLOAT;
    struct small sm;
    small_make(&sm, dtype);
    CK((cudaError_t)small_launch(ctx, kn->id, dtype, &sm, st));
    CK(cudaStreamSynchronize(st));
    CK(cudaMemset(sm.C, 0, 64 * 64 * gs_dtype_size(dtype)));
    h[0] = 0, h[1] = 0;
    CK((cudaError_t)gs_gate_launch(&d[0], &d[1], st));
    CK((cudaError_t)small_launch(ctx, kn->id, dtype, &sm, st));
    double *held = from_dev(sm.C, 64 * 64, dtype); /* legacy stream: does not wait for st */
    int zero = 1;
    for (int e = 0; e < 64 * 64; ++e)
      zero = zero && held[e] == 0;
    free(held);
    h[0] = 1;
    CK(cudaStreamSynchronize(st));
    char what[160];
    snprintf(what, sizeof what, "%s: runs on its stream (C unchanged behind a closed gate: %s; gate expired: %d)",
             kn->name, zero ? "yes" : "NO", h[1]);
    expect(zero && h[1] == 0 && small_right(&sm, dtype), what);
    small_free(&sm);
  }
  CK(cudaFreeHost((void *)h));
}

/* The cuBLAS handle: made on first use, kept in the matmul state, gone after
 * gs_matmul_kernels_free (which a second time does nothing), made again by the next call. Without
 * cuBLAS: its ids answer cudaErrorNotSupported. A NULL state is refused. Also the error names. */
static void check_cublas_handle(struct gs_cuda_ctx *ctx, cudaStream_t st) {
  struct small sm;
  small_make(&sm, GS_DTYPE_FLOAT);
#ifdef GS_HAVE_CUBLAS
  expect(g_mm.cublas != NULL, "the cuBLAS runs left a handle in the matmul state");
  expect(gs_matmul_kernels_free(&g_mm) == 0 && g_mm.cublas == NULL && g_mm.ws == NULL,
         "gs_matmul_kernels_free destroys the handle and frees the workspace");
  expect(gs_matmul_kernels_free(&g_mm) == 0 && g_mm.cublas == NULL, "a second gs_matmul_kernels_free does nothing");
  const int e = small_launch(ctx, GS_MK_CUBLAS, GS_DTYPE_FLOAT, &sm, st);
  CK(cudaStreamSynchronize(st));
  expect(e == 0 && g_mm.cublas != NULL && small_right(&sm, GS_DTYPE_FLOAT), "cuBLAS after free makes a new handle");
  const char *name = gs_matmul_kernels_error_string(GS_MATMUL_CUBLAS_STATUS + (int)7 /* INVALID_VALUE */);
  expect(name && strstr(name, "CUBLAS_STATUS_INVALID_VALUE"), "a cuBLAS status is named as one");
#else
  expect(g_mm.cublas == NULL, "no cuBLAS build: no handle");
  expect(small_launch(ctx, GS_MK_CUBLAS, GS_DTYPE_FLOAT, &sm, st) == (int)cudaErrorNotSupported,
         "no cuBLAS build: cublas answers cudaErrorNotSupported");
  expect(small_launch(ctx, GS_MK_CUBLAS_TF32, GS_DTYPE_FLOAT, &sm, st) == (int)cudaErrorNotSupported,
         "no cuBLAS build: cublas-tf32 answers cudaErrorNotSupported");
  expect(gs_matmul_kernels_free(&g_mm) == 0, "no cuBLAS build: gs_matmul_kernels_free succeeds");
#endif
  expect(gs_matmul_kernels_launch(ctx, NULL, GS_MK_GLOBAL, GS_DTYPE_FLOAT, 64, 64, 64, sm.A, 64, sm.B, 64, sm.C, 64, 0,
                                  st) == (int)cudaErrorInvalidValue,
         "a NULL matmul state is cudaErrorInvalidValue");
  expect(strcmp(gs_matmul_kernels_error_string((int)cudaErrorInvalidValue),
                cudaGetErrorString(cudaErrorInvalidValue)) == 0,
         "a cudaError_t is named by cudaGetErrorString");
  small_free(&sm);
}

int main(void) {
  const int skip = gs_gpu_skip_without_device();
  if (skip) return skip;
  CK(cudaSetDevice(0));
  struct gs_cuda_ctx ctx;
  CK((cudaError_t)gs_cuda_ctx_init(&ctx, 0));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (int q = 0; q < NCASES; ++q) {
    run_case(&ctx, &g_cases[q], GS_DTYPE_FLOAT, st);
    run_case(&ctx, &g_cases[q], GS_DTYPE_DOUBLE, st);
  }
  check_args(&ctx, st);
  check_empty(&ctx, st);
  check_stream(&ctx, st);
  check_cublas_handle(&ctx, st);
  expect(gs_matmul_kernels_free(&g_mm) == 0 && g_mm.cublas == NULL, "gs_matmul_kernels_free at the end");
  CK(cudaStreamDestroy(st));
  printf("test_gpu_matmul: %d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
#endif
