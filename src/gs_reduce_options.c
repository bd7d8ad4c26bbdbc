/* gs_reduce_options.c: `gpusim reduce`'s option table, defaults and cross-option checks. */
#include "gs_reduce_options.h"

#include <string.h>

#include "gs_backend.h"
#include "gs_kernel_list.h"

#define GS_R(field) GS_OPT_AT(struct gs_reduce_opts, field)

/* --kernel's names and help line come from the backends' own lists (gs_backend_names): this file
 * names no kernel. Made when the subcommand's defaults are, before its options are read,
 * validated or shown (as nbody's, gs_nbody_options.c). */
const char *gs_reduce_options_kernels[GS_REDUCE_OPTIONS_KERNELS_MAX];
static char gs_reduce_options_kernel_help[512];

const struct gs_opt gs_reduce_options_table[] = {
    {"n", GS_OPT_COUNT, GS_R(n), 1, INT64_MAX, NULL, "N",
     "elements per rank: 268435456, 2^28, 256M, 1e6 (K/M/G = 2^10/2^20/2^30; default 2^28)", NULL},
    {"total", GS_OPT_COUNT, GS_R(total), 1, INT64_MAX, NULL, "N",
     "elements over all ranks instead of --n (strong scaling); split as evenly as possible", NULL},
    {"type", GS_OPT_CHOICE, GS_R(dtype), 0, 0, "int|float|double", "T",
     "element type (default int: 32-bit ints summed in 64 bits, so sums never overflow; "
     "float sums accumulate in double)",
     "int=int,int32=int,i32=int,float=float,single=float,fp32=float,f32=float,double=double,fp64=double,f64=double"},
    {"op", GS_OPT_CHOICE, GS_R(op), 0, 0, "sum|min|max", "OP", "reduction operator (default sum)", NULL},
    {"kernel", GS_OPT_STRING, GS_R(kernels), 0, 0, NULL, "LIST", gs_reduce_options_kernel_help, NULL},
    {"block", GS_OPT_INT, GS_R(block), 32, 1024, NULL, "T", "threads per block, a power of two (default 256)", NULL},
    {"iters", GS_OPT_INT, GS_R(iters), 1, 1000000, NULL, "K", "timed runs per kernel; the median is shown (default 20)",
     NULL},
    {"warmup", GS_OPT_INT, GS_R(warmup), 0, 1000000, NULL, "K", "untimed runs first (default 3)", NULL},
    {"source", GS_OPT_CHOICE, GS_R(source), 0, 0, "device|host", "S",
     "where the input lives: device memory, or pinned host memory streamed in chunks (default device)", NULL},
    {"streams", GS_OPT_INT, GS_R(streams), 1, 64, NULL, "K", "streams for --source host (default 4)", NULL},
    {"chunk", GS_OPT_COUNT, GS_R(chunk), 1024, INT64_MAX, NULL, "N",
     "elements per chunk for --source host (default 2^24)", NULL},
    {"seed", GS_OPT_COUNT, GS_R(seed), 0, INT64_MAX, NULL, "S", "input generator seed (default 1)", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL},
};

const char *gs_reduce_options_type_name(int dtype) {
  return dtype == GS_DTYPE_INT32 ? "int" : dtype == GS_DTYPE_FLOAT ? "float" : "double";
}

const char *gs_reduce_options_op_name(int op) { return op == GS_OP_SUM ? "sum" : op == GS_OP_MIN ? "min" : "max"; }

void gs_reduce_options_defaults(void *opts) {
  struct gs_reduce_opts *r = opts;
  gs_backend_names(GS_BACKEND_REDUCE, " / ", "all, ladder, or a list of %s (default all)", gs_reduce_options_kernels,
                   GS_REDUCE_OPTIONS_KERNELS_MAX, gs_reduce_options_kernel_help, sizeof gs_reduce_options_kernel_help);
  r->n = (uint64_t)1 << 28;
  strcpy(r->kernels, "all");
  r->block = 256;
  r->iters = 20;
  r->warmup = 3;
  r->streams = 4;
  r->chunk = (uint64_t)1 << 24;
  r->seed = 1;
}

int gs_reduce_options_validate(const struct gs_options *o, void *opts, struct gs_msg *msg) {
  struct gs_reduce_opts *r = opts;
  if (r->block & (r->block - 1)) return gs_error_msg(msg, "--block: %d is not a power of two", r->block);
  if (gs_options_given(o, "n") && gs_options_given(o, "total"))
    return gs_error_msg(msg, "--n (elements per rank) and --total (over all ranks) contradict: give one");
  return gs_kernel_list_check(r->kernels, gs_reduce_options_kernels, 0, msg);
}
