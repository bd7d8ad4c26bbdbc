/* gs_fmm_bench: times the CPU backend's fast multipole primitives on given bodies, for the
 * side-by-side comparison with FMM3D (jobs/bench/fmm_anchor.py); a benchmark, not a test (`make
 * check` builds it and runs none of it). Unlike `gpusim nbody` it takes eps = 0, FMM3D's
 * unsoftened kernel, whose self term gpusim's direct-sum check cannot take.
 *
 *   gs_fmm_bench IN OUT ORDER THETA EPS REPEATS
 *
 * IN: n rows of (x, y, z, m) as little-endian doubles; OUT: n rows of (ax, ay, az, phi), G = 1.
 * Prints one line: n, order, theta, the median seconds of REPEATS evaluations (build to unsort)
 * and of each part, and the interactions counted. Exits 0, 2 on bad usage or input. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend_cpu.h"

static int gs_fmm_bench_cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: gs_fmm_bench IN OUT ORDER THETA EPS REPEATS\n");
    return 2;
  }
  int order = atoi(argv[3]), reps = atoi(argv[6]);
  double theta = atof(argv[4]), eps = atof(argv[5]);
  FILE *f = fopen(argv[1], "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0 || reps < 1 || order < GS_FMM_ORDER_MIN || order > GS_FMM_ORDER_MAX) {
    fprintf(stderr, "gs_fmm_bench: cannot read %s, or a bad order or repeat count\n", argv[1]);
    return 2;
  }
  uint64_t n = (uint64_t)ftell(f) / 32;
  double *pos = malloc(32 * (n ? n : 1)), *acc = malloc(32 * (n ? n : 1)), *t = malloc(sizeof *t * 5 * (size_t)reps);
  rewind(f);
  if (!pos || !acc || !t || fread(pos, 32, n, f) != n) {
    fprintf(stderr, "gs_fmm_bench: cannot read %llu bodies from %s\n", (unsigned long long)n, argv[1]);
    return 2;
  }
  fclose(f);
  struct gs_ctx c;
  memset(&c, 0, sizeof c);
  const struct gs_fmm_ops *o = &gs_backend_cpu_fmm_ops;
  void *s = o->open(&c);
  uint64_t cnt[GS_FMM_COUNTS] = {0};
  struct gs_fmm_args a = {.precision = 1, .pos = pos, .n = n, .potential = 1, .G = 1, .eps2 = eps * eps,
                          .order = order, .theta = theta, .counts = cnt};
  for (int r = 0; r < reps; r++) {
    double w[6];
    w[0] = omp_get_wtime(), o->build(&c, s, &a, NULL), w[1] = omp_get_wtime();
    o->upward(&c, s, &a, NULL), w[2] = omp_get_wtime();
    o->interact(&c, s, &a, NULL), w[3] = omp_get_wtime();
    o->downward(&c, s, &a, NULL), o->unsort(&c, s, &a, acc, 0, n, NULL), w[4] = omp_get_wtime();
    t[r] = w[4] - w[0];
    for (int k = 0; k < 4; k++)
      t[(size_t)(k + 1) * reps + r] = w[k + 1] - w[k];
  }
  for (int k = 0; k < 5; k++)
    qsort(t + (size_t)k * reps, (size_t)reps, sizeof *t, gs_fmm_bench_cmp);
  printf("n %llu order %d theta %g threads %d seconds %.6f build %.6f upward %.6f walk %.6f downward %.6f m2l %llu "
         "p2p %llu\n",
         (unsigned long long)n, order, theta, omp_get_max_threads(), t[reps / 2], t[reps + reps / 2],
         t[2 * reps + reps / 2], t[3 * reps + reps / 2], t[4 * reps + reps / 2], (unsigned long long)cnt[GS_FMM_M2L],
         (unsigned long long)cnt[GS_FMM_P2P]);
  f = fopen(argv[2], "wb");
  if (!f || fwrite(acc, 32, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "gs_fmm_bench: cannot write %s\n", argv[2]);
    return 2;
  }
  o->close(&c, s);
  free(pos), free(acc), free(t);
  return 0;
}
