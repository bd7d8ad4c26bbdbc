/* gs_matmul_setup.c: the grid and a rank's blocks (gs_matmul_grid.h), the size checks, and the
 * buffers: A, B and C blocks on the device, two received panels of each of A and B and their
 * pinned staging, C's pinned host copy. */
#include "gs_matmul_setup.h"

#include <limits.h>
#include <stdlib.h>

#include "gs_matmul_grid.h"

#define GS_MATMUL_PANELS_MAX 65536 /* events per product are kept: two per panel */

int gs_matmul_setup_grid(struct gs_matmul_job *job, struct gs_msg *msg) {
  const struct gs_run *run = job->run;
  const struct gs_matmul_opts *o = job->o;
  if (o->grid_rows && (int64_t)o->grid_rows * o->grid_cols != run->size)
    return gs_error_msg(msg, "--grid %dx%d is %lld processes, but the job has %d rank%s", o->grid_rows, o->grid_cols,
                        (long long)o->grid_rows * o->grid_cols, run->size, run->size == 1 ? "" : "s");
  if (o->grid_rows)
    job->rows = o->grid_rows, job->cols = o->grid_cols;
  else
    gs_matmul_grid_shape(run->size, &job->rows, &job->cols);
  job->prow = run->rank / job->cols;
  job->pcol = run->rank % job->cols;
  gs_matmul_grid_range(o->m, job->rows, job->prow, &job->i0, &job->mloc);
  gs_matmul_grid_range(o->n, job->cols, job->pcol, &job->j0, &job->nloc);
  gs_matmul_grid_range(o->k, job->cols, job->pcol, &job->ka0, &job->kaloc);
  gs_matmul_grid_range(o->k, job->rows, job->prow, &job->kb0, &job->kbloc);
  /* One rank: the plain kernel, one product over the whole K. Several: no panel is wider than
   * the largest share of K (a panel ends where a share ends), nor are its buffers. */
  uint64_t parts = (uint64_t)(job->rows > job->cols ? job->rows : job->cols), share = (o->k + parts - 1) / parts;
  job->panel = run->size == 1 ? o->k : o->panel < share ? o->panel : share;
  job->npanels = gs_matmul_grid_panels(o->k, job->rows, job->cols, job->panel);
  GS_CHECK_MPI(&run->where, MPI_Comm_split(MPI_COMM_WORLD, job->prow, job->pcol, &job->row_comm));
  GS_CHECK_MPI(&run->where, MPI_Comm_split(MPI_COMM_WORLD, job->pcol, job->prow, &job->col_comm));
  return GS_OK;
}

/* Bytes this rank allocates on its device: the blocks, four panels, and the workspace of a
 * selected kernel that stages its inputs (GS_KERNEL_STAGED: at most (m + n + 256) x (k + 32)
 * elements for its largest product, whose depth is at most the panel width or the block's K). */
static double gs_matmul_setup_device_bytes(const struct gs_matmul_job *job) {
  double w = (double)job->panel;
  double elems = (double)job->mloc * job->kaloc + (double)job->kbloc * job->nloc + (double)job->mloc * job->nloc;
  if (job->run->size > 1) elems += 2 * w * (job->mloc + job->nloc);
  for (int i = 0; i < job->be->matmul->count; ++i)
    if ((job->mask >> i & 1u) && (job->kernels[i].flags & GS_KERNEL_STAGED)) {
      double depth = (double)(job->kaloc > job->kbloc ? job->kaloc : job->kbloc);
      if (w < depth) depth = w;
      elems += ((double)job->mloc + job->nloc + 256) * (depth + 32);
      break;
    }
  return elems * job->esz;
}

/* SUMMA panels of K at width w, counted up to limit + 1 (at width 1 a K of 2^31 would take
 * seconds to count in full). */
static uint64_t gs_matmul_setup_panels(const struct gs_matmul_job *job, uint64_t w, uint64_t limit) {
  uint64_t count = 0;
  for (uint64_t k0 = 0; k0 < job->o->k && count <= limit; count++)
    k0 += gs_matmul_grid_panel(job->o->k, job->rows, job->cols, w, k0).width;
  return count;
}

/* Several ranks: a panel (this rank's mloc x w of A, w x nloc of B) is one MPI message, so its
 * element count is an int, and a product keeps two events per panel, so there are at most
 * GS_MATMUL_PANELS_MAX. The first bounds the width from above, the second from below: where
 * they cross, no --panel helps and the message says so. */
static int gs_matmul_setup_panel_check(const struct gs_matmul_job *job, struct gs_msg *msg) {
  const struct gs_matmul_opts *o = job->o;
  uint64_t w = job->panel, big = job->mloc > job->nloc ? job->mloc : job->nloc;
  uint64_t widest = big ? INT_MAX / big : UINT64_MAX; /* the widest panel MPI's int count allows */
  if (job->run->size == 1 || (w <= widest && job->npanels <= GS_MATMUL_PANELS_MAX)) return GS_OK;
  if (widest == 0 || gs_matmul_setup_panels(job, widest, GS_MATMUL_PANELS_MAX) > GS_MATMUL_PANELS_MAX)
    return gs_error_msg(msg,
                        "matmul %llu x %llu x %llu on a %dx%d grid: no --panel fits: a rank's panel of %llu x W "
                        "or W x %llu elements must pass MPI's int count (W <= %llu), and K = %llu then takes more "
                        "than %d panels; run on more ranks",
                        (unsigned long long)o->m, (unsigned long long)o->n, (unsigned long long)o->k, job->rows,
                        job->cols, (unsigned long long)job->mloc, (unsigned long long)job->nloc,
                        (unsigned long long)widest, (unsigned long long)o->k, GS_MATMUL_PANELS_MAX);
  if (w > widest)
    return gs_error_msg(msg,
                        "--panel %llu: a panel of %llu x %llu or %llu x %llu elements passes MPI's int count; "
                        "give --panel %llu or less",
                        (unsigned long long)w, (unsigned long long)job->mloc, (unsigned long long)w,
                        (unsigned long long)w, (unsigned long long)job->nloc, (unsigned long long)widest);
  return gs_error_msg(msg,
                      "--panel %llu: %llu SUMMA panels of K = %llu, more than %d; give a larger --panel (at most "
                      "%llu)",
                      (unsigned long long)w, (unsigned long long)job->npanels, (unsigned long long)o->k,
                      GS_MATMUL_PANELS_MAX, (unsigned long long)widest);
}

int gs_matmul_setup_check(const struct gs_matmul_job *job, struct gs_msg *msg) {
  const struct gs_run *run = job->run;
  int status = gs_matmul_setup_panel_check(job, msg);
  if (status == GS_OK) {
    int host = (run->be->caps & GS_CAP_HOST_MEMORY) != 0;
    /* The CPU backend's device is host memory, shared by the node's ranks, and C's host copy
     * sits beside it; pinned staging is small. */
    double need = gs_matmul_setup_device_bytes(job) + (host ? (double)job->mloc * job->nloc * job->esz : 0);
    if (host) need *= run->local_size;
    if (run->mem_bytes > 0 && need > run->mem_bytes)
      status = gs_error_msg(msg, "matmul %llu x %llu x %llu (%s): %.3g GB per rank does not fit in the %.3g GB of "
                            "memory of rank %d's %s%s", (unsigned long long)job->o->m, (unsigned long long)job->o->n,
                            (unsigned long long)job->o->k, gs_matmul_options_type_name(job->o->type),
                            need / (host ? run->local_size : 1) / 1e9, run->mem_bytes / 1e9, run->rank,
                            host ? "host (shared by the node's ranks)" : "GPU", run->mem_note);
  }
  return gs_error_agree(MPI_COMM_WORLD, &run->where, status, msg);
}

/* A block made on the host and copied up: A panel by panel, B row-major. */
static void gs_matmul_setup_inputs(struct gs_matmul_job *job) {
  const struct gs_backend *be = job->be;
  size_t a_bytes = job->mloc * job->kaloc * job->esz, b_bytes = job->kbloc * job->nloc * job->esz;
  void *h = be->alloc_host(job->ctx, a_bytes > b_bytes ? a_bytes : b_bytes);
  for (uint64_t k0 = job->ka0; k0 < job->ka0 + job->kaloc;) {
    struct gs_matmul_grid_panel p = gs_matmul_grid_panel(job->o->k, job->rows, job->cols, job->panel, k0);
    gs_matmul_ref_fill(&job->ref, 'a', job->t, (char *)h + job->mloc * (k0 - job->ka0) * job->esz, job->i0, job->mloc,
                       k0, p.width, p.width);
    k0 += p.width;
  }
  be->copy_h2d(job->ctx, job->dA, h, a_bytes, job->qx);
  be->queue_sync(job->ctx, job->qx);
  gs_matmul_ref_fill(&job->ref, 'b', job->t, h, job->kb0, job->kbloc, job->j0, job->nloc, job->nloc);
  be->copy_h2d(job->ctx, job->dB, h, b_bytes, job->qx);
  be->queue_sync(job->ctx, job->qx);
  be->free_host(job->ctx, h);
}

void gs_matmul_setup_buffers(struct gs_matmul_job *job) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  job->qc = be->queue_create(c);
  /* Urgent: a broadcast queued behind a product's launch would otherwise get no multiprocessor
   * until the product's last blocks are running (NCCL's broadcasts are kernels). */
  job->qx = be->queue_create_urgent(c);
  job->start = be->event_create(c);
  job->stop = be->event_create(c);
  job->ev = malloc(sizeof *job->ev * 2 * job->npanels);
  if (!job->ev) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (uint64_t e = 0; e < 2 * job->npanels; e++) job->ev[e] = be->event_create(c);
  job->dA = be->alloc_device(c, job->mloc * job->kaloc * job->esz);
  job->dB = be->alloc_device(c, job->kbloc * job->nloc * job->esz);
  job->dC = be->alloc_device(c, job->mloc * job->nloc * job->esz);
  job->hC = be->alloc_host(c, job->mloc * job->nloc * job->esz);
  for (int s = 0; s < 2; s++) {
    size_t pa = job->run->size > 1 ? job->mloc * job->panel * job->esz : 0;
    size_t pb = job->run->size > 1 ? job->panel * job->nloc * job->esz : 0;
    job->dpa[s] = be->alloc_device(c, pa);
    job->dpb[s] = be->alloc_device(c, pb);
    job->hpa[s] = be->alloc_host(c, pa);
    job->hpb[s] = be->alloc_host(c, pb);
    job->up[s] = be->event_create(c);
    job->done[s] = be->event_create(c);
  }
  gs_matmul_setup_inputs(job);
}

int gs_matmul_setup_exchange(struct gs_matmul_job *job, struct gs_msg *msg) {
  const struct gs_run *run = job->run;
  int want = job->o->exchange;
  int status = gs_exchange_open(&job->xrow, run, job->row_comm, want, msg);
  struct gs_msg col;
  if (gs_exchange_open(&job->xcol, run, job->col_comm, want, &col) != GS_OK && status == GS_OK)
    status = GS_USAGE, *msg = col;
  return gs_error_agree(MPI_COMM_WORLD, &run->where, status, msg);
}

void gs_matmul_setup_free(struct gs_matmul_job *job) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  for (int s = 0; s < 2; s++) {
    be->free_device(c, job->dpa[s]);
    be->free_device(c, job->dpb[s]);
    be->free_host(c, job->hpa[s]);
    be->free_host(c, job->hpb[s]);
    be->event_destroy(c, job->up[s]);
    be->event_destroy(c, job->done[s]);
  }
  for (uint64_t e = 0; e < 2 * job->npanels; e++) be->event_destroy(c, job->ev[e]);
  free(job->ev);
  be->free_device(c, job->dA);
  be->free_device(c, job->dB);
  be->free_device(c, job->dC);
  be->free_host(c, job->hC);
  be->event_destroy(c, job->start);
  be->event_destroy(c, job->stop);
  be->queue_destroy(c, job->qc);
  be->queue_destroy(c, job->qx);
  if (be->matmul->release) be->matmul->release(c); /* the backend's matmul state goes with the run */
  gs_exchange_close(&job->xrow);
  gs_exchange_close(&job->xcol);
  MPI_Comm_free(&job->row_comm);
  MPI_Comm_free(&job->col_comm);
}
