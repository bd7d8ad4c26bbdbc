/* gs_file.c: atomic replacement of a file, so a killed job leaves either the old or the new
 * content, never a torn one; and the rules for what may be replaced at all (gs_file.h). */
#define _GNU_SOURCE /* flock */
#include "gs_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
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

/* write() all of data, through short writes and signals. */
static int gs_file_write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

char *gs_file_resolve(const char *path) {
  char *cur = strdup(path);
  for (int hop = 0; cur && hop < 40; hop++) {
    struct stat st;
    if (strncmp(cur, "/proc/", 6) == 0 || lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    char target[PATH_MAX];
    ssize_t n = readlink(cur, target, sizeof target - 1);
    if (n < 0) break;
    target[n] = 0;
    char *dir = strdup(cur), *next = NULL;
    size_t size = strlen(cur) + (size_t)n + 2;
    /* A relative target is relative to the link's own directory. */
    if (dir && (next = malloc(size)) != NULL) {
      if (target[0] == '/') snprintf(next, size, "%s", target);
      else snprintf(next, size, "%s/%s", dirname(dir), target);
    }
    free(dir);
    free(cur);
    cur = next;
  }
  if (cur) errno = ELOOP;
  free(cur);
  return NULL;
}

/* Is the (resolved) path something to write into rather than replace: a device, FIFO, socket
 * or directory, or a /proc link such as /dev/stdout, whose target may be a file we do not own? */
static int gs_file_is_direct(const char *resolved) {
  struct stat st;
  return strncmp(resolved, "/proc/", 6) == 0 || (stat(resolved, &st) == 0 && !S_ISREG(st.st_mode));
}

/* Append to an existing non-regular file. O_NONBLOCK on open: a FIFO without a reader is an
 * error (ENXIO), not a hang; the writes themselves block as usual. */
static int gs_file_write_direct(const char *path, const void *data, size_t len) {
  int fd = open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  int rc = fcntl(fd, F_SETFL, O_APPEND) == 0 && gs_file_write_all(fd, data, len) == 0 ? 0 : -1;
  int saved = errno;
  if (close(fd) != 0 && rc == 0) return -1;
  errno = saved;
  return rc;
}

void gs_file_host(char host[64]) {
  memset(host, 0, 64);
  gethostname(host, 63);
  host[strcspn(host, "/")] = 0; /* it goes into file names */
}

void gs_file_tmp_name(char *out, size_t size, const char *path) {
  char host[64];
  gs_file_host(host);
  const char *base = strrchr(path, '/');
  int dirlen = base ? (int)(base - path) : 1;
  snprintf(out, size, "%.*s/.%s.tmp.%s.%ld", dirlen, base ? path : ".", base ? base + 1 : path, host, (long)getpid());
}

int gs_file_writable(const char *path) {
  /* The kernel's own answer (mode, ACLs, a read-only mount, an immutable file), as the shell's >
   * gets it, without opening the file (no truncation, no write-close event for a file watcher). */
  if (access(path, W_OK) == 0) return 0;
  return errno == ENOENT ? 0 : -1;
}

int gs_file_rename(const char *tmp, const char *path) {
  if (gs_file_writable(path) != 0) return -1;
  return rename(tmp, path);
}

/* Replace the regular file path (or create it) atomically; the new file keeps the old one's
 * permissions. */
static int gs_file_replace(const char *path, const void *data, size_t len) {
  size_t n = strlen(path) + 96;
  if (gs_file_writable(path) != 0) return -1; /* before any temporary is made */
  char *tmp = malloc(n);
  if (!tmp) return -1;
  gs_file_tmp_name(tmp, n, path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    free(tmp);
    return -1;
  }
  struct stat st;
  int rc = stat(path, &st) == 0 && fchmod(fd, st.st_mode & 07777) != 0 ? -1 : 0;
  if (rc == 0) rc = gs_file_write_all(fd, data, len) == 0 && fsync(fd) == 0 ? 0 : -1;
  int saved = errno;
  if (close(fd) != 0) rc = -1;
  if (rc == 0 && gs_file_rename(tmp, path) != 0) rc = -1;
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

int gs_file_write_atomic(const char *path, const void *data, size_t len) {
  char *real = gs_file_resolve(path);
  if (!real) return -1;
  int rc = gs_file_is_direct(real) ? gs_file_write_direct(real, data, len) : gs_file_replace(real, data, len);
  int saved = errno;
  free(real);
  errno = saved;
  return rc;
}

/* Open and lock the regular file path (created empty if missing; *created says so). An appender
 * that replaced the file between our open and our lock leaves us holding the old inode: then
 * the lock is taken again on the file the path names now. Returns the locked fd, or -1. */
static int gs_file_lock(const char *path, int *created) {
  for (;;) {
    *created = 0;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) *created = 1;
    else if (errno == EEXIST) fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    struct stat held, now;
    if (rc != 0 || fstat(fd, &held) != 0) {
      int saved = errno;
      close(fd);
      errno = saved;
      return -1;
    }
    if (stat(path, &now) == 0 && now.st_dev == held.st_dev && now.st_ino == held.st_ino) return fd;
    close(fd);
  }
}

/* The new content of a locked regular file: old + data, or header + data for an empty file.
 * Returns the malloc'd text (*n its length), or NULL: -2 in *rc when old has another header. */
static char *gs_file_appended(const char *path, const char *header, const void *data, size_t len, size_t *n,
                              int *rc) {
  size_t oldlen = 0, hl = strlen(header);
  char *old = gs_file_read(path, &oldlen);
  *rc = -1;
  if (!old) return NULL;
  if (oldlen > 0 && (strncmp(old, header, hl) != 0 || old[hl] != '\n')) {
    free(old);
    *rc = -2;
    return NULL;
  }
  char *text = malloc(oldlen + hl + 2 + len);
  if (text) {
    if (oldlen > 0) *n = (size_t)sprintf(text, "%s%s", old, old[oldlen - 1] != '\n' ? "\n" : "");
    else *n = (size_t)sprintf(text, "%s\n", header);
    memcpy(text + *n, data, len);
    *n += len;
    *rc = 0;
  }
  free(old);
  return text;
}

int gs_file_append(const char *path, const char *header, const void *data, size_t len) {
  char *real = gs_file_resolve(path), *text = NULL;
  if (!real) return -1;
  int rc = -1, created = 0, fd = -1;
  size_t n = 0;
  if (gs_file_is_direct(real)) {
    size_t hl = strlen(header);
    if ((text = malloc(hl + 1 + len)) != NULL) {
      memcpy(text, header, hl);
      text[hl] = '\n';
      memcpy(text + hl + 1, data, len);
      rc = gs_file_write_direct(real, text, hl + 1 + len);
    }
  } else if ((fd = gs_file_lock(real, &created)) >= 0) {
    text = gs_file_appended(real, header, data, len, &n, &rc);
    if (text) rc = gs_file_replace(real, text, n);
  }
  int saved = errno;
  if (rc != 0 && created) unlink(real); /* the empty file only this run made */
  if (fd >= 0) close(fd);
  free(text);
  free(real);
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

int gs_file_mkdirs(const char *dir) {
  char p[PATH_MAX];
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return errno = ENAMETOOLONG, -1;
  for (char *c = p + 1;; c++) {
    if (*c != '/' && *c) continue;
    char keep = *c;
    *c = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) return -1;
    if (!(*c = keep)) return 0;
  }
}
