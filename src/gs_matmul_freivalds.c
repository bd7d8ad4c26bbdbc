/* gs_matmul_freivalds.c: Freivalds' test of the whole product (see the header). */
#include "gs_matmul_freivalds.h"

#include <math.h>
#include <stdlib.h>

#define GS_V GS_MATMUL_FREIVALDS_VECTORS

static double *gs_matmul_freivalds_zeros(const struct gs_matmul_job *job, uint64_t n) {
  double *p = calloc(n ? n : 1, sizeof *p);
  if (!p) GS_DIE(&job->run->where, "calloc", "out of memory");
  return p;
}

/* Sum a vector over all ranks, in place (each rank filled its own entries; MPI counts are ints,
 * so in pieces). */
static void gs_matmul_freivalds_sum(const struct gs_matmul_job *job, double *v, uint64_t n) {
  for (uint64_t at = 0; at < n; at += 1 << 28) {
    int count = (int)(n - at < (1 << 28) ? n - at : 1 << 28);
    GS_CHECK_MPI(&job->run->where, MPI_Allreduce(MPI_IN_PLACE, v + at, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  }
}

/* z[v K + k] = (B x_v)_k and z[V K + k] = (|B| 1)_k, over all ranks; x[v nloc + j]: this rank's x. */
static double *gs_matmul_freivalds_bx(const struct gs_matmul_job *job, const double *x) {
  const uint64_t K = job->o->k;
  double *z = gs_matmul_freivalds_zeros(job, (GS_V + 1) * K);
#pragma omp parallel for schedule(static)
  for (uint64_t k = job->kb0; k < job->kb0 + job->kbloc; k++)
    for (uint64_t j = 0; j < job->nloc; j++) {
      double b = gs_matmul_ref_b(&job->ref, k, job->j0 + j);
      for (int v = 0; v < GS_V; v++) z[v * K + k] += b * x[v * job->nloc + j];
      z[GS_V * K + k] += fabs(b);
    }
  gs_matmul_freivalds_sum(job, z, (GS_V + 1) * K);
  return z;
}

/* y[v M + i] = (A z_v)_i, y[V M + i] = (|A| |B| 1)_i, y[(V + 1 + v) M + i] = (C x_v)_i, over all ranks. */
static double *gs_matmul_freivalds_rows(const struct gs_matmul_job *job, const double *x, const double *z) {
  const uint64_t K = job->o->k, M = job->o->m;
  double *y = gs_matmul_freivalds_zeros(job, (2 * GS_V + 1) * M);
#pragma omp parallel for schedule(static)
  for (uint64_t i = job->i0; i < job->i0 + job->mloc; i++) {
    for (uint64_t k = job->ka0; k < job->ka0 + job->kaloc; k++) {
      double a = gs_matmul_ref_a(&job->ref, i, k);
      for (int v = 0; v < GS_V; v++) y[v * M + i] += a * z[v * K + k];
      y[GS_V * M + i] += fabs(a) * z[GS_V * K + k];
    }
    for (uint64_t j = 0; j < job->nloc; j++) {
      uint64_t at = (i - job->i0) * job->nloc + j;
      double c = job->t == GS_DTYPE_DOUBLE ? ((const double *)job->hC)[at] : ((const float *)job->hC)[at];
      for (int v = 0; v < GS_V; v++) y[(GS_V + 1 + v) * M + i] += c * x[v * job->nloc + j];
    }
  }
  gs_matmul_freivalds_sum(job, y, (2 * GS_V + 1) * M);
  return y;
}

int gs_matmul_freivalds_run(const struct gs_matmul_job *job, double f, uint64_t *row, double *got, double *want,
                            double *tol) {
  const uint64_t M = job->o->m;
  f += 3 * ldexp((double)(job->o->n + job->o->k), -53);
  double *x = gs_matmul_freivalds_zeros(job, GS_V * job->nloc);
  for (int v = 0; v < GS_V; v++)
    for (uint64_t j = 0; j < job->nloc; j++) x[v * job->nloc + j] = gs_matmul_ref_x(&job->ref, v, job->j0 + j);
  double *z = gs_matmul_freivalds_bx(job, x), *y = gs_matmul_freivalds_rows(job, x, z);
  int ok = 1;
  for (uint64_t i = job->i0; ok && i < job->i0 + job->mloc; i++)
    for (int v = 0; ok && v < GS_V; v++) {
      double cx = y[(GS_V + 1 + v) * M + i], abx = y[v * M + i], t = f * y[GS_V * M + i];
      if (!(fabs(cx - abx) <= t)) ok = 0, *row = i, *got = cx, *want = abx, *tol = t;
    }
  free(x);
  free(z);
  free(y);
  return ok;
}
