/* Checkpoint files: a round trip is exact; the manifest names the newest complete file and the
 * previous one goes only after it; a half-written file (a crash mid-write) leaves the last good
 * checkpoint usable; corrupted, truncated and foreign files are refused with a clear message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_checkpoint.h"
#include "gs_test.h"

static void header(struct gs_ckpt_header *h, uint64_t step) {
  memset(h, 0, sizeof *h);
  h->step = step;
  h->time = step * 0.001;
  h->n = 200;
  h->npad = 256;
  h->precision = 0;
  h->ranks = 2;
  h->dt = 0.001;
  h->eps = 0.01;
  h->G = 1;
  h->e0 = -0.25;
  snprintf(h->ic, sizeof h->ic, "plummer");
}

static int exists(const char *dir, const char *name) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

/* Read path and expect a refusal mentioning needle. */
static int refused(const char *path, const char *needle) {
  struct gs_ckpt_header h;
  struct gs_msg msg;
  void *payload;
  int rc = gs_checkpoint_read(path, &h, &payload, &msg);
  free(payload);
  if (rc != GS_USAGE || !strstr(msg.text, needle)) {
    fprintf(stderr, "'%s': rc %d, '%s', want '%s'\n", path, rc, msg.text, needle);
    return 0;
  }
  return 1;
}

int main(void) {
  char dir[] = "/tmp/gs_ckpt_XXXXXX";
  GS_EXPECT(mkdtemp(dir) != NULL);
  size_t part = 256 * 16;
  char *pos = malloc(part), *vel = malloc(part), *acc = malloc(part);
  for (size_t i = 0; i < part; i++) pos[i] = (char)i, vel[i] = (char)(3 * i), acc[i] = (char)(7 * i + 1);
  struct gs_ckpt_header h, r;
  struct gs_msg msg;
  void *payload;

  header(&h, 10);
  GS_EXPECT(gs_checkpoint_write(dir, &h, pos, vel, acc, &msg) == 0);
  GS_EXPECT(exists(dir, "checkpoint_000000010.gsck") && exists(dir, "checkpoint.json"));
  GS_EXPECT(gs_checkpoint_read(dir, &r, &payload, &msg) == GS_OK);
  GS_EXPECT(r.step == 10 && r.n == 200 && r.npad == 256 && r.e0 == -0.25 && strcmp(r.ic, "plummer") == 0);
  GS_EXPECT(payload && memcmp(payload, pos, part) == 0 && memcmp((char *)payload + part, vel, part) == 0 &&
            memcmp((char *)payload + 2 * part, acc, part) == 0);
  free(payload);

  /* A newer checkpoint replaces the older one, which goes only once the manifest moved. */
  header(&h, 20);
  GS_EXPECT(gs_checkpoint_write(dir, &h, pos, vel, acc, &msg) == 0);
  GS_EXPECT(exists(dir, "checkpoint_000000020.gsck") && !exists(dir, "checkpoint_000000010.gsck"));
  GS_EXPECT(gs_checkpoint_read(dir, &r, &payload, &msg) == GS_OK && r.step == 20);
  free(payload);

  /* A crash mid-write: a partial temporary file is there, the manifest still names step 20. */
  char p[512];
  snprintf(p, sizeof p, "%s/.checkpoint_000000030.gsck.tmp", dir);
  FILE *f = fopen(p, "wb");
  fwrite(pos, 1, 100, f);
  fclose(f);
  GS_EXPECT(gs_checkpoint_read(dir, &r, &payload, &msg) == GS_OK && r.step == 20);
  free(payload);

  /* A file read directly works too; then damage it in three ways. */
  char file[512], bad[512];
  snprintf(file, sizeof file, "%s/checkpoint_000000020.gsck", dir);
  GS_EXPECT(gs_checkpoint_read(file, &r, &payload, &msg) == GS_OK);
  free(payload);
  snprintf(bad, sizeof bad, "%s/bad.gsck", dir);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "cp %s %s && printf 'X' | dd of=%s bs=1 seek=2000 conv=notrunc 2>/dev/null", file, bad, bad);
  GS_EXPECT(system(cmd) == 0);
  GS_EXPECT(refused(bad, "data are corrupted"));
  snprintf(cmd, sizeof cmd, "cp %s %s && printf 'X' | dd of=%s bs=1 seek=20 conv=notrunc 2>/dev/null", file, bad, bad);
  GS_EXPECT(system(cmd) == 0);
  GS_EXPECT(refused(bad, "header is corrupted"));
  snprintf(cmd, sizeof cmd, "head -c 5000 %s > %s", file, bad);
  GS_EXPECT(system(cmd) == 0);
  GS_EXPECT(refused(bad, "truncated"));
  snprintf(cmd, sizeof cmd, "head -c 100 %s > %s", file, bad);
  GS_EXPECT(system(cmd) == 0);
  GS_EXPECT(refused(bad, "truncated header"));
  f = fopen(bad, "wb");
  for (int i = 0; i < 600; i++) fputc('A', f); /* long enough for a header, but not one */
  fclose(f);
  GS_EXPECT(refused(bad, "not a gpusim checkpoint"));
  GS_EXPECT(refused("/nonexistent/ckpt", "No such file"));
  char empty[600];
  snprintf(empty, sizeof empty, "%s/empty", dir);
  mkdir(empty, 0755);
  GS_EXPECT(refused(empty, "no readable checkpoint.json"));

  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  GS_EXPECT(system(cmd) == 0);
  free(pos), free(vel), free(acc);
  GS_TEST_DONE();
}
