/* gs_backend.c: find a backend by name. The choice between them ("auto") needs every rank's
 * view of its GPUs and so lives in gs_mpi.c. */
#include <config.h>

#include "gs_backend.h"

#include <string.h>

const struct gs_backend *gs_backend_find(const char *name) {
  if (strcmp(name, "cpu") == 0) return gs_backend_cpu_get();
  if (strcmp(name, "cuda") == 0) return gs_backend_cuda_get();
  return NULL;
}

#ifndef GS_HAVE_CUDA
/* A CPU-only build has no CUDA backend; callers say so to the user. */
const struct gs_backend *gs_backend_cuda_get(void) { return NULL; }
#endif
