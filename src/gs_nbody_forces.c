/* gs_nbody_forces.c: one force evaluation for this rank's slice: its arguments, and the
 * workspace grown to what the backend asks for before the launch. */
#include "gs_nbody_forces.h"

struct gs_nbody_force_args gs_nbody_forces_args(const struct gs_nbody_job *job, int kernel, uint64_t j_first,
                                                uint64_t j_count, int accumulate, int potential) {
  struct gs_nbody_force_args a = {.kernel = kernel,
                                  .precision = job->prec,
                                  .law = job->law,
                                  .pos = job->d_pos,
                                  .i_first = job->first,
                                  .i_count = job->count,
                                  .j_first = j_first,
                                  .j_count = j_count,
                                  .acc = job->d_acc,
                                  .accumulate = accumulate,
                                  .potential = potential,
                                  .G = job->G,
                                  .eps2 = job->eps2,
                                  .cut2 = job->cut2,
                                  .ws = job->force_ws,
                                  .ws_bytes = job->force_ws_bytes,
                                  .stop = job->stop};
  return a;
}

void gs_nbody_forces_run(struct gs_nbody_job *job, struct gs_nbody_force_args *a, gs_queue *q) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  if (!a->i_count || !a->j_count || (a->stop && a->stop())) return; /* nothing, or abandoned */
  size_t need = be->nbody->workspace(c, a);
  if (need > job->force_ws_bytes) {
    be->queue_sync(c, job->qc); /* the workspace is only ever used on the compute queue */
    if (job->force_ws) be->free_device(c, job->force_ws);
    job->force_ws = be->alloc_device(c, need);
    be->zero_device(c, job->force_ws, need, job->qc);
    job->force_ws_bytes = need;
  }
  a->ws = job->force_ws;
  a->ws_bytes = job->force_ws_bytes;
  be->nbody->forces(c, a, q);
}
