/* gs_matmul_ref.c: the inputs and exact answers of `gpusim matmul` (see the header). */
#include "gs_matmul_ref.h"

#include <math.h>

#include "gs_matmul_options.h"

/* splitmix64's finaliser, as in gs_reduce_ref.c: stateless per index. */
static inline uint64_t gs_matmul_hash(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

#define GS_MATMUL_GRID_BITS 10 /* random values are q * 2^-10, |q| <= 2^10 */

/* A uniform multiple of 2^-10 in [-1, 1] for element `index` of stream `which`. */
static double gs_matmul_ref_uniform(const struct gs_matmul_ref *r, uint64_t which, uint64_t index) {
  uint64_t h = gs_matmul_hash(gs_matmul_hash(r->seed ^ (which << 56) ^ 0x6d61746dULL) + index);
  int64_t span = ((int64_t)1 << (GS_MATMUL_GRID_BITS + 1)) + 1;
  return ldexp((double)((int64_t)(h % (uint64_t)span) - ((int64_t)1 << GS_MATMUL_GRID_BITS)), -GS_MATMUL_GRID_BITS);
}

double gs_matmul_ref_a(const struct gs_matmul_ref *r, uint64_t i, uint64_t k) {
  if (r->ic == GS_MATMUL_IC_SEED) return (double)(2 * k + i);
  return gs_matmul_ref_uniform(r, 1, i * r->k + k);
}

double gs_matmul_ref_b(const struct gs_matmul_ref *r, uint64_t k, uint64_t j) {
  if (r->ic == GS_MATMUL_IC_SEED) return (double)j - (double)k;
  return gs_matmul_ref_uniform(r, 2, k * r->n + j);
}

double gs_matmul_ref_x(const struct gs_matmul_ref *r, int v, uint64_t j) {
  uint64_t h = gs_matmul_hash(gs_matmul_hash(r->seed ^ 0x78766563ULL ^ ((uint64_t)(v + 3) << 56)) + j);
  double mag = 0.5 + 0.5 * (double)(h >> 11) * 0x1p-53; /* [1/2, 1]: no entry hides an error */
  return h & 1 ? -mag : mag;
}

void gs_matmul_ref_fill(const struct gs_matmul_ref *r, char which, enum gs_dtype t, void *dst, uint64_t i0,
                        uint64_t rows, uint64_t c0, uint64_t cols, uint64_t ld) {
#pragma omp parallel for schedule(static)
  for (uint64_t i = 0; i < rows; i++)
    for (uint64_t c = 0; c < cols; c++) {
      double v = which == 'a' ? gs_matmul_ref_a(r, i0 + i, c0 + c) : gs_matmul_ref_b(r, i0 + i, c0 + c);
      if (t == GS_DTYPE_DOUBLE) ((double *)dst)[i * ld + c] = v;
      else ((float *)dst)[i * ld + c] = (float)v;
    }
}

/* F(n) = sum_{k < n} (2k + i)(j - k) = 2j S1 - 2 S2 + n i j - i S1, with S1 = sum k = n(n-1)/2 and
 * S2 = sum k^2 = (n-1) n (2n-1) / 6; in 128-bit integers, exact for every side gpusim takes
 * (|F| < 2^96 for sides below 2^31). */
static __int128 gs_matmul_ref_prefix(uint64_t n, uint64_t i, uint64_t j) {
  __int128 N = (__int128)n, I = (__int128)i, J = (__int128)j;
  __int128 s1 = N * (N - 1) / 2, s2 = N == 0 ? 0 : (N - 1) * N * (2 * N - 1) / 6;
  return 2 * J * s1 - 2 * s2 + N * I * J - I * s1;
}

void gs_matmul_ref_seed(uint64_t K, uint64_t i, uint64_t j, double *c, double *abs_sum) {
  /* The terms with k <= j are >= 0, the rest < 0 (2k + i >= 0 always). */
  uint64_t pos = j + 1 < K ? j + 1 : K;
  __int128 all = gs_matmul_ref_prefix(K, i, j), head = gs_matmul_ref_prefix(pos, i, j);
  *c = (double)all;
  *abs_sum = (double)(2 * head - all);
}

void gs_matmul_ref_dot(const struct gs_matmul_ref *r, uint64_t i, uint64_t j, double *c, double *abs_sum) {
  double s = 0, a = 0;
  for (uint64_t k = 0; k < r->k; k++) {
    double p = gs_matmul_ref_a(r, i, k) * gs_matmul_ref_b(r, k, j);
    s += p;
    a += fabs(p);
  }
  *c = s;
  *abs_sum = a;
}
