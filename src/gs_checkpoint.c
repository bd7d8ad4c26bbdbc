/* gs_checkpoint.c: checkpoint files. Rank 0 writes one file per checkpoint, the ranks' slices
 * given to it one at a time (gs_checkpoint_begin / add / end), so a restart may use any rank
 * count. The accelerations are stored too: the first half-kick after a restart must use the
 * very bits the uninterrupted run would have used. Nothing here deletes or replaces a file that
 * the calling run did not write, and only names of the checkpoint_<step>.gsck form are opened. */
#define _POSIX_C_SOURCE 200809L
#include "gs_checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_file.h"

_Static_assert(sizeof(struct gs_ckpt_header) == 512, "checkpoint header must stay 512 bytes");

uint64_t gs_checkpoint_hash(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

static uint64_t gs_checkpoint_header_sum(struct gs_ckpt_header h) {
  h.header_sum = 0;
  return gs_checkpoint_hash(GS_FNV_OFFSET, &h, sizeof h);
}

/* Write all of buf to fd, or return -1. */
static int gs_checkpoint_put(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t w = write(fd, p, len > ((size_t)1 << 30) ? (size_t)1 << 30 : len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int gs_checkpoint_name_step(const char *name, uint64_t *step) {
  static const char pre[] = "checkpoint_", suf[] = ".gsck";
  if (strncmp(name, pre, sizeof pre - 1) != 0) return 0;
  const char *d = name + sizeof pre - 1;
  size_t digits = strspn(d, "0123456789");
  if (digits < 9 || digits > 18 || strcmp(d + digits, suf) != 0) return 0;
  *step = strtoull(d, NULL, 10);
  return 1;
}

/* The file the manifest in dir names, or "" (into name, size bytes); a name that is not a
 * checkpoint file's own (a path, "..", anything else) counts as none. */
static void gs_checkpoint_manifest_file(const char *dir, char *name, size_t size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/checkpoint.json", dir);
  name[0] = 0;
  char *m = gs_file_read(path, NULL);
  if (!m) return;
  char *f = strstr(m, "\"file\": \"");
  uint64_t step;
  if (f) {
    f += 9;
    size_t len = strcspn(f, "\"");
    if (len < size) memcpy(name, f, len), name[len] = 0;
    if (!gs_checkpoint_name_step(name, &step)) name[0] = 0;
  }
  free(m);
}

int gs_checkpoint_validate(const struct gs_ckpt_header *h, struct gs_msg *msg) {
  const uint64_t tile = GS_CKPT_TILE;
  if (h->n < 1 || h->n > GS_CKPT_MAX_N)
    return gs_error_msg(msg, "field n = %llu is not a body count of 1..2^31", (unsigned long long)h->n);
  if (h->npad != (h->n + tile - 1) / tile * tile)
    return gs_error_msg(msg, "field npad = %llu is not n = %llu padded to whole tiles of %llu bodies",
                        (unsigned long long)h->npad, (unsigned long long)h->n, (unsigned long long)tile);
  if (h->precision != 0 && h->precision != 1)
    return gs_error_msg(msg, "field precision = %d is neither 0 (single) nor 1 (double)", h->precision);
  if (h->law != 0 && h->law != 1) return gs_error_msg(msg, "field law = %d is not a known force law", h->law);
  if (h->step > GS_CKPT_MAX_STEP)
    return gs_error_msg(msg, "field step = %llu is beyond the largest --steps (%d)", (unsigned long long)h->step,
                        GS_CKPT_MAX_STEP);
  if (h->ranks < 1) return gs_error_msg(msg, "field ranks = %d is not a rank count", h->ranks);
  if (h->seed > INT64_MAX)
    return gs_error_msg(msg, "field seed = %llu is beyond the largest --seed (2^63 - 1)", (unsigned long long)h->seed);
  const double pos[] = {h->dt, h->eps, h->G};
  const char *pname[] = {"dt", "eps", "G"};
  for (int i = 0; i < 3; i++)
    if (!(isfinite(pos[i]) && pos[i] > 0)) return gs_error_msg(msg, "field %s = %g is not a finite value > 0", pname[i], pos[i]);
  /* The run's own squares: eps^2 under the softened law (the disk's cutoff law has none), the
   * cutoff's square under the cutoff law; another value would be a force the run never had. */
  if (h->law == 0 ? h->eps2 != h->eps * h->eps || h->cut2 != 0 : h->eps2 != 0 || !(isfinite(h->cut2) && h->cut2 > 0))
    return gs_error_msg(msg, "fields eps2 = %g, cut2 = %g are not the %s law's (eps = %g)", h->eps2, h->cut2,
                        h->law == 0 ? "softened" : "cutoff", h->eps);
  if (!isfinite(h->time) || !isfinite(h->e0))
    return gs_error_msg(msg, "fields time = %g, e0 = %g are not finite", h->time, h->e0);
  if (!memchr(h->ic, 0, sizeof h->ic) || !h->ic[0]) return gs_error_msg(msg, "field ic is not a name");
  /* What gs_nbody_setup_bodies records: a preset's name, or "file"; only the disk has the cutoff law. */
  static const char *const ics[] = {"plummer", "disk", "uniform", "file"};
  int ic = 0;
  while (ic < 4 && strcmp(h->ic, ics[ic]) != 0)
    ic++;
  if (ic == 4 || (ic == 1) != (h->law == 1))
    return gs_error_msg(msg, "field ic = '%.20s' is not plummer, disk, uniform or file with its force law", h->ic);
  if (h->solver < 0 || h->solver > 2) return gs_error_msg(msg, "field solver = %d is not a known solver", h->solver);
  /* The fast multipole solver's: its order and theta (--fmm-order's and --fmm-theta's limits), the
   * tree's fields 0; the others write order 0. */
  if (h->solver == 2 ? !(h->theta > 0 && h->theta < 1) || h->order < 1 || h->order > GS_CKPT_MAX_ORDER ||
                           h->opening != 0 || h->alpha != 0 || h->leaf != 0
                     : h->order != 0)
    return gs_error_msg(msg,
                        "fields order = %d, theta = %g are not a %s (order in [1, %d], theta in (0, 1) and the tree's "
                        "fields 0 for fmm; order 0 for the others)",
                        h->order, h->theta, h->solver == 2 ? "fast multipole run's settings" : "tree's or direct run's",
                        GS_CKPT_MAX_ORDER);
  /* The tree's settings within --theta's, --opening's, --alpha's and --leaf's limits; a direct
   * run writes them as 0. */
  if (h->solver != 2 && (h->solver == 1 ? !(h->theta > 0 && h->theta <= 1.5) || (h->opening != 0 && h->opening != 1) ||
                                              !(h->alpha > 0 && h->alpha <= 1) || h->leaf < 0 || h->leaf > GS_CKPT_MAX_LEAF
                                        : h->theta != 0 || h->opening != 0 || h->alpha != 0 || h->leaf != 0))
    return gs_error_msg(msg,
                        "fields theta = %g, opening = %d, alpha = %g, leaf = %d are not a %s (theta in (0, 1.5], "
                        "opening 0 or 1, alpha in (0, 1], leaf in [0, %d]; all 0 for direct)",
                        h->theta, h->opening, h->alpha, h->leaf, h->solver == 1 ? "tree's settings" : "direct run's",
                        GS_CKPT_MAX_LEAF);
  if (h->tree_cell > (h->solver == 1 ? (uint64_t)1 << 40 : 0))
    return gs_error_msg(msg, "field tree_cell = %llu is not a tree's --tree-cell (at most 2^40; 0 for direct)",
                        (unsigned long long)h->tree_cell);
  if (h->payload_bytes != 3 * h->npad * (uint64_t)(h->precision ? 32 : 16))
    return gs_error_msg(msg, "field payload_bytes = %llu is not 3 x npad x %d", (unsigned long long)h->payload_bytes,
                        h->precision ? 32 : 16);
  return GS_OK;
}

/* Open path for reading only if it is a regular file: a FIFO or a device would block or never
 * end (O_NONBLOCK keeps the open itself from waiting for a FIFO writer). NULL with msg. */
static FILE *gs_checkpoint_open(const char *path, struct gs_msg *msg) {
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  struct stat st;
  if (fd < 0) return gs_error_msg(msg, "--restart %s: %s", path, strerror(errno)), NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    gs_error_msg(msg, "--restart %s: not a regular file (a checkpoint file or a directory of them)", path);
    return NULL;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) close(fd), gs_error_msg(msg, "--restart %s: %s", path, strerror(errno));
  return f;
}

/* Read and check the header of the open file (magic, version, checksum, every field, size). */
static int gs_checkpoint_header(FILE *f, const char *file, struct gs_ckpt_header *h, struct gs_msg *msg) {
  struct stat st;
  struct gs_msg why;
  if (fread(h, sizeof *h, 1, f) != 1) return gs_error_msg(msg, "--restart %s: truncated header: not a checkpoint", file);
  if (memcmp(h->magic, GS_CKPT_MAGIC, 8) != 0) return gs_error_msg(msg, "--restart %s: not a gpusim checkpoint", file);
  if (h->version != 1 || h->header_bytes != sizeof *h)
    return gs_error_msg(msg, "--restart %s: checkpoint version %u is not supported", file, h->version);
  if (gs_checkpoint_header_sum(*h) != h->header_sum)
    return gs_error_msg(msg, "--restart %s: the header is corrupted (checksum mismatch)", file);
  if (gs_checkpoint_validate(h, &why) != GS_OK) return gs_error_msg(msg, "--restart %s: bad header: %s", file, why.text);
  if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size != sizeof *h + h->payload_bytes)
    return gs_error_msg(msg, "--restart %s: the file is %lld bytes, the header says %llu: truncated or padded", file,
                        (long long)st.st_size, (unsigned long long)(sizeof *h + h->payload_bytes));
  return GS_OK;
}

/* The header of dir/name if it is a complete checkpoint (0), else -1. */
static int gs_checkpoint_peek(const char *dir, const char *name, struct gs_ckpt_header *h) {
  char file[4200];
  struct gs_msg msg;
  snprintf(file, sizeof file, "%s/%s", dir, name);
  FILE *f = gs_checkpoint_open(file, &msg);
  if (!f) return -1;
  int rc = gs_checkpoint_header(f, file, h, &msg) == GS_OK ? 0 : -1;
  fclose(f);
  return rc;
}

int gs_checkpoint_same_run(const struct gs_ckpt_header *a, const struct gs_ckpt_header *b) {
  return a->n == b->n && a->precision == b->precision && a->law == b->law && a->dt == b->dt && a->eps == b->eps &&
         a->G == b->G && a->eps2 == b->eps2 && a->cut2 == b->cut2 && a->seed == b->seed && strcmp(a->ic, b->ic) == 0;
}

int gs_checkpoint_latest(const char *dir, char *name, size_t size, struct gs_ckpt_header *h) {
  char ref_name[64];
  struct gs_ckpt_header ref, cand;
  /* The manifest's checkpoint says which run the directory continues: an --overwrite run may
   * have written its files beside another run's, and those must not be taken for its own. */
  gs_checkpoint_manifest_file(dir, ref_name, sizeof ref_name);
  int have_ref = ref_name[0] && gs_checkpoint_peek(dir, ref_name, &ref) == 0, found = 0;
  uint64_t best = 0, step;
  DIR *d = opendir(dir);
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) {
    if (!gs_checkpoint_name_step(e->d_name, &step) || (found && step <= best) || strlen(e->d_name) >= size) continue;
    if (gs_checkpoint_peek(dir, e->d_name, &cand) != 0 || (have_ref && !gs_checkpoint_same_run(&ref, &cand))) continue;
    best = step, found = 1, *h = cand;
    snprintf(name, size, "%s", e->d_name);
  }
  closedir(d);
  return found ? 0 : -1;
}

/* The temporary name of a checkpoint being written (gs_file_tmp_name: its writer's host and pid
 * in it, so a later run can tell a dead writer's leftovers (gs_checkpoint_clean) from a live one's). */
static void gs_checkpoint_tmp_name(char *out, size_t size, const char *dir, const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  gs_file_tmp_name(out, size, path);
}

void gs_checkpoint_clean(const char *dir) {
  char host[64], path[4200];
  gs_file_host(host);
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    char name[64], *tail;
    uint64_t step;
    /* .checkpoint_<step>.gsck.tmp.<host>.<pid> and .checkpoint.json.tmp.<host>.<pid> (the
     * manifest's): only this host's, and only a pid that is gone. */
    if (e->d_name[0] != '.' || !(tail = strstr(e->d_name, ".tmp.")) || (size_t)(tail - e->d_name) >= sizeof name) continue;
    snprintf(name, sizeof name, "%.*s", (int)(tail - e->d_name - 1), e->d_name + 1);
    tail += 5;
    size_t hl = strlen(host);
    if ((!gs_checkpoint_name_step(name, &step) && strcmp(name, "checkpoint.json")) || strncmp(tail, host, hl) != 0 ||
        tail[hl] != '.')
      continue;
    char *end;
    long pid = strtol(tail + hl + 1, &end, 10);
    if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
}

/* Point dir/checkpoint.json at name (atomically). */
static int gs_checkpoint_manifest(const char *dir, const char *name, const struct gs_ckpt_header *h, struct gs_msg *msg) {
  char json[1024], path[4200];
  int len = snprintf(json, sizeof json,
                     "{\n  \"format\": \"gpusim checkpoint 1\",\n  \"file\": \"%s\",\n  \"step\": %llu,\n"
                     "  \"time\": %.17g,\n  \"n\": %llu,\n  \"ranks\": %d,\n  \"precision\": \"%s\",\n"
                     "  \"dt\": %.17g,\n  \"eps\": %.17g,\n  \"law\": %d,\n  \"ic\": \"%s\",\n  \"seed\": %llu,\n"
                     "  \"payload_fnv1a64\": \"%016llx\"\n}\n",
                     name, (unsigned long long)h->step, h->time, (unsigned long long)h->n, h->ranks,
                     h->precision ? "double" : "single", h->dt, h->eps, h->law, h->ic, (unsigned long long)h->seed,
                     (unsigned long long)h->payload_sum);
  snprintf(path, sizeof path, "%s/checkpoint.json", dir);
  if (gs_file_write_atomic(path, json, (size_t)len) != 0)
    return gs_error_msg(msg, "checkpoint: writing %s failed: %s", path, strerror(errno)), -1;
  return 0;
}

/* A checkpoint being written (gs_checkpoint_begin .. gs_checkpoint_end). */
struct gs_ckpt_writer {
  char dir[4096], name[GS_CKPT_NAME], tmp[4400];
  struct gs_ckpt_header h;
  uint64_t sum, put; /* the payload's running FNV-1a 64, and its bytes so far */
  int fd;            /* the temporary file, -1 where none is written */
  int kept;          /* a file of this name exists: compared at the end, never replaced */
  int skip;          /* this run wrote this very step already */
  int err;           /* errno of the first failed write (0: none) */
};

struct gs_ckpt_writer *gs_checkpoint_begin(const char *dir, const struct gs_ckpt_header *h, const char *prev) {
  struct gs_ckpt_writer *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  char path[8300];
  w->h = *h;
  memcpy(w->h.magic, GS_CKPT_MAGIC, 8);
  w->h.version = 1;
  w->h.header_bytes = sizeof w->h;
  w->h.payload_bytes = 3 * (uint64_t)h->npad * (h->precision ? 32 : 16);
  w->sum = GS_FNV_OFFSET, w->fd = -1;
  snprintf(w->dir, sizeof w->dir, "%s", dir);
  snprintf(w->name, sizeof w->name, "checkpoint_%09llu.gsck", (unsigned long long)h->step);
  snprintf(path, sizeof path, "%s/%s", dir, w->name);
  w->skip = strcmp(prev, w->name) == 0;
  w->kept = !w->skip && access(path, F_OK) == 0;
  if (w->skip || w->kept) return w;
  /* The header goes last, over a zero one: a torn temporary never passes for a checkpoint. */
  struct gs_ckpt_header zero;
  memset(&zero, 0, sizeof zero);
  gs_checkpoint_tmp_name(w->tmp, sizeof w->tmp, dir, w->name);
  w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (w->fd < 0 || gs_checkpoint_put(w->fd, &zero, sizeof zero) != 0) w->err = errno ? errno : EIO;
  return w;
}

void gs_checkpoint_add(struct gs_ckpt_writer *w, const void *data, size_t bytes) {
  w->sum = gs_checkpoint_hash(w->sum, data, bytes);
  w->put += bytes;
  if (w->fd >= 0 && !w->err && gs_checkpoint_put(w->fd, data, bytes) != 0) w->err = errno ? errno : EIO;
}

/* The temporary file complete: its header at the start, fsync, rename into place. 0, or -1 (the
 * temporary removed) with msg. */
static int gs_checkpoint_finish(struct gs_ckpt_writer *w, struct gs_msg *msg) {
  char path[8300];
  snprintf(path, sizeof path, "%s/%s", w->dir, w->name);
  int err = w->err;
  if (!err && (lseek(w->fd, 0, SEEK_SET) != 0 || gs_checkpoint_put(w->fd, &w->h, sizeof w->h) != 0 ||
               fsync(w->fd) != 0))
    err = errno ? errno : EIO;
  if (close(w->fd) != 0 && !err) err = errno;
  w->fd = -1;
  if (!err && gs_file_rename(w->tmp, path) != 0) err = errno;
  if (!err) return 0;
  unlink(w->tmp);
  return gs_error_msg(msg, "checkpoint: writing %s failed: %s", path, strerror(err)), -1;
}

/* The end of gs_checkpoint_end: the checks and the rename, then the manifest and prev. */
static int gs_checkpoint_place(struct gs_ckpt_writer *w, char prev[GS_CKPT_NAME], struct gs_msg *msg) {
  char path[8300];
  struct gs_ckpt_header old;
  snprintf(path, sizeof path, "%s/%s", w->dir, w->name);
  if (w->put != w->h.payload_bytes) {
    if (w->fd >= 0) close(w->fd), unlink(w->tmp);
    return gs_error_msg(msg, "checkpoint: %s: %llu payload bytes given, %llu expected", path,
                        (unsigned long long)w->put, (unsigned long long)w->h.payload_bytes), -1;
  }
  if (w->skip) return 0; /* this run wrote this very step already */
  if (w->kept) {
    /* Not this run's file: keep it. The same step of the same run has the same bits (a restart
     * that stops in its first step writes the state it resumed from); anything else is not
     * replaced. (gs_checkpoint_clash refuses, before step 0, the clashes a run can foresee.) */
    if (gs_checkpoint_peek(w->dir, w->name, &old) != 0 || !gs_checkpoint_same_run(&old, &w->h) ||
        old.payload_sum != w->h.payload_sum)
      return gs_error_msg(msg, "checkpoint: %s exists and was not written by this run: not replaced", path), -1;
  } else if (gs_checkpoint_finish(w, msg) != 0) {
    return -1;
  }
  /* The manifest moves to the new file only now that it is complete; then this run's previous
   * one goes (never a file some other run wrote, whatever a manifest names). A kept file never
   * becomes this run's own: the next checkpoint must not delete it. */
  if (gs_checkpoint_manifest(w->dir, w->name, &w->h, msg) != 0) return -1;
  if (prev[0]) {
    snprintf(path, sizeof path, "%s/%s", w->dir, prev);
    unlink(path);
  }
  snprintf(prev, GS_CKPT_NAME, "%s", w->kept ? "" : w->name);
  return 0;
}

int gs_checkpoint_end(struct gs_ckpt_writer *w, struct gs_ckpt_header *h, char prev[GS_CKPT_NAME], struct gs_msg *msg) {
  w->h.payload_sum = w->sum;
  w->h.header_sum = gs_checkpoint_header_sum(w->h);
  int rc = gs_checkpoint_place(w, prev, msg);
  *h = w->h;
  free(w);
  return rc;
}

int gs_checkpoint_write(const char *dir, struct gs_ckpt_header *h, const void *pos, const void *vel, const void *acc,
                        char prev[GS_CKPT_NAME], struct gs_msg *msg) {
  size_t part = (size_t)h->npad * (h->precision ? 32 : 16);
  struct gs_ckpt_writer *w = gs_checkpoint_begin(dir, h, prev);
  if (!w) return gs_error_msg(msg, "checkpoint: out of memory"), -1;
  gs_checkpoint_add(w, pos, part), gs_checkpoint_add(w, vel, part), gs_checkpoint_add(w, acc, part);
  return gs_checkpoint_end(w, h, prev, msg);
}

/* Values [first, first + count) of the payload (data: those values, in file order) against the
 * rule for every value of a checkpoint: finite (a position, velocity or acceleration of NaN or
 * infinity would only fail the run's verification, after the work), and masses (the positions'
 * fourth value) >= 0, as an --ic file's. GS_OK, or GS_USAGE with msg naming the body. */
static int gs_checkpoint_values(const char *file, const struct gs_ckpt_header *h, const void *data, uint64_t first,
                                uint64_t count, struct gs_msg *msg) {
  static const char *const what[] = {"position", "velocity", "acceleration"};
  static const char *const part[] = {"x", "y", "z", "w"};
  for (uint64_t k = 0; k < count; k++) {
    double v = h->precision ? ((const double *)data)[k] : ((const float *)data)[k];
    uint64_t i = first + k, body = i / 4 % h->npad;
    int array = (int)(i / 4 / h->npad), c = (int)(i % 4);
    if (!isfinite(v))
      return gs_error_msg(msg, "--restart %s: body %llu's %s (%s) is %g: not finite", file, (unsigned long long)body,
                          what[array], part[c], v);
    if (array == 0 && c == 3 && v < 0)
      return gs_error_msg(msg, "--restart %s: body %llu's mass is %g: negative", file, (unsigned long long)body, v);
  }
  return GS_OK;
}

/* A checkpoint open for reading (gs_checkpoint_open_payload): its file at the payload's start. */
struct gs_ckpt_reader {
  FILE *f;
  char file[4200];
  struct gs_ckpt_header h;
};

#define GS_CKPT_CHUNK ((size_t)1 << 20) /* bytes the checks of a streamed read hold at once */

/* One pass over the payload, a chunk at a time: its checksum against the header's (first: a
 * corrupted file says so, whatever values it holds), then every value. */
static int gs_checkpoint_scan(struct gs_ckpt_reader *r, struct gs_msg *msg) {
  const size_t vsz = r->h.precision ? sizeof(double) : sizeof(float);
  char *buf = malloc(GS_CKPT_CHUNK);
  uint64_t sum = GS_FNV_OFFSET;
  struct gs_msg bad;
  int status = GS_OK, values = GS_OK;
  if (!buf) return gs_error_msg(msg, "--restart %s: out of memory", r->file);
  for (uint64_t at = 0; at < r->h.payload_bytes && status == GS_OK;) {
    size_t n = r->h.payload_bytes - at < GS_CKPT_CHUNK ? (size_t)(r->h.payload_bytes - at) : GS_CKPT_CHUNK;
    if (fread(buf, 1, n, r->f) != n) {
      status = gs_error_msg(msg, "--restart %s: read error", r->file);
      break;
    }
    sum = gs_checkpoint_hash(sum, buf, n);
    if (values == GS_OK) values = gs_checkpoint_values(r->file, &r->h, buf, at / vsz, n / vsz, &bad);
    at += n;
  }
  free(buf);
  if (status == GS_OK && sum != r->h.payload_sum)
    status = gs_error_msg(msg, "--restart %s: the data are corrupted (checksum mismatch)", r->file);
  if (status == GS_OK && values != GS_OK) *msg = bad, status = values;
  return status;
}

/* The checkpoint file that path means: itself, or a directory's newest complete one (its header
 * into h). GS_OK, or GS_USAGE with msg. */
static int gs_checkpoint_resolve(const char *path, char *file, size_t size, struct gs_ckpt_header *h,
                                 struct gs_msg *msg) {
  struct stat st;
  if (stat(path, &st) != 0) return gs_error_msg(msg, "--restart %s: %s", path, strerror(errno));
  if (!S_ISDIR(st.st_mode)) {
    snprintf(file, size, "%s", path);
    return GS_OK;
  }
  char name[GS_CKPT_NAME];
  if (gs_checkpoint_latest(path, name, sizeof name, h) != 0)
    return gs_error_msg(msg, "--restart %s: no complete checkpoint in the directory (no checkpoint_<step>.gsck with a "
                        "sound header and its full size)", path);
  snprintf(file, size, "%s/%s", path, name);
  return GS_OK;
}

int gs_checkpoint_open_payload(const char *path, struct gs_ckpt_header *h, struct gs_ckpt_reader **out,
                               struct gs_msg *msg) {
  struct gs_ckpt_reader *r = calloc(1, sizeof *r);
  *out = NULL;
  if (!r) return gs_error_msg(msg, "--restart %s: out of memory", path);
  int status = gs_checkpoint_resolve(path, r->file, sizeof r->file, h, msg);
  if (status == GS_OK && !(r->f = gs_checkpoint_open(r->file, msg))) status = GS_USAGE;
  if (status == GS_OK) status = gs_checkpoint_header(r->f, r->file, &r->h, msg);
  if (status == GS_OK) status = gs_checkpoint_scan(r, msg);
  if (status != GS_OK) {
    gs_checkpoint_close(r);
    return status;
  }
  *h = r->h, *out = r;
  return GS_OK;
}

int gs_checkpoint_read_part(struct gs_ckpt_reader *r, uint64_t offset, void *buf, size_t bytes, struct gs_msg *msg) {
  if (offset > r->h.payload_bytes || bytes > r->h.payload_bytes - offset)
    return gs_error_msg(msg, "--restart %s: bytes %llu to %llu are past the payload", r->file,
                        (unsigned long long)offset, (unsigned long long)(offset + bytes));
  if (fseeko(r->f, (off_t)(sizeof r->h + offset), SEEK_SET) != 0 || fread(buf, 1, bytes, r->f) != bytes)
    return gs_error_msg(msg, "--restart %s: read error", r->file);
  return GS_OK;
}

void gs_checkpoint_close(struct gs_ckpt_reader *r) {
  if (!r) return;
  if (r->f) fclose(r->f);
  free(r);
}

int gs_checkpoint_read(const char *path, struct gs_ckpt_header *h, void **payload, struct gs_msg *msg) {
  struct gs_ckpt_reader *r;
  *payload = NULL;
  int status = gs_checkpoint_open_payload(path, h, &r, msg);
  if (status != GS_OK) return status;
  if (!(*payload = malloc(h->payload_bytes)))
    status = gs_error_msg(msg, "--restart %s: out of memory for %llu bytes", r->file, (unsigned long long)h->payload_bytes);
  else
    status = gs_checkpoint_read_part(r, 0, *payload, h->payload_bytes, msg);
  gs_checkpoint_close(r);
  if (status != GS_OK) free(*payload), *payload = NULL;
  return status;
}

int gs_checkpoint_claim(const char *dir, const struct gs_ckpt_header *run, int resuming, struct gs_msg *msg) {
  char name[GS_CKPT_NAME], path[4200];
  struct gs_ckpt_header h;
  if (gs_checkpoint_latest(dir, name, sizeof name, &h) == 0) {
    if (resuming && gs_checkpoint_same_run(&h, run)) return GS_OK;
    return gs_error_msg(msg, "--output %s holds %s run's checkpoint (%s: N = %llu, %s, %s precision, seed %llu, step %llu): "
                        "resume it with --restart %s, choose another --output, or give --overwrite to write beside it",
                        dir, resuming ? "a different" : "another", name, (unsigned long long)h.n, h.ic,
                        h.precision ? "double" : "single", (unsigned long long)h.seed, (unsigned long long)h.step, dir);
  }
  snprintf(path, sizeof path, "%s/checkpoint.json", dir);
  if (access(path, F_OK) == 0)
    return gs_error_msg(msg, "--output %s has a checkpoint.json naming no complete checkpoint: choose another --output, "
                        "or give --overwrite to write beside it", dir);
  return GS_OK;
}

int gs_checkpoint_clash(const char *dir, uint64_t first, uint64_t last, const struct gs_ckpt_header *resumed,
                        struct gs_msg *msg) {
  struct gs_ckpt_header h;
  uint64_t step, worst = UINT64_MAX;
  DIR *d = opendir(dir);
  if (!d) return GS_OK; /* nothing there to clash with */
  for (struct dirent *e; (e = readdir(d));) {
    if (!gs_checkpoint_name_step(e->d_name, &step) || step < first || step > last || step >= worst) continue;
    /* The restart's own state at its first step: a stop in that step writes these very bits,
     * which gs_checkpoint_write keeps whatever the rank count. */
    if (resumed && step == resumed->step && gs_checkpoint_peek(dir, e->d_name, &h) == 0 &&
        gs_checkpoint_same_run(&h, resumed) && h.payload_sum == resumed->payload_sum)
      continue;
    worst = step;
  }
  closedir(d);
  if (worst == UINT64_MAX) return GS_OK;
  return gs_error_msg(msg,
                      "--output %s holds checkpoint_%09llu.gsck, a step this run may checkpoint (it runs steps %llu to "
                      "%llu), and gpusim never replaces a file it did not write, even with --overwrite: choose another "
                      "--output, or move that file away",
                      dir, (unsigned long long)worst, (unsigned long long)first, (unsigned long long)last);
}
