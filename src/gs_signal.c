/* gs_signal.c: the one piece of global state in gpusim: a signal handler can reach nothing but
 * a static sig_atomic_t, so the caught signal lives here and the step loop reads it (beside it,
 * gs_stdio.c keeps the stream flags the handler changes). */
#define _POSIX_C_SOURCE 200809L
#include "gs_signal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_stdio.h"

static volatile sig_atomic_t gs_signal_caught;

/* After a stop request nothing may stand between rank 0 and its checkpoint, its output included:
 * stdout and stderr become non-blocking (gs_stdio.h), which also frees a write blocked now (the
 * kernel restarts it after the handler, SA_RESTART, and it returns EAGAIN). */
static void gs_signal_handler(int sig) {
  gs_signal_caught = sig;
  gs_stdio_unblock();
}

void gs_signal_install(void) {
  static int restore_at_exit;
  if (!restore_at_exit++) atexit(gs_stdio_restore);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = gs_signal_handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART; /* MPI and I/O calls in flight carry on; the loop checks the flag */
  /* SIGUSR2: Grid Engine's warning before it kills a job submitted with -notify (qdel, h_rt) */
  const int sigs[] = {SIGTERM, SIGINT, SIGUSR1, SIGUSR2};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
}

int gs_signal_pending(void) { return gs_signal_caught; }

const char *gs_signal_name(int sig) {
  static char other[24]; /* only for a signal we never install: not reached in practice */
  switch (sig) {
  case SIGTERM: return "SIGTERM";
  case SIGINT: return "SIGINT";
  case SIGUSR1: return "SIGUSR1";
  case SIGUSR2: return "SIGUSR2";
  default: snprintf(other, sizeof other, "signal %d", sig); return other;
  }
}
