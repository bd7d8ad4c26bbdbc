/* gs_stdio.h: standard output and error once a stop is requested. A launcher may stop reading
 * the ranks' output when it is signalled (Open MPI's mpirun does, from its SIGTERM until its
 * SIGKILL odls_base_sigkill_timeout seconds later each), and rank 0 blocked writing a line would
 * never reach the checkpoint the stop asks for. So from the stop signal on, stdout and stderr are
 * non-blocking: a write blocked when the signal comes returns, and a line that does not fit is
 * dropped (the checkpoint is on disk, and DIR/checkpoint.json names it, whatever reaches the log). */
#ifndef GS_STDIO_H
#define GS_STDIO_H

/* Make stdout and stderr non-blocking, keeping their flags for gs_stdio_restore. Async-signal-safe:
 * the stop signal's handler calls it, and a write blocked in the kernel, restarted after the
 * handler (SA_RESTART), then returns EAGAIN instead of waiting on. */
void gs_stdio_unblock(void);

/* fflush(stdout); once unblocked, first wait up to `seconds` for room (a reader that is only slow
 * still gets the lines, one that stopped reading costs that long at most). 0, or EOF. */
int gs_stdio_flush(double seconds);

/* Flush what fits, then give stdout and stderr back their own flags (at exit: a terminal may be
 * shared with the shell). */
void gs_stdio_restore(void);

#endif
