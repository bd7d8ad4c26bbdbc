/* gs_progress.h: progress of long runs, from rank 0: a live bar on a terminal, plain lines in a
 * batch log (--progress auto|bar|lines|off). */
#ifndef GS_PROGRESS_H
#define GS_PROGRESS_H

/* --progress values, in the option's order. */
enum gs_progress_mode { GS_PROGRESS_AUTO = 0, GS_PROGRESS_BAR, GS_PROGRESS_LINES, GS_PROGRESS_OFF };

struct gs_progress {
  int mode;                 /* resolved: BAR, LINES or OFF */
  long first, last;         /* step range of this run (first done already) */
  double t0, printed;       /* wall clock at start and at the last print */
  long printed_step;        /* step of the last line */
  int bar_drawn;            /* a bar line is open (needs a newline) */
};

/* Start: auto becomes bar on a terminal, lines otherwise; off on ranks other than 0. */
void gs_progress_init(struct gs_progress *p, int mode, int rank, long first, long last);

/* After step `step`: simulated time, latest |dE/E0| (negative: unknown), interactions/s. */
void gs_progress_update(struct gs_progress *p, long step, double simtime, double de, double rate);

/* End the bar line, if any. */
void gs_progress_done(struct gs_progress *p);

#endif
