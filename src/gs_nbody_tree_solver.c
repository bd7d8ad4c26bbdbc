/* gs_nbody_tree_solver.c: the tree solver's table (gs_nbody_solver.h): the replicated layout
 * (gs_nbody_repl.c), its evaluation (gs_nbody_tree.c) and its reports (gs_nbody_tree_report.c).
 * A table of its own so that neither of those two includes the other. */
#include "gs_nbody_tree_solver.h"

#include <stdlib.h>

#include "gs_checkpoint.h"
#include "gs_nbody_tree.h"
#include "gs_nbody_tree_report.h"

static void gs_nbody_tree_solver_resume(void *s) { gs_nbody_tree_resume(s); }

static double gs_nbody_tree_solver_forces(void *s, int potential, int first, struct gs_step_times *st) {
  return gs_nbody_tree_step(s, potential, first, st);
}

/* The check's tolerance: --force-tol, else the tree's usual one (docs/tree.md). */
static double gs_nbody_tree_solver_tol(const void *s) {
  const struct gs_nbody_job *job = ((const struct gs_nbody_tree *)s)->repl.job;
  return gs_nbody_options_force_tol(job->o, job->law == GS_LAW_CUTOFF);
}

static void gs_nbody_tree_solver_header(void *s, const struct gs_ckpt_header *ck) {
  if (ck) gs_nbody_tree_report_restart(s, ck);
  gs_nbody_tree_report_header(s, gs_nbody_tree_solver_tol(s));
}

static void gs_nbody_tree_solver_first(void *s) { gs_nbody_tree_report_table(s, gs_nbody_tree_solver_tol(s)); }

static void gs_nbody_tree_solver_steps(void *s, const struct gs_step_times *t, int steps) {
  gs_nbody_tree_report_steps(s, t, steps);
}

static void gs_nbody_tree_solver_final(void *s, long last) {
  gs_nbody_tree_report_final(s, last, gs_nbody_tree_solver_tol(s));
}

/* The tree's potential always from its diagnostics' evaluation (geometric at a fixed theta,
 * whatever --opening, --alpha and --theta), so E0 and every later E come from one criterion and
 * |dE/E0| does not move when the run's test changes (the relative test's first evaluation is
 * geometric). d_acc keeps its bits. Collective (build, walk, the forces' all-gather): every rank
 * takes part, with bodies or none. */
static const void *gs_nbody_tree_solver_potential(void *s, int fresh) {
  struct gs_nbody_tree *t = s;
  if (!fresh && gs_nbody_tree_diag_own(t->repl.job)) return t->repl.job->d_acc;
  gs_nbody_tree_scratch(t);
  return t->repl.job->d_acc_scratch;
}

static double gs_nbody_tree_solver_memory(const struct gs_nbody_job *job, uint64_t n) {
  const struct gs_run *run = job->run;
  if (!run->be->tree) return 0; /* refused by the check */
  /* the tree's workspace, and its forces in the tree's order (and a_old for the relative test) */
  uint64_t npad = (n + GS_NBODY_TILE - 1) / GS_NBODY_TILE * GS_NBODY_TILE;
  struct gs_tree_args a = {.precision = job->prec, .n = n, .targets = GS_TREE_BY_ORDER, .i_count = npad};
  return (double)run->be->tree->workspace(job->ctx, &a) + (double)npad * job->esz * (job->o->opening ? 2 : 1);
}

void gs_nbody_tree_solver_adopt(const struct gs_ckpt_header *h, struct gs_nbody_opts *o,
                                const struct gs_options *opt) {
  if (!gs_options_given(opt, "theta")) o->theta = h->theta;
  if (!gs_options_given(opt, "opening")) o->opening = h->opening;
  if (!gs_options_given(opt, "alpha")) o->alpha = h->alpha;
  if (!gs_options_given(opt, "leaf")) o->leaf = h->leaf;
}

int gs_nbody_tree_solver_check(struct gs_nbody_job *job, struct gs_msg *msg) {
  job->kname = "tree";
  if (!job->be->tree) return gs_error_msg(msg, "--solver tree: the %s backend has no tree solver", job->be->name);
  if (gs_options_given(job->run->opt, "kernel"))
    return gs_error_msg(
        msg, "--kernel names direct-sum kernels: the checkpoint's solver is the tree (give --solver direct)");
  return GS_OK;
}

/* The replicated layout's check: the tree's, and no option of the domains. */
static int gs_nbody_tree_solver_check_repl(struct gs_nbody_job *job, struct gs_msg *msg) {
  if (gs_options_given(job->run->opt, "tree-cell"))
    return gs_error_msg(msg, "--tree-cell is an option of --tree-layout domains: this run's tree is replicated");
  return gs_nbody_tree_solver_check(job, msg);
}

static void *gs_nbody_tree_solver_open(struct gs_nbody_job *job) {
  struct gs_nbody_tree *t = calloc(1, sizeof *t);
  if (!t) GS_DIE(&job->run->where, "calloc", "out of memory");
  gs_nbody_repl_open(&t->repl, job);
  gs_nbody_tree_open(t);
  return t;
}

static double gs_nbody_tree_solver_interactions(void *s) { return ((struct gs_nbody_tree *)s)->inter; }

void gs_nbody_tree_solver_ckpt(const struct gs_nbody_job *job, struct gs_ckpt_header *h) {
  const struct gs_nbody_opts *o = job->o;
  h->solver = GS_NBODY_TREE, h->opening = o->opening, h->theta = o->theta, h->alpha = o->alpha, h->leaf = o->leaf;
}

static void gs_nbody_tree_solver_close(void *s) {
  gs_nbody_tree_close(s);
  gs_nbody_repl_close(s);
  free(s);
}

const struct gs_nbody_solver gs_nbody_tree_solver_ops = {
    .name = "tree",
    .id = GS_NBODY_TREE,
    .layout = GS_NBODY_LAYOUT_REPLICATED,
    .rank_exact = 1,
    .memory = gs_nbody_tree_solver_memory,
    .adopt = gs_nbody_tree_solver_adopt,
    .check = gs_nbody_tree_solver_check_repl,
    .open = gs_nbody_tree_solver_open,
    .load = gs_nbody_repl_load,
    .resume = gs_nbody_tree_solver_resume,
    .held = gs_nbody_repl_held,
    .forces = gs_nbody_tree_solver_forces,
    .potential = gs_nbody_tree_solver_potential,
    .keep = gs_nbody_repl_keep,
    .undo = gs_nbody_repl_undo,
    .gather = gs_nbody_repl_gather,
    .interactions = gs_nbody_tree_solver_interactions,
    .header = gs_nbody_tree_solver_header,
    .report_first = gs_nbody_tree_solver_first,
    .report_steps = gs_nbody_tree_solver_steps,
    .report_final = gs_nbody_tree_solver_final,
    .ckpt = gs_nbody_tree_solver_ckpt,
    .close = gs_nbody_tree_solver_close,
};
