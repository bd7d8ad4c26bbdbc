/* gs_gpu_ref.h: the C GPU tests' double-precision direct sum on the host, the reference that the
 * direct kernels (test_gpu_nbody) and the tree (test_gpu_tree) are checked against. Plain C. */
#ifndef GS_GPU_REF_H
#define GS_GPU_REF_H

#include <math.h>
#include <stdint.h>

/* Targets [i0, i0 + ni) of the bodies b (x, y, z, m) feel sources [j0, j0 + nj), j != i: Plummer
 * softening eps2, or with cutoff the seed 003 law (pairs closer than sqrt(cut2) exert nothing).
 * out[4k..4k+3] = G (a, phi). With mag (else NULL): mag[2k], mag[2k + 1] = the sums of the force
 * and potential terms' magnitudes, the scale an error is measured on; under Plummer softening a
 * target among the sources adds m_i / eps to the potential's, as kernels 5+ add and take out the
 * self term (their rounding scales with it: it is the whole potential of a lone body). */
static void gs_ref_direct(const double *b, int cutoff, double G, double eps2, double cut2, uint64_t i0, uint64_t ni,
                          uint64_t j0, uint64_t nj, double *out, double *mag)
{
  for (uint64_t k = 0; k < ni; ++k) {
    const uint64_t i = i0 + k;
    double a[4] = {0, 0, 0, 0}, fm = 0, pm = 0;
    for (uint64_t j = j0; j < j0 + nj; ++j) {
      if (j == i) continue;
      const double dx = b[4 * j] - b[4 * i], dy = b[4 * j + 1] - b[4 * i + 1], dz = b[4 * j + 2] - b[4 * i + 2];
      const double r2 = dx * dx + dy * dy + dz * dz;
      double d2 = r2 + eps2;
      if (cutoff) {
        if (r2 < cut2) continue;
        d2 = r2;
      }
      const double inv = 1.0 / sqrt(d2), m = b[4 * j + 3], s = m * inv * inv * inv;
      a[0] += dx * s; a[1] += dy * s; a[2] += dz * s;
      a[3] -= m * inv;
      fm += m * sqrt(r2) * inv * inv * inv;
      pm += m * inv;
    }
    for (int c = 0; c < 4; ++c) out[4 * k + c] = G * a[c];
    if (!mag) continue;
    if (!cutoff && i >= j0 && i < j0 + nj) pm += b[4 * i + 3] / sqrt(eps2);
    mag[2 * k] = G * fm;
    mag[2 * k + 1] = G * pm;
  }
}

#endif
