/* gs_nbody_dtree.h: --solver tree --tree-layout domains behind the seam (gs_nbody_solver.h): the
 * bodies are split into domain cells (key prefixes of at most --tree-cell bodies, each held whole
 * by one rank), every rank builds its cells' subtrees and sends every other rank the locally
 * essential tree it needs, then walks its bodies over the merged tree (docs/tree.md, "Domains").
 * Files: gs_nbody_dtree.c (the table, held bodies, load, gather, keep/undo), gs_nbody_dtree_cells.c
 * (cube, cells, cut, migration), gs_nbody_dtree_let.c (one evaluation: table, LET, walk),
 * gs_nbody_dtree_report.c (its lines). */
#ifndef GS_NBODY_DTREE_H
#define GS_NBODY_DTREE_H

#include "gs_nbody_job.h"

/* Its parts of struct gs_step_times (seconds of this rank). */
#define GS_NBODY_DTREE_BUILD 0  /* cell subtrees */
#define GS_NBODY_DTREE_WALK 1   /* merge and walk */
#define GS_NBODY_DTREE_DOMAIN 2 /* cube, cells, cut and migration */
#define GS_NBODY_DTREE_LET 3    /* the cell table's gather and the LET exchange */

/* Flags of gs_nbody_dtree_let_eval. */
#define GS_NBODY_DTREE_SCRATCH 1 /* into the scratch forces (held acc keeps its bits), no balance update */
#define GS_NBODY_DTREE_DIAG 2    /* the diagnostics' walk: geometric at theta 0.5, with the potential */

struct gs_nbody_dtree {
  struct gs_nbody_job *job;
  const struct gs_dtree_ops *ops;
  void *tree;                  /* the backend's state between build and walk */
  struct gs_dtree_bodies b;    /* held, sorted by (key, id) after each evaluation */
  uint64_t cap;                /* room in b's arrays */
  void *scratch;               /* scratch forces in held order (cap vectors) */
  struct gs_dtree_bodies kept; /* keep / undo */
  uint64_t kept_cap;
  struct gs_dtree_cell *cell; /* the cell table, (owner, key) order */
  int ncell, cell_cap;
  int *first_cell; /* P + 1: rank r owns cells [first_cell[r], first_cell[r + 1]) */
  uint64_t *at;    /* this rank's cells' bodies: [at[k], at[k + 1]) of b */
  uint64_t C;      /* most bodies in a cell (with the leaf bucket's size at least) */
  int measured;    /* the bodies' work holds a walk's seconds (else the cut is by count) */
  struct gs_dtree_msg send, recv;
  double inter, flops; /* interactions and flops of the last counted evaluation, all ranks */
  uint64_t counts[GS_TREE_COUNTS];
  uint64_t migrated; /* bodies that changed rank, summed over the ranks and the run's steps */
  double *let_bytes; /* per step: bytes this rank sent (the report takes the busiest) */
  int let_n, let_cap;
};

/* gs_nbody_dtree_cells.c: this evaluation's domains. The global cube, the keys and sort, the
 * cells (rounds of global counts), the cut (by last work, else count) and the migration; then the
 * held bodies are sorted and d->at holds this rank's cells. Collective. Returns the bodies this
 * rank sent away. */
uint64_t gs_nbody_dtree_cells_update(struct gs_nbody_dtree *d);

/* gs_nbody_dtree_let.c: one evaluation after the domains: build, the table, the LET exchange and
 * the walk into held acc (or the scratch forces), part[] of st (if not NULL) timed. flags:
 * GS_NBODY_DTREE_*; first: no a_old; count: add the walk's counters. Collective; a walk that met
 * a closed node fails the run. */
void gs_nbody_dtree_let_eval(struct gs_nbody_dtree *d, int potential, int first, int flags, double part[4]);

/* gs_nbody_dtree.c: room for n held bodies (their contents kept), and the standard id slices
 * of pos, vel and acc (src: the held acc or the scratch forces) into host buffers of job->count
 * vectors (acc may be NULL). Collective. */
void gs_nbody_dtree_room(struct gs_nbody_dtree *d, uint64_t n);
void gs_nbody_dtree_slices(struct gs_nbody_dtree *d, const void *src, void *pos, void *vel, void *acc);

/* gs_nbody_dtree_report.c: the solver's lines (gs_nbody_solver.h's header, report_first,
 * report_steps, report_final). */
void gs_nbody_dtree_report_header(struct gs_nbody_dtree *d, double tol);
void gs_nbody_dtree_report_first(struct gs_nbody_dtree *d, double tol);
void gs_nbody_dtree_report_steps(struct gs_nbody_dtree *d, const struct gs_step_times *t, int steps);
void gs_nbody_dtree_report_final(struct gs_nbody_dtree *d, long step, double tol);

#endif
