/* gs_file.c: atomic replacement of a file, so a killed job leaves either the old or the new
 * content, never a torn one. */
#define _POSIX_C_SOURCE 200809L
#include "gs_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fsync the directory holding path, so the rename itself survives a crash. */
static int gs_file_sync_dir(const char *path) {
  char *copy = strdup(path);
  if (!copy) return -1;
  int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
  free(copy);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

int gs_file_write_atomic(const char *path, const void *data, size_t len) {
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp) return -1;
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    free(tmp);
    return -1;
  }
  const char *p = data;
  size_t left = len;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) break;
    p += w;
    left -= (size_t)w;
  }
  int rc = left == 0 && fsync(fd) == 0 ? 0 : -1;
  int saved = errno;
  if (close(fd) != 0) rc = -1;
  if (rc == 0 && rename(tmp, path) != 0) rc = -1;
  if (rc != 0) {
    saved = errno;
    unlink(tmp);
  } else {
    rc = gs_file_sync_dir(path);
  }
  free(tmp);
  errno = saved;
  return rc;
}

char *gs_file_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (n < cap - 1) break;
    char *grown = realloc(buf, cap *= 2);
    if (!grown) {
      free(buf);
      buf = NULL;
    } else {
      buf = grown;
    }
  }
  int err = ferror(f);
  fclose(f);
  if (!buf || err) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  buf[n] = 0;
  if (len) *len = n;
  return buf;
}
