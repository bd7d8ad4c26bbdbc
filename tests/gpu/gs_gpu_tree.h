/* gs_gpu_tree.h: what the tree's GPU test (test_gpu_tree) and its benchmark (bench_gpu_tree)
 * share: the constants of the force law, Plummer-sphere inputs rounded to the precision under
 * test, the launcher arguments every run starts from, a tree's device buffers, and the error
 * statistics against a reference. Include after cuda_runtime.h and gs_gpu_skip.h (for CK). */
#ifndef GS_GPU_TREE_H
#define GS_GPU_TREE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cuda.h"
#include "gs_gpu_check.h"
#include "gs_gpu_copy.h"

static const double G = 1.0, EPS2 = 0.0025, CUT2 = 1e-4;

/* One test input: npos bodies (x, y, z, m) as doubles already rounded to the precision under
 * test, of which the tree is built over the first n. */
struct input {
  double *b;
  uint64_t n, npos;
  int prec;
};

static inline void round_to(struct input *in)
{
  if (in->prec == 0)
    for (uint64_t k = 0; k < 4 * in->npos; ++k) in->b[k] = (double)(float)in->b[k];
}

/* A Plummer sphere (scale radius 1, truncated at 20) of total mass `mass`, centred at (cx, cy, cz)
 * and shrunk by s, into bodies [k0, k0 + cnt). */
static inline void plummer(double *b, uint64_t k0, uint64_t cnt, double s, double cx, double cy, double cz, double mass)
{
  for (uint64_t k = k0; k < k0 + cnt; ++k) {
    double r;
    do r = 1.0 / sqrt(pow(urand() * 0.999 + 1e-9, -2.0 / 3.0) - 1.0); while (r > 20);
    const double z = 2 * urand() - 1, ph = 2 * M_PI * urand(), q = sqrt(1 - z * z);
    b[4 * k] = cx + s * r * q * cos(ph);
    b[4 * k + 1] = cy + s * r * q * sin(ph);
    b[4 * k + 2] = cz + s * r * z;
    b[4 * k + 3] = mass / (double)cnt;
  }
}

static inline struct input make_input(uint64_t n, uint64_t npos, int prec)
{
  struct input in = {calloc(4 * (npos ? npos : 1), sizeof(double)), n, npos, prec};
  if (!in.b) { fprintf(stderr, "out of memory\n"); exit(1); }
  return in;
}

/* The arguments every test starts from: the whole input as targets, theta 0.5, Plummer. */
static inline struct gs_tree_args tree_args(const struct input *in)
{
  struct gs_tree_args a;
  memset(&a, 0, sizeof a);
  a.precision = in->prec; a.law = GS_LAW_PLUMMER;
  a.n = in->n; a.i_first = 0; a.i_count = in->npos;
  a.potential = 1; a.G = G; a.eps2 = EPS2; a.cut2 = CUT2;
  a.opening = GS_TREE_GEOMETRIC; a.first = 1; a.theta = 0.5; a.alpha = 1e-3;
  return a;
}

/* A tree on the device for one input: positions, results, workspace, counters. */
struct dev {
  void *pos, *acc, *ws;
  uint64_t *counts;
  size_t ws_bytes;
};

static inline struct dev dev_open(struct gs_cuda_ctx *c, const struct input *in, struct gs_tree_args *a)
{
  struct dev d;
  d.pos = to_dev(in->b, 4 * in->npos, in->prec);
  CK(cudaMalloc(&d.acc, (a->i_count ? a->i_count : 1) * (in->prec ? 32 : 16)));
  CK(cudaMemset(d.acc, 0, (a->i_count ? a->i_count : 1) * (in->prec ? 32 : 16)));
  d.ws_bytes = gs_tree_build_workspace(c, a);
  CK(cudaMalloc(&d.ws, d.ws_bytes ? d.ws_bytes : 1));
  CK(cudaMalloc((void **)&d.counts, GS_TREE_COUNTS * sizeof(uint64_t)));
  a->pos = d.pos; a->acc = d.acc; a->ws = d.ws; a->ws_bytes = d.ws_bytes; a->counts = d.counts;
  return d;
}

static inline void dev_close(struct dev *d)
{
  CK(cudaFree(d->pos)); CK(cudaFree(d->acc)); CK(cudaFree(d->ws)); CK(cudaFree(d->counts));
}

/* Error statistics over ni targets: relative acceleration error |da| / |a| (p99 and max), and the
 * largest potential error relative to |phi|. Targets with a = 0 are measured absolutely. */
struct errs {
  double p99, max, phi;
};

static inline int cmp_double(const void *x, const void *y)
{
  const double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static inline struct errs errors(const double *got, const double *want, uint64_t ni)
{
  struct errs e = {0, 0, 0};
  double *rel = malloc(sizeof(double) * (ni ? ni : 1));
  for (uint64_t k = 0; k < ni; ++k) {
    const double *g = got + 4 * k, *w = want + 4 * k;
    const double da = sqrt((g[0] - w[0]) * (g[0] - w[0]) + (g[1] - w[1]) * (g[1] - w[1]) + (g[2] - w[2]) * (g[2] - w[2]));
    const double am = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    rel[k] = am > 0 ? da / am : da;
    if (!(rel[k] == rel[k])) rel[k] = INFINITY; /* NaN fails every bound */
    const double pe = fabs(g[3] - w[3]) / (fabs(w[3]) > 0 ? fabs(w[3]) : 1.0);
    if (!(pe <= e.phi)) e.phi = pe == pe ? pe : INFINITY;
  }
  qsort(rel, ni, sizeof(double), cmp_double);
  if (ni) {
    e.p99 = rel[(uint64_t)floor(0.99 * (double)(ni - 1))];
    e.max = rel[ni - 1];
  }
  free(rel);
  return e;
}

#endif
