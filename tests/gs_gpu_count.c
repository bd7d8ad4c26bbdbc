/* gs_gpu_count: prints how many GPUs the CUDA runtime shows (0 in a CPU-only build or without a
 * driver); the shell tests use it to skip with 77. */
#include <stdio.h>

#include "gs_backend.h"

int main(void) {
  const struct gs_backend *cuda = gs_backend_cuda_get();
  printf("%d\n", cuda ? cuda->device_count() : 0);
  return 0;
}
