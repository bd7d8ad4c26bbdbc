/* gs_matmul_summa.c: SUMMA's schedule (see the header). */
#include "gs_matmul_summa.h"

#include "gs_exchange.h"
#include "gs_matmul_grid.h"

/* Bytes of panel p's A part (mloc x width) and B part (width x nloc). */
static size_t gs_matmul_summa_abytes(const struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p) {
  return job->mloc * p->width * job->esz;
}
static size_t gs_matmul_summa_bbytes(const struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p) {
  return p->width * job->nloc * job->esz;
}

/* Where panel p lives on this rank's device: in its own block when it owns it (or is alone in
 * its row / column), else in received slot s. */
static const void *gs_matmul_summa_apanel(const struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p, int s) {
  if (job->pcol == p->a_col) return (const char *)job->dA + job->mloc * (p->k0 - job->ka0) * job->esz;
  return job->dpa[s];
}
static const void *gs_matmul_summa_bpanel(const struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p, int s) {
  if (job->prow == p->b_row) return (const char *)job->dB + (p->k0 - job->kb0) * job->nloc * job->esz;
  return job->dpb[s];
}

/* Where panel p's part travels to (or from, on its owner) in slot s: the owner's own block, the
 * received slot's device buffer (nccl, cuda-mpi), or its pinned staging (host). */
static void *gs_matmul_summa_abuf(const struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p, int s) {
  if (job->xrow.mode == GS_EXCHANGE_HOST) return job->hpa[s];
  return job->pcol == p->a_col ? (void *)gs_matmul_summa_apanel(job, p, s) : job->dpa[s];
}
static void *gs_matmul_summa_bbuf(const struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p, int s) {
  if (job->xcol.mode == GS_EXCHANGE_HOST) return job->hpb[s];
  return job->prow == p->b_row ? (void *)gs_matmul_summa_bpanel(job, p, s) : job->dpb[s];
}

/* Start panel p's broadcasts into slot s: A's part along the process row, B's along the column.
 * host: the owners copy their part down to pinned staging (free once the slot's last copy up is
 * done) and every rank of a row (column) joins MPI_Ibcast; cuda-mpi: MPI_Ibcast on the device
 * buffers, a receiver's once the product that last read the slot is done; nccl: the device
 * broadcast queued on the copy queue, a receiver's behind that product. */
static void gs_matmul_summa_post(struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p, int s,
                                 MPI_Request req[2]) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  int a = job->cols > 1, b = job->rows > 1, ma = job->xrow.mode, mb = job->xcol.mode;
  int send_a = a && job->pcol == p->a_col, send_b = b && job->prow == p->b_row;
  size_t abytes = gs_matmul_summa_abytes(job, p), bbytes = gs_matmul_summa_bbytes(job, p);
  int get_a = a && !send_a, get_b = b && !send_b;
  req[0] = req[1] = MPI_REQUEST_NULL;
  /* The pinned staging of slot s carries sent and received parts alike, its device buffers only
   * received ones: a sender reads its own block, and must not wait for a product it does not feed
   * (with the local panels first, that product may come last). */
  if ((a && ma == GS_EXCHANGE_HOST) || (b && mb == GS_EXCHANGE_HOST)) be->event_sync(c, job->up[s]);
  if ((get_a && ma == GS_EXCHANGE_CUDA_MPI) || (get_b && mb == GS_EXCHANGE_CUDA_MPI)) be->event_sync(c, job->done[s]);
  if ((get_a && ma == GS_EXCHANGE_NCCL) || (get_b && mb == GS_EXCHANGE_NCCL)) be->queue_wait(c, job->qx, job->done[s]);
  if (send_a && ma == GS_EXCHANGE_HOST)
    be->copy_d2h(c, job->hpa[s], gs_matmul_summa_apanel(job, p, s), abytes, job->qx);
  if (send_b && mb == GS_EXCHANGE_HOST)
    be->copy_d2h(c, job->hpb[s], gs_matmul_summa_bpanel(job, p, s), bbytes, job->qx);
  if ((send_a && ma == GS_EXCHANGE_HOST) || (send_b && mb == GS_EXCHANGE_HOST)) be->queue_sync(c, job->qx);
  if (a && ma == GS_EXCHANGE_NCCL)
    be->coll->bcast(c, job->xrow.coll, gs_matmul_summa_abuf(job, p, s), abytes, p->a_col, job->qx);
  else if (a)
    GS_CHECK_MPI(&job->run->where, MPI_Ibcast(gs_matmul_summa_abuf(job, p, s), (int)(job->mloc * p->width), job->mpi_t,
                                              p->a_col, job->row_comm, &req[0]));
  if (b && mb == GS_EXCHANGE_NCCL)
    be->coll->bcast(c, job->xcol.coll, gs_matmul_summa_bbuf(job, p, s), bbytes, p->b_row, job->qx);
  else if (b)
    GS_CHECK_MPI(&job->run->where, MPI_Ibcast(gs_matmul_summa_bbuf(job, p, s), (int)(p->width * job->nloc), job->mpi_t,
                                              p->b_row, job->col_comm, &req[1]));
}

/* Finish panel p's broadcasts (polled MPI waits: a rank gone must not hang the rest) and copy
 * what arrived through the host up into slot s, once the product that last read that slot is
 * done; event up[s] marks the slot ready. */
static void gs_matmul_summa_land(struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p, int s,
                                 MPI_Request req[2]) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  gs_exchange_mpi_wait(&job->xrow, 2, req, "MPI_Ibcast (SUMMA's panels)");
  int get_a = job->pcol != p->a_col && job->xrow.mode == GS_EXCHANGE_HOST;
  int get_b = job->prow != p->b_row && job->xcol.mode == GS_EXCHANGE_HOST;
  if (get_a || get_b) be->queue_wait(c, job->qx, job->done[s]);
  if (get_a) be->copy_h2d(c, job->dpa[s], job->hpa[s], gs_matmul_summa_abytes(job, p), job->qx);
  if (get_b) be->copy_h2d(c, job->dpb[s], job->hpb[s], gs_matmul_summa_bbytes(job, p), job->qx);
  be->event_record(c, job->up[s], job->qx);
}

/* The panel that starts at k0 on this job's grid. */
static struct gs_matmul_grid_panel gs_matmul_summa_panel(const struct gs_matmul_job *job, uint64_t k0) {
  return gs_matmul_grid_panel(job->o->k, job->rows, job->cols, job->panel, k0);
}

#ifndef GS_MATMUL_SUMMA_LOCAL_FIRST
#define GS_MATMUL_SUMMA_LOCAL_FIRST 1 /* 0: every product in K order (the schedule before; for A/B runs) */
#endif

/* Is panel p's product queued first: does it reach this rank with no transfer (the rank holds its
 * A and its B part)? */
static int gs_matmul_summa_local(const struct gs_matmul_job *job, const struct gs_matmul_grid_panel *p) {
  return GS_MATMUL_SUMMA_LOCAL_FIRST && job->pcol == p->a_col && job->prow == p->b_row;
}

/* Panel p's block product, this rank's product number i (the first one writes C, the rest add), on
 * the compute queue: a received panel in slot s once the slot is up, done[s] then marking it free;
 * a local one (s < 0) reads the rank's own blocks and waits for nothing. */
static void gs_matmul_summa_product(struct gs_matmul_job *job, const struct gs_kernel *k,
                                    const struct gs_matmul_grid_panel *p, uint64_t i, int s) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  int slot = s < 0 ? 0 : s; /* a local panel's parts are the rank's own blocks, whatever the slot */
  const void *A = gs_matmul_summa_apanel(job, p, slot), *B = gs_matmul_summa_bpanel(job, p, slot);
  if (s >= 0) be->queue_wait(c, job->qc, job->up[s]);
  be->event_record(c, job->ev[2 * i], job->qc);
  be->matmul->gemm(c, k->id, job->t, job->mloc, job->nloc, p->width, A, p->width, B, job->nloc, job->dC, job->nloc,
                   i > 0, job->qc);
  be->event_record(c, job->ev[2 * i + 1], job->qc);
  if (s >= 0) be->event_record(c, job->done[s], job->qc);
}

/* The order: first the products of the local panels, which wait for nothing, so on a 1D grid no
 * rank idles while its first panel travels; then every panel's broadcasts in K order (the same on
 * every rank: they are collective), panel i in slot i % 2, each received panel's product queued
 * as soon as its broadcast is posted. The host's waits for a broadcast (land) thus overlap the
 * products already queued. Both --overlap settings keep this order, so they give the same C. */
double gs_matmul_summa_run(struct gs_matmul_job *job, const struct gs_kernel *k, double *compute) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  int overlap = k && job->o->overlap;
  MPI_Request req[2];
  /* Both slots start free and ready. */
  for (int s = 0; s < 2; s++)
    be->event_record(c, job->done[s], job->qc), be->event_record(c, job->up[s], job->qx);
  be->queue_sync(c, job->qx);
  be->event_record(c, job->start, job->qc);
  uint64_t n = 0; /* products queued */
  for (uint64_t k0 = 0; k && k0 < job->o->k;) {
    struct gs_matmul_grid_panel p = gs_matmul_summa_panel(job, k0);
    if (gs_matmul_summa_local(job, &p)) {
      gs_matmul_summa_product(job, k, &p, n++, -1);
      if (!overlap) be->queue_sync(c, job->qc);
    }
    k0 += p.width;
  }
  struct gs_matmul_grid_panel p = gs_matmul_summa_panel(job, 0);
  for (uint64_t i = 0; i < job->npanels; i++) {
    int s = (int)(i % 2);
    gs_matmul_summa_post(job, &p, s, req);
    gs_matmul_summa_land(job, &p, s, req);
    if (!k)
      be->queue_wait(c, job->qc, job->up[s]); /* traffic alone: every panel's arrival */
    else if (!gs_matmul_summa_local(job, &p))
      gs_matmul_summa_product(job, k, &p, n++, s);
    if (!overlap) be->queue_sync(c, job->qc), be->queue_sync(c, job->qx);
    if (i + 1 < job->npanels) p = gs_matmul_summa_panel(job, p.k0 + p.width);
  }
  be->event_record(c, job->stop, job->qc);
  gs_exchange_wait(job->xrow.coll ? &job->xrow : &job->xcol, job->stop); /* polled behind NCCL work */
  *compute = 0;
  for (uint64_t i = 0; i < n; i++)
    *compute += be->event_seconds(c, job->ev[2 * i], job->ev[2 * i + 1]);
  return be->event_seconds(c, job->start, job->stop);
}
