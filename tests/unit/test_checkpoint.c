/* Checkpoint files: a round trip is exact; the manifest names the newest complete file and the
 * previous one goes only after it; a half-written file (a crash mid-write) leaves the last good
 * checkpoint usable; corrupted, truncated and foreign files are refused with a clear message. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gs_checkpoint.h"
#include "gs_file.h"
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
  h->eps2 = h->eps * h->eps;
  h->G = 1;
  h->e0 = -0.25;
  snprintf(h->ic, sizeof h->ic, "plummer");
}

/* How many entries dir has but . and .. (-1: it cannot be read). With exists() it says what is
 * left in a directory by name, in no order (ls would sort by the locale's collation). */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static int exists(const char *in, const char *name) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", in, name);
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

/* Copy checkpoint src to dst with its header changed by edit and the header checksum made to
 * match again (FNV-1a is no signature: anyone can recompute it). */
static void forge(const char *src, const char *dst, void (*edit)(struct gs_ckpt_header *)) {
  FILE *f = fopen(src, "rb");
  struct stat st;
  stat(src, &st);
  char *buf = malloc((size_t)st.st_size);
  if (!f || !buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) abort();
  fclose(f);
  struct gs_ckpt_header h;
  memcpy(&h, buf, sizeof h);
  edit(&h);
  h.header_sum = 0;
  h.header_sum = gs_checkpoint_hash(GS_FNV_OFFSET, &h, sizeof h);
  memcpy(buf, &h, sizeof h);
  f = fopen(dst, "wb");
  fwrite(buf, 1, (size_t)st.st_size, f);
  fclose(f);
  free(buf);
}
/* As forge, with value written as the float at index `at` of the payload (pos | vel | acc, 4
 * floats a body) and the payload's checksum made to match too. */
static void forge_value(const char *src, const char *dst, size_t at, float value) {
  FILE *f = fopen(src, "rb");
  struct stat st;
  stat(src, &st);
  char *buf = malloc((size_t)st.st_size);
  if (!f || !buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) abort();
  fclose(f);
  struct gs_ckpt_header h;
  memcpy(&h, buf, sizeof h);
  memcpy(buf + sizeof h + at * sizeof value, &value, sizeof value);
  h.payload_sum = gs_checkpoint_hash(GS_FNV_OFFSET, buf + sizeof h, h.payload_bytes);
  h.header_sum = 0;
  h.header_sum = gs_checkpoint_hash(GS_FNV_OFFSET, &h, sizeof h);
  memcpy(buf, &h, sizeof h);
  f = fopen(dst, "wb");
  fwrite(buf, 1, (size_t)st.st_size, f);
  fclose(f);
  free(buf);
}
static void huge_step(struct gs_ckpt_header *h) { h->step = (1ULL << 63) + 5; }
static void huge_leaf(struct gs_ckpt_header *h) {
  h->solver = 1, h->theta = 0.5, h->alpha = 0.005, h->leaf = INT32_MAX;
}
static void direct_theta(struct gs_ckpt_header *h) { h->theta = 0.5; }
static void huge_seed(struct gs_ckpt_header *h) { h->seed = (1ULL << 63) + 1; }
static void no_softening(struct gs_ckpt_header *h) { h->eps2 = 0; }
static void odd_ic(struct gs_ckpt_header *h) { snprintf(h->ic, sizeof h->ic, "plummer\"}"); }
static void disk_softened(struct gs_ckpt_header *h) { snprintf(h->ic, sizeof h->ic, "disk"); }
static void not_tiles(struct gs_ckpt_header *h) { h->n = h->npad = 1000; }
static void no_bodies(struct gs_ckpt_header *h) { h->n = 0; }
static void odd_law(struct gs_ckpt_header *h) { h->law = 7; }
static void nan_dt(struct gs_ckpt_header *h) { h->dt = NAN; }
static void odd_precision(struct gs_ckpt_header *h) { h->precision = 2; }
static void step_30(struct gs_ckpt_header *h) { h->step = 30, h->time = 0.03; }
static void other_seed(struct gs_ckpt_header *h) { h->seed = 99; }

/* A pid that is surely not running: a child that has exited and been reaped. */
static long dead_pid(void) {
  pid_t p = fork();
  if (p == 0) _exit(0);
  waitpid(p, NULL, 0);
  return (long)p;
}

static void touch(const char *in, const char *name) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s", in, name);
  FILE *f = fopen(p, "w");
  if (f) fputs("x", f), fclose(f);
}

/* One directory for the whole test: each test_* below leaves it as the next one expects (the
 * run's step-20 checkpoint, the junk of the damage tests beside it), so they run in main's order. */
static char dir[] = "/tmp/gs_ckpt_XXXXXX";
static const size_t part = 256 * 16; /* bytes of each array: 256 bodies of 16 bytes */
static char *pos, *vel, *acc;
static char prev[GS_CKPT_NAME]; /* the file this run wrote last, carried from write to write */

/* A round trip is exact: the step-10 file and the manifest are written, and reading the
 * directory gives back the header and the three arrays byte for byte. */
static void test_round_trip(void) {
  struct gs_ckpt_header h, r;
  struct gs_msg msg;
  void *payload;
  header(&h, 10);
  GS_EXPECT(gs_checkpoint_write(dir, &h, pos, vel, acc, prev, &msg) == 0);
  GS_EXPECT(exists(dir, "checkpoint_000000010.gsck") && exists(dir, "checkpoint.json"));
  GS_EXPECT(gs_checkpoint_read(dir, &r, &payload, &msg) == GS_OK);
  GS_EXPECT(r.step == 10 && r.n == 200 && r.npad == 256 && r.e0 == -0.25 && strcmp(r.ic, "plummer") == 0);
  GS_EXPECT(payload && memcmp(payload, pos, part) == 0 && memcmp((char *)payload + part, vel, part) == 0 &&
            memcmp((char *)payload + 2 * part, acc, part) == 0);
  free(payload);
}

/* A newer checkpoint replaces the older one, which goes only once the manifest moved. */
static void test_newer_replaces(void) {
  struct gs_ckpt_header h, r;
  struct gs_msg msg;
  void *payload;
  header(&h, 20);
  GS_EXPECT(gs_checkpoint_write(dir, &h, pos, vel, acc, prev, &msg) == 0);
  GS_EXPECT(exists(dir, "checkpoint_000000020.gsck") && !exists(dir, "checkpoint_000000010.gsck"));
  GS_EXPECT(gs_checkpoint_read(dir, &r, &payload, &msg) == GS_OK && r.step == 20);
  free(payload);
}

/* A crash mid-write: a partial temporary file is there, the manifest still names step 20. */
static void test_crash_mid_write(void) {
  struct gs_ckpt_header r;
  struct gs_msg msg;
  void *payload;
  char p[512];
  snprintf(p, sizeof p, "%s/.checkpoint_000000030.gsck.tmp", dir);
  FILE *f = fopen(p, "wb");
  fwrite(pos, 1, 100, f);
  fclose(f);
  GS_EXPECT(gs_checkpoint_read(dir, &r, &payload, &msg) == GS_OK && r.step == 20);
  free(payload);
}

/* A file read directly works too; a copy with its data or header damaged, or cut short (in its
 * data or in its header), is refused with a message that says which. */
static void test_damaged(void) {
  struct gs_ckpt_header r;
  struct gs_msg msg;
  void *payload;
  char file[512], bad[512], cmd[3 * 512 + 100]; /* three paths and the command around them */
  snprintf(file, sizeof file, "%s/checkpoint_000000020.gsck", dir);
  GS_EXPECT(gs_checkpoint_read(file, &r, &payload, &msg) == GS_OK);
  free(payload);
  snprintf(bad, sizeof bad, "%s/bad.gsck", dir);
  snprintf(cmd, sizeof cmd, "cp %s %s && printf 'X' | dd of=%s bs=1 seek=2000 conv=notrunc 2>/dev/null", file, bad,
           bad);
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
}

/* What is no checkpoint at all is refused: a file long enough for a header but not one, a path
 * that does not exist, a directory with no checkpoint in it (dir/empty, kept for test_claim). */
static void test_not_a_checkpoint(void) {
  char bad[512], empty[600];
  snprintf(bad, sizeof bad, "%s/bad.gsck", dir);
  FILE *f = fopen(bad, "wb");
  for (int i = 0; i < 600; i++) fputc('A', f); /* long enough for a header, but not one */
  fclose(f);
  GS_EXPECT(refused(bad, "not a gpusim checkpoint"));
  GS_EXPECT(refused("/nonexistent/ckpt", "No such file"));
  snprintf(empty, sizeof empty, "%s/empty", dir);
  mkdir(empty, 0755);
  GS_EXPECT(refused(empty, "no complete checkpoint"));
}

/* Item 6: a header whose checksum matches is still checked field by field (the unedited file
 * is read first, so each refusal is the edited field's doing). */
/* The good checkpoint of step 20 read back (file), and bad.gsck beside it (bad). */
static void good_and_bad(char *file, char *bad, size_t size) {
  struct gs_ckpt_header r;
  struct gs_msg msg;
  void *payload;
  snprintf(file, size, "%s/checkpoint_000000020.gsck", dir);
  snprintf(bad, size, "%s/bad.gsck", dir);
  GS_EXPECT(gs_checkpoint_read(file, &r, &payload, &msg) == GS_OK);
  free(payload);
}

/* Each edit of the good file's header, re-checksummed into bad, is refused naming its field. */
static void refuse_edits(void (*const edits[])(struct gs_ckpt_header *), const char *const field[], int n) {
  char file[512], bad[512];
  good_and_bad(file, bad, sizeof file);
  for (int k = 0; k < n; k++) {
    forge(file, bad, edits[k]);
    GS_EXPECT(refused(bad, field[k]));
  }
}

static void test_header_fields(void) {
  void (*const edits[])(struct gs_ckpt_header *) = {huge_step, not_tiles, no_bodies, odd_law, nan_dt, odd_precision};
  const char *const field[] = {"field step", "field npad", "field n ", "field law", "field dt", "field precision"};
  refuse_edits(edits, field, 6);
}

/* Issue 30, item 11: the fields' values within the command line's limits (--leaf, --seed), a
 * direct run's tree fields 0, the law's own eps2, a known ic with its law; and every value of
 * the data finite (NaN, infinity) with masses >= 0, checksums matching all the same. */
static void test_forged_values(void) {
  struct gs_ckpt_header r;
  struct gs_msg msg;
  void *payload;
  char file[512], bad[512];
  void (*const edits[])(struct gs_ckpt_header *) = {huge_leaf,    direct_theta, huge_seed,
                                                    no_softening, odd_ic,       disk_softened};
  const char *const field[] = {"leaf = 2147483647 are not a tree's settings",
                               "are not a direct run's",
                               "field seed = 9223372036854775809 is beyond the largest --seed",
                               "are not the softened law's",
                               "field ic = 'plummer\"}' is not",
                               "field ic = 'disk' is not"};
  refuse_edits(edits, field, 6);
  good_and_bad(file, bad, sizeof file);
  forge_value(file, bad, 4 * 17 + 1, NAN); /* body 17's y */
  GS_EXPECT(refused(bad, "body 17's position (y) is nan: not finite"));
  forge_value(file, bad, 4 * 256 + 4 * 3, INFINITY); /* body 3's vx */
  GS_EXPECT(refused(bad, "body 3's velocity (x) is inf: not finite"));
  forge_value(file, bad, 2 * 4 * 256 + 4 * 255 + 2, -INFINITY); /* the last (padding) body's az */
  GS_EXPECT(refused(bad, "body 255's acceleration (z) is -inf: not finite"));
  forge_value(file, bad, 4 * 5 + 3, -1.0f); /* body 5's mass */
  GS_EXPECT(refused(bad, "body 5's mass is -1: negative"));
  forge_value(file, bad, 4 * 5 + 3, 1e-40f); /* a denormal float is a value like any other */
  GS_EXPECT(gs_checkpoint_read(bad, &r, &payload, &msg) == GS_OK);
  free(payload);
}

/* Item 9: a FIFO is refused at once, not waited on. */
static void test_fifo(void) {
  char fifo[600];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  GS_EXPECT(mkfifo(fifo, 0644) == 0);
  alarm(20); /* a hang fails the test instead of stalling it */
  GS_EXPECT(refused(fifo, "not a regular file"));
  alarm(0);
}

/* Item 8: killed between the data rename and the manifest update: the complete file of step
 * 30 is not named by checkpoint.json (step 20), and still the newest complete one wins. */
static void test_orphan(void) {
  struct gs_ckpt_header r;
  struct gs_msg msg;
  void *payload;
  char file[512], orphan[600];
  snprintf(file, sizeof file, "%s/checkpoint_000000020.gsck", dir);
  snprintf(orphan, sizeof orphan, "%s/checkpoint_000000030.gsck", dir);
  forge(file, orphan, step_30);
  GS_EXPECT(gs_checkpoint_read(dir, &r, &payload, &msg) == GS_OK && r.step == 30);
  free(payload);
  /* ... unless it belongs to another run (an --overwrite run beside this one). */
  forge(file, orphan, other_seed);
  rename(orphan, orphan); /* same name, other run: step 20 is this directory's run */
  GS_EXPECT(gs_checkpoint_read(dir, &r, &payload, &msg) == GS_OK && r.step == 20);
  free(payload);
  unlink(orphan);
}

/* A dead writer's temporary goes; a live one's (this process) stays: for a checkpoint file's
 * temporary, and for the manifest's (gs_file_write_atomic names it so too). */
static void test_clean_temporaries(void) {
  char host[64] = "", dead[300], live[300];
  gethostname(host, sizeof host - 1);
  snprintf(dead, sizeof dead, ".checkpoint_000000040.gsck.tmp.%s.%ld", host, dead_pid());
  snprintf(live, sizeof live, ".checkpoint_000000040.gsck.tmp.%s.%ld", host, (long)getpid());
  touch(dir, dead), touch(dir, live);
  gs_checkpoint_clean(dir);
  GS_EXPECT(!exists(dir, dead) && exists(dir, live));
  /* The same for the manifest's temporary. */
  char manifest_path[600], tmpname[700], base[300];
  snprintf(manifest_path, sizeof manifest_path, "%s/checkpoint.json", dir);
  gs_file_tmp_name(tmpname, sizeof tmpname, manifest_path);
  snprintf(live, sizeof live, "%s", strrchr(tmpname, '/') + 1);
  snprintf(base, sizeof base, ".checkpoint.json.tmp.%s.", host);
  GS_EXPECT(strncmp(live, base, strlen(base)) == 0);
  snprintf(dead, sizeof dead, ".checkpoint.json.tmp.%s.%ld", host, dead_pid());
  touch(dir, dead), touch(dir, live);
  gs_checkpoint_clean(dir);
  GS_EXPECT(!exists(dir, dead) && exists(dir, live));
}

/* Item 5: a manifest naming a path outside the directory (or any other run's file) is never
 * deleted: a run deletes only the checkpoint it wrote itself. */
static void test_foreign_manifest(void) {
  struct gs_ckpt_header h;
  struct gs_msg msg;
  char victim[600], manifest[600];
  snprintf(victim, sizeof victim, "%s/victim.txt", dir);
  snprintf(manifest, sizeof manifest, "%s/sub", dir);
  mkdir(manifest, 0755);
  touch(dir, "victim.txt");
  snprintf(manifest, sizeof manifest, "%s/sub/checkpoint.json", dir);
  FILE *f = fopen(manifest, "w");
  fputs("{\n  \"file\": \"../victim.txt\"\n}\n", f);
  fclose(f);
  snprintf(manifest, sizeof manifest, "%s/sub", dir);
  char fresh[GS_CKPT_NAME] = "";
  header(&h, 50);
  GS_EXPECT(gs_checkpoint_write(manifest, &h, pos, vel, acc, fresh, &msg) == 0);
  GS_EXPECT(access(victim, F_OK) == 0);
}

/* A second, unrelated writer into dir (its own prev is empty) keeps the first run's step 20;
 * its step 5 (seed 7) is the other run's checkpoint that test_claim meets. */
static void test_second_writer(void) {
  struct gs_ckpt_header h;
  struct gs_msg msg;
  char fresh[GS_CKPT_NAME] = "";
  header(&h, 5);
  h.seed = 7;
  GS_EXPECT(gs_checkpoint_write(dir, &h, pos, vel, acc, fresh, &msg) == 0);
  GS_EXPECT(exists(dir, "checkpoint_000000020.gsck") && exists(dir, "checkpoint_000000005.gsck"));
}

/* Claiming a directory: a new run is refused where any run's checkpoint is; a restart of
 * the same run is let in; a restart of another run is refused; an empty directory is free. */
static void test_claim(void) {
  struct gs_ckpt_header h;
  struct gs_msg msg;
  char empty[600];
  header(&h, 0);
  GS_EXPECT(gs_checkpoint_claim(dir, &h, 0, &msg) == GS_USAGE && strstr(msg.text, "another run's checkpoint"));
  h.seed = 7;
  GS_EXPECT(gs_checkpoint_claim(dir, &h, 1, &msg) == GS_OK);
  h.seed = 8;
  GS_EXPECT(gs_checkpoint_claim(dir, &h, 1, &msg) == GS_USAGE && strstr(msg.text, "a different run"));
  snprintf(empty, sizeof empty, "%s/empty", dir);
  GS_EXPECT(gs_checkpoint_claim(empty, &h, 0, &msg) == GS_OK);
}

/* Issue 30 item 7: a file of this run's step that another run wrote with the same bits is kept
 * and named by the manifest, but never becomes this run's own: its next checkpoint deletes this
 * run's previous file, not that one. */
static void test_kept_not_deleted(void) {
  struct gs_ckpt_header h;
  struct gs_msg msg;
  char sub[600], other[GS_CKPT_NAME] = "", mine[GS_CKPT_NAME] = "";
  snprintf(sub, sizeof sub, "%s/kept", dir);
  mkdir(sub, 0755);
  header(&h, 10);
  GS_EXPECT(gs_checkpoint_write(sub, &h, pos, vel, acc, other, &msg) == 0); /* the other run's */
  header(&h, 9);
  GS_EXPECT(gs_checkpoint_write(sub, &h, pos, vel, acc, mine, &msg) == 0);
  header(&h, 10);
  GS_EXPECT(gs_checkpoint_write(sub, &h, pos, vel, acc, mine, &msg) == 0); /* the same bits: kept */
  GS_EXPECT(mine[0] == 0 && !exists(sub, "checkpoint_000000009.gsck") && exists(sub, "checkpoint_000000010.gsck"));
  header(&h, 11);
  GS_EXPECT(gs_checkpoint_write(sub, &h, pos, vel, acc, mine, &msg) == 0);
  GS_EXPECT(exists(sub, "checkpoint_000000010.gsck") && exists(sub, "checkpoint_000000011.gsck"));
  /* Other bits under that name are refused at the step, as before. */
  header(&h, 10);
  h.seed = 3;
  GS_EXPECT(gs_checkpoint_write(sub, &h, pos, vel, acc, mine, &msg) == -1 && strstr(msg.text, "not replaced"));
}

/* Issue 30 item 7: before step 0, any checkpoint file at a step the run may write is a clash
 * (whatever the rank count would make of its bits), except a restart's own state at its step. */
static void test_clash(void) {
  struct gs_ckpt_header r;
  struct gs_msg msg;
  void *payload;
  char sub[600], file[700];
  snprintf(sub, sizeof sub, "%s/kept", dir); /* steps 10 and 11, from test_kept_not_deleted */
  GS_EXPECT(gs_checkpoint_clash(sub, 0, 12, NULL, &msg) == GS_USAGE && strstr(msg.text, "checkpoint_000000010.gsck") &&
            strstr(msg.text, "steps 0 to 12"));
  GS_EXPECT(gs_checkpoint_clash(sub, 0, 9, NULL, &msg) == GS_OK);
  GS_EXPECT(gs_checkpoint_clash(sub, 12, 20, NULL, &msg) == GS_OK);
  GS_EXPECT(gs_checkpoint_clash(sub, 11, 20, NULL, &msg) == GS_USAGE && strstr(msg.text, "checkpoint_000000011.gsck"));
  snprintf(file, sizeof file, "%s/checkpoint_000000011.gsck", sub);
  GS_EXPECT(gs_checkpoint_read(file, &r, &payload, &msg) == GS_OK);
  free(payload);
  GS_EXPECT(gs_checkpoint_clash(sub, 11, 20, &r, &msg) == GS_OK); /* resumed from that very state */
  r.payload_sum ^= 1;
  GS_EXPECT(gs_checkpoint_clash(sub, 11, 20, &r, &msg) == GS_USAGE);
  touch(sub, "checkpoint_000000012.gsck"); /* not even a checkpoint: still a name the run would need */
  GS_EXPECT(gs_checkpoint_clash(sub, 12, 20, NULL, &msg) == GS_USAGE && strstr(msg.text, "checkpoint_000000012.gsck"));
  GS_EXPECT(gs_checkpoint_clash("/nonexistent/dir", 0, 20, NULL, &msg) == GS_OK);
}

/* The whole file of checkpoint name in d, into a malloc'd buffer of *len bytes (NULL if none). */
static char *slurp(const char *d, const char *name, size_t *len) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", d, name);
  FILE *f = fopen(p, "rb");
  if (!f) return NULL;
  char *buf = malloc(4 * part + 4096);
  *len = buf ? fread(buf, 1, 4 * part + 4096, f) : 0;
  fclose(f);
  return buf;
}

/* Written in parts (as rank 0 writes the ranks' slices as they come): pieces of 7 bytes and
 * whatever is left give the very file of one gs_checkpoint_write; a payload short of its bytes is
 * refused at the end, leaving no file and no temporary. */
static void test_in_parts(void) {
  char a[600], b[600], p1[GS_CKPT_NAME] = "", p2[GS_CKPT_NAME] = "";
  struct gs_ckpt_header h, g;
  struct gs_msg msg;
  snprintf(a, sizeof a, "%s/whole", dir), snprintf(b, sizeof b, "%s/parts", dir);
  GS_EXPECT(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
  header(&h, 40), header(&g, 40);
  GS_EXPECT(gs_checkpoint_write(a, &h, pos, vel, acc, p1, &msg) == 0);
  struct gs_ckpt_writer *w = gs_checkpoint_begin(b, &g, p2);
  const char *src[3] = {pos, vel, acc};
  for (int k = 0; k < 3; k++)
    for (size_t at = 0; at < part; at += 7)
      gs_checkpoint_add(w, src[k] + at, part - at < 7 ? part - at : 7);
  GS_EXPECT(w && gs_checkpoint_end(w, &g, p2, &msg) == 0 && g.payload_sum == h.payload_sum);
  size_t la = 0, lb = 0;
  char *fa = slurp(a, "checkpoint_000000040.gsck", &la), *fb = slurp(b, "checkpoint_000000040.gsck", &lb);
  GS_EXPECT(fa && fb && la == sizeof h + 3 * part && la == lb && memcmp(fa, fb, la) == 0);
  free(fa), free(fb);
  header(&g, 50);
  w = gs_checkpoint_begin(b, &g, p2);
  gs_checkpoint_add(w, pos, part), gs_checkpoint_add(w, vel, part);
  GS_EXPECT(gs_checkpoint_end(w, &g, p2, &msg) == -1 && strstr(msg.text, "payload bytes given"));
  /* Left: the manifest and the last good checkpoint, and nothing else (no temporary). */
  GS_EXPECT(entries(b) == 2 && exists(b, "checkpoint.json") && exists(b, "checkpoint_000000040.gsck"));
}

/* A payload of several of the reader's chunks (6 MiB: it checks 1 MiB at a time): a sound one
 * reads back whole and in parts; a NaN in the last chunk (the last body's acceleration) is found
 * and named by its body, a negative mass in the first array's second chunk by its. */
static void test_big_payload(void) {
  const uint64_t n = 131072;
  const size_t big = n * 16;
  char d[600], p[GS_CKPT_NAME] = "";
  struct gs_ckpt_header h, r;
  struct gs_msg msg;
  snprintf(d, sizeof d, "%s/big", dir);
  GS_EXPECT(mkdir(d, 0755) == 0);
  float *a[3];
  for (int k = 0; k < 3; k++) {
    a[k] = malloc(big);
    for (uint64_t i = 0; i < 4 * n; i++)
      a[k][i] = k == 0 && i % 4 == 3 ? 1.0f / (float)n : 1e-3f * (float)(i % 977) - 0.4f;
  }
  header(&h, 60);
  h.n = h.npad = n;
  GS_EXPECT(gs_checkpoint_write(d, &h, a[0], a[1], a[2], p, &msg) == 0);
  struct gs_ckpt_reader *rd;
  float got[8];
  GS_EXPECT(gs_checkpoint_open_payload(d, &r, &rd, &msg) == GS_OK && r.n == n);
  GS_EXPECT(rd && gs_checkpoint_read_part(rd, 2 * big + big - sizeof got, got, sizeof got, &msg) == GS_OK &&
            memcmp(got, (char *)a[2] + big - sizeof got, sizeof got) == 0);
  GS_EXPECT(rd && gs_checkpoint_read_part(rd, 3 * big - 4, got, 8, &msg) == GS_USAGE &&
            strstr(msg.text, "past the payload"));
  gs_checkpoint_close(rd);
  a[2][4 * n - 2] = NAN; /* body n - 1's acceleration, z */
  char bad[700];
  snprintf(bad, sizeof bad, "%s/nan", dir);
  GS_EXPECT(mkdir(bad, 0755) == 0);
  char q[GS_CKPT_NAME] = "";
  GS_EXPECT(gs_checkpoint_write(bad, &h, a[0], a[1], a[2], q, &msg) == 0);
  GS_EXPECT(refused(bad, "body 131071's acceleration (z) is nan: not finite"));
  a[2][4 * n - 2] = 0;
  a[0][4 * 70000 + 3] = -1; /* body 70000's mass: past the first MiB of the positions */
  header(&h, 70);
  h.n = h.npad = n;
  GS_EXPECT(gs_checkpoint_write(bad, &h, a[0], a[1], a[2], q, &msg) == 0);
  GS_EXPECT(refused(bad, "body 70000's mass is -1: negative"));
  for (int k = 0; k < 3; k++)
    free(a[k]);
}

int main(void) {
  GS_EXPECT(mkdtemp(dir) != NULL);
  pos = malloc(part), vel = malloc(part), acc = malloc(part);
  /* Finite floats (a restart refuses NaN and infinity), masses (each body's fourth) >= 0. */
  for (size_t i = 0; i < part / sizeof(float); i++) {
    ((float *)pos)[i] = 0.25f * (float)i;
    ((float *)vel)[i] = -0.5f * (float)i;
    ((float *)acc)[i] = 1e-3f * (float)i + 1;
  }
  test_round_trip();
  test_newer_replaces();
  test_crash_mid_write();
  test_damaged();
  test_not_a_checkpoint();
  test_header_fields();
  test_forged_values();
  test_fifo();
  test_orphan();
  test_clean_temporaries();
  test_foreign_manifest();
  test_second_writer();
  test_claim();
  test_kept_not_deleted();
  test_clash();
  test_in_parts();
  test_big_payload();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  GS_EXPECT(system(cmd) == 0);
  free(pos), free(vel), free(acc);
  GS_TEST_DONE();
}
