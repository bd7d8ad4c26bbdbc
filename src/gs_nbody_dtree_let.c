/* gs_nbody_dtree_let.c: one evaluation of the domain-decomposed tree after its domains: each rank
 * builds its cells' subtrees; their root records (moments, tight box, count, and min |a_old| of
 * the cell's bodies) are all-gathered into the cell table, by (owner, key); each rank then sends each
 * other rank the locally essential tree of its cells for that rank's cells (the nodes the walk
 * may open for a target in one of them, a conservative test: gs_backend_cpu_dtree.c) in one
 * all-to-all; each walks its bodies over the merged tree. A walk that met a node it had to open
 * but did not receive fails the run on every rank: only a bug can do that, never silently. */
#include "gs_nbody_dtree_let.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_nbody_dtree_cells.h"
#include "gs_nbody_tree.h"

static struct gs_tree_args gs_nbody_dtree_args(const struct gs_nbody_dtree *d, int potential, int first, int flags) {
  struct gs_tree_args a = gs_nbody_tree_settings(d->job, potential, first);
  a.targets = GS_TREE_BY_ORDER;
  if (flags & GS_NBODY_DTREE_DIAG) a.opening = GS_TREE_GEOMETRIC, a.theta = GS_NBODY_TREE_DIAG_THETA, a.potential = 1;
  return a;
}

/* The cell table: every rank's cells' records, in (owner, key) order (owners are contiguous runs). */
static void gs_nbody_dtree_table(struct gs_nbody_dtree *d) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size;
  int *cnt = malloc(sizeof *cnt * (size_t)P), *dis = malloc(sizeof *dis * (size_t)P);
  if (!cnt || !dis) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int r = 0; r < P; r++)
    cnt[r] = (d->first_cell[r + 1] - d->first_cell[r]) * (int)sizeof *d->cell,
    dis[r] = d->first_cell[r] * (int)sizeof *d->cell;
  GS_CHECK_MPI(&job->run->where,
               MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, d->cell, cnt, dis, MPI_BYTE, MPI_COMM_WORLD));
  free(cnt), free(dis);
}

/* The LET exchange: the backend's messages of this rank's cells for every other rank, byte counts
 * by all-to-all, then the bytes in the run's exchange mode into d->let (every rank enters both,
 * empty messages included; d->rbytes[r]: rank r's). Returns the bytes this rank sent. */
static uint64_t gs_nbody_dtree_exchange(struct gs_nbody_dtree *d, const struct gs_tree_args *a) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size, me = job->run->rank;
  uint64_t *sb = calloc((size_t)P, sizeof *sb), out = 0, in = 0;
  if (!sb) GS_DIE(&job->run->where, "calloc", "out of memory");
  const void *send = NULL;
  d->ops->let(job->ctx, d->tree, a, d->cell, d->first_cell, P, me, sb, &send);
  GS_CHECK_MPI(&job->run->where, MPI_Alltoall(sb, 1, MPI_UINT64_T, d->rbytes, 1, MPI_UINT64_T, MPI_COMM_WORLD));
  for (int r = 0; r < P; r++)
    out += sb[r], in += d->rbytes[r];
  gs_nbody_dtree_held_buf(d, &d->let, in);
  gs_exchange_alltoallv(&job->xchg, send, sb, d->let.p, d->rbytes, job->qc);
  free(sb);
  return out;
}

/* The memory this rank holds now (the peak of an evaluation: the tree and the LETs are there), the
 * most of it and the device's least free memory kept for the report. */
static void gs_nbody_dtree_memory_now(struct gs_nbody_dtree *d) {
  const struct gs_backend *be = d->job->be;
  double own = gs_nbody_dtree_held_bytes(d) + (double)d->ops->bytes(d->job->ctx, d->tree), avail = 0, total = 0;
  if (own > d->mem_own) d->mem_own = own;
  if (!be->mem_info) return;
  be->mem_info(d->job->ctx, &avail, &total);
  if (avail < d->dev_free_min) d->dev_free_min = avail;
}

/* After the walk: its counters and the missing nodes summed over the ranks (one allreduce, every
 * rank), the failure if any node was missing, and the run's statistics. */
static void gs_nbody_dtree_after(struct gs_nbody_dtree *d, uint64_t missing, uint64_t sent, uint64_t bytes, int first,
                                 int flags) {
  struct gs_nbody_job *job = d->job;
  double v[4] = {(double)missing, (double)d->counts[GS_TREE_BODY_BODY], (double)d->counts[GS_TREE_BODY_CELL],
                 (double)sent};
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  if (v[0] > 0) {
    job->failed = 1;
    if (job->run->rank == 0)
      fprintf(stderr,
              "gpusim: error: incomplete locally essential tree: %.0f nodes the walk had to open were not sent (a "
              "bug: the forces of this evaluation took them whole)\n",
              v[0]);
  }
  if (!(flags & GS_NBODY_DTREE_DIAG))
    d->inter = v[1] + v[2], d->flops = v[1] * GS_NBODY_FLOPS + v[2] * GS_NBODY_TREE_CELL_FLOPS;
  if (flags & GS_NBODY_DTREE_SCRATCH) return;
  if (first) return;
  d->migrated += (uint64_t)v[3]; /* the steps': the first evaluation moves every body from its id slice */
  if (d->let_n == d->let_cap) {
    d->let_cap = 2 * d->let_cap + 16;
    d->let_bytes = realloc(d->let_bytes, sizeof *d->let_bytes * (size_t)d->let_cap);
    if (!d->let_bytes) GS_DIE(&job->run->where, "realloc", "out of memory");
  }
  d->let_bytes[d->let_n++] = (double)bytes;
}

void gs_nbody_dtree_let_eval(struct gs_nbody_dtree *d, int potential, int first, int flags, double part[4]) {
  struct gs_nbody_job *job = d->job;
  double t0 = MPI_Wtime();
  uint64_t sent = gs_nbody_dtree_cells_update(d);
  double t1 = MPI_Wtime();
  struct gs_tree_args a = gs_nbody_dtree_args(d, potential, first, flags);
  int me = job->run->rank, c0 = d->first_cell[me], nc = d->first_cell[me + 1] - c0;
  d->ops->build(job->ctx, d->tree, &a, &d->b, d->at, d->cell + c0, nc);
  double t2 = MPI_Wtime();
  gs_nbody_dtree_table(d);
  uint64_t bytes = gs_nbody_dtree_exchange(d, &a);
  double t3 = MPI_Wtime();
  int scratch = flags & GS_NBODY_DTREE_SCRATCH;
  a.acc = scratch ? d->scratch : d->b.acc;
  memset(d->counts, 0, sizeof d->counts);
  a.counts = d->counts;
  uint64_t missing = d->ops->walk(job->ctx, d->tree, &a, d->cell, d->ncell, c0, d->let.p, d->rbytes, job->run->size,
                                  &d->b, scratch ? NULL : d->b.work);
  double t4 = MPI_Wtime();
  /* every rank alike (the cut's allreduce follows it), even where a stop cut the walk short: the
   * interactions per body become seconds of this rank's walk, the next cut's weights */
  if (!scratch) d->ops->spread(job->ctx, d->tree, &d->b, t4 - t3), d->measured = 1;
  gs_nbody_dtree_after(d, missing, sent, bytes, first, flags);
  gs_nbody_dtree_memory_now(d);
  if (part) {
    part[GS_NBODY_DTREE_DOMAIN] = t1 - t0, part[GS_NBODY_DTREE_BUILD] = t2 - t1;
    part[GS_NBODY_DTREE_LET] = t3 - t2, part[GS_NBODY_DTREE_WALK] = t4 - t3;
  }
}
