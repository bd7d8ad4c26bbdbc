/* The N-body launchers of cuda/ on a GPU: every kernel x precision x law x potential x
 * accumulate against a double-precision CPU direct sum, on sizes {1, 2, 7, 100, 257, 1000, 5000}
 * and i/j sub-ranges; a j range split into two calls (overwrite, then accumulate); the
 * integrators; argument checks; identical bits run to run; the launch context (struct
 * gs_cuda_ctx) that every launcher plans from. Exits 77 without a GPU (and in a CPU-only
 * build). */
#include <config.h>
#include "gs_gpu_skip.h"
#ifndef GS_HAVE_CUDA
int main(void) { return gs_gpu_skip("CPU-only build (configured without CUDA)"); }
#else
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gs_cuda.h"
#include "gs_gpu_skip.h" /* again, for its CUDA part */
#include "gs_gpu_check.h"
#include "gs_gpu_copy.h"
#include "gs_gpu_ref.h"

static const double G = 1.5, EPS2 = 1e-2, CUT2 = 2e-3;

/* Bodies as doubles (x, y, z, m) rounded to the precision under test, so the reference sees the
 * very inputs the GPU sees. Every 13th body is padding (mass 0). For the cutoff law, no pair
 * lies within 1e-3 relative of the cutoff: its fate would depend on rounding. */
static void make_bodies(double *b, int n, int prec, int law)
{
  for (int k = 0; k < n; ++k) {
    for (int c = 0; c < 3; ++c) b[4 * k + c] = urand() * 2 - 1;
    b[4 * k + 3] = (k % 13 == 12) ? 0.0 : (0.5 + urand()) / n;
    if (prec == 0)
      for (int c = 0; c < 4; ++c) b[4 * k + c] = (double)(float)b[4 * k + c];
  }
  if (law != GS_LAW_CUTOFF) return;
  for (int again = 1; again;) {
    again = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const double dx = b[4 * j] - b[4 * i], dy = b[4 * j + 1] - b[4 * i + 1], dz = b[4 * j + 2] - b[4 * i + 2];
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (fabs(r2 - CUT2) < 1e-3 * CUT2) {
          b[4 * j] += 0.01;
          if (prec == 0) b[4 * j] = (double)(float)b[4 * j];
          again = 1;
        }
      }
  }
}

/* Compare got with want (+ the accumulated-onto base when acc). */
static int close_enough(const double *got, const double *want, const double *mag, const double *base,
                        uint64_t ni, int prec, int pot, int acc, double *worst)
{
  const double tol = prec ? 1e-11 : 5e-5;
  int ok = 1;
  for (uint64_t k = 0; k < ni; ++k)
    for (int c = 0; c < 4; ++c) {
      double w = c < 3 || pot ? want[4 * k + c] : 0.0;
      if (acc) w += base[4 * k + c];
      const double scale = (c < 3 ? mag[2 * k] : mag[2 * k + 1]) * (c < 3 || pot ? 1.0 : 0.0) +
                           (acc ? fabs(base[4 * k + c]) : 0.0) + 1e-300;
      const double err = fabs(got[4 * k + c] - w) / scale;
      if (!(err <= tol)) ok = 0;
      if (!(err <= *worst)) *worst = err;
    }
  return ok;
}

/* One force evaluation as the backend makes it: workspace sized by the same context, zeroed
 * once, freed after. Returns the launcher's status; *ws_bytes (if not NULL) gets the workspace. */
static int run_forces(struct gs_cuda_ctx *c, struct gs_nbody_force_args *a, size_t *ws_bytes)
{
  a->ws_bytes = gs_nbody_kernels_workspace(c, a);
  a->ws = NULL;
  if (a->ws_bytes) {
    CK(cudaMalloc(&a->ws, a->ws_bytes));
    CK(cudaMemset(a->ws, 0, a->ws_bytes));
  }
  const int e = gs_nbody_kernels_launch(c, a, NULL);
  CK(cudaDeviceSynchronize());
  if (a->ws) CK(cudaFree(a->ws));
  a->ws = NULL;
  if (ws_bytes) *ws_bytes = a->ws_bytes;
  return e;
}

/* The arguments every force test starts from. */
static struct gs_nbody_force_args force_args(int kern, int prec, int law, const void *dpos, void *dacc)
{
  struct gs_nbody_force_args a;
  memset(&a, 0, sizeof a);
  a.kernel = kern; a.precision = prec; a.law = law; a.pos = dpos; a.acc = dacc;
  a.G = G; a.eps2 = EPS2; a.cut2 = CUT2;
  return a;
}

/* What test_forces reports at the end. */
struct force_stats {
  double worst[2][GS_NK_COUNT];
  size_t max_ws;
  int splits;
};

/* Targets [i0, i0+ni) and sources [j0, j0+nj) of bodies b (n of them, at dpos), every kernel x
 * potential x accumulate, each call onto what the previous one left in acc. */
static void forces_range(struct gs_cuda_ctx *c, const double *b, const void *dpos, int n, int prec, int law, int r,
                         const uint64_t *rg, struct force_stats *st)
{
  const uint64_t i0 = rg[0], ni = rg[1], j0 = rg[2], nj = rg[3];
  double *want = malloc(sizeof(double) * 4 * ni), *mag = malloc(sizeof(double) * 2 * ni);
  double *base = malloc(sizeof(double) * 4 * ni), *got = malloc(sizeof(double) * 4 * ni);
  gs_ref_direct(b, law == GS_LAW_CUTOFF, G, EPS2, CUT2, i0, ni, j0, nj, want, mag);
  for (uint64_t k = 0; k < 4 * ni; ++k) base[k] = prec ? urand() : (double)(float)urand();
  void *dacc = to_dev(base, 4 * ni, prec);
  for (int kern = 1; kern < GS_NK_COUNT; ++kern)
    for (int pot = 0; pot < 2; ++pot)
      for (int acc = 0; acc < 2; ++acc) {
        struct gs_nbody_force_args a = force_args(kern, prec, law, dpos, dacc);
        a.i_first = i0; a.i_count = ni; a.j_first = j0; a.j_count = nj;
        a.accumulate = acc; a.potential = pot;
        from_dev(base, dacc, 4 * ni, prec); /* what acc holds before this call */
        size_t ws = 0;
        const int e = run_forces(c, &a, &ws);
        if (ws) st->splits++;
        if (ws > st->max_ws) st->max_ws = ws;
        from_dev(got, dacc, 4 * ni, prec);
        char what[200];
        snprintf(what, sizeof what,
                 "forces kernel %d prec %d law %d pot %d acc %d n %d range %d (i %llu+%llu j %llu+%llu)", kern, prec,
                 law, pot, acc, n, r, (unsigned long long)i0, (unsigned long long)ni, (unsigned long long)j0,
                 (unsigned long long)nj);
        expect(e == 0 && close_enough(got, want, mag, base, ni, prec, pot, acc, &st->worst[prec][kern]), what);
      }
  CK(cudaFree(dacc));
  free(want); free(mag); free(base); free(got);
}

/* The j range in two calls, the second accumulating: the same as one call. */
static void forces_two_part(struct gs_cuda_ctx *c, const double *b, const void *dpos, int n, int prec, int law)
{
  const uint64_t half = (uint64_t)n / 2;
  for (int kern = 1; kern < GS_NK_COUNT; ++kern) {
    double *want = malloc(sizeof(double) * 4 * n), *mag = malloc(sizeof(double) * 2 * n);
    double *got = malloc(sizeof(double) * 4 * n);
    gs_ref_direct(b, law == GS_LAW_CUTOFF, G, EPS2, CUT2, 0, n, 0, n, want, mag);
    void *dacc = to_dev(want, 4 * (uint64_t)n, prec); /* garbage to overwrite */
    for (int part = 0; part < 2; ++part) {
      struct gs_nbody_force_args a = force_args(kern, prec, law, dpos, dacc);
      a.i_first = 0; a.i_count = n;
      a.j_first = part ? half : 0; a.j_count = part ? n - half : half;
      a.accumulate = part; a.potential = 1;
      expect(run_forces(c, &a, NULL) == 0, "split call returned an error");
    }
    from_dev(got, dacc, 4 * (uint64_t)n, prec);
    char what[160];
    snprintf(what, sizeof what, "two-part j range kernel %d prec %d law %d n %d", kern, prec, law, n);
    double w = 0;
    expect(close_enough(got, want, mag, NULL, n, prec, 1, 0, &w), what);
    CK(cudaFree(dacc));
    free(want); free(mag); free(got);
  }
}

/* n bodies: the full range, overlapping sub-ranges, disjoint targets and sources; then the
 * two-part j range. */
static void forces_size(struct gs_cuda_ctx *c, int n, int prec, int law, struct force_stats *st)
{
  double *b = malloc(sizeof(double) * 4 * n);
  make_bodies(b, n, prec, law);
  void *dpos = to_dev(b, 4 * (uint64_t)n, prec);
  uint64_t rg[3][4] = {{0, (uint64_t)n, 0, (uint64_t)n},
                       {(uint64_t)n / 3, (uint64_t)(n / 2 ? n / 2 : 1), (uint64_t)n / 5, 0},
                       {0, (uint64_t)(n + 1) / 2, (uint64_t)n / 2, (uint64_t)(n - n / 2)}};
  rg[1][3] = (uint64_t)(n - n / 7) > rg[1][2] ? (uint64_t)(n - n / 7) - rg[1][2] : 1;
  for (int r = 0; r < 3; ++r) {
    const uint64_t i0 = rg[r][0], ni = rg[r][1], j0 = rg[r][2], nj = rg[r][3];
    if (i0 + ni > (uint64_t)n || j0 + nj > (uint64_t)n || ni == 0 || nj == 0) continue;
    forces_range(c, b, dpos, n, prec, law, r, rg[r], st);
  }
  if (n >= 2) forces_two_part(c, b, dpos, n, prec, law);
  CK(cudaFree(dpos));
  free(b);
}

static void test_forces(struct gs_cuda_ctx *c)
{
  static const int sizes[] = {1, 2, 7, 100, 257, 1000, 5000};
  struct force_stats st;
  memset(&st, 0, sizeof st);
  for (int prec = 0; prec < 2; ++prec)
    for (int law = 0; law < 2; ++law)
      for (unsigned si = 0; si < sizeof sizes / sizeof *sizes; ++si) forces_size(c, sizes[si], prec, law, &st);
  for (int prec = 0; prec < 2; ++prec)
    for (int kern = 1; kern < GS_NK_COUNT; ++kern)
      printf("# worst error / magnitude: precision %d kernel %d: %.3g\n", prec, kern, st.worst[prec][kern]);
  printf("# kernel 8 split %d times, largest workspace %zu bytes\n", st.splits, st.max_ws);
}

/* Kernel 8 must give the same bits run after run. */
static void test_determinism(struct gs_cuda_ctx *c)
{
  const int n = 5000;
  for (int prec = 0; prec < 2; ++prec) {
    double *b = malloc(sizeof(double) * 4 * n), *r1 = malloc(sizeof(double) * 4 * n), *r2 = malloc(sizeof(double) * 4 * n);
    make_bodies(b, n, prec, GS_LAW_PLUMMER);
    void *dpos = to_dev(b, 4 * (uint64_t)n, prec), *dacc = to_dev(b, 4 * (uint64_t)n, prec);
    struct gs_nbody_force_args a;
    memset(&a, 0, sizeof a);
    a.kernel = GS_NK_JSPLIT; a.precision = prec; a.law = GS_LAW_PLUMMER; a.pos = dpos;
    a.i_first = 0; a.i_count = 300; a.j_first = 0; a.j_count = n;
    a.acc = dacc; a.potential = 1; a.G = G; a.eps2 = EPS2; a.cut2 = CUT2;
    a.ws_bytes = gs_nbody_kernels_workspace(c, &a);
    if (a.ws_bytes) CK(cudaMalloc(&a.ws, a.ws_bytes));
    expect(gs_nbody_kernels_launch(c, &a, NULL) == 0, "determinism run 1");
    CK(cudaDeviceSynchronize());
    from_dev(r1, dacc, 4 * 300, prec);
    expect(gs_nbody_kernels_launch(c, &a, NULL) == 0, "determinism run 2");
    CK(cudaDeviceSynchronize());
    from_dev(r2, dacc, 4 * 300, prec);
    expect(memcmp(r1, r2, sizeof(double) * 4 * 300) == 0, "kernel 8 is deterministic");
    if (a.ws) CK(cudaFree(a.ws));
    CK(cudaFree(dpos)); CK(cudaFree(dacc));
    free(b); free(r1); free(r2);
  }
}

/* Kick and drift are one update, x.xyz += y.xyz dt with w kept: does got match it? Single
 * precision must round as one fmaf does; double within 1e-15. */
static int axpy_ok(const double *got, const double *x, const double *y, uint64_t n, double dt, int prec)
{
  for (uint64_t k = 0; k < 4 * n; ++k) {
    double want = k % 4 < 3 ? x[k] + y[k] * dt : x[k];
    if (!prec && k % 4 < 3) want = (double)fmaf((float)y[k], (float)dt, (float)x[k]);
    if (got[k] != want && fabs(got[k] - want) > 1e-15 * fabs(want)) return 0;
  }
  return 1;
}

static void test_integrators(struct gs_cuda_ctx *c)
{
  static const uint64_t counts[] = {1, 7, 1000, 100003};
  for (int prec = 0; prec < 2; ++prec)
    for (unsigned ci = 0; ci < sizeof counts / sizeof *counts; ++ci) {
      const uint64_t n = counts[ci];
      double *p = malloc(sizeof(double) * 4 * n), *v = malloc(sizeof(double) * 4 * n);
      double *a = malloc(sizeof(double) * 4 * n), *got = malloc(sizeof(double) * 4 * n);
      for (uint64_t k = 0; k < 4 * n; ++k) {
        p[k] = urand(); v[k] = urand(); a[k] = urand();
        if (!prec) { p[k] = (float)p[k]; v[k] = (float)v[k]; a[k] = (float)a[k]; }
      }
      void *dp = to_dev(p, 4 * n, prec), *dv = to_dev(v, 4 * n, prec), *da = to_dev(a, 4 * n, prec);
      const double dt = 0.125; /* exact in both precisions */
      expect(gs_nbody_integrate_kick(c, prec, dv, da, n, dt, NULL) == 0, "kick returns 0");
      expect(gs_nbody_integrate_drift(c, prec, dp, dv, n, dt, NULL) == 0, "drift returns 0");
      CK(cudaDeviceSynchronize());
      from_dev(got, dv, 4 * n, prec);
      const int okv = axpy_ok(got, v, a, n, dt, prec);
      memcpy(v, got, sizeof(double) * 4 * n); /* drift moves with the kicked velocities */
      from_dev(got, dp, 4 * n, prec);
      const int okp = axpy_ok(got, p, v, n, dt, prec);
      char what[100];
      snprintf(what, sizeof what, "kick prec %d n %llu", prec, (unsigned long long)n);
      expect(okv, what);
      snprintf(what, sizeof what, "drift (mass kept) prec %d n %llu", prec, (unsigned long long)n);
      expect(okp, what);
      CK(cudaFree(dp)); CK(cudaFree(dv)); CK(cudaFree(da));
      free(p); free(v); free(a); free(got);
    }
}

static void test_arguments(struct gs_cuda_ctx *c)
{
  void *d = NULL;
  CK(cudaMalloc(&d, 1 << 20));
  struct gs_nbody_force_args a, b;
  memset(&a, 0, sizeof a);
  a.kernel = GS_NK_MULTI; a.pos = d; a.acc = (char *)d + 4096; a.i_count = 10; a.j_count = 10;
  a.G = 1; a.eps2 = 0.01; a.cut2 = 0.01;
  expect(gs_nbody_kernels_launch(c, &a, NULL) == 0, "valid call");
  CK(cudaDeviceSynchronize());
  const int inval = (int)cudaErrorInvalidValue;
  b = a; b.kernel = 0; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "kernel 0");
  b = a; b.kernel = GS_NK_COUNT; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "kernel COUNT");
  b = a; b.precision = 2; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "precision 2");
  b = a; b.law = 2; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "law 2");
  b = a; b.pos = NULL; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "null pos");
  b = a; b.acc = NULL; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "null acc");
  b = a; b.eps2 = 0; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "eps2 0 without i != j");
  b = a; b.eps2 = -1; b.kernel = 1; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "eps2 < 0");
  b = a; b.law = GS_LAW_CUTOFF; b.cut2 = 0;
  expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "cut2 0 without i != j");
  b = a; b.i_first = UINT64_MAX; expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "i range wraps");
  expect(gs_nbody_kernels_launch(c, NULL, NULL) == inval, "null args");
  expect(gs_nbody_kernels_launch(NULL, &a, NULL) == inval, "null context");
  b = a; b.i_count = 0; b.pos = NULL; b.acc = NULL; expect(gs_nbody_kernels_launch(c, &b, NULL) == 0, "no targets");
  b = a; b.kernel = GS_NK_JSPLIT; b.i_count = 100; b.j_count = 100000;
  const size_t ws = gs_nbody_kernels_workspace(c, &b);
  printf("# workspace for kernel 8, 100 targets x 1e5 sources: %zu bytes\n", ws);
  if (ws) {
    b.ws = d; b.ws_bytes = ws - 1;
    expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "workspace too small");
    b.ws = NULL; b.ws_bytes = ws;
    expect(gs_nbody_kernels_launch(c, &b, NULL) == inval, "workspace null");
  }
  expect(gs_nbody_integrate_kick(c, 3, d, d, 10, 0.1, NULL) == inval, "kick precision");
  expect(gs_nbody_integrate_kick(c, 0, NULL, d, 10, 0.1, NULL) == inval, "kick null");
  expect(gs_nbody_integrate_drift(c, 1, d, NULL, 10, 0.1, NULL) == inval, "drift null");
  expect(gs_nbody_integrate_drift(c, 1, NULL, NULL, 0, 0.1, NULL) == 0, "drift nothing");
  expect(gs_nbody_integrate_kick(NULL, 0, d, d, 10, 0.1, NULL) == inval, "kick without a context");
  expect(gs_nbody_kernels_workspace(NULL, &b) == 0, "workspace without a context");
  CK(cudaFree(d));
}

/* A copy of c whose occupancy table is full of entries that match no kernel. */
static struct gs_cuda_ctx ctx_full(const struct gs_cuda_ctx *c)
{
  struct gs_cuda_ctx f = *c;
  for (int k = 0; k < GS_CUDA_OCC_MAX; ++k) {
    f.occ[k].func = &f.occ[k]; /* an address that is no kernel's */
    f.occ[k].block = 128;
    f.occ[k].per_sm = 99;
  }
  f.nocc = GS_CUDA_OCC_MAX;
  return f;
}

/* The launch context every plan is made from: the SM count read by gs_cuda_ctx_init, occupancy
 * answers asked once per kernel and block size, remembered, used as remembered, and still right
 * when the table is full. Kernel 8's split plan for 100 targets x 1e5 sources splits on any modern
 * GPU (a block of targets is far from filling it) and changes with the SM count (it asks no
 * occupancy: its model counts blocks per SM); kernel 8 of the reduction sizes its partials as
 * SMs x occupancy. */
static void test_ctx(const struct gs_cuda_ctx *dev)
{
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev->device));
  expect(sms > 0 && dev->sm_count == sms, "gs_cuda_ctx_init reads the SM count");
  struct gs_cuda_ctx c;
  CK((cudaError_t)gs_cuda_ctx_init(&c, dev->device));
  expect(c.nocc == 0 && c.sm_count == sms, "a new context remembers no occupancy");
  struct gs_nbody_force_args a = force_args(GS_NK_JSPLIT, 0, GS_LAW_PLUMMER, NULL, NULL);
  a.i_count = 100; a.j_count = 100000;
  const size_t ws = gs_nbody_kernels_workspace(&c, &a);
  expect(ws > 0 && gs_nbody_kernels_workspace(&c, &a) == ws, "a split plan, the same twice");
  struct gs_cuda_ctx one = c;
  one.sm_count = 1;
  const size_t ws_one = gs_nbody_kernels_workspace(&one, &a);
  expect(ws_one != ws, "the split plan follows the context's SM count");
  printf("# %d SMs; kernel 8 split: %zu bytes, %zu with one SM\n", sms, ws, ws_one);

  const uint64_t n = (uint64_t)1 << 26; /* far more blocks of work than one wave */
  const size_t wr = gs_reduce_kernels_workspace(&c, GS_RK_VEC, GS_DTYPE_DOUBLE, GS_OP_SUM, n, 256);
  expect(c.nocc == 1 && c.occ[0].block == 256 && c.occ[0].per_sm >= 1 &&
             wr == 256 + (size_t)sms * c.occ[0].per_sm * sizeof(double),
         "reduction kernel 8: header + SMs x remembered occupancy partials");
  expect(gs_reduce_kernels_workspace(&c, GS_RK_VEC, GS_DTYPE_DOUBLE, GS_OP_SUM, n, 256) == wr && c.nocc == 1,
         "the same plan again asks nothing new");
  struct gs_cuda_ctx full = ctx_full(&c);
  expect(gs_reduce_kernels_workspace(&full, GS_RK_VEC, GS_DTYPE_DOUBLE, GS_OP_SUM, n, 256) == wr &&
             full.nocc == GS_CUDA_OCC_MAX && full.occ[0].per_sm == 99,
         "a full context plans the same and stores nothing");
  struct gs_cuda_ctx other = c;
  other.occ[0].per_sm = c.occ[0].per_sm > 1 ? 1 : 8;
  expect(gs_reduce_kernels_workspace(&other, GS_RK_VEC, GS_DTYPE_DOUBLE, GS_OP_SUM, n, 256) ==
             256 + (size_t)sms * other.occ[0].per_sm * sizeof(double),
         "the plan uses the remembered occupancy");
  one = c;
  one.sm_count = 1; /* a grid of one block needs no partials */
  const size_t want_one = c.occ[0].per_sm > 1 ? 256 + (size_t)c.occ[0].per_sm * sizeof(double) : 0;
  expect(gs_reduce_kernels_workspace(&one, GS_RK_VEC, GS_DTYPE_DOUBLE, GS_OP_SUM, n, 256) == want_one,
         "reduction kernel 8 sizes its grid from the context's SM count");
  expect(gs_reduce_kernels_workspace(NULL, GS_RK_VEC, GS_DTYPE_DOUBLE, GS_OP_SUM, n, 256) == 0,
         "reduction workspace without a context");
}

int main(void)
{
  const int skip = gs_gpu_skip_without_device();
  if (skip) return skip;
  /* What the CUDA backend does at open: the device current, then its launch context. */
  struct gs_cuda_ctx ctx;
  CK(cudaSetDevice(0));
  CK((cudaError_t)gs_cuda_ctx_init(&ctx, 0));
  test_ctx(&ctx);
  test_arguments(&ctx);
  test_integrators(&ctx);
  test_determinism(&ctx);
  test_forces(&ctx);
  printf("checks: %d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
#endif
