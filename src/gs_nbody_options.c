/* gs_nbody_options.c: `gpusim nbody`'s option table, defaults and cross-option checks. */
#include "gs_nbody_options.h"

#include <string.h>

#include "gs_backend.h"
#include "gs_exchange.h"
#include "gs_kernel_list.h"

#define GS_B(field) GS_OPT_AT(struct gs_nbody_opts, field)

/* --kernel's names and help line come from the backends' own lists (gs_backend_names):
 * this file names no kernel. The option table is static data, so they are made when the
 * subcommand's defaults are (gs_options_parse names the subcommand before it reads any of its
 * options, validates them or prints its help), the same every time. */
const char *gs_nbody_options_kernels[GS_NBODY_OPTIONS_KERNELS_MAX];
int gs_nbody_options_numbered;
static char gs_nbody_options_kernel_help[512];

const struct gs_opt gs_nbody_options_table[] = {
    {"n", GS_OPT_COUNT, GS_B(n), 1, (int64_t)1 << 40, NULL, "N", "bodies (default 2^18)", NULL},
    {"steps", GS_OPT_INT, GS_B(steps), 0, 100000000, NULL, "K", "time steps (default 10)", NULL},
    {"dt", GS_OPT_REAL, GS_B(dt), 0, 0, NULL, "DT", "time step, > 0 (default 0.001)", NULL},
    {"eps", GS_OPT_REAL, GS_B(eps), 0, 0, NULL, "E",
     "Plummer softening length, > 0 (default 0.01; --ic disk uses the seed's hard cutoff at r < 0.01 instead)", NULL},
    {"ic", GS_OPT_STRING, GS_B(ic), 0, 0, NULL, "IC",
     "plummer (Henon units), disk (the seed 003 2D model: mG = 10, cutoff 0.01), uniform (cold sphere), "
     "or a FILE of 'x y z vx vy vz m' lines (./NAME for a file named like one of these) (default plummer)",
     NULL},
    {"seed", GS_OPT_COUNT, GS_B(seed), 0, INT64_MAX, NULL, "S", "initial-condition seed (default 1)", NULL},
    {"precision", GS_OPT_CHOICE, GS_B(precision), 0, 0, "single|double", "P",
     "arithmetic: single (also float, fp32) or double (fp64), any case (default single)",
     "single=single,float=single,fp32=single,f32=single,double=double,fp64=double,f64=double"},
    {"kernel", GS_OPT_STRING, GS_B(kernels), 0, 0, NULL, "LIST", gs_nbody_options_kernel_help, NULL},
    {"energy-every", GS_OPT_INT, GS_B(energy_every), 0, 100000000, NULL, "K",
     "energy, momentum and centre-of-mass diagnostics every K steps (default 0: start and end only)", NULL},
    {"overlap", GS_OPT_CHOICE, GS_B(overlap), 0, 0, "off|on", "O",
     "overlap the position exchange with force computation (default on)", NULL},
    {"exchange", GS_OPT_CHOICE, GS_B(exchange), 0, 0, GS_EXCHANGE_CHOICES, "X",
     "how positions travel between ranks: nccl (device to device, NCCL), cuda-mpi (device buffers to a CUDA-aware "
     "MPI), host (staged through pinned host memory), auto (nccl if built and every rank has a GPU, else cuda-mpi "
     "if MPI is CUDA-aware, else host; the header says which and why) (default auto)",
     NULL},
    {"iters", GS_OPT_INT, GS_B(iters), 1, 1000000, NULL, "K", "timed force evaluations per kernel (default 3)", NULL},
    {"output", GS_OPT_STRING, GS_B(output), 0, 0, NULL, "DIR",
     "directory for snapshots and checkpoints (default nbody-out)", NULL},
    {"snapshot-every", GS_OPT_INT, GS_B(snapshot_every), 0, 100000000, NULL, "K",
     "snapshot (positions, velocities, masses, ids, time) every K steps and at the end (default 0: none)", NULL},
    {"checkpoint-every", GS_OPT_INT, GS_B(checkpoint_every), 0, 100000000, NULL, "K",
     "checkpoint every K steps (default 0: only on a stop signal or the wall-clock budget)", NULL},
    {"checkpoint-interval", GS_OPT_REAL, GS_B(checkpoint_interval), 0, 0, NULL, "MIN",
     "also checkpoint every MIN minutes of wall clock (default 0: off)", NULL},
    {"walltime", GS_OPT_STRING, GS_B(walltime), 0, 0, NULL, "HH:MM:SS",
     "wall-clock budget: checkpoint and stop (exit 0) before it runs out", NULL},
    {"restart", GS_OPT_STRING, GS_B(restart), 0, 0, NULL, "PATH",
     "resume from a checkpoint file, or the newest complete one in a directory; --steps is the step to end at. "
     "SIGTERM, SIGINT, SIGUSR1 or SIGUSR2 make a run checkpoint its last completed step (abandoning the step in progress) "
     "and exit 0",
     NULL},
    {"overwrite", GS_OPT_FLAG, GS_B(overwrite), 0, 0, NULL, NULL,
     "write into an --output that holds another run's checkpoint (an error otherwise); its checkpoints are kept, "
     "and one at a step this run may checkpoint (any of its steps: a stop may come at each), or a snapshot this run "
     "would write, is refused at start",
     NULL},
    {"progress", GS_OPT_CHOICE, GS_B(progress), 0, 0, "auto|bar|lines|off", "P",
     "progress from rank 0: auto = a bar on a terminal outside a batch job, else plain lines every 10 s or 10% "
     "of the run (default auto)",
     NULL},
    {"solver", GS_OPT_CHOICE, GS_B(solver), 0, 0, "direct|tree|fmm", "S",
     "direct: the all-pairs sum (the reference); tree: Barnes-Hut, every rank builds the whole tree and walks its "
     "own slice; fmm: the fast multipole method (Dehnen's falcON, O(N), momentum kept to round-off; CPU backend, "
     "Plummer softening) (default direct)",
     NULL},
    {"theta", GS_OPT_REAL, GS_B(theta), 0, 0, NULL, "T",
     "tree: opening angle, 0 < T <= 1.5: a cell is opened when its size exceeds T times its distance (default 0.5)",
     NULL},
    {"opening", GS_OPT_CHOICE, GS_B(opening), 0, 0, "geometric|relative", "C",
     "tree: opening test: geometric (Barnes-Hut, --theta) or relative (GADGET-2's, against the previous "
     "acceleration, --alpha; the first evaluation is geometric) (default geometric)",
     NULL},
    {"alpha", GS_OPT_REAL, GS_B(alpha), 0, 0, NULL, "A",
     "tree, --opening relative: force error tolerance relative to |a_old|, 0 < A <= 1 (default 0.005)", NULL},
    {"leaf", GS_OPT_INT, GS_B(leaf), 0, 1024, NULL, "K", "tree: most bodies per leaf bucket (default 0: the backend's choice)",
     NULL},
    {"force-tol", GS_OPT_REAL, GS_B(force_tol), 0, 0, NULL, "X",
     "tree: the verification fails when the 99th percentile of |a - a_ref| / |a_ref| over up to 1024 bodies exceeds X, "
     "X > 0 (default: none; above the usual accuracy by theta, 0.01 up to 0.3, 0.05 up to 0.5, 0.3 up to 0.7, 1 up to "
     "1.0, 2 above, with --opening relative at least 4 alpha, 4x that for --ic disk's cutoff law, a warning; failed "
     "above 10x that against the force scale: docs/tree.md)",
     NULL},
    {"tree-layout", GS_OPT_CHOICE, GS_B(tree_layout), 0, 0, "domains|replicated", "L",
     "tree: domains (each rank holds the bodies of its domain cells and receives the locally essential tree; "
     "results bitwise independent of the rank count) or replicated (every rank builds the whole tree) (default "
     "domains where the backend has it, the CPU's; replicated on CUDA)",
     NULL},
    {"tree-cell", GS_OPT_COUNT, GS_B(tree_cell), 1, (int64_t)1 << 40, NULL, "C",
     "tree, domains: most bodies in a domain cell, the unit of the ranks' domains; changes balance and "
     "messages, never a result bit (default max(4096, N / 16384))",
     NULL},
    {"fmm-order", GS_OPT_INT, GS_B(fmm_order), GS_FMM_ORDER_MIN, GS_FMM_ORDER_MAX, NULL, "P",
     "fmm: expansion order, 1 to 8: higher is more accurate and costs more per cell pair (default 6)", NULL},
    {"fmm-theta", GS_OPT_REAL, GS_B(fmm_theta), 0, 0, NULL, "T",
     "fmm: opening of the dual walk, 0 < T < 1: two cells interact through their expansions when the sum of their "
     "radii is below T times the distance of their centres (default 0.7)",
     NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL},
};

/* The generated initial conditions, by name. */
static const char *const gs_nbody_options_presets[] = {"plummer", "disk", "uniform", NULL};

int gs_nbody_options_preset(const char *ic) {
  for (int k = 0; gs_nbody_options_presets[k]; k++)
    if (gs_options_keyword(ic, strlen(ic), gs_nbody_options_presets[k])) return 1;
  return 0;
}

/* --ic: a preset in any case becomes its own spelling (the rest of the run compares that). */
static void gs_nbody_options_ic(struct gs_nbody_opts *b) {
  for (int k = 0; gs_nbody_options_presets[k]; k++)
    if (gs_options_keyword(b->ic, strlen(b->ic), gs_nbody_options_presets[k]))
      strcpy(b->ic, gs_nbody_options_presets[k]);
}

void gs_nbody_options_defaults(void *opts) {
  struct gs_nbody_opts *b = opts;
  gs_nbody_options_numbered = gs_backend_names(
      GS_BACKEND_NBODY, ", ",
      "all, ladder, or a list of %s; each is timed and verified, the last one runs the simulation (default all)",
      gs_nbody_options_kernels, GS_NBODY_OPTIONS_KERNELS_MAX, gs_nbody_options_kernel_help,
      sizeof gs_nbody_options_kernel_help);
  b->n = (uint64_t)1 << 18;
  b->steps = 10;
  b->dt = 0.001;
  b->eps = 0.01;
  strcpy(b->ic, "plummer");
  b->seed = 1;
  strcpy(b->kernels, "all");
  b->overlap = 1;
  b->iters = 3;
  strcpy(b->output, "nbody-out");
  b->theta = GS_NBODY_OPTIONS_THETA;
  b->alpha = GS_NBODY_OPTIONS_ALPHA;
  b->tree_layout = -1;
  b->fmm_order = GS_NBODY_OPTIONS_FMM_ORDER;
  b->fmm_theta = GS_NBODY_OPTIONS_FMM_THETA;
}

double gs_nbody_options_force_tol(const struct gs_nbody_opts *b, int cutoff_law) {
  /* Measured on the CPU tree (docs/tree.md): the largest 99th percentile over plummer, uniform
   * and disk at N = 256..32768, float and double, with about 1.5x to 2x of margin. The disk's
   * cutoff law has no softening and its flat, cold disk cancels more of each body's force, so
   * the same absolute error is a 4x larger relative one there. */
  static const double table[][2] = {{0.3, 1e-2}, {0.5, 5e-2}, {0.7, 0.3}, {1.0, 1.0}};
  if (b->force_tol > 0) return b->force_tol;
  double tol = 2.0;
  for (int k = 3; k >= 0; k--)
    if (b->theta <= table[k][0]) tol = table[k][1];
  if (b->opening == 1 && 4 * b->alpha > tol) tol = 4 * b->alpha; /* the later evaluations' test */
  return cutoff_law ? 4 * tol : tol;
}

double gs_nbody_options_fmm_tol(const struct gs_nbody_opts *b) {
  /* Measured (docs/fmm.md, "Accuracy"): the larger 99th percentile of Plummer spheres of 2^12 and
   * 2^16 bodies (eps 0.05, double) at each order and at theta 0.3, 0.5, 0.7, 0.9, times 3; a
   * theta between takes the next one up, above 0.9 the force's size. */
  static const double table[GS_FMM_ORDER_MAX][4] = {
      {0.48, 0.76, 1, 1},           {0.075, 0.19, 0.47, 0.62},    {1.2e-2, 6.1e-2, 0.17, 0.25},
      {1.9e-3, 2.0e-2, 6.3e-2, 0.11}, {3.3e-4, 5.8e-3, 2.4e-2, 5.7e-2}, {5.3e-5, 1.7e-3, 1.1e-2, 3.5e-2},
      {8.7e-6, 6.1e-4, 4.4e-3, 2.4e-2}, {2.1e-6, 2.0e-4, 2.5e-3, 1.7e-2}};
  if (b->force_tol > 0) return b->force_tol;
  int p = b->fmm_order < GS_FMM_ORDER_MIN ? GS_FMM_ORDER_MIN : b->fmm_order > GS_FMM_ORDER_MAX ? GS_FMM_ORDER_MAX : b->fmm_order;
  for (int k = 0; k < 4; k++)
    if (b->fmm_theta <= 0.3 + 0.2 * k + 1e-12) return table[p - 1][k];
  return 1;
}

/* The solvers' own options and their owners (bits of enum gs_nbody_solver_id): --force-tol is the
 * tree's and the fmm's. Given with a solver that does not own it, an option is refused, naming its
 * first owner. */
#define GS_OWN_TREE (1u << GS_NBODY_TREE)
#define GS_OWN_FMM (1u << GS_NBODY_FMM)
static const struct {
  const char *name;
  unsigned owners;
} gs_nbody_options_own[] = {
    {"theta", GS_OWN_TREE},         {"opening", GS_OWN_TREE},   {"alpha", GS_OWN_TREE},
    {"leaf", GS_OWN_TREE},          {"force-tol", GS_OWN_TREE | GS_OWN_FMM},
    {"tree-layout", GS_OWN_TREE},   {"tree-cell", GS_OWN_TREE}, {"fmm-order", GS_OWN_FMM},
    {"fmm-theta", GS_OWN_FMM},
};

/* No option of another solver than b's. A restart that names no --solver takes the checkpoint's,
 * known only once it is read: until then (adopted 0) this waits for gs_nbody_options_adopted
 * (ckpt_solver: the checkpoint's, enum gs_nbody_solver_id). */
static int gs_nbody_options_foreign(const struct gs_options *o, const struct gs_nbody_opts *b, int adopted,
                                    int ckpt_solver, struct gs_msg *msg) {
  const int solver_given = gs_options_given(o, "solver");
  if (b->restart[0] && !adopted && !solver_given) return GS_OK;
  for (size_t k = 0; k < sizeof gs_nbody_options_own / sizeof *gs_nbody_options_own; k++) {
    const char *name = gs_nbody_options_own[k].name;
    const unsigned owners = gs_nbody_options_own[k].owners;
    if (!gs_options_given(o, name) || owners & 1u << b->solver) continue;
    const int tree = (owners & GS_OWN_TREE) != 0;
    const char *who = tree ? "the tree" : "the fast multipole solver", *solver = tree ? "tree" : "fmm";
    if (!adopted || solver_given) return gs_error_msg(msg, "--%s is an option of %s: it needs --solver %s", name, who, solver);
    if (tree)
      return gs_error_msg(msg,
                          "--%s is an option of the tree, and the checkpoint was written by --solver %s (give --solver "
                          "tree to change solvers)",
                          name, ckpt_solver == GS_NBODY_FMM ? "fmm" : "direct");
    return gs_error_msg(msg,
                        "--%s is an option of the fast multipole solver, and the checkpoint was written by another "
                        "solver (give --solver fmm to change solvers)",
                        name);
  }
  return GS_OK;
}

/* --solver fmm's options in range (gs_nbody_options_foreign refused them without it). */
static int gs_nbody_options_fmm(const struct gs_options *o, const struct gs_nbody_opts *b, int adopted,
                                struct gs_msg *msg) {
  if (b->solver != GS_NBODY_FMM) return GS_OK; /* or a restart's solver, not known yet */
  if (!adopted && gs_options_given(o, "kernel"))
    return gs_error_msg(msg, "--kernel names direct-sum kernels: --solver fmm has none (give one of the two)");
  if (!(b->fmm_theta > 0 && b->fmm_theta < 1))
    return gs_error_msg(msg, "--fmm-theta: must be > 0 and < 1 (at 1 or above the expansions need not converge)");
  if (gs_options_given(o, "force-tol") && !(b->force_tol > 0)) return gs_error_msg(msg, "--force-tol: must be > 0");
  return GS_OK;
}

/* --solver tree's options in range (gs_nbody_options_foreign refused them without it). A restart
 * that names no --solver (or no --opening) takes the checkpoint's: its ranges are checked at once,
 * what needs the checkpoint's settings waits for gs_nbody_options_adopted (adopted 1). */
static int gs_nbody_options_tree(const struct gs_options *o, const struct gs_nbody_opts *b, int adopted, int ckpt_solver,
                                 struct gs_msg *msg) {
  int later = b->restart[0] && !adopted, solver_given = gs_options_given(o, "solver");
  int opening_given = gs_options_given(o, "opening");
  if (b->solver != GS_NBODY_TREE && !(later && !solver_given)) return GS_OK;
  if (!adopted && b->solver == GS_NBODY_TREE && gs_options_given(o, "kernel"))
    return gs_error_msg(msg, "--kernel names direct-sum kernels: --solver tree has none (give one of the two)");
  if (!(b->theta > 0 && b->theta <= 1.5)) return gs_error_msg(msg, "--theta: must be > 0 and <= 1.5");
  if (!(b->alpha > 0 && b->alpha <= 1)) return gs_error_msg(msg, "--alpha: must be > 0 and <= 1");
  if (gs_options_given(o, "alpha") && b->opening != 1 && !(later && !opening_given))
    return gs_error_msg(msg, "--alpha is the relative opening test's tolerance: it needs --opening relative%s",
                        adopted && ckpt_solver == GS_NBODY_TREE && !opening_given ? " (the checkpoint's test is geometric)" : "");
  if (gs_options_given(o, "force-tol") && !(b->force_tol > 0)) return gs_error_msg(msg, "--force-tol: must be > 0");
  return GS_OK;
}

/* The solvers' options: none foreign, the tree's and the fmm's in range. */
static int gs_nbody_options_solvers(const struct gs_options *o, const struct gs_nbody_opts *b, int adopted,
                                    int ckpt_solver, struct gs_msg *msg) {
  int status = gs_nbody_options_foreign(o, b, adopted, ckpt_solver, msg);
  if (status == GS_OK) status = gs_nbody_options_tree(o, b, adopted, ckpt_solver, msg);
  return status == GS_OK ? gs_nbody_options_fmm(o, b, adopted, msg) : status;
}

int gs_nbody_options_adopted(const struct gs_options *o, const struct gs_nbody_opts *b, int ckpt_solver,
                             struct gs_msg *msg) {
  return gs_nbody_options_solvers(o, b, 1, ckpt_solver, msg);
}

int gs_nbody_options_validate(const struct gs_options *o, void *opts, struct gs_msg *msg) {
  struct gs_nbody_opts *b = opts;
  gs_nbody_options_ic(b);
  if (b->dt <= 0) return gs_error_msg(msg, "--dt: must be > 0");
  if (b->eps <= 0) return gs_error_msg(msg, "--eps: must be > 0 (Plummer softening; --ic disk uses a cutoff instead)");
  if (gs_kernel_list_check(b->kernels, gs_nbody_options_kernels, gs_nbody_options_numbered, msg) != GS_OK)
    return GS_USAGE;
  if (gs_options_given(o, "n") && !gs_nbody_options_preset(b->ic))
    return gs_error_msg(msg, "--n and --ic FILE contradict: the file's lines are the bodies; give one");
  if (b->walltime[0] && (b->walltime_s = gs_options_parse_hms(b->walltime)) <= 0)
    return gs_error_msg(msg, "--walltime: '%s' is not HH:MM:SS (or MM:SS, or seconds) above zero", b->walltime);
  return gs_nbody_options_solvers(o, b, 0, -1, msg);
}
