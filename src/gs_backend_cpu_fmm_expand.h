/* gs_backend_cpu_fmm_expand.h: the CPU backend's Cartesian expansions of the softened potential
 * g(r) = 1 / sqrt(|r|^2 + eps^2) to order p, in double (docs/fmm.md, "Method"). A coefficient is
 * a multi-index k = (a, b, c) of degree |k| = a + b + c <= p, stored in order of degree; x^k is
 * x^a y^b z^c and k! is a! b! c!. About a cell's centre z:
 *   multipole   M^k = sum_j m_j (y_j - z)^k / k!          (the cell's bodies y_j)
 *   local       T^k, the potential near z being -G sum_k T^k (x - z)^k
 * and the cell-cell interaction of A and B (R = z_A - z_B, D_k the k-th derivative of g at R):
 *   T_A^k += (1 / k!) sum_j (-1)^|j| D_{k+j} M_B^j,   T_B^k += ((-1)^|k| / k!) sum_j D_{k+j} M_A^j
 * over |k| + |j| <= p, from one D for both sides (D_k(-R) = (-1)^|k| D_k(R)). Truncating both at
 * the same total degree makes the forces the two sides' bodies receive sum to zero exactly in
 * exact arithmetic (Dehnen 2000), whatever the order and the centres: momentum is kept to
 * round-off. Each loop runs over fixed tables in a fixed order, so the bits depend only on the
 * inputs. */
#ifndef GS_BACKEND_CPU_FMM_EXPAND_H
#define GS_BACKEND_CPU_FMM_EXPAND_H

#include <stdint.h>

#include "gs_fmm.h"

/* Coefficients of order GS_FMM_ORDER_MAX: (p + 1)(p + 2)(p + 3) / 6. */
#define GS_FMM_EXPAND_NC_MAX 165
/* (k, j) pairs with |k| + |j| <= GS_FMM_ORDER_MAX: (p + 6)! / (p! 6!). */
#define GS_FMM_EXPAND_PAIRS_MAX 3003
/* (j <= k) pairs of the shifts at that order: (j, k - j) with |j| + |k - j| <= p, as many. */
#define GS_FMM_EXPAND_SHIFTS_MAX 3003

/* The index tables of one order, made once (gs_backend_cpu_fmm_expand_plan). */
struct gs_fmm_expand {
  int order, nc;                           /* p and its coefficients */
  int nc1;                                 /* coefficients of degree <= p - 1 */
  uint8_t mi[GS_FMM_EXPAND_NC_MAX][3];     /* each coefficient's multi-index */
  double inv_fact[GS_FMM_EXPAND_NC_MAX];   /* 1 / k! */
  double sign[GS_FMM_EXPAND_NC_MAX];       /* (-1)^|k| */
  /* The recurrences of degree |k| >= 1 along one axis dir[k]: up[k] = k - e_dir, up2[k] = k -
   * 2 e_dir (0 when k_dir < 2), kd[k] = k_dir. */
  int up[GS_FMM_EXPAND_NC_MAX], up2[GS_FMM_EXPAND_NC_MAX], dir[GS_FMM_EXPAND_NC_MAX];
  double kd[GS_FMM_EXPAND_NC_MAX];
  int down[GS_FMM_EXPAND_NC_MAX][3];       /* k - e_d, -1 where k_d = 0 (the gradient of x^k) */
  /* The cell-cell pairs: for k, entries [m2l_at[k], m2l_at[k + 1]) of (j, k + j). */
  int m2l_at[GS_FMM_EXPAND_NC_MAX + 1];
  int m2l_j[GS_FMM_EXPAND_PAIRS_MAX], m2l_kj[GS_FMM_EXPAND_PAIRS_MAX];
  /* The shifts: for k, entries [sh_at[k], sh_at[k + 1]) of (j <= k, k - j, the binomial k! / (j! (k - j)!)). */
  int sh_at[GS_FMM_EXPAND_NC_MAX + 1];
  int sh_j[GS_FMM_EXPAND_SHIFTS_MAX], sh_kj[GS_FMM_EXPAND_SHIFTS_MAX];
  double sh_binom[GS_FMM_EXPAND_SHIFTS_MAX];
};

/* The tables of order p (GS_FMM_ORDER_MIN..MAX) into e. */
void gs_backend_cpu_fmm_expand_plan(struct gs_fmm_expand *e, int order);

/* Multipole M (nc, added to) of the bodies x, y, z, m [0, count) about z0. */
void gs_backend_cpu_fmm_expand_p2m(const struct gs_fmm_expand *e, const double *x, const double *y, const double *z,
                                   const double *m, uint64_t count, const double z0[3], double *M);

/* A child's multipole Mc about its centre, added to its parent's Mp; d = child's centre - parent's. */
void gs_backend_cpu_fmm_expand_m2m(const struct gs_fmm_expand *e, const double *Mc, const double d[3], double *Mp);

/* The mutual cell-cell interaction of A and B at R = z_A - z_B: both locals TA and TB added to. */
void gs_backend_cpu_fmm_expand_m2l(const struct gs_fmm_expand *e, const double R[3], double eps2, const double *MA,
                                   const double *MB, double *TA, double *TB);

/* A parent's local Tp moved to its child's centre and added to Tc; d = child's centre - parent's. */
void gs_backend_cpu_fmm_expand_l2l(const struct gs_fmm_expand *e, const double *Tp, const double d[3], double *Tc);

/* The local T at offset u from its centre: acceleration / G and potential / G added to out[4]. */
void gs_backend_cpu_fmm_expand_l2p(const struct gs_fmm_expand *e, const double *T, const double u[3], double out[4]);

/* The derivatives D_k of g at R for |k| <= p into D (nc): the tests' view of the kernel. */
void gs_backend_cpu_fmm_expand_derivs(const struct gs_fmm_expand *e, const double R[3], double eps2, double *D);

#endif
