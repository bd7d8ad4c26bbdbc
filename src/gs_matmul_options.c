/* gs_matmul_options.c: `gpusim matmul`'s option table, defaults and cross-option checks. */
#include "gs_matmul_options.h"

#include <string.h>

#include "gs_backend.h"
#include "gs_exchange.h"
#include "gs_kernel_list.h"

#define GS_M(field) GS_OPT_AT(struct gs_matmul_opts, field)

/* --kernel's names, numbers and help line come from the backends' own lists (gs_backend_names):
 * this file names no kernel. Made when the subcommand's defaults are, before its options are
 * read, validated or shown (as nbody's, gs_nbody_options.c). */
const char *gs_matmul_options_kernels[GS_MATMUL_OPTIONS_KERNELS_MAX];
int gs_matmul_options_numbered;
static char gs_matmul_options_kernel_help[512];

/* Matrix sides up to 2^31 - 1: a side is an int for every library below us (cuBLAS, MPI). */
#define GS_MATMUL_SIDE_MAX INT32_MAX

const struct gs_opt gs_matmul_options_table[] = {
    {"n", GS_OPT_COUNT, GS_M(n), 1, GS_MATMUL_SIDE_MAX, NULL, "N",
     "columns of C and B; alone, the side of square matrices (default 2048, the seed's)", NULL},
    {"m", GS_OPT_COUNT, GS_M(m), 1, GS_MATMUL_SIDE_MAX, NULL, "M", "rows of C and A (default --n)", NULL},
    {"k", GS_OPT_COUNT, GS_M(k), 1, GS_MATMUL_SIDE_MAX, NULL, "K", "columns of A, rows of B (default --n)", NULL},
    {"type", GS_OPT_CHOICE, GS_M(type), 0, 0, "float|double|tf32", "T",
     "float (FP32), double (FP64) or tf32 (float data, products on TF32 tensor cores; looser tolerance) "
     "(default float)",
     "float=float,single=float,fp32=float,f32=float,double=double,fp64=double,f64=double,tf32=tf32"},
    {"kernel", GS_OPT_STRING, GS_M(kernels), 0, 0, NULL, "LIST", gs_matmul_options_kernel_help, NULL},
    {"ic", GS_OPT_CHOICE, GS_M(ic), 0, 0, "seed|random", "IC",
     "inputs: seed (a[i][j] = 2j + i, b[i][j] = j - i, checked against the exact closed form) or random "
     "(seeded uniform in [-1, 1], checked by Freivalds' test and sampled dot products) (default seed)", NULL},
    {"seed", GS_OPT_COUNT, GS_M(seed), 0, INT64_MAX, NULL, "S", "generator seed for --ic random (default 1)", NULL},
    {"iters", GS_OPT_INT, GS_M(iters), 1, 1000000, NULL, "K", "timed runs per kernel; the median is shown (default 5)",
     NULL},
    {"warmup", GS_OPT_INT, GS_M(warmup), 0, 1000000, NULL, "K", "untimed runs first (default 1)", NULL},
    {"overlap", GS_OPT_CHOICE, GS_M(overlap), 0, 0, "off|on", "O",
     "several ranks: broadcast the next SUMMA panel while the current block product runs (default on)", NULL},
    {"exchange", GS_OPT_CHOICE, GS_M(exchange), 0, 0, GS_EXCHANGE_CHOICES, "X",
     "several ranks: how SUMMA's panels travel: nccl (device to device), cuda-mpi (device buffers to a CUDA-aware "
     "MPI), host (staged through pinned host memory), auto (the first of these available) (default auto)",
     NULL},
    {"panel", GS_OPT_COUNT, GS_M(panel), 1, 1 << 20, NULL, "W",
     "SUMMA panel width: columns of A and rows of B broadcast per step; each step re-reads and rewrites C's "
     "block, so wide panels pay off (default 8192)", NULL},
    {"grid", GS_OPT_STRING, GS_M(grid), 0, 0, NULL, "RxC",
     "several ranks: the process grid, R process rows by C process columns (R C = ranks; 1xP and Px1 are 1D), or "
     "auto, the most square with R <= C (default auto)", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL},
};

const char *gs_matmul_options_type_name(int type) {
  return type == GS_MATMUL_FLOAT ? "float" : type == GS_MATMUL_DOUBLE ? "double" : "tf32";
}

const char *gs_matmul_options_ic_name(int ic) { return ic == GS_MATMUL_IC_SEED ? "seed" : "random"; }

enum gs_dtype gs_matmul_options_dtype(int type) { return type == GS_MATMUL_DOUBLE ? GS_DTYPE_DOUBLE : GS_DTYPE_FLOAT; }

void gs_matmul_options_defaults(void *opts) {
  struct gs_matmul_opts *m = opts;
  gs_matmul_options_numbered =
      gs_backend_names(GS_BACKEND_MATMUL, ", ",
                       "all, ladder, or a list of %s; all = every kernel of the backend that runs --type (default all)",
                       gs_matmul_options_kernels, GS_MATMUL_OPTIONS_KERNELS_MAX, gs_matmul_options_kernel_help,
                       sizeof gs_matmul_options_kernel_help);
  m->n = 2048;
  strcpy(m->kernels, "all");
  strcpy(m->grid, "auto");
  m->seed = 1;
  m->iters = 5;
  m->warmup = 1;
  m->overlap = 1;
  m->panel = 8192; /* 2 H100s, N = 16384: no slower than 4096 on three hosts, 0.4-4.3% faster (performance.md) */
}

/* A side of --grid at *p: decimal digits only, in [1, 2^20]; 0 where it is not. */
static int gs_matmul_options_side(const char **p) {
  long v = 0;
  const char *s = *p;
  while (*s >= '0' && *s <= '9' && v <= 1 << 20)
    v = v * 10 + (*s++ - '0');
  if (s == *p || v < 1 || v > 1 << 20) return 0;
  *p = s;
  return (int)v;
}

/* --grid: "auto" (0 x 0) or RxC; whether R C is the rank count is for the run to say
 * (gs_matmul_setup_grid). */
static int gs_matmul_options_grid(struct gs_matmul_opts *m, struct gs_msg *msg) {
  m->grid_rows = m->grid_cols = 0;
  if (gs_options_keyword(m->grid, strlen(m->grid), "auto")) return strcpy(m->grid, "auto"), GS_OK;
  const char *p = m->grid;
  int r = gs_matmul_options_side(&p), c = 0;
  if (r && (*p == 'x' || *p == 'X')) {
    p++;
    c = gs_matmul_options_side(&p);
  }
  if (!c || *p)
    return gs_error_msg(msg,
                        "--grid %s: give RxC, process rows by process columns, each in [1, 1048576] "
                        "(example: 2x4), or auto",
                        m->grid);
  m->grid_rows = r;
  m->grid_cols = c;
  return GS_OK;
}

int gs_matmul_options_validate(const struct gs_options *o, void *opts, struct gs_msg *msg) {
  struct gs_matmul_opts *m = opts;
  if (gs_matmul_options_grid(m, msg) != GS_OK) return GS_USAGE;
  if (!gs_options_given(o, "m")) m->m = m->n;
  if (!gs_options_given(o, "k")) m->k = m->n;
  if (gs_options_given(o, "seed") && m->ic == GS_MATMUL_IC_SEED)
    return gs_error_msg(msg, "--seed is for --ic random (the seed's matrices have no randomness)");
  return gs_kernel_list_check(m->kernels, gs_matmul_options_kernels, gs_matmul_options_numbered, msg);
}
