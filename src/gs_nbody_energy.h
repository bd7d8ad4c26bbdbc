/* gs_nbody_energy.h: an N-body run's global diagnostics. */
#ifndef GS_NBODY_ENERGY_H
#define GS_NBODY_ENERGY_H

#include "gs_nbody_job.h"

/* Bodies whose terms are summed at once: the terms buffer holds 8 doubles a body, so the sums go
 * a chunk at a time and never need 64 bytes for every body held (their order fixed: the same
 * bits run after run). */
#define GS_NBODY_ENERGY_CHUNK ((uint64_t)1 << 20)

/* Global diagnostics from the device state (collective). With fresh != 0 the potential is
 * evaluated now into a scratch buffer (d_acc keeps its bits); else acc.w must hold it. */
struct gs_diag gs_nbody_energy_measure(struct gs_nbody_job *job, int fresh);

/* One row of the diagnostics table after `step` (rank 0), also kept for the energy verdict and
 * written as result rows; gs_nbody_energy_header prints the table's header first. */
void gs_nbody_energy_print(struct gs_nbody_job *job, long step, const struct gs_diag *d);
void gs_nbody_energy_header(struct gs_nbody_job *job, long step, const struct gs_diag *d);

/* |E - E0| / |E0|, or -1 where it is undefined (E0 = 0: one body, no mass). */
double gs_nbody_energy_rel_de(const struct gs_nbody_job *job, double energy);

/* The momentum drift |P - P0| / sqrt(2 M K) (M the total mass, K the kinetic energy of d: the
 * momentum scale of the bodies' motion, M v_rms), dimensionless; -1 where it is undefined (no P0,
 * no mass or no motion). The direct sum keeps it at round-off (pairwise forces cancel); a tree's
 * forces are not pairwise symmetric, so its momentum drifts (docs/tree.md). */
double gs_nbody_energy_rel_dp(const struct gs_nbody_job *job, const struct gs_diag *d);

#endif
