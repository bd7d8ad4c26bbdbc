/* gs_matmul_check.c: the verification of a product (see the header). */
#include "gs_matmul_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_matmul_freivalds.h"

/* The first mismatch this rank saw. */
struct gs_matmul_check_bad {
  uint64_t count, i, j;
  double got, want, tol;
  const char *what;
};

static void gs_matmul_check_note(struct gs_matmul_check_bad *bad, const char *what, uint64_t i, uint64_t j, double got,
                                 double want, double tol) {
  if (bad->count++) return;
  bad->what = what, bad->i = i, bad->j = j, bad->got = got, bad->want = want, bad->tol = tol;
}

double gs_matmul_check_factor(const struct gs_matmul_job *job, double *exact_below) {
  const struct gs_matmul_opts *o = job->o;
  int tf32 = o->type == GS_MATMUL_TF32;
  int acc_bits = job->t == GS_DTYPE_DOUBLE ? 53 : 24, in_bits = tf32 ? 11 : acc_bits;
  /* The largest input magnitude: the seed's 2k + i and |j - k| are integers; random ones have
   * 11 significant bits (gs_matmul_ref.h). */
  double big = (double)(2 * (o->k - 1) + (o->m - 1)), bigb = (double)(o->n > o->k ? o->n : o->k);
  int inputs_exact = o->ic == GS_MATMUL_IC_RANDOM ? in_bits >= 11 : big < ldexp(1, in_bits) && bigb < ldexp(1, in_bits);
  /* Tensor cores may truncate, both where a float input becomes TF32 and where they accumulate:
   * twice the rounding unit for tf32. */
  double u = ldexp(1, -acc_bits + tf32), u_in = inputs_exact ? 0 : ldexp(1, -in_bits + tf32), ku = (double)o->k * u;
  double gamma = ku < 0.5 ? ku / (1 - ku) : 1; /* past K u = 1/2 the bound says nothing: 100% */
  *exact_below = inputs_exact ? ldexp(1, acc_bits) : 0;
  /* Random inputs are multiples of 2^-10, products of 2^-20: exact integers times 2^-20. */
  if (o->ic == GS_MATMUL_IC_RANDOM) *exact_below = inputs_exact ? ldexp(1, acc_bits - 20) : 0;
  return gamma + 2 * u_in;
}

void gs_matmul_check_describe(const struct gs_matmul_job *job, char *out, size_t size) {
  double exact_below, f = gs_matmul_check_factor(job, &exact_below);
  if (job->o->ic == GS_MATMUL_IC_SEED)
    snprintf(out, size, "every element against the exact C[i][j] = sum_k (2k + i)(j - k); tolerance %.3g sum_k |a||b| "
             "(0 where that sum is below %.3g: exact)", f, exact_below);
  else
    snprintf(out, size, "Freivalds' test with %d random vectors (|C x - A (B x)| <= %.3g |A| (|B| 1), in double) "
             "and %d sampled entries per rank vs double dot products (tolerance %.3g sum_k |a||b|)",
             GS_MATMUL_FREIVALDS_VECTORS, f + 3 * ldexp((double)(job->o->n + job->o->k), -53), GS_MATMUL_CHECK_SAMPLES, f);
}

/* Element (i, j) of this rank's C block, as double. */
static double gs_matmul_check_c(const struct gs_matmul_job *job, uint64_t i, uint64_t j) {
  if (job->t == GS_DTYPE_DOUBLE) return ((const double *)job->hC)[i * job->nloc + j];
  return ((const float *)job->hC)[i * job->nloc + j];
}

/* Allowed |got - want| for an element whose sum_k |a||b| is abs_sum. */
static double gs_matmul_check_tol(double f, double exact_below, double abs_sum) {
  return abs_sum < exact_below ? 0 : f * abs_sum;
}

/* --ic seed: every element of the block. */
static void gs_matmul_check_seed(const struct gs_matmul_job *job, struct gs_matmul_check_bad *bad) {
  double exact_below, f = gs_matmul_check_factor(job, &exact_below);
#pragma omp parallel for schedule(static)
  for (uint64_t i = 0; i < job->mloc; i++)
    for (uint64_t j = 0; j < job->nloc; j++) {
      double want, abs_sum, got = gs_matmul_check_c(job, i, j);
      gs_matmul_ref_seed(job->o->k, job->i0 + i, job->j0 + j, &want, &abs_sum);
      double tol = gs_matmul_check_tol(f, exact_below, abs_sum);
      if (!(fabs(got - want) <= tol)) {
#pragma omp critical
        gs_matmul_check_note(bad, "element", job->i0 + i, job->j0 + j, got, want, tol);
      }
    }
}

/* --ic random: sampled entries of the block against double dot products. */
static void gs_matmul_check_samples(const struct gs_matmul_job *job, struct gs_matmul_check_bad *bad) {
  double exact_below, f = gs_matmul_check_factor(job, &exact_below);
  if (!job->mloc || !job->nloc) return;
  for (int s = 0; s < GS_MATMUL_CHECK_SAMPLES; s++) {
    /* Deterministic spread over the block: both corners, then a stride walk. */
    uint64_t i = s == 0 ? 0 : s == 1 ? job->mloc - 1 : (uint64_t)s * 7919 % job->mloc;
    uint64_t j = s == 0 ? 0 : s == 1 ? job->nloc - 1 : (uint64_t)s * 104729 % job->nloc;
    double want, abs_sum, got = gs_matmul_check_c(job, i, j);
    gs_matmul_ref_dot(&job->ref, job->i0 + i, job->j0 + j, &want, &abs_sum);
    double tol = gs_matmul_check_tol(f, exact_below, abs_sum);
    if (!(fabs(got - want) <= tol)) gs_matmul_check_note(bad, "sampled entry", job->i0 + i, job->j0 + j, got, want, tol);
  }
}

int gs_matmul_check_verify(struct gs_matmul_job *job, const char *kernel) {
  const struct gs_run *run = job->run;
  struct gs_matmul_check_bad bad = {0};
  if (job->corrupt && run->rank == run->size - 1 && job->mloc && job->nloc) {
    double c0 = gs_matmul_check_c(job, 0, 0), wrong = c0 + 1024 * (1 + fabs(c0));
    if (job->t == GS_DTYPE_DOUBLE) ((double *)job->hC)[0] = wrong;
    else ((float *)job->hC)[0] = (float)wrong;
  }
  if (job->o->ic == GS_MATMUL_IC_SEED) gs_matmul_check_seed(job, &bad);
  else {
    gs_matmul_check_samples(job, &bad);
    uint64_t row;
    double got, want, tol, exact_below, f = gs_matmul_check_factor(job, &exact_below);
    if (!gs_matmul_freivalds_run(job, f, &row, &got, &want, &tol))
      gs_matmul_check_note(&bad, "Freivalds row", row, 0, got, want, tol);
  }
  int ok = bad.count == 0, ok_all = 0;
  GS_CHECK_MPI(&run->where, MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
  if (!ok_all) job->failed = 1;
  if (!ok)
    fprintf(stderr, "gpusim: rank %d: kernel %s: %s (%llu, %llu): %.17g, want %.17g (tolerance %.3g; %llu wrong): FAILED\n",
            run->rank, kernel, bad.what, (unsigned long long)bad.i, (unsigned long long)bad.j, bad.got, bad.want, bad.tol,
            (unsigned long long)bad.count);
  return ok_all;
}
