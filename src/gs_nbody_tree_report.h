/* gs_nbody_tree_report.h: what --solver tree says: its header lines, its accuracy against the
 * double direct sum (at the start and at the end), its timing row and the per-step statistics. */
#ifndef GS_NBODY_TREE_REPORT_H
#define GS_NBODY_TREE_REPORT_H

#include "gs_checkpoint.h"
#include "gs_nbody_tree.h"

/* Rank 0: the solver, the opening test, the backend's method, the check and the flop counts. */
void gs_nbody_tree_report_header(const struct gs_nbody_tree *t, double tol);

/* Rank 0: the check's and the rates' lines of the header (the domain-decomposed tree's too). */
void gs_nbody_tree_report_check_line(const struct gs_nbody_job *job, double tol);

/* Rank 0: the check's line alone, for any solver checked by gs_nbody_tree_report_compare (the
 * fast multipole solver's header too): what is compared, and the tolerance and failing limit the
 * verdict applies; usual_at qualifies the usual tolerance ("" for the tree's, " at this order
 * and theta" for the FMM's). */
void gs_nbody_tree_report_check_rule(const struct gs_nbody_job *job, const char *usual_at, double tol);

/* Rank 0, resuming from a tree's checkpoint ck: a note when this run's tree settings differ from
 * those of the run that wrote it (its forces differ: the state then agrees with an uninterrupted
 * run only within the tree's force error). */
void gs_nbody_tree_report_restart(const struct gs_nbody_tree *t, const struct gs_ckpt_header *ck);

/* In place of the direct kernels' table, over the same harness (gs_bench.h): the tree's forces
 * at the current positions checked against the reference (a FAILED check sets job->failed), then
 * --iters timed evaluations and their counters; one table row and one result row. Collective. */
void gs_nbody_tree_report_table(struct gs_nbody_tree *t, double tol);

/* The forces in d_acc (those of the current positions) checked against the reference, after
 * step `step`; a FAILED check sets job->failed. Collective. */
void gs_nbody_tree_report_final(struct gs_nbody_tree *t, long step, double tol);

/* The per-step line and result row: total, build, walk, exchange, integration (slowest rank). */
void gs_nbody_tree_report_steps(struct gs_nbody_tree *t, const struct gs_step_times *times, int steps);

/* The check of a solver that holds its bodies its own way (the domain-decomposed tree), as the
 * tree's own check compares and prints it: n sample bodies on this rank (any ranks may hold any
 * of the sample), their forces got[4s..4s+2] and references ref[5s..] (gs_nbody_ref.h's layout)
 * in double; the verdict's line on rank 0 (a FAILED check sets job->failed); diag (or NULL):
 * mass and potential of the diagnostics' evaluation per sample body (diag[2s], diag[2s + 1]),
 * whose error the diagnostics line then states as the replicated tree's does. Returns 1 OK, 2
 * less accurate than usual, 0 FAILED (rank 0's), and the 99th percentile in *p99 (rank 0).
 * Collective. */
int gs_nbody_tree_report_compare(struct gs_nbody_job *job, const char *when, int n, const double *got,
                                 const double *ref, const double *diag, double tol, double *p99);

#endif
