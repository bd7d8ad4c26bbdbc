/* gs_checkpoint.c: checkpoint files. Rank 0 writes one file per checkpoint (positions are on
 * every rank, velocities and accelerations are gathered first), so a restart may use any rank
 * count. The accelerations are stored too: the first half-kick after a restart must use the
 * very bits the uninterrupted run would have used. */
#define _POSIX_C_SOURCE 200809L
#include "gs_checkpoint.h"

#include <errno.h>
#include <fcntl.h>
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

/* The file the manifest in dir names, or "" (into name, size bytes). */
static void gs_checkpoint_manifest_file(const char *dir, char *name, size_t size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/checkpoint.json", dir);
  name[0] = 0;
  char *m = gs_file_read(path, NULL);
  if (!m) return;
  char *f = strstr(m, "\"file\": \"");
  if (f) {
    f += 9;
    size_t len = strcspn(f, "\"");
    if (len < size) memcpy(name, f, len), name[len] = 0;
  }
  free(m);
}

int gs_checkpoint_write(const char *dir, struct gs_ckpt_header *h, const void *pos, const void *vel, const void *acc,
                        struct gs_msg *msg) {
  size_t part = (size_t)h->npad * (h->precision ? 32 : 16);
  memcpy(h->magic, GS_CKPT_MAGIC, 8);
  h->version = 1;
  h->header_bytes = sizeof *h;
  h->payload_bytes = 3 * (uint64_t)part;
  h->payload_sum = gs_checkpoint_hash(gs_checkpoint_hash(gs_checkpoint_hash(GS_FNV_OFFSET, pos, part), vel, part), acc, part);
  h->header_sum = gs_checkpoint_header_sum(*h);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    gs_error_msg(msg, "checkpoint: cannot create %s: %s", dir, strerror(errno));
    return -1;
  }
  char name[64], path[4096], tmp[4200], old[64];
  snprintf(name, sizeof name, "checkpoint_%09llu.gsck", (unsigned long long)h->step);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
  gs_checkpoint_manifest_file(dir, old, sizeof old);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int rc = fd < 0 ? -1 : 0;
  if (rc == 0) rc = gs_checkpoint_put(fd, h, sizeof *h);
  if (rc == 0) rc = gs_checkpoint_put(fd, pos, part);
  if (rc == 0) rc = gs_checkpoint_put(fd, vel, part);
  if (rc == 0) rc = gs_checkpoint_put(fd, acc, part);
  if (rc == 0) rc = fsync(fd);
  int err = errno;
  if (fd >= 0 && close(fd) != 0 && rc == 0) rc = -1, err = errno;
  if (rc == 0 && rename(tmp, path) != 0) rc = -1, err = errno;
  if (rc != 0) {
    unlink(tmp);
    gs_error_msg(msg, "checkpoint: writing %s failed: %s", path, strerror(err));
    return -1;
  }
  /* The manifest moves to the new file only now that it is complete; then the old one goes. */
  char json[1024];
  int len = snprintf(json, sizeof json,
                     "{\n  \"format\": \"gpusim checkpoint 1\",\n  \"file\": \"%s\",\n  \"step\": %llu,\n"
                     "  \"time\": %.17g,\n  \"n\": %llu,\n  \"ranks\": %d,\n  \"precision\": \"%s\",\n"
                     "  \"dt\": %.17g,\n  \"eps\": %.17g,\n  \"ic\": \"%s\",\n  \"seed\": %llu,\n"
                     "  \"payload_fnv1a64\": \"%016llx\"\n}\n",
                     name, (unsigned long long)h->step, h->time, (unsigned long long)h->n, h->ranks,
                     h->precision ? "double" : "single", h->dt, h->eps, h->ic, (unsigned long long)h->seed,
                     (unsigned long long)h->payload_sum);
  snprintf(path, sizeof path, "%s/checkpoint.json", dir);
  if (gs_file_write_atomic(path, json, (size_t)len) != 0) {
    gs_error_msg(msg, "checkpoint: writing %s failed: %s", path, strerror(errno));
    return -1;
  }
  if (old[0] && strcmp(old, name) != 0) {
    snprintf(path, sizeof path, "%s/%s", dir, old);
    unlink(path);
  }
  return 0;
}

int gs_checkpoint_read(const char *path, struct gs_ckpt_header *h, void **payload, struct gs_msg *msg) {
  char file[4200];
  struct stat st;
  *payload = NULL;
  if (stat(path, &st) != 0) return gs_error_msg(msg, "--restart %s: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode)) {
    char name[64];
    gs_checkpoint_manifest_file(path, name, sizeof name);
    if (!name[0]) return gs_error_msg(msg, "--restart %s: no readable checkpoint.json manifest in the directory", path);
    snprintf(file, sizeof file, "%s/%s", path, name);
  } else {
    snprintf(file, sizeof file, "%s", path);
  }
  FILE *f = fopen(file, "rb");
  if (!f) return gs_error_msg(msg, "--restart %s: %s", file, strerror(errno));
  int status = GS_OK;
  if (fread(h, sizeof *h, 1, f) != 1) status = gs_error_msg(msg, "--restart %s: truncated header: not a checkpoint", file);
  else if (memcmp(h->magic, GS_CKPT_MAGIC, 8) != 0) status = gs_error_msg(msg, "--restart %s: not a gpusim checkpoint", file);
  else if (h->version != 1 || h->header_bytes != sizeof *h)
    status = gs_error_msg(msg, "--restart %s: checkpoint version %u is not supported", file, h->version);
  else if (gs_checkpoint_header_sum(*h) != h->header_sum)
    status = gs_error_msg(msg, "--restart %s: the header is corrupted (checksum mismatch)", file);
  else if (h->payload_bytes != 3 * h->npad * (uint64_t)(h->precision ? 32 : 16) || h->n > h->npad)
    status = gs_error_msg(msg, "--restart %s: inconsistent sizes in the header", file);
  if (status == GS_OK) {
    if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size != sizeof *h + h->payload_bytes) {
      status = gs_error_msg(msg, "--restart %s: the file is %lld bytes, the header says %llu: truncated or padded",
                            file, (long long)st.st_size, (unsigned long long)(sizeof *h + h->payload_bytes));
    } else if (!(*payload = malloc(h->payload_bytes ? h->payload_bytes : 1))) {
      status = gs_error_msg(msg, "--restart %s: out of memory for %llu bytes", file, (unsigned long long)h->payload_bytes);
    } else if (fread(*payload, 1, h->payload_bytes, f) != h->payload_bytes) {
      status = gs_error_msg(msg, "--restart %s: read error", file);
    } else if (gs_checkpoint_hash(GS_FNV_OFFSET, *payload, h->payload_bytes) != h->payload_sum) {
      status = gs_error_msg(msg, "--restart %s: the data are corrupted (checksum mismatch)", file);
    }
  }
  fclose(f);
  if (status != GS_OK) {
    free(*payload);
    *payload = NULL;
  }
  return status;
}
