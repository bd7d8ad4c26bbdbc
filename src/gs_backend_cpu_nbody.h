/* gs_backend_cpu_nbody.h: the CPU backend's N-body primitives as plain functions, for its ops
 * table and for the unit tests that check them against a brute-force sum. */
#ifndef GS_BACKEND_CPU_NBODY_H
#define GS_BACKEND_CPU_NBODY_H

#include <stdint.h>

#include "gs_nbody_force.h"

/* Forces on a's targets from a's sources (checks a->stop between bodies). */
void gs_backend_cpu_nbody_forces(const struct gs_nbody_force_args *a);
/* v += a dt, x += v dt on count float4/double4 vectors (w kept). */
void gs_backend_cpu_nbody_kick(int precision, void *vel, const void *acc, uint64_t count, double dt);
void gs_backend_cpu_nbody_drift(int precision, void *pos, const void *vel, uint64_t count, double dt);
/* The diagnostic terms (see struct gs_nbody_ops.terms). */
void gs_backend_cpu_nbody_terms(int precision, const void *pos, const void *vel, const void *acc, uint64_t count,
                                double *terms);

#endif
