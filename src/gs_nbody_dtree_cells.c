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

/* The global cube: MIN of (min, -max) per axis over every held body, one allreduce (exact). */
static void gs_nbody_dtree_cube(struct gs_nbody_dtree *d, struct gs_dtree_cube *cube) {
  struct gs_nbody_job *job = d->job;
  double m[6], all[6];
  d->ops->box(job->ctx, d->tree, job->prec, &d->b, m);
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
  uint64_t *c = malloc(sizeof *c * 3 * (size_t)(*n ? *n : 1)), *ends = c + *n;
  if (!c) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int k = 0; k < *n; k++)
    if (!p[k].done) ends[2 * m] = p[k].key, ends[2 * m + 1] = p[k].key + gs_nbody_dtree_span(p[k].level), m++;
  d->ops->lower(job->ctx, d->tree, &d->b, ends, ends, 2 * m); /* in place: each search reads its own key */
  for (int k = 0; k < m; k++)
    c[k] = ends[2 * k + 1] - ends[2 * k];
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

/* Every third bit of v from bit 0, packed (the inverse of the key's digit spread). */
static uint32_t gs_nbody_dtree_cells_compact(uint64_t v) {
  v &= 0x1249249249249249ull;
  v = (v ^ (v >> 2)) & 0x10c30c30c30c30c3ull;
  v = (v ^ (v >> 4)) & 0x100f00f00f00f00full;
  v = (v ^ (v >> 8)) & 0x1f0000ff0000ffull;
  v = (v ^ (v >> 16)) & 0x1f00000000ffffull;
  v = (v ^ (v >> 32)) & 0x1fffffull;
  return (uint32_t)v;
}

/* The cut's order of cell c: the first index of its run on the Hilbert curve of the key grid (a
 * cube of level L is one run, whose top 3 L bits are the index of any of its points). Built with
 * -DGS_NBODY_DTREE_MORTON_CUT (a switch for measurement): the key itself, the Morton order. */
static uint64_t gs_nbody_dtree_cells_order(const struct gs_dtree_cell *c) {
#ifdef GS_NBODY_DTREE_MORTON_CUT
  return c->key;
#else
  uint32_t g[3]; /* the key's digits are x | y << 1 | z << 2 (gs_dtree.h) */
  for (int a = 0; a < 3; a++)
    g[a] = gs_nbody_dtree_cells_compact(c->key >> a);
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

/* The cells of the last cut and their places on the curve: most cells of an evaluation are the
 * last one's (bodies drift a little), whose Hilbert index is then looked up, not made again (m
 * indices cost about 7 ms of host time at m = 14000, which is half a step's budget at 2^24 bodies
 * on one GPU); the same cells give the same order without a sort. */
struct gs_dtree_curve {
  int n, cap;
  uint64_t *key, *order;
  int *level;
  struct gs_dtree_place *pl;
};

/* Room for n cells in c. */
static void gs_nbody_dtree_cells_curve_room(struct gs_nbody_dtree *d, struct gs_dtree_curve *c, int n) {
  if (n <= c->cap) return;
  c->cap = n + n / 4 + 16;
  c->key = realloc(c->key, sizeof *c->key * (size_t)c->cap);
  c->order = realloc(c->order, sizeof *c->order * (size_t)c->cap);
  c->level = realloc(c->level, sizeof *c->level * (size_t)c->cap);
  c->pl = realloc(c->pl, sizeof *c->pl * (size_t)c->cap);
  if (!c->key || !c->order || !c->level || !c->pl) GS_DIE(&d->job->run->where, "realloc", "out of memory");
}

/* d's cells in curve order: each cell's index from the last cut's where it was a cell then (both
 * lists are in key order: one merge), the rest made; sorted unless the cells are the same. */
static const struct gs_dtree_place *gs_nbody_dtree_cells_curve(struct gs_nbody_dtree *d) {
  struct gs_dtree_curve *c = d->curve;
  if (!c && !(c = d->curve = calloc(1, sizeof *c))) GS_DIE(&d->job->run->where, "calloc", "out of memory");
  int nc = d->ncell, same = c->n == nc, j = 0;
  uint64_t *order = malloc(sizeof *order * (size_t)(nc ? nc : 1));
  if (!order) GS_DIE(&d->job->run->where, "malloc", "out of memory");
  for (int k = 0; k < nc; k++) {
    const struct gs_dtree_cell *x = &d->cell[k];
    while (j < c->n && c->key[j] < x->key) j++;
    int hit = j < c->n && c->key[j] == x->key && c->level[j] == x->level;
    order[k] = hit ? c->order[j] : gs_nbody_dtree_cells_order(x);
    same &= hit && j == k;
  }
  if (!same) {
    gs_nbody_dtree_cells_curve_room(d, c, nc);
    c->n = nc;
    for (int k = 0; k < nc; k++) {
      c->key[k] = d->cell[k].key, c->level[k] = d->cell[k].level, c->order[k] = order[k];
      c->pl[k] = (struct gs_dtree_place){order[k], k};
    }
    qsort(c->pl, (size_t)nc, sizeof *c->pl, gs_nbody_dtree_cells_by_order);
  }
  free(order);
  return c->pl;
}

void gs_nbody_dtree_cells_free(struct gs_nbody_dtree *d) {
  if (d->curve) free(d->curve->key), free(d->curve->order), free(d->curve->level), free(d->curve->pl);
  free(d->curve);
  d->curve = NULL;
}

/* The held bodies of table cells c0 .. c0 + nc - 1 (in key order, as the held bodies): cell c0 +
 * k's are [at[k], at[k + 1]) (the cells cover every held body's key). */
static void gs_nbody_dtree_cells_at(struct gs_nbody_dtree *d, int c0, int nc, uint64_t *at) {
  for (int k = 0; k < nc; k++)
    at[k] = d->cell[c0 + k].key;
  d->ops->lower(d->job->ctx, d->tree, &d->b, at, at, nc);
  at[nc] = d->b.n;
}

/* The cut: with the cells in curve order, cell k goes to rank floor(P (W_k + w_k / 2) / W), W_k
 * the work of the cells before it, w the last walk's seconds of its bodies (at: theirs, summed
 * over the ranks: one allreduce), or its count. Into each cell's owner (the table stays in key
 * order). */
static void gs_nbody_dtree_cut(struct gs_nbody_dtree *d, const uint64_t *at) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size, nc = d->ncell;
  double *w = calloc((size_t)(nc ? nc : 1), sizeof *w), total = 0, before = 0;
  if (!w) GS_DIE(&job->run->where, "calloc", "out of memory");
  if (d->measured) {
    d->ops->sums(job->ctx, d->tree, &d->b, at, nc, w);
    GS_CHECK_MPI(&job->run->where, MPI_Allreduce(MPI_IN_PLACE, w, nc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  }
  for (int k = 0; k < nc; k++)
    total += w[k] = d->measured && w[k] > 0 ? w[k] : 0;
  if (!(total > 0)) /* nothing measured: by count */
    for (int k = 0; k < nc; k++)
      total += w[k] = (double)d->cell[k].node.count;
  const struct gs_dtree_place *pl = gs_nbody_dtree_cells_curve(d);
  for (int j = 0; j < nc; j++) {
    int k = pl[j].k;
    double mid = total > 0 ? (before + 0.5 * w[k]) / total * P : 0;
    d->cell[k].owner = mid >= P ? P - 1 : (int)mid;
    before += w[k];
  }
  free(w);
}

/* Every held body (cell k's: at, gs_nbody_dtree_cells_at of the whole table) to its cell's owner, as
 * rows of the backend's pack (every rank in the all-to-all, one that sends or gets nothing too):
 * where some body leaves, every row is packed by owner and the held bodies are what arrives, this
 * rank's own rows first; else nothing is packed and what arrives follows the held bodies.
 * Returns the bodies sent to another rank; *moved: whether the held bodies changed (their keys
 * then no longer match them). */
static uint64_t gs_nbody_dtree_migrate(struct gs_nbody_dtree *d, const uint64_t *at, int *moved) {
  struct gs_nbody_job *job = d->job;
  int P = job->run->size, me = job->run->rank;
  size_t row = GS_DTREE_ROW(job->esz);
  uint64_t *cnt = calloc(4 * (size_t)P, sizeof *cnt), *rcnt = cnt + P, *sb = cnt + 2 * P, *rb = cnt + 3 * P;
  struct gs_dtree_run *run = malloc(sizeof *run * (size_t)(d->ncell ? d->ncell : 1));
  uint64_t *next = calloc((size_t)P, sizeof *next);
  if (!cnt || !run || !next) GS_DIE(&job->run->where, "calloc", "out of memory");
  for (int k = 0; k < d->ncell; k++)
    cnt[d->cell[k].owner] += at[k + 1] - at[k];
  GS_CHECK_MPI(&job->run->where, MPI_Alltoall(cnt, 1, MPI_UINT64_T, rcnt, 1, MPI_UINT64_T, MPI_COMM_WORLD));
  uint64_t sent = 0, got = 0;
  for (int r = 0; r < P; r++)
    sent += r != me ? cnt[r] : 0, got += r != me ? rcnt[r] : 0;
  int pack = sent > 0;
  if (!pack) cnt[me] = rcnt[me] = 0; /* the held bodies stay where they are */
  for (int r = 1; r < P; r++)
    next[r] = next[r - 1] + cnt[r - 1];
  for (int r = 0; r < P; r++)
    sb[r] = cnt[r] * row, rb[r] = rcnt[r] * row;
  uint64_t nrun = 0, in = pack ? got + rcnt[me] : got;
  if (pack) {
    for (int k = 0; k < d->ncell; k++) {
      uint64_t n = at[k + 1] - at[k];
      if (!n) continue;
      run[nrun++] = (struct gs_dtree_run){at[k], n, next[d->cell[k].owner]};
      next[d->cell[k].owner] += n;
    }
    gs_nbody_dtree_held_buf(d, &d->send, row * d->b.n);
    d->ops->pack(job->ctx, d->tree, job->prec, &d->b, run, (int)nrun, d->send.p);
  }
  gs_nbody_dtree_held_buf(d, &d->recv, row * in);
  gs_exchange_alltoallv(&job->xchg, d->send.p, sb, d->recv.p, rb, job->qc);
  uint64_t at0 = pack ? 0 : d->b.n;
  gs_nbody_dtree_held_room(d, at0 + in);
  d->ops->unpack(job->ctx, d->tree, job->prec, d->recv.p, in, &d->b, at0);
  d->b.n = at0 + in;
  /* a migration of many bodies (the first evaluation's, from the id slices) leaves its buffers to
   * no later one, which moves a few per cent at most: 128 bytes a held body not kept */
  if (d->send.cap > row * (d->b.n / 8 + 4096)) gs_nbody_dtree_held_unbuf(d, &d->send);
  if (d->recv.cap > row * (d->b.n / 8 + 4096)) gs_nbody_dtree_held_unbuf(d, &d->recv);
  *moved = pack || got > 0;
  free(cnt), free(run), free(next);
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
  int moved = 0;
  uint64_t sent = gs_nbody_dtree_migrate(d, at, &moved);
  free(at);
  gs_nbody_dtree_cells_regroup(d);
  if (moved) d->ops->sort(job->ctx, d->tree, job->prec, &cube, &d->b); /* else still in (key, id) order */
  int me = job->run->rank, c0 = d->first_cell[me], nc = d->first_cell[me + 1] - c0;
  d->at = realloc(d->at, sizeof *d->at * (size_t)(nc + 1));
  if (!d->at) GS_DIE(&job->run->where, "realloc", "out of memory");
  gs_nbody_dtree_cells_at(d, c0, nc, d->at);
  for (int k = 0; k < nc; k++)
    if (d->at[k + 1] - d->at[k] != d->cell[c0 + k].node.count)
      GS_DIE(&job->run->where, "gs_nbody_dtree_cells_update", "a cell's bodies did not all reach its owner");
  return sent;
}
