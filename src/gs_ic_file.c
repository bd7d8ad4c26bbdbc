/* gs_ic_file.c: `--ic FILE` read one body at a time (gs_ic_file.h). */
#define _DEFAULT_SOURCE /* POSIX: fdopen, fstat, getc_unlocked */
#include "gs_ic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Line `line` of the --ic file f into buf (size bytes, without its newline, NUL-terminated): its
 * length, or -1 at the end of the file, or -2 with msg if it is longer than size - 1 bytes or
 * holds a NUL byte (which fgets would pass off as the line's end, and then as a line too long). */
static long gs_ic_line(FILE *f, char *buf, size_t size, const char *path, uint64_t line, struct gs_msg *msg) {
  size_t len = 0;
  int c, nul = 0;
  while ((c = getc_unlocked(f)) != EOF && c != '\n' && len + 1 < size) {
    nul |= c == 0;
    buf[len++] = (char)c;
  }
  buf[len] = 0;
  if (c == EOF && len == 0) return -1;
  if (c != EOF && c != '\n') {
    gs_error_msg(msg, "--ic %s:%llu: line longer than %zu characters", path, (unsigned long long)line, size - 1);
    return -2;
  }
  if (nul) {
    gs_error_msg(msg, "--ic %s:%llu: the line holds a NUL byte (not a text file?)", path, (unsigned long long)line);
    return -2;
  }
  return (long)len;
}

int gs_ic_file_open(struct gs_ic_file *in, const char *path, struct gs_msg *msg) {
  *in = (struct gs_ic_file){.path = path};
  /* Only a regular file: a FIFO or a device would block every rank (O_NONBLOCK keeps the open
   * itself from waiting for a FIFO's writer). */
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  struct stat st;
  if (fd < 0) return gs_error_msg(msg, "--ic %s: cannot open: %s", path, strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return gs_error_msg(msg, "--ic %s: not a regular file (plummer, disk, uniform or a file of bodies)", path);
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (!(in->f = fdopen(fd, "r")))
    return close(fd), gs_error_msg(msg, "--ic %s: cannot open: %s", path, strerror(errno));
  return GS_OK;
}

int gs_ic_file_next(struct gs_ic_file *in, double v[7], struct gs_msg *msg) {
  char buf[GS_IC_LINE_MAX + 1]; /* the longest line and the NUL */
  const char *path = in->path;
  unsigned long long line;
  for (long got_line; (got_line = gs_ic_line(in->f, buf, sizeof buf, path, in->line + 1, msg)) != -1;) {
    line = ++in->line;
    if (got_line < 0) return -1;
    char *p = buf + strspn(buf, " \t\r\n");
    if (*p == '#' || *p == '\0') continue;
    int got = 0;
    for (; got < 7; got++) {
      char *end;
      v[got] = strtod(p, &end);
      if (end == p) break;
      /* Not errno's ERANGE: strtod sets it for a valid denormal (1e-310) too; past the largest
       * double the value is infinite. */
      if (!isfinite(v[got])) {
        got = -1;
        break;
      }
      p = end;
    }
    p += strspn(p, " \t\r\n");
    if (got != 7 || (*p && *p != '#')) {
      gs_error_msg(msg, "--ic %s:%llu: want 7 numbers 'x y z vx vy vz m', got %s", path, line,
                   got < 0   ? "a value that is not finite (inf, nan, or beyond 1.8e308)"
                   : got < 7 ? "fewer"
                             : "more");
      return -1;
    }
    if (v[6] < 0) {
      gs_error_msg(msg, "--ic %s:%llu: negative mass %g", path, line, v[6]);
      return -1;
    }
    return 1;
  }
  if (ferror(in->f)) return gs_error_msg(msg, "--ic %s: read error", path), -1;
  return 0;
}

void gs_ic_file_close(struct gs_ic_file *in) {
  if (in->f) fclose(in->f);
  in->f = NULL;
}

/* Every body of the file: into t (grown by doubling) when t is given, else only counted. */
static int gs_ic_file_all(const char *path, struct gs_bodies *t, uint64_t *count, struct gs_msg *msg) {
  struct gs_ic_file in;
  if (gs_ic_file_open(&in, path, msg) != GS_OK) return GS_USAGE;
  uint64_t cap = 0, n = 0;
  int got, status = GS_OK;
  double v[7];
  while ((got = gs_ic_file_next(&in, v, msg)) != 0) {
    if (got < 0) {
      status = GS_USAGE;
      break;
    }
    if (t && n == cap) {
      struct gs_bodies grown;
      cap = cap ? 2 * cap : 1024;
      if (gs_ic_alloc(&grown, cap) != 0) {
        status = gs_error_msg(msg, "--ic %s: out of memory at line %llu", path, (unsigned long long)in.line);
        break;
      }
      double *src[] = {t->x, t->y, t->z, t->vx, t->vy, t->vz, t->m};
      double *dst[] = {grown.x, grown.y, grown.z, grown.vx, grown.vy, grown.vz, grown.m};
      for (int k = 0; k < 7 && n; k++)
        memcpy(dst[k], src[k], n * sizeof(double));
      gs_ic_free(t);
      *t = grown;
    }
    if (t) {
      double *dst[] = {t->x, t->y, t->z, t->vx, t->vy, t->vz, t->m};
      for (int k = 0; k < 7; k++)
        dst[k][n] = v[k];
    }
    n++;
  }
  gs_ic_file_close(&in);
  if (status == GS_OK && n == 0) status = gs_error_msg(msg, "--ic %s: no bodies in the file", path);
  *count = n;
  return status;
}

int gs_ic_file_read(const char *path, struct gs_bodies *b, struct gs_msg *msg) {
  struct gs_bodies t = {0};
  uint64_t n;
  int status = gs_ic_file_all(path, &t, &n, msg);
  if (status != GS_OK) {
    gs_ic_free(&t);
    memset(b, 0, sizeof *b);
    return status;
  }
  t.n = n;
  *b = t;
  return GS_OK;
}

int gs_ic_file_count(const char *path, uint64_t *n, struct gs_msg *msg) { return gs_ic_file_all(path, NULL, n, msg); }
