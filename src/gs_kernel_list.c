/* gs_kernel_list.c: the one parser of --kernel lists, for every workload. */
#include "gs_kernel_list.h"

#include <stdio.h>
#include <string.h>

/* The canonical name of entry [p, p + len): a known name, or known[k - 1] for a number k in
 * 1..numbered, or "ladder"; NULL if none. */
static const char *gs_kernel_list_name(const char *p, size_t len, const char *const *known, int numbered) {
  if (len == 6 && strncmp(p, "ladder", 6) == 0) return "ladder";
  for (int k = 0; known[k]; k++) {
    char num[12];
    snprintf(num, sizeof num, "%d", k + 1);
    if ((strlen(known[k]) == len && strncmp(p, known[k], len) == 0) ||
        (k < numbered && strlen(num) == len && strncmp(p, num, len) == 0))
      return known[k];
  }
  return NULL;
}

/* known as "a, b, c" for messages. */
static void gs_kernel_list_join(char *out, size_t size, const char *const *known, int numbered) {
  size_t used = (size_t)snprintf(out, size, "all, ladder%s", numbered ? ", " : "");
  if (numbered && used < size) used += (size_t)snprintf(out + used, size - used, "1..%d", numbered);
  for (int k = 0; known[k] && used < size; k++)
    used += (size_t)snprintf(out + used, size - used, ", %s", known[k]);
}

int gs_kernel_list_check(const char *list, const char *const *known, int numbered, struct gs_msg *msg) {
  if (!*list || list[0] == ',' || strstr(list, ",,") || list[strlen(list) - 1] == ',')
    return gs_error_msg(msg, "--kernel: '%s' has an empty entry", list);
  if (strcmp(list, "all") == 0) return GS_OK;
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (!gs_kernel_list_name(p, len, known, numbered)) {
      char names[256];
      gs_kernel_list_join(names, sizeof names, known, numbered);
      return gs_error_msg(msg, "--kernel: '%.*s' is not a kernel (%s)", (int)len, p, names);
    }
    p += len + (p[len] == ',');
  }
  return GS_OK;
}

/* The backend's kernels as "a, b, c". */
static void gs_kernel_list_have(char *out, size_t size, const struct gs_kernel *kernels, int count) {
  size_t used = 0;
  out[0] = 0;
  for (int i = 0; i < count && used < size; i++)
    used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", kernels[i].name);
}

int gs_kernel_list_select(const char *list, const char *const *known, int numbered, const struct gs_kernel *kernels,
                          int count, const char *backend, unsigned *mask, struct gs_msg *msg) {
  char have[256];
  gs_kernel_list_have(have, sizeof have, kernels, count);
  *mask = 0;
  if (strcmp(list, "all") == 0) {
    *mask = count >= 32 ? ~0u : (1u << count) - 1;
    return GS_OK;
  }
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    const char *name = gs_kernel_list_name(p, len, known, numbered);
    unsigned before = *mask;
    for (int i = 0; name && i < count; i++)
      if (strcmp(name, "ladder") == 0 ? (kernels[i].flags & GS_KERNEL_LADDER) != 0 : strcmp(name, kernels[i].name) == 0)
        *mask |= 1u << i;
    if (!name || *mask == before)
      return gs_error_msg(msg, "--kernel %.*s does not run on the %s backend (its kernels: %s)", (int)len, p, backend,
                          have);
    p += len + (p[len] == ',');
  }
  return GS_OK;
}
