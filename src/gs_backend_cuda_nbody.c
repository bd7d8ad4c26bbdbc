/* gs_backend_cuda_nbody.c: the CUDA backend's N-body primitives over the launchers of
 * cuda/gs_nbody_*.cu; its kernel list (the seed 004 ladder, then ours) is in
 * gs_backend_cuda_names.c, which every build has. */
#include <config.h>

#include "gs_backend_cuda.h"

static size_t gs_cuda_nbody_workspace(gs_ctx *c, const struct gs_nbody_force_args *a) {
  return gs_nbody_kernels_workspace(&c->cu, a);
}

static void gs_cuda_nbody_forces(gs_ctx *c, const struct gs_nbody_force_args *a, gs_queue *q) {
  GS_CHECK_CUDA(c, gs_nbody_kernels_launch(&c->cu, a, q));
}

static void gs_cuda_nbody_kick(gs_ctx *c, int prec, void *vel, const void *acc, uint64_t count, double dt,
                               gs_queue *q) {
  GS_CHECK_CUDA(c, gs_nbody_integrate_kick(&c->cu, prec, vel, acc, count, dt, q));
}

static void gs_cuda_nbody_drift(gs_ctx *c, int prec, void *pos, const void *vel, uint64_t count, double dt,
                                gs_queue *q) {
  GS_CHECK_CUDA(c, gs_nbody_integrate_drift(&c->cu, prec, pos, vel, count, dt, q));
}

static void gs_cuda_nbody_terms(gs_ctx *c, int prec, const void *pos, const void *vel, const void *acc, uint64_t count,
                                double *terms, gs_queue *q) {
  GS_CHECK_CUDA(c, gs_nbody_diag_terms(&c->cu, prec, pos, vel, acc, count, terms, q));
}

const struct gs_nbody_ops gs_backend_cuda_nbody_ops = {
    .kernels = gs_backend_cuda_names_nbody,
    .count = GS_NK_COUNT - 1, /* the list holds every force kernel, one per id */
    .workspace = gs_cuda_nbody_workspace,
    .forces = gs_cuda_nbody_forces,
    .kick = gs_cuda_nbody_kick,
    .drift = gs_cuda_nbody_drift,
    .terms = gs_cuda_nbody_terms,
};
