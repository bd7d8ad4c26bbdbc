/* gs_kernel_list.c: the one parser of --kernel lists, for every workload. */
#include "gs_kernel_list.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gs_options.h"

/* The canonical name of entry [p, p + len): a known name, or known[k - 1] for a number k in
 * 1..numbered, or "ladder"; NULL if none. */
static const char *gs_kernel_list_name(const char *p, size_t len, const char *const *known, int numbered) {
  static const char ladder[] = "ladder";
  if (gs_options_keyword(p, len, ladder)) return ladder;
  for (int k = 0; known[k]; k++) {
    char num[12];
    snprintf(num, sizeof num, "%d", k + 1);
    if (gs_options_keyword(p, len, known[k]) || (k < numbered && gs_options_keyword(p, len, num))) return known[k];
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

/* The entry [p, p + len) names the same kernel as an earlier one of list: the message. */
static int gs_kernel_list_twice(const char *list, const char *p, size_t len, const char *const *known, int numbered,
                                struct gs_msg *msg) {
  const char *name = gs_kernel_list_name(p, len, known, numbered);
  for (const char *q = list; q < p;) {
    size_t l = strcspn(q, ",");
    if (gs_kernel_list_name(q, l, known, numbered) == name)
      return l == len && strncasecmp(q, p, len) == 0
                 ? gs_error_msg(msg, "--kernel %s: '%.*s' is given twice", list, (int)len, p)
                 : gs_error_msg(msg, "--kernel %s: '%.*s' and '%.*s' are the same kernel, given twice", list, (int)l, q,
                                (int)len, p);
    q += l + 1;
  }
  return GS_OK;
}

int gs_kernel_list_check(char *list, const char *const *known, int numbered, struct gs_msg *msg) {
  if (!*list || list[0] == ',' || strstr(list, ",,") || list[strlen(list) - 1] == ',')
    return gs_error_msg(msg, "--kernel: '%s' has an empty entry", list);
  if (gs_options_keyword(list, strlen(list), "all")) return strcpy(list, "all"), GS_OK;
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (gs_options_keyword(p, len, "all"))
      return gs_error_msg(msg, "--kernel %s: 'all' is every kernel: give it alone, not in a list", list);
    if (!gs_kernel_list_name(p, len, known, numbered)) {
      char names[256];
      gs_kernel_list_join(names, sizeof names, known, numbered);
      return gs_error_msg(msg, "--kernel: '%.*s' is not a kernel (%s)", (int)len, p, names);
    }
    if (gs_kernel_list_twice(list, p, len, known, numbered, msg) != GS_OK) return GS_USAGE;
    p += len + (p[len] == ',');
  }
  /* Every entry is a name or a number: its lowercase spelling is the canonical one. */
  for (char *p = list; *p; p++)
    *p = (char)tolower((unsigned char)*p);
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
    unsigned match = 0;
    for (int i = 0; name && i < count; i++)
      if (strcmp(name, "ladder") == 0 ? (kernels[i].flags & GS_KERNEL_LADDER) != 0 : strcmp(name, kernels[i].name) == 0)
        match |= 1u << i;
    if (!match)
      return gs_error_msg(msg, "--kernel %.*s does not run on the %s backend (its kernels: %s)", (int)len, p, backend,
                          have);
    /* The check refused two entries of one kernel; what remains is ladder and one of its own. */
    for (int i = 0; i < count; i++)
      if (match & *mask & 1u << i)
        return gs_error_msg(msg, "--kernel %s: %s is given twice (ladder holds it on the %s backend)", list,
                            kernels[i].name, backend);
    *mask |= match;
    p += len + (p[len] == ',');
  }
  return GS_OK;
}
