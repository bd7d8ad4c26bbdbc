/* gs_nbody_dtree_report.h: what --tree-layout domains says (gs_nbody_dtree_report.c): the
 * solver's lines (gs_nbody_solver.h's header, report_first, report_steps, report_final). */
#ifndef GS_NBODY_DTREE_REPORT_H
#define GS_NBODY_DTREE_REPORT_H

#include "gs_nbody_dtree_held.h"

void gs_nbody_dtree_report_header(struct gs_nbody_dtree *d, double tol);
void gs_nbody_dtree_report_first(struct gs_nbody_dtree *d, double tol);
void gs_nbody_dtree_report_steps(struct gs_nbody_dtree *d, const struct gs_step_times *t, int steps);
void gs_nbody_dtree_report_final(struct gs_nbody_dtree *d, long step, double tol);

#endif
