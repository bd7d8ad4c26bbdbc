/* gs_nbody_dtree.c: the domain-decomposed tree's solver table (gs_nbody_solver.h): the bodies
 * this rank holds (its domain cells', in (key, id) order, with their global ids), their load from
 * initial conditions or a checkpoint (by id: a checkpoint is layout-free), the standard id slices
 * for snapshots and checkpoints, keep / undo. The driver's replicated buffers (h_pos, d_pos of N
 * bodies) are not made for it (its table's layout is GS_NBODY_LAYOUT_DOMAINS): a rank holds
 * O(N / P) bodies. */
#include "gs_nbody_dtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_checkpoint.h"
#include "gs_nbody_setup.h"
#include "gs_nbody_tree.h"
#include "gs_nbody_tree_report.h"
#include "gs_nbody_tree_solver.h"

static void *gs_nbody_dtree_grow(struct gs_nbody_job *job, void *p, size_t bytes) {
  void *q = realloc(p, bytes ? bytes : 1);
  if (!q) GS_DIE(&job->run->where, "realloc", "out of memory for the held bodies");
  return q;
}

/* Room for n bodies in b (capacity *cap), contents kept. */
static void gs_nbody_dtree_reserve(struct gs_nbody_job *job, struct gs_dtree_bodies *b, uint64_t *cap, uint64_t n,
                                   void **scratch) {
  if (n <= *cap && b->pos) return;
  *cap = n + n / 4 + 16;
  b->pos = gs_nbody_dtree_grow(job, b->pos, *cap * job->esz);
  b->vel = gs_nbody_dtree_grow(job, b->vel, *cap * job->esz);
  b->acc = gs_nbody_dtree_grow(job, b->acc, *cap * job->esz);
  b->id = gs_nbody_dtree_grow(job, b->id, *cap * sizeof *b->id);
  b->key = gs_nbody_dtree_grow(job, b->key, *cap * sizeof *b->key);
  b->work = gs_nbody_dtree_grow(job, b->work, *cap * sizeof *b->work);
  if (scratch) *scratch = gs_nbody_dtree_grow(job, *scratch, *cap * job->esz);
}

void gs_nbody_dtree_room(struct gs_nbody_dtree *d, uint64_t n) {
  gs_nbody_dtree_reserve(d->job, &d->b, &d->cap, n, &d->scratch);
}

static void gs_nbody_dtree_free_bodies(struct gs_dtree_bodies *b) {
  free(b->pos), free(b->vel), free(b->acc), free(b->id), free(b->key), free(b->work);
}

/* b's n bodies into to (room made), every array. */
static void gs_nbody_dtree_copy(struct gs_nbody_job *job, struct gs_dtree_bodies *to, uint64_t *cap,
                                const struct gs_dtree_bodies *b, void **scratch) {
  gs_nbody_dtree_reserve(job, to, cap, b->n, scratch);
  to->n = b->n;
  memcpy(to->pos, b->pos, b->n * job->esz), memcpy(to->vel, b->vel, b->n * job->esz);
  memcpy(to->acc, b->acc, b->n * job->esz), memcpy(to->id, b->id, b->n * sizeof *b->id);
  memcpy(to->key, b->key, b->n * sizeof *b->key), memcpy(to->work, b->work, b->n * sizeof *b->work);
}

static void gs_nbody_dtree_keep(void *s) {
  struct gs_nbody_dtree *d = s;
  gs_nbody_dtree_copy(d->job, &d->kept, &d->kept_cap, &d->b, NULL);
}

static void gs_nbody_dtree_undo(void *s) {
  struct gs_nbody_dtree *d = s;
  gs_nbody_dtree_copy(d->job, &d->b, &d->cap, &d->kept, &d->scratch);
}

/* The real bodies of this rank's standard slice (ids [job->first, + count) below n) from host
 * vectors pos, vel, acc of the slice (acc NULL: zero). */
static void gs_nbody_dtree_take(struct gs_nbody_dtree *d, const void *pos, const void *vel, const void *acc) {
  struct gs_nbody_job *job = d->job;
  uint64_t n = job->first >= job->n ? 0 : job->first + job->count <= job->n ? job->count : job->n - job->first;
  gs_nbody_dtree_room(d, n);
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

static void gs_nbody_dtree_put(const struct gs_nbody_job *job, void *v, uint64_t i, const double q[4]) {
  for (int c = 0; c < 4; c++) {
    if (job->prec)
      ((double *)v)[4 * i + c] = q[c];
    else
      ((float *)v)[4 * i + c] = (float)q[c];
  }
}

/* Fresh: b holds all bodies, or (a preset) this rank's slice (gs_nbody_setup_origin); its slice
 * becomes held, the mass the origin's (summed in blocks, as the replicated layout has it). */
static void gs_nbody_dtree_fresh(struct gs_nbody_dtree *d, const struct gs_nbody_origin *from) {
  const struct gs_bodies *b = from->b;
  struct gs_nbody_job *job = d->job;
  size_t bytes = (job->count ? job->count : 1) * job->esz;
  void *pos = calloc(1, bytes), *vel = calloc(1, bytes);
  if (!pos || !vel) GS_DIE(&job->run->where, "calloc", "out of memory");
  for (uint64_t i = job->first; i < job->first + job->count && i < job->n; i++) {
    uint64_t j = i - from->first; /* b: all bodies, or this rank's slice */
    double q[4] = {b->x[j], b->y[j], b->z[j], b->m[j]}, v[4] = {b->vx[j], b->vy[j], b->vz[j], 0};
    gs_nbody_dtree_put(job, pos, i - job->first, q), gs_nbody_dtree_put(job, vel, i - job->first, v);
  }
  gs_nbody_dtree_take(d, pos, vel, NULL);
  free(pos), free(vel);
  job->mass = from->mass;
}

/* A checkpoint's payload (rank 0: pos | vel | acc, npad vectors each): the standard slices. */
static void gs_nbody_dtree_restore(struct gs_nbody_dtree *d, const char *payload) {
  struct gs_nbody_job *job = d->job;
  size_t part = job->npad * job->esz, mine = (job->count ? job->count : 1) * job->esz;
  void *slice[3] = {malloc(mine), malloc(mine), malloc(mine)};
  if (!slice[0] || !slice[1] || !slice[2]) GS_DIE(&job->run->where, "malloc", "out of memory");
  const int *tiles = job->dec.tiles, *tile0 = job->dec.tile0;
  for (int k = 0; k < 3; k++)
    GS_CHECK_MPI(&job->run->where, MPI_Scatterv(payload ? payload + k * part : NULL, tiles, tile0, job->tile_type,
                                                slice[k], tiles[job->run->rank], job->tile_type, 0, MPI_COMM_WORLD));
  gs_nbody_dtree_take(d, slice[0], slice[1], slice[2]);
  for (int k = 0; k < 3; k++)
    free(slice[k]);
  job->mass = payload ? gs_nbody_setup_mass(job, payload) : 0;
  GS_CHECK_MPI(&job->run->where, MPI_Bcast(&job->mass, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
}

static void gs_nbody_dtree_load(void *s, const struct gs_nbody_origin *from) {
  if (from->b)
    gs_nbody_dtree_fresh(s, from);
  else
    gs_nbody_dtree_restore(s, from->payload);
}

/* The checkpoint's forces are the held acc already (loaded with the slice). */
static void gs_nbody_dtree_resume(void *s) { (void)s; }

static void gs_nbody_dtree_held(void *s, struct gs_nbody_held *h) {
  struct gs_nbody_dtree *d = s;
  h->pos = d->b.pos, h->vel = d->b.vel, h->acc = d->b.acc, h->id = d->b.id;
  h->first = 0, h->count = d->b.n;
}

/* The rank whose standard slice holds id (slices rise with the rank). */
static int gs_nbody_dtree_slice_of(const struct gs_nbody_job *job, uint64_t id) {
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
static void gs_nbody_dtree_ints(const struct gs_nbody_job *job, const uint64_t *n, int *out, int P, size_t row) {
  for (int r = 0; r < P; r++) {
    if (n[r] * row > INT32_MAX) GS_DIE(&job->run->where, "MPI_Alltoallv", "a message of more than 2^31 bytes");
    out[r] = (int)(n[r] * row);
  }
}

void gs_nbody_dtree_slices(struct gs_nbody_dtree *d, const void *src, void *pos, void *vel, void *acc) {
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
    cnt[dest[i] = gs_nbody_dtree_slice_of(job, d->b.id[i])]++;
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
    gs_nbody_dtree_ints(job, cnt, sc, P, row[k]), gs_nbody_dtree_ints(job, rcnt, rc, P, row[k]);
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

static void gs_nbody_dtree_gather(void *s, void *pos, void *vel, void *acc) {
  struct gs_nbody_dtree *d = s;
  gs_nbody_dtree_slices(d, d->b.acc, pos, vel, acc);
}

static double gs_nbody_dtree_forces(void *s, int potential, int first, struct gs_step_times *st) {
  struct gs_nbody_dtree *d = s;
  double part[4] = {0}, t0 = 0;
  gs_nbody_dtree_let_eval(d, potential && gs_nbody_tree_diag_own(d->job), first, 0, part);
  (void)t0;
  if (st) {
    memcpy(st->part, part, sizeof part);
    st->forces = part[GS_NBODY_DTREE_BUILD] + part[GS_NBODY_DTREE_WALK];
  }
  return part[GS_NBODY_DTREE_DOMAIN] + part[GS_NBODY_DTREE_LET]; /* what the distribution costs */
}

/* As the replicated tree's: the diagnostics' potential from a geometric walk at theta 0.5. */
static const void *gs_nbody_dtree_potential(void *s, int fresh) {
  struct gs_nbody_dtree *d = s;
  if (!fresh && gs_nbody_tree_diag_own(d->job)) return d->b.acc;
  gs_nbody_dtree_let_eval(d, 1, 0, GS_NBODY_DTREE_SCRATCH | GS_NBODY_DTREE_DIAG, NULL);
  return d->scratch;
}

static double gs_nbody_dtree_tol(const struct gs_nbody_dtree *d) {
  return gs_nbody_options_force_tol(d->job->o, d->job->law == GS_LAW_CUTOFF);
}

static void gs_nbody_dtree_header(void *s, const struct gs_ckpt_header *ck) {
  struct gs_nbody_dtree *d = s;
  struct gs_nbody_tree view = {.repl = {.job = d->job}}; /* the replicated tree's note reads only the job */
  if (ck) gs_nbody_tree_report_restart(&view, ck);
  gs_nbody_dtree_report_header(s, gs_nbody_dtree_tol(s));
}

static void gs_nbody_dtree_first(void *s) { gs_nbody_dtree_report_first(s, gs_nbody_dtree_tol(s)); }

static void gs_nbody_dtree_steps(void *s, const struct gs_step_times *t, int steps) {
  gs_nbody_dtree_report_steps(s, t, steps);
}

static void gs_nbody_dtree_final(void *s, long last) { gs_nbody_dtree_report_final(s, last, gs_nbody_dtree_tol(s)); }

/* Per rank: its share of the bodies, each with its vectors, id, key and work twice (held and
 * kept), the scratch forces, the subtree's two nodes and a double body, and the merged tree's
 * copies; twice the share against imbalance and received bodies. */
static double gs_nbody_dtree_memory(const struct gs_nbody_job *job, uint64_t n) {
  double share = 2.0 * (double)n / job->run->size + 1024;
  return share * (7.0 * (double)job->esz + 48 + 4 * sizeof(struct gs_dtree_node) + 80);
}

static void gs_nbody_dtree_adopt(const struct gs_ckpt_header *h, struct gs_nbody_opts *o,
                                 const struct gs_options *opt) {
  gs_nbody_tree_solver_adopt(h, o, opt); /* the same settings as the replicated layout's */
}

static int gs_nbody_dtree_check(struct gs_nbody_job *job, struct gs_msg *msg) {
  job->kname = "tree";
  if (!job->be->dtree)
    return gs_error_msg(msg,
                        "--tree-layout domains: the %s backend does not have the distributed tree yet (give "
                        "--tree-layout replicated)",
                        job->be->name);
  return gs_nbody_tree_solver_check(job, msg);
}

static void *gs_nbody_dtree_open(struct gs_nbody_job *job) {
  struct gs_nbody_dtree *d = calloc(1, sizeof *d);
  if (!d) GS_DIE(&job->run->where, "calloc", "out of memory");
  d->job = job, d->ops = job->be->dtree;
  d->tree = d->ops->open(job->ctx);
  d->first_cell = calloc((size_t)job->run->size + 1, sizeof *d->first_cell);
  if (!d->first_cell) GS_DIE(&job->run->where, "calloc", "out of memory");
  uint64_t leaf = job->o->leaf > 0 ? (uint64_t)job->o->leaf : (uint64_t)d->ops->leaf;
  d->C = job->o->tree_cell > 0 ? job->o->tree_cell : job->n / 16384 > 4096 ? job->n / 16384 : 4096;
  if (d->C < leaf) d->C = leaf; /* a cell is never split above a leaf bucket of the global tree */
  gs_nbody_dtree_room(d, 1);
  return d;
}

/* A run that names no layout gets the domains where the backend has the distributed primitives. */
static int gs_nbody_dtree_runs_on(const struct gs_backend *be) { return be->dtree != NULL; }

static double gs_nbody_dtree_interactions(void *s) { return ((struct gs_nbody_dtree *)s)->inter; }

static void gs_nbody_dtree_ckpt(const struct gs_nbody_job *job, struct gs_ckpt_header *h) {
  gs_nbody_tree_solver_ckpt(job, h); /* layout-free: any layout restarts it */
}

static void gs_nbody_dtree_close(void *s) {
  struct gs_nbody_dtree *d = s;
  d->ops->close(d->job->ctx, d->tree);
  gs_nbody_dtree_free_bodies(&d->b), gs_nbody_dtree_free_bodies(&d->kept);
  free(d->scratch), free(d->cell), free(d->first_cell), free(d->at), free(d->send.data), free(d->recv.data);
  free(d->let_bytes);
  free(d);
}

const struct gs_nbody_solver gs_nbody_dtree_ops = {
    .name = "tree",
    .id = GS_NBODY_TREE,
    .layout = GS_NBODY_LAYOUT_DOMAINS,
    .rank_exact = 1,
    .runs_on = gs_nbody_dtree_runs_on,
    .memory = gs_nbody_dtree_memory,
    .adopt = gs_nbody_dtree_adopt,
    .check = gs_nbody_dtree_check,
    .open = gs_nbody_dtree_open,
    .load = gs_nbody_dtree_load,
    .resume = gs_nbody_dtree_resume,
    .held = gs_nbody_dtree_held,
    .forces = gs_nbody_dtree_forces,
    .potential = gs_nbody_dtree_potential,
    .keep = gs_nbody_dtree_keep,
    .undo = gs_nbody_dtree_undo,
    .gather = gs_nbody_dtree_gather,
    .interactions = gs_nbody_dtree_interactions,
    .header = gs_nbody_dtree_header,
    .report_first = gs_nbody_dtree_first,
    .report_steps = gs_nbody_dtree_steps,
    .report_final = gs_nbody_dtree_final,
    .ckpt = gs_nbody_dtree_ckpt,
    .close = gs_nbody_dtree_close,
};
