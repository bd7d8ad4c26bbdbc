/* gs_backend_cuda_names.c: the CUDA backend's N-body kernel list, its own as the rest of its
 * nbody sub-table is (gs_backend_cuda_nbody.c), but compiled in every build: a CPU-only build
 * still takes CUDA's names on the command line, to say that they do not run on its backend
 * (as gs_backend.c still names "cuda" there). Plain data: no CUDA call, so no CUDA headers but
 * the launchers' plain-C kernel ids. */
#include <config.h>

#include "../cuda/gs_cuda.h"
#include "gs_backend.h"

/* The seed 004 ladder, then ours, in id order (--kernel 1..8); a NULL name ends the list. */
const struct gs_kernel gs_backend_cuda_names_nbody[] = {
    {"global", "1 thread/body, global memory, i != j", GS_NK_GLOBAL, GS_KERNEL_LADDER},
    {"rsqrt", "+ rsqrtf", GS_NK_RSQRT, GS_KERNEL_LADDER},
    {"shared", "+ shared-memory tiles", GS_NK_SHARED, GS_KERNEL_LADDER},
    {"unroll", "+ unroll 8", GS_NK_UNROLL, GS_KERNEL_LADDER},
    {"soften", "+ softening, no i != j branch", GS_NK_SOFTEN, GS_KERNEL_LADDER},
    {"fma", "+ FMA-friendly ordering", GS_NK_FMA, GS_KERNEL_LADDER},
    {"multi", "several bodies/thread, Hopper tiles", GS_NK_MULTI, 0},
    {"jsplit", "multi + j range split over blocks", GS_NK_JSPLIT, GS_KERNEL_INTERNAL},
    {NULL, NULL, 0, 0},
};
