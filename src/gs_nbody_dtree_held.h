/* gs_nbody_dtree_held.h: the state of --solver tree --tree-layout domains (docs/tree.md,
 * "Domains"), which its files share, and the bodies one rank holds (gs_nbody_dtree_held.c). The
 * layout's files, each over the ones after it: gs_nbody_dtree.c (the solver table: load, gather,
 * forces, reports), gs_nbody_dtree_report.c (its lines and its check), gs_nbody_dtree_let.c (one
 * evaluation: build, cell table, LET exchange, walk), gs_nbody_dtree_cells.c (cube, keys, cells,
 * cut, migration), gs_nbody_dtree_held.c (the held bodies). */
#ifndef GS_NBODY_DTREE_HELD_H
#define GS_NBODY_DTREE_HELD_H

#include "gs_nbody_job.h"

/* A buffer of backend memory, grown as needed (its contents are not kept). */
struct gs_nbody_dtree_buf {
  void *p;
  size_t cap;
};

struct gs_nbody_dtree {
  struct gs_nbody_job *job;
  const struct gs_dtree_ops *ops;
  void *tree;                  /* the backend's state between build and walk */
  struct gs_dtree_bodies b;    /* held, sorted by (key, id) after each evaluation: backend memory */
  uint64_t cap;                /* room in b's arrays */
  void *scratch;               /* scratch forces in held order (cap vectors) */
  struct gs_dtree_bodies kept; /* keep / undo (backend memory) */
  uint64_t kept_cap;
  struct gs_dtree_cell *cell; /* the cell table, (owner, key) order */
  int ncell, cell_cap;
  int *first_cell; /* P + 1: rank r owns cells [first_cell[r], first_cell[r + 1]) */
  struct gs_dtree_curve *curve; /* the cells' order on the curve, kept while the cells stay (cells.c) */
  uint64_t *at;    /* this rank's cells' bodies: [at[k], at[k + 1]) of b */
  uint64_t C;      /* most bodies in a cell (with the leaf bucket's size at least) */
  int measured;    /* the bodies' work holds a walk's seconds (else the cut is by count) */
  struct gs_nbody_dtree_buf send, recv; /* migration rows out and in (backend memory) */
  struct gs_nbody_dtree_buf let;        /* the LETs received, rbytes[r] from rank r */
  uint64_t *rbytes;
  double inter, flops; /* interactions and flops of the last counted evaluation, all ranks */
  uint64_t counts[GS_TREE_COUNTS];
  uint64_t migrated; /* bodies that changed rank, summed over the ranks and the run's steps */
  double *let_bytes; /* per step: bytes this rank sent (the report takes the busiest) */
  int let_n, let_cap;
  double mem_own;                 /* the most bytes this rank's bodies and tree held after an evaluation */
  double dev_free0, dev_free_min; /* the device's free memory when the solver opened and its least since (mem_info) */
};

/* Room for bytes in buf (backend memory; what it held is not kept). */
void gs_nbody_dtree_held_buf(struct gs_nbody_dtree *d, struct gs_nbody_dtree_buf *buf, size_t bytes);
/* ... and freed. */
void gs_nbody_dtree_held_unbuf(struct gs_nbody_dtree *d, struct gs_nbody_dtree_buf *buf);
/* Room for n held bodies (their contents kept; the scratch forces grow alike). */
void gs_nbody_dtree_held_room(struct gs_nbody_dtree *d, uint64_t n);
/* The bytes the held bodies, their kept copy, the scratch forces and the exchange buffers take. */
double gs_nbody_dtree_held_bytes(const struct gs_nbody_dtree *d);
/* The held bodies into the kept copy, and back (the step's undo). */
void gs_nbody_dtree_held_keep(struct gs_nbody_dtree *d);
void gs_nbody_dtree_held_undo(struct gs_nbody_dtree *d);
/* Their memory, both copies and the scratch forces. */
void gs_nbody_dtree_held_free(struct gs_nbody_dtree *d);
/* The real bodies of this rank's standard slice (ids [job->first, + count) below n) from host
 * vectors pos, vel, acc of the slice (acc NULL: zero) become the held bodies, unmeasured. */
void gs_nbody_dtree_held_take(struct gs_nbody_dtree *d, const void *pos, const void *vel, const void *acc);
/* The held bodies where the host reads them: pos, vel, id and src (held acc or the scratch
 * forces), n of each; b's own arrays on a backend whose memory is the host's, else copies that
 * gs_nbody_dtree_held_unmirror frees. */
struct gs_nbody_dtree_mirror {
  const void *pos, *vel, *src;
  const uint64_t *id;
  void *copy[4];
};
void gs_nbody_dtree_held_mirror(struct gs_nbody_dtree *d, const void *src, struct gs_nbody_dtree_mirror *m);
void gs_nbody_dtree_held_unmirror(struct gs_nbody_dtree_mirror *m);
/* The standard id slices of pos, vel and acc (src: the held acc or the scratch forces) into host
 * buffers of job->count vectors (acc may be NULL), the padding zero. Collective. */
void gs_nbody_dtree_held_slices(struct gs_nbody_dtree *d, const void *src, void *pos, void *vel, void *acc);

#endif
