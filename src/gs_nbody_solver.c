/* gs_nbody_solver.c: the solvers nbody has, by --solver's value. A new solver is its own file(s)
 * plus one line here (and its declaration in gs_nbody_solver.h). */
#include "gs_nbody_solver.h"

#include <stddef.h>

static const struct gs_nbody_solver *const gs_nbody_solver_all[] = {
    &gs_nbody_direct_ops,
    &gs_nbody_tree_solver_ops,
};

const struct gs_nbody_solver *gs_nbody_solver_find(int id) {
  for (size_t k = 0; k < sizeof gs_nbody_solver_all / sizeof *gs_nbody_solver_all; k++)
    if (gs_nbody_solver_all[k]->id == id) return gs_nbody_solver_all[k];
  return NULL;
}

const struct gs_nbody_solver *gs_nbody_solver_pick(const struct gs_nbody_opts *o, const struct gs_backend *be) {
  const struct gs_nbody_solver *sv = gs_nbody_solver_find(o->solver);
  int domains = o->tree_layout == GS_NBODY_LAYOUT_DOMAINS || (o->tree_layout < 0 && be->dtree);
  return sv && sv->id == GS_NBODY_TREE && domains ? &gs_nbody_dtree_ops : sv;
}
