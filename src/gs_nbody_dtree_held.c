/* gs_nbody_dtree_held.c: the bodies one rank holds under --tree-layout domains (gs_nbody_dtree.c's
 * solver): their storage (grown, never shrunk: a rank's count changes every step), the keep / undo
 * copy, a load of the standard id slice, and the way back to the standard slices that snapshots,
 * checkpoints and the diagnostics read (one all-to-all by id). Host memory, the CPU backend's:
 * where a backend's distributed tree keeps bodies on its device, this file is what changes. */
#include "gs_nbody_dtree_held.h"

#include <stdlib.h>
#include <string.h>

static void *gs_nbody_dtree_held_grow(struct gs_nbody_job *job, void *p, size_t bytes) {
  void *q = realloc(p, bytes ? bytes : 1);
  if (!q) GS_DIE(&job->run->where, "realloc", "out of memory for the held bodies");
  return q;
}

/* Room for n bodies in b (capacity *cap), contents kept. */
static void gs_nbody_dtree_held_reserve(struct gs_nbody_job *job, struct gs_dtree_bodies *b, uint64_t *cap, uint64_t n,
                                        void **scratch) {
  if (n <= *cap && b->pos) return;
  *cap = n + n / 4 + 16;
  b->pos = gs_nbody_dtree_held_grow(job, b->pos, *cap * job->esz);
  b->vel = gs_nbody_dtree_held_grow(job, b->vel, *cap * job->esz);
  b->acc = gs_nbody_dtree_held_grow(job, b->acc, *cap * job->esz);
  b->id = gs_nbody_dtree_held_grow(job, b->id, *cap * sizeof *b->id);
  b->key = gs_nbody_dtree_held_grow(job, b->key, *cap * sizeof *b->key);
  b->work = gs_nbody_dtree_held_grow(job, b->work, *cap * sizeof *b->work);
  if (scratch) *scratch = gs_nbody_dtree_held_grow(job, *scratch, *cap * job->esz);
}

void gs_nbody_dtree_held_room(struct gs_nbody_dtree *d, uint64_t n) {
  gs_nbody_dtree_held_reserve(d->job, &d->b, &d->cap, n, &d->scratch);
}

static void gs_nbody_dtree_held_free_bodies(struct gs_dtree_bodies *b) {
  free(b->pos), free(b->vel), free(b->acc), free(b->id), free(b->key), free(b->work);
}

/* b's n bodies into to (room made), every array. */
static void gs_nbody_dtree_held_copy(struct gs_nbody_job *job, struct gs_dtree_bodies *to, uint64_t *cap,
                                     const struct gs_dtree_bodies *b, void **scratch) {
  gs_nbody_dtree_held_reserve(job, to, cap, b->n, scratch);
  to->n = b->n;
  memcpy(to->pos, b->pos, b->n * job->esz), memcpy(to->vel, b->vel, b->n * job->esz);
  memcpy(to->acc, b->acc, b->n * job->esz), memcpy(to->id, b->id, b->n * sizeof *b->id);
  memcpy(to->key, b->key, b->n * sizeof *b->key), memcpy(to->work, b->work, b->n * sizeof *b->work);
}

void gs_nbody_dtree_held_keep(struct gs_nbody_dtree *d) {
  gs_nbody_dtree_held_copy(d->job, &d->kept, &d->kept_cap, &d->b, NULL);
}

void gs_nbody_dtree_held_undo(struct gs_nbody_dtree *d) {
  gs_nbody_dtree_held_copy(d->job, &d->b, &d->cap, &d->kept, &d->scratch);
}

void gs_nbody_dtree_held_free(struct gs_nbody_dtree *d) {
  gs_nbody_dtree_held_free_bodies(&d->b), gs_nbody_dtree_held_free_bodies(&d->kept);
  free(d->scratch);
}

/* The real bodies of this rank's standard slice (ids [job->first, + count) below n) from host
 * vectors pos, vel, acc of the slice (acc NULL: zero). */
void gs_nbody_dtree_held_take(struct gs_nbody_dtree *d, const void *pos, const void *vel, const void *acc) {
  struct gs_nbody_job *job = d->job;
  uint64_t lo, hi;
  gs_nbody_decomp_bodies(&job->dec, job->run->rank, job->n, &lo, &hi);
  uint64_t n = hi - lo;
  gs_nbody_dtree_held_room(d, n);
  d->b.n = n;
  memcpy(d->b.pos, pos, n * job->esz), memcpy(d->b.vel, vel, n * job->esz);
  if (acc)
    memcpy(d->b.acc, acc, n * job->esz);
  else
    memset(d->b.acc, 0, n * job->esz);
  for (uint64_t i = 0; i < n; i++)
    d->b.id[i] = job->first + i, d->b.key[i] = 0, d->b.work[i] = 0;
  d->measured = 0;
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

/* MPI's int counts: a message past INT_MAX bytes is refused here, never truncated. */
static void gs_nbody_dtree_held_ints(const struct gs_nbody_job *job, const uint64_t *n, int *out, int P, size_t row) {
  for (int r = 0; r < P; r++) {
    if (n[r] * row > INT32_MAX) GS_DIE(&job->run->where, "MPI_Alltoallv", "a message of more than 2^31 bytes");
    out[r] = (int)(n[r] * row);
  }
}

void gs_nbody_dtree_held_slices(struct gs_nbody_dtree *d, const void *src, void *pos, void *vel, void *acc) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size;
  uint64_t n = d->b.n, *cnt = calloc((size_t)P, sizeof *cnt), *rcnt = calloc((size_t)P, sizeof *rcnt);
  int *sc = calloc((size_t)P, sizeof *sc), *sd = calloc((size_t)P, sizeof *sd), *rc = calloc((size_t)P, sizeof *rc),
      *rd = calloc((size_t)P, sizeof *rd);
  int *dest = malloc(sizeof *dest * (n ? n : 1));
  uint64_t *pack = malloc(sizeof *pack * (n ? n : 1)), *off = calloc((size_t)P + 1, sizeof *off);
  if (!cnt || !rcnt || !sc || !sd || !rc || !rd || !dest || !pack || !off)
    GS_DIE(&job->run->where, "malloc", "out of memory");
  for (uint64_t i = 0; i < n; i++)
    cnt[dest[i] = gs_nbody_dtree_held_slice_of(job, d->b.id[i])]++;
  for (int r = 0; r < P; r++)
    off[r + 1] = off[r] + cnt[r];
  for (uint64_t i = 0; i < n; i++)
    pack[off[dest[i]]++] = i; /* by destination, held order within each */
  GS_CHECK_MPI(&job->run->where, MPI_Alltoall(cnt, 1, MPI_UINT64_T, rcnt, 1, MPI_UINT64_T, MPI_COMM_WORLD));
  uint64_t m = 0;
  for (int r = 0; r < P; r++)
    m += rcnt[r];
  const void *from[4] = {d->b.pos, d->b.vel, src, d->b.id};
  size_t row[4] = {job->esz, job->esz, job->esz, sizeof(uint64_t)};
  char *sbuf = malloc(32 * (n ? n : 1)), *rbuf[4];
  for (int k = 0; k < 4; k++)
    if (!(rbuf[k] = malloc(row[k] * (m ? m : 1))) || !sbuf) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int k = 0; k < 4; k++) {
    for (uint64_t j = 0; j < n; j++)
      memcpy(sbuf + j * row[k], (const char *)from[k] + pack[j] * row[k], row[k]);
    gs_nbody_dtree_held_ints(job, cnt, sc, P, row[k]), gs_nbody_dtree_held_ints(job, rcnt, rc, P, row[k]);
    for (int r = 1; r < P; r++)
      sd[r] = sd[r - 1] + sc[r - 1], rd[r] = rd[r - 1] + rc[r - 1];
    GS_CHECK_MPI(&job->run->where, MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf[k], rc, rd, MPI_BYTE, MPI_COMM_WORLD));
  }
  void *to[3] = {pos, vel, acc};
  for (int k = 0; k < 3; k++)
    if (to[k]) memset(to[k], 0, job->count * job->esz); /* the padding: zero */
  for (uint64_t j = 0; j < m; j++) {
    uint64_t id;
    memcpy(&id, rbuf[3] + j * sizeof id, sizeof id);
    for (int k = 0; k < 3; k++)
      if (to[k]) memcpy((char *)to[k] + (id - job->first) * job->esz, rbuf[k] + j * job->esz, job->esz);
  }
  for (int k = 0; k < 4; k++)
    free(rbuf[k]);
  free(sbuf), free(cnt), free(rcnt), free(sc), free(sd), free(rc), free(rd), free(dest), free(pack), free(off);
}
