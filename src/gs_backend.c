/* gs_backend.c: the backends this program knows, found by name. The choice between them
 * ("auto") needs every rank's view of its GPUs and so lives in gs_mpi.c. */
#include <config.h>

#include "gs_backend.h"

#include <stdio.h>
#include <string.h>

/* Every backend gpusim has, built or not: a CPU-only build still names "cuda" (to say that it
 * is not built, in the run header and in errors) and its N-body kernels (--kernel). devices:
 * ranks bind to its devices, and --backend auto takes it when every rank sees one (else the host
 * backend); probe: the runtime call that counts them, for errors; nbody: its N-body kernel list
 * (ended by a NULL name), numbered: --kernel 1..count also name them. */
static const struct {
  const char *name, *label;
  const struct gs_backend *table;
  int devices;
  const char *probe;
  const struct gs_kernel *nbody;
  int numbered;
} gs_backends[] = {
    {"cpu", "", &gs_backend_cpu_ops, 0, NULL, gs_backend_cpu_nbody_kernels, 0},
#ifdef GS_HAVE_CUDA
    {"cuda", "CUDA", &gs_backend_cuda_ops, 1, "cudaGetDeviceCount", gs_backend_cuda_names_nbody, 1},
#else
    {"cuda", "CUDA", NULL, 1, "cudaGetDeviceCount", gs_backend_cuda_names_nbody, 1},
#endif
};

const struct gs_backend *gs_backend_kind(int devices, const char **name, const char **label, const char **probe) {
  for (size_t i = 0; i < sizeof gs_backends / sizeof *gs_backends; i++) {
    if (gs_backends[i].devices != devices) continue;
    *name = gs_backends[i].name, *label = gs_backends[i].label, *probe = gs_backends[i].probe;
    return gs_backends[i].table;
  }
  *name = *label = *probe = NULL;
  return NULL;
}

int gs_backend_at(int i, const char **label, const struct gs_backend **table) {
  if (i < 0 || i >= (int)(sizeof gs_backends / sizeof *gs_backends)) return 0;
  *label = gs_backends[i].label;
  *table = gs_backends[i].table;
  return 1;
}

const struct gs_backend *gs_backend_find(const char *name) {
  for (size_t i = 0; i < sizeof gs_backends / sizeof *gs_backends; i++)
    if (strcmp(gs_backends[i].name, name) == 0) return gs_backends[i].table;
  return NULL;
}

const struct gs_kernel *gs_backend_kernel(const struct gs_kernel *list, int count, const char *name) {
  for (int i = 0; i < count; i++)
    if (strcmp(list[i].name, name) == 0) return &list[i];
  return NULL;
}

int gs_backend_nbody_names(const char **known, int max, char *text, size_t size) {
  int n = 0, numbered = 0;
  size_t used = 0;
  if (text && size) text[0] = 0;
  /* Two passes, so that the numbered lists come first (1..numbered index known). */
  for (int pass = 1; pass >= 0; pass--)
    for (size_t i = 0; i < sizeof gs_backends / sizeof *gs_backends; i++) {
      if (gs_backends[i].numbered != pass) continue;
      for (const struct gs_kernel *k = gs_backends[i].nbody; k->name && n < max - 1; k++) {
        known[n++] = k->name, numbered += pass;
        if (text && used < size)
          used += (size_t)snprintf(text + used, size - used, "%s%s", used ? ", " : "", k->name);
      }
      if (text && used < size) used += (size_t)snprintf(text + used, size - used, " (%s)", gs_backends[i].name);
    }
  known[n] = NULL;
  return numbered;
}
