/* gs_nbody_dtree_cells.c: one evaluation's domains. Nothing here depends on the rank count but
 * which rank holds what: the cube is an exact MIN/MAX over every body, the keys the same double
 * arithmetic on every rank, and the cells the key prefixes of at most C bodies (global counts,
 * summed exactly in uint64), split from the root in rounds until none is too large. The cut
 * gives each rank a contiguous run of cells in Peano-Hilbert order (a connected region, without
 * the jumps of a Morton run: up to a quarter fewer LET bytes on clustered bodies, docs/tree.md,
 * "Domains"), balanced by the last walk's measured seconds of each body (by count on a first
 * evaluation or after a restart); it moves time, never a result bit. A rank's run may be several
 * Morton ranges: the table is then regrouped by (owner, key), each rank's cells contiguous and in
 * key order like its bodies. Every rank takes part in every collective, with bodies or none. */
#include "gs_nbody_dtree_cells.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_hilbert.h"

/* A candidate prefix of the rounds. */
struct gs_dtree_prefix {
  uint64_t key, count;
  int level, done;
};

/* Keys a prefix of level covers. */
static uint64_t gs_nbody_dtree_span(int level) { return (uint64_t)1 << (3 * (GS_DTREE_LEVELS - level)); }

/* The first of the n sorted keys that is >= k. */
static uint64_t gs_nbody_dtree_lower(const uint64_t *key, uint64_t n, uint64_t k) {
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (key[mid] < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The global cube: MIN of (min, -max) per axis over every held body, one allreduce (exact). */
static void gs_nbody_dtree_cube(struct gs_nbody_dtree *d, struct gs_dtree_cube *cube) {
  struct gs_nbody_job *job = d->job;
  double m[6], all[6];
  for (int c = 0; c < 6; c++)
    m[c] = INFINITY;
  for (uint64_t i = 0; i < d->b.n; i++)
    for (int c = 0; c < 3; c++) {
      double x = job->prec ? ((const double *)d->b.pos)[4 * i + c] : ((const float *)d->b.pos)[4 * i + c];
      if (x < m[c]) m[c] = x;
      if (-x < m[3 + c]) m[3 + c] = -x;
    }
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(m, all, 6, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
  cube->edge = 0;
  for (int c = 0; c < 3; c++) {
    cube->lo[c] = all[c];
    if (-all[3 + c] - all[c] > cube->edge) cube->edge = -all[3 + c] - all[c];
  }
}

/* One round: the global counts of the undecided prefixes (one allreduce), then each decided:
 * dropped (empty), a cell (at most C, or the last level), or split into its 8 digits. Returns
 * the new list (in key order, as the old) and its length in *n; *more: undecided ones remain. */
static struct gs_dtree_prefix *gs_nbody_dtree_round(struct gs_nbody_dtree *d, struct gs_dtree_prefix *p, int *n,
                                                    int *more) {
  struct gs_nbody_job *job = d->job;
  int m = 0, out = 0;
  uint64_t *c = malloc(sizeof *c * (size_t)(*n ? *n : 1));
  if (!c) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int k = 0; k < *n; k++)
    if (!p[k].done) {
      uint64_t end = p[k].key + gs_nbody_dtree_span(p[k].level);
      c[m++] = gs_nbody_dtree_lower(d->b.key, d->b.n, end) - gs_nbody_dtree_lower(d->b.key, d->b.n, p[k].key);
    }
  GS_CHECK_MPI(&job->run->where, MPI_Allreduce(MPI_IN_PLACE, c, m, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
  struct gs_dtree_prefix *q = malloc(sizeof *q * (size_t)(8 * m + *n + 1));
  if (!q) GS_DIE(&job->run->where, "malloc", "out of memory");
  *more = 0;
  for (int k = 0, j = 0; k < *n; k++) {
    if (p[k].done) {
      q[out++] = p[k];
      continue;
    }
    uint64_t cnt = c[j++];
    if (!cnt) continue;
    if (cnt <= d->C || p[k].level == GS_DTREE_LEVELS) {
      q[out] = p[k], q[out].count = cnt, q[out++].done = 1;
      continue;
    }
    for (uint64_t g = 0; g < 8; g++) /* digit order is key order */
      q[out++] = (struct gs_dtree_prefix){p[k].key + g * gs_nbody_dtree_span(p[k].level + 1), 0, p[k].level + 1, 0};
    *more = 1;
  }
  free(c), free(p);
  *n = out;
  return q;
}

/* The cells of this evaluation into d->cell (key, level, count). */
static void gs_nbody_dtree_make_cells(struct gs_nbody_dtree *d) {
  int n = 1, more = 1;
  struct gs_dtree_prefix *p = malloc(sizeof *p);
  if (!p) GS_DIE(&d->job->run->where, "malloc", "out of memory");
  p[0] = (struct gs_dtree_prefix){0, 0, 0, 0};
  while (more)
    p = gs_nbody_dtree_round(d, p, &n, &more);
  if (n > d->cell_cap) {
    d->cell_cap = n + n / 2;
    d->cell = realloc(d->cell, sizeof *d->cell * (size_t)d->cell_cap);
    if (!d->cell) GS_DIE(&d->job->run->where, "realloc", "out of memory");
  }
  d->ncell = n;
  for (int k = 0; k < n; k++) {
    memset(&d->cell[k], 0, sizeof d->cell[k]);
    d->cell[k].key = p[k].key, d->cell[k].level = p[k].level, d->cell[k].node.count = p[k].count;
  }
  free(p);
}

/* The cut's order of cell c: the first index of its run on the Hilbert curve of the key grid (a
 * cube of level L is one run, whose top 3 L bits are the index of any of its points). Built with
 * -DGS_NBODY_DTREE_MORTON_CUT (a switch for measurement): the key itself, the Morton order. */
static uint64_t gs_nbody_dtree_cells_order(const struct gs_dtree_cell *c) {
#ifdef GS_NBODY_DTREE_MORTON_CUT
  return c->key;
#else
  uint32_t g[3] = {0, 0, 0}; /* the key's digits are x | y << 1 | z << 2 (gs_dtree.h) */
  for (int b = GS_DTREE_BITS - 1; b >= 0; b--)
    for (int a = 0; a < 3; a++)
      g[a] |= (uint32_t)((c->key >> (3 * b + a)) & 1) << b;
  return gs_hilbert_index(g, GS_DTREE_BITS) & ~(gs_nbody_dtree_span(c->level) - 1);
#endif
}

/* A cell's place on the curve (distinct: cells are disjoint runs). */
struct gs_dtree_place {
  uint64_t order;
  int k;
};

static int gs_nbody_dtree_cells_by_order(const void *a, const void *b) {
  uint64_t x = ((const struct gs_dtree_place *)a)->order, y = ((const struct gs_dtree_place *)b)->order;
  return x < y ? -1 : x > y;
}

/* The held bodies of table cells c0 .. c0 + nc - 1 (in key order, as the held bodies): cell c0 +
 * k's are [at[k], at[k + 1]) (the cells cover every held body's key). */
static void gs_nbody_dtree_cells_at(const struct gs_nbody_dtree *d, int c0, int nc, uint64_t *at) {
  for (int k = 0; k < nc; k++)
    at[k] = gs_nbody_dtree_lower(d->b.key, d->b.n, d->cell[c0 + k].key);
  at[nc] = d->b.n;
}

/* The cut: with the cells in curve order, cell k goes to rank floor(P (W_k + w_k / 2) / W), W_k
 * the work of the cells before it, w the last walk's seconds of its bodies (at: theirs, summed
 * over the ranks: one allreduce), or its count. Into each cell's owner (the table stays in key
 * order). */
static void gs_nbody_dtree_cut(struct gs_nbody_dtree *d, const uint64_t *at) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size, nc = d->ncell;
  double *w = calloc((size_t)nc, sizeof *w), total = 0, before = 0;
  struct gs_dtree_place *pl = malloc(sizeof *pl * (size_t)(nc ? nc : 1));
  if (!w || !pl) GS_DIE(&job->run->where, "calloc", "out of memory");
  if (d->measured) {
    for (int k = 0; k < nc; k++)
      for (uint64_t i = at[k]; i < at[k + 1]; i++)
        w[k] += d->b.work[i];
    GS_CHECK_MPI(&job->run->where, MPI_Allreduce(MPI_IN_PLACE, w, nc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  }
  for (int k = 0; k < nc; k++)
    total += w[k] = d->measured && w[k] > 0 ? w[k] : 0;
  if (!(total > 0)) /* nothing measured: by count */
    for (int k = 0; k < nc; k++)
      total += w[k] = (double)d->cell[k].node.count;
  for (int k = 0; k < nc; k++)
    pl[k] = (struct gs_dtree_place){gs_nbody_dtree_cells_order(&d->cell[k]), k};
  qsort(pl, (size_t)nc, sizeof *pl, gs_nbody_dtree_cells_by_order);
  for (int j = 0; j < nc; j++) {
    int k = pl[j].k;
    double mid = total > 0 ? (before + 0.5 * w[k]) / total * P : 0;
    d->cell[k].owner = mid >= P ? P - 1 : (int)mid;
    before += w[k];
  }
  free(w), free(pl);
}

/* Rows of src (row bytes each) grouped by their cells' owners (rank order, key order within) into
 * a new buffer: the send buffer of one array, off[r] the first row of rank r's. */
static void *gs_nbody_dtree_cells_pack(struct gs_nbody_dtree *d, const void *src, size_t row, const uint64_t *at,
                                       const uint64_t *off, uint64_t *next) {
  int P = d->job->run->size;
  char *buf = malloc(row * (d->b.n ? d->b.n : 1));
  if (!buf) GS_DIE(&d->job->run->where, "malloc", "out of memory");
  memcpy(next, off, sizeof *next * (size_t)P);
  for (int k = 0; k < d->ncell; k++) {
    uint64_t n = at[k + 1] - at[k];
    memcpy(buf + row * next[d->cell[k].owner], (const char *)src + row * at[k], row * n);
    next[d->cell[k].owner] += n;
  }
  return buf;
}

/* Every held body (cell k's: at, gs_nbody_dtree_cells_at of the whole table) to its cell's owner; returns the bodies
 * sent to another rank. */
static uint64_t gs_nbody_dtree_migrate(struct gs_nbody_dtree *d, const uint64_t *at) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size, me = job->run->rank;
  uint64_t *cnt = calloc((size_t)P, sizeof *cnt), *rcnt = calloc((size_t)P, sizeof *rcnt);
  uint64_t *off = calloc((size_t)P, sizeof *off), *next = calloc((size_t)P, sizeof *next);
  int *sc = calloc((size_t)P, sizeof *sc), *sd = calloc((size_t)P, sizeof *sd), *rc = calloc((size_t)P, sizeof *rc),
      *rd = calloc((size_t)P, sizeof *rd);
  if (!cnt || !rcnt || !off || !next || !sc || !sd || !rc || !rd) GS_DIE(&job->run->where, "calloc", "out of memory");
  for (int k = 0; k < d->ncell; k++)
    cnt[d->cell[k].owner] += at[k + 1] - at[k];
  GS_CHECK_MPI(&job->run->where, MPI_Alltoall(cnt, 1, MPI_UINT64_T, rcnt, 1, MPI_UINT64_T, MPI_COMM_WORLD));
  uint64_t m = 0, sent = 0;
  for (int r = 0; r < P; r++)
    m += rcnt[r], sent += r != me ? cnt[r] : 0, off[r] = r ? off[r - 1] + cnt[r - 1] : 0;
  void *src[5] = {d->b.pos, d->b.vel, d->b.acc, d->b.id, d->b.work}, *got[5];
  size_t row[5] = {job->esz, job->esz, job->esz, sizeof(uint64_t), sizeof(double)};
  for (int k = 0; k < 5; k++) {
    if (!(got[k] = malloc(row[k] * (m ? m : 1)))) GS_DIE(&job->run->where, "malloc", "out of memory");
    for (int r = 0; r < P; r++) {
      if (cnt[r] * row[k] > INT32_MAX || rcnt[r] * row[k] > INT32_MAX || off[r] * row[k] > INT32_MAX)
        GS_DIE(&job->run->where, "MPI_Alltoallv", "a migration message of more than 2^31 bytes");
      sc[r] = (int)(cnt[r] * row[k]), rc[r] = (int)(rcnt[r] * row[k]);
      sd[r] = (int)(off[r] * row[k]), rd[r] = r ? rd[r - 1] + rc[r - 1] : 0;
    }
    void *send = gs_nbody_dtree_cells_pack(d, src[k], row[k], at, off, next);
    GS_CHECK_MPI(&job->run->where, MPI_Alltoallv(send, sc, sd, MPI_BYTE, got[k], rc, rd, MPI_BYTE, MPI_COMM_WORLD));
    free(send);
  }
  gs_nbody_dtree_held_room(d, m); /* may move b's arrays: the sources are no longer read */
  d->b.n = m;
  void *to[5] = {d->b.pos, d->b.vel, d->b.acc, d->b.id, d->b.work};
  for (int k = 0; k < 5; k++)
    memcpy(to[k], got[k], row[k] * m), free(got[k]);
  free(cnt), free(rcnt), free(off), free(next), free(sc), free(sd), free(rc), free(rd);
  return sent;
}

/* The table regrouped by (owner, key): rank r's cells [first_cell[r], first_cell[r + 1]), in key
 * order like its held bodies (a stable counting sort of the key-ordered table). */
static void gs_nbody_dtree_cells_regroup(struct gs_nbody_dtree *d) {
  int P = d->job->run->size, nc = d->ncell;
  struct gs_dtree_cell *t = malloc(sizeof *t * (size_t)(nc ? nc : 1));
  int *next = calloc((size_t)P + 1, sizeof *next);
  if (!t || !next) GS_DIE(&d->job->run->where, "malloc", "out of memory");
  for (int k = 0; k < nc; k++)
    next[d->cell[k].owner + 1]++;
  for (int r = 0; r < P; r++)
    next[r + 1] += next[r];
  memcpy(d->first_cell, next, sizeof *next * ((size_t)P + 1));
  for (int k = 0; k < nc; k++)
    t[next[d->cell[k].owner]++] = d->cell[k];
  memcpy(d->cell, t, sizeof *t * (size_t)nc);
  free(t), free(next);
}

uint64_t gs_nbody_dtree_cells_update(struct gs_nbody_dtree *d) {
  struct gs_nbody_job *job = d->job;
  struct gs_dtree_cube cube;
  gs_nbody_dtree_cube(d, &cube);
  d->ops->sort(job->ctx, d->tree, job->prec, &cube, &d->b);
  gs_nbody_dtree_make_cells(d);
  uint64_t *at = malloc(sizeof *at * ((size_t)d->ncell + 1)); /* the cut and the migration read it */
  if (!at) GS_DIE(&job->run->where, "malloc", "out of memory");
  gs_nbody_dtree_cells_at(d, 0, d->ncell, at);
  gs_nbody_dtree_cut(d, at);
  uint64_t sent = gs_nbody_dtree_migrate(d, at);
  free(at);
  gs_nbody_dtree_cells_regroup(d);
  d->ops->sort(job->ctx, d->tree, job->prec, &cube, &d->b);
  int me = job->run->rank, c0 = d->first_cell[me], nc = d->first_cell[me + 1] - c0;
  d->at = realloc(d->at, sizeof *d->at * (size_t)(nc + 1));
  if (!d->at) GS_DIE(&job->run->where, "realloc", "out of memory");
  gs_nbody_dtree_cells_at(d, c0, nc, d->at);
  for (int k = 0; k < nc; k++)
    if (d->at[k + 1] - d->at[k] != d->cell[c0 + k].node.count)
      GS_DIE(&job->run->where, "gs_nbody_dtree_cells_update", "a cell's bodies did not all reach its owner");
  return sent;
}
