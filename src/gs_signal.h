/* gs_signal.h: graceful stop. SIGTERM, SIGINT, SIGUSR1 (what SLURM's --signal=B:USR1@120
 * forwards; Grid Engine's s_rt) and SIGUSR2 (Grid Engine's warning before a kill, with -notify)
 * only set a flag; the step loop agrees on it across ranks, checkpoints and exits 0. */
#ifndef GS_SIGNAL_H
#define GS_SIGNAL_H

/* Install the handlers (idempotent). */
void gs_signal_install(void);

/* The last stop signal received, 0 if none. */
int gs_signal_pending(void);

/* "SIGTERM", "SIGINT", "SIGUSR1", "SIGUSR2" or "signal N". */
const char *gs_signal_name(int sig);

#endif
