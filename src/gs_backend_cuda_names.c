/* gs_backend_cuda_names.c: the CUDA backend's kernel lists (reduce, N-body, matmul), its own as
 * the rest of its sub-tables are (gs_backend_cuda_<workload>.c), but compiled in every build: a
 * CPU-only build still takes CUDA's names on the command line, to say that they do not run on its
 * backend (as gs_backend.c still names "cuda" there). Plain data: no CUDA call, so no CUDA
 * headers but the launchers' plain-C kernel ids. */
#include <config.h>

#include "../cuda/gs_cuda.h"
#include "gs_backend.h"

/* The seed ladder (--kernel 1..7 are its names), ours, and CUB, in id order; a NULL name ends the
 * list. The help line groups them so. */
const struct gs_kernel gs_backend_cuda_names_reduce[] = {
    {"1", "interleaved, tid % 2s", GS_RK_INTERLEAVED, GS_KERNEL_LADDER},
    {"2", "interleaved, strided index", GS_RK_STRIDED, GS_KERNEL_LADDER},
    {"3", "sequential addressing", GS_RK_SEQUENTIAL, GS_KERNEL_LADDER},
    {"4", "first add during load", GS_RK_FIRST_ADD, GS_KERNEL_LADDER},
    {"5", "unrolled last warp", GS_RK_LAST_WARP, GS_KERNEL_LADDER},
    {"6", "complete unroll", GS_RK_UNROLLED, GS_KERNEL_LADDER},
    {"7", "many elements per thread", GS_RK_MULTI, GS_KERNEL_LADDER},
    {"vec", "shuffles, 16 B loads, 2 launches", GS_RK_VEC, 0},
    /* One launch, deterministic, double accumulation: the N-body diagnostics' sums use it. */
    {"onepass", "shuffles, 16 B loads, 1 launch", GS_RK_ONEPASS, GS_KERNEL_INTERNAL},
    {"cub", "cub::DeviceReduce (baseline)", GS_RK_CUB, GS_KERNEL_BASELINE},
    {NULL, NULL, 0, 0},
};
const char gs_backend_cuda_names_reduce_help[] = "1..7 (the seed ladder), vec, onepass, cub";

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

#define GS_FD (GS_KERNEL_FLOAT | GS_KERNEL_DOUBLE)

/* The seed 003 ladder (--kernel 1..6), ours (simt; dmma, double only, and tc32 and wgmma, tf32
 * only, on the tensor cores), then cuBLAS last: a build without cuBLAS leaves its two rows out of
 * the backend's sub-table (gs_backend_cuda_matmul.c), but still takes their names. A NULL name
 * ends the list. The help line groups them so, with the types that are not every kernel's. */
const struct gs_kernel gs_backend_cuda_names_matmul[] = {
    {"global", "1 thread/output, global memory", GS_MK_GLOBAL, GS_KERNEL_LADDER | GS_FD},
    {"smem1", "32x32 shared tiles, column access", GS_MK_SMEM1, GS_KERNEL_LADDER | GS_FD},
    {"smem2", "+ padded [32][33] tiles", GS_MK_SMEM2, GS_KERNEL_LADDER | GS_FD},
    {"smem3", "+ row-major tile access", GS_MK_SMEM3, GS_KERNEL_LADDER | GS_FD},
    {"smem4", "+ 2 outputs/thread", GS_MK_SMEM4, GS_KERNEL_LADDER | GS_FD},
    {"smem5", "+ 4 outputs/thread", GS_MK_SMEM5, GS_KERNEL_LADDER | GS_FD},
    {"simt", "warp-tiled, 8x8/thread, packed tiles", GS_MK_SIMT, GS_FD | GS_KERNEL_STAGED},
    {"dmma", "FP64 tensor cores, mma.sync, cp.async", GS_MK_DMMA, GS_KERNEL_DOUBLE},
    {"tc32", "TF32 tensor cores, mma.sync, cp.async", GS_MK_TC32, GS_KERNEL_TF32 | GS_KERNEL_FLOAT},
    {"wgmma", "TF32 tensor cores, wgmma, TMA (sm_90a)", GS_MK_WGMMA,
     GS_KERNEL_TF32 | GS_KERNEL_FLOAT | GS_KERNEL_STAGED},
    {"cublas", "cuBLAS SGEMM/DGEMM (baseline)", GS_MK_CUBLAS, GS_KERNEL_BASELINE | GS_FD},
    {"cublas-tf32", "cuBLAS TF32 tensor cores (baseline)", GS_MK_CUBLAS_TF32,
     GS_KERNEL_BASELINE | GS_KERNEL_TF32 | GS_KERNEL_FLOAT},
    {NULL, NULL, 0, 0},
};
const char gs_backend_cuda_names_matmul_help[] =
    "global, smem1..smem5 (the seed ladder), simt, dmma (double), tc32, wgmma (tf32), cublas, cublas-tf32";
