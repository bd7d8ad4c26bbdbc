/* gs_nbody_fmm_report.c: --solver fmm's header lines, accuracy checks, timing row and step
 * statistics (gs_nbody_fmm_report.h). The check is the tree's: |a - a_ref| / |a_ref| of up to 1024
 * sample bodies against the double direct sum of gs_nbody_ref.c, verdict on the 99th percentile
 * (OK; less accurate than usual, a warning; FAILED above 10x the usual error against the force
 * scale, or above --force-tol), with the FMM's usual error at its order and theta
 * (gs_nbody_options_fmm_tol). */
#include "gs_nbody_fmm_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gs_bench.h"
#include "gs_nbody_ladder.h"
#include "gs_nbody_ref.h"
#include "gs_nbody_tree_report.h"

static double gs_nbody_fmm_report_tol(const struct gs_nbody_fmm *f) { return gs_nbody_options_fmm_tol(f->repl.job->o); }

void gs_nbody_fmm_report_header(void *s, const struct gs_ckpt_header *ck) {
  const struct gs_nbody_fmm *f = s;
  const struct gs_nbody_job *job = f->repl.job;
  const struct gs_nbody_opts *o = job->o;
  double tol = gs_nbody_fmm_report_tol(f);
  if (ck && ck->solver == GS_NBODY_FMM && (ck->order != o->fmm_order || ck->theta != o->fmm_theta))
    printf("# restart: the checkpoint was written by the fmm at order %d, theta = %g: with other settings the state "
           "agrees with an uninterrupted run only within the fmm's force error\n",
           ck->order, ck->theta);
  printf("# solver: fmm (fast multipole, Dehnen's falcON: a mutual dual-tree walk), order %d, theta = %g; every rank "
         "evaluates all N bodies and keeps its slice (the same bits on any rank count, ranks add no speed); "
         "positions all-gathered, --overlap does not apply\n",
         o->fmm_order, o->fmm_theta);
  printf("# fmm method: %s\n", job->be->fmm->method);
  gs_nbody_tree_report_check_rule(job, " at this order and theta", tol);
  printf("# rates: interactions counted by the walk, cell-cell (each for both cells: %.0f flops at order %d) and "
         "body-body pairs (each for both bodies: %d flops); timing: %s, median\n",
         gs_nbody_fmm_m2l_flops(o->fmm_order), o->fmm_order, GS_NBODY_FMM_PAIR_FLOPS, job->run->be->timing);
}

/* The forces in acc (device, this rank's slice) against the sample's references at the current
 * positions; the verdict's line (rank 0) and its value on every rank (1 OK, 2 warning, 0 FAILED);
 * with phi, the potential's error line too. Collective. */
static int gs_nbody_fmm_report_check(struct gs_nbody_fmm *f, const void *acc, const char *when, int phi,
                                     double *p99) {
  struct gs_nbody_job *job = f->repl.job;
  const struct gs_backend *be = job->be;
  size_t bytes = (job->count ? job->count : 1) * job->esz;
  void *h_acc = malloc(bytes);
  if (!h_acc) GS_DIE(&job->run->where, "malloc", "out of memory");
  be->copy_d2h(job->ctx, job->h_pos, job->d_pos, job->npad * job->esz, job->qc);
  if (job->count) be->copy_d2h(job->ctx, h_acc, acc, job->count * job->esz, job->qc);
  be->queue_sync(job->ctx, job->qc);
  uint64_t *idx;
  double *ref;
  int n = gs_nbody_ref_sample_device(job, job->h_pos, &idx, &ref);
  double *got = malloc(sizeof *got * 4 * (size_t)(n ? n : 1)), w[2] = {0, 0}, all[2];
  if (!got) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int k = 0; k < n; k++) {
    double q[4];
    gs_nbody_ref_get(job, h_acc, idx[k] - job->first, got + 4 * k);
    gs_nbody_ref_get(job, job->h_pos, idx[k], q);
    w[0] += q[3] * got[4 * k + 3], w[1] += q[3] * ref[5 * k + 3];
  }
  int v = gs_nbody_tree_report_compare(job, when, n, got, ref, NULL, gs_nbody_fmm_report_tol(f), p99);
  GS_CHECK_MPI(&job->run->where, MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (phi) {
    GS_CHECK_MPI(&job->run->where, MPI_Reduce(w, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    if (job->run->rank == 0 && all[1] != 0)
      printf("# diagnostics: the energy lines' potential is the fmm's own (every evaluation computes it); its error "
             "now, |sum m (phi - phi_ref)| / |sum m phi_ref| over %s against the direct sum: %.1e\n",
             job->n <= GS_NBODY_REF_SAMPLE ? "every body" : "the sampled bodies", fabs(all[0] - all[1]) / fabs(all[1]));
  }
  fflush(stdout);
  free(h_acc), free(got), free(idx), free(ref);
  return v;
}

/* The first table over the harness (gs_bench.h): the check first (prepare: a counted evaluation),
 * then --iters timed ones into the scratch, no warm-up (the checked one was one); no gate: the
 * events time each part. */
struct gs_nbody_fmm_bench {
  struct gs_nbody_fmm *f;
  int v;         /* the check's verdict, rank 0's on every rank */
  double p99;    /* rank 0's */
  double *parts; /* 4 per timed evaluation */
};

static void gs_nbody_fmm_report_prepare(struct gs_bench *b, const struct gs_kernel *k) {
  struct gs_nbody_fmm_bench *fb = b->w;
  struct gs_nbody_job *job = fb->f->repl.job;
  (void)k;
  gs_nbody_fmm_forces(fb->f, job->d_acc_scratch, 1);
  fb->v = gs_nbody_fmm_report_check(fb->f, job->d_acc_scratch, "start", 1, &fb->p99);
}

static double gs_nbody_fmm_report_run(struct gs_bench *b, const struct gs_kernel *k, int i) {
  struct gs_nbody_fmm_bench *fb = b->w;
  double part[4] = {0, 0, 0, 0};
  (void)k;
  if (gs_nbody_fmm_forces(fb->f, fb->f->repl.job->d_acc_scratch, 0)) gs_nbody_fmm_times(fb->f, part);
  for (int p = 0; i >= 0 && p < 4; p++)
    fb->parts[4 * i + p] = part[p];
  return part[0] + part[1] + part[2] + part[3];
}

static int gs_nbody_fmm_report_verify(struct gs_bench *b, const struct gs_kernel *k, struct gs_bench_result *r) {
  const struct gs_nbody_fmm_bench *fb = b->w;
  double *col = malloc(sizeof *col * (size_t)b->iters);
  (void)k;
  if (!col) GS_DIE(&b->run->where, "malloc", "out of memory");
  for (int p = 0; p < 4; p++) {
    for (int i = 0; i < b->iters; i++)
      col[i] = fb->parts[4 * i + p];
    r->extra[p] = gs_stats_of(col, b->iters).median;
  }
  free(col);
  return fb->v != 0;
}

static void gs_nbody_fmm_report_row(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r) {
  const struct gs_nbody_fmm_bench *fb = b->w;
  const struct gs_nbody_fmm *f = fb->f;
  struct gs_nbody_job *job = f->repl.job;
  const char *ok = fb->v == 1 ? "OK" : fb->v ? "WARNING" : "FAILED";
  double n = job->n ? (double)job->n : 1, t = r->slow.median;
  printf("%-8s %9s %9s %9s %9s %9s %9s %9s %9s %10s  %s\n", "solver", "build_ms", "up_ms", "walk_ms", "down_ms", "ms",
         "m2l/body", "p2p/body", "GFLOP/s", "p99_err", "check");
  printf("%-8s %9.3f %9.3f %9.3f %9.3f %9.3f %9.2f %9.1f %9.2f %10.2e  %s\n", k->name, r->extra[0] * 1e3,
         r->extra[1] * 1e3, r->extra[2] * 1e3, r->extra[3] * 1e3, t * 1e3, f->m2l / n, f->p2p / n, f->flops / t / 1e9,
         fb->p99, ok);
  struct gs_row row = gs_bench_row(b, k, r, "interactions", (f->m2l + f->p2p) / t, "1/s", -1);
  char extra[256];
  snprintf(extra, sizeof extra,
           "phase=forces;solver=fmm;layout=replicated;order=%d;theta=%g;build_s=%.4g;up_s=%.4g;walk_s=%.4g;down_s=%.4g;"
           "m2l=%.0f;p2p=%.0f;p99_err=%.3g;check=%s",
           job->o->fmm_order, job->o->fmm_theta, r->extra[0], r->extra[1], r->extra[2], r->extra[3], f->m2l, f->p2p,
           fb->p99, ok);
  gs_nbody_ladder_params(job, row.params, sizeof row.params, extra);
  gs_report_add(b->rep, &row);
}

static const struct gs_bench_ops gs_nbody_fmm_report_ops = {
    .prepare = gs_nbody_fmm_report_prepare,
    .run_timed = gs_nbody_fmm_report_run,
    .verify = gs_nbody_fmm_report_verify,
    .row = gs_nbody_fmm_report_row,
};

/* The harness's kernel list: the fmm, its result rows' kernel. */
static const struct gs_kernel gs_nbody_fmm_report_kernel[] = {{"fmm", "fast multipole", 0, 0}};

void gs_nbody_fmm_report_first(void *s) {
  struct gs_nbody_fmm *f = s;
  struct gs_nbody_job *job = f->repl.job;
  struct gs_nbody_fmm_bench fb = {.f = f};
  fb.parts = calloc(4 * (size_t)job->o->iters, sizeof *fb.parts);
  if (!fb.parts) GS_DIE(&job->run->where, "calloc", "out of memory");
  struct gs_bench b = {.run = job->run, .ops = &gs_nbody_fmm_report_ops, .w = &fb, .workload = "nbody",
                       .rep = &job->rep, .kernels = gs_nbody_fmm_report_kernel, .count = 1, .mask = 1,
                       .q = job->qc, .warmup = 0, .iters = job->o->iters, .problem_size = job->n};
  gs_bench_table(&b);
  if (b.failed) job->failed = 1;
  free(fb.parts);
}

void gs_nbody_fmm_report_final(void *s, long last) {
  struct gs_nbody_fmm *f = s;
  char when[48];
  double p99;
  snprintf(when, sizeof when, "end, step %ld", last);
  if (!gs_nbody_fmm_report_check(f, f->repl.job->d_acc, when, 0, &p99)) f->repl.job->failed = 1;
}

void gs_nbody_fmm_report_steps(void *s, const struct gs_step_times *times, int steps) {
  struct gs_nbody_fmm *f = s;
  struct gs_nbody_job *job = f->repl.job;
  const struct gs_run *run = job->run;
  struct gs_stats st[7]; /* total, build, upward, walk, downward, exchange, rest */
  gs_nbody_ladder_step_stats(run, times, steps, 4, 1, st);
  if (run->rank != 0) return;
  double rate = (f->m2l + f->p2p) / st[0].median;
  printf("# per step (median of %d, slowest rank): total %.3f ms, build %.3f ms, upward %.3f ms, walk %.3f ms, "
         "downward %.3f ms, exchange %.3f ms, integration and the rest %.3f ms; %.4e interactions/s, %.1f GFLOP/s\n",
         steps, st[0].median * 1e3, st[1].median * 1e3, st[2].median * 1e3, st[3].median * 1e3, st[4].median * 1e3,
         st[5].median * 1e3, st[6].median * 1e3, rate, f->flops / st[0].median / 1e9);
  char extra[256];
  snprintf(extra, sizeof extra,
           "phase=step;solver=fmm;layout=replicated;build_s=%.6g;up_s=%.6g;walk_s=%.6g;down_s=%.6g;exchange_s=%.6g;"
           "integrate_s=%.6g",
           st[1].median, st[2].median, st[3].median, st[4].median, st[5].median, st[6].median);
  gs_nbody_ladder_step_row(job, "fmm", &st[0], steps, rate, extra);
}
