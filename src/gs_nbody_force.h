/* gs_nbody_force.h: one force evaluation, as every backend's N-body primitives take it. Plain C
 * types only: the CPU backend, the CUDA launchers in cuda/ and the drivers share it. */
#ifndef GS_NBODY_FORCE_H
#define GS_NBODY_FORCE_H

#include <stddef.h>
#include <stdint.h>

/* Force law: Plummer softening (a = m r / (r^2 + eps^2)^1.5), or the seed 003 hard cutoff (pairs
 * with r^2 < cut2 exert nothing, no softening). */
enum gs_nbody_law { GS_LAW_PLUMMER = 0, GS_LAW_CUTOFF = 1 };

/* Targets pos[i_first, i_first + i_count) feel sources pos[j_first, j_first + j_count). pos holds
 * (x, y, z, m) as float4 (precision 0) or double4 (precision 1); acc holds i_count of the same
 * type: (ax, ay, az, potential). */
struct gs_nbody_force_args {
  int kernel;            /* the backend's own kernel id (struct gs_kernel.id of its list) */
  int precision;         /* 0 single, 1 double */
  int law;               /* enum gs_nbody_law */
  const void *pos;       /* all bodies on this device */
  uint64_t i_first, i_count;
  uint64_t j_first, j_count;
  void *acc;             /* i_count results */
  int accumulate;        /* 1: add to acc (a later j range); 0: overwrite */
  int potential;         /* 1: also accumulate the potential -G sum m_j / r in acc.w */
  double G, eps2, cut2;  /* gravitational constant, softening^2, cutoff^2 */
  void *ws;              /* device workspace (jsplit partials), zeroed once by the caller */
  size_t ws_bytes;
  int (*stop)(void);     /* NULL, or nonzero once the work may be abandoned (a stop request): the
                            host backend checks it between bodies; device kernels ignore it */
};

#endif
