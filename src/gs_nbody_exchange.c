/* gs_nbody_exchange.c: the positions' exchange and the direct forces of one step. Every rank holds
 * every position. --exchange picks how they travel (gs_exchange.h): host stages them through
 * pinned host memory, cuda-mpi hands d_pos itself to MPI, nccl runs the backend's device all-gather
 * on the copy queue. With --overlap on, the own slice's forces run while the others' positions
 * travel: host and cuda-mpi pass slices around a ring of MPI_Sendrecv and add each arriving
 * slice's forces as soon as it is on the device; nccl gathers all at once and adds the others'
 * forces after an event wait. Every mode adds the same pieces in the same order (own slice, then
 * ranks r - 1, r - 2, ...), so the states are bitwise the same. With --overlap off (and for the
 * tree solver, whose build needs every position): every position first, then all the forces.
 * The tree solver also gathers its forces this way (gs_nbody_exchange_gather on its own array).
 * MPI counts are whole tiles (job->tile_type). */
#include "gs_nbody_exchange.h"

#include "gs_nbody_forces.h"

/* The positions' parts: every rank's slice, in whole tiles. */
static struct gs_nbody_parts gs_nbody_exchange_slices(const struct gs_nbody_job *job) {
  struct gs_nbody_parts p = {job->tile_type, job->dec.tiles, job->dec.tile0, job->slice_offset, job->slice_bytes};
  return p;
}

/* Copy this rank's part of d (d_pos, or any array of npad body vectors) down, once the compute
 * queue's work on it (the drift) is done. */
static void gs_nbody_exchange_down(struct gs_nbody_job *job, void *d, const struct gs_nbody_parts *p,
                                   gs_event *drifted) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  int r = job->run->rank;
  be->event_record(c, drifted, job->qc);
  be->queue_wait(c, job->qcopy, drifted);
  if (p->bytes[r])
    be->copy_d2h(c, (char *)job->h_pos + p->first[r], (const char *)d + p->first[r], p->bytes[r], job->qcopy);
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

/* One step s of the ring, on base (h_pos, or d_pos itself): rank send's slice to the right, rank
 * recv's from the left. Polled, like every MPI wait of a step: a rank gone must not hang the rest. */
static void gs_nbody_exchange_pass(struct gs_nbody_job *job, char *base, int s, int send, int recv) {
  int P = job->run->size, r = job->run->rank;
  MPI_Request req[2];
  GS_CHECK_MPI(&job->run->where, MPI_Irecv(base + job->slice_offset[recv], job->dec.tiles[recv], job->tile_type,
                                           (r - 1 + P) % P, s, MPI_COMM_WORLD, &req[0]));
  GS_CHECK_MPI(&job->run->where, MPI_Isend(base + job->slice_offset[send], job->dec.tiles[send], job->tile_type,
                                           (r + 1) % P, s, MPI_COMM_WORLD, &req[1]));
  gs_exchange_mpi_wait(&job->xchg, 2, req, "MPI_Irecv/MPI_Isend (the positions' ring)");
}

/* Every rank's part of base to every rank, in place (polled). */
static void gs_nbody_exchange_allgatherv(struct gs_nbody_job *job, void *base, const struct gs_nbody_parts *p) {
  MPI_Request req;
  GS_CHECK_MPI(&job->run->where,
               MPI_Iallgatherv(MPI_IN_PLACE, 0, p->type, base, p->counts, p->displs, p->type, MPI_COMM_WORLD, &req));
  gs_exchange_mpi_wait(&job->xchg, 1, &req, "MPI_Iallgatherv (bodies' vectors)");
}

/* After gs_nbody_exchange_down: the all-gather, and every part copied up into d. */
static void gs_nbody_exchange_allgather(struct gs_nbody_job *job, void *d, const struct gs_nbody_parts *p) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  gs_event *up = job->ev[2 * job->run->size + 1];
  be->queue_sync(c, job->qcopy);
  gs_nbody_exchange_allgatherv(job, job->h_pos, p);
  be->copy_h2d(c, d, job->h_pos, job->npad * job->esz, job->qcopy);
  be->event_record(c, up, job->qcopy);
  be->event_sync(c, up);
}

/* nccl: the device all-gather of d on the copy queue once the compute queue is done with it; the
 * event after it (ev[2P + 1]) is what the compute queue and the host wait for. */
static void gs_nbody_exchange_coll(struct gs_nbody_job *job, void *d, const struct gs_nbody_parts *p) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  int P = job->run->size;
  be->event_record(c, job->ev[2 * P], job->qc);
  be->queue_wait(c, job->qcopy, job->ev[2 * P]);
  be->coll->allgather(c, job->xchg.coll, d, p->first, p->bytes, job->qcopy);
  be->event_record(c, job->ev[2 * P + 1], job->qcopy);
}

/* cuda-mpi: MPI_Allgatherv in place on d, once the compute queue is done with it. */
static void gs_nbody_exchange_mpi_all(struct gs_nbody_job *job, void *d, const struct gs_nbody_parts *p) {
  job->be->queue_sync(job->ctx, job->qc);
  gs_nbody_exchange_allgatherv(job, d, p);
}

double gs_nbody_exchange_gatherv(struct gs_nbody_job *job, void *d, const struct gs_nbody_parts *p) {
  double t0 = MPI_Wtime();
  if (job->run->size == 1) return 0;
  if (job->xchg.mode == GS_EXCHANGE_NCCL) {
    gs_nbody_exchange_coll(job, d, p);
    gs_exchange_wait(&job->xchg, job->ev[2 * job->run->size + 1]);
  } else if (job->xchg.mode == GS_EXCHANGE_CUDA_MPI) {
    gs_nbody_exchange_mpi_all(job, d, p);
  } else {
    gs_nbody_exchange_down(job, d, p, job->ev[2 * job->run->size]);
    gs_nbody_exchange_allgather(job, d, p);
  }
  return MPI_Wtime() - t0;
}

double gs_nbody_exchange_gather(struct gs_nbody_job *job, void *d) {
  struct gs_nbody_parts p = gs_nbody_exchange_slices(job);
  return gs_nbody_exchange_gatherv(job, d, &p);
}

/* The force times of pieces 0..P-1 (events ev[2s], ev[2s + 1]), once the compute queue is done. */
static double gs_nbody_exchange_forces(struct gs_nbody_job *job) {
  double t = 0;
  job->be->queue_sync(job->ctx, job->qc);
  for (int s = 0; s < job->run->size; s++) t += job->be->event_seconds(job->ctx, job->ev[2 * s], job->ev[2 * s + 1]);
  return t;
}

/* --overlap on, P > 1, nccl: the all-gather runs on the copy queue while the compute queue adds
 * the own slice's forces, then (after an event wait) the other slices', in the ring's order. */
static double gs_nbody_exchange_nccl(struct gs_nbody_job *job, int potential, double *forces) {
  int P = job->run->size, r = job->run->rank;
  gs_event **ev = job->ev;
  double t0 = MPI_Wtime();
  struct gs_nbody_parts slices = gs_nbody_exchange_slices(job);
  gs_nbody_exchange_coll(job, job->d_pos, &slices);
  gs_nbody_exchange_piece(job, r, 0, potential, ev[0], ev[1]);
  job->be->queue_wait(job->ctx, job->qc, ev[2 * P + 1]);
  for (int s = 1; s < P; s++) gs_nbody_exchange_piece(job, (r - s + P) % P, 1, potential, ev[2 * s], ev[2 * s + 1]);
  gs_exchange_wait(&job->xchg, ev[2 * P + 1]);
  double tx = MPI_Wtime() - t0;
  *forces = gs_nbody_exchange_forces(job);
  return tx;
}

/* --overlap on, P > 1, cuda-mpi: the host ring below on d_pos itself, no copies. The own slice's
 * forces are queued first; MPI reads the drifted slice once the drift alone is done. */
static double gs_nbody_exchange_mpi_ring(struct gs_nbody_job *job, int potential, double *forces) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  int P = job->run->size, r = job->run->rank;
  gs_event **ev = job->ev;
  double t0 = MPI_Wtime();
  be->event_record(c, ev[2 * P], job->qc);
  gs_nbody_exchange_piece(job, r, 0, potential, ev[0], ev[1]);
  be->event_sync(c, ev[2 * P]);
  for (int s = 1; s < P; s++) {
    int send = (r - s + 1 + P) % P, recv = (r - s + P) % P;
    gs_nbody_exchange_pass(job, job->d_pos, s, send, recv);
    gs_nbody_exchange_piece(job, recv, 1, potential, ev[2 * s], ev[2 * s + 1]);
  }
  double tx = MPI_Wtime() - t0;
  *forces = gs_nbody_exchange_forces(job);
  return tx;
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
  struct gs_nbody_parts slices = gs_nbody_exchange_slices(job);
  gs_nbody_exchange_down(job, job->d_pos, &slices, ev[2 * P]);
  gs_nbody_exchange_piece(job, r, 0, potential, ev[0], ev[1]);
  be->queue_sync(c, job->qcopy);
  for (int s = 1; s < P; s++) {
    int send = (r - s + 1 + P) % P, recv = (r - s + P) % P;
    size_t off = job->slice_offset[recv], bytes = job->slice_bytes[recv];
    gs_nbody_exchange_pass(job, job->h_pos, s, send, recv);
    if (bytes) be->copy_h2d(c, (char *)job->d_pos + off, (char *)job->h_pos + off, bytes, job->qcopy);
    be->event_record(c, ev[2 * P + 1], job->qcopy);
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
  if (job->run->size > 1 && job->o->overlap) {
    if (job->xchg.mode == GS_EXCHANGE_NCCL) return gs_nbody_exchange_nccl(job, potential, forces);
    if (job->xchg.mode == GS_EXCHANGE_CUDA_MPI) return gs_nbody_exchange_mpi_ring(job, potential, forces);
    return gs_nbody_exchange_ring(job, potential, forces);
  }
  /* One rank (nothing to exchange), or --overlap off: every position first, then all the forces. */
  double tx = gs_nbody_exchange_gather(job, job->d_pos);
  struct gs_nbody_force_args a = gs_nbody_forces_args(job, job->kernel, 0, job->npad, 0, potential);
  be->event_record(c, ev[0], job->qc);
  gs_nbody_forces_run(job, &a, job->qc);
  be->event_record(c, ev[1], job->qc);
  be->event_sync(c, ev[1]);
  *forces = be->event_seconds(c, ev[0], ev[1]);
  return tx;
}
