/* gs_reduce_options.h: `gpusim reduce`'s options, its entry of the option parser. */
#ifndef GS_REDUCE_OPTIONS_H
#define GS_REDUCE_OPTIONS_H

#include <stdint.h>

#include "gs_options.h"
#include "gs_types.h"

/* --source values. */
enum gs_source { GS_SOURCE_DEVICE = 0, GS_SOURCE_HOST };

struct gs_reduce_opts {
  uint64_t n;                 /* elements per rank (0 = from total) */
  uint64_t total;             /* elements over all ranks, for strong scaling (0 = unset) */
  int dtype;                  /* enum gs_dtype */
  int op;                     /* enum gs_op */
  char kernels[GS_LIST_MAX];  /* "all" or a comma list of names */
  int block;                  /* threads per block */
  int iters, warmup;          /* timed and untimed repetitions */
  int source;                 /* enum gs_source */
  int streams;                /* queues for --source host */
  uint64_t chunk;             /* elements per chunk for --source host */
  uint64_t seed;              /* input generator seed */
};

/* "int", "float", "double"; "sum", "min", "max": the --type and --op spellings. */
const char *gs_reduce_options_type_name(int dtype);
const char *gs_reduce_options_op_name(int op);

/* The option table (NULL-terminated), the names --kernel takes (every backend's, NULL-terminated;
 * filled in by the defaults), defaults and cross-checks (struct gs_workload). */
extern const struct gs_opt gs_reduce_options_table[];
#define GS_REDUCE_OPTIONS_KERNELS_MAX 32
extern const char *gs_reduce_options_kernels[GS_REDUCE_OPTIONS_KERNELS_MAX];
void gs_reduce_options_defaults(void *opts);
int gs_reduce_options_validate(const struct gs_options *o, void *opts, struct gs_msg *msg);

#endif
