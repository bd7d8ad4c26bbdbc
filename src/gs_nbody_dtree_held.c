/* gs_nbody_dtree_held.c: the bodies one rank holds under --tree-layout domains (gs_nbody_dtree.c's
 * solver): their storage (grown, never shrunk: a rank's count changes every step), the keep / undo
 * copy, a load of the standard id slice, and the way back to the standard slices that snapshots,
 * checkpoints and the diagnostics read (one all-to-all by id). The bodies live in the backend's
 * memory (its device's, where it has one): a step never moves them through the host; the host
 * reads a copy (gs_nbody_dtree_held_mirror) only for the checks and the outputs. */
#include "gs_nbody_dtree_held.h"

#include <stdlib.h>
#include <string.h>

/* Rows [0, keep) of *p (row bytes each) into new backend memory of n rows, the old freed. */
static void gs_nbody_dtree_held_grow(struct gs_nbody_job *job, void **p, size_t row, uint64_t keep, uint64_t n) {
  const struct gs_backend *be = job->be;
  void *q = be->alloc_device(job->ctx, row * (n ? n : 1));
  if (*p && keep) be->copy_d2d(job->ctx, q, *p, row * keep, job->qc);
  be->queue_sync(job->ctx, job->qc);
  if (*p) be->free_device(job->ctx, *p);
  *p = q;
}

void gs_nbody_dtree_held_buf(struct gs_nbody_dtree *d, struct gs_nbody_dtree_buf *buf, size_t bytes) {
  if (bytes <= buf->cap && buf->p) return;
  gs_nbody_dtree_held_unbuf(d, buf);
  buf->cap = bytes + bytes / 4 + 4096;
  buf->p = d->job->be->alloc_device(d->job->ctx, buf->cap);
}

void gs_nbody_dtree_held_unbuf(struct gs_nbody_dtree *d, struct gs_nbody_dtree_buf *buf) {
  if (buf->p) d->job->be->free_device(d->job->ctx, buf->p);
  buf->p = NULL, buf->cap = 0;
}

/* Room for n bodies in b (capacity *cap), its b->n rows kept. */
static void gs_nbody_dtree_held_reserve(struct gs_nbody_job *job, struct gs_dtree_bodies *b, uint64_t *cap, uint64_t n,
                                        void **scratch) {
  if (n <= *cap && b->pos) return;
  uint64_t keep = b->pos ? b->n : 0;
  *cap = n + n / 16 + 1024; /* a rank's count moves by a few per cent a step */
  gs_nbody_dtree_held_grow(job, &b->pos, job->esz, keep, *cap);
  gs_nbody_dtree_held_grow(job, &b->vel, job->esz, keep, *cap);
  gs_nbody_dtree_held_grow(job, &b->acc, job->esz, keep, *cap);
  gs_nbody_dtree_held_grow(job, (void **)&b->id, sizeof *b->id, keep, *cap);
  if (scratch) gs_nbody_dtree_held_grow(job, (void **)&b->key, sizeof *b->key, keep, *cap); /* not in the kept copy */
  gs_nbody_dtree_held_grow(job, (void **)&b->work, sizeof *b->work, keep, *cap);
  if (scratch) gs_nbody_dtree_held_grow(job, scratch, job->esz, 0, *cap);
}

void gs_nbody_dtree_held_room(struct gs_nbody_dtree *d, uint64_t n) {
  gs_nbody_dtree_held_reserve(d->job, &d->b, &d->cap, n, &d->scratch);
}

static void gs_nbody_dtree_held_free_bodies(struct gs_nbody_job *job, struct gs_dtree_bodies *b) {
  void *p[6] = {b->pos, b->vel, b->acc, b->id, b->key, b->work};
  for (int k = 0; k < 6; k++)
    if (p[k]) job->be->free_device(job->ctx, p[k]);
}

/* b's n bodies into to (room made), every array. */
static void gs_nbody_dtree_held_copy(struct gs_nbody_job *job, struct gs_dtree_bodies *to, uint64_t *cap,
                                     const struct gs_dtree_bodies *b, void **scratch) {
  const struct gs_backend *be = job->be;
  gs_nbody_dtree_held_reserve(job, to, cap, b->n, scratch);
  to->n = b->n;
  if (!b->n) return;
  be->copy_d2d(job->ctx, to->pos, b->pos, b->n * job->esz, job->qc);
  be->copy_d2d(job->ctx, to->vel, b->vel, b->n * job->esz, job->qc);
  be->copy_d2d(job->ctx, to->acc, b->acc, b->n * job->esz, job->qc);
  be->copy_d2d(job->ctx, to->id, b->id, b->n * sizeof *b->id, job->qc);
  /* no key: the next evaluation sorts again, and makes them */
  be->copy_d2d(job->ctx, to->work, b->work, b->n * sizeof *b->work, job->qc);
  be->queue_sync(job->ctx, job->qc);
}

double gs_nbody_dtree_held_bytes(const struct gs_nbody_dtree *d) {
  double e = (double)d->job->esz;
  return (double)d->cap * (4 * e + 24) + (double)d->kept_cap * (3 * e + 16) + (double)d->send.cap +
         (double)d->recv.cap + (double)d->let.cap;
}

void gs_nbody_dtree_held_keep(struct gs_nbody_dtree *d) {
  gs_nbody_dtree_held_copy(d->job, &d->kept, &d->kept_cap, &d->b, NULL);
}

void gs_nbody_dtree_held_undo(struct gs_nbody_dtree *d) {
  gs_nbody_dtree_held_copy(d->job, &d->b, &d->cap, &d->kept, &d->scratch);
}

void gs_nbody_dtree_held_free(struct gs_nbody_dtree *d) {
  gs_nbody_dtree_held_free_bodies(d->job, &d->b), gs_nbody_dtree_held_free_bodies(d->job, &d->kept);
  if (d->scratch) d->job->be->free_device(d->job->ctx, d->scratch);
  gs_nbody_dtree_held_unbuf(d, &d->send), gs_nbody_dtree_held_unbuf(d, &d->recv);
  gs_nbody_dtree_held_unbuf(d, &d->let);
}

/* The real bodies of this rank's standard slice (ids [job->first, + count) below n) from host
 * vectors pos, vel, acc of the slice (acc NULL: zero). */
void gs_nbody_dtree_held_take(struct gs_nbody_dtree *d, const void *pos, const void *vel, const void *acc) {
  struct gs_nbody_job *job = d->job;
  const struct gs_backend *be = job->be;
  uint64_t lo, hi;
  gs_nbody_decomp_bodies(&job->dec, job->run->rank, job->n, &lo, &hi);
  uint64_t n = hi - lo, *id = malloc(sizeof *id * (n ? n : 1));
  if (!id) GS_DIE(&job->run->where, "malloc", "out of memory");
  gs_nbody_dtree_held_room(d, n);
  d->b.n = n;
  for (uint64_t i = 0; i < n; i++)
    id[i] = job->first + i;
  be->zero_device(job->ctx, d->b.key, (n ? n : 1) * sizeof *d->b.key, job->qc);
  be->zero_device(job->ctx, d->b.work, (n ? n : 1) * sizeof *d->b.work, job->qc);
  if (acc)
    be->copy_h2d(job->ctx, d->b.acc, acc, n * job->esz, job->qc);
  else
    be->zero_device(job->ctx, d->b.acc, (n ? n : 1) * job->esz, job->qc);
  be->copy_h2d(job->ctx, d->b.pos, pos, n * job->esz, job->qc), be->copy_h2d(job->ctx, d->b.vel, vel, n * job->esz, job->qc);
  be->copy_h2d(job->ctx, d->b.id, id, n * sizeof *id, job->qc);
  be->queue_sync(job->ctx, job->qc);
  free(id);
  d->measured = 0;
}

void gs_nbody_dtree_held_mirror(struct gs_nbody_dtree *d, const void *src, struct gs_nbody_dtree_mirror *m) {
  struct gs_nbody_job *job = d->job;
  const struct gs_backend *be = job->be;
  memset(m, 0, sizeof *m);
  if (be->caps & GS_CAP_HOST_MEMORY) {
    m->pos = d->b.pos, m->vel = d->b.vel, m->src = src, m->id = d->b.id;
    return;
  }
  uint64_t n = d->b.n;
  const void *from[4] = {d->b.pos, d->b.vel, src, d->b.id};
  size_t row[4] = {job->esz, job->esz, job->esz, sizeof(uint64_t)};
  for (int k = 0; k < 4; k++) {
    if (!(m->copy[k] = malloc(row[k] * (n ? n : 1)))) GS_DIE(&job->run->where, "malloc", "out of memory");
    if (n) be->copy_d2h(job->ctx, m->copy[k], from[k], row[k] * n, job->qc);
  }
  be->queue_sync(job->ctx, job->qc);
  m->pos = m->copy[0], m->vel = m->copy[1], m->src = m->copy[2], m->id = m->copy[3];
}

void gs_nbody_dtree_held_unmirror(struct gs_nbody_dtree_mirror *m) {
  for (int k = 0; k < 4; k++)
    free(m->copy[k]);
}

/* The rank whose standard slice holds id (slices rise with the rank). */
static int gs_nbody_dtree_held_slice_of(const struct gs_nbody_job *job, uint64_t id) {
  int lo = 0, hi = job->run->size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (gs_nbody_decomp_first(&job->dec, mid) <= id)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Bytes of one body on its way to its slice: pos, vel, src (vectors of esz bytes), then its id. */
#define GS_NBODY_DTREE_HELD_REC(esz) (3 * (esz) + sizeof(uint64_t))

void gs_nbody_dtree_held_slices(struct gs_nbody_dtree *d, const void *src, void *pos, void *vel, void *acc) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size;
  size_t esz = job->esz, row = GS_NBODY_DTREE_HELD_REC(esz);
  struct gs_nbody_dtree_mirror h;
  gs_nbody_dtree_held_mirror(d, src, &h);
  uint64_t n = d->b.n, *cnt = calloc(5 * (size_t)P, sizeof *cnt), *rcnt = cnt + P, *sb = cnt + 2 * P, *rb = cnt + 3 * P,
           *next = cnt + 4 * P;
  int *dest = malloc(sizeof *dest * (n ? n : 1));
  if (!cnt || !dest) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (uint64_t i = 0; i < n; i++)
    cnt[dest[i] = gs_nbody_dtree_held_slice_of(job, h.id[i])]++;
  GS_CHECK_MPI(&job->run->where, MPI_Alltoall(cnt, 1, MPI_UINT64_T, rcnt, 1, MPI_UINT64_T, MPI_COMM_WORLD));
  uint64_t m = 0;
  for (int r = 0; r < P; r++)
    m += rcnt[r], sb[r] = cnt[r] * row, rb[r] = rcnt[r] * row, next[r] = r ? next[r - 1] + cnt[r - 1] : 0;
  char *sbuf = malloc(row * (n ? n : 1)), *rbuf = malloc(row * (m ? m : 1));
  if (!sbuf || !rbuf) GS_DIE(&job->run->where, "malloc", "out of memory");
  const void *from[3] = {h.pos, h.vel, h.src};
  for (uint64_t i = 0; i < n; i++) { /* by destination, held order within each */
    char *o = sbuf + next[dest[i]]++ * row;
    for (int k = 0; k < 3; k++)
      memcpy(o + k * esz, (const char *)from[k] + i * esz, esz);
    memcpy(o + 3 * esz, &h.id[i], sizeof h.id[i]);
  }
  gs_exchange_alltoallv_host(&job->xchg, sbuf, sb, rbuf, rb);
  void *to[3] = {pos, vel, acc};
  for (int k = 0; k < 3; k++)
    if (to[k]) memset(to[k], 0, job->count * esz); /* the padding: zero */
  for (uint64_t j = 0; j < m; j++) {
    const char *o = rbuf + j * row;
    uint64_t id;
    memcpy(&id, o + 3 * esz, sizeof id);
    for (int k = 0; k < 3; k++)
      if (to[k]) memcpy((char *)to[k] + (id - job->first) * esz, o + k * esz, esz);
  }
  free(sbuf), free(rbuf), free(cnt), free(dest);
  gs_nbody_dtree_held_unmirror(&h);
}
