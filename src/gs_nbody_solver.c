/* gs_nbody_solver.c: the solvers nbody has, by --solver's value. A new solver is its own file(s)
 * plus one line in the list below: the list declares each table itself (no header names a
 * solver, as no header of a solver is included here), then makes the table of them. */
#include "gs_nbody_solver.h"

#include <stddef.h>

/* One line per solver: its table, which its own file defines. */
#define GS_NBODY_SOLVER_LIST(X)                                  \
  X(gs_nbody_direct_ops)      /* gs_nbody_direct.c: all pairs */ \
  X(gs_nbody_tree_solver_ops) /* gs_nbody_tree_solver.c: Barnes-Hut */

#define GS_NBODY_SOLVER_EXTERN(ops) extern const struct gs_nbody_solver ops;
#define GS_NBODY_SOLVER_ENTRY(ops) &ops,
GS_NBODY_SOLVER_LIST(GS_NBODY_SOLVER_EXTERN)

static const struct gs_nbody_solver *const gs_nbody_solver_all[] = {GS_NBODY_SOLVER_LIST(GS_NBODY_SOLVER_ENTRY)};

const struct gs_nbody_solver *gs_nbody_solver_find(int id) {
  for (size_t k = 0; k < sizeof gs_nbody_solver_all / sizeof *gs_nbody_solver_all; k++)
    if (gs_nbody_solver_all[k]->id == id) return gs_nbody_solver_all[k];
  return NULL;
}
