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

/* For tests that call the CUDA runtime (include this header again after cuda_runtime.h). */
#if defined(CUDART_VERSION) && !defined(GS_GPU_SKIP_CUDA_H)
#define GS_GPU_SKIP_CUDA_H

/* A runtime call (or a launcher's returned cudaError_t) that must succeed: else name it, where,
 * and why, and end the test with status 1. */
#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (cudaError_t)(x);                                                     \
    if (e_ != cudaSuccess) {                                                               \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));  \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

/* 0 when the runtime shows a device, else gs_gpu_skip's status with the runtime's reason. */
static inline int gs_gpu_skip_without_device(void) {
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  char text[256];
  snprintf(text, sizeof text, "cudaGetDeviceCount failed: %s", cudaGetErrorString(e));
  if (e != cudaSuccess) return gs_gpu_skip(text);
  if (ndev == 0) return gs_gpu_skip("the CUDA runtime shows no device");
  return 0;
}
#endif
