/* gs_options.c: table-driven parsing of `gpusim [SUBCOMMAND] [OPTIONS]`. Each workload brings
 * its own option table (gs_workload.h); the common table applies to all. Values are range-checked
 * here so that a bad option is one clear message, identical on every rank, before any MPI or GPU
 * work starts. Nothing here knows a particular workload. */
#include "gs_options.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GS_O(field) GS_OPT_AT(struct gs_common_opts, field)

static const struct gs_opt gs_common_table[] = {
    {"backend", GS_OPT_CHOICE, GS_O(backend), 0, 0, "auto|cuda|cpu", "B",
     "compute backend; auto = cuda when every rank sees a GPU, else cpu (default auto)", NULL},
    {"gpu-bind", GS_OPT_STRING, GS_O(gpu_bind), 0, 0, NULL, "P",
     "GPU per rank: local (node-local rank mod visible GPUs), none (leave CUDA's default), "
     "or a list like 0,2,1,3 indexed by node-local rank (default local)", NULL},
    {"gpu-share", GS_OPT_FLAG, GS_O(gpu_share), 0, 0, NULL, NULL,
     "allow several ranks of one node on the same GPU (an error otherwise)", NULL},
    {"csv", GS_OPT_STRING, GS_O(csv), 0, 0, NULL, "FILE",
     "append result rows to FILE (tidy schema, see docs/results-schema.md)", NULL},
    {"json", GS_OPT_STRING, GS_O(json), 0, 0, NULL, "FILE", "write result rows to FILE as JSON", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL},
};

const void *gs_options_workload(const struct gs_options *o) { return o->wl_opts.bytes; }

int gs_options_parse_u64(const char *s, uint64_t *out) {
  const char *p = s;
  while (isspace((unsigned char)*p)) p++;
  if (*p == '-') return -3;
  if (!isdigit((unsigned char)*p)) return -1;
  errno = 0;
  char *end;
  unsigned long long base = strtoull(p, &end, 10);
  if (errno == ERANGE) return -2;
  uint64_t v = base;
  if (*end == '^' || *end == 'e' || *end == 'E') {
    uint64_t radix = *end == '^' ? base : 10, mant = *end == '^' ? 1 : base;
    const char *q = end + 1;
    if (!isdigit((unsigned char)*q)) return -1;
    unsigned long long ex = strtoull(q, &end, 10);
    if (errno == ERANGE || ex > 64) return -2;
    v = mant;
    for (unsigned long long i = 0; i < ex; i++) {
      if (radix != 0 && v > UINT64_MAX / radix) return -2;
      v *= radix;
    }
  } else if (*end) {
    const char *units = "KMGT";
    const char *u = strchr(units, toupper((unsigned char)*end));
    if (!u || end[1]) return -1;
    unsigned shift = 10u * (unsigned)(u - units + 1);
    if (v > (UINT64_MAX >> shift)) return -2;
    v <<= shift;
    end++;
  }
  if (*end) return -1;
  *out = v;
  return 0;
}

static void gs_options_defaults(struct gs_options *o) {
  memset(o, 0, sizeof *o);
  strcpy(o->common.gpu_bind, "local");
}

int gs_options_given(const struct gs_options *o, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "|%s|", name);
  return strstr(o->given, key) != NULL;
}

double gs_options_parse_hms(const char *s) {
  double part[3];
  int n = 0;
  const char *p = s;
  while (n < 3) {
    char *end;
    if (!isdigit((unsigned char)*p)) return -1;
    part[n++] = strtod(p, &end);
    /* Decimal digits and a point only: strtod also reads 0x10, 1e3 and 1e999 (infinite). */
    if (end != p + strspn(p, "0123456789.")) return -1;
    p = end;
    if (*p != ':') break;
    p++;
  }
  if (*p || (n > 1 && (part[n - 1] >= 60 || (n == 3 && part[1] >= 60)))) return -1;
  double sec = 0;
  for (int i = 0; i < n; i++) sec = 60 * sec + part[i];
  return sec;
}

static const struct gs_opt *gs_options_find(const struct gs_opt *t, const char *name, size_t len) {
  for (size_t i = 0; t[i].name; i++)
    if (strlen(t[i].name) == len && strncmp(t[i].name, name, len) == 0) return &t[i];
  return NULL;
}

int gs_options_keyword(const char *s, size_t len, const char *word) {
  return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

/* Index of value in "a|b|c" (any case), or -1. */
static int gs_options_choice(const char *choices, const char *value) {
  size_t len = strlen(value);
  int idx = 0;
  for (const char *p = choices; *p; idx++) {
    const char *bar = strchr(p, '|');
    size_t l = bar ? (size_t)(bar - p) : strlen(p);
    if (l == len && strncasecmp(p, value, len) == 0) return idx; /* as gs_options_keyword */
    if (!bar) break;
    p = bar + 1;
  }
  return -1;
}

/* value's canonical spelling from opt->aliases ("alias=canon,...", any case) into buf, or value
 * itself when it is none of them. */
static const char *gs_options_alias(const struct gs_opt *opt, const char *value, char *buf, size_t size) {
  for (const char *p = opt->aliases; p && *p;) {
    size_t len = strcspn(p, ","), key = strcspn(p, "=");
    if (key < len && key == strlen(value) && strncasecmp(p, value, key) == 0) {
      snprintf(buf, size, "%.*s", (int)(len - key - 1), p + key + 1);
      return buf;
    }
    p += len + (p[len] == ',');
  }
  return value;
}

/* Store value into the options struct at base (common or the workload's). */
static int gs_options_store(const struct gs_opt *opt, const char *value, void *base, struct gs_msg *msg) {
  char *dst = (char *)base + opt->offset;
  switch (opt->kind) {
  case GS_OPT_CHOICE: {
    char canon[32];
    int idx = gs_options_choice(opt->choices, gs_options_alias(opt, value, canon, sizeof canon));
    if (idx < 0) return gs_error_msg(msg, "--%s: '%s' is not one of %s", opt->name, value, opt->choices);
    *(int *)dst = idx;
    return GS_OK;
  }
  case GS_OPT_REAL: {
    char *end;
    double v = strtod(value, &end);
    if (end == value || *end) return gs_error_msg(msg, "--%s: '%s' is not a number", opt->name, value);
    /* Not errno's ERANGE: strtod sets it also for a value below the smallest normal double
     * (1e-310), a valid denormal (or 0, rounded like any other value); only infinity and a
     * value past the largest double (infinite then too) are out of range. */
    if (!isfinite(v)) return gs_error_msg(msg, "--%s: '%s' is out of range", opt->name, value);
    if (v < 0) return gs_error_msg(msg, "--%s: '%s' is negative", opt->name, value);
    *(double *)dst = v;
    return GS_OK;
  }
  case GS_OPT_STRING:
    if (!*value) return gs_error_msg(msg, "--%s: empty value", opt->name);
    if (strlen(value) >= opt->size) return gs_error_msg(msg, "--%s: value longer than %zu characters", opt->name, opt->size - 1);
    strcpy(dst, value);
    return GS_OK;
  case GS_OPT_INT:
  case GS_OPT_COUNT: {
    uint64_t v;
    int rc = gs_options_parse_u64(value, &v);
    if (rc == -3) return gs_error_msg(msg, "--%s: '%s' is negative", opt->name, value);
    if (rc == -2) return gs_error_msg(msg, "--%s: '%s' is too large", opt->name, value);
    if (rc) return gs_error_msg(msg, "--%s: '%s' is not a number (examples: 1000, 2^20, 64M, 1e6)", opt->name, value);
    if (v < (uint64_t)opt->min || v > (uint64_t)opt->max)
      return gs_error_msg(msg, "--%s: %s is out of range [%" PRId64 ", %" PRId64 "]", opt->name, value, opt->min, opt->max);
    if (opt->kind == GS_OPT_INT) *(int *)dst = (int)v;
    else *(uint64_t *)dst = v;
    return GS_OK;
  }
  default:
    *(int *)dst = 1;
    return GS_OK;
  }
}

/* Cross-option checks of the common options, then the workload's own. */
static int gs_options_validate(struct gs_options *o, struct gs_msg *msg) {
  char *bind = o->common.gpu_bind;
  if (gs_options_keyword(bind, strlen(bind), "local")) {
    strcpy(bind, "local");
  } else if (gs_options_keyword(bind, strlen(bind), "none")) {
    strcpy(bind, "none");
  } else {
    for (const char *p = bind; *p; p++)
      if (!isdigit((unsigned char)*p) && *p != ',')
        return gs_error_msg(msg, "--gpu-bind: '%s' is not local, none or a list of device indices like 0,1,2,3", bind);
    if (bind[0] == ',' || strstr(bind, ",,") || bind[strlen(bind) - 1] == ',')
      return gs_error_msg(msg, "--gpu-bind: '%s' has an empty entry", bind);
  }
  return o->wl && o->wl->validate ? o->wl->validate(o, o->wl_opts.bytes, msg) : GS_OK;
}

/* The subcommand named a, into o->wl (with its defaults). */
static int gs_options_subcommand(const char *a, const struct gs_workload *const *table, struct gs_options *o,
                                 struct gs_msg *msg) {
  if (o->wl) return gs_error_msg(msg, "unexpected argument '%s'", a);
  for (int c = 0; table[c]; c++)
    if (strcmp(a, table[c]->name) == 0) o->wl = table[c];
  if (!o->wl) return gs_error_msg(msg, "unknown subcommand '%s' (try 'gpusim --help')", a);
  if (o->wl->defaults) o->wl->defaults(o->wl_opts.bytes);
  return GS_OK;
}

/* The message for --NAME (len bytes) at argv[i], which is no option of the common table or of
 * o->wl. Before the subcommand (gpusim --n 5 nbody) it says so if the subcommand that follows
 * has that option, else it names the subcommand's help like an unknown option after it. */
static int gs_options_unknown(int argc, char **argv, int i, const struct gs_workload *const *table,
                              const struct gs_options *o, const char *name, size_t len, struct gs_msg *msg) {
  const struct gs_workload *w = o->wl;
  int anywhere = 0;
  for (int k = i + 1; k < argc && !w; k++)
    for (int c = 0; table[c]; c++)
      if (strcmp(argv[k], table[c]->name) == 0) w = table[c];
  if (w && !o->wl && w->opts && gs_options_find(w->opts, name, len))
    return gs_error_msg(msg, "--%.*s is an option of %s: give it after the subcommand (gpusim %s --%.*s ...)", (int)len,
                        name, w->name, w->name, (int)len, name);
  if (w)
    return gs_error_msg(msg, "unknown option '--%.*s' for %s (try 'gpusim %s --help')", (int)len, name, w->name,
                        w->name);
  for (int c = 0; table[c]; c++)
    anywhere |= table[c]->opts && gs_options_find(table[c]->opts, name, len);
  return gs_error_msg(msg, "unknown option '--%.*s'%s (try 'gpusim --help')", (int)len, name,
                      anywhere ? ": it is a subcommand's option, given after the subcommand" : "");
}

/* The option --NAME[=VALUE] at argv[*i] (advancing *i past a separate value), stored. */
static int gs_options_one(int argc, char **argv, int *i, const struct gs_workload *const *table, struct gs_options *o,
                          struct gs_msg *msg) {
  const char *a = argv[*i], *name = a + 2, *eq = strchr(name, '=');
  size_t len = eq ? (size_t)(eq - name) : strlen(name);
  void *base = &o->common;
  const struct gs_opt *opt = gs_options_find(gs_common_table, name, len);
  if (!opt && o->wl && o->wl->opts && (opt = gs_options_find(o->wl->opts, name, len))) base = o->wl_opts.bytes;
  if (!opt) return gs_options_unknown(argc, argv, *i, table, o, name, len, msg);
  const char *value = NULL;
  if (opt->kind == GS_OPT_FLAG) {
    if (eq) return gs_error_msg(msg, "--%s takes no value", opt->name);
  } else if (eq) {
    value = eq + 1;
  } else if (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0) {
    value = argv[++*i];
  } else { /* "--n --steps 3": the next word is an option, not a value (--csv=--odd-name works) */
    return gs_error_msg(msg, "--%s needs a value (%s)", opt->name, opt->metavar);
  }
  /* A repeated option is refused, not silently resolved (which one did the user mean?). */
  if (gs_options_given(o, opt->name)) return gs_error_msg(msg, "--%s is given more than once", opt->name);
  if (gs_options_store(opt, value, base, msg) != GS_OK) return GS_USAGE;
  size_t used = strlen(o->given);
  snprintf(o->given + used, sizeof o->given - used, "|%s|", opt->name);
  return GS_OK;
}

int gs_options_parse(int argc, char **argv, const struct gs_workload *const *table, struct gs_options *o,
                     struct gs_msg *msg) {
  gs_options_defaults(o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int rc = GS_OK;
    if (a[0] != '-' || a[1] == '\0') rc = gs_options_subcommand(a, table, o, msg);
    else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) o->help = 1;
    else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) o->version = 1;
    else if (a[1] != '-') rc = gs_error_msg(msg, "unknown option '%s' (options are long: --name VALUE)", a);
    else
      rc = gs_options_one(argc, argv, &i, table, o, msg);
    if (rc != GS_OK) return GS_USAGE;
  }
  if (o->help || o->version) return GS_OK;
  return gs_options_validate(o, msg); /* no subcommand: the main job (gs_mainjob.c) */
}

static void gs_options_table_help(FILE *f, const struct gs_opt *t) {
  for (size_t i = 0; t[i].name; i++) {
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", t[i].name, t[i].metavar ? " " : "",
             t[i].kind == GS_OPT_CHOICE ? t[i].choices : t[i].metavar ? t[i].metavar : "");
    fprintf(f, "  %-24s %s\n", left, t[i].help);
  }
}

void gs_options_help(FILE *f, const struct gs_workload *const *table, const struct gs_workload *w) {
  if (!w) {
    fprintf(f, "Usage: mpirun -np N gpusim [SUBCOMMAND] [OPTIONS]\n\n"
               "gpusim runs GPU workloads on one GPU per MPI rank, on one node or many.\n\n"
               "Without a subcommand, gpusim runs its main job: every workload that computes, each as its\n"
               "subcommand runs it, at sizes chosen for the machine it finds (rank 0's GPU memory and SMs;\n"
               "on the CPU backend, host memory and cores) and verified as the subcommand verifies it, then\n"
               "one summary table (size, time, rate and %% of peak per workload) and one verdict line. Only\n"
               "the common options apply; --csv and --json get every workload's rows.\n\nSubcommands:\n");
    for (int c = 0; table[c]; c++) fprintf(f, "  %-10s %s\n", table[c]->name, table[c]->summary);
    fprintf(f, "\nCommon options (every subcommand, and the main job):\n");
    gs_options_table_help(f, gs_common_table);
    fprintf(f, "  %-24s %s\n  %-24s %s\n", "--help", "this text, or a subcommand's: gpusim SUBCOMMAND --help",
            "--version", "version, git revision, configure line, backends built, MPI and CUDA versions");
    fprintf(f, "\nExit status: 0 ok, 1 a result failed verification or a runtime error, 2 bad input.\n");
    fprintf(f, "\nEnvironment:\n  %-24s %s\n  %-24s %s\n", "GPUSIM_MEMORY_LIMIT=B",
            "the most memory the size checks assume for a rank's device: the host's on the cpu backend (shared "
            "by the node's ranks), one GPU's on cuda; bytes like 16G, 2^34, 1.6e10 (default: what the system reports)",
            "GPUSIM_CUDA_AWARE_MPI=1", "(or 0) overrides the MPI library's answer to whether it takes device buffers");
    return;
  }
  fprintf(f, "Usage: mpirun -np N gpusim %s [OPTIONS]\n\n%s.\n", w->name, w->summary);
  if (w->opts && w->opts[0].name) {
    fprintf(f, "\nOptions:\n");
    gs_options_table_help(f, w->opts);
  }
  fprintf(f, "\nCommon options:\n");
  gs_options_table_help(f, gs_common_table);
}
