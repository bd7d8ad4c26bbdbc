/* gs_matmul_options.h: `gpusim matmul`'s options, its entry of the option parser. */
#ifndef GS_MATMUL_OPTIONS_H
#define GS_MATMUL_OPTIONS_H

#include <stdint.h>

#include "gs_options.h"
#include "gs_types.h"

/* --type values, in the order of the option's choice list. */
enum gs_matmul_type { GS_MATMUL_FLOAT = 0, GS_MATMUL_DOUBLE, GS_MATMUL_TF32 };
/* --ic values. */
enum gs_matmul_ic { GS_MATMUL_IC_SEED = 0, GS_MATMUL_IC_RANDOM };

struct gs_matmul_opts {
  uint64_t m, n, k;           /* C (m x n) = A (m x k) * B (k x n); --m and --k default to --n */
  int type;                   /* enum gs_matmul_type */
  char kernels[GS_LIST_MAX];  /* "all", "ladder" or a comma list */
  int ic;                     /* enum gs_matmul_ic */
  uint64_t seed;              /* --ic random's generator seed */
  int iters, warmup;          /* timed and untimed repetitions */
  int overlap;                /* 0 off, 1 on: SUMMA's next panel travels during the block product */
  int exchange;               /* enum gs_exchange_mode: how SUMMA's panels travel (default auto) */
  uint64_t panel;             /* SUMMA panel width (columns of A, rows of B) */
  char grid[32];              /* --grid as given: "auto" or "RxC" */
  int grid_rows, grid_cols;   /* the process grid --grid asks for; 0 x 0: the most square */
};

/* "float", "double", "tf32" and "seed", "random": the --type and --ic spellings. */
const char *gs_matmul_options_type_name(int type);
const char *gs_matmul_options_ic_name(int ic);

/* The element type the matrices are stored in: tf32 keeps float data. */
enum gs_dtype gs_matmul_options_dtype(int type);

/* The option table (NULL-terminated), the names --kernel takes (every backend's, NULL-terminated;
 * the first gs_matmul_options_numbered of them also by number: CUDA's seed ladder), defaults and
 * cross-checks (struct gs_workload). The names are filled in by the defaults. */
extern const struct gs_opt gs_matmul_options_table[];
#define GS_MATMUL_OPTIONS_KERNELS_MAX 32
extern const char *gs_matmul_options_kernels[GS_MATMUL_OPTIONS_KERNELS_MAX];
extern int gs_matmul_options_numbered;
void gs_matmul_options_defaults(void *opts);
int gs_matmul_options_validate(const struct gs_options *o, void *opts, struct gs_msg *msg);

#endif
