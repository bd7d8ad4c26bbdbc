/* gs_gpu_skip.h: what a C GPU test does when it finds no GPU. By default it skips (exit 77) and
 * says why, with the CUDA runtime's own error where there is one; with GPUSIM_REQUIRE_GPU=1 (a GPU
 * machine's check, jobs/bench/device_check.sh) it fails instead, so a driver mismatch or a
 * CPU-only build cannot turn every GPU test into a SKIP and the suite green. */
#ifndef GS_GPU_SKIP_H
#define GS_GPU_SKIP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int gs_gpu_skip(const char *why) {
  const char *req = getenv("GPUSIM_REQUIRE_GPU");
  if (req && strcmp(req, "1") == 0) {
    printf("FAIL: GPUSIM_REQUIRE_GPU=1 but no GPU: %s\n", why);
    return 1;
  }
  printf("SKIP: no GPU: %s\n", why);
  return 77;
}

#endif
