/* gs_nbody_ref.c: the double-precision direct sum on a sample of up to 1024 bodies: on the host
 * CPU, the reference of the direct kernels' table (gs_nbody_ladder.c), or by the backend's own
 * direct kernel in double, the reference of the tree's accuracy (gs_nbody_tree_report.c). */
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

/* The sample bodies this rank owns into *idx, room for their references in *ref; their count. */
static int gs_nbody_ref_pick(const struct gs_nbody_job *job, uint64_t **idx, double **ref) {
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
  return local;
}

void gs_nbody_ref_corrupt(const struct gs_nbody_job *job, void *acc, const uint64_t *idx, int nref) {
  uint64_t S = job->n < GS_NBODY_REF_SAMPLE ? job->n : GS_NBODY_REF_SAMPLE;
  uint64_t from = S > 16 ? (S - 16) * job->n / S : 0; /* sample k's body is k n / S, rising with k */
  for (int s = 0; job->corrupt && s < nref; s++) {
    if (idx[s] < from) continue;
    uint64_t i = 4 * (idx[s] - job->first);
    if (job->prec) ((double *)acc)[i] = 2 * ((double *)acc)[i] + 1;
    else ((float *)acc)[i] = 2 * ((float *)acc)[i] + 1;
  }
}

int gs_nbody_ref_sample(const struct gs_nbody_job *job, const void *pos, uint64_t **idx, double **ref) {
  int local = gs_nbody_ref_pick(job, idx, ref);
#pragma omp parallel for schedule(dynamic)
  for (int s = 0; s < local; s++) {
    double a[5] = {0};
    gs_nbody_ref_one(job, pos, (*idx)[s], a);
    memcpy(*ref + 5 * s, a, sizeof a);
  }
  return local;
}

const struct gs_kernel *gs_nbody_ref_kernel(const struct gs_backend *be) {
  const struct gs_kernel *best = NULL;
  for (int k = 0; k < be->nbody->count; k++)
    if (be->nbody->kernels[k].flags & GS_KERNEL_INTERNAL) best = &be->nbody->kernels[k];
  return best;
}

void gs_nbody_ref_partial(struct gs_nbody_job *job, const void *src, uint64_t nsrc, const double *tgt, int ntgt,
                          double *out) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  const struct gs_kernel *k = gs_nbody_ref_kernel(be);
  if (!k) GS_DIE(&job->run->where, "gs_nbody_ref_partial", "the backend names no direct kernel for its own sums");
  memset(out, 0, 4 * sizeof *out * (size_t)(ntgt > 0 ? ntgt : 0));
  if (ntgt <= 0 || !nsrc) return; /* no targets, or no sources: nothing pulls */
  /* the sources in double, then the targets past them: sources [0, nsrc) do not include the
   * targets, so nothing is counted twice */
  uint64_t rows = nsrc + (uint64_t)ntgt;
  double *h = malloc(4 * sizeof *h * rows);
  if (!h) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (uint64_t i = 0; i < nsrc; i++)
    gs_nbody_ref_get(job, src, i, h + 4 * i);
  memcpy(h + 4 * nsrc, tgt, 4 * sizeof *h * (size_t)ntgt);
  void *d = be->alloc_device(c, 4 * sizeof *h * rows), *dacc = be->alloc_device(c, 4 * sizeof *out * (size_t)ntgt);
  be->copy_h2d(c, d, h, 4 * sizeof *h * rows, job->qc);
  struct gs_nbody_force_args a = {.kernel = k->id, .precision = 1, .law = job->law, .pos = d, .i_first = nsrc,
                                  .i_count = (uint64_t)ntgt, .j_first = 0, .j_count = nsrc, .acc = dacc,
                                  .potential = 1, .G = job->G, .eps2 = job->eps2, .cut2 = job->cut2};
  a.ws_bytes = be->nbody->workspace(c, &a);
  a.ws = a.ws_bytes ? be->alloc_device(c, a.ws_bytes) : NULL;
  if (a.ws) be->zero_device(c, a.ws, a.ws_bytes, job->qc);
  be->nbody->forces(c, &a, job->qc);
  be->copy_d2h(c, out, dacc, 4 * sizeof *out * (size_t)ntgt, job->qc);
  be->queue_sync(c, job->qc);
  if (a.ws) be->free_device(c, a.ws);
  be->free_device(c, d), be->free_device(c, dacc);
  free(h);
}

int gs_nbody_ref_sample_device(struct gs_nbody_job *job, const void *pos, uint64_t **idx, double **ref) {
  int local = gs_nbody_ref_pick(job, idx, ref);
  if (!local) return 0;
  /* every body the sources, copies of the sample bodies the targets: a copy meets its original
   * at distance 0, which adds no force under either law (only the potential, taken out below) */
  double *tgt = malloc(4 * sizeof *tgt * (size_t)local), *out = malloc(4 * sizeof *out * (size_t)local);
  if (!tgt || !out) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int s = 0; s < local; s++)
    gs_nbody_ref_get(job, pos, (*idx)[s], tgt + 4 * s);
  gs_nbody_ref_partial(job, pos, job->n, tgt, local, out);
  for (int s = 0; s < local; s++) {
    memcpy(*ref + 5 * s, out + 4 * s, 4 * sizeof *out); /* ref[5s + 4] stays 0 */
    gs_nbody_ref_self(job, tgt[4 * s + 3], *ref + 5 * s);
  }
  free(tgt), free(out);
  return local;
}

void gs_nbody_ref_self(const struct gs_nbody_job *job, double m, double ref[5]) {
  /* the copy met its original at distance 0: under Plummer softening that added -G m_i / eps */
  if (job->law == GS_LAW_PLUMMER) ref[3] += job->G * m / sqrt(job->eps2);
}
