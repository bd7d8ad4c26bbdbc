/* The CPU backend's fast multipole method against a double-precision direct sum:
 * - the expansions alone (P2M, M2M, M2L, L2L, L2P) between two clusters at every order 1..8:
 *   the error falls with the order, and the two clusters' forces sum to zero to round-off (each
 *   interaction is mutual);
 * - whole evaluations on a Plummer sphere at every order: the 99th percentile error below the
 *   usual tolerance of gs_nbody_options_fmm_tol, and at orders 2, 4, 6, 8 each below the last;
 * - total momentum sum m a at round-off; 1 and 3 threads, and two evaluations, bitwise the same;
 * - n = 0, 1, 2 exact; coincident bodies (no hang, finite); float positions; the stop hook;
 * - the solver table's check: a backend without FMM primitives (CUDA's) and the cutoff law are
 *   usage errors, whatever machine runs the test. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend_cpu.h"
#include "gs_backend_cpu_fmm_expand.h"
#include "gs_ic.h"
#include "gs_nbody_options.h"
#include "gs_nbody_solver.h"
#include "gs_test.h"

static const struct gs_fmm_ops *ops = &gs_backend_cpu_fmm_ops;

/* One evaluation of the first n bodies of pos into acc (index order). */
static void fmm_run(const void *pos, int precision, uint64_t n, int order, double theta, double eps2, void *acc,
                    uint64_t *counts) {
  struct gs_ctx c;
  memset(&c, 0, sizeof c);
  void *t = ops->open(&c);
  struct gs_fmm_args a = {.precision = precision, .pos = pos, .n = n, .potential = 1, .G = 1, .eps2 = eps2,
                          .order = order, .theta = theta, .counts = counts};
  ops->build(&c, t, &a, NULL), ops->upward(&c, t, &a, NULL), ops->interact(&c, t, &a, NULL);
  ops->downward(&c, t, &a, NULL), ops->unsort(&c, t, &a, acc, 0, n, NULL);
  ops->close(&c, t);
}

/* Body i's direct sum over pos[0, n) (softened by eps2) into r[4]. */
static void direct(const double *pos, uint64_t n, uint64_t i, double eps2, double r[4]) {
  memset(r, 0, 4 * sizeof *r);
  for (uint64_t j = 0; j < n; j++) {
    if (j == i) continue;
    double d[3] = {pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2]};
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2, inv = 1 / sqrt(r2);
    for (int k = 0; k < 3; k++)
      r[k] += pos[4 * j + 3] * d[k] * inv * inv * inv;
    r[3] -= pos[4 * j + 3] * inv;
  }
}

static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The 99th percentile of |a - a_ref| / |a_ref| over every k-th body. */
static double p99(const double *pos, const double *acc, uint64_t n, double eps2, uint64_t k) {
  uint64_t m = 0;
  double *e = malloc(sizeof *e * (n / k + 1));
  for (uint64_t i = 0; i < n; i += k) {
    double r[4], d2 = 0, r2 = 0;
    direct(pos, n, i, eps2, r);
    for (int c = 0; c < 3; c++)
      d2 += (acc[4 * i + c] - r[c]) * (acc[4 * i + c] - r[c]), r2 += r[c] * r[c];
    e[m++] = sqrt(d2 / r2);
  }
  qsort(e, m, sizeof *e, cmp);
  double v = e[(uint64_t)ceil(0.99 * (double)m) - 1];
  free(e);
  return v;
}

/* |sum m a| / sum |m a|: the momentum the forces change, against its scale. */
static double momentum(const double *pos, const double *acc, uint64_t n) {
  double s[3] = {0, 0, 0}, scale = 0;
  for (uint64_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++)
      s[c] += pos[4 * i + 3] * acc[4 * i + c], scale += fabs(pos[4 * i + 3] * acc[4 * i + c]);
  return sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) / scale;
}

/* Two clusters of 20 bodies (radius 0.5) at distance 3: each one's multipole (P2M about its
 * centre, then M2M to a shifted centre), M2L both ways, L2L to a shifted centre and L2P at its
 * bodies, against the direct sum between them. */
static void test_expansions(void) {
  static struct gs_fmm_expand e;
  double b[2][20][4], last = 1;
  for (int c = 0; c < 2; c++)
    for (int j = 0; j < 20; j++) {
      double u = (j * 0.618034) - floor(j * 0.618034), v = (j * 0.414214) - floor(j * 0.414214);
      b[c][j][0] = 3.0 * c + 0.5 * (u - 0.5), b[c][j][1] = 0.5 * (v - 0.5), b[c][j][2] = 0.5 * (u * v - 0.25);
      b[c][j][3] = 1 + 0.1 * j;
    }
  for (int p = GS_FMM_ORDER_MIN; p <= GS_FMM_ORDER_MAX; p++) {
    gs_backend_cpu_fmm_expand_plan(&e, p);
    double M[2][GS_FMM_EXPAND_NC_MAX], Mc[GS_FMM_EXPAND_NC_MAX], T[2][GS_FMM_EXPAND_NC_MAX], Tc[GS_FMM_EXPAND_NC_MAX];
    double z[2][3] = {{0.02, -0.01, 0.01}, {3.01, 0.02, -0.02}}, zc[3] = {0, 0, 0}, d[3];
    double err = 0, scale = 0, P[3] = {0, 0, 0}, Pscale = 0;
    for (int c = 0; c < 2; c++) {
      double x[20], y[20], zz[20], m[20];
      for (int j = 0; j < 20; j++)
        x[j] = b[c][j][0], y[j] = b[c][j][1], zz[j] = b[c][j][2], m[j] = b[c][j][3];
      memset(Mc, 0, sizeof Mc), memset(M[c], 0, sizeof M[c]);
      zc[0] = 3.0 * c; /* P2M about the cluster's middle, M2M to z[c] */
      gs_backend_cpu_fmm_expand_p2m(&e, x, y, zz, m, 20, zc, Mc);
      for (int k = 0; k < 3; k++)
        d[k] = zc[k] - z[c][k];
      gs_backend_cpu_fmm_expand_m2m(&e, Mc, d, M[c]);
    }
    const double R[3] = {z[0][0] - z[1][0], z[0][1] - z[1][1], z[0][2] - z[1][2]};
    memset(T, 0, sizeof T);
    gs_backend_cpu_fmm_expand_m2l(&e, R, 0, M[0], M[1], T[0], T[1]);
    for (int c = 0; c < 2; c++) {
      memset(Tc, 0, sizeof Tc);
      zc[0] = 3.0 * c;
      for (int k = 0; k < 3; k++)
        d[k] = zc[k] - z[c][k];
      gs_backend_cpu_fmm_expand_l2l(&e, T[c], d, Tc);
      for (int j = 0; j < 20; j++) {
        double out[4] = {0, 0, 0, 0}, u[3] = {b[c][j][0] - zc[0], b[c][j][1] - zc[1], b[c][j][2] - zc[2]}, r[3] = {0};
        gs_backend_cpu_fmm_expand_l2p(&e, Tc, u, out);
        for (int i = 0; i < 20; i++) {
          const double *s = b[1 - c][i];
          double dd[3] = {s[0] - b[c][j][0], s[1] - b[c][j][1], s[2] - b[c][j][2]};
          double inv = 1 / sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
          for (int k = 0; k < 3; k++)
            r[k] += s[3] * dd[k] * inv * inv * inv;
        }
        for (int k = 0; k < 3; k++) {
          err += (out[k] - r[k]) * (out[k] - r[k]), scale += r[k] * r[k];
          P[k] += b[c][j][3] * out[k], Pscale += fabs(b[c][j][3] * out[k]);
        }
      }
    }
    err = sqrt(err / scale);
    double mom = sqrt(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]) / Pscale;
    printf("expansions, order %d: rms error %.2e, |sum m a| / sum |m a| %.1e\n", p, err, mom);
    GS_EXPECT(err < 0.6 * last); /* (r_A + r_B) / R is about 1/4 here: each order gains */
    GS_EXPECT(err < pow(0.35, p));
    GS_EXPECT(mom < 1e-14);
    last = err;
  }
}

/* A Plummer sphere of n bodies as (x, y, z, m) rows. */
static double *plummer(uint64_t n) {
  struct gs_bodies b;
  memset(&b, 0, sizeof b);
  GS_EXPECT(gs_ic_alloc(&b, n) == 0);
  gs_ic_plummer(&b, 7);
  double *pos = malloc(32 * n);
  for (uint64_t i = 0; i < n; i++)
    pos[4 * i] = b.x[i], pos[4 * i + 1] = b.y[i], pos[4 * i + 2] = b.z[i], pos[4 * i + 3] = b.m[i];
  gs_ic_free(&b);
  return pos;
}

static void test_orders(void) {
  const uint64_t n = 6000;
  const double eps2 = 0.05 * 0.05;
  double *pos = plummer(n), *acc = malloc(32 * n), last = 1;
  struct gs_nbody_opts o;
  memset(&o, 0, sizeof o);
  for (int p = GS_FMM_ORDER_MIN; p <= GS_FMM_ORDER_MAX; p++) {
    uint64_t cnt[GS_FMM_COUNTS] = {0};
    fmm_run(pos, 1, n, p, 0.5, eps2, acc, cnt);
    double e = p99(pos, acc, n, eps2, 7), mom = momentum(pos, acc, n);
    o.fmm_order = p, o.fmm_theta = 0.5;
    double tol = gs_nbody_options_fmm_tol(&o);
    printf("plummer %llu, order %d, theta 0.5: p99 %.2e (usual tolerance %.1e), momentum %.1e, m2l %llu, p2p %llu, "
           "cells %llu, tasks %llu\n",
           (unsigned long long)n, p, e, tol, mom, (unsigned long long)cnt[GS_FMM_M2L],
           (unsigned long long)cnt[GS_FMM_P2P], (unsigned long long)cnt[GS_FMM_CELLS],
           (unsigned long long)cnt[GS_FMM_TASKS]);
    GS_EXPECT(e < tol);
    GS_EXPECT(mom < 1e-14);
    GS_EXPECT(cnt[GS_FMM_M2L] > 0 && cnt[GS_FMM_P2P] > 0 && cnt[GS_FMM_TASKS] > 1);
    if (p % 2 == 0) {
      GS_EXPECT(e < 0.5 * last);
      last = e;
    }
  }
  free(pos), free(acc);
}

/* The same bits on 1 and 3 threads and on a second evaluation; float positions give what their
 * double values give, rounded once. */
static void test_bits(void) {
  const uint64_t n = 20000;
  double *pos = plummer(n), *a1 = malloc(32 * n), *a3 = malloc(32 * n);
  float *pf = malloc(16 * n), *af = malloc(16 * n);
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  fmm_run(pos, 1, n, 4, 0.6, 1e-4, a1, NULL);
  omp_set_num_threads(3);
  fmm_run(pos, 1, n, 4, 0.6, 1e-4, a3, NULL);
  GS_EXPECT(memcmp(a1, a3, 32 * n) == 0);
  fmm_run(pos, 1, n, 4, 0.6, 1e-4, a3, NULL);
  GS_EXPECT(memcmp(a1, a3, 32 * n) == 0);
  omp_set_num_threads(threads);
  for (uint64_t i = 0; i < 4 * n; i++)
    pf[i] = (float)pos[i], pos[i] = pf[i];
  fmm_run(pos, 1, n, 4, 0.6, 1e-4, a1, NULL);
  fmm_run(pf, 0, n, 4, 0.6, 1e-4, af, NULL);
  int same = 1;
  for (uint64_t i = 0; i < 4 * n; i++)
    same &= af[i] == (float)a1[i];
  GS_EXPECT(same);
  printf("bits: 1 and 3 threads, two evaluations and float positions: %s\n", same ? "the same" : "DIFFERENT");
  free(pos), free(a1), free(a3), free(pf), free(af);
}

/* Few bodies: exact (every pair direct); coincident bodies: finite, no hang. */
static void test_small(void) {
  double pos[4 * 300], acc[4 * 300], r[4];
  for (uint64_t n = 0; n <= 2; n++) {
    for (uint64_t i = 0; i < 4 * n; i++)
      pos[i] = 0.3 * (double)i + 1;
    fmm_run(pos, 1, n, 3, 0.5, 1e-4, acc, NULL);
    for (uint64_t i = 0; i < n; i++) {
      direct(pos, n, i, 1e-4, r);
      for (int c = 0; c < 4; c++)
        GS_EXPECT(fabs(acc[4 * i + c] - r[c]) <= 1e-14 * (fabs(r[c]) + 1e-300));
    }
  }
  for (int i = 0; i < 300; i++)
    pos[4 * i] = pos[4 * i + 1] = pos[4 * i + 2] = i < 200 ? 0.5 : 0.5 + 1e-300 * i, pos[4 * i + 3] = 1;
  fmm_run(pos, 1, 300, 5, 0.5, 1e-4, acc, NULL);
  int finite = 1;
  for (int i = 0; i < 4 * 300; i++)
    finite &= isfinite(acc[i]);
  GS_EXPECT(finite);
}

/* A stop request makes the walk abandon its tasks. */
static int stop_now(void) { return 1; }

static void test_stop(void) {
  const uint64_t n = 5000;
  double *pos = plummer(n), *acc = malloc(32 * n);
  struct gs_ctx c;
  memset(&c, 0, sizeof c);
  uint64_t cnt[GS_FMM_COUNTS] = {0}, all[GS_FMM_COUNTS] = {0};
  fmm_run(pos, 1, n, 4, 0.5, 1e-4, acc, all);
  void *t = ops->open(&c);
  struct gs_fmm_args a = {.precision = 1, .pos = pos, .n = n, .G = 1, .eps2 = 1e-4, .order = 4, .theta = 0.5,
                          .counts = cnt, .stop = stop_now};
  ops->build(&c, t, &a, NULL), ops->upward(&c, t, &a, NULL), ops->interact(&c, t, &a, NULL);
  /* only the top's walk, before the tasks */
  GS_EXPECT(cnt[GS_FMM_P2P] < all[GS_FMM_P2P] / 2 && cnt[GS_FMM_M2L] < all[GS_FMM_M2L] / 2);
  ops->close(&c, t);
  free(pos), free(acc);
}

/* --solver fmm's table: found by its id, refused (a usage error with its message) on a backend whose
 * fmm table is NULL, as CUDA's is, and under the cutoff law. */
static void test_check(void) {
  const struct gs_nbody_solver *sv = gs_nbody_solver_find(GS_NBODY_FMM);
  GS_EXPECT(sv && strcmp(sv->name, "fmm") == 0 && sv->rank_exact && sv->momentum_tol);
  if (!sv) return;
  struct gs_backend none = gs_backend_cpu_ops;
  none.name = "cuda", none.fmm = NULL;
  struct gs_nbody_job job = {.be = &none, .law = GS_LAW_PLUMMER};
  struct gs_msg msg = {{0}};
  GS_EXPECT(sv->check(&job, &msg) == GS_USAGE);
  GS_EXPECT(strstr(msg.text, "--solver fmm: the cuda backend has no fast multipole solver") != NULL);
  GS_EXPECT(sv->runs_on && !sv->runs_on(&none) && sv->runs_on(&gs_backend_cpu_ops));
  job.be = &gs_backend_cpu_ops, job.law = GS_LAW_CUTOFF;
  GS_EXPECT(sv->check(&job, &msg) == GS_USAGE && strstr(msg.text, "cutoff force law") != NULL);
  printf("check: %s\n", msg.text);
}

int main(void) {
  test_check();
  test_expansions();
  test_orders();
  test_bits();
  test_small();
  test_stop();
  GS_TEST_DONE();
}
