/* gs_nbody_repl.c: the replicated layout of the direct and tree solvers: load, keep/undo, the
 * held view and the gather (gs_nbody_repl.h). */
#include "gs_nbody_repl.h"

#include <stdlib.h>

#include "gs_nbody_setup.h"

void gs_nbody_repl_load(void *s, const struct gs_nbody_origin *from) {
  struct gs_nbody_repl *r = s;
  if (from->b)
    gs_nbody_setup_load_bodies(r->job, from->b);
  else
    gs_nbody_setup_load_checkpoint(r->job, from->ckpt, &r->acc_slice);
  r->job->mass = from->b ? from->mass : gs_nbody_setup_mass(r->job, r->job->h_pos); /* a checkpoint: h_pos */
}

void gs_nbody_repl_resume(void *s) {
  struct gs_nbody_repl *r = s;
  struct gs_nbody_job *job = r->job;
  if (!r->acc_slice) return;
  job->be->copy_h2d(job->ctx, job->d_acc, r->acc_slice, job->count * job->esz, job->qc);
  job->be->queue_sync(job->ctx, job->qc);
  free(r->acc_slice);
  r->acc_slice = NULL;
}

void gs_nbody_repl_held(void *s, struct gs_nbody_held *h) {
  const struct gs_nbody_job *job = ((struct gs_nbody_repl *)s)->job;
  h->pos = (char *)job->d_pos + job->first * job->esz;
  h->vel = job->d_vel;
  h->acc = job->d_acc;
  h->id = NULL;
  h->first = job->first;
  h->count = job->count;
}

/* Device to device (no host round trip); the undo waits for its copies. */
static void gs_nbody_repl_copy(struct gs_nbody_repl *r, int undo) {
  struct gs_nbody_job *job = r->job;
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  void *live[3] = {job->d_pos, job->d_vel, job->d_acc}, *kept[3] = {r->d_pos0, r->d_vel0, r->d_acc0};
  size_t bytes[3] = {job->npad * job->esz, job->count * job->esz, job->count * job->esz};
  for (int k = 0; k < 3; k++)
    if (bytes[k]) be->copy_d2d(c, undo ? live[k] : kept[k], undo ? kept[k] : live[k], bytes[k], job->qc);
  if (undo) be->queue_sync(c, job->qc);
}

void gs_nbody_repl_keep(void *s) { gs_nbody_repl_copy(s, 0); }

void gs_nbody_repl_undo(void *s) { gs_nbody_repl_copy(s, 1); }

void gs_nbody_repl_gather(void *s, void *pos, void *vel, void *acc) {
  struct gs_nbody_job *job = ((struct gs_nbody_repl *)s)->job;
  const struct gs_backend *be = job->be;
  size_t bytes = job->count * job->esz;
  be->queue_sync(job->ctx, job->qc);
  if (bytes) {
    be->copy_d2h(job->ctx, pos, (const char *)job->d_pos + job->first * job->esz, bytes, job->qc);
    be->copy_d2h(job->ctx, vel, job->d_vel, bytes, job->qc);
    if (acc) be->copy_d2h(job->ctx, acc, job->d_acc, bytes, job->qc);
  }
  be->queue_sync(job->ctx, job->qc);
}

void gs_nbody_repl_open(struct gs_nbody_repl *r, struct gs_nbody_job *job) {
  size_t slice = (job->count ? job->count : 1) * job->esz;
  r->job = job;
  r->d_pos0 = job->be->alloc_device(job->ctx, job->npad * job->esz);
  r->d_vel0 = job->be->alloc_device(job->ctx, slice);
  r->d_acc0 = job->be->alloc_device(job->ctx, slice);
}

void gs_nbody_repl_close(struct gs_nbody_repl *r) {
  void *dev[3] = {r->d_pos0, r->d_vel0, r->d_acc0};
  for (int k = 0; k < 3; k++)
    if (dev[k]) r->job->be->free_device(r->job->ctx, dev[k]);
  free(r->acc_slice);
  r->acc_slice = NULL;
}
