/* gs_nbody_solver.h: the N-body solver seam. A solver is a const table, as a backend is: it owns
 * the bodies this rank holds, how they are distributed, its state, queues' use, events and
 * exchange, and its reports. The driver (gs_nbody.c, gs_nbody_step.c, gs_nbody_energy.c,
 * gs_nbody_io.c) reaches bodies only through it and never asks which solver runs. Adding a
 * solver: its own file(s) and one line in gs_nbody_solver.c's list, which declares its table
 * (this header names no solver; docs/architecture.md). */
#ifndef GS_NBODY_SOLVER_H
#define GS_NBODY_SOLVER_H

#include "gs_ic.h"
#include "gs_nbody_job.h"

struct gs_ckpt_header;
struct gs_ckpt_reader;

/* What this rank holds: valid until the next call that may move bodies (forces, potential, undo,
 * load). count may exceed job->count (the distributed tree's domains): the driver grows its
 * diagnostic buffers (d_terms, the reduction workspace) to it. */
struct gs_nbody_held {
  void *pos, *vel, *acc; /* device, count body vectors each; acc is the last forces (w: potential) */
  const uint64_t *id;    /* host, count ids in held order; NULL: the ids are first .. first + count - 1 */
  uint64_t first, count; /* count includes zero-mass padding where the solver has it */
};

/* Where a run's bodies come from (load): fresh bodies b, ids first .. first + b->n - 1 (every rank
 * all of them; a solver of the domains layout its own slice of a preset, gs_nbody_setup_origin),
 * with mass, the total mass of the run's precision (job->mass: the same bits in every layout and
 * for every rank count); or rank 0 holds a checkpoint, open and checked (gs_checkpoint.h: pos |
 * vel | acc, job->npad body vectors each; NULL elsewhere), and b is NULL: gs_nbody_setup_scatter
 * hands out its slices. */
struct gs_nbody_origin {
  const struct gs_bodies *b;
  uint64_t first;
  double mass;
  struct gs_ckpt_reader *ckpt;
};

struct gs_nbody_solver {
  const char *name; /* "direct", "tree", "fmm": the result rows' kernel column for the tree, the corrupt hook */
  int id;           /* --solver's value and the checkpoint's solver field (enum gs_nbody_solver_id) */
  /* The layout its bodies are held in (enum gs_nbody_layout): GS_NBODY_LAYOUT_REPLICATED, every
   * rank holds every position in the driver's buffers; GS_NBODY_LAYOUT_DOMAINS, each rank holds
   * its own bodies (O(N / P)) and the driver makes no N-body buffers. --tree-layout picks among the
   * tables of one id by it. */
  int layout;
  /* 1: its results do not depend on the rank count, bit for bit (the tree: a body's force is the
   * same walk whoever walks it); 0: they do within round-off (direct: a force sums the slices in
   * the ranks' order). What the header says of a restart on another rank count. */
  int rank_exact;
  /* NULL, or whether backend be has what this table needs: a run that names no layout gets the
   * first table of its id (in gs_nbody_solver.c's list) whose backend has it. */
  int (*runs_on)(const struct gs_backend *be);
  /* Device memory per rank beyond the driver's, for n bodies (before the plan's size check). */
  double (*memory)(const struct gs_nbody_job *job, uint64_t n);
  /* A restart with this solver from a checkpoint h of this solver: its settings the command line
   * (opt) left out, from h, into o. */
  void (*adopt)(const struct gs_ckpt_header *h, struct gs_nbody_opts *o, const struct gs_options *opt);
  /* After the plan (options, restart adopted, job->n known): can this run use it here? GS_OK, or
   * GS_USAGE with msg; the driver agrees it over the ranks. May set job->kname. */
  int (*check)(struct gs_nbody_job *job, struct gs_msg *msg);
  /* Its state: workspaces, events, exchange buffers (collective; after the driver's setup). */
  void *(*open)(struct gs_nbody_job *job);
  /* The initial bodies (collective); sets job->mass (every rank: fresh, the origin's; a checkpoint's
   * from gs_nbody_setup_mass: the same bits). */
  void (*load)(void *s, const struct gs_nbody_origin *from);
  /* After a restart's load and the first report: the checkpoint's forces become the held acc
   * (the first half-kick must see their bits) and whatever the solver derives from them. */
  void (*resume)(void *s);
  void (*held)(void *s, struct gs_nbody_held *h);
  /* Forces (and the potential if asked) on the held bodies into held acc (collective; may move
   * bodies: re-read held). first: the run's first evaluation (no previous forces, no timing; st
   * NULL); else a step's: fills st->forces and st->x[], returns the exchange's wall seconds. */
  double (*forces)(void *s, int potential, int first, struct gs_step_times *st);
  /* The accelerations whose w holds the potential for the diagnostics, in held order (collective:
   * every rank calls it). fresh: the last forces did not compute the potential; a scratch
   * evaluation may be made, never touching held acc's bits. */
  const void *(*potential)(void *s, int fresh);
  /* Keep the state at a step's start; undo puts it back bit for bit (every rank does both). */
  void (*keep)(void *s);
  void (*undo)(void *s);
  /* Collective: this rank's slice of the standard decomposition, ids [job->first, + job->count),
   * into host buffers of job->count body vectors (acc may be NULL). */
  void (*gather)(void *s, void *pos, void *vel, void *acc);
  /* Interactions of one evaluation over all ranks (progress rates). */
  double (*interactions)(void *s);
  /* Rank 0: its lines of the run header; ck: the checkpoint resumed from, or NULL. */
  void (*header)(void *s, const struct gs_ckpt_header *ck);
  void (*report_first)(void *s); /* collective: the first evaluation's check, table and rows */
  void (*report_steps)(void *s, const struct gs_step_times *t, int steps); /* collective: per-step line, row */
  void (*report_final)(void *s, long last); /* collective: the end's checks (may set job->failed) */
  void (*ckpt)(const struct gs_nbody_job *job, struct gs_ckpt_header *h); /* its fields of a header */
  void (*close)(void *s);
  /* NULL, or the momentum drift |P - P0| / (M v_rms) its forces allow `steps` steps after P0: a
   * solver whose forces cancel pairwise to round-off (the FMM's mutual walk) fails a run above it. */
  double (*momentum_tol)(const struct gs_nbody_job *job, long steps);
};

/* The solver of --solver's value (GS_NBODY_DIRECT, GS_NBODY_TREE), or NULL. */
const struct gs_nbody_solver *gs_nbody_solver_find(int id);

/* The solver a run with options o uses on backend be: the table of --solver's id and --tree-layout's
 * layout, or with no layout given the first of that id (in gs_nbody_solver.c's list) that runs on
 * be; NULL for no such id. */
const struct gs_nbody_solver *gs_nbody_solver_pick(const struct gs_nbody_opts *o, const struct gs_backend *be);

#endif
