/* gs_backend_cuda.h: private to the CUDA backend's files (gs_backend_cuda*.c, the only host files
 * that see cuda/): its per-rank state, its error check and its workload sub-tables. */
#ifndef GS_BACKEND_CUDA_H
#define GS_BACKEND_CUDA_H

#include <cuda_runtime_api.h>

#include "../cuda/gs_cuda.h"
#include "gs_backend.h"

/* The CUDA backend's per-rank state: who it is (for errors) and its device's launch facts. */
struct gs_ctx {
  struct gs_where where;
  struct gs_cuda_ctx cu;
  int reduce_block; /* threads per block of the reduction kernels (set_block; 0: GS_CUDA_REDUCE_BLOCK) */
  struct gs_matmul_state mm; /* matmul's first-use things, made by its gemm, freed by its release */
};

/* Check a runtime call or a launcher's returned cudaError_t; on failure name rank, host, GPU,
 * call and line, then abort the job. */
#define GS_CHECK_CUDA(c, call)                                                                   \
  do {                                                                                           \
    cudaError_t gs_e_ = (cudaError_t)(call);                                                     \
    if (gs_e_ != cudaSuccess) gs_error_die(&(c)->where, #call, cudaGetErrorString(gs_e_), __FILE__, __LINE__); \
  } while (0)

/* Its reduction (gs_backend_cuda_reduce.c) and N-body (gs_backend_cuda_nbody.c) primitives. */
extern const struct gs_reduce_ops gs_backend_cuda_reduce_ops;
extern const struct gs_nbody_ops gs_backend_cuda_nbody_ops;
/* Its Barnes-Hut tree (gs_backend_cuda_tree.c) and its distributed tree (gs_backend_cuda_dtree.c). */
extern const struct gs_tree_ops gs_backend_cuda_tree_ops;
extern const struct gs_dtree_ops gs_backend_cuda_dtree_ops;
/* Its matrix multiply (gs_backend_cuda_matmul.c). */
extern const struct gs_matmul_ops gs_backend_cuda_matmul_ops;
/* Its device collectives with NCCL (gs_backend_cuda_coll.c), where configure found NCCL. */
extern const struct gs_coll_ops gs_backend_cuda_coll_ops;

#endif
