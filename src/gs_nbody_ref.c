/* gs_nbody_ref.c: the double-precision CPU direct sum on a sample of up to 1024 bodies, the
 * reference of the direct kernels' table (gs_nbody_ladder.c) and of the tree's accuracy
 * (gs_nbody_tree.c). */
#include "gs_nbody_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gs_nbody_ref_get(const struct gs_nbody_job *job, const void *pos, uint64_t i, double q[4]) {
  for (int c = 0; c < 4; c++)
    q[c] = job->prec ? ((const double *)pos)[4 * i + c] : ((const float *)pos)[4 * i + c];
}

/* Body i's reference force from every body of pos into a[5]. */
static void gs_nbody_ref_one(const struct gs_nbody_job *job, const void *pos, uint64_t i, double a[5]) {
  double qi[4];
  gs_nbody_ref_get(job, pos, i, qi);
  for (uint64_t j = 0; j < job->n; j++) {
    double qj[4];
    gs_nbody_ref_get(job, pos, j, qj);
    double dx = qj[0] - qi[0], dy = qj[1] - qi[1], dz = qj[2] - qi[2], r2 = dx * dx + dy * dy + dz * dz;
    if (job->law == GS_LAW_CUTOFF ? r2 < job->cut2 : j == i) continue;
    if (job->law == GS_LAW_PLUMMER) r2 += job->eps2;
    double inv = 1.0 / sqrt(r2), s3 = job->G * qj[3] * inv * inv * inv;
    a[0] += dx * s3, a[1] += dy * s3, a[2] += dz * s3;
    a[3] -= job->G * qj[3] * inv;
    a[4] += sqrt(dx * dx + dy * dy + dz * dz) * s3;
  }
}

int gs_nbody_ref_sample(const struct gs_nbody_job *job, const void *pos, uint64_t **idx, double **ref) {
  uint64_t S = job->n < GS_NBODY_REF_SAMPLE ? job->n : GS_NBODY_REF_SAMPLE;
  int local = 0;
  for (uint64_t k = 0; k < S; k++) {
    uint64_t i = k * job->n / S;
    local += i >= job->first && i < job->first + job->count;
  }
  *idx = malloc(sizeof **idx * (local ? local : 1));
  *ref = calloc((size_t)(local ? local : 1) * 5, sizeof **ref);
  if (!*idx || !*ref) GS_DIE(&job->run->where, "malloc", "out of memory");
  int m = 0;
  for (uint64_t k = 0; k < S; k++) {
    uint64_t i = k * job->n / S;
    if (i >= job->first && i < job->first + job->count) (*idx)[m++] = i;
  }
#pragma omp parallel for schedule(dynamic)
  for (int s = 0; s < local; s++) {
    double a[5] = {0};
    gs_nbody_ref_one(job, pos, (*idx)[s], a);
    memcpy(*ref + 5 * s, a, sizeof a);
  }
  return local;
}
