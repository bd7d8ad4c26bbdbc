/* gs_nbody_repl.h: the body layout today's two solvers share (direct, tree): every rank holds
 * every position (d_pos, npad body vectors) and owns the velocities and forces of its slice of the
 * standard decomposition (job->first, job->count: whole tiles). A solver of this layout starts
 * its state with a struct gs_nbody_repl and puts these functions in its table (their void *s is
 * that state). */
#ifndef GS_NBODY_REPL_H
#define GS_NBODY_REPL_H

#include "gs_nbody_solver.h"

struct gs_nbody_repl {
  struct gs_nbody_job *job;
  void *acc_slice;                /* a restart's forces of this slice (host, malloc'd) until resume */
  void *d_pos0, *d_vel0, *d_acc0; /* the state at a step's start (device), to undo an abandoned step */
};

/* The layout's buffers of r (the keep/undo copies); close frees them and what load kept. */
void gs_nbody_repl_open(struct gs_nbody_repl *r, struct gs_nbody_job *job);

/* Every position to every rank and this slice's velocities (and a checkpoint's forces, kept for
 * resume); job->mass the origin's or (a checkpoint) gs_nbody_setup_mass's. Collective. */
void gs_nbody_repl_load(void *s, const struct gs_nbody_origin *from);

/* A restart's forces (kept by load) into d_acc. */
void gs_nbody_repl_resume(void *s);

void gs_nbody_repl_held(void *s, struct gs_nbody_held *h);

/* The state at a step's start, device to device (all positions, this slice's velocities and
 * forces); undo puts it back bit for bit. */
void gs_nbody_repl_keep(void *s);
void gs_nbody_repl_undo(void *s);

/* This rank's slice: it holds exactly it (no messages). */
void gs_nbody_repl_gather(void *s, void *pos, void *vel, void *acc);

void gs_nbody_repl_close(struct gs_nbody_repl *r);

#endif
