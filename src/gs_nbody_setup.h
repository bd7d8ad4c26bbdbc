/* gs_nbody_setup.h: an N-body run's state before step 0, and its release. */
#ifndef GS_NBODY_SETUP_H
#define GS_NBODY_SETUP_H

#include "gs_ic.h"
#include "gs_nbody_job.h"
#include "gs_nbody_solver.h"

/* Bodies from --ic, the same on every rank (a file read by rank 0 alone and broadcast), and job->n
 * (collective). GS_OK, or GS_USAGE with msg.
 * For a solver of the domains layout b stays empty: a preset is made later, a file only checked and
 * counted (on rank 0) and each rank's slice handed out later, both by gs_nbody_setup_origin. */
int gs_nbody_setup_bodies(struct gs_nbody_job *job, struct gs_bodies *b, struct gs_msg *msg);

/* Is an n-body run possible here: whole tiles that MPI's counts hold, and memory for the state
 * (collective: the lowest failing rank's message wins)? GS_OK, or GS_USAGE with msg. */
int gs_nbody_setup_check_size(const struct gs_nbody_job *job, uint64_t n, struct gs_msg *msg);

/* Slices of whole tiles (job->dec) and the tile datatype; job->n must be set and checked. */
void gs_nbody_setup_decompose(struct gs_nbody_job *job);

/* Where the solver's bodies come from (after the decomposition; collective): a checkpoint (rank
 * 0 holds it open, ckpt; NULL elsewhere), or fresh bodies b, with the total mass of the run's
 * precision summed in blocks (gs_ic.h); for the domains layout b becomes this rank's slice of a
 * preset, made here, or of the --ic file, read by rank 0 and sent here. */
void gs_nbody_setup_origin(struct gs_nbody_job *job, struct gs_bodies *b, struct gs_ckpt_reader *ckpt,
                           struct gs_nbody_origin *from);

/* The total mass of job->n packed (x, y, z, m) vectors pos (a checkpoint's), summed in gs_ic.h's
 * blocks: the bits a fresh run's origin has. */
double gs_nbody_setup_mass(const struct gs_nbody_job *job, const void *pos);

/* The same sum over the positions of the checkpoint rank 0 holds open (ckpt), read a block at a
 * time; every rank gets it. Collective. */
double gs_nbody_setup_mass_of(const struct gs_nbody_job *job, struct gs_ckpt_reader *ckpt);

/* Array k (0 pos, 1 vel, 2 acc) of the checkpoint rank 0 holds open (ckpt; NULL elsewhere): each
 * rank's standard slice into slice (job->count vectors), rank 0 reading one rank's at a time and
 * sending it (never the whole array). Collective. */
void gs_nbody_setup_scatter(const struct gs_nbody_job *job, struct gs_ckpt_reader *ckpt, int k, void *slice);

/* Buffers, queues, events, the gate and the reduction workspace of the diagnostics. */
void gs_nbody_setup_alloc(struct gs_nbody_job *job);

/* Fresh bodies into the packed (x, y, z, m) / (vx, vy, vz, 0) layout, and up to the device. */
void gs_nbody_setup_load_bodies(struct gs_nbody_job *job, const struct gs_bodies *b);

/* A checkpoint's state (rank 0 holds it open: pos | vel | acc, npad bodies each) to every rank:
 * positions to all, velocities and accelerations to their owners. Leaves this rank's
 * accelerations in acc_slice (malloc'd) for after the kernel table, which overwrites d_acc. */
void gs_nbody_setup_load_checkpoint(struct gs_nbody_job *job, struct gs_ckpt_reader *ckpt, void **acc_slice);

/* Free everything gs_nbody_setup_decompose and gs_nbody_setup_alloc made. */
void gs_nbody_setup_free(struct gs_nbody_job *job);

#endif
