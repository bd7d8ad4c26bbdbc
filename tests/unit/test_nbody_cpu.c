/* The N-body physics on the CPU backend's primitives: a two-body circular orbit returns after
 * its analytic period, momentum is conserved to round-off, a Plummer sphere has the right mass,
 * centre and energy and conserves energy over 100 steps; --ic FILE parsing and its errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gs_backend_cpu_nbody.h"
#include "gs_ic.h"
#include "gs_ic_file.h"
#include "gs_test.h"

/* Pack bodies into (x, y, z, m) and (vx, vy, vz, 0) double quadruples. */
static void pack(const struct gs_bodies *b, double *pos, double *vel) {
  for (uint64_t i = 0; i < b->n; i++) {
    double q[4] = {b->x[i], b->y[i], b->z[i], b->m[i]}, v[4] = {b->vx[i], b->vy[i], b->vz[i], 0};
    memcpy(pos + 4 * i, q, sizeof q);
    memcpy(vel + 4 * i, v, sizeof v);
  }
}

static struct gs_nbody_force_args args(double *pos, double *acc, uint64_t n, double eps2) {
  struct gs_nbody_force_args a = {.kernel = 0, .precision = 1, .law = GS_LAW_PLUMMER, .pos = pos,
                                  .i_first = 0, .i_count = n, .j_first = 0, .j_count = n, .acc = acc,
                                  .potential = 1, .G = 1.0, .eps2 = eps2};
  return a;
}

/* Total energy from a force evaluation with potential (phi excludes self). */
static double energy(const double *pos, const double *vel, const double *acc, uint64_t n) {
  double e = 0;
  for (uint64_t i = 0; i < n; i++) {
    const double *v = vel + 4 * i;
    e += 0.5 * pos[4 * i + 3] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * pos[4 * i + 3] * acc[4 * i + 3];
  }
  return e;
}

/* steps KDK leapfrog steps of dt; forces must be current on entry. */
static void leapfrog(double *pos, double *vel, double *acc, uint64_t n, double eps2, double dt, int steps) {
  struct gs_nbody_force_args a = args(pos, acc, n, eps2);
  for (int s = 0; s < steps; s++) {
    gs_backend_cpu_nbody_kick(1, vel, acc, n, 0.5 * dt);
    gs_backend_cpu_nbody_drift(1, pos, vel, n, dt);
    gs_backend_cpu_nbody_forces(&a);
    gs_backend_cpu_nbody_kick(1, vel, acc, n, 0.5 * dt);
  }
}

static void two_body(void) {
  /* Equal masses 1/2 at distance 1: omega^2 = G M / (d^2 + eps^2)^1.5, period 2 pi / omega. */
  const double eps2 = 1e-6, omega = sqrt(1.0 / pow(1.0 + eps2, 1.5)), T = 2 * M_PI / omega;
  double pos[8] = {-0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5}, vel[8] = {0, -0.5 * omega, 0, 0, 0, 0.5 * omega, 0, 0}, acc[8];
  double start[8];
  memcpy(start, pos, sizeof pos);
  struct gs_nbody_force_args a = args(pos, acc, 2, eps2);
  gs_backend_cpu_nbody_forces(&a);
  double e0 = energy(pos, vel, acc, 2);
  const int steps = 4000;
  leapfrog(pos, vel, acc, 2, eps2, T / steps, steps);
  double dist = 0;
  for (int c = 0; c < 3; c++) dist = fmax(dist, fabs(pos[c] - start[c]));
  /* Leapfrog's phase error over one orbit: ~ (omega dt)^2 / 24 * 2 pi radians at radius 1/2. */
  printf("two-body: after one period |x - x0| = %.3e, |dE/E| = %.3e\n", dist, fabs(energy(pos, vel, acc, 2) - e0) / fabs(e0));
  GS_EXPECT(dist < 1e-5);
  GS_EXPECT(fabs(energy(pos, vel, acc, 2) - e0) < 1e-9 * fabs(e0));
  /* Half a period later the bodies have swapped places. */
  leapfrog(pos, vel, acc, 2, eps2, T / steps, steps / 2);
  GS_EXPECT(fabs(pos[0] - 0.5) < 1e-5 && fabs(pos[4] + 0.5) < 1e-5);
}

static void plummer(void) {
  const uint64_t n = 2048;
  struct gs_bodies b;
  GS_EXPECT(gs_ic_alloc(&b, n) == 0);
  gs_ic_plummer(&b, 42);
  double mass = 0, cm[6] = {0};
  for (uint64_t i = 0; i < n; i++) {
    mass += b.m[i];
    cm[0] += b.m[i] * b.x[i], cm[1] += b.m[i] * b.y[i], cm[2] += b.m[i] * b.z[i];
    cm[3] += b.m[i] * b.vx[i], cm[4] += b.m[i] * b.vy[i], cm[5] += b.m[i] * b.vz[i];
  }
  GS_EXPECT(fabs(mass - 1.0) < 1e-12);
  for (int c = 0; c < 6; c++) GS_EXPECT(fabs(cm[c]) < 1e-12);
  /* The same body for the same seed, a different one for another seed. */
  struct gs_bodies b2;
  GS_EXPECT(gs_ic_alloc(&b2, n) == 0);
  gs_ic_plummer(&b2, 42);
  GS_EXPECT(memcmp(b.x, b2.x, n * sizeof(double)) == 0 && memcmp(b.vz, b2.vz, n * sizeof(double)) == 0);
  gs_ic_plummer(&b2, 43);
  GS_EXPECT(b.x[7] != b2.x[7]);
  gs_ic_free(&b2);

  double *pos = malloc(4 * n * sizeof *pos), *vel = malloc(4 * n * sizeof *vel), *acc = malloc(4 * n * sizeof *acc);
  pack(&b, pos, vel);
  const double eps2 = 0.01 * 0.01;
  struct gs_nbody_force_args a = args(pos, acc, n, eps2);
  gs_backend_cpu_nbody_forces(&a);
  double e0 = energy(pos, vel, acc, n), p0[3] = {0};
  /* Henon units: E = -1/4 up to sampling noise (~1/sqrt(N)) and the softening. */
  printf("plummer: N = %llu, E0 = %.6f\n", (unsigned long long)n, e0);
  GS_EXPECT(fabs(e0 + 0.25) < 0.02);
  for (uint64_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) p0[c] += pos[4 * i + 3] * vel[4 * i + c];
  leapfrog(pos, vel, acc, n, eps2, 1e-3, 100);
  double e1 = energy(pos, vel, acc, n), p1[3] = {0};
  for (uint64_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) p1[c] += pos[4 * i + 3] * vel[4 * i + c];
  printf("plummer: 100 steps: |dE/E0| = %.3e, |dP| = %.3e %.3e %.3e\n", fabs(e1 - e0) / fabs(e0), p1[0] - p0[0],
         p1[1] - p0[1], p1[2] - p0[2]);
  GS_EXPECT(fabs(e1 - e0) < 1e-6 * fabs(e0));
  /* Pairwise forces cancel: momentum is conserved to round-off. */
  for (int c = 0; c < 3; c++) GS_EXPECT(fabs(p1[c] - p0[c]) < 1e-14);
  free(pos), free(vel), free(acc);
  gs_ic_free(&b);
}

/* Write text to a temporary file; returns its path (static buffer). */
static const char *file_with(const char *text) {
  static char path[64];
  strcpy(path, "/tmp/gs_ic_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) return "/nonexistent";
  close(fd);
  return path;
}

static int read_fails_with(const char *text, const char *needle) {
  struct gs_bodies b;
  struct gs_msg msg;
  const char *path = file_with(text);
  int rc = gs_ic_file_read(path, &b, &msg);
  unlink(path);
  if (rc == GS_OK) gs_ic_free(&b);
  if (rc != GS_USAGE || !strstr(msg.text, needle)) {
    fprintf(stderr, "ic file: rc %d '%s', want '%s'\n", rc, msg.text, needle);
    return 0;
  }
  return 1;
}

/* A body line padded with spaces to `len` characters, then a newline (or none, at the end). */
static int long_line_reads(size_t len, const char *end, const char *needle) {
  char text[GS_IC_LINE_MAX + 64];
  memset(text, ' ', len);
  memcpy(text, "1 2 3 4 5 6 1", 13);
  snprintf(text + len, sizeof text - len, "%s", end);
  if (needle) return read_fails_with(text, needle);
  struct gs_bodies b;
  struct gs_msg msg;
  const char *path = file_with(text);
  int rc = gs_ic_file_read(path, &b, &msg);
  unlink(path);
  if (rc != GS_OK) fprintf(stderr, "ic line of %zu characters: '%s'\n", len, msg.text);
  int one = rc == GS_OK && b.n == 1;
  if (rc == GS_OK) gs_ic_free(&b);
  return one;
}

/* The stated limit is the real one: 4095 characters pass, with or without a newline; one more
 * does not, and the message says the limit. */
static void ic_long_lines(void) {
  GS_EXPECT(long_line_reads(GS_IC_LINE_MAX, "\n", NULL));
  GS_EXPECT(long_line_reads(GS_IC_LINE_MAX, "", NULL));
  GS_EXPECT(long_line_reads(GS_IC_LINE_MAX + 1, "\n", ":1: line longer than 4095 characters"));
  GS_EXPECT(long_line_reads(GS_IC_LINE_MAX + 1, "", ":1: line longer than 4095 characters"));
}

/* Issue 30, item 11: a NUL byte in a short line is named as such (with its line), not taken for
 * the line's end and then for a line too long. */
static void ic_nul_byte(void) {
  static const char text[] = "0 0 0 0 0 0 1\n1 0 0 0 0 0 1\n0 1\0 0 0 0 0 1      xx\n";
  char path[] = "/tmp/gs_ic_XXXXXX";
  int fd = mkstemp(path);
  GS_EXPECT(fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
  close(fd);
  struct gs_bodies b;
  struct gs_msg msg;
  int rc = gs_ic_file_read(path, &b, &msg);
  unlink(path);
  if (rc == GS_OK) gs_ic_free(&b);
  GS_EXPECT(rc == GS_USAGE && strstr(msg.text, ":3: the line holds a NUL byte"));
  if (rc != GS_USAGE) fprintf(stderr, "NUL byte: rc %d '%s'\n", rc, msg.text);
}

static void ic_file(void) {
  struct gs_bodies b;
  struct gs_msg msg;
  const char *path = file_with("# two bodies\n\n-0.5 0 0  0 -0.5 0  0.5\n0.5 0 0 0 0.5 0 0.5 # comment\n");
  GS_EXPECT(gs_ic_file_read(path, &b, &msg) == GS_OK && b.n == 2 && b.x[1] == 0.5 && b.vy[0] == -0.5 && b.m[1] == 0.5);
  unlink(path);
  gs_ic_free(&b);
  GS_EXPECT(read_fails_with("1 2 3 4 5 6 1\n1 2 3 4 5 6\n", ":2: want 7 numbers"));
  GS_EXPECT(read_fails_with("1 2 3 4 5 6 1 8\n", ":1: want 7 numbers"));
  GS_EXPECT(read_fails_with("1 2 x 4 5 6 1\n", ":1: want 7 numbers"));
  GS_EXPECT(read_fails_with("1 2 3 4 5 6 -1\n", ":1: negative mass"));
  GS_EXPECT(
      read_fails_with("1 2 3 4 5 6 1e999\n", ":1: want 7 numbers 'x y z vx vy vz m', got a value that is not finite"));
  GS_EXPECT(read_fails_with("1 2 3 4 5 6 1\n1 nan 3 4 5 6 1\n",
                            ":2: want 7 numbers 'x y z vx vy vz m', got a value that is not finite"));
  /* Issue 30, item 11: a denormal is a valid double (strtod's ERANGE notwithstanding), and a
   * value below the denormals is 0 as any value is rounded. */
  path = file_with("1e-310 0 0 0 0 0 1\n-4.9e-324 0 0 0 0 0 1\n1e-400 0 0 0 0 0 1\n");
  GS_EXPECT(gs_ic_file_read(path, &b, &msg) == GS_OK && b.n == 3 && b.x[0] == 1e-310 && b.x[1] == -4.9e-324 && b.x[2] == 0);
  if (b.n) gs_ic_free(&b);
  unlink(path);
  ic_nul_byte();
  GS_EXPECT(read_fails_with("# nothing\n", "no bodies"));
  GS_EXPECT(gs_ic_file_read("/nonexistent/ic.txt", &b, &msg) == GS_USAGE && strstr(msg.text, "cannot open"));
  ic_long_lines();
}

/* A slice of a preset is the whole model's bodies before centring, bit for bit, and the blocked
 * sums of slices that begin blocks add up to the whole model's (the domains layout's start). */
static void slices(void) {
  const uint64_t n = 3 * GS_IC_BLOCK + 100, lo = GS_IC_BLOCK - 7, cut = 2 * GS_IC_BLOCK;
  void (*whole[3])(struct gs_bodies *, uint64_t, uint64_t, uint64_t) = {gs_ic_plummer_slice, gs_ic_uniform_slice,
                                                                         gs_ic_disk_slice};
  for (int m = 0; m < 3; m++) {
    struct gs_bodies a, s1, s2;
    GS_EXPECT(gs_ic_alloc(&a, n) == 0 && gs_ic_alloc(&s1, cut - lo) == 0 && gs_ic_alloc(&s2, n - cut) == 0);
    whole[m](&a, 5, 0, n), whole[m](&s1, 5, lo, n), whole[m](&s2, 5, cut, n);
    double *fa[] = {a.x, a.y, a.z, a.vx, a.vy, a.vz, a.m}, *f1[] = {s1.x, s1.y, s1.z, s1.vx, s1.vy, s1.vz, s1.m},
           *f2[] = {s2.x, s2.y, s2.z, s2.vx, s2.vy, s2.vz, s2.m};
    for (int k = 0; k < 7; k++)
      GS_EXPECT(memcmp(fa[k] + lo, f1[k], (cut - lo) * sizeof(double)) == 0 &&
                memcmp(fa[k] + cut, f2[k], (n - cut) * sizeof(double)) == 0);
    double blocks[4 * GS_IC_SUMS], total[GS_IC_SUMS], want[GS_IC_SUMS];
    gs_ic_sums(&a, 0, GS_IC_BLOCK, blocks); /* block 0 from the whole, 1 from s1, 2 and 3 from s2 */
    gs_ic_sums(&s1, GS_IC_BLOCK - lo, GS_IC_BLOCK, blocks + GS_IC_SUMS);
    gs_ic_sums(&s2, 0, GS_IC_BLOCK, blocks + 2 * GS_IC_SUMS);
    gs_ic_sums(&s2, GS_IC_BLOCK, 100, blocks + 3 * GS_IC_SUMS);
    gs_ic_total(blocks, 4, total);
    gs_ic_whole_total(&a, want);
    GS_EXPECT(memcmp(total, want, sizeof want) == 0);
    GS_EXPECT(fabs(total[0] - (m == 2 ? (double)n : 1.0)) < 1e-9);
    gs_ic_free(&a), gs_ic_free(&s1), gs_ic_free(&s2);
  }
  /* gs_ic_plummer is the slice of all bodies, centred with those sums. */
  struct gs_bodies a, c;
  GS_EXPECT(gs_ic_alloc(&a, n) == 0 && gs_ic_alloc(&c, n) == 0);
  double total[GS_IC_SUMS];
  gs_ic_plummer(&a, 9), gs_ic_plummer_slice(&c, 9, 0, n);
  gs_ic_whole_total(&c, total), gs_ic_shift(&c, total);
  GS_EXPECT(memcmp(a.x, c.x, n * sizeof(double)) == 0 && memcmp(a.vz, c.vz, n * sizeof(double)) == 0);
  gs_ic_free(&a), gs_ic_free(&c);
}

int main(void) {
  two_body();
  plummer();
  slices();
  ic_file();
  GS_TEST_DONE();
}
