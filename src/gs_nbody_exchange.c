/* gs_nbody_exchange.c: the positions' exchange and the direct forces of one step. Every rank holds
 * every position. With --overlap on, slices travel a ring of MPI_Sendrecv, and each arriving
 * slice's forces are added as soon as it is copied up; with --overlap off (and for the tree
 * solver, whose build needs every position): copy down, MPI_Allgatherv, copy up, then all the
 * forces. MPI counts are whole tiles (job->tile_type). */
#include "gs_nbody_exchange.h"

#include "gs_nbody_forces.h"

/* Copy this rank's slice of positions down and make the drift visible to the copy queue. */
static void gs_nbody_exchange_down(struct gs_nbody_job *job, gs_event *drifted) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  be->event_record(c, drifted, job->qc);
  be->queue_wait(c, job->qx, drifted);
  if (job->count)
    be->copy_d2h(c, (char *)job->h_pos + job->first * job->esz, (const char *)job->d_pos + job->first * job->esz,
                 job->count * job->esz, job->qx);
}

/* One force piece on the compute queue, timed with its own events. */
static void gs_nbody_exchange_piece(struct gs_nbody_job *job, int r, int accumulate, int potential, gs_event *e0,
                                    gs_event *e1) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  struct gs_nbody_force_args a = gs_nbody_forces_args(job, job->kernel, gs_nbody_decomp_first(&job->dec, r),
                                                      gs_nbody_decomp_count(&job->dec, r), accumulate, potential);
  be->event_record(c, e0, job->qc);
  gs_nbody_forces_run(job, &a, job->qc);
  be->event_record(c, e1, job->qc);
}

/* After gs_nbody_exchange_down: the all-gather, and every position copied up. */
static void gs_nbody_exchange_allgather(struct gs_nbody_job *job) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  gs_event *up = job->ev[2 * job->run->size + 1];
  be->queue_sync(c, job->qx);
  GS_CHECK_MPI(&job->run->where, MPI_Allgatherv(MPI_IN_PLACE, 0, job->tile_type, job->h_pos, job->dec.tiles,
                                                job->dec.tile0, job->tile_type, MPI_COMM_WORLD));
  be->copy_h2d(c, job->d_pos, job->h_pos, job->npad * job->esz, job->qx);
  be->event_record(c, up, job->qx);
  be->event_sync(c, up);
}

double gs_nbody_exchange_all(struct gs_nbody_job *job) {
  double t0 = MPI_Wtime();
  if (job->run->size == 1) return 0;
  gs_nbody_exchange_down(job, job->ev[2 * job->run->size]);
  gs_nbody_exchange_allgather(job);
  return MPI_Wtime() - t0;
}

/* --overlap on, P > 1: own slice's forces first (its positions are already on the device), then
 * a ring: at step s receive rank (r - s)'s slice from the left, pass on what arrived at s - 1,
 * and add its forces as soon as it is copied up. */
static double gs_nbody_exchange_ring(struct gs_nbody_job *job, int potential, double *forces) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  int P = job->run->size, r = job->run->rank;
  gs_event **ev = job->ev; /* ev[2p], ev[2p+1]: force piece p; ev[2P]: drifted; ev[2P+1]: last copy up */
  double t0 = MPI_Wtime(), tx;
  gs_nbody_exchange_down(job, ev[2 * P]);
  gs_nbody_exchange_piece(job, r, 0, potential, ev[0], ev[1]);
  be->queue_sync(c, job->qx);
  int left = (r - 1 + P) % P, right = (r + 1) % P;
  for (int s = 1; s < P; s++) {
    int send = (r - s + 1 + P) % P, recv = (r - s + P) % P;
    size_t off_send = gs_nbody_decomp_first(&job->dec, send) * job->esz;
    size_t off = gs_nbody_decomp_first(&job->dec, recv) * job->esz,
           bytes = gs_nbody_decomp_count(&job->dec, recv) * job->esz;
    GS_CHECK_MPI(&job->run->where, MPI_Sendrecv((char *)job->h_pos + off_send, job->dec.tiles[send], job->tile_type,
                                                right, s, (char *)job->h_pos + off, job->dec.tiles[recv],
                                                job->tile_type, left, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (bytes) be->copy_h2d(c, (char *)job->d_pos + off, (char *)job->h_pos + off, bytes, job->qx);
    be->event_record(c, ev[2 * P + 1], job->qx);
    be->queue_wait(c, job->qc, ev[2 * P + 1]);
    gs_nbody_exchange_piece(job, recv, 1, potential, ev[2 * s], ev[2 * s + 1]);
  }
  be->event_sync(c, ev[2 * P + 1]);
  tx = MPI_Wtime() - t0;
  be->queue_sync(c, job->qc);
  *forces = 0;
  for (int s = 0; s < P; s++)
    *forces += be->event_seconds(c, ev[2 * s], ev[2 * s + 1]);
  return tx;
}

double gs_nbody_exchange_run(struct gs_nbody_job *job, int potential, double *forces) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  gs_event **ev = job->ev;
  if (job->run->size > 1 && job->o->overlap) return gs_nbody_exchange_ring(job, potential, forces);
  /* One rank (nothing to exchange), or --overlap off: every position first, then all the forces. */
  double tx = gs_nbody_exchange_all(job);
  struct gs_nbody_force_args a = gs_nbody_forces_args(job, job->kernel, 0, job->npad, 0, potential);
  be->event_record(c, ev[0], job->qc);
  gs_nbody_forces_run(job, &a, job->qc);
  be->event_record(c, ev[1], job->qc);
  be->event_sync(c, ev[1]);
  *forces = be->event_seconds(c, ev[0], ev[1]);
  return tx;
}
