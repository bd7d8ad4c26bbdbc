/* gs_backend_cpu.h: private to the CPU backend's files: its per-rank state and its workload
 * sub-tables. */
#ifndef GS_BACKEND_CPU_H
#define GS_BACKEND_CPU_H

#include "gs_backend.h"

/* The CPU backend's per-rank state: only who it is, for error messages. */
struct gs_ctx {
  struct gs_where where;
};

/* Its reduction (gs_backend_cpu_reduce.c), N-body (gs_backend_cpu_nbody.c) and matrix-multiply
 * (gs_backend_cpu_matmul.c) primitives. */
extern const struct gs_reduce_ops gs_backend_cpu_reduce_ops;
extern const struct gs_nbody_ops gs_backend_cpu_nbody_ops;
extern const struct gs_matmul_ops gs_backend_cpu_matmul_ops;
/* Its Barnes-Hut tree (gs_backend_cpu_tree.c), also the reference the tests check. */
extern const struct gs_tree_ops gs_backend_cpu_tree_ops;

#endif
