/* gs_reduce_ref.c: the reduction's inputs and its independent CPU reference. Inputs come from
 * a counter-based generator (a hash of seed and global index), so the global array is the same
 * whatever the rank count and results can be compared across 1, 2 and 4 ranks exactly. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gs_reduce_ref.h"

/* splitmix64's finaliser: a good 64-bit mix, cheap, and stateless per index. */
static inline uint64_t gs_reduce_hash(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

#define GS_GRID_BITS 20 /* values are k * 2^-20 with |k| <= 2^20 */

void gs_reduce_ref_fill(void *buf, enum gs_dtype t, uint64_t first, uint64_t count, uint64_t seed) {
  const uint64_t key = gs_reduce_hash(seed ^ 0x6770757369ULL);
  const int64_t span = ((int64_t)1 << (GS_GRID_BITS + 1)) + 1; /* k in [-2^20, 2^20] */
#pragma omp parallel for schedule(static)
  for (uint64_t i = 0; i < count; i++) {
    int64_t k = (int64_t)(gs_reduce_hash(key + first + i) % (uint64_t)span) - ((int64_t)1 << GS_GRID_BITS);
    if (t == GS_DTYPE_INT32) ((int32_t *)buf)[i] = (int32_t)k;
    else if (t == GS_DTYPE_FLOAT) ((float *)buf)[i] = ldexpf((float)k, -GS_GRID_BITS);
    else ((double *)buf)[i] = ldexp((double)k, -GS_GRID_BITS);
  }
}

static inline double gs_reduce_elem(const void *buf, enum gs_dtype t, uint64_t i) {
  return t == GS_DTYPE_FLOAT ? (double)((const float *)buf)[i] : ((const double *)buf)[i];
}

/* Neumaier's compensated sum in long double, one per thread, then combined the same way. */
static double gs_reduce_ref_fsum(const void *buf, enum gs_dtype t, uint64_t n, double *abs_sum) {
  long double sum = 0, comp = 0, abs_total = 0;
#pragma omp parallel
  {
    long double s = 0, c = 0, a = 0;
#pragma omp for schedule(static) nowait
    for (uint64_t i = 0; i < n; i++) {
      long double x = gs_reduce_elem(buf, t, i), u = s + x;
      c += fabsl(s) >= fabsl(x) ? (s - u) + x : (x - u) + s;
      s = u;
      a += fabsl(x);
    }
#pragma omp critical
    {
      long double u = sum + s;
      comp += (fabsl(sum) >= fabsl(s) ? (sum - u) + s : (s - u) + sum) + c;
      sum = u;
      abs_total += a;
    }
  }
  *abs_sum = (double)abs_total;
  return (double)(sum + comp);
}

union gs_acc gs_reduce_ref_compute(const void *buf, enum gs_dtype t, enum gs_op op, uint64_t n, double *abs_sum) {
  union gs_acc r = gs_acc_identity(t, op);
  *abs_sum = 0;
  if (t == GS_DTYPE_INT32) {
    const int32_t *x = buf;
    int64_t acc = r.i, abs_acc = 0;
    if (op == GS_OP_SUM) {
#pragma omp parallel for schedule(static) reduction(+ : acc, abs_acc)
      for (uint64_t i = 0; i < n; i++) acc += x[i], abs_acc += x[i] < 0 ? -(int64_t)x[i] : x[i];
    } else if (op == GS_OP_MIN) {
#pragma omp parallel for schedule(static) reduction(min : acc)
      for (uint64_t i = 0; i < n; i++) acc = x[i] < acc ? x[i] : acc;
    } else {
#pragma omp parallel for schedule(static) reduction(max : acc)
      for (uint64_t i = 0; i < n; i++) acc = x[i] > acc ? x[i] : acc;
    }
    r.i = acc;
    *abs_sum = (double)abs_acc;
    return r;
  }
  if (op == GS_OP_SUM) {
    r.d = gs_reduce_ref_fsum(buf, t, n, abs_sum);
    return r;
  }
  double acc = r.d;
  if (op == GS_OP_MIN) {
#pragma omp parallel for schedule(static) reduction(min : acc)
    for (uint64_t i = 0; i < n; i++) acc = fmin(acc, gs_reduce_elem(buf, t, i));
  } else {
#pragma omp parallel for schedule(static) reduction(max : acc)
    for (uint64_t i = 0; i < n; i++) acc = fmax(acc, gs_reduce_elem(buf, t, i));
  }
  r.d = acc;
  return r;
}
