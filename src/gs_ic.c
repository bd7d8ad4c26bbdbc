/* gs_ic.c: initial conditions. Random numbers come from a counter-based generator keyed by
 * (seed, body, draw), so body i is the same on every rank and for every rank count, made alone or
 * with all the others; the centring sums go in blocks of ids (gs_ic.h), so a slice's blocks give
 * the whole generation's sums bit for bit. */
#define _DEFAULT_SOURCE /* M_PI */
#include "gs_ic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gs_ic_alloc(struct gs_bodies *b, uint64_t n) {
  memset(b, 0, sizeof *b);
  b->n = n;
  double **f[] = {&b->x, &b->y, &b->z, &b->vx, &b->vy, &b->vz, &b->m};
  for (int k = 0; k < 7; k++)
    if (!(*f[k] = calloc(n ? n : 1, sizeof(double)))) {
      gs_ic_free(b);
      return -1;
    }
  return 0;
}

void gs_ic_free(struct gs_bodies *b) {
  double *f[] = {b->x, b->y, b->z, b->vx, b->vy, b->vz, b->m};
  for (int k = 0; k < 7; k++) free(f[k]);
  memset(b, 0, sizeof *b);
}

/* Uniform double in [0, 1) for (seed, body, draw): splitmix64 of a combined counter. */
static double gs_ic_uniform01(uint64_t seed, uint64_t body, uint64_t draw) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ (body * 0xd1b54a32d192ed03ULL + draw * 0x8cb92ba72f3d8dd7ULL);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return (double)(x >> 11) * 0x1.0p-53;
}

/* A vector of length r in a uniformly random direction, from draws d and d+1. */
static void gs_ic_isotropic(uint64_t seed, uint64_t i, uint64_t d, double r, double *x, double *y, double *z) {
  double cz = 1.0 - 2.0 * gs_ic_uniform01(seed, i, d), phi = 2.0 * M_PI * gs_ic_uniform01(seed, i, d + 1);
  double s = sqrt(1.0 - cz * cz);
  *x = r * s * cos(phi);
  *y = r * s * sin(phi);
  *z = r * cz;
}

void gs_ic_sums(const struct gs_bodies *b, uint64_t from, uint64_t count, double *s) {
  for (int k = 0; k < GS_IC_SUMS; k++) s[k] = 0;
  for (uint64_t i = from; i < from + count; i++) {
    s[0] += b->m[i];
    s[1] += b->m[i] * b->x[i], s[2] += b->m[i] * b->y[i], s[3] += b->m[i] * b->z[i];
    s[4] += b->m[i] * b->vx[i], s[5] += b->m[i] * b->vy[i], s[6] += b->m[i] * b->vz[i];
    s[7] += (double)(float)b->m[i];
  }
}

void gs_ic_total(const double *blocks, uint64_t nblocks, double *total) {
  for (int k = 0; k < GS_IC_SUMS; k++) total[k] = 0;
  for (uint64_t j = 0; j < nblocks; j++)
    for (int k = 0; k < GS_IC_SUMS; k++) total[k] += blocks[GS_IC_SUMS * j + k];
}

void gs_ic_shift(struct gs_bodies *b, const double *total) {
  double mt = total[0];
  const double *c = total + 1;
  if (mt <= 0) return;
  for (uint64_t i = 0; i < b->n; i++) {
    b->x[i] -= c[0] / mt, b->y[i] -= c[1] / mt, b->z[i] -= c[2] / mt;
    b->vx[i] -= c[3] / mt, b->vy[i] -= c[4] / mt, b->vz[i] -= c[5] / mt;
  }
}

void gs_ic_whole_total(const struct gs_bodies *b, double *total) {
  double s[GS_IC_SUMS];
  for (int k = 0; k < GS_IC_SUMS; k++) total[k] = 0;
  for (uint64_t j = 0; j * GS_IC_BLOCK < b->n; j++) { /* as gs_ic_total adds them: block by block */
    uint64_t from = j * GS_IC_BLOCK;
    gs_ic_sums(b, from, b->n - from < GS_IC_BLOCK ? b->n - from : GS_IC_BLOCK, s);
    for (int k = 0; k < GS_IC_SUMS; k++) total[k] += s[k];
  }
}

void gs_ic_center(struct gs_bodies *b) {
  double total[GS_IC_SUMS];
  gs_ic_whole_total(b, total);
  gs_ic_shift(b, total);
}

void gs_ic_plummer_slice(struct gs_bodies *b, uint64_t seed, uint64_t first, uint64_t n) {
  /* Henon units: scale lengths by 3 pi / 16 and speeds by its inverse square root. */
  const double rscale = 3.0 * M_PI / 16.0, vscale = 1.0 / sqrt(rscale);
#pragma omp parallel for schedule(static)
  for (uint64_t j = 0; j < b->n; j++) {
    uint64_t i = first + j; /* the body's id: its random numbers */
    b->m[j] = 1.0 / (double)n;
    /* Radius from the cumulative mass X1 = r^3 / (1 + r^2)^1.5, capped so r < 22.8. */
    uint64_t d = 0;
    double x1;
    do x1 = gs_ic_uniform01(seed, i, d++);
    while (x1 > 0.999 || x1 == 0.0);
    double r = 1.0 / sqrt(pow(x1, -2.0 / 3.0) - 1.0);
    gs_ic_isotropic(seed, i, 100, r * rscale, &b->x[j], &b->y[j], &b->z[j]);
    /* Speed by von Neumann rejection on g(q) = q^2 (1 - q^2)^3.5, q = v / v_escape. */
    double q, g;
    d = 200;
    do {
      q = gs_ic_uniform01(seed, i, d++);
      g = 0.1 * gs_ic_uniform01(seed, i, d++);
    } while (g > q * q * pow(1.0 - q * q, 3.5));
    double v = q * sqrt(2.0) * pow(1.0 + r * r, -0.25);
    gs_ic_isotropic(seed, i, 1000, v * vscale, &b->vx[j], &b->vy[j], &b->vz[j]);
  }
}

void gs_ic_plummer(struct gs_bodies *b, uint64_t seed) {
  gs_ic_plummer_slice(b, seed, 0, b->n);
  gs_ic_center(b);
}

void gs_ic_disk_slice(struct gs_bodies *b, uint64_t seed, uint64_t first, uint64_t n) {
  (void)n; /* unit masses, whatever the count */
#pragma omp parallel for schedule(static)
  for (uint64_t j = 0; j < b->n; j++) {
    uint64_t i = first + j;
    double r = 32767.0 * 1e-4 * gs_ic_uniform01(seed, i, 0), phi = 2.0 * M_PI * gs_ic_uniform01(seed, i, 1);
    double vv = 10.0 * r * r;
    b->x[j] = r * cos(phi), b->y[j] = r * sin(phi), b->z[j] = 0;
    b->vx[j] = -vv * sin(phi), b->vy[j] = vv * cos(phi), b->vz[j] = 0;
    b->m[j] = 1.0;
  }
}

void gs_ic_disk(struct gs_bodies *b, uint64_t seed) { gs_ic_disk_slice(b, seed, 0, b->n); }

void gs_ic_uniform_slice(struct gs_bodies *b, uint64_t seed, uint64_t first, uint64_t n) {
#pragma omp parallel for schedule(static)
  for (uint64_t j = 0; j < b->n; j++) {
    uint64_t i = first + j;
    double r = cbrt(gs_ic_uniform01(seed, i, 0));
    gs_ic_isotropic(seed, i, 1, r, &b->x[j], &b->y[j], &b->z[j]);
    b->vx[j] = b->vy[j] = b->vz[j] = 0;
    b->m[j] = 1.0 / (double)n;
  }
}

void gs_ic_uniform(struct gs_bodies *b, uint64_t seed) {
  gs_ic_uniform_slice(b, seed, 0, b->n);
  gs_ic_center(b);
}
