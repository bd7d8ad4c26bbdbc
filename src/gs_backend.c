/* gs_backend.c: the backends this program knows, found by name. The choice between them
 * ("auto") needs every rank's view of its GPUs and so lives in gs_mpi.c. */
#include <config.h>

#include "gs_backend.h"

#include <stdio.h>
#include <string.h>

/* A backend's kernel list for one workload, ended by a NULL name; numbered: how many of its
 * first kernels --kernel 1..numbered also names (-1: all; one backend at most numbers its
 * kernels); help: how --help groups its names (NULL: "a, b, c"). */
struct gs_backend_list {
  const struct gs_kernel *kernels;
  int numbered;
  const char *help;
};

/* Every backend gpusim has, built or not: a CPU-only build still names "cuda" (to say that it
 * is not built, in the run header and in errors) and its kernels (--kernel). devices: ranks bind
 * to its devices, and --backend auto takes it when every rank sees one (else the host backend);
 * probe: the runtime call that counts them, for errors; lists: its kernels, per workload. */
static const struct {
  const char *name, *label;
  const struct gs_backend *table;
  int devices;
  const char *probe;
  struct gs_backend_list lists[GS_BACKEND_WORKLOADS];
} gs_backends[] = {
    {"cpu",
     "",
     &gs_backend_cpu_ops,
     0,
     NULL,
     {{gs_backend_cpu_reduce_kernels, 0, NULL},
      {gs_backend_cpu_nbody_kernels, 0, NULL},
      {gs_backend_cpu_matmul_kernels, 0, NULL}}},
    {"cuda",
     "CUDA",
#ifdef GS_HAVE_CUDA
     &gs_backend_cuda_ops,
#else
     NULL,
#endif
     1,
     "cudaGetDeviceCount",
     {{gs_backend_cuda_names_reduce, 0, gs_backend_cuda_names_reduce_help},
      {gs_backend_cuda_names_nbody, -1, NULL},
      {gs_backend_cuda_names_matmul, 6, gs_backend_cuda_names_matmul_help}}}, /* 1..6: the seed ladder */
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

/* text += fmt's output, at most up to size bytes in all (*used may pass size: then no more). */
static void gs_backend_add(char *text, size_t size, size_t *used, const char *fmt, const char *a, const char *b) {
  if (*used < size) *used += (size_t)snprintf(text + *used, size - *used, fmt, a, b);
}

/* Backend i's names for list l into known[*n..] (counting the numbered ones) and text. */
static int gs_backend_list_names(size_t i, const struct gs_backend_list *l, const char *sep, const char **known, int *n,
                                 int max, char *text, size_t size, size_t *used) {
  int numbered = 0;
  const size_t start = *used;
  gs_backend_add(text, size, used, "%s%s", start ? sep : "", l->help ? l->help : "");
  for (const struct gs_kernel *k = l->kernels; k->name && *n < max - 1; k++) {
    if (l->numbered < 0 || k - l->kernels < l->numbered) numbered++;
    known[(*n)++] = k->name;
    if (!l->help) gs_backend_add(text, size, used, "%s%s", k == l->kernels ? "" : ", ", k->name);
  }
  gs_backend_add(text, size, used, " (%s)%s", gs_backends[i].name, "");
  return numbered;
}

int gs_backend_names(int workload, const char *sep, const char *line, const char **known, int max, char *text,
                     size_t size) {
  int n = 0, numbered = 0;
  size_t used = 0;
  char names[512] = "", numbers[32] = "";
  /* Four passes, so that the numbered list comes first (1..numbered index known), then the device
   * backends' (the order --help and the messages have always had). */
  for (int pass = 3; pass >= 0; pass--)
    for (size_t i = 0; i < sizeof gs_backends / sizeof *gs_backends; i++) {
      const struct gs_backend_list *l = &gs_backends[i].lists[workload];
      if ((l->numbered != 0) * 2 + gs_backends[i].devices == pass)
        numbered += gs_backend_list_names(i, l, sep, known, &n, max, names, sizeof names, &used);
    }
  known[n] = NULL;
  if (numbered) snprintf(numbers, sizeof numbers, "1..%d / ", numbered);
  char list[sizeof numbers + sizeof names];
  snprintf(list, sizeof list, "%s%s", numbers, names);
  if (text && size) snprintf(text, size, line, list);
  return numbered;
}
