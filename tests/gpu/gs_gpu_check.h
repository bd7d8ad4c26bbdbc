/* gs_gpu_check.h: the C GPU tests' checks: a pass/fail count, `expect` (prints the first 60
 * failures, counts the rest) and a reproducible uniform random number in [0, 1). */
#ifndef GS_GPU_CHECK_H
#define GS_GPU_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int g_pass, g_fail;

static inline void expect(int ok, const char *what) {
  if (ok) {
    g_pass++;
    return;
  }
  g_fail++;
  if (g_fail <= 60) fprintf(stderr, "FAIL: %s\n", what);
}

/* xorshift so runs are reproducible */
static uint64_t g_rng = 88172645463325252ull;
static inline double urand(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

#endif
