/* gs_gpu_count: prints how many GPUs the CUDA runtime shows, then, when that is 0, a second line
 * with the reason: a CPU-only build, the runtime's error from cudaGetDeviceCount (no driver, a
 * driver older than the runtime), or no device visible. Exit status 1 when the runtime could not
 * count, so tests/gs_test_lib.sh can tell a broken GPU setup from a machine without one. */
#include <stdio.h>
#include <stdlib.h>

#include "gs_backend.h"

int main(void) {
  const struct gs_backend *cuda = gs_backend_find("cuda");
  if (!cuda) {
    printf("0\nCPU-only build (configured without CUDA)\n");
    return 0;
  }
  const char *why = NULL;
  int n = cuda->device_count(&why);
  printf("%d\n", n);
  if (why) {
    printf("cudaGetDeviceCount failed: %s\n", why);
    return 1;
  }
  if (n == 0) {
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    printf("the CUDA runtime shows no device (CUDA_VISIBLE_DEVICES=%s)\n", vis ? vis : "unset");
  }
  return 0;
}
