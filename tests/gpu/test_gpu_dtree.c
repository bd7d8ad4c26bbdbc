/* The CUDA distributed tree's launchers (cuda/gs_tree_d*.cu) on a GPU, P = 1 to 4 ranks played in
 * one process as the solver plays them (gs_nbody_dtree_let.c): the bodies sorted once, the cells
 * of at most C bodies cut into P contiguous runs, each rank's state sorting and building its
 * cells, every rank's locally essential trees for every other rank taken through the host (as an
 * all-to-all would deliver them), each rank's walk over the merged tree. Checked:
 *   - the keys and the (key, id) order are the CPU backend's bits (ids a random permutation, so
 *     the ties of coincident bodies, short ones and ones too long for the insertion fix, are
 *     broken by id, not by position);
 *   - the forces are the same bits on every P, and within the tree's error of a double direct sum;
 *   - no rank's walk missed a node (the LET is complete), and with the messages dropped they do
 *     (the check can fail);
 *   - ranks without bodies (N = 1, 2, 3 on 3 ranks), the cutoff law, the relative test (a_old the
 *     geometric forces), single and double precision.
 * Exits 77 without a GPU (and in a CPU-only build). */
#include <config.h>
#include "gs_gpu_skip.h"
#ifndef GS_HAVE_CUDA
int main(void) { return gs_gpu_skip("CPU-only build (configured without CUDA)"); }
#else
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gs_backend_cpu_dtree.h"
#include "gs_cuda.h"
#include "gs_gpu_skip.h" /* again, for its CUDA part */
#include "gs_gpu_check.h"
#include "gs_gpu_copy.h"
#include "gs_gpu_ref.h"
#include "gs_gpu_tree.h"

#define PMAX 4

static struct gs_cuda_ctx g_ctx;

static void *dalloc(size_t bytes)
{
  void *p = NULL;
  CK(cudaMalloc(&p, bytes ? bytes : 16));
  return p;
}

/* n bodies' arrays on the device (vectors of vs bytes), or on the host. */
static struct gs_dtree_bodies bodies_new(uint64_t n, int vs, int dev)
{
  struct gs_dtree_bodies b = {.n = n};
  void **p[6] = {&b.pos, &b.vel, &b.acc, (void **)&b.id, (void **)&b.key, (void **)&b.work};
  const size_t row[6] = {(size_t)vs, (size_t)vs, (size_t)vs, 8, 8, 8};
  for (int k = 0; k < 6; k++) *p[k] = dev ? dalloc(row[k] * (n ? n : 1)) : calloc(n ? n : 1, row[k]);
  return b;
}

static void bodies_free(struct gs_dtree_bodies *b, int dev)
{
  void *p[6] = {b->pos, b->vel, b->acc, b->id, b->key, b->work};
  for (int k = 0; k < 6; k++) dev ? (void)cudaFree(p[k]) : free(p[k]);
}

/* Rows [from, from + n) of src into dst (both of the same kind, host to device where asked). */
static void bodies_copy(struct gs_dtree_bodies *dst, const struct gs_dtree_bodies *src, uint64_t from, uint64_t n,
                        int vs, enum cudaMemcpyKind kind)
{
  void *d[6] = {dst->pos, dst->vel, dst->acc, dst->id, dst->key, dst->work};
  const void *s[6] = {src->pos, src->vel, src->acc, src->id, src->key, src->work};
  const size_t row[6] = {(size_t)vs, (size_t)vs, (size_t)vs, 8, 8, 8};
  for (int k = 0; k < 6 && n; k++) CK(cudaMemcpy(d[k], (const char *)s[k] + row[k] * from, row[k] * n, kind));
}

/* The cells: key prefixes of the sorted keys split while they hold more than C bodies (the
 * solver's rule, gs_nbody_dtree_cells.c), into t (key, level, count); at[k]: cell k's first body. */
static void cells(const uint64_t *key, uint64_t lo, uint64_t hi, uint64_t k0, int level, uint64_t C,
                  struct gs_dtree_cell *t, uint64_t *at, int *nc)
{
  if (lo == hi) return;
  if (hi - lo <= C || level == GS_DTREE_LEVELS) {
    memset(&t[*nc], 0, sizeof t[*nc]);
    t[*nc].key = k0, t[*nc].level = level, t[*nc].node.count = hi - lo, at[(*nc)++] = lo;
    return;
  }
  const uint64_t span = (uint64_t)1 << (3 * (GS_DTREE_LEVELS - level - 1));
  uint64_t j = lo;
  for (uint64_t g = 0; g < 8; g++) {
    uint64_t e = j;
    while (e < hi && key[e] < k0 + (g + 1) * span) e++;
    cells(key, j, e, k0 + g * span, level + 1, C, t, at, nc);
    j = e;
  }
}

/* One case's bodies, sorted: on the host by the CPU backend (the reference order), on the device
 * by the launcher; their cells. */
struct sorted {
  struct gs_dtree_bodies h, d; /* host (CPU sort), device (GPU sort) */
  struct gs_dtree_cube cube;
  struct gs_dtree_cell *t;
  uint64_t *at, *orig; /* orig[i]: the input's index of sorted body i */
  int nc, vs;
};

static struct sorted sort_case(const struct input *in, const double *aold, uint64_t C, const char *what)
{
  struct sorted s = {.vs = in->prec ? 32 : 16};
  char msg[160];
  const uint64_t n = in->n;
  struct gs_dtree_bodies u = bodies_new(n, s.vs, 0);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint64_t i = 0; i < n; i++) {
    for (int c = 0; c < 4; c++) {
      const double v = in->b[4 * i + c], w = aold ? aold[4 * i + c] : 0;
      if (in->prec) ((double *)u.pos)[4 * i + c] = v, ((double *)u.acc)[4 * i + c] = w;
      else ((float *)u.pos)[4 * i + c] = (float)v, ((float *)u.acc)[4 * i + c] = (float)w;
      if (c < 3) lo[c] = fmin(lo[c], v), hi[c] = fmax(hi[c], v);
    }
    u.id[i] = i;
  }
  for (uint64_t i = n; i-- > 1;) { /* ids a permutation: ties must go by id, not by position */
    const uint64_t j = (uint64_t)(urand() * (double)(i + 1)), x = u.id[i];
    u.id[i] = u.id[j], u.id[j] = x;
  }
  uint64_t *inv = calloc(n + 1, sizeof *inv);
  for (uint64_t i = 0; i < n; i++) inv[u.id[i]] = i;
  struct gs_dtree_cube cube = {{lo[0], lo[1], lo[2]}, 0};
  for (int c = 0; c < 3; c++) cube.edge = fmax(cube.edge, hi[c] - lo[c]);
  s.cube = cube;
  s.d = bodies_new(n, s.vs, 1);
  bodies_copy(&s.d, &u, 0, n, s.vs, cudaMemcpyHostToDevice);
  s.h = u;
  gs_backend_cpu_dtree_ops.sort(NULL, NULL, in->prec, &cube, &s.h);
  struct gs_tree_dstate *st = NULL;
  CK(gs_tree_dbody_open(&st));
  double m[6];
  CK(gs_tree_dbody_box(st, in->prec, s.d.pos, n, m, NULL));
  snprintf(msg, sizeof msg, "%s: the GPU's box is the bodies' least and greatest coordinates", what);
  expect(m[0] == lo[0] && m[1] == lo[1] && m[2] == lo[2] && -m[3] == hi[0] && -m[4] == hi[1] && -m[5] == hi[2], msg);
  CK(gs_tree_dbody_sort(st, in->prec, &cube, &s.d, NULL));
  gs_tree_dbody_close(st);
  struct gs_dtree_bodies back = bodies_new(n, s.vs, 0);
  bodies_copy(&back, &s.d, 0, n, s.vs, cudaMemcpyDeviceToHost);
  snprintf(msg, sizeof msg, "%s: the GPU's keys, ids and positions in the CPU backend's (key, id) order", what);
  expect(!memcmp(back.key, s.h.key, 8 * n) && !memcmp(back.id, s.h.id, 8 * n) &&
             !memcmp(back.pos, s.h.pos, (size_t)s.vs * n),
         msg);
  bodies_free(&back, 0);
  s.orig = calloc(n + 1, sizeof *s.orig);
  for (uint64_t i = 0; i < n; i++) s.orig[i] = inv[s.h.id[i]];
  free(inv);
  s.t = calloc(n + 1, sizeof *s.t), s.at = calloc(n + 2, sizeof *s.at);
  cells(s.h.key, 0, n, 0, 0, C, s.t, s.at, &s.nc);
  s.at[s.nc] = n;
  return s;
}

/* P ranks over s's cells (rank r: cells [r nc / P, (r + 1) nc / P)): forces into out (host,
 * sorted order, doubles); returns the walks' missing nodes. drop: no message is delivered. */
static uint64_t ranks(struct sorted *s, struct gs_tree_args a, int P, int drop, double *out)
{
  struct gs_tree_dstate *st[PMAX];
  struct gs_dtree_bodies b[PMAX];
  int first[PMAX + 1];
  uint64_t bytes[PMAX][PMAX], missing = 0;
  char *msg[PMAX];
  for (int r = 0; r <= P; r++) first[r] = r * s->nc / P;
  for (int r = 0; r < P; r++) {
    const uint64_t f = s->at[first[r]], n = s->at[first[r + 1]] - f;
    uint64_t *at = calloc((size_t)(first[r + 1] - first[r] + 1), 8);
    for (int k = first[r]; k <= first[r + 1]; k++) at[k - first[r]] = s->at[k] - f, s->t[k].owner = r;
    b[r] = bodies_new(n, s->vs, 1);
    bodies_copy(&b[r], &s->d, f, n, s->vs, cudaMemcpyDeviceToDevice);
    CK(gs_tree_dbody_open(&st[r]));
    CK(gs_tree_dbody_sort(st[r], a.precision, &s->cube, &b[r], NULL)); /* sorted already: it stays so */
    CK(gs_tree_dbuild_launch(&g_ctx, st[r], &a, &b[r], at, s->t + first[r], first[r + 1] - first[r], NULL));
    free(at);
  }
  for (int r = 0; r < P; r++) {
    const void *out_d = NULL;
    uint64_t total = 0;
    CK(gs_tree_dtop_launch(st[r], &a, s->t, s->nc, first[r], r, NULL));
    CK(gs_tree_dlet_launch(&g_ctx, st[r], &a, s->t, first, P, r, bytes[r], &out_d, NULL));
    for (int q = 0; q < P; q++) total += bytes[r][q];
    msg[r] = malloc(total + 1);
    if (total) CK(cudaMemcpy(msg[r], out_d, total, cudaMemcpyDeviceToHost));
  }
  for (int r = 0; r < P; r++) {
    uint64_t rb[PMAX], in = 0, off[PMAX];
    for (int q = 0; q < P; q++) {
      off[q] = 0;
      for (int x = 0; x < r; x++) off[q] += bytes[q][x];
      rb[q] = drop ? 0 : bytes[q][r], in += rb[q];
    }
    char *recv = dalloc(in), *at = recv;
    for (int q = 0; q < P; q++, at += rb[q - 1])
      if (rb[q]) CK(cudaMemcpy(at, msg[q] + off[q], rb[q], cudaMemcpyHostToDevice));
    a.acc = dalloc((size_t)s->vs * (b[r].n ? b[r].n : 1));
    uint64_t miss = 0;
    CK(gs_tree_dmerge_walk(&g_ctx, st[r], &a, s->t, s->nc, first[r], recv, rb, P, &b[r], NULL, &miss, NULL));
    missing += miss;
    from_dev(out + 4 * s->at[first[r]], a.acc, 4 * b[r].n, a.precision);
    CK(cudaFree(a.acc));
    CK(cudaFree(recv));
  }
  for (int r = 0; r < P; r++) gs_tree_dbody_close(st[r]), bodies_free(&b[r], 1), free(msg[r]);
  return missing;
}

static void sorted_free(struct sorted *s)
{
  bodies_free(&s->h, 0), bodies_free(&s->d, 1);
  free(s->t), free(s->at), free(s->orig);
}

/* The case: forces on P = 1 .. pmax ranks the same bits, within tol99 (p99) of the direct sum
 * over every tenth body (of the sorted bodies, as the walk saw them), no node missing; the
 * geometric forces into geo (if not NULL: a_old for a relative case). */
static void run_case(const char *what, const struct input *in, struct gs_tree_args a, uint64_t C, int pmax,
                     double tol99, const double *aold, double *geo)
{
  struct sorted s = sort_case(in, aold, C, what);
  const uint64_t n = in->n;
  double *one = calloc(4 * n + 4, sizeof *one), *many = calloc(4 * n + 4, sizeof *many);
  char msg[200];
  uint64_t miss = ranks(&s, a, 1, 0, one);
  snprintf(msg, sizeof msg, "%s: 1 rank: %llu nodes missing, want 0", what, (unsigned long long)miss);
  expect(miss == 0, msg);
  for (int P = 2; P <= pmax; P++) {
    miss = ranks(&s, a, P, 0, many);
    snprintf(msg, sizeof msg, "%s: %d ranks (%d cells): %llu nodes missing, want 0", what, P, s.nc,
             (unsigned long long)miss);
    expect(miss == 0, msg);
    snprintf(msg, sizeof msg, "%s: %d ranks: the forces are 1 rank's bits", what, P);
    expect(!memcmp(one, many, 4 * sizeof *one * n), msg);
  }
  /* the reference: every tenth sorted body against all, in double, of the positions as stored */
  double *pos = calloc(4 * n + 4, sizeof *pos);
  for (uint64_t i = 0; i < n; i++)
    for (int c = 0; c < 4; c++)
      pos[4 * i + c] = in->prec ? ((double *)s.h.pos)[4 * i + c] : ((float *)s.h.pos)[4 * i + c];
  const uint64_t ns = (n + 9) / 10;
  double *ref = calloc(4 * ns + 4, sizeof *ref), *got = calloc(4 * ns + 4, sizeof *got), *tmp = calloc(4, sizeof *tmp);
  for (uint64_t k = 0; k < ns; k++) {
    gs_ref_direct(pos, a.law == GS_LAW_CUTOFF, a.G, a.eps2, a.cut2, 10 * k, 1, 0, n, tmp, NULL);
    memcpy(ref + 4 * k, tmp, 4 * sizeof *tmp), memcpy(got + 4 * k, one + 40 * k, 4 * sizeof *got);
  }
  const struct errs e = errors(got, ref, ns);
  snprintf(msg, sizeof msg, "%s: p99 relative error %.3g within %.3g of the direct sum (max %.3g)", what, e.p99, tol99,
           e.max);
  expect(e.p99 <= tol99, msg);
  printf("ok? %s: N %llu, %d cells, p99 %.3g, max %.3g\n", what, (unsigned long long)n, s.nc, e.p99, e.max);
  if (geo) /* back into the input's order for the next case's a_old */
    for (uint64_t i = 0; i < n; i++) memcpy(geo + 4 * s.orig[i], one + 4 * i, 4 * sizeof *geo);
  int whole = 0; /* a cell of more than one body: a receiver may need what it has below its root */
  for (int k = 0; k < s.nc; k++) whole |= s.at[k + 1] - s.at[k] > 1;
  if (pmax >= 2 && s.nc >= 2 && whole) { /* the check can fail: no message delivered, the walks miss nodes */
    miss = ranks(&s, a, 2, 1, many);
    snprintf(msg, sizeof msg, "%s: 2 ranks without their messages: %llu nodes missing, want some", what,
             (unsigned long long)miss);
    expect(miss > 0, msg);
  }
  free(one), free(many), free(pos), free(ref), free(got), free(tmp);
  sorted_free(&s);
}

int main(void)
{
  const int skip = gs_gpu_skip_without_device();
  if (skip) return skip;
  CK(cudaSetDevice(0));
  CK(gs_cuda_ctx_init(&g_ctx, 0));
  for (int prec = 0; prec < 2; prec++) {
    char what[96];
    struct input in = make_input(20000, 20000, prec);
    plummer(in.b, 0, in.n, 1.0, 0, 0, 0, 1.0);
    round_to(&in);
    struct gs_tree_args a = tree_args(&in);
    double *geo = calloc(4 * in.n, sizeof *geo);
    snprintf(what, sizeof what, "%s Plummer theta 0.5", prec ? "double" : "single");
    run_case(what, &in, a, 256, PMAX, 4e-3, NULL, geo);
    a.opening = GS_TREE_RELATIVE, a.first = 0, a.alpha = 0.002;
    snprintf(what, sizeof what, "%s Plummer relative alpha 0.002", prec ? "double" : "single");
    run_case(what, &in, a, 256, PMAX, 1e-2, geo, NULL);
    free(geo), free(in.b);
  }
  /* 300 coincident bodies (a run too long for the insertion fix) and 40 (short), in a clump */
  struct input in = make_input(6000, 6000, 0);
  plummer(in.b, 0, in.n, 0.05, 0.3, 0, 0, 1.0);
  for (uint64_t k = 0; k < 340; k++) {
    const uint64_t i = 17 * k + 5;
    in.b[4 * i] = k < 300 ? 0.25 : -0.125, in.b[4 * i + 1] = k < 300 ? -0.125 : 0.5, in.b[4 * i + 2] = 0.5;
  }
  round_to(&in);
  run_case("coincident bodies", &in, tree_args(&in), 64, PMAX, 4e-3, NULL, NULL);
  /* the cutoff law on a uniform cube */
  for (uint64_t k = 0; k < in.n; k++)
    for (int c = 0; c < 3; c++) in.b[4 * k + c] = (double)(float)(urand() - 0.5);
  struct gs_tree_args cut = tree_args(&in);
  cut.law = GS_LAW_CUTOFF, cut.eps2 = 0;
  run_case("cutoff law", &in, cut, 128, PMAX, 1e-2, NULL, NULL);
  free(in.b);
  for (uint64_t n = 1; n <= 3; n++) { /* more ranks than cells: ranks without bodies take part */
    struct input t = make_input(n, n, 1);
    for (uint64_t k = 0; k < 4 * n; k++) t.b[k] = k % 4 == 3 ? 0.5 : urand();
    char what[64];
    snprintf(what, sizeof what, "N = %llu in one cell (a bucket: exact)", (unsigned long long)n);
    run_case(what, &t, tree_args(&t), 16, 3, 1e-12, NULL, NULL);
    snprintf(what, sizeof what, "N = %llu, a body a cell", (unsigned long long)n);
    run_case(what, &t, tree_args(&t), 1, 3, 5e-2, NULL, NULL);
    free(t.b);
  }
  printf("%d checks passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
#endif
