/* gs_nbody_fmm_report.h: what --solver fmm says: its header lines, its accuracy against the double
 * direct sum at the start and at the end (the tree's comparison and three-outcome verdict,
 * gs_nbody_tree_report_compare), its timing row over the measurement harness and its per-step
 * statistics. The functions are the solver table's (void *s: struct gs_nbody_fmm). */
#ifndef GS_NBODY_FMM_REPORT_H
#define GS_NBODY_FMM_REPORT_H

#include "gs_checkpoint.h"
#include "gs_nbody_fmm.h"

/* Rank 0: the solver, its settings, the backend's method, the check and the flop counts; ck: the
 * checkpoint resumed from (a note when it was the FMM's at other settings), or NULL. */
void gs_nbody_fmm_report_header(void *s, const struct gs_ckpt_header *ck);

/* The forces at the current positions checked against the reference (a FAILED check sets
 * job->failed), then --iters timed evaluations: one table row and one result row. Collective. */
void gs_nbody_fmm_report_first(void *s);

/* The per-step line and result row: total, the four parts, exchange, integration (slowest rank). */
void gs_nbody_fmm_report_steps(void *s, const struct gs_step_times *t, int steps);

/* The forces in d_acc checked against the reference after step `last`. Collective. */
void gs_nbody_fmm_report_final(void *s, long last);

#endif
