/* gs_progress.c: progress reports. Lines come at most every 10 s or 10% of the run, so a batch
 * log stays short; the bar redraws at most 5 times a second. */
#define _POSIX_C_SOURCE 200809L
#include "gs_progress.h"

#include "gs_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* "1h02m03s", "4m05s", "6.1s". */
static void gs_progress_hms(char *out, size_t size, double s) {
  if (s < 0) snprintf(out, size, "?");
  else if (s < 60) snprintf(out, size, "%.1fs", s);
  else if (s < 3600) snprintf(out, size, "%dm%02ds", (int)s / 60, (int)s % 60);
  else snprintf(out, size, "%dh%02dm%02ds", (int)(s / 3600), (int)s % 3600 / 60, (int)s % 60);
}

void gs_progress_init(struct gs_progress *p, int mode, int rank, long first, long last) {
  if (rank != 0) mode = GS_PROGRESS_OFF;
  else if (mode == GS_PROGRESS_AUTO) {
    /* Open MPI hands its ranks a pseudo-terminal even when mpirun's own output goes to a file,
     * so a terminal alone does not mean a person watches: inside a batch job, plain lines. */
    int batch = getenv("SLURM_JOB_ID") || getenv("PBS_JOBID") || getenv("JOB_ID");
    mode = isatty(fileno(stdout)) && !batch ? GS_PROGRESS_BAR : GS_PROGRESS_LINES;
  }
  p->mode = mode;
  p->first = first;
  p->last = last;
  p->t0 = p->printed = gs_stats_now();
  p->printed_step = first;
  p->bar_drawn = 0;
}

void gs_progress_update(struct gs_progress *p, long step, double simtime, double de, double rate) {
  if (p->mode == GS_PROGRESS_OFF || p->last <= p->first) return;
  double now = gs_stats_now(), elapsed = now - p->t0;
  long done = step - p->first, total = p->last - p->first;
  int final = step >= p->last;
  if (p->mode == GS_PROGRESS_LINES && !final && now - p->printed < 10.0 && (step - p->printed_step) * 10 < total) return;
  if (p->mode == GS_PROGRESS_BAR && !final && now - p->printed < 0.2) return;
  char el[32], eta[32], dE[32] = "?";
  gs_progress_hms(el, sizeof el, elapsed);
  gs_progress_hms(eta, sizeof eta, done > 0 ? elapsed * (double)(total - done) / (double)done : -1);
  if (de >= 0) snprintf(dE, sizeof dE, "%.2e", de);
  if (p->mode == GS_PROGRESS_BAR) {
    char bar[31];
    int fill = (int)(30 * done / total);
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    printf("\r[%s] step %ld/%ld  t=%.4g  |dE/E0| %s  %.3e int/s  %s elapsed, %s left ", bar, step, p->last, simtime, dE,
           rate, el, eta);
    p->bar_drawn = 1;
  } else {
    printf("# progress: step %ld/%ld (%.0f%%), t = %.6g, |dE/E0| %s, %.4e interactions/s, elapsed %s, remaining %s\n",
           step, p->last, 100.0 * done / total, simtime, dE, rate, el, eta);
  }
  fflush(stdout);
  p->printed = now;
  p->printed_step = step;
}

void gs_progress_done(struct gs_progress *p) {
  if (p->bar_drawn) printf("\n");
  p->bar_drawn = 0;
  fflush(stdout);
}
