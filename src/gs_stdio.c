/* gs_stdio.c: standard output and error once a stop is requested (gs_stdio.h says why). */
#define _POSIX_C_SOURCE 200809L
#include "gs_stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

/* The flags of fds 1 and 2 from before gs_stdio_unblock, -1 while untouched (written by a signal
 * handler, hence sig_atomic_t; index 0 unused). */
static volatile sig_atomic_t gs_stdio_flags[3] = {-1, -1, -1};

void gs_stdio_unblock(void) {
  int saved = errno;
  for (int fd = 1; fd <= 2; fd++) {
    int fl = fcntl(fd, F_GETFL);
    if (gs_stdio_flags[fd] != -1 || fl < 0 || (fl & O_NONBLOCK)) continue;
    if (fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0) gs_stdio_flags[fd] = fl;
  }
  errno = saved;
}

static double gs_stdio_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int gs_stdio_flush(double seconds) {
  double end = gs_stdio_now() + seconds;
  for (double left = seconds; gs_stdio_flags[1] != -1 && left > 0; left = end - gs_stdio_now()) {
    struct pollfd p = {.fd = 1, .events = POLLOUT};
    if (poll(&p, 1, (int)(1000 * left) + 1) >= 0 || errno != EINTR) break;
  }
  return fflush(stdout);
}

void gs_stdio_restore(void) {
  if (gs_stdio_flags[1] != -1) fflush(stdout); /* still non-blocking: what does not fit is dropped */
  for (int fd = 1; fd <= 2; fd++)
    if (gs_stdio_flags[fd] != -1) {
      fcntl(fd, F_SETFL, (int)gs_stdio_flags[fd]);
      gs_stdio_flags[fd] = -1;
    }
}
