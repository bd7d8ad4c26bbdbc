/* Option parsing: numbers with suffixes, every kind of bad input, defaults, both value forms, and
 * the workload table as the parser's only source of subcommands, options and kernel names. */
#include <config.h>

#include <string.h>

#include "gs_backend.h"
#include "gs_info.h"
#include "gs_kernel_list.h"
#include "gs_matmul.h"
#include "gs_matmul_options.h"
#include "gs_nbody.h"
#include "gs_nbody_options.h"
#include "gs_options.h"
#include "gs_reduce.h"
#include "gs_reduce_options.h"
#include "gs_types.h"
#include "gs_test.h"

/* A workload the program does not have, to show that the parser needs nothing but its entry. */
struct toy_opts {
  int level;
  char kernels[GS_LIST_MAX];
};
static const struct gs_opt toy_table[] = {
    {"level", GS_OPT_INT, GS_OPT_AT(struct toy_opts, level), 1, 9, NULL, "L", "how much", NULL},
    {"kernel", GS_OPT_STRING, GS_OPT_AT(struct toy_opts, kernels), 0, 0, NULL, "LIST", "which", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL},
};
static void toy_defaults(void *opts) { ((struct toy_opts *)opts)->level = 5; }
static int toy_main(struct gs_run *run) {
  (void)run;
  return GS_OK;
}
static const struct gs_workload toy = {
    .name = "toy", .summary = "a test workload", .opts = toy_table, .opts_size = sizeof(struct toy_opts),
    .defaults = toy_defaults, .main = toy_main};

static const struct gs_workload *const table[] = {
    &gs_info_workload, &gs_reduce_workload, &gs_nbody_workload, &gs_matmul_workload, &toy, NULL};
static const struct gs_reduce_opts *R(const struct gs_options *o) { return gs_options_workload(o); }
static const struct gs_nbody_opts *B(const struct gs_options *o) { return gs_options_workload(o); }

/* Parse a space-separated command line; returns the status and leaves msg filled. */
static int parse(const char *line, struct gs_options *o, struct gs_msg *msg) {
  char buf[512], *argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "gpusim %s", line);
  for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  msg->text[0] = 0;
  return gs_options_parse(argc, argv, table, o, msg);
}

static int fails_with(const char *line, const char *needle) {
  struct gs_options o;
  struct gs_msg msg;
  int rc = parse(line, &o, &msg);
  if (rc != GS_USAGE || !strstr(msg.text, needle)) {
    fprintf(stderr, "'%s': rc %d, message '%s', want '%s'\n", line, rc, msg.text, needle);
    return 0;
  }
  return 1;
}

/* Counts with suffixes and powers, and every way a count can be wrong. */
static void test_counts(void) {
  uint64_t v;
  GS_EXPECT(gs_options_parse_u64("123", &v) == 0 && v == 123);
  GS_EXPECT(gs_options_parse_u64("2^30", &v) == 0 && v == (uint64_t)1 << 30);
  GS_EXPECT(gs_options_parse_u64("256M", &v) == 0 && v == (uint64_t)256 << 20);
  GS_EXPECT(gs_options_parse_u64("4k", &v) == 0 && v == 4096);
  GS_EXPECT(gs_options_parse_u64("1e6", &v) == 0 && v == 1000000);
  GS_EXPECT(gs_options_parse_u64("2^63", &v) == 0 && v == (uint64_t)1 << 63);
  GS_EXPECT(gs_options_parse_u64("2^64", &v) == -2);
  GS_EXPECT(gs_options_parse_u64("16T", &v) == 0 && v == (uint64_t)16 << 40);
  GS_EXPECT(gs_options_parse_u64("99999999999999999999", &v) == -2);
  GS_EXPECT(gs_options_parse_u64("20000000T", &v) == -2);
  GS_EXPECT(gs_options_parse_u64("-1", &v) == -3);
  GS_EXPECT(gs_options_parse_u64("abc", &v) == -1);
  GS_EXPECT(gs_options_parse_u64("12x", &v) == -1);
  GS_EXPECT(gs_options_parse_u64("2^", &v) == -1);
  GS_EXPECT(gs_options_parse_u64("", &v) == -1);
  GS_EXPECT(gs_options_parse_u64("1MB", &v) == -1);
}

/* Defaults, both value forms, the spellings of choices, common options anywhere. */
static void test_values(void) {
  static struct gs_options o;
  struct gs_msg msg;
  GS_EXPECT(parse("reduce", &o, &msg) == GS_OK);
  GS_EXPECT(o.wl == &gs_reduce_workload && R(&o)->n == (uint64_t)1 << 28 && R(&o)->block == 256);
  GS_EXPECT(R(&o)->dtype == GS_DTYPE_INT32 && R(&o)->op == GS_OP_SUM && strcmp(R(&o)->kernels, "all") == 0);
  GS_EXPECT(strcmp(o.common.gpu_bind, "local") == 0 && o.common.backend == GS_BACKEND_AUTO);
  GS_EXPECT(parse("reduce --n=2^20 --type double --op max --block 128 --source host --kernel 1,7,vec", &o, &msg) == GS_OK);
  GS_EXPECT(R(&o)->n == (uint64_t)1 << 20 && R(&o)->dtype == GS_DTYPE_DOUBLE && R(&o)->op == GS_OP_MAX);
  GS_EXPECT(R(&o)->block == 128 && R(&o)->source == GS_SOURCE_HOST && strcmp(R(&o)->kernels, "1,7,vec") == 0);
  /* The common spellings of the precision and the element type, any case (issue 17, item 1). */
  GS_EXPECT(parse("nbody --precision float", &o, &msg) == GS_OK && B(&o)->precision == 0);
  GS_EXPECT(parse("nbody --precision FP32", &o, &msg) == GS_OK && B(&o)->precision == 0);
  GS_EXPECT(parse("nbody --precision f64", &o, &msg) == GS_OK && B(&o)->precision == 1);
  GS_EXPECT(parse("nbody --precision Double", &o, &msg) == GS_OK && B(&o)->precision == 1);
  GS_EXPECT(parse("reduce --type fp64", &o, &msg) == GS_OK && R(&o)->dtype == GS_DTYPE_DOUBLE);
  GS_EXPECT(parse("reduce --type Single", &o, &msg) == GS_OK && R(&o)->dtype == GS_DTYPE_FLOAT);
  GS_EXPECT(parse("reduce --type int32", &o, &msg) == GS_OK && R(&o)->dtype == GS_DTYPE_INT32);
  GS_EXPECT(fails_with("nbody --precision half", "not one of single|double"));
  GS_EXPECT(parse("--backend cpu info --gpu-bind 1,0 --gpu-share", &o, &msg) == GS_OK);
  GS_EXPECT(o.wl == &gs_info_workload && o.common.backend == GS_BACKEND_CPU && o.common.gpu_share == 1);
  GS_EXPECT(strcmp(o.common.gpu_bind, "1,0") == 0);
  GS_EXPECT(parse("reduce --help", &o, &msg) == GS_OK && o.help && o.wl == &gs_reduce_workload);
  GS_EXPECT(parse("--version", &o, &msg) == GS_OK && o.version);
  /* No subcommand: the main job, with the common options anywhere (issue 34). */
  GS_EXPECT(parse("", &o, &msg) == GS_OK && o.wl == NULL);
  GS_EXPECT(parse("--backend cpu --csv r.csv --json=r.json --gpu-bind none", &o, &msg) == GS_OK && o.wl == NULL);
  GS_EXPECT(o.common.backend == GS_BACKEND_CPU && strcmp(o.common.csv, "r.csv") == 0);
  GS_EXPECT(strcmp(o.common.json, "r.json") == 0 && strcmp(o.common.gpu_bind, "none") == 0);
  GS_EXPECT(parse("--help", &o, &msg) == GS_OK && o.help && o.wl == NULL);
}

/* Every kind of bad input gets one message naming it. */
static void test_errors(void) {
  GS_EXPECT(fails_with("--n 5", "unknown option '--n': it is a subcommand's option, given after the subcommand"));
  GS_EXPECT(fails_with("--backend cpu --gpu-bind 0,x", "not local, none or a list"));
  GS_EXPECT(fails_with("launch", "unknown subcommand 'launch'"));
  GS_EXPECT(fails_with("reduce --frobnicate 3", "unknown option '--frobnicate' for reduce"));
  GS_EXPECT(fails_with("info --n 5", "unknown option '--n' for info"));
  GS_EXPECT(fails_with("reduce -n 5", "options are long"));
  GS_EXPECT(fails_with("reduce --n", "--n needs a value"));
  GS_EXPECT(fails_with("reduce --n abc", "not a number"));
  GS_EXPECT(fails_with("reduce --n -4", "negative"));
  GS_EXPECT(fails_with("reduce --n 2^70", "too large"));
  GS_EXPECT(fails_with("reduce --n 0", "out of range"));
  GS_EXPECT(fails_with("reduce --iters 0", "out of range"));
  GS_EXPECT(fails_with("reduce --block 16", "out of range"));
  GS_EXPECT(fails_with("reduce --block 96", "not a power of two"));
  GS_EXPECT(fails_with("reduce --chunk 10", "out of range"));
  GS_EXPECT(fails_with("reduce --type int8", "not one of int|float|double"));
  GS_EXPECT(fails_with("reduce --op avg", "not one of sum|min|max"));
  GS_EXPECT(fails_with("reduce --kernel 1,fast", "'fast' is not a kernel"));
  GS_EXPECT(fails_with("reduce --csv=", "empty value"));
  GS_EXPECT(fails_with("info --gpu-share=1", "takes no value"));
  GS_EXPECT(fails_with("info --gpu-bind 0,x", "not local, none or a list"));
  GS_EXPECT(fails_with("info --gpu-bind 0,,1", "empty entry"));
  GS_EXPECT(fails_with("info extra", "unexpected argument 'extra'"));
}

/* Values that are options, repeats, contradictions, kernel lists. */
static void test_combinations(void) {
  static struct gs_options o;
  struct gs_msg msg;
  /* A missing value is named as missing, not as the next option mistaken for the value. */
  GS_EXPECT(fails_with("nbody --n --steps 3", "--n needs a value (N)"));
  GS_EXPECT(fails_with("reduce --csv --n 5", "--csv needs a value (FILE)"));
  GS_EXPECT(parse("reduce --csv=--odd.csv --n -0", &o, &msg) == GS_USAGE && strstr(msg.text, "negative"));
  GS_EXPECT(parse("reduce --csv=--odd.csv", &o, &msg) == GS_OK && strcmp(o.common.csv, "--odd.csv") == 0);
  /* A repeated option, or two that contradict, are refused with one message. */
  GS_EXPECT(fails_with("reduce --n 5 --n 6", "--n is given more than once"));
  GS_EXPECT(fails_with("reduce --iters=3 --warmup 1 --iters 4", "--iters is given more than once"));
  GS_EXPECT(fails_with("--backend cpu info --backend cpu", "--backend is given more than once"));
  GS_EXPECT(fails_with("reduce --n 1000 --total 4000", "--n (elements per rank) and --total (over all ranks) contradict"));
  GS_EXPECT(fails_with("reduce --total 4000 --n 1000", "contradict: give one"));
  GS_EXPECT(parse("reduce --total 4000", &o, &msg) == GS_OK && R(&o)->total == 4000);
  GS_EXPECT(fails_with("nbody --ic bodies.txt --n 4", "--n and --ic FILE contradict"));
  GS_EXPECT(parse("nbody --ic disk --n 64", &o, &msg) == GS_OK && B(&o)->n == 64);
  /* Kernel lists: no empty element. */
  GS_EXPECT(fails_with("reduce --kernel omp,", "--kernel: 'omp,' has an empty entry"));
  GS_EXPECT(fails_with("reduce --kernel ,1", "has an empty entry"));
  GS_EXPECT(fails_with("nbody --kernel omp,,1", "--kernel: 'omp,,1' has an empty entry"));
  GS_EXPECT(fails_with("nbody --kernel omp,", "has an empty entry"));
  GS_EXPECT(parse("nbody --kernel 1,omp", &o, &msg) == GS_OK);
  GS_EXPECT(parse("nbody --kernel ladder,8", &o, &msg) == GS_OK);
  GS_EXPECT(fails_with("nbody --kernel 9", "'9' is not a kernel"));
  GS_EXPECT(fails_with("reduce --kernel global", "'global' is not a kernel"));
}

/* Issue 30, item 11: messages that say what is wrong, and keywords in any case. */
static void test_messages(void) {
  static struct gs_options o;
  struct gs_msg msg;
  /* A kernel given twice is named as such, not as one the backend lacks. */
  GS_EXPECT(fails_with("nbody --kernel omp,omp", "--kernel omp,omp: 'omp' is given twice"));
  GS_EXPECT(
      fails_with("nbody --kernel 1,global", "--kernel 1,global: '1' and 'global' are the same kernel, given twice"));
  GS_EXPECT(fails_with("reduce --kernel vec,VEC", "--kernel vec,VEC: 'VEC' is given twice"));
  GS_EXPECT(fails_with("reduce --kernel all,vec", "--kernel all,vec: 'all' is every kernel: give it alone"));
  /* An option before its subcommand: said so, and the hint is a command that exists. */
  GS_EXPECT(
      fails_with("--n 5 nbody", "--n is an option of nbody: give it after the subcommand (gpusim nbody --n ...)"));
  GS_EXPECT(fails_with("--steps 5 reduce", "unknown option '--steps' for reduce (try 'gpusim reduce --help')"));
  GS_EXPECT(fails_with(
      "--n 5", "unknown option '--n': it is a subcommand's option, given after the subcommand (try 'gpusim --help')"));
  GS_EXPECT(fails_with("--frobnicate 5", "unknown option '--frobnicate' (try 'gpusim --help')"));
  GS_EXPECT(parse("--n 5 nbody", &o, &msg) == GS_USAGE && !strstr(msg.text, "  "));
  /* --force-tol takes what its defaults take (1 at theta 1, 2 above), any X > 0. */
  GS_EXPECT(parse("nbody --solver tree --theta 1.2 --force-tol 2", &o, &msg) == GS_OK && B(&o)->force_tol == 2);
  GS_EXPECT(parse("nbody --solver tree --force-tol 1", &o, &msg) == GS_OK);
  GS_EXPECT(fails_with("nbody --solver tree --force-tol 0", "--force-tol: must be > 0"));
  /* A denormal is a number like any other; past the largest double is out of range. */
  GS_EXPECT(parse("nbody --dt 1e-310", &o, &msg) == GS_OK && B(&o)->dt == 1e-310);
  GS_EXPECT(fails_with("nbody --dt 1e999", "--dt: '1e999' is out of range"));
  GS_EXPECT(fails_with("nbody --dt 1e-400", "--dt: must be > 0"));
  /* --walltime: decimal HH:MM:SS only, not whatever else strtod reads. */
  GS_EXPECT(gs_options_parse_hms("1:02:03.5") == 3723.5 && gs_options_parse_hms("90") == 90);
  GS_EXPECT(gs_options_parse_hms("0x10") == -1 && gs_options_parse_hms("1e999") == -1 &&
            gs_options_parse_hms("1.5.3") == -1);
  GS_EXPECT(fails_with("nbody --walltime 1e3", "--walltime: '1e3' is not HH:MM:SS"));
}

/* Every keyword in any case, stored in its own spelling: choices, kernel names, --ic presets,
 * --gpu-bind's words, --grid auto; a file name as given. */
static void test_keyword_case(void) {
  static struct gs_options o;
  struct gs_msg msg;
  GS_EXPECT(parse("nbody --solver TREE --opening Relative --overlap OFF --ic Disk", &o, &msg) == GS_OK);
  GS_EXPECT(B(&o)->solver == GS_NBODY_TREE && B(&o)->opening == 1 && B(&o)->overlap == 0 &&
            strcmp(B(&o)->ic, "disk") == 0);
  GS_EXPECT(parse("--backend CPU reduce --op MAX --source Host --kernel OMP,Vec --gpu-bind NONE", &o, &msg) == GS_OK);
  GS_EXPECT(o.common.backend == GS_BACKEND_CPU && R(&o)->op == GS_OP_MAX && R(&o)->source == GS_SOURCE_HOST);
  GS_EXPECT(strcmp(R(&o)->kernels, "omp,vec") == 0 && strcmp(o.common.gpu_bind, "none") == 0);
  GS_EXPECT(parse("nbody --kernel ALL --ic ./Plummer.txt", &o, &msg) == GS_OK);
  GS_EXPECT(strcmp(B(&o)->kernels, "all") == 0 && strcmp(B(&o)->ic, "./Plummer.txt") == 0);
  GS_EXPECT(parse("matmul --ic RANDOM --type DOUBLE --grid AUTO --exchange HOST", &o, &msg) == GS_OK);
  const struct gs_matmul_opts *m = gs_options_workload(&o);
  GS_EXPECT(m->ic == GS_MATMUL_IC_RANDOM && m->type == GS_MATMUL_DOUBLE && strcmp(m->grid, "auto") == 0);
  GS_EXPECT(fails_with("nbody --solver trees", "--solver: 'trees' is not one of direct|tree"));
}

/* A restart without --solver takes the checkpoint's: the tree's options wait for it, then are
 * checked against what the checkpoint says (gs_nbody_options_adopted). */
static void test_restart_solver(void) {
  static struct gs_options o;
  struct gs_msg msg;
  GS_EXPECT(parse("nbody --restart ck --theta 0.7", &o, &msg) == GS_OK);
  struct gs_nbody_opts b = *B(&o); /* as gs_nbody_io_adopt leaves it: a direct checkpoint */
  b.solver = GS_NBODY_DIRECT;
  GS_EXPECT(gs_nbody_options_adopted(&o, &b, 0, &msg) == GS_USAGE &&
            strstr(msg.text, "--theta is an option of the tree, and the checkpoint was written by --solver direct"));
  b.solver = GS_NBODY_TREE; /* a tree checkpoint */
  GS_EXPECT(gs_nbody_options_adopted(&o, &b, 1, &msg) == GS_OK);
  GS_EXPECT(parse("nbody --restart ck --alpha 0.01", &o, &msg) == GS_OK);
  b = *B(&o);
  b.solver = GS_NBODY_TREE, b.opening = 0;
  GS_EXPECT(gs_nbody_options_adopted(&o, &b, 1, &msg) == GS_USAGE &&
            strstr(msg.text, "it needs --opening relative (the checkpoint's test is geometric)"));
  b.opening = 1;
  GS_EXPECT(gs_nbody_options_adopted(&o, &b, 1, &msg) == GS_OK);
  GS_EXPECT(fails_with("nbody --restart ck --solver direct --theta 0.7",
                       "--theta is an option of the tree: it needs --solver tree"));
  GS_EXPECT(fails_with("nbody --restart ck --theta 2", "--theta: must be > 0 and <= 1.5"));
  GS_EXPECT(fails_with("nbody --theta 0.7", "--theta is an option of the tree: it needs --solver tree"));
}

/* Where ladder holds a kernel that another entry names too, the backend's list says so. */
static void test_kernel_select(void) {
  static const char *const known[] = {"global", "rsqrt", "omp", NULL};
  static const struct gs_kernel kernels[] = {
      {"global", "", 0, GS_KERNEL_LADDER}, {"rsqrt", "", 1, GS_KERNEL_LADDER}, {"omp", "", 2, 0}};
  struct gs_msg msg;
  unsigned mask;
  GS_EXPECT(gs_kernel_list_select("ladder,omp", known, 2, kernels, 3, "test", &mask, &msg) == GS_OK && mask == 7);
  GS_EXPECT(gs_kernel_list_select("ladder,2", known, 2, kernels, 3, "test", &mask, &msg) == GS_USAGE &&
            strstr(msg.text, "--kernel ladder,2: rsqrt is given twice (ladder holds it on the test backend)"));
  GS_EXPECT(gs_kernel_list_select("global,ladder", known, 2, kernels, 3, "test", &mask, &msg) == GS_USAGE &&
            strstr(msg.text, "global is given twice"));
}

/* The table is all the parser knows: a workload it was never told about parses, gets its
 * defaults and its own options only, and --help lists it. */
static void test_table(void) {
  static struct gs_options o;
  struct gs_msg msg;
  GS_EXPECT(parse("toy", &o, &msg) == GS_OK && o.wl == &toy && ((const struct toy_opts *)gs_options_workload(&o))->level == 5);
  GS_EXPECT(parse("toy --level 7 --backend cpu", &o, &msg) == GS_OK);
  GS_EXPECT(((const struct toy_opts *)gs_options_workload(&o))->level == 7 && o.common.backend == GS_BACKEND_CPU);
  GS_EXPECT(fails_with("toy --level 10", "out of range [1, 9]"));
  GS_EXPECT(fails_with("toy --n 5", "unknown option '--n' for toy"));
  GS_EXPECT(fails_with("reduce --level 5", "unknown option '--level' for reduce"));
  for (int i = 0; table[i]; i++) GS_EXPECT(table[i]->opts_size <= GS_WORKLOAD_OPTS_MAX);
  char help[4096] = "";
  FILE *f = fmemopen(help, sizeof help - 1, "w");
  gs_options_help(f, table, NULL);
  fclose(f);
  GS_EXPECT(strstr(help, "  toy        a test workload") != NULL);
  f = fmemopen(help, sizeof help - 1, "w");
  gs_options_help(f, table, &toy);
  fclose(f);
  GS_EXPECT(strstr(help, "--level L") != NULL && strstr(help, "--backend") != NULL && !strstr(help, "--steps"));
}

/* Every kernel of every backend this build has is a name its workload's --kernel accepts. */
static void test_kernel_names(void) {
  const char *label;
  const struct gs_backend *be;
  static struct gs_options o;
  struct gs_msg msg;
  /* The names are made with each subcommand's defaults, as the parser makes them. */
  GS_EXPECT(parse("reduce", &o, &msg) == GS_OK && parse("nbody", &o, &msg) == GS_OK &&
            parse("matmul", &o, &msg) == GS_OK);
  for (int i = 0; gs_backend_at(i, &label, &be); i++) {
    for (int k = 0; be && k < be->reduce->count; k++) {
      int known = 0;
      for (int j = 0; gs_reduce_workload.kernels[j]; j++) known |= !strcmp(gs_reduce_workload.kernels[j], be->reduce->kernels[k].name);
      GS_EXPECT(known);
    }
    for (int k = 0; be && k < be->nbody->count; k++) {
      int known = 0;
      for (int j = 0; gs_nbody_workload.kernels[j]; j++) known |= !strcmp(gs_nbody_workload.kernels[j], be->nbody->kernels[k].name);
      GS_EXPECT(known);
    }
    for (int k = 0; be && be->matmul && k < be->matmul->count; k++) {
      int known = 0;
      for (int j = 0; gs_matmul_workload.kernels[j]; j++) known |= !strcmp(gs_matmul_workload.kernels[j], be->matmul->kernels[k].name);
      GS_EXPECT(known);
    }
  }
}

/* Does --help for wl hold line? */
static int help_has(const struct gs_workload *wl, const char *line) {
  char help[8192] = "";
  FILE *f = fmemopen(help, sizeof help - 1, "w");
  gs_options_help(f, table, wl);
  fclose(f);
  return strstr(help, line) != NULL;
}

/* Does text name name: as an entry of its own, or within a range "p1..p7" (a backend's grouping)? */
static int text_names(const char *text, const char *name) {
  const size_t len = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
    if ((p == text || p[-1] == ' ') && (p[len] == ',' || p[len] == ' ' || p[len] == ';' || !p[len])) return 1;
  char range[64];
  for (char d = '1'; d <= '9' && len && name[len - 1] >= '1' && name[len - 1] <= '9'; d++)
    for (char e = name[len - 1]; e <= '9'; e++) {
      snprintf(range, sizeof range, "%.*s%c..%.*s%c", (int)len - 1, name, d, (int)len - 1, name, e);
      if (d <= name[len - 1] && text_names(text, range)) return 1;
    }
  return 0;
}

/* workload's --kernel names are the backends' own (gs_backend_names; the option files name none),
 * every backend's, built or not (CUDA's are taken in a CPU-only build too), the help text names
 * each (a backend's own grouping included), and --kernel's help line is helpline. */
static void expect_kernel_names(int workload, const char *sep, const char *text, int numbered, int count,
                                const struct gs_workload *wl, const char *helpline) {
  const char *known[GS_NBODY_OPTIONS_KERNELS_MAX];
  char got[256];
  GS_EXPECT(gs_backend_names(workload, sep, "%s", known, GS_NBODY_OPTIONS_KERNELS_MAX, got, sizeof got) == numbered);
  GS_EXPECT(!strcmp(got, text));
  int n = 0;
  for (; known[n]; n++) {
    GS_EXPECT(!strcmp(known[n], wl->kernels[n]));
    if (!text_names(got, known[n])) fprintf(stderr, "'%s' is not in '%s'\n", known[n], got);
    GS_EXPECT(text_names(got, known[n]));
  }
  GS_EXPECT(n == count && !wl->kernels[n]);
  GS_EXPECT(help_has(wl, helpline));
}

/* nbody's: numbered 1..8, "a, b (cuda), c (cpu)". */
static void test_nbody_kernel_help(void) {
  static struct gs_options o;
  struct gs_msg msg;
  expect_kernel_names(GS_BACKEND_NBODY, ", ",
                      "1..8 / global, rsqrt, shared, unroll, soften, fma, multi, jsplit (cuda), omp (cpu)", 8, 9,
                      &gs_nbody_workload,
                      "  --kernel LIST            all, ladder, or a list of 1..8 / global, rsqrt, shared, unroll, "
                      "soften, fma, multi, jsplit (cuda), omp (cpu); each is timed and verified, the last one runs "
                      "the simulation (default all)\n");
  GS_EXPECT(!strcmp(gs_nbody_options_kernels[0], "global") && !strcmp(gs_nbody_options_kernels[8], "omp"));
  GS_EXPECT(parse("nbody --kernel 8,omp", &o, &msg) == GS_OK && !strcmp(B(&o)->kernels, "8,omp"));
  GS_EXPECT(gs_nbody_workload.kernels == gs_nbody_options_kernels && gs_nbody_options_numbered == 8);
}

/* reduce's: CUDA's names are 1..7 themselves (no numbers), grouped "1..7 (the seed ladder)", and
 * " / " stands between the backends. */
static void test_reduce_kernel_help(void) {
  static struct gs_options o;
  struct gs_msg msg;
  expect_kernel_names(GS_BACKEND_REDUCE, " / ", "1..7 (the seed ladder), vec, onepass, cub (cuda) / omp (cpu)", 0, 11,
                      &gs_reduce_workload,
                      "  --kernel LIST            all, ladder, or a list of 1..7 (the seed ladder), vec, onepass, cub "
                      "(cuda) / omp (cpu) (default all)\n");
  GS_EXPECT(!strcmp(gs_reduce_options_kernels[6], "7") && !strcmp(gs_reduce_options_kernels[9], "cub"));
  GS_EXPECT(parse("reduce --kernel 7,cub,omp", &o, &msg) == GS_OK && !strcmp(R(&o)->kernels, "7,cub,omp"));
  GS_EXPECT(
      parse("reduce --kernel 8", &o, &msg) == GS_USAGE &&
      !strcmp(msg.text, "--kernel: '8' is not a kernel (all, ladder, 1, 2, 3, 4, 5, 6, 7, vec, onepass, cub, omp)"));
  GS_EXPECT(gs_reduce_workload.kernels == gs_reduce_options_kernels);
}

/* matmul's: the seed ladder numbered 1..6, CUDA's grouping with the types, cuBLAS's names in every
 * build. */
static void test_matmul_kernel_help(void) {
  static struct gs_options o;
  struct gs_msg msg;
  expect_kernel_names(GS_BACKEND_MATMUL, ", ",
                      "1..6 / global, smem1..smem5 (the seed ladder), simt, dmma (double), tc32, wgmma (tf32), "
                      "cublas, cublas-tf32 (cuda), omp (cpu)",
                      6, 13, &gs_matmul_workload,
                      "  --kernel LIST            all, ladder, or a list of 1..6 / global, smem1..smem5 (the seed "
                      "ladder), simt, dmma (double), tc32, wgmma (tf32), cublas, cublas-tf32 (cuda), omp (cpu); all = "
                      "every kernel of the backend that runs --type (default all)\n");
  GS_EXPECT(!strcmp(gs_matmul_options_kernels[5], "smem5") && !strcmp(gs_matmul_options_kernels[11], "cublas-tf32"));
  GS_EXPECT(parse("matmul --kernel 6,cublas-tf32,omp", &o, &msg) == GS_OK);
  GS_EXPECT(parse("matmul --kernel 6,smem5", &o, &msg) == GS_USAGE &&
            !strcmp(msg.text, "--kernel 6,smem5: '6' and 'smem5' are the same kernel, given twice"));
  GS_EXPECT(gs_matmul_workload.kernels == gs_matmul_options_kernels && gs_matmul_options_numbered == 6);
}

/* One sub-table of a built backend: count named kernels with distinct names and ids, the list's
 * NULL end (where it has one) never inside; has_cublas: the list holds "cublas". */
static void expect_sub_table(const struct gs_kernel *k, int count, int *has_cublas) {
  GS_EXPECT(k != NULL && count > 0);
  for (int i = 0; k && i < count; i++) {
    GS_EXPECT(k[i].name != NULL);
    if (!k[i].name) return;
    if (!strcmp(k[i].name, "cublas")) *has_cublas = 1;
    for (int j = 0; j < i; j++)
      GS_EXPECT(strcmp(k[i].name, k[j].name) != 0 && k[i].id != k[j].id);
  }
}

/* Every backend this build has: its reduce, nbody and matmul sub-tables hold whole kernel rows
 * (CUDA's point into the lists of gs_backend_cuda_names.c with a count of their own), and CUDA's
 * matmul has the cuBLAS rows exactly where the build has cuBLAS. The CI's CUDA build, with no
 * GPU, runs this on the CUDA tables too. */
static void test_backend_tables(void) {
  const struct gs_backend *be;
  const char *label;
  int built = 0;
  for (int i = 0; gs_backend_at(i, &label, &be); i++) {
    if (!be) continue;
    int cublas = 0, none = 0;
    built++;
    expect_sub_table(be->reduce->kernels, be->reduce->count, &none);
    expect_sub_table(be->nbody->kernels, be->nbody->count, &none);
    expect_sub_table(be->matmul->kernels, be->matmul->count, &cublas);
    GS_EXPECT(!none);
#ifdef GS_HAVE_CUBLAS
    GS_EXPECT(cublas == !strcmp(be->name, "cuda"));
#else
    GS_EXPECT(!cublas);
#endif
  }
  GS_EXPECT(built >= 1); /* the CPU backend at least */
}

int main(void) {
  test_backend_tables();
  test_counts();
  test_values();
  test_errors();
  test_combinations();
  test_table();
  test_kernel_names();
  test_messages();
  test_keyword_case();
  test_restart_solver();
  test_kernel_select();
  test_nbody_kernel_help();
  test_reduce_kernel_help();
  test_matmul_kernel_help();
  GS_TEST_DONE();
}
