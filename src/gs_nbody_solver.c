/* gs_nbody_solver.c: the solvers nbody has, by --solver's value. A new solver is its own file(s)
 * plus one line in the list below: the list declares each table itself (no header names a
 * solver, as no header of a solver is included here), then makes the table of them. */
#include "gs_nbody_solver.h"

#include <stddef.h>

/* One line per solver: its table, which its own file defines. Tables of one id (the tree's
 * layouts) in the order a run that names no layout prefers them. */
#define GS_NBODY_SOLVER_LIST(X)                                                                                        \
  X(gs_nbody_direct_ops)      /* gs_nbody_direct.c: all pairs */                                                       \
  X(gs_nbody_dtree_ops)       /* gs_nbody_dtree.c: Barnes-Hut, domains where it runs */                                \
  X(gs_nbody_tree_solver_ops) /* gs_nbody_tree_solver.c: Barnes-Hut, every body on every rank */                  \
  X(gs_nbody_fmm_solver_ops)  /* gs_nbody_fmm_solver.c: the fast multipole method, every body on every rank */

#define GS_NBODY_SOLVER_EXTERN(ops) extern const struct gs_nbody_solver ops;
#define GS_NBODY_SOLVER_ENTRY(ops) &ops,
GS_NBODY_SOLVER_LIST(GS_NBODY_SOLVER_EXTERN)

static const struct gs_nbody_solver *const gs_nbody_solver_all[] = {GS_NBODY_SOLVER_LIST(GS_NBODY_SOLVER_ENTRY)};

const struct gs_nbody_solver *gs_nbody_solver_find(int id) {
  for (size_t k = 0; k < sizeof gs_nbody_solver_all / sizeof *gs_nbody_solver_all; k++)
    if (gs_nbody_solver_all[k]->id == id) return gs_nbody_solver_all[k];
  return NULL;
}

const struct gs_nbody_solver *gs_nbody_solver_pick(const struct gs_nbody_opts *o, const struct gs_backend *be) {
  const struct gs_nbody_solver *first = NULL;
  for (size_t k = 0; k < sizeof gs_nbody_solver_all / sizeof *gs_nbody_solver_all; k++) {
    const struct gs_nbody_solver *sv = gs_nbody_solver_all[k];
    if (sv->id != o->solver) continue;
    if (!first) first = sv;
    if (o->tree_layout >= 0 ? sv->layout == o->tree_layout : !sv->runs_on || sv->runs_on(be)) return sv;
  }
  return first; /* the layout of a solver that has one: its check says what is missing */
}
