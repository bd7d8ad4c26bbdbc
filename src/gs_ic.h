/* gs_ic.h: initial conditions for `gpusim nbody`: Plummer sphere, the seed 003 disk or a uniform
 * sphere (a text file of bodies: gs_ic_file.h). Generated identically on every rank from the seed, whatever the rank
 * count, so runs on 1, 2 and 4 ranks start from the same bodies. */
#ifndef GS_IC_H
#define GS_IC_H

#include <stdint.h>

#include "gs_error.h"

/* Bodies in double precision on the host: structure of arrays. */
struct gs_bodies {
  uint64_t n;
  double *x, *y, *z, *vx, *vy, *vz, *m;
};

/* Allocate n bodies (zeroed). Returns 0, or -1 when out of memory. */
int gs_ic_alloc(struct gs_bodies *b, uint64_t n);
/* Free them. */
void gs_ic_free(struct gs_bodies *b);

/* The bodies of a preset model also one slice at a time, ids first .. first + b->n - 1 of a model
 * of n bodies, the same bits as the whole model's before centring (gs_ic_center or gs_ic_shift):
 * the domains layout makes only its own bodies. */
void gs_ic_plummer_slice(struct gs_bodies *b, uint64_t seed, uint64_t first, uint64_t n);
void gs_ic_uniform_slice(struct gs_bodies *b, uint64_t seed, uint64_t first, uint64_t n);
void gs_ic_disk_slice(struct gs_bodies *b, uint64_t seed, uint64_t first, uint64_t n);

/* Plummer sphere by Aarseth, Henon & Wielen (1974) in Henon units (G = 1, M = 1, E = -1/4),
 * centre-of-mass frame, radii truncated at 22.8 scale lengths (99.9% of the mass). */
void gs_ic_plummer(struct gs_bodies *b, uint64_t seed);

/* The seed 003 disk (2D, z = 0): radius uniform in [0, 3.2767) (the seed's rand() * 1e-4 with a
 * 15-bit rand), angle uniform, tangential speed 10 r^2, unit masses (with G = 10: mG = 10). */
void gs_ic_disk(struct gs_bodies *b, uint64_t seed);

/* A cold uniform sphere of radius 1 and total mass 1, at rest, centre-of-mass frame. */
void gs_ic_uniform(struct gs_bodies *b, uint64_t seed);

/* The centring sums are made in blocks of GS_IC_BLOCK ids, a size no rank count changes: each
 * block summed in id order, the blocks added in block order. A rank holding a slice sums the blocks
 * that begin in it (making the few bodies past its end), the ranks exchange block sums, and every
 * rank adds them as gs_ic_center does: the same bits as the whole generation, for any rank count. */
#define GS_IC_BLOCK 4096
/* Per block: the mass, the mass-weighted x, y, z, vx, vy, vz, and the masses rounded to float (a
 * single-precision run's mass). */
#define GS_IC_SUMS 8

/* The sums of bodies from .. from + count - 1 of b (indices into b) in index order into s. */
void gs_ic_sums(const struct gs_bodies *b, uint64_t from, uint64_t count, double *s);
/* nblocks blocks' sums (GS_IC_SUMS each, in block order) added in block order into total. */
void gs_ic_total(const double *blocks, uint64_t nblocks, double *total);
/* All of b's blocks (b the whole model), added as gs_ic_total adds them, into total. */
void gs_ic_whole_total(const struct gs_bodies *b, double *total);
/* Shift b's positions and velocities to the frame whose sums are total (centre of mass at rest). */
void gs_ic_shift(struct gs_bodies *b, const double *total);
/* Shift positions and velocities to the centre-of-mass frame (b the whole model). */
void gs_ic_center(struct gs_bodies *b);

#endif
