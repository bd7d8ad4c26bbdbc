/* The CPU backend's Barnes-Hut tree against a double-precision direct sum: n = 1, 2, 3 exact,
 * everything opened (theta tiny) exact, coincident bodies (no hang, at most 2n - 1 nodes), two
 * tight clusters, several theta, the relative opening, the cutoff law, float positions, the
 * potential, slices of targets and two evaluations (and thread counts) bitwise the same, walks
 * by the tree's order and unsort against walks by index, the stop hook. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend_cpu.h"
#include "gs_test.h"

/* A tree evaluation's arguments over pos[0, n), every body a target, Plummer eps = 0.01. */
static struct gs_tree_args tree_args(const double *pos, double *acc, uint64_t n, double theta) {
  struct gs_tree_args a = {.precision = 1, .law = GS_LAW_PLUMMER, .pos = pos, .n = n, .i_count = n, .acc = acc,
                           .potential = 1, .G = 1.0, .eps2 = 1e-4, .first = 1, .theta = theta, .alpha = 0.005};
  return a;
}

/* Build and walk with a workspace of the size the backend asks for. */
static void tree_run(struct gs_tree_args *a) {
  size_t bytes = gs_backend_cpu_tree_ops.workspace(NULL, a);
  a->ws = malloc(bytes ? bytes : 1);
  a->ws_bytes = bytes;
  gs_backend_cpu_tree_ops.build(NULL, a, NULL);
  gs_backend_cpu_tree_ops.walk(NULL, a, NULL);
  free(a->ws);
}

/* The double direct sum (the same law) on targets [i_first, +count) into ref. */
static void direct(const struct gs_tree_args *a, const double *pos, uint64_t first, uint64_t count, double *ref) {
  for (uint64_t k = 0; k < count; k++) {
    uint64_t i = first + k;
    double s[4] = {0};
    for (uint64_t j = 0; j < a->n; j++) {
      double d[3] = {pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2]};
      double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (a->law == GS_LAW_CUTOFF ? r2 < a->cut2 : j == i) continue;
      if (a->law == GS_LAW_PLUMMER) r2 += a->eps2;
      double inv = 1 / sqrt(r2);
      for (int c = 0; c < 3; c++)
        s[c] += d[c] * a->G * pos[4 * j + 3] * inv * inv * inv;
      s[3] -= a->G * pos[4 * j + 3] * inv;
    }
    memcpy(ref + 4 * k, s, sizeof s);
  }
}

static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The 99th percentile (which = 99) or max (100) of |a - a_ref| / |a_ref| over count targets. */
static double rel_error(const double *acc, const double *ref, uint64_t count, int which) {
  double *e = malloc(sizeof *e * count);
  for (uint64_t k = 0; k < count; k++) {
    double d2 = 0, r2 = 0;
    for (int c = 0; c < 3; c++)
      d2 += (acc[4 * k + c] - ref[4 * k + c]) * (acc[4 * k + c] - ref[4 * k + c]), r2 += ref[4 * k + c] * ref[4 * k + c];
    e[k] = r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
    if (isnan(e[k])) e[k] = INFINITY;
  }
  qsort(e, count, sizeof *e, cmp);
  double v = which == 100 ? e[count - 1] : e[(uint64_t)ceil(0.99 * count) - 1];
  free(e);
  return v;
}

/* n bodies in a cloud of radius 1 around (cx, 0, 0), centrally concentrated, masses 1 / n. */
static void cloud(double *pos, uint64_t n, double cx, double radius, unsigned seed) {
  srand48(seed);
  for (uint64_t i = 0; i < n; i++) {
    double x, y, z, s = radius * pow(drand48(), 1.5);
    do x = 2 * drand48() - 1, y = 2 * drand48() - 1, z = 2 * drand48() - 1;
    while (x * x + y * y + z * z > 1);
    double q[4] = {cx + s * x, s * y, s * z, 1.0 / (double)n};
    memcpy(pos + 4 * i, q, sizeof q);
  }
}

/* Tree against direct on pos: the 99th-percentile error (max with which = 100). */
static double against_direct(struct gs_tree_args a, const double *pos, int which) {
  double *acc = calloc(4 * a.n, sizeof *acc), *ref = calloc(4 * a.n, sizeof *ref);
  a.acc = acc;
  tree_run(&a);
  direct(&a, pos, 0, a.n, ref);
  double e = rel_error(acc, ref, a.n, which);
  free(acc), free(ref);
  return e;
}

/* n = 1: no force; n = 2, 3: one body per leaf (leaf 1) or one leaf, exact to round-off. */
static void tiny(void) {
  double pos[12] = {0.1, 0.2, 0.3, 1.0, -0.4, 0.5, 0.0, 2.0, 0.7, -0.1, 0.2, 0.5}, acc[12], ref[12];
  for (uint64_t n = 1; n <= 3; n++)
    for (int leaf = 0; leaf <= 1; leaf++) {
      struct gs_tree_args a = tree_args(pos, acc, n, 0.5);
      a.leaf = leaf;
      memset(acc, 0xff, sizeof acc); /* NaN: every target must be written */
      tree_run(&a);
      direct(&a, pos, 0, n, ref);
      for (uint64_t k = 0; k < 4 * n; k++) {
        const double *r = ref + k / 4 * 4, scale = fabs(r[0]) + fabs(r[1]) + fabs(r[2]) + fabs(r[3]);
        GS_EXPECT(n == 1 ? acc[k] == 0 : fabs(acc[k] - ref[k]) <= 1e-13 * scale);
      }
    }
}

/* theta so small that every cell is opened: the direct sum to round-off, at any leaf size. */
static void all_opened(void) {
  const uint64_t n = 500;
  double *pos = malloc(32 * n);
  cloud(pos, n, 0, 1, 7);
  for (int leaf = 1; leaf <= 16; leaf *= 4) {
    struct gs_tree_args a = tree_args(pos, NULL, n, 1e-6);
    a.leaf = leaf;
    GS_EXPECT(against_direct(a, pos, 100) < 1e-12);
  }
  free(pos);
}

/* 300 bodies at one point and 200 around them: finite, no more than 2n - 1 nodes, accurate. */
static void coincident(void) {
  const uint64_t n = 500;
  double *pos = malloc(32 * n), *acc = calloc(4 * n, sizeof *acc), *ref = calloc(4 * n, sizeof *ref);
  uint64_t counts[GS_TREE_COUNTS] = {0};
  cloud(pos, n, 0, 1, 3);
  for (uint64_t i = 0; i < 300; i++)
    pos[4 * i] = 0.25, pos[4 * i + 1] = -0.125, pos[4 * i + 2] = 0.5;
  struct gs_tree_args a = tree_args(pos, acc, n, 0.5);
  a.counts = counts;
  tree_run(&a);
  direct(&a, pos, 0, n, ref);
  GS_EXPECT(counts[GS_TREE_NODES] >= 1 && counts[GS_TREE_NODES] <= 2 * n - 1);
  GS_EXPECT(counts[GS_TREE_BODY_BODY] > 0 && counts[GS_TREE_BODY_CELL] > 0);
  GS_EXPECT(rel_error(acc, ref, n, 99) < 5e-2);
  /* All at one point: one leaf (no chain of one-child nodes down to the depth limit), no force,
   * the potential of the n - 1 others at distance eps. */
  for (uint64_t i = 0; i < n; i++)
    pos[4 * i] = 0.25, pos[4 * i + 1] = -0.125, pos[4 * i + 2] = 0.5;
  tree_run(&a);
  GS_EXPECT(counts[GS_TREE_NODES] == 1);
  for (uint64_t i = 0; i < n; i++)
    GS_EXPECT(acc[4 * i] == 0 && acc[4 * i + 1] == 0 && acc[4 * i + 2] == 0 &&
              fabs(acc[4 * i + 3] + (double)(n - 1) / (double)n / 0.01) < 1e-9);
  free(pos), free(acc), free(ref);
}

/* Two clusters of radius 1e-6 a distance 1 apart (deep trees, each seen whole from the other). */
static void clusters(void) {
  const uint64_t n = 800;
  double *pos = malloc(32 * n);
  cloud(pos, n / 2, 0, 1e-6, 5);
  cloud(pos + 2 * n, n / 2, 1, 1e-6, 6);
  struct gs_tree_args a = tree_args(pos, NULL, n, 0.5);
  a.eps2 = 1e-16;
  GS_EXPECT(against_direct(a, pos, 99) < 5e-2);
  free(pos);
}

/* The error grows with theta and stays below --force-tol's defaults (docs/tree.md). */
static void thetas(void) {
  const uint64_t n = 2000;
  const double theta[4] = {0.3, 0.5, 0.7, 1.0}, tol[4] = {1e-2, 5e-2, 0.3, 1.0};
  double *pos = malloc(32 * n), prev = 0;
  cloud(pos, n, 0, 1, 11);
  for (int k = 0; k < 4; k++) {
    double e = against_direct(tree_args(pos, NULL, n, theta[k]), pos, 99);
    printf("theta %.1f: 99th percentile %.3e\n", theta[k], e);
    GS_EXPECT(e < tol[k] / 2 && e > prev);
    prev = e;
  }
  free(pos);
}

/* The relative test (previous accelerations = the direct sum's): within a few alpha; the first
 * evaluation of a run is the geometric one whatever acc holds. */
static void relative(void) {
  const uint64_t n = 2000;
  double *pos = malloc(32 * n), *acc = malloc(32 * n), *ref = malloc(32 * n), *geo = malloc(32 * n);
  cloud(pos, n, 0, 1, 13);
  struct gs_tree_args a = tree_args(pos, acc, n, 0.5);
  direct(&a, pos, 0, n, ref);
  a.opening = GS_TREE_RELATIVE, a.first = 0;
  memcpy(acc, ref, 32 * n);
  tree_run(&a);
  double e = rel_error(acc, ref, n, 99);
  printf("relative, alpha 0.005: 99th percentile %.3e\n", e);
  GS_EXPECT(e < 4 * a.alpha);
  a.first = 1, a.acc = geo;
  memset(geo, 0, 32 * n); /* no a_old: the relative test would open everything */
  tree_run(&a);
  struct gs_tree_args g = tree_args(pos, acc, n, 0.5);
  tree_run(&g);
  GS_EXPECT(memcmp(acc, geo, 32 * n) == 0);
  free(pos), free(acc), free(ref), free(geo);
}

/* The cutoff law (no softening, nothing closer than 0.05): exact with every cell opened, close
 * with theta 0.5; pairs inside the cutoff are never part of an accepted cell. */
static void cutoff(void) {
  const uint64_t n = 1500;
  double *pos = malloc(32 * n);
  cloud(pos, n, 0, 1, 17);
  struct gs_tree_args a = tree_args(pos, NULL, n, 1e-6);
  a.law = GS_LAW_CUTOFF, a.eps2 = 0, a.cut2 = 0.05 * 0.05;
  GS_EXPECT(against_direct(a, pos, 100) < 1e-12);
  a.theta = 0.5;
  double e = against_direct(a, pos, 99);
  printf("cutoff law, theta 0.5: 99th percentile %.3e\n", e);
  GS_EXPECT(e < 5e-2);
  free(pos);
}

/* Float positions and results: the double reference of the float positions within float's and
 * the tree's error; the potential too. */
static void single(void) {
  const uint64_t n = 1000;
  double *pos = malloc(32 * n), *ref = malloc(32 * n);
  float *pf = malloc(16 * n), *acc = malloc(16 * n);
  cloud(pos, n, 0, 1, 19);
  for (uint64_t k = 0; k < 4 * n; k++)
    pf[k] = (float)pos[k], pos[k] = pf[k];
  struct gs_tree_args a = tree_args(NULL, NULL, n, 0.3);
  a.precision = 0, a.pos = pf, a.acc = acc;
  tree_run(&a);
  direct(&a, pos, 0, n, ref);
  double worst_phi = 0, *ad = malloc(32 * n);
  for (uint64_t k = 0; k < 4 * n; k++)
    ad[k] = acc[k];
  for (uint64_t i = 0; i < n; i++)
    worst_phi = fmax(worst_phi, fabs(ad[4 * i + 3] - ref[4 * i + 3]) / fabs(ref[4 * i + 3]));
  GS_EXPECT(rel_error(ad, ref, n, 99) < 1e-2);
  GS_EXPECT(worst_phi < 1e-3);
  free(pos), free(ref), free(pf), free(acc), free(ad);
}

/* A slice of targets gets bitwise the forces the whole walk gives them, on one thread or two,
 * every time: each rank builds the same tree and walks its own slice. */
static void deterministic(void) {
  const uint64_t n = 3000, first = 1111, count = 777;
  double *pos = malloc(32 * n), *all = malloc(32 * n), *again = malloc(32 * n), *part = malloc(32 * count);
  cloud(pos, n, 0, 1, 23);
  struct gs_tree_args a = tree_args(pos, all, n, 0.6);
  omp_set_num_threads(2);
  tree_run(&a);
  omp_set_num_threads(1);
  a.acc = again;
  tree_run(&a);
  GS_EXPECT(memcmp(all, again, 32 * n) == 0);
  omp_set_num_threads(2);
  a.acc = part, a.i_first = first, a.i_count = count;
  tree_run(&a);
  GS_EXPECT(memcmp(part, all + 4 * first, 32 * count) == 0);
  free(pos), free(all), free(again), free(part);
}

/* Walks by the tree's order, in three runs of it as three ranks would share it (the last past n:
 * padding), taken back into index order by unsort: bitwise the walk by index, for the whole and for
 * an index slice, with the geometric and with the relative test (a_old from aold by index). */
static void by_order(void) {
  const uint64_t n = 3000, npad = 3072, run = npad / 3, first = 1111, count = 777;
  double *pos = malloc(32 * n), *want = malloc(32 * n), *ts = malloc(32 * npad), *got = malloc(32 * n);
  double *ref = malloc(32 * n), *part = malloc(32 * count);
  cloud(pos, n, 0, 1, 31);
  for (int rel = 0; rel < 2; rel++) {
    struct gs_tree_args a = tree_args(pos, want, n, 0.6);
    direct(&a, pos, 0, n, ref);
    if (rel) a.opening = GS_TREE_RELATIVE, a.first = 0, memcpy(want, ref, 32 * n); /* by index: a_old in acc */
    tree_run(&a);
    size_t bytes = gs_backend_cpu_tree_ops.workspace(NULL, &a);
    a.ws = malloc(bytes), a.ws_bytes = bytes;
    a.targets = GS_TREE_BY_ORDER, a.aold = ref;
    gs_backend_cpu_tree_ops.build(NULL, &a, NULL);
    memset(ts, 0xff, 32 * npad);
    for (uint64_t r = 0; r < 3; r++) {
      a.i_first = r * run, a.i_count = run, a.acc = ts + 4 * r * run;
      gs_backend_cpu_tree_ops.walk(NULL, &a, NULL);
    }
    for (uint64_t k = 4 * n; k < 4 * npad; k++)
      GS_EXPECT(ts[k] == 0); /* padding positions: zeros, never garbage */
    memset(got, 0xff, 32 * n);
    gs_backend_cpu_tree_ops.unsort(NULL, &a, ts, got, 0, n, NULL);
    GS_EXPECT(memcmp(got, want, 32 * n) == 0);
    gs_backend_cpu_tree_ops.unsort(NULL, &a, ts, part, first, count, NULL);
    GS_EXPECT(memcmp(part, want + 4 * first, 32 * count) == 0);
    free(a.ws);
  }
  free(pos), free(want), free(ts), free(got), free(ref), free(part);
}

static int stop_now(void) { return 1; }

/* A stop request abandons the walk (acc untouched), and potential 0 leaves w at 0. */
static void stop_and_potential(void) {
  const uint64_t n = 400;
  double *pos = malloc(32 * n), *acc = malloc(32 * n);
  cloud(pos, n, 0, 1, 29);
  memset(acc, 0, 32 * n);
  struct gs_tree_args a = tree_args(pos, acc, n, 0.5);
  a.stop = stop_now;
  tree_run(&a);
  for (uint64_t k = 0; k < 4 * n; k++)
    GS_EXPECT(acc[k] == 0);
  a.stop = NULL, a.potential = 0;
  tree_run(&a);
  for (uint64_t i = 0; i < n; i++)
    GS_EXPECT(acc[4 * i + 3] == 0 && acc[4 * i] != 0);
  free(pos), free(acc);
}

int main(void) {
  tiny();
  all_opened();
  coincident();
  clusters();
  thetas();
  relative();
  cutoff();
  single();
  deterministic();
  by_order();
  stop_and_potential();
  GS_TEST_DONE();
}
