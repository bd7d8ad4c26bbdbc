/* gs_backend_cpu_fmm_expand.c: the CPU backend's Cartesian expansions (gs_backend_cpu_fmm_expand.h):
 * index tables made once per order, then every operator a loop over them. The kernel's
 * derivatives come from the recurrence of McMurchie and Davidson for a function of |R|^2:
 * with F_n = 2^n f^(n)(|R|^2) = (-1)^n (2n - 1)!! s^-(2n + 1), s^2 = |R|^2 + eps^2, and
 * R^(n)_k the k-th derivative of F_n, R^(n)_{k + e_d} = R_d R^(n+1)_k + k_d R^(n+1)_{k - e_d};
 * D_k = R^(0)_k. Softening only changes s, so the same code serves eps = 0 (FMM3D's kernel). */
#include "gs_backend_cpu_fmm_expand.h"

#include <math.h>
#include <string.h>

/* Coefficients of degree <= p. */
static int gs_cpu_fmm_expand_count(int p) { return p < 0 ? 0 : (p + 1) * (p + 2) * (p + 3) / 6; }

void gs_backend_cpu_fmm_expand_plan(struct gs_fmm_expand *e, int order) {
  int idx[GS_FMM_ORDER_MAX + 1][GS_FMM_ORDER_MAX + 1][GS_FMM_ORDER_MAX + 1];
  memset(e, 0, sizeof *e);
  memset(idx, -1, sizeof idx);
  e->order = order, e->nc = gs_cpu_fmm_expand_count(order), e->nc1 = gs_cpu_fmm_expand_count(order - 1);
  int k = 0;
  for (int n = 0; n <= order; n++) /* by degree, then a falling, then b falling */
    for (int a = n; a >= 0; a--)
      for (int b = n - a; b >= 0; b--) {
        int c = n - a - b;
        e->mi[k][0] = (uint8_t)a, e->mi[k][1] = (uint8_t)b, e->mi[k][2] = (uint8_t)c;
        idx[a][b][c] = k++;
      }
  static const double fact[GS_FMM_ORDER_MAX + 1] = {1, 1, 2, 6, 24, 120, 720, 5040, 40320};
  for (k = 0; k < e->nc; k++) {
    const uint8_t *q = e->mi[k];
    int n = q[0] + q[1] + q[2];
    e->inv_fact[k] = 1 / (fact[q[0]] * fact[q[1]] * fact[q[2]]);
    e->sign[k] = n % 2 ? -1 : 1;
    for (int d = 0; d < 3; d++) {
      int r[3] = {q[0], q[1], q[2]};
      r[d]--;
      e->down[k][d] = q[d] ? idx[r[0]][r[1]][r[2]] : -1;
    }
    if (!n) continue;
    int d = q[0] ? 0 : q[1] ? 1 : 2, r[3] = {q[0], q[1], q[2]};
    e->dir[k] = d, e->kd[k] = q[d];
    r[d]--;
    e->up[k] = idx[r[0]][r[1]][r[2]];
    r[d]--;
    e->up2[k] = r[d] >= 0 ? idx[r[0]][r[1]][r[2]] : 0;
  }
  int m = 0, s = 0;
  for (k = 0; k < e->nc; k++) {
    const uint8_t *q = e->mi[k];
    int n = q[0] + q[1] + q[2];
    e->m2l_at[k] = m, e->sh_at[k] = s;
    for (int j = 0; j < gs_cpu_fmm_expand_count(order - n); j++) { /* |k| + |j| <= p */
      const uint8_t *w = e->mi[j];
      e->m2l_j[m] = j, e->m2l_kj[m++] = idx[q[0] + w[0]][q[1] + w[1]][q[2] + w[2]];
    }
    for (int j = 0; j < e->nc; j++) { /* j <= k componentwise */
      const uint8_t *w = e->mi[j];
      if (w[0] > q[0] || w[1] > q[1] || w[2] > q[2]) continue;
      double b = 1;
      for (int d = 0; d < 3; d++)
        b *= fact[q[d]] / (fact[w[d]] * fact[q[d] - w[d]]);
      e->sh_j[s] = j, e->sh_kj[s] = idx[q[0] - w[0]][q[1] - w[1]][q[2] - w[2]], e->sh_binom[s++] = b;
    }
  }
  e->m2l_at[e->nc] = m, e->sh_at[e->nc] = s;
}

/* The monomials x^k (plain) or x^k / k! (fact) of v for |k| <= p - less into w. */
static void gs_cpu_fmm_expand_powers(const struct gs_fmm_expand *e, const double v[3], int less, int fact, double *w) {
  int nc = gs_cpu_fmm_expand_count(e->order - less);
  w[0] = 1;
  for (int k = 1; k < nc; k++)
    w[k] = fact ? w[e->up[k]] * v[e->dir[k]] / e->kd[k] : w[e->up[k]] * v[e->dir[k]];
}

void gs_backend_cpu_fmm_expand_p2m(const struct gs_fmm_expand *e, const double *x, const double *y, const double *z,
                                   const double *m, uint64_t count, const double z0[3], double *M) {
  double w[GS_FMM_EXPAND_NC_MAX];
  for (uint64_t j = 0; j < count; j++) {
    const double v[3] = {x[j] - z0[0], y[j] - z0[1], z[j] - z0[2]};
    gs_cpu_fmm_expand_powers(e, v, 0, 1, w);
    for (int k = 0; k < e->nc; k++)
      M[k] += m[j] * w[k];
  }
}

void gs_backend_cpu_fmm_expand_m2m(const struct gs_fmm_expand *e, const double *Mc, const double d[3], double *Mp) {
  double w[GS_FMM_EXPAND_NC_MAX];
  gs_cpu_fmm_expand_powers(e, d, 0, 1, w);
  /* (v' + d)^k / k! = sum_{j <= k} v'^j / j! d^(k - j) / (k - j)! */
  for (int k = 0; k < e->nc; k++) {
    double sum = 0;
    for (int s = e->sh_at[k]; s < e->sh_at[k + 1]; s++)
      sum += Mc[e->sh_j[s]] * w[e->sh_kj[s]];
    Mp[k] += sum;
  }
}

void gs_backend_cpu_fmm_expand_derivs(const struct gs_fmm_expand *e, const double R[3], double eps2, double *D) {
  const int p = e->order;
  double buf[2][GS_FMM_EXPAND_NC_MAX], F[GS_FMM_ORDER_MAX + 1];
  double s2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2] + eps2, inv2 = 1 / s2;
  F[0] = sqrt(inv2);
  for (int n = 1; n <= p; n++)
    F[n] = -(2 * n - 1) * F[n - 1] * inv2;
  /* R^(n) for |k| <= p - n from R^(n + 1), n from p down to 0: two rows alternate */
  for (int n = p; n >= 0; n--) {
    double *cur = n == 0 ? D : buf[n % 2];
    const double *next = buf[(n + 1) % 2];
    int nc = gs_cpu_fmm_expand_count(p - n);
    cur[0] = F[n];
    for (int k = 1; k < nc; k++)
      cur[k] = R[e->dir[k]] * next[e->up[k]] + (e->kd[k] - 1) * next[e->up2[k]];
  }
}

void gs_backend_cpu_fmm_expand_m2l(const struct gs_fmm_expand *e, const double R[3], double eps2, const double *MA,
                                   const double *MB, double *TA, double *TB) {
  double D[GS_FMM_EXPAND_NC_MAX], sMB[GS_FMM_EXPAND_NC_MAX];
  gs_backend_cpu_fmm_expand_derivs(e, R, eps2, D);
  for (int j = 0; j < e->nc; j++)
    sMB[j] = e->sign[j] * MB[j];
  for (int k = 0; k < e->nc; k++) {
    /* j runs over 0 .. count - 1 (the degrees <= p - |k|): contiguous, so vector lanes share it */
    const int *kj = e->m2l_kj + e->m2l_at[k], count = e->m2l_at[k + 1] - e->m2l_at[k];
    double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
    for (int j = 0; j < count; j++) {
      const double d = D[kj[j]];
      a += d * sMB[j], b += d * MA[j];
    }
    TA[k] += e->inv_fact[k] * a;
    TB[k] += e->sign[k] * e->inv_fact[k] * b;
  }
}

void gs_backend_cpu_fmm_expand_l2l(const struct gs_fmm_expand *e, const double *Tp, const double d[3], double *Tc) {
  double w[GS_FMM_EXPAND_NC_MAX], add[GS_FMM_EXPAND_NC_MAX] = {0};
  gs_cpu_fmm_expand_powers(e, d, 0, 0, w);
  /* (u' + d)^k = sum_{j <= k} binom(k, j) u'^j d^(k - j) */
  for (int k = 0; k < e->nc; k++)
    for (int s = e->sh_at[k]; s < e->sh_at[k + 1]; s++)
      add[e->sh_j[s]] += Tp[k] * e->sh_binom[s] * w[e->sh_kj[s]];
  for (int k = 0; k < e->nc; k++)
    Tc[k] += add[k];
}

void gs_backend_cpu_fmm_expand_l2p(const struct gs_fmm_expand *e, const double *T, const double u[3], double out[4]) {
  double w[GS_FMM_EXPAND_NC_MAX], a[3] = {0, 0, 0}, phi = 0;
  gs_cpu_fmm_expand_powers(e, u, 0, 0, w);
  for (int k = 0; k < e->nc; k++) {
    phi += T[k] * w[k];
    for (int d = 0; d < 3; d++)
      if (e->down[k][d] >= 0) a[d] += e->mi[k][d] * T[k] * w[e->down[k][d]];
  }
  /* the potential -G sum T^k u^k, the acceleration its negative gradient */
  for (int d = 0; d < 3; d++)
    out[d] += a[d];
  out[3] -= phi;
}
