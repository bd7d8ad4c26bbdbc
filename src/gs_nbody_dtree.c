/* gs_nbody_dtree.c: --solver tree --tree-layout domains behind the seam (gs_nbody_solver.h): the
 * bodies are split into domain cells (key prefixes of at most --tree-cell bodies, each held whole
 * by one rank), every rank builds its cells' subtrees and sends every other rank the locally
 * essential tree it needs, then walks its bodies over the merged tree (docs/tree.md, "Domains";
 * the files: gs_nbody_dtree_held.h). This is its solver table: the held bodies (its domain
 * cells', in (key, id) order, with their global ids) loaded from initial conditions or a
 * checkpoint (by id: a checkpoint is layout-free), forces, the standard id slices for snapshots
 * and checkpoints, keep / undo, reports. The driver's replicated buffers (h_pos, d_pos of N
 * bodies) are not made for it (its table's layout is GS_NBODY_LAYOUT_DOMAINS): a rank holds
 * O(N / P) bodies. */
#include "gs_nbody_dtree_held.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_checkpoint.h"
#include "gs_nbody_dtree_cells.h"
#include "gs_nbody_dtree_let.h"
#include "gs_nbody_dtree_report.h"
#include "gs_nbody_setup.h"
#include "gs_nbody_tree.h"
#include "gs_nbody_tree_report.h"
#include "gs_nbody_tree_solver.h"

static void gs_nbody_dtree_keep(void *s) { gs_nbody_dtree_held_keep(s); }

static void gs_nbody_dtree_undo(void *s) { gs_nbody_dtree_held_undo(s); }

static void gs_nbody_dtree_put(const struct gs_nbody_job *job, void *v, uint64_t i, const double q[4]) {
  for (int c = 0; c < 4; c++) {
    if (job->prec)
      ((double *)v)[4 * i + c] = q[c];
    else
      ((float *)v)[4 * i + c] = (float)q[c];
  }
}

/* Fresh: b holds all bodies, or (a preset) this rank's slice (gs_nbody_setup_origin); its slice
 * becomes held, the mass the origin's (summed in blocks, as the replicated layout has it). */
static void gs_nbody_dtree_fresh(struct gs_nbody_dtree *d, const struct gs_nbody_origin *from) {
  const struct gs_bodies *b = from->b;
  struct gs_nbody_job *job = d->job;
  size_t bytes = (job->count ? job->count : 1) * job->esz;
  void *pos = calloc(1, bytes), *vel = calloc(1, bytes);
  if (!pos || !vel) GS_DIE(&job->run->where, "calloc", "out of memory");
  for (uint64_t i = job->first; i < job->first + job->count && i < job->n; i++) {
    uint64_t j = i - from->first; /* b: all bodies, or this rank's slice */
    double q[4] = {b->x[j], b->y[j], b->z[j], b->m[j]}, v[4] = {b->vx[j], b->vy[j], b->vz[j], 0};
    gs_nbody_dtree_put(job, pos, i - job->first, q), gs_nbody_dtree_put(job, vel, i - job->first, v);
  }
  gs_nbody_dtree_held_take(d, pos, vel, NULL);
  free(pos), free(vel);
  job->mass = from->mass;
}

/* A checkpoint (rank 0 holds it open: pos | vel | acc, npad vectors each): the standard slices,
 * one rank's at a time, so no rank ever holds all N. */
static void gs_nbody_dtree_restore(struct gs_nbody_dtree *d, struct gs_ckpt_reader *ckpt) {
  struct gs_nbody_job *job = d->job;
  size_t mine = (job->count ? job->count : 1) * job->esz;
  void *slice[3] = {malloc(mine), malloc(mine), malloc(mine)};
  if (!slice[0] || !slice[1] || !slice[2]) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int k = 0; k < 3; k++)
    gs_nbody_setup_scatter(job, ckpt, k, slice[k]);
  gs_nbody_dtree_held_take(d, slice[0], slice[1], slice[2]);
  for (int k = 0; k < 3; k++)
    free(slice[k]);
  job->mass = gs_nbody_setup_mass_of(job, ckpt);
}

static void gs_nbody_dtree_load(void *s, const struct gs_nbody_origin *from) {
  if (from->b)
    gs_nbody_dtree_fresh(s, from);
  else
    gs_nbody_dtree_restore(s, from->ckpt);
}

/* The checkpoint's forces are the held acc already (loaded with the slice). */
static void gs_nbody_dtree_resume(void *s) { (void)s; }

static void gs_nbody_dtree_view(void *s, struct gs_nbody_held *h) {
  struct gs_nbody_dtree *d = s;
  h->pos = d->b.pos, h->vel = d->b.vel, h->acc = d->b.acc, h->id = d->b.id;
  h->first = 0, h->count = d->b.n;
}

static void gs_nbody_dtree_gather(void *s, void *pos, void *vel, void *acc) {
  struct gs_nbody_dtree *d = s;
  gs_nbody_dtree_held_slices(d, d->b.acc, pos, vel, acc);
}

static double gs_nbody_dtree_forces(void *s, int potential, int first, struct gs_step_times *st) {
  struct gs_nbody_dtree *d = s;
  double part[4] = {0}, t0 = 0;
  gs_nbody_dtree_let_eval(d, potential && gs_nbody_tree_diag_own(d->job), first, 0, part);
  (void)t0;
  if (st) {
    memcpy(st->part, part, sizeof part);
    st->forces = part[GS_NBODY_DTREE_BUILD] + part[GS_NBODY_DTREE_WALK];
  }
  return part[GS_NBODY_DTREE_DOMAIN] + part[GS_NBODY_DTREE_LET]; /* what the distribution costs */
}

/* As the replicated tree's: the diagnostics' potential from a geometric walk at theta 0.5. */
static const void *gs_nbody_dtree_potential(void *s, int fresh) {
  struct gs_nbody_dtree *d = s;
  if (!fresh && gs_nbody_tree_diag_own(d->job)) return d->b.acc;
  gs_nbody_dtree_let_eval(d, 1, 0, GS_NBODY_DTREE_SCRATCH | GS_NBODY_DTREE_DIAG, NULL);
  return d->scratch;
}

static double gs_nbody_dtree_tol(const struct gs_nbody_dtree *d) {
  return gs_nbody_options_force_tol(d->job->o, d->job->law == GS_LAW_CUTOFF);
}

static void gs_nbody_dtree_header(void *s, const struct gs_ckpt_header *ck) {
  struct gs_nbody_dtree *d = s;
  struct gs_nbody_tree view = {.repl = {.job = d->job}}; /* the replicated tree's note reads only the job */
  if (ck) gs_nbody_tree_report_restart(&view, ck);
  gs_nbody_dtree_report_header(s, gs_nbody_dtree_tol(s));
}

static void gs_nbody_dtree_first(void *s) { gs_nbody_dtree_report_first(s, gs_nbody_dtree_tol(s)); }

static void gs_nbody_dtree_steps(void *s, const struct gs_step_times *t, int steps) {
  gs_nbody_dtree_report_steps(s, t, steps);
}

static void gs_nbody_dtree_final(void *s, long last) { gs_nbody_dtree_report_final(s, last, gs_nbody_dtree_tol(s)); }

/* Per rank: its share of the bodies (half as many again on several ranks, for imbalance and the
 * bodies received), each with its vectors, id, key and work, their kept copy (no key) and the
 * scratch forces, and what the backend's state holds per body. */
static double gs_nbody_dtree_memory(const struct gs_nbody_job *job, uint64_t n) {
  double share = (double)n / job->run->size * (job->run->size > 1 ? 1.5 : 1.0625) + 1024;
  return share * (7.0 * (double)job->esz + 40 + job->be->dtree->body_bytes[job->prec]);
}

static void gs_nbody_dtree_adopt(const struct gs_ckpt_header *h, struct gs_nbody_opts *o,
                                 const struct gs_options *opt) {
  gs_nbody_tree_solver_adopt(h, o, opt); /* the same settings as the replicated layout's, and the cells' */
  if (!gs_options_given(opt, "tree-cell")) o->tree_cell = h->tree_cell;
}

static int gs_nbody_dtree_check(struct gs_nbody_job *job, struct gs_msg *msg) {
  job->kname = "tree";
  if (!job->be->dtree)
    return gs_error_msg(msg,
                        "--tree-layout domains: the %s backend does not have the distributed tree yet (give "
                        "--tree-layout replicated)",
                        job->be->name);
  return gs_nbody_tree_solver_check(job, msg);
}

static void *gs_nbody_dtree_open(struct gs_nbody_job *job) {
  struct gs_nbody_dtree *d = calloc(1, sizeof *d);
  if (!d) GS_DIE(&job->run->where, "calloc", "out of memory");
  d->job = job, d->ops = job->be->dtree;
  d->tree = d->ops->open(job->ctx, job->qc);
  double total = 0;
  if (job->be->mem_info) job->be->mem_info(job->ctx, &d->dev_free0, &total);
  d->dev_free_min = d->dev_free0;
  d->first_cell = calloc((size_t)job->run->size + 1, sizeof *d->first_cell);
  d->rbytes = calloc((size_t)job->run->size, sizeof *d->rbytes);
  if (!d->first_cell || !d->rbytes) GS_DIE(&job->run->where, "calloc", "out of memory");
  uint64_t leaf = job->o->leaf > 0 ? (uint64_t)job->o->leaf : (uint64_t)d->ops->leaf;
  d->C = job->o->tree_cell > 0 ? job->o->tree_cell : job->n / 16384 > 4096 ? job->n / 16384 : 4096;
  if (d->C < leaf) d->C = leaf; /* a cell is never split above a leaf bucket of the global tree */
  gs_nbody_dtree_held_room(d, 1);
  return d;
}

/* A run that names no layout gets the domains where the backend has the distributed primitives. */
static int gs_nbody_dtree_runs_on(const struct gs_backend *be) { return be->dtree != NULL; }

static double gs_nbody_dtree_interactions(void *s) { return ((struct gs_nbody_dtree *)s)->inter; }

static void gs_nbody_dtree_ckpt(const struct gs_nbody_job *job, struct gs_ckpt_header *h) {
  gs_nbody_tree_solver_ckpt(job, h); /* layout-free: any layout restarts it */
  h->tree_cell = job->o->tree_cell;  /* a domains restart cuts the same cells (the replicated one ignores it) */
}

static void gs_nbody_dtree_close(void *s) {
  struct gs_nbody_dtree *d = s;
  d->ops->close(d->job->ctx, d->tree);
  gs_nbody_dtree_held_free(d);
  gs_nbody_dtree_cells_free(d);
  free(d->cell), free(d->first_cell), free(d->at), free(d->rbytes);
  free(d->let_bytes);
  free(d);
}

const struct gs_nbody_solver gs_nbody_dtree_ops = {
    .name = "tree",
    .id = GS_NBODY_TREE,
    .layout = GS_NBODY_LAYOUT_DOMAINS,
    .rank_exact = 1,
    .runs_on = gs_nbody_dtree_runs_on,
    .memory = gs_nbody_dtree_memory,
    .adopt = gs_nbody_dtree_adopt,
    .check = gs_nbody_dtree_check,
    .open = gs_nbody_dtree_open,
    .load = gs_nbody_dtree_load,
    .resume = gs_nbody_dtree_resume,
    .held = gs_nbody_dtree_view,
    .forces = gs_nbody_dtree_forces,
    .potential = gs_nbody_dtree_potential,
    .keep = gs_nbody_dtree_keep,
    .undo = gs_nbody_dtree_undo,
    .gather = gs_nbody_dtree_gather,
    .interactions = gs_nbody_dtree_interactions,
    .header = gs_nbody_dtree_header,
    .report_first = gs_nbody_dtree_first,
    .report_steps = gs_nbody_dtree_steps,
    .report_final = gs_nbody_dtree_final,
    .ckpt = gs_nbody_dtree_ckpt,
    .close = gs_nbody_dtree_close,
};
