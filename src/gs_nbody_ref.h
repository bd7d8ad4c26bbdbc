/* gs_nbody_ref.h: the double-precision direct sum that checks every force evaluation (the
 * direct kernels' table and the tree's accuracy) on a sample of up to 1024 bodies. */
#ifndef GS_NBODY_REF_H
#define GS_NBODY_REF_H

#include <stdint.h>

#include "gs_nbody_job.h"

#define GS_NBODY_REF_SAMPLE 1024 /* bodies checked, spread evenly over 0..N-1 */

/* Body i of a packed (x, y, z, m) array of the job's precision, in double. */
void gs_nbody_ref_get(const struct gs_nbody_job *job, const void *pos, uint64_t i, double q[4]);

/* The reference forces of the sample bodies this rank owns, from the positions pos (all N
 * bodies, host memory): their indices in *idx, and ref[5k..5k+4] = ax, ay, az, phi and the sum
 * of the force terms' magnitudes (an error scale free of cancellation), both malloc'd. Returns
 * how many (0 is possible). */
int gs_nbody_ref_sample(const struct gs_nbody_job *job, const void *pos, uint64_t **idx, double **ref);

/* Test hook (job->corrupt, gs_error_test_corrupt): make the forces in acc (this rank's slice,
 * host copy) of the last 16 sample bodies wrong, on whichever ranks hold them: more than 1% of
 * the sample, so that the tree's 99th percentile catches it as the direct kernels' maximum does. */
void gs_nbody_ref_corrupt(const struct gs_nbody_job *job, void *acc, const uint64_t *idx, int nref);

/* The backend's direct kernel for its own sums (GS_KERNEL_INTERNAL), or NULL if it names none. */
const struct gs_kernel *gs_nbody_ref_kernel(const struct gs_backend *be);

/* The same sample and layout, the accelerations and the potential summed by the backend's direct
 * kernel for its own sums (GS_KERNEL_INTERNAL) in double precision on its device, the magnitude
 * sum left 0.
 * Independent of the tree, and on a GPU some thousand times faster than the host sum: at 2^24
 * bodies the host took minutes a check with one core per rank (mpirun binds ranks to cores). */
int gs_nbody_ref_sample_device(struct gs_nbody_job *job, const void *pos, uint64_t **idx, double **ref);

/* The pulls of nsrc bodies src (packed, the job's precision, host) on ntgt targets tgt (x, y, z,
 * m in double, host), summed in double by the same kernel on its device into out (ax, ay, az, phi
 * per target, overwritten; zero without sources): a part of the reference when the sources are a
 * part of the bodies (the domain-decomposed tree: each rank its own, the parts then summed). A
 * target at a source's position meets it at distance 0: no force under either law, but the
 * potential of a Plummer-softened pair, which gs_nbody_ref_self takes out of the total. */
void gs_nbody_ref_partial(struct gs_nbody_job *job, const void *src, uint64_t nsrc, const double *tgt, int ntgt,
                          double *out);

/* Out of a sample body's total ref[5] (every body summed, its own copy included): its copy's
 * potential at distance 0 (Plummer: -G m / eps), m its mass. */
void gs_nbody_ref_self(const struct gs_nbody_job *job, double m, double ref[5]);

#endif
