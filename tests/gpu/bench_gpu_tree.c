/* bench_gpu_tree: times the Barnes-Hut launchers of cuda/ on a GPU; a benchmark, not a test
 * (`make check` builds it beside test_gpu_tree, which holds the tree's checks, and runs neither
 * on a machine without a GPU). Inputs and error statistics are gs_gpu_tree.h's.
 *
 *   bench_gpu_tree [LOG2N]   build and walk at 2^20, 2^24, ... up to 2^LOG2N bodies (24 when
 *                            left out; float, Plummer, theta 0.5, eps 0.05: issue 15's
 *                            configuration; then 8 tight clusters, and every body at one point,
 *                            at the largest n), median of 5 after a warm-up, with the error of
 *                            1024 targets against the GPU's double-precision direct sum;
 *   bench_gpu_tree --crossover   the tree against the direct kernel from 2^10 to 2^18 bodies,
 *                            single and double.
 *
 * Exits 0 after printing its rows, 2 on bad usage, 77 without a GPU (and in a CPU-only build),
 * 1 on a runtime error (CK). */
#include <config.h>
#include "gs_gpu_skip.h"
#ifndef GS_HAVE_CUDA
int main(void) { return gs_gpu_skip("CPU-only build (configured without CUDA)"); }
#else
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gs_cuda.h"
#include "gs_gpu_skip.h" /* again, for its CUDA part */
#include "gs_gpu_tree.h"

static int cmp_float(const void *x, const void *y)
{
  const float a = *(const float *)x, b = *(const float *)y;
  return a < b ? -1 : a > b;
}

/* Median of 5 timed build + walk pairs after a warm-up, on stream st: ms[0] build, ms[1] walk. */
static void bench_time(struct gs_cuda_ctx *c, struct gs_tree_args *a, cudaStream_t st, float *ms)
{
  cudaEvent_t ev[3];
  float t[2][5];
  for (int k = 0; k < 3; ++k) CK(cudaEventCreate(&ev[k]));
  CK(gs_tree_build_launch(c, a, st));
  CK(gs_tree_walk_launch(c, a, st));
  for (int r = 0; r < 5; ++r) {
    CK(cudaMemsetAsync(a->counts, 0, GS_TREE_COUNTS * sizeof(uint64_t), st));
    CK(cudaEventRecord(ev[0], st));
    CK(gs_tree_build_launch(c, a, st));
    CK(cudaEventRecord(ev[1], st));
    CK(gs_tree_walk_launch(c, a, st));
    CK(cudaEventRecord(ev[2], st));
    CK(cudaEventSynchronize(ev[2]));
    CK(cudaEventElapsedTime(&t[0][r], ev[0], ev[1]));
    CK(cudaEventElapsedTime(&t[1][r], ev[1], ev[2]));
  }
  for (int k = 0; k < 2; ++k) {
    qsort(t[k], 5, sizeof(float), cmp_float);
    ms[k] = t[k][2];
  }
  for (int k = 0; k < 3; ++k) CK(cudaEventDestroy(ev[k]));
}

/* Kick + drift of n bodies (the integration of a step), median of 5, in ms. */
static float bench_integrate(struct gs_cuda_ctx *c, void *pos, void *acc, uint64_t n, cudaStream_t st)
{
  void *vel = NULL;
  cudaEvent_t e0, e1;
  float t[5];
  CK(cudaMalloc(&vel, n * 16));
  CK(cudaMemsetAsync(vel, 0, n * 16, st));
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int r = 0; r < 5; ++r) {
    CK(cudaEventRecord(e0, st));
    CK(gs_nbody_integrate_kick(c, 0, vel, acc, n, 0.0, st));
    CK(gs_nbody_integrate_drift(c, 0, pos, vel, n, 0.0, st)); /* dt 0: the positions stay */
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&t[r], e0, e1));
  }
  qsort(t, 5, sizeof(float), cmp_float);
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1)); CK(cudaFree(vel));
  return t[2];
}

/* The tree's accelerations of targets [0, 1024) against the GPU's double direct sum (kernel 7). */
static struct errs bench_error(struct gs_cuda_ctx *c, const struct input *in, const void *acc)
{
  const uint64_t nt = in->n < 1024 ? in->n : 1024;
  void *dpos = to_dev(in->b, 4 * in->n, 1), *dacc = NULL;
  CK(cudaMalloc(&dacc, nt * 32));
  struct gs_nbody_force_args f;
  memset(&f, 0, sizeof f);
  f.kernel = GS_NK_MULTI; f.precision = 1; f.law = GS_LAW_PLUMMER; f.pos = dpos;
  f.i_first = 0; f.i_count = nt; f.j_first = 0; f.j_count = in->n; f.acc = dacc;
  f.G = G; f.eps2 = EPS2;
  CK(gs_nbody_kernels_launch(c, &f, NULL));
  CK(cudaDeviceSynchronize());
  double *want = malloc(sizeof(double) * 4 * nt), *got = malloc(sizeof(double) * 4 * nt);
  from_dev(want, dacc, 4 * nt, 1);
  from_dev(got, acc, 4 * nt, 0);
  for (uint64_t k = 0; k < nt; ++k) got[4 * k + 3] = want[4 * k + 3] = 0; /* forces only */
  const struct errs e = errors(got, want, nt);
  CK(cudaFree(dpos)); CK(cudaFree(dacc));
  free(want); free(got);
  return e;
}

/* One configuration: n bodies, a Plummer sphere (shape 0), 8 tight clusters of radius 1e-4 in
 * one (1), or every body at one point (2). */
static void bench_one(struct gs_cuda_ctx *c, uint64_t n, int clustered)
{
  static const char *shape[3] = {"plummer", "8 clusters", "coincident"};
  struct input in = make_input(n, n, 0);
  if (clustered == 2) {
    for (uint64_t k = 0; k < n; ++k) in.b[4 * k] = 0.25, in.b[4 * k + 1] = -0.5, in.b[4 * k + 3] = 1.0 / n;
  } else if (clustered) {
    for (int k = 0; k < 8; ++k)
      plummer(in.b, (uint64_t)k * (n / 8), n / 8, 1e-4, urand() - 0.5, urand() - 0.5, urand() - 0.5, 1.0 / 8);
  } else {
    plummer(in.b, 0, n, 1.0, 0, 0, 0, 1.0);
  }
  round_to(&in);
  struct gs_tree_args a = tree_args(&in);
  a.potential = 0;
  struct dev d = dev_open(c, &in, &a);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  float ms[2];
  bench_time(c, &a, st, ms);
  uint64_t counts[GS_TREE_COUNTS];
  CK(cudaMemcpy(counts, a.counts, sizeof counts, cudaMemcpyDeviceToHost));
  const float integ = bench_integrate(c, d.pos, d.acc, n, st);
  const struct errs e = bench_error(c, &in, d.acc);
  printf("bench n %llu %s float theta 0.5 eps 0.05: build %.3f ms, walk %.3f ms, kick+drift %.3f ms, step %.3f ms; "
         "%.0f interactions/body (%.0f body-body, %.0f body-cell); %.1f targets/group; p99 rel. error %.3g, max %.3g; "
         "workspace %.0f MB\n",
         (unsigned long long)n, shape[clustered], ms[0], ms[1], integ, ms[0] + ms[1] + integ,
         (double)(counts[0] + counts[1]) / n, (double)counts[0] / n, (double)counts[1] / n,
         counts[GS_TREE_GROUPS] ? (double)n / (double)counts[GS_TREE_GROUPS] : 0.0, e.p99, e.max, d.ws_bytes / 1e6);
  CK(cudaStreamDestroy(st));
  dev_close(&d);
  free(in.b);
}

/* Median of 5 direct force evaluations (kernel 7, all pairs) of the tree's input, in ms. */
static float bench_direct(struct gs_cuda_ctx *c, const struct gs_tree_args *a, cudaStream_t st)
{
  struct gs_nbody_force_args f;
  memset(&f, 0, sizeof f);
  f.kernel = GS_NK_MULTI; f.precision = a->precision; f.law = GS_LAW_PLUMMER; f.pos = a->pos;
  f.i_count = a->n; f.j_count = a->n; f.acc = a->acc; f.G = G; f.eps2 = EPS2;
  cudaEvent_t e0, e1;
  float t[5];
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  CK(gs_nbody_kernels_launch(c, &f, st));
  for (int r = 0; r < 5; ++r) {
    CK(cudaEventRecord(e0, st));
    CK(gs_nbody_kernels_launch(c, &f, st));
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&t[r], e0, e1));
  }
  qsort(t, 5, sizeof(float), cmp_float);
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
  return t[2];
}

/* --crossover: tree (build + walk) against the direct kernel for n = 2^10 .. 2^18, both
 * precisions, Plummer spheres, theta 0.5. */
static void bench_crossover(struct gs_cuda_ctx *c)
{
  for (int prec = 0; prec < 2; ++prec)
    for (int lg = 10; lg <= 18; ++lg) {
      struct input in = make_input(1ull << lg, 1ull << lg, prec);
      plummer(in.b, 0, in.n, 1.0, 0, 0, 0, 1.0);
      round_to(&in);
      struct gs_tree_args a = tree_args(&in);
      a.potential = 0;
      struct dev d = dev_open(c, &in, &a);
      cudaStream_t st;
      CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
      float ms[2];
      bench_time(c, &a, st, ms);
      const float direct = bench_direct(c, &a, st);
      printf("crossover %s n 2^%d: tree %.3f ms (build %.3f, walk %.3f), direct (kernel multi) %.3f ms: %s\n",
             prec ? "double" : "float", lg, ms[0] + ms[1], ms[0], ms[1], direct,
             ms[0] + ms[1] < direct ? "tree faster" : "direct faster");
      CK(cudaStreamDestroy(st));
      dev_close(&d);
      free(in.b);
    }
}


int main(int argc, char **argv)
{
  const int crossover = argc == 2 && strcmp(argv[1], "--crossover") == 0;
  char *end = NULL;
  const long top = argc == 2 && !crossover ? strtol(argv[1], &end, 10) : 24;
  if (argc > 2 || (argc == 2 && !crossover && (end == argv[1] || *end || top < 10 || top > 30))) {
    fprintf(stderr, "usage: bench_gpu_tree [LOG2N (10..30, default 24) | --crossover]\n");
    return 2;
  }
  const int skip = gs_gpu_skip_without_device();
  if (skip) return skip;
  struct gs_cuda_ctx ctx;
  CK(cudaSetDevice(0));
  CK((cudaError_t)gs_cuda_ctx_init(&ctx, 0));
  if (crossover) {
    bench_crossover(&ctx);
    return 0;
  }
  for (int lg = 20; lg <= top; lg += 4) bench_one(&ctx, 1ull << lg, 0);
  bench_one(&ctx, 1ull << top, 1);
  bench_one(&ctx, 1ull << top, 2);
  return 0;
}
#endif
