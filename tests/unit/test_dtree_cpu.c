/* The CPU backend's distributed-tree primitives (struct gs_dtree_ops) without MPI: clustered
 * random bodies on the key grid, their domain cells (the solver's rule, serially here), the cells
 * dealt to 1..5 "ranks" as contiguous runs; each rank builds its cells, every other rank's LET is
 * extracted for it, and its walk over the merged tree gives bitwise the forces of one rank holding
 * every cell, with no node missing: for several theta, the relative test (random a_old), the
 * cutoff law and coincident bodies. A rank that receives nothing must count missing nodes (the
 * detector the solver fails the run on). And the layout's choice: domains by default where the
 * backend has the primitives, replicated where it has not, and domains asked of such a backend a
 * usage error naming it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend_cpu.h"
#include "gs_backend_cpu_dtree.h"
#include "gs_nbody_solver.h"
#include "gs_test.h"

#define N 1500
#define C 16

static const struct gs_dtree_ops *ops = &gs_backend_cpu_dtree_ops;

static uint64_t lower(const uint64_t *key, uint64_t n, uint64_t k) {
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

/* The cells of the sorted keys (prefixes split while they hold more than C), in key order. */
static void cells(const uint64_t *key, uint64_t n, uint64_t k0, int level, struct gs_dtree_cell *out, int *nc) {
  uint64_t span = (uint64_t)1 << (3 * (GS_DTREE_LEVELS - level));
  uint64_t count = lower(key, n, k0 + span) - lower(key, n, k0);
  if (!count) return;
  if (count <= C || level == GS_DTREE_LEVELS) {
    memset(&out[*nc], 0, sizeof out[*nc]);
    out[*nc].key = k0, out[*nc].level = level, out[(*nc)++].node.count = count;
    return;
  }
  for (uint64_t g = 0; g < 8; g++)
    cells(key, n, k0 + g * (span >> 3), level + 1, out, nc);
}

/* Bodies: two clumps and a halo, a tenth of them at one point when `same`; random a_old. */
static void bodies(struct gs_dtree_bodies *b, int same, unsigned seed) {
  srand(seed);
  for (uint64_t i = 0; i < N; i++) {
    double r = i % 3 == 0 ? 1 : 0.05, c = i % 3 == 1 ? 0.4 : -0.3, *p = (double *)b->pos + 4 * i;
    for (int d = 0; d < 3; d++)
      p[d] = same && i % 10 == 0 ? 0.125 : c + r * (2.0 * rand() / RAND_MAX - 1);
    p[3] = 1.0 / N;
    for (int d = 0; d < 4; d++)
      ((double *)b->acc)[4 * i + d] = d < 3 ? 0.1 + 10.0 * rand() / RAND_MAX : 0;
    b->id[i] = i, b->work[i] = 0;
  }
}

/* Rank r of P's cells [f, g) of the table: its bodies a view into the sorted arrays. */
static struct gs_dtree_bodies view(const struct gs_dtree_bodies *all, const uint64_t *at, int f) {
  struct gs_dtree_bodies v = *all;
  v.pos = (double *)all->pos + 4 * at[f], v.vel = (double *)all->vel + 4 * at[f];
  v.acc = (double *)all->acc + 4 * at[f], v.id = all->id + at[f], v.key = all->key + at[f];
  v.work = all->work + at[f];
  return v;
}

/* P ranks' walks into out; returns the missing nodes, every rank's LET dropped when drop. */
static uint64_t ranks(struct gs_tree_args a, const struct gs_dtree_bodies *all, struct gs_dtree_cell *table, int nc,
                      const uint64_t *at, int P, double *out, int drop) {
  int first[8];
  void *t[8];
  for (int r = 0; r <= P; r++)
    first[r] = r * nc / P;
  uint64_t missing = 0;
  for (int r = 0; r < P; r++) {
    struct gs_dtree_bodies v = view(all, at, first[r]);
    v.n = at[first[r + 1]] - at[first[r]];
    uint64_t *own = malloc(sizeof *own * (size_t)(first[r + 1] - first[r] + 1));
    for (int k = first[r]; k <= first[r + 1]; k++)
      own[k - first[r]] = at[k] - at[first[r]];
    t[r] = ops->open(NULL, NULL);
    ops->build(NULL, t[r], &a, &v, own, table + first[r], first[r + 1] - first[r]);
    free(own);
  }
  /* every sender's messages (one let each, every receiver's in rank order), then each receiver's
   * from every sender, in rank order, as the all-to-all delivers them */
  uint64_t bytes[8][8] = {{0}}, off[8][8] = {{0}}, total[8] = {0};
  char *sent[8] = {NULL};
  for (int q = 0; q < P; q++) {
    const void *msg = NULL;
    if (!drop) ops->let(NULL, t[q], &a, table, first, P, q, bytes[q], &msg);
    for (int r = 0; r < P; r++)
      off[q][r] = total[q], total[q] += bytes[q][r];
    sent[q] = malloc(total[q] + 1);
    if (total[q]) memcpy(sent[q], msg, total[q]);
  }
  for (int r = 0; r < P; r++) {
    uint64_t rb[8], in = 0;
    for (int q = 0; q < P; q++)
      rb[q] = bytes[q][r], in += rb[q];
    char *m = malloc(in + 1), *at_m = m;
    for (int q = 0; q < P; q++)
      memcpy(at_m, sent[q] + off[q][r], rb[q]), at_m += rb[q];
    struct gs_dtree_bodies v = view(all, at, first[r]);
    v.n = at[first[r + 1]] - at[first[r]];
    a.acc = out + 4 * at[first[r]];
    missing += ops->walk(NULL, t[r], &a, table, nc, first[r], m, rb, P, &v, NULL);
    free(m);
  }
  for (int q = 0; q < P; q++)
    free(sent[q]);
  for (int r = 0; r < P; r++)
    ops->close(NULL, t[r]);
  return missing;
}

static void check(struct gs_tree_args a, int same, const char *what) {
  struct gs_dtree_bodies b = {.n = N};
  b.pos = malloc(32 * N), b.vel = calloc(N, 32), b.acc = malloc(32 * N), b.id = malloc(8 * N), b.key = malloc(8 * N);
  b.work = malloc(8 * N);
  bodies(&b, same, 3);
  struct gs_dtree_cube cube = {{INFINITY, INFINITY, INFINITY}, 0};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < N; i++)
    for (int d = 0; d < 3; d++)
      cube.lo[d] = fmin(cube.lo[d], ((double *)b.pos)[4 * i + d]), hi[d] = fmax(hi[d], ((double *)b.pos)[4 * i + d]);
  for (int d = 0; d < 3; d++)
    cube.edge = fmax(cube.edge, hi[d] - cube.lo[d]);
  ops->sort(NULL, NULL, 1, &cube, &b);
  struct gs_dtree_cell *table = malloc(sizeof *table * N);
  int nc = 0;
  cells(b.key, N, 0, 0, table, &nc);
  uint64_t *at = malloc(sizeof *at * (size_t)(nc + 1));
  for (int k = 0; k < nc; k++)
    at[k] = lower(b.key, N, table[k].key);
  at[nc] = N;
  double *one = malloc(32 * N), *many = malloc(32 * N);
  GS_EXPECT(nc > 5 * 2);
  GS_EXPECT(ranks(a, &b, table, nc, at, 1, one, 0) == 0);
  for (int P = 2; P <= 5; P++) {
    uint64_t missing = ranks(a, &b, table, nc, at, P, many, 0);
    GS_EXPECT(missing == 0);
    GS_EXPECT(memcmp(one, many, 32 * N) == 0);
    if (missing || memcmp(one, many, 32 * N))
      fprintf(stderr, "%s, %d ranks: %llu missing or other forces\n", what, P, (unsigned long long)missing);
  }
  GS_EXPECT(ranks(a, &b, table, nc, at, 3, many, 1) > 0); /* nothing received: the detector counts */
  free(b.pos), free(b.vel), free(b.acc), free(b.id), free(b.key), free(b.work), free(table), free(at), free(one);
  free(many);
}

/* The LET's test on one crafted node: the mass at a corner of the box [0, 1]^3 (com at the origin,
 * size sqrt 3) and target boxes near the far corner. A box that overlaps the node's must open it
 * even where the angle test alone would accept it (theta 1.5: the box [0.9, 1.1]^3 lies at
 * distance 0.9 sqrt 3 from com, size / d = 1.11 < 1.5), because a closed node travels without its
 * box; the same box moved just outside the node's does not; and the angle and cutoff tests. */
static void may_open(void) {
  struct gs_tree_args a = {.precision = 1, .law = GS_LAW_PLUMMER, .G = 1, .eps2 = 1e-4, .first = 1, .theta = 1.5};
  struct gs_dtree_node nd = {.lo = {0, 0, 0}, .hi = {1, 1, 1}, .mass = 1, .size = sqrt(3.0)};
  struct gs_dtree_cell T = {.node = {.lo = {0.9, 0.9, 0.9}, .hi = {1.1, 1.1, 1.1}, .count = 1}, .amin = 1};
  GS_EXPECT(gs_backend_cpu_dtree_may_open(&a, &nd, &T) == 1); /* overlap */
  for (int d = 0; d < 3; d++)
    T.node.lo[d] = 1.05, T.node.hi[d] = 1.25;
  GS_EXPECT(gs_backend_cpu_dtree_may_open(&a, &nd, &T) == 0); /* outside, far enough for theta 1.5 */
  a.theta = 0.5;
  GS_EXPECT(gs_backend_cpu_dtree_may_open(&a, &nd, &T) == 1); /* too close for theta 0.5 */
  a.theta = 1.5, a.law = GS_LAW_CUTOFF, a.eps2 = 0, a.cut2 = 1.0;
  GS_EXPECT(gs_backend_cpu_dtree_may_open(&a, &nd, &T) == 1); /* some body may lie within the cutoff */
}

static void layout(void) {
  struct gs_backend none = gs_backend_cpu_ops; /* a backend without the distributed tree (CUDA now) */
  none.dtree = NULL, none.name = "nodtree";
  struct gs_nbody_opts o = {.solver = GS_NBODY_TREE, .tree_layout = -1};
  const struct gs_nbody_solver *sv = gs_nbody_solver_pick(&o, &gs_backend_cpu_ops);
  GS_EXPECT(sv && sv->id == GS_NBODY_TREE && sv->layout == GS_NBODY_LAYOUT_DOMAINS);
  sv = gs_nbody_solver_pick(&o, &none);
  GS_EXPECT(sv && sv->id == GS_NBODY_TREE && sv->layout == GS_NBODY_LAYOUT_REPLICATED);
  o.tree_layout = GS_NBODY_LAYOUT_REPLICATED;
  sv = gs_nbody_solver_pick(&o, &gs_backend_cpu_ops);
  GS_EXPECT(sv && sv->id == GS_NBODY_TREE && sv->layout == GS_NBODY_LAYOUT_REPLICATED);
  o.tree_layout = GS_NBODY_LAYOUT_DOMAINS;
  const struct gs_nbody_solver *domains = gs_nbody_solver_pick(&o, &none); /* asked for: its check refuses */
  GS_EXPECT(domains && domains->id == GS_NBODY_TREE && domains->layout == GS_NBODY_LAYOUT_DOMAINS);
  o.solver = GS_NBODY_DIRECT, o.tree_layout = -1;
  sv = gs_nbody_solver_pick(&o, &gs_backend_cpu_ops);
  GS_EXPECT(sv && sv->id == GS_NBODY_DIRECT && sv->layout == GS_NBODY_LAYOUT_REPLICATED);
  struct gs_nbody_job job = {.be = &none, .o = &o};
  struct gs_msg msg = {{0}};
  GS_EXPECT(domains && domains->check(&job, &msg) == GS_USAGE);
  GS_EXPECT(strstr(msg.text, "--tree-layout domains: the nodtree backend does not have the distributed tree yet"));
}

int main(void) {
  may_open();
  layout();
  struct gs_tree_args a = {.precision = 1,
                           .law = GS_LAW_PLUMMER,
                           .potential = 1,
                           .G = 1.0,
                           .eps2 = 1e-4,
                           .first = 1,
                           .theta = 0.5,
                           .alpha = 0.005};
  for (double theta = 0.3; theta < 1.0; theta += 0.25)
    a.theta = theta, check(a, 0, "geometric");
  a.first = 0, a.opening = GS_TREE_RELATIVE;
  check(a, 0, "relative");
  a.opening = GS_TREE_GEOMETRIC, a.first = 1, a.law = GS_LAW_CUTOFF, a.eps2 = 0, a.cut2 = 1e-4, a.G = 10;
  check(a, 0, "cutoff");
  a.law = GS_LAW_PLUMMER, a.eps2 = 1e-4, a.G = 1;
  check(a, 1, "coincident");
  GS_TEST_DONE();
}
