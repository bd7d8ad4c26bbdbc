/* Result files: atomic replacement leaves no temporary; a symlink's target is updated and the
 * link kept; a device or FIFO is written into, never replaced; CSV appends lock the file itself
 * (no lock file left behind) and concurrent appenders lose no row; a read-only file is never
 * replaced. Exit 77 (after every other check passed) where this machine cannot make a character
 * device to test, or as root cannot become an unprivileged user. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gs_file.h"
#include "gs_test.h"

static char dir[] = "/tmp/gs_test_file_XXXXXX";

static char *in_dir(const char *name) {
  static char path[4][512];
  static int next;
  char *p = path[next++ % 4];
  snprintf(p, sizeof path[0], "%s/%s", dir, name);
  return p;
}

/* Entries in the test directory (no temporaries or lock files may be left). */
static int entries(void) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

static int has(const char *path, const char *want) {
  char *s = gs_file_read(path, NULL);
  int ok = s && strcmp(s, want) == 0;
  if (!ok) fprintf(stderr, "%s holds '%s', want '%s'\n", path, s ? s : "(unreadable)", want);
  free(s);
  return ok;
}

static void test_replace(void) {
  char *path = in_dir("out.csv");
  GS_EXPECT(gs_file_write_atomic(path, "first\n", 6) == 0);
  GS_EXPECT(has(path, "first\n"));
  /* A large replacement, larger than the read buffer's first size. */
  size_t big = 100000, len;
  char *data = malloc(big);
  for (size_t i = 0; i < big; i++) data[i] = (char)('a' + i % 26);
  GS_EXPECT(gs_file_write_atomic(path, data, big) == 0);
  char *s = gs_file_read(path, &len);
  GS_EXPECT(s && len == big && memcmp(s, data, big) == 0);
  free(s);
  free(data);
  /* The permissions of the replaced file are kept. */
  struct stat st;
  GS_EXPECT(chmod(path, 0600) == 0 && gs_file_write_atomic(path, "x\n", 2) == 0);
  GS_EXPECT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
  GS_EXPECT(entries() == 1);
  /* A directory that does not exist fails cleanly. */
  GS_EXPECT(gs_file_write_atomic(in_dir("missing/out.csv"), "x", 1) == -1);
  GS_EXPECT(gs_file_read(in_dir("missing/out.csv"), &len) == NULL);
  unlink(path);
}

static int is_link(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static void test_symlinks(void) {
  char *target = in_dir("target.csv"), *link = in_dir("link.csv"), *dangling = in_dir("dangling.csv");
  GS_EXPECT(gs_file_write_atomic(target, "old\n", 4) == 0);
  GS_EXPECT(symlink("target.csv", link) == 0); /* relative: resolved against the link's directory */
  GS_EXPECT(gs_file_write_atomic(link, "new\n", 4) == 0);
  GS_EXPECT(is_link(link) && has(target, "new\n"));
  /* A file that does not begin with the header is refused and left alone. */
  GS_EXPECT(gs_file_append(link, "h", "r1\n", 3) == -2 && has(target, "new\n"));
  /* An empty file gets the header; appends go to the target through the link. */
  GS_EXPECT(gs_file_write_atomic(target, "", 0) == 0);
  GS_EXPECT(gs_file_append(link, "h", "r1\n", 3) == 0 && gs_file_append(link, "h", "r2\n", 3) == 0);
  GS_EXPECT(is_link(link) && has(target, "h\nr1\nr2\n"));
  /* A dangling link: its target is created, the link kept. */
  GS_EXPECT(symlink(in_dir("made.csv"), dangling) == 0);
  GS_EXPECT(gs_file_append(dangling, "h", "r\n", 2) == 0);
  GS_EXPECT(is_link(dangling) && has(in_dir("made.csv"), "h\nr\n"));
  /* A link loop is an error, not a hang. */
  GS_EXPECT(symlink("loop.csv", in_dir("loop.csv")) == 0);
  GS_EXPECT(gs_file_write_atomic(in_dir("loop.csv"), "x", 1) == -1 && errno == ELOOP);
  GS_EXPECT(entries() == 5);
  const char *names[] = {"target.csv", "link.csv", "dangling.csv", "made.csv", "loop.csv"};
  for (int i = 0; i < 5; i++) unlink(in_dir(names[i]));
}

static int is_fifo(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* Read what is waiting in a FIFO (non-blocking reader). */
static int fifo_has(int fd, const char *want) {
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  if (strcmp(buf, want) != 0) fprintf(stderr, "FIFO gave '%s', want '%s'\n", buf, want);
  return strcmp(buf, want) == 0;
}

static void test_fifo(void) {
  char *fifo = in_dir("fifo"), *link = in_dir("fifo.link");
  GS_EXPECT(mkfifo(fifo, 0600) == 0 && symlink(fifo, link) == 0);
  /* No reader: an error at once, not a hang, and the FIFO stays. */
  GS_EXPECT(gs_file_write_atomic(fifo, "x", 1) == -1 && errno == ENXIO && is_fifo(fifo));
  int rd = open(fifo, O_RDONLY | O_NONBLOCK);
  GS_EXPECT(rd >= 0);
  GS_EXPECT(gs_file_write_atomic(link, "{}\n", 3) == 0 && fifo_has(rd, "{}\n"));
  GS_EXPECT(gs_file_append(link, "h", "r\n", 2) == 0 && fifo_has(rd, "h\nr\n"));
  GS_EXPECT(is_fifo(fifo) && is_link(link));
  close(rd);
  GS_EXPECT(entries() == 2);
  unlink(link);
  unlink(fifo);
}

/* /proc/self/fd/N (what /dev/stdout is) names a file this run did not make: it is appended to,
 * never replaced, even where it is a regular file (stdout redirected to a log). */
static void test_proc_link(void) {
  char *log = in_dir("stdout.log"), proc[64];
  GS_EXPECT(gs_file_write_atomic(log, "log line\n", 9) == 0);
  int fd = open(log, O_WRONLY | O_APPEND);
  struct stat before, after;
  GS_EXPECT(fd >= 0 && fstat(fd, &before) == 0);
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  GS_EXPECT(gs_file_append(proc, "h", "r\n", 2) == 0);
  GS_EXPECT(stat(log, &after) == 0 && after.st_ino == before.st_ino && has(log, "log line\nh\nr\n"));
  close(fd);
  unlink(log);
}

/* A character device like /dev/null (made here, never the system's): written into, not replaced.
 * Returns 0, or 77 where no usable device node can be made (not root, or a container's device
 * rules). */
static int test_device(void) {
  char *dev = in_dir("null"), *link = in_dir("null.link");
  if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) return 77;
  int fd = open(dev, O_WRONLY);
  if (fd < 0) {
    unlink(dev);
    return 77;
  }
  close(fd);
  struct stat before, after;
  GS_EXPECT(stat(dev, &before) == 0 && symlink(dev, link) == 0);
  GS_EXPECT(gs_file_write_atomic(dev, "{}\n", 3) == 0);
  GS_EXPECT(gs_file_append(link, "h", "r\n", 2) == 0 && gs_file_write_atomic(link, "{}\n", 3) == 0);
  GS_EXPECT(lstat(dev, &after) == 0 && S_ISCHR(after.st_mode) && after.st_ino == before.st_ino);
  GS_EXPECT(is_link(link) && entries() == 2);
  unlink(link);
  unlink(dev);
  return 0;
}

/* The checks of test_read_only, in a process that may not write a 0444 file: its own read-only
 * file is not replaced by any writer (EACCES, what the shell's > says), and nothing is left
 * behind; its own writable file is (so the refusal is the file's mode, not the directory's). */
static void read_only_checks(const char *sub) {
  char path[600], tmp[600], csv[600];
  snprintf(path, sizeof path, "%s/r.json", sub);
  snprintf(tmp, sizeof tmp, "%s/.r.json.tmp", sub);
  snprintf(csv, sizeof csv, "%s/r.csv", sub);
  GS_EXPECT(gs_file_write_atomic(path, "old\n", 4) == 0 && gs_file_write_atomic(path, "new\n", 4) == 0);
  GS_EXPECT(has(path, "new\n"));
  GS_EXPECT(gs_file_append(csv, "h", "1\n", 2) == 0 && chmod(csv, 0444) == 0);
  GS_EXPECT(chmod(path, 0444) == 0);
  errno = 0;
  GS_EXPECT(gs_file_write_atomic(path, "newer\n", 6) == -1 && errno == EACCES);
  GS_EXPECT(has(path, "new\n"));
  GS_EXPECT(gs_file_append(csv, "h", "2\n", 2) == -1 && errno == EACCES);
  /* The rename every other writer (snapshots, checkpoints) puts its finished file in place with. */
  FILE *f = fopen(tmp, "w");
  GS_EXPECT(f && fputs("tmp\n", f) >= 0 && fclose(f) == 0);
  errno = 0;
  GS_EXPECT(gs_file_rename(tmp, path) == -1 && errno == EACCES && has(path, "new\n"));
  GS_EXPECT(unlink(tmp) == 0);
  struct stat st;
  GS_EXPECT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0444);
  DIR *d = opendir(sub);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  GS_EXPECT(n == 2); /* r.json and r.csv, no temporary */
}

/* Issue 30 item 8: a file its owner made read-only is never replaced, though the atomic rename
 * needs only the directory's permission. Root may write any file, so as root the checks run in a
 * child that drops to the user nobody. Returns 0, or 77 where no unprivileged user can be had. */
static int test_read_only(void) {
  char *sub = in_dir("ro");
  GS_EXPECT(mkdir(sub, 0777) == 0 && chmod(sub, 0777) == 0 && chmod(dir, 0711) == 0);
  struct passwd *pw = getpwnam("nobody");
  uid_t uid = pw ? pw->pw_uid : 65534;
  gid_t gid = pw ? pw->pw_gid : 65534;
  pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) _exit(77);
    if (geteuid() == 0) _exit(77);
    read_only_checks(sub);
    _exit(gs_test_failures ? 1 : 0);
  }
  int st = 0;
  GS_EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st));
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
  GS_EXPECT(rc == 0 || rc == 77);
  char path[600];
  snprintf(path, sizeof path, "%s/r.json", sub), unlink(path);
  snprintf(path, sizeof path, "%s/r.csv", sub), unlink(path);
  snprintf(path, sizeof path, "%s/.r.json.tmp", sub), unlink(path);
  GS_EXPECT(rmdir(sub) == 0 && chmod(dir, 0700) == 0);
  return rc == 77 ? 77 : 0;
}

/* Several processes append to one CSV at once, each row in its own append: every row lands. */
#define GS_APPENDERS 6
#define GS_ROWS 25
static void test_concurrent(void) {
  char *csv = in_dir("shared.csv");
  pid_t pid[GS_APPENDERS];
  for (int p = 0; p < GS_APPENDERS; p++) {
    if ((pid[p] = fork()) != 0) continue;
    int bad = 0;
    for (int r = 0; r < GS_ROWS; r++) {
      char row[32];
      int n = snprintf(row, sizeof row, "p%d,r%d\n", p, r);
      bad += gs_file_append(csv, "proc,row", row, (size_t)n) != 0;
    }
    _exit(bad ? 1 : 0);
  }
  for (int p = 0; p < GS_APPENDERS; p++) {
    int st = 1;
    GS_EXPECT(pid[p] > 0 && waitpid(pid[p], &st, 0) == pid[p] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  char *s = gs_file_read(csv, NULL);
  int lines = 0, missing = 0;
  for (char *c = s; c && *c; c++) lines += *c == '\n';
  for (int p = 0; s && p < GS_APPENDERS; p++)
    for (int r = 0; r < GS_ROWS; r++) {
      char row[32];
      snprintf(row, sizeof row, "\np%d,r%d\n", p, r);
      missing += strstr(s, row) == NULL;
    }
  if (lines != 1 + GS_APPENDERS * GS_ROWS || missing) fprintf(stderr, "%d lines, %d rows missing\n", lines, missing);
  GS_EXPECT(s && strncmp(s, "proc,row\n", 9) == 0 && lines == 1 + GS_APPENDERS * GS_ROWS && missing == 0);
  GS_EXPECT(entries() == 1); /* no lock file, no temporary */
  free(s);
  unlink(csv);
}

int main(void) {
  GS_EXPECT(mkdtemp(dir) != NULL);
  test_replace();
  test_symlinks();
  test_fifo();
  test_proc_link();
  int device = test_device();
  test_concurrent();
  int read_only = test_read_only();
  rmdir(dir);
  if (!gs_test_failures && device == 77) {
    printf("SKIP: cannot make a character device to test (every other check passed)\n");
    return 77;
  }
  if (!gs_test_failures && read_only == 77) {
    printf("SKIP: root, and cannot become the user nobody to test a read-only file (every other check passed)\n");
    return 77;
  }
  GS_TEST_DONE();
}
