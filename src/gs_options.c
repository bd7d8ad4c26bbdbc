/* gs_options.c: table-driven parsing of `gpusim [SUBCOMMAND] [OPTIONS]`. Each subcommand has one
 * table; the common table applies to all. Values are range-checked here so that a bad option is
 * one clear message, identical on every rank, before any MPI or GPU work starts. */
#include "gs_options.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gs_nbody.h"
#include "gs_reduce.h"
#include "gs_types.h"

enum gs_opt_kind { GS_OPT_FLAG, GS_OPT_INT, GS_OPT_COUNT, GS_OPT_STRING, GS_OPT_CHOICE, GS_OPT_REAL };

/* One option: where its value goes in struct gs_options and what it accepts. */
struct gs_opt {
  const char *name;     /* long name without "--" */
  int kind;             /* enum gs_opt_kind */
  size_t offset;        /* of the value in struct gs_options */
  size_t size;          /* of the value, for strings */
  int64_t min, max;     /* accepted range for INT and COUNT */
  const char *choices;  /* "a|b|c" for CHOICE: stored as the index */
  const char *metavar;  /* shown in help */
  const char *help;     /* one line */
};

#define GS_O(field) offsetof(struct gs_options, field), sizeof(((struct gs_options *)0)->field)

static const struct gs_opt gs_common_table[] = {
    {"backend", GS_OPT_CHOICE, GS_O(common.backend), 0, 0, "auto|cuda|cpu", "B",
     "compute backend; auto = cuda when every rank sees a GPU, else cpu (default auto)"},
    {"gpu-bind", GS_OPT_STRING, GS_O(common.gpu_bind), 0, 0, NULL, "P",
     "GPU per rank: local (node-local rank mod visible GPUs), none (leave CUDA's default), "
     "or a list like 0,2,1,3 indexed by node-local rank (default local)"},
    {"gpu-share", GS_OPT_FLAG, GS_O(common.gpu_share), 0, 0, NULL, NULL,
     "allow several ranks of one node on the same GPU (an error otherwise)"},
    {"csv", GS_OPT_STRING, GS_O(common.csv), 0, 0, NULL, "FILE",
     "append result rows to FILE (tidy schema, see docs/results-schema.md)"},
    {"json", GS_OPT_STRING, GS_O(common.json), 0, 0, NULL, "FILE", "write result rows to FILE as JSON"},
};

static const struct gs_opt gs_reduce_table[] = {
    {"n", GS_OPT_COUNT, GS_O(reduce.n), 1, INT64_MAX, NULL, "N",
     "elements per rank: 268435456, 2^28, 256M, 1e6 (K/M/G = 2^10/2^20/2^30; default 2^28)"},
    {"total", GS_OPT_COUNT, GS_O(reduce.total), 1, INT64_MAX, NULL, "N",
     "elements over all ranks instead of --n (strong scaling); split as evenly as possible"},
    {"type", GS_OPT_CHOICE, GS_O(reduce.dtype), 0, 0, "int|float|double", "T",
     "element type (default int: 32-bit ints summed in 64 bits, so sums never overflow; "
     "float sums accumulate in double)"},
    {"op", GS_OPT_CHOICE, GS_O(reduce.op), 0, 0, "sum|min|max", "OP", "reduction operator (default sum)"},
    {"kernel", GS_OPT_STRING, GS_O(reduce.kernels), 0, 0, NULL, "LIST",
     "all, or a list of 1..7 (the seed ladder), vec, onepass, cub (cuda) / omp (cpu) (default all)"},
    {"block", GS_OPT_INT, GS_O(reduce.block), 32, 1024, NULL, "T",
     "threads per block, a power of two (default 256)"},
    {"iters", GS_OPT_INT, GS_O(reduce.iters), 1, 1000000, NULL, "K", "timed runs per kernel; the median is shown (default 20)"},
    {"warmup", GS_OPT_INT, GS_O(reduce.warmup), 0, 1000000, NULL, "K", "untimed runs first (default 3)"},
    {"source", GS_OPT_CHOICE, GS_O(reduce.source), 0, 0, "device|host", "S",
     "where the input lives: device memory, or pinned host memory streamed in chunks (default device)"},
    {"streams", GS_OPT_INT, GS_O(reduce.streams), 1, 64, NULL, "K", "streams for --source host (default 4)"},
    {"chunk", GS_OPT_COUNT, GS_O(reduce.chunk), 1024, INT64_MAX, NULL, "N",
     "elements per chunk for --source host (default 2^24)"},
    {"seed", GS_OPT_COUNT, GS_O(reduce.seed), 0, INT64_MAX, NULL, "S", "input generator seed (default 1)"},
};

static const struct gs_opt gs_nbody_table[] = {
    {"n", GS_OPT_COUNT, GS_O(nbody.n), 1, (int64_t)1 << 31, NULL, "N", "bodies (default 2^18)"},
    {"steps", GS_OPT_INT, GS_O(nbody.steps), 0, 100000000, NULL, "K", "time steps (default 10)"},
    {"dt", GS_OPT_REAL, GS_O(nbody.dt), 0, 0, NULL, "DT", "time step, > 0 (default 0.001)"},
    {"eps", GS_OPT_REAL, GS_O(nbody.eps), 0, 0, NULL, "E",
     "Plummer softening length, > 0 (default 0.01; --ic disk uses the seed's hard cutoff at r < 0.01 instead)"},
    {"ic", GS_OPT_STRING, GS_O(nbody.ic), 0, 0, NULL, "IC",
     "plummer (Henon units), disk (the seed 003 2D model: mG = 10, cutoff 0.01), uniform (cold sphere), "
     "or a FILE of 'x y z vx vy vz m' lines (default plummer)"},
    {"seed", GS_OPT_COUNT, GS_O(nbody.seed), 0, INT64_MAX, NULL, "S", "initial-condition seed (default 1)"},
    {"precision", GS_OPT_CHOICE, GS_O(nbody.precision), 0, 0, "single|double", "P",
     "arithmetic: single (also float, fp32) or double (fp64), any case (default single)"},
    {"kernel", GS_OPT_STRING, GS_O(nbody.kernels), 0, 0, NULL, "LIST",
     "all, or a list of 1..8 / global, rsqrt, shared, unroll, soften, fma, multi, jsplit (cuda), omp (cpu); "
     "each is timed and verified, the last one runs the simulation (default all)"},
    {"energy-every", GS_OPT_INT, GS_O(nbody.energy_every), 0, 100000000, NULL, "K",
     "energy, momentum and centre-of-mass diagnostics every K steps (default 0: start and end only)"},
    {"overlap", GS_OPT_CHOICE, GS_O(nbody.overlap), 0, 0, "off|on", "O",
     "overlap the position exchange with force computation (default on)"},
    {"iters", GS_OPT_INT, GS_O(nbody.iters), 1, 1000000, NULL, "K", "timed force evaluations per kernel (default 3)"},
    {"output", GS_OPT_STRING, GS_O(nbody.output), 0, 0, NULL, "DIR",
     "directory for snapshots and checkpoints (default nbody-out)"},
    {"snapshot-every", GS_OPT_INT, GS_O(nbody.snapshot_every), 0, 100000000, NULL, "K",
     "snapshot (positions, velocities, masses, ids, time) every K steps and at the end (default 0: none)"},
    {"checkpoint-every", GS_OPT_INT, GS_O(nbody.checkpoint_every), 0, 100000000, NULL, "K",
     "checkpoint every K steps (default 0: only on a stop signal or the wall-clock budget)"},
    {"checkpoint-interval", GS_OPT_REAL, GS_O(nbody.checkpoint_interval), 0, 0, NULL, "MIN",
     "also checkpoint every MIN minutes of wall clock (default 0: off)"},
    {"walltime", GS_OPT_STRING, GS_O(nbody.walltime), 0, 0, NULL, "HH:MM:SS",
     "wall-clock budget: checkpoint and stop (exit 0) before it runs out"},
    {"restart", GS_OPT_STRING, GS_O(nbody.restart), 0, 0, NULL, "PATH",
     "resume from a checkpoint file, or the newest complete one in a directory; --steps is the step to end at. "
     "SIGTERM, SIGINT or SIGUSR1 make a run checkpoint its last completed step (abandoning the step in progress) "
     "and exit 0"},
    {"overwrite", GS_OPT_FLAG, GS_O(nbody.overwrite), 0, 0, NULL, NULL,
     "write into an --output that holds another run's checkpoint (an error otherwise); its files are kept"},
    {"progress", GS_OPT_CHOICE, GS_O(nbody.progress), 0, 0, "auto|bar|lines|off", "P",
     "progress from rank 0: auto = a bar on a terminal outside a batch job, else plain lines every 10 s or 10% "
     "of the run (default auto)"},
};

/* The subcommands: name, table and a one-line summary (only those that exist). */
static const struct {
  const char *name;
  const struct gs_opt *table;
  size_t count;
  const char *summary;
} gs_cmds[GS_CMD_COUNT] = {
    [GS_CMD_NONE] = {"", NULL, 0, ""},
    [GS_CMD_INFO] = {"info", NULL, 0, "show, per rank, the host, node-local rank and GPU it got"},
    [GS_CMD_REDUCE] = {"reduce", gs_reduce_table, sizeof gs_reduce_table / sizeof *gs_reduce_table,
                       "parallel reduction: the seed ladder, modern kernels and CUB, MPI_Allreduce"},
    [GS_CMD_NBODY] = {"nbody", gs_nbody_table, sizeof gs_nbody_table / sizeof *gs_nbody_table,
                      "all-pairs gravitational N-body: force kernel ladder, leapfrog, all-gather overlapped with compute"},
};

const char *gs_options_cmd_name(int cmd) { return cmd > 0 && cmd < GS_CMD_COUNT ? gs_cmds[cmd].name : ""; }

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
  o->reduce.n = (uint64_t)1 << 28;
  strcpy(o->reduce.kernels, "all");
  o->reduce.block = 256;
  o->reduce.iters = 20;
  o->reduce.warmup = 3;
  o->reduce.streams = 4;
  o->reduce.chunk = (uint64_t)1 << 24;
  o->reduce.seed = 1;
  o->nbody.n = (uint64_t)1 << 18;
  o->nbody.steps = 10;
  o->nbody.dt = 0.001;
  o->nbody.eps = 0.01;
  strcpy(o->nbody.ic, "plummer");
  o->nbody.seed = 1;
  strcpy(o->nbody.kernels, "all");
  o->nbody.overlap = 1;
  o->nbody.iters = 3;
  strcpy(o->nbody.output, "nbody-out");
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
    p = end;
    if (*p != ':') break;
    p++;
  }
  if (*p || (n > 1 && (part[n - 1] >= 60 || (n == 3 && part[1] >= 60)))) return -1;
  double sec = 0;
  for (int i = 0; i < n; i++) sec = 60 * sec + part[i];
  return sec;
}

static const struct gs_opt *gs_options_find(const struct gs_opt *t, size_t n, const char *name, size_t len) {
  for (size_t i = 0; i < n; i++)
    if (strlen(t[i].name) == len && strncmp(t[i].name, name, len) == 0) return &t[i];
  return NULL;
}

/* Index of value in "a|b|c", or -1. */
static int gs_options_choice(const char *choices, const char *value) {
  size_t len = strlen(value);
  int idx = 0;
  for (const char *p = choices; *p; idx++) {
    const char *bar = strchr(p, '|');
    size_t l = bar ? (size_t)(bar - p) : strlen(p);
    if (l == len && strncmp(p, value, len) == 0) return idx;
    if (!bar) break;
    p = bar + 1;
  }
  return -1;
}

/* The common spellings of --precision and reduce's --type (NBODY_PRECISION=float, fp64, ...),
 * any case: the canonical name, or VALUE itself when it is none of them. */
static const char *gs_options_alias(const char *name, const char *value) {
  static const struct { const char *opt, *alias, *canon; } a[] = {
      {"precision", "single", "single"}, {"precision", "float", "single"}, {"precision", "fp32", "single"},
      {"precision", "f32", "single"},    {"precision", "double", "double"}, {"precision", "fp64", "double"},
      {"precision", "f64", "double"},    {"type", "int", "int"},            {"type", "int32", "int"},
      {"type", "i32", "int"},            {"type", "float", "float"},        {"type", "single", "float"},
      {"type", "fp32", "float"},         {"type", "f32", "float"},          {"type", "double", "double"},
      {"type", "fp64", "double"},        {"type", "f64", "double"}};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++)
    if (!strcmp(name, a[i].opt) && !strcasecmp(value, a[i].alias)) return a[i].canon;
  return value;
}

static int gs_options_store(const struct gs_opt *opt, const char *value, struct gs_options *o,
                            struct gs_msg *msg) {
  char *dst = (char *)o + opt->offset;
  switch (opt->kind) {
  case GS_OPT_CHOICE: {
    int idx = gs_options_choice(opt->choices, gs_options_alias(opt->name, value));
    if (idx < 0) return gs_error_msg(msg, "--%s: '%s' is not one of %s", opt->name, value, opt->choices);
    *(int *)dst = idx;
    return GS_OK;
  }
  case GS_OPT_REAL: {
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end) return gs_error_msg(msg, "--%s: '%s' is not a number", opt->name, value);
    if (errno == ERANGE || !isfinite(v)) return gs_error_msg(msg, "--%s: '%s' is out of range", opt->name, value);
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

/* A --kernel list has no empty element ("omp,", ",1", "1,,2"). */
static int gs_options_list_ok(const char *list, struct gs_msg *msg) {
  if (list[0] == ',' || strstr(list, ",,") || list[strlen(list) - 1] == ',')
    return gs_error_msg(msg, "--kernel: '%s' has an empty entry", list);
  return GS_OK;
}

/* Cross-option checks, after every option is in. */
static int gs_options_validate(struct gs_options *o, struct gs_msg *msg) {
  const char *bind = o->common.gpu_bind;
  if (strcmp(bind, "local") && strcmp(bind, "none")) {
    for (const char *p = bind; *p; p++)
      if (!isdigit((unsigned char)*p) && *p != ',')
        return gs_error_msg(msg, "--gpu-bind: '%s' is not local, none or a list of device indices like 0,1,2,3", bind);
    if (bind[0] == ',' || strstr(bind, ",,") || bind[strlen(bind) - 1] == ',')
      return gs_error_msg(msg, "--gpu-bind: '%s' has an empty entry", bind);
  }
  if (o->cmd == GS_CMD_REDUCE) {
    struct gs_reduce_opts *r = &o->reduce;
    if (r->block & (r->block - 1)) return gs_error_msg(msg, "--block: %d is not a power of two", r->block);
    if (gs_options_given(o, "n") && gs_options_given(o, "total"))
      return gs_error_msg(msg, "--n (elements per rank) and --total (over all ranks) contradict: give one");
    unsigned mask;
    if (gs_options_list_ok(r->kernels, msg) != GS_OK) return GS_USAGE;
    if (gs_reduce_kernel_mask(r->kernels, &mask, msg) != GS_OK) return GS_USAGE;
  }
  if (o->cmd == GS_CMD_NBODY) {
    struct gs_nbody_opts *b = &o->nbody;
    unsigned mask;
    if (b->dt <= 0) return gs_error_msg(msg, "--dt: must be > 0");
    if (b->eps <= 0) return gs_error_msg(msg, "--eps: must be > 0 (Plummer softening; --ic disk uses a cutoff instead)");
    if (gs_options_list_ok(b->kernels, msg) != GS_OK) return GS_USAGE;
    if (gs_nbody_kernel_mask(b->kernels, &mask, msg) != GS_OK) return GS_USAGE;
    if (gs_options_given(o, "n") && strcmp(b->ic, "plummer") && strcmp(b->ic, "disk") && strcmp(b->ic, "uniform"))
      return gs_error_msg(msg, "--n and --ic FILE contradict: the file's lines are the bodies; give one");
    if (b->walltime[0] && (b->walltime_s = gs_options_parse_hms(b->walltime)) <= 0)
      return gs_error_msg(msg, "--walltime: '%s' is not HH:MM:SS (or MM:SS, or seconds) above zero", b->walltime);
  }
  return GS_OK;
}

int gs_options_parse(int argc, char **argv, struct gs_options *o, struct gs_msg *msg) {
  gs_options_defaults(o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] == '\0') {
      if (o->cmd != GS_CMD_NONE) return gs_error_msg(msg, "unexpected argument '%s'", a);
      for (int c = 1; c < GS_CMD_COUNT; c++)
        if (strcmp(a, gs_cmds[c].name) == 0) o->cmd = c;
      if (o->cmd == GS_CMD_NONE) return gs_error_msg(msg, "unknown subcommand '%s' (try 'gpusim --help')", a);
      continue;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { o->help = 1; continue; }
    if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) { o->version = 1; continue; }
    if (a[1] != '-') return gs_error_msg(msg, "unknown option '%s' (options are long: --name VALUE)", a);
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct gs_opt *opt = gs_options_find(gs_common_table, sizeof gs_common_table / sizeof *gs_common_table, name, len);
    if (!opt && o->cmd != GS_CMD_NONE) opt = gs_options_find(gs_cmds[o->cmd].table, gs_cmds[o->cmd].count, name, len);
    if (!opt)
      return gs_error_msg(msg, "unknown option '--%.*s'%s%s (try 'gpusim %s --help')", (int)len, name,
                          o->cmd ? " for " : "", gs_options_cmd_name(o->cmd), gs_options_cmd_name(o->cmd));
    const char *value = NULL;
    if (opt->kind == GS_OPT_FLAG) {
      if (eq) return gs_error_msg(msg, "--%s takes no value", opt->name);
    } else if (eq) {
      value = eq + 1;
    } else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
      value = argv[++i];
    } else { /* "--n --steps 3": the next word is an option, not a value (--csv=--odd-name works) */
      return gs_error_msg(msg, "--%s needs a value (%s)", opt->name, opt->metavar);
    }
    /* A repeated option is refused, not silently resolved (which one did the user mean?). */
    if (gs_options_given(o, opt->name)) return gs_error_msg(msg, "--%s is given more than once", opt->name);
    if (gs_options_store(opt, value, o, msg) != GS_OK) return GS_USAGE;
    size_t used = strlen(o->given);
    snprintf(o->given + used, sizeof o->given - used, "|%s|", opt->name);
  }
  if (o->help || o->version) return GS_OK;
  if (o->cmd == GS_CMD_NONE) return gs_error_msg(msg, "no subcommand given (try 'gpusim --help')");
  return gs_options_validate(o, msg);
}

static void gs_options_table_help(FILE *f, const struct gs_opt *t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", t[i].name, t[i].metavar ? " " : "",
             t[i].kind == GS_OPT_CHOICE ? t[i].choices : t[i].metavar ? t[i].metavar : "");
    fprintf(f, "  %-24s %s\n", left, t[i].help);
  }
}

void gs_options_help(FILE *f, int cmd) {
  if (cmd <= GS_CMD_NONE || cmd >= GS_CMD_COUNT) {
    fprintf(f, "Usage: mpirun -np N gpusim SUBCOMMAND [OPTIONS]\n\n"
               "gpusim runs GPU workloads on one GPU per MPI rank, on one node or many.\n\nSubcommands:\n");
    for (int c = 1; c < GS_CMD_COUNT; c++) fprintf(f, "  %-10s %s\n", gs_cmds[c].name, gs_cmds[c].summary);
    fprintf(f, "\nCommon options (every subcommand):\n");
    gs_options_table_help(f, gs_common_table, sizeof gs_common_table / sizeof *gs_common_table);
    fprintf(f, "  %-24s %s\n  %-24s %s\n", "--help", "this text, or a subcommand's: gpusim SUBCOMMAND --help",
            "--version", "version and build configuration");
    fprintf(f, "\nExit status: 0 ok, 1 a result failed verification or a runtime error, 2 bad input.\n");
    return;
  }
  fprintf(f, "Usage: mpirun -np N gpusim %s [OPTIONS]\n\n%s.\n", gs_cmds[cmd].name, gs_cmds[cmd].summary);
  if (gs_cmds[cmd].count) {
    fprintf(f, "\nOptions:\n");
    gs_options_table_help(f, gs_cmds[cmd].table, gs_cmds[cmd].count);
  }
  fprintf(f, "\nCommon options:\n");
  gs_options_table_help(f, gs_common_table, sizeof gs_common_table / sizeof *gs_common_table);
}
