/* gs_reduce_check.c: is a reduction right? Exact for ints and for min/max; for float sums the
 * inputs are chosen so that double sums are exact, with a classical bound past that size. */
#include "gs_reduce_check.h"

#include <math.h>
#include <stdio.h>

/* Inputs lie on a 2^-20 grid in [-1, 1]: every double partial sum of up to 2^33 of them is
 * exact, so any order gives the reference exactly. Past that, the classical worst-case bound for
 * any summation order in double: (n - 1) 2^-53 sum|x|. */
double gs_reduce_check_tolerance(const struct gs_reduce_job *job, double abs_sum) {
  if (job->t != GS_DTYPE_INT32 && job->op == GS_OP_SUM && job->total > ((uint64_t)1 << 33))
    return (double)(job->total - 1) * ldexp(1.0, -53) * abs_sum;
  return 0;
}

int gs_reduce_check_matches(const struct gs_reduce_job *job, union gs_acc r, union gs_acc ref) {
  if (job->t == GS_DTYPE_INT32) return r.i == ref.i;
  return fabs(r.d - ref.d) <= job->tol;
}

void gs_reduce_check_format(char *out, size_t size, const struct gs_reduce_job *job, union gs_acc a) {
  if (job->t == GS_DTYPE_INT32)
    snprintf(out, size, "%lld", (long long)a.i);
  else
    snprintf(out, size, "%.17g", a.d);
}

int gs_reduce_check_verify(struct gs_reduce_job *job, union gs_acc mine, const char *kernel) {
  const struct gs_run *run = job->run;
  if (job->corrupt && run->rank == run->size - 1) {
    if (job->t == GS_DTYPE_INT32)
      mine.i += 1;
    else
      mine.d += 1.0;
  }
  int ok_local = gs_reduce_check_matches(job, mine, job->ref_local), ok_all = 0;
  union gs_acc global;
  GS_CHECK_MPI(&run->where, MPI_Allreduce(&mine, &global, 1, job->mpi_type, job->mpi_op, MPI_COMM_WORLD));
  int ok = ok_local && gs_reduce_check_matches(job, global, job->ref_global);
  GS_CHECK_MPI(&run->where, MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
  if (!ok_all) job->failed = 1;
  if (!ok_local) {
    char got[40], want[40];
    gs_reduce_check_format(got, sizeof got, job, mine);
    gs_reduce_check_format(want, sizeof want, job, job->ref_local);
    fprintf(stderr, "gpusim: rank %d: kernel %s: result %s, reference %s: FAILED\n", run->rank, kernel, got, want);
  }
  return ok_all;
}
