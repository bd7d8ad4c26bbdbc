/* Snapshots from one rank (gs_io.h), read back without gs_io: the HDF5 file with the HDF5 C API
 * (every Header attribute, its type, every dataset value) in HDF5 builds, the raw .bin with plain
 * C and the .json sidecar as text otherwise (the extent in both). Also: chunked writes
 * (GS_IO_ROWS), an empty snapshot, replacing a snapshot, a missing directory made on the way, JSON
 * escaping, and the failures (not a directory, an HDF5/MPI-IO open error, a rename that cannot
 * happen, bad slices, each MPI call failing) returning GS_FAILED with a message, no temporary left
 * behind and nothing printed by HDF5. */
#include <config.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_file.h"
#include "gs_mpi.h"
#include "gs_io.h"
#include "gs_test.h"

#ifdef GS_HAVE_HDF5
#include <hdf5.h>
#endif

#define N 10

/* Known values of body i; x uses 1/(i+7) so that all 17 digits matter. */
static double gs_val(int array, uint64_t i, int c) {
  double di = (double)i;
  switch (array) {
  case 0: return c == 0 ? 1.0 / (di + 7) : c == 1 ? -di : 1e10 * di + 0.25;
  case 1: return c == 0 ? 0.5 * di : c == 1 ? -3.0 : 1e-300 * di;
  default: return (di + 1) / 64;
  }
}

/* The extent the header must carry: least and greatest coordinates (+inf, -inf without bodies). */
static void gs_extent(uint64_t n, double lo[3], double hi[3]) {
  for (int c = 0; c < 3; c++) lo[c] = INFINITY, hi[c] = -INFINITY;
  for (uint64_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) lo[c] = fmin(lo[c], gs_val(0, i, c)), hi[c] = fmax(hi[c], gs_val(0, i, c));
}

struct gs_bodies_buf {
  double pos[3 * N], vel[3 * N], mass[N];
};

static struct gs_snapshot gs_make(struct gs_bodies_buf *b, uint64_t n, double time, const char *ic) {
  for (uint64_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) b->pos[3 * i + c] = gs_val(0, i, c), b->vel[3 * i + c] = gs_val(1, i, c);
    b->mass[i] = gs_val(2, i, 0);
  }
  struct gs_snapshot s = {.n_total = n, .first = 0, .count = n, .pos = b->pos, .vel = b->vel, .mass = b->mass,
                          .time = time, .step = 123456789012L, .G = 0.75, .eps = 0.05, .ic = ic};
  return s;
}

/* Entries of dir that are not snapshot files (temporaries must not stay). */
static int gs_strays(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    n += strncmp(e->d_name, "snapshot_", 9) != 0;
  }
  if (d) closedir(d);
  return n;
}

#ifdef GS_HAVE_HDF5
static int gs_attr(hid_t f, const char *obj, const char *name, hid_t want_type, hid_t mtype, hsize_t n, void *out) {
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) {
    fprintf(stderr, "no attribute %s/%s\n", obj, name);
    return 0;
  }
  hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
  hssize_t pts = H5Sget_simple_extent_npoints(sp);
  int ok = (want_type < 0 || H5Tequal(t, want_type) > 0) && pts == (hssize_t)(n ? n : 1) &&
           (n ? H5Sget_simple_extent_ndims(sp) == 1 : H5Sget_simple_extent_type(sp) == H5S_SCALAR);
  if (want_type < 0) { /* a string: read in its own type */
    ok = ok && H5Tget_class(t) == H5T_STRING && H5Tget_size(t) < 200 && H5Aread(a, t, out) >= 0;
  } else {
    ok = ok && H5Aread(a, mtype, out) >= 0;
  }
  if (!ok) fprintf(stderr, "attribute %s/%s: wrong type, shape or unreadable\n", obj, name);
  H5Tclose(t);
  H5Sclose(sp);
  H5Aclose(a);
  return ok;
}

static double gs_f64(hid_t f, const char *obj, const char *name) {
  double v = -12345;
  GS_EXPECT(gs_attr(f, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &v));
  return v;
}
static int32_t gs_i32(hid_t f, const char *name) {
  int32_t v = -12345;
  GS_EXPECT(gs_attr(f, "/Header", name, H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &v));
  return v;
}

/* Read one dataset whole, checking its file type and shape. */
static void *gs_dataset(hid_t f, const char *path, hid_t ftype, hid_t mtype, uint64_t rows, int w) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  GS_EXPECT(d >= 0);
  if (d < 0) return NULL;
  hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  int nd = H5Sget_simple_extent_dims(sp, dims, NULL);
  GS_EXPECT(H5Tequal(t, ftype) > 0);
  GS_EXPECT(nd == (w > 1 ? 2 : 1) && dims[0] == rows && (w == 1 || dims[1] == (hsize_t)w));
  void *buf = calloc(rows * (size_t)w + 1, 8);
  GS_EXPECT(buf && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  H5Tclose(t);
  H5Sclose(sp);
  H5Dclose(d);
  return buf;
}

static void gs_check(const char *dir, int index, uint64_t n, double time, const char *ic) {
  char path[512], s[256];
  snprintf(path, sizeof path, "%s/snapshot_%03d.hdf5", dir, index);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  GS_EXPECT(f >= 0);
  if (f < 0) return;
  uint32_t u[6];
  uint32_t want[6] = {0, (uint32_t)n, 0, 0, 0, 0}, zero[6] = {0};
  GS_EXPECT(gs_attr(f, "/Header", "NumPart_ThisFile", H5T_STD_U32LE, H5T_NATIVE_UINT32, 6, u) && !memcmp(u, want, sizeof u));
  GS_EXPECT(gs_attr(f, "/Header", "NumPart_Total", H5T_STD_U32LE, H5T_NATIVE_UINT32, 6, u) && !memcmp(u, want, sizeof u));
  GS_EXPECT(gs_attr(f, "/Header", "NumPart_Total_HighWord", H5T_STD_U32LE, H5T_NATIVE_UINT32, 6, u) && !memcmp(u, zero, sizeof u));
  double mt[6] = {1, 1, 1, 1, 1, 1};
  GS_EXPECT(gs_attr(f, "/Header", "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 6, mt));
  for (int k = 0; k < 6; k++) GS_EXPECT(mt[k] == 0);
  GS_EXPECT(gs_f64(f, "/Header", "Time") == time);
  GS_EXPECT(gs_f64(f, "/Header", "Redshift") == 0);
  GS_EXPECT(gs_f64(f, "/Header", "BoxSize") == 0);
  GS_EXPECT(gs_f64(f, "/Header", "Omega0") == 0);
  GS_EXPECT(gs_f64(f, "/Header", "OmegaLambda") == 0);
  GS_EXPECT(gs_f64(f, "/Header", "HubbleParam") == 1);
  GS_EXPECT(gs_f64(f, "/Header", "G") == 0.75);
  GS_EXPECT(gs_f64(f, "/Header", "eps") == 0.05);
  GS_EXPECT(gs_i32(f, "NumFilesPerSnapshot") == 1);
  GS_EXPECT(gs_i32(f, "Flag_Sfr") == 0 && gs_i32(f, "Flag_Cooling") == 0 && gs_i32(f, "Flag_Feedback") == 0);
  GS_EXPECT(gs_i32(f, "Flag_StellarAge") == 0 && gs_i32(f, "Flag_Metals") == 0);
  GS_EXPECT(gs_i32(f, "Flag_DoublePrecision") == 1);
  int64_t step = 0;
  GS_EXPECT(gs_attr(f, "/Header", "step", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &step) && step == 123456789012L);
  memset(s, 0, sizeof s);
  GS_EXPECT(gs_attr(f, "/Header", "gpusim_version", -1, -1, 0, s) && strcmp(s, PACKAGE_VERSION) == 0);
  memset(s, 0, sizeof s);
  GS_EXPECT(gs_attr(f, "/Header", "ic", -1, -1, 0, s) && strcmp(s, ic) == 0);
  double lo[3], hi[3], got[3] = {0, 0, 0};
  gs_extent(n, lo, hi);
  GS_EXPECT(gs_attr(f, "/Header", "extent_min", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, got));
  GS_EXPECT(got[0] == lo[0] && got[1] == lo[1] && got[2] == lo[2]);
  GS_EXPECT(gs_attr(f, "/Header", "extent_max", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, got));
  GS_EXPECT(got[0] == hi[0] && got[1] == hi[1] && got[2] == hi[2]);
  /* Units: 1 kpc, 1e10 Msun and the velocity (and time) that make the run's G = 0.75 exact. */
  double L = gs_f64(f, "/Units", "UnitLength_in_cm"), M = gs_f64(f, "/Units", "UnitMass_in_g");
  double V = gs_f64(f, "/Units", "UnitVelocity_in_cm_per_s"), T = gs_f64(f, "/Units", "UnitTime_in_s");
  GS_EXPECT(L == 3.0856775814913673e21 && M == 1.988409870698051e43 && T == L / V);
  GS_EXPECT(fabs(6.6743e-8 * M * T * T / (L * L * L) / 0.75 - 1) < 1e-12);
  GS_EXPECT(gs_f64(f, "/Parameters", "GravityConstantInternal") == 0.75);
  GS_EXPECT(gs_f64(f, "/Parameters", "UnitVelocity_in_cm_per_s") == V);
  GS_EXPECT(fabs(gs_f64(f, "/Parameters", "Time_GYR") - time * T / 3.15576e16) <= 1e-15 * time * T / 3.15576e16);
  memset(s, 0, sizeof s);
  GS_EXPECT(gs_attr(f, "/Units", "note", -1, -1, 0, s) && strstr(s, "Henon") && strstr(s, "G = 0.75"));

  double *pos = gs_dataset(f, "/PartType1/Coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 3);
  double *vel = gs_dataset(f, "/PartType1/Velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 3);
  double *mass = gs_dataset(f, "/PartType1/Masses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 1);
  uint64_t *ids = gs_dataset(f, "/PartType1/ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, 1);
  int bad = 0;
  for (uint64_t i = 0; pos && vel && mass && ids && i < n; i++) {
    for (int c = 0; c < 3; c++) bad += pos[3 * i + c] != gs_val(0, i, c) || vel[3 * i + c] != gs_val(1, i, c);
    bad += mass[i] != gs_val(2, i, 0) || ids[i] != i;
  }
  GS_EXPECT(bad == 0);
  free(pos);
  free(vel);
  free(mass);
  free(ids);
  H5Fclose(f);
}
#else
static uint64_t gs_le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
static double gs_led(const unsigned char *p) {
  uint64_t v = gs_le64(p);
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}

static void gs_check(const char *dir, int index, uint64_t n, double time, const char *ic) {
  char path[512], key[128];
  snprintf(path, sizeof path, "%s/snapshot_%03d.bin", dir, index);
  size_t len = 0;
  unsigned char *b = (unsigned char *)gs_file_read(path, &len);
  GS_EXPECT(b && len == 128 + 64 * n);
  if (!b || len != 128 + 64 * n) {
    free(b);
    return;
  }
  GS_EXPECT(memcmp(b, "GSSNAP01", 8) == 0);
  GS_EXPECT(b[8] == 1 && b[9] == 0 && b[10] == 0 && b[11] == 0); /* version 1, little-endian */
  GS_EXPECT(b[12] == 128 && b[13] == 0);                          /* header bytes */
  GS_EXPECT(gs_le64(b + 16) == n && gs_led(b + 24) == time && gs_le64(b + 32) == 123456789012ULL);
  GS_EXPECT(gs_led(b + 40) == 0.75 && gs_led(b + 48) == 0.05);
  uint64_t off[4] = {128, 128 + 24 * n, 128 + 48 * n, 128 + 56 * n};
  for (int a = 0; a < 4; a++) GS_EXPECT(gs_le64(b + 56 + 8 * a) == off[a]);
  GS_EXPECT(strncmp((char *)b + 88, ic, 39) == 0);
  int bad = 0;
  for (uint64_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++)
      bad += gs_led(b + off[0] + 8 * (3 * i + c)) != gs_val(0, i, c) || gs_led(b + off[1] + 8 * (3 * i + c)) != gs_val(1, i, c);
    bad += gs_led(b + off[2] + 8 * i) != gs_val(2, i, 0) || gs_le64(b + off[3] + 8 * i) != i;
  }
  GS_EXPECT(bad == 0);
  free(b);
  /* The sidecar as text: the fields a reader needs, in the exact form written. */
  snprintf(path, sizeof path, "%s/snapshot_%03d.json", dir, index);
  char *j = gs_file_read(path, &len);
  GS_EXPECT(j != NULL);
  if (!j) return;
  snprintf(key, sizeof key, "\"n_total\": %llu,", (unsigned long long)n);
  GS_EXPECT(strstr(j, key));
  snprintf(key, sizeof key, "\"time\": %.17g,", time);
  GS_EXPECT(strstr(j, key));
  snprintf(key, sizeof key, "\"file\": \"snapshot_%03d.bin\"", index);
  GS_EXPECT(strstr(j, key));
  snprintf(key, sizeof key, "\"ParticleIDs\": {\"dtype\": \"<u8\", \"shape\": [%llu], \"offset\": %llu}",
           (unsigned long long)n, (unsigned long long)off[3]);
  GS_EXPECT(strstr(j, key));
  GS_EXPECT(strstr(j, "\"step\": 123456789012,") && strstr(j, "\"G\": 0.75,") && strstr(j, "\"eps\": 0.050000000000000003,"));
  GS_EXPECT(strstr(j, "\"byte_order\": \"little\"") && strstr(j, "\"gpusim_version\": \"" PACKAGE_VERSION "\""));
  double lo[3], hi[3];
  gs_extent(n, lo, hi);
  if (n) snprintf(key, sizeof key, "\"extent_min\": [%.17g, %.17g, %.17g],\n  \"extent_max\": [%.17g, %.17g, %.17g],", lo[0],
                  lo[1], lo[2], hi[0], hi[1], hi[2]);
  else snprintf(key, sizeof key, "\"extent_min\": [null, null, null],\n  \"extent_max\": [null, null, null],");
  GS_EXPECT(strstr(j, key));
  free(j);
}
#endif

/* MPI calls that fail on demand, through MPI's profiling interface: these definitions take the
 * library's place (for gs_io and everything else in this program) and pass through to PMPI_
 * unless armed, so that each checked call's failure can be seen reported as an I/O error. */
static const char *gs_fault_call; /* the call that fails, NULL: none */
static int gs_fault_skip;         /* how many of its calls succeed first */
static int gs_fault(const char *call) {
  if (!gs_fault_call || strcmp(call, gs_fault_call) != 0 || gs_fault_skip-- > 0) return 0;
  gs_fault_call = NULL;
  return 1;
}
int MPI_Comm_rank(MPI_Comm c, int *r) { return gs_fault("MPI_Comm_rank") ? MPI_ERR_COMM : PMPI_Comm_rank(c, r); }
int MPI_Comm_size(MPI_Comm c, int *n) { return gs_fault("MPI_Comm_size") ? MPI_ERR_COMM : PMPI_Comm_size(c, n); }
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  return gs_fault("MPI_Bcast") ? MPI_ERR_OTHER : PMPI_Bcast(b, n, t, root, c);
}
int MPI_Allreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  return gs_fault("MPI_Allreduce") ? MPI_ERR_OTHER : PMPI_Allreduce(in, out, n, t, op, c);
}
int MPI_Allgather(const void *in, int n, MPI_Datatype t, void *out, int m, MPI_Datatype u, MPI_Comm c) {
  return gs_fault("MPI_Allgather") ? MPI_ERR_OTHER : PMPI_Allgather(in, n, t, out, m, u, c);
}
int MPI_File_write_at_all(MPI_File f, MPI_Offset o, const void *b, int n, MPI_Datatype t, MPI_Status *st) {
  return gs_fault("MPI_File_write_at_all") ? MPI_ERR_IO : PMPI_File_write_at_all(f, o, b, n, t, st);
}

static const char *gs_ext(void) {
#ifdef GS_HAVE_HDF5
  return "hdf5";
#else
  return "bin";
#endif
}

static void gs_test_format(void) {
  const char *want_format =
#if defined(GS_HAVE_HDF5_PARALLEL)
      "HDF5 (parallel, collective)";
#elif defined(GS_HAVE_HDF5)
      "HDF5 (serial, via rank 0)";
#else
      "raw binary + JSON";
#endif
  GS_EXPECT(strcmp(gs_io_format(), want_format) == 0);
}

/* A plain write, then the same snapshot replaced by a later one in chunks of 3 rows. */
static void gs_test_write(const char *dir) {
  struct gs_bodies_buf b;
  struct gs_msg msg;
  struct gs_snapshot s = gs_make(&b, N, 2.25, "plummer");
  GS_EXPECT(gs_io_write_snapshot(dir, 3, &s, MPI_COMM_WORLD, &msg) == GS_OK);
  gs_check(dir, 3, N, 2.25, "plummer");
  setenv("GS_IO_ROWS", "3", 1);
  s.time = 4.5;
  GS_EXPECT(gs_io_write_snapshot(dir, 3, &s, MPI_COMM_WORLD, &msg) == GS_OK);
  gs_check(dir, 3, N, 4.5, "plummer");
  unsetenv("GS_IO_ROWS");
  GS_EXPECT(gs_strays(dir) == 0);
}

/* Missing directories are made; an empty snapshot; an IC name that JSON must escape. */
static void gs_test_write_empty(const char *dir) {
  struct gs_bodies_buf b;
  struct gs_msg msg;
  char sub[100];
  snprintf(sub, sizeof sub, "%s/a/b", dir);
  struct gs_snapshot e = gs_make(&b, 0, 0.0, "my \"ic\"\\file");
  GS_EXPECT(gs_io_write_snapshot(sub, 1000, &e, MPI_COMM_WORLD, &msg) == GS_OK);
  gs_check(sub, 1000, 0, 0.0, "my \"ic\"\\file");
#ifndef GS_HAVE_HDF5
  char path[200];
  snprintf(path, sizeof path, "%s/snapshot_1000.json", sub);
  char *j = gs_file_read(path, NULL);
  GS_EXPECT(j && strstr(j, "\"ic\": \"my \\\"ic\\\"\\\\file\","));
  free(j);
#endif
}

/* DIR is a regular file; the temporary name is taken; the final name cannot be replaced. */
static void gs_test_fail_files(const char *dir) {
  struct gs_bodies_buf b;
  struct gs_msg msg;
  struct gs_snapshot s = gs_make(&b, N, 4.5, "plummer");
  char path[200], keep[300];
  snprintf(path, sizeof path, "%s/snapshot_003.%s", dir, gs_ext());
  GS_EXPECT(gs_io_write_snapshot(path, 0, &s, MPI_COMM_WORLD, &msg) == GS_FAILED);
  GS_EXPECT(strstr(msg.text, "not a directory") || strstr(msg.text, "cannot create directory"));
  /* The temporary name is taken by a directory: H5Fcreate, or the raw writer's creation, fails. */
  snprintf(path, sizeof path, "%s/.snapshot_007.%s.tmp", dir, gs_ext());
  GS_EXPECT(mkdir(path, 0755) == 0);
  GS_EXPECT(gs_io_write_snapshot(dir, 7, &s, MPI_COMM_WORLD, &msg) == GS_FAILED);
  fprintf(stdout, "open failure: %s\n", msg.text);
#ifdef GS_HAVE_HDF5
  GS_EXPECT(strstr(msg.text, "H5Fcreate failed: ") && strstr(msg.text, "snapshot_007.hdf5"));
#else
  GS_EXPECT(strstr(msg.text, "cannot create ") && strstr(msg.text, "snapshot_007.bin"));
#endif
  GS_EXPECT(rmdir(path) == 0);
  /* The final name is a non-empty directory: the rename fails and the temporary goes. */
  snprintf(path, sizeof path, "%s/snapshot_008.%s", dir, gs_ext());
  GS_EXPECT(mkdir(path, 0755) == 0);
  snprintf(keep, sizeof keep, "%s/keep", path);
  GS_EXPECT(mkdir(keep, 0755) == 0);
  GS_EXPECT(gs_io_write_snapshot(dir, 8, &s, MPI_COMM_WORLD, &msg) == GS_FAILED);
  fprintf(stdout, "rename failure: %s\n", msg.text);
  GS_EXPECT(strstr(msg.text, "rename"));
  GS_EXPECT(rmdir(keep) == 0 && rmdir(path) == 0);
}

/* Slices that do not cover [0, n_total), a negative index, no data. */
static void gs_test_fail_slices(const char *dir) {
  struct gs_bodies_buf b;
  struct gs_msg msg;
  struct gs_snapshot s = gs_make(&b, N, 4.5, "plummer"), bad = s;
  bad.first = 1;
  bad.count = N - 1;
  GS_EXPECT(gs_io_write_snapshot(dir, 9, &bad, MPI_COMM_WORLD, &msg) == GS_FAILED && strstr(msg.text, "rank 0 holds bodies"));
  bad = s;
  bad.count = N - 1;
  GS_EXPECT(gs_io_write_snapshot(dir, 9, &bad, MPI_COMM_WORLD, &msg) == GS_FAILED && strstr(msg.text, "9 of 10 bodies"));
  GS_EXPECT(gs_io_write_snapshot(dir, -1, &s, MPI_COMM_WORLD, &msg) == GS_FAILED && strstr(msg.text, "negative"));
  bad = s;
  bad.pos = NULL;
  GS_EXPECT(gs_io_write_snapshot(dir, 9, &bad, MPI_COMM_WORLD, &msg) == GS_FAILED && strstr(msg.text, "no data"));
  GS_EXPECT(gs_io_write_snapshot(dir, 9, NULL, MPI_COMM_WORLD, &msg) == GS_FAILED);
}

/* Each MPI call of a write failing in turn: GS_FAILED with the call named, nothing left behind,
 * and the next write fine again. */
static void gs_test_fail_mpi(const char *dir) {
  static const struct {
    const char *call;
    int skip;
    const char *text;
  } f[] = {
      {"MPI_Comm_rank", 0, "snapshot 9 in /tmp/gs_test_io_"},
      {"MPI_Comm_rank", 0, "MPI_Comm_rank failed: MPI_ERR_COMM"},
      {"MPI_Comm_size", 0, "MPI_Comm_size failed: MPI_ERR_COMM"},
      {"MPI_Allreduce", 0, "MPI_Allreduce (agreeing on the status) failed: MPI_ERR_OTHER"},
      {"MPI_Allgather", 0, "MPI_Allgather (the slices) failed: MPI_ERR_OTHER"},
      {"MPI_Bcast", 0, "MPI_Bcast (rows per call) failed: MPI_ERR_OTHER"},
      {"MPI_Allreduce", 1, "MPI_Allreduce (calls per array) failed: MPI_ERR_OTHER"},
      {"MPI_Allreduce", 2, "MPI_Allreduce (the extent) failed: MPI_ERR_OTHER"},
#ifndef GS_HAVE_HDF5
      {"MPI_File_write_at_all", 2, "MPI_File_write_at_all failed: MPI_ERR_IO"},
#endif
  };
  struct gs_bodies_buf b;
  struct gs_msg msg;
  struct gs_snapshot s = gs_make(&b, N, 4.5, "plummer");
  for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
    gs_fault_call = f[i].call;
    gs_fault_skip = f[i].skip;
    msg.text[0] = '\0';
    GS_EXPECT(gs_io_write_snapshot(dir, 9, &s, MPI_COMM_WORLD, &msg) == GS_FAILED);
    GS_EXPECT(gs_fault_call == NULL); /* the fault was reached */
    GS_EXPECT(strstr(msg.text, f[i].text) != NULL);
    if (!strstr(msg.text, f[i].text)) fprintf(stdout, "%s: got '%s', want '%s'\n", f[i].call, msg.text, f[i].text);
    gs_fault_call = NULL;
  }
  GS_EXPECT(gs_io_write_snapshot(dir, 9, &s, MPI_COMM_WORLD, &msg) == GS_OK);
  gs_check(dir, 9, N, 4.5, "plummer");
  char path[200];
  snprintf(path, sizeof path, "%s/snapshot_009.%s", dir, gs_ext());
  GS_EXPECT(unlink(path) == 0);
#ifndef GS_HAVE_HDF5
  snprintf(path, sizeof path, "%s/snapshot_009.json", dir);
  GS_EXPECT(unlink(path) == 0);
#endif
}

/* The failures, with stderr captured: our message back, nothing from HDF5's own error printing. */
static void gs_test_fail_all(const char *dir) {
  char errpath[100];
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
  fflush(stderr);
  int saved = dup(2), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 2);
  close(fd);
  gs_test_fail_files(dir);
  GS_EXPECT(gs_strays(dir) == 2); /* a/ and stderr.txt */
  gs_test_fail_slices(dir);
  gs_test_fail_mpi(dir);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  size_t errlen = 0;
  char *err = gs_file_read(errpath, &errlen);
  GS_EXPECT(err && errlen == 0);
  if (err && errlen) fprintf(stderr, "printed during the failures:\n%s\n", err);
  free(err);
  unlink(errpath);
}

int main(int argc, char **argv) {
  gs_mpi_init(&argc, &argv, MPI_THREAD_SINGLE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char dir[] = "/tmp/gs_test_io_XXXXXX", sub[100];
  GS_EXPECT(mkdtemp(dir) != NULL);
  gs_test_format();
  gs_test_write(dir);
  gs_test_write_empty(dir);
  gs_test_fail_all(dir);
  GS_EXPECT(gs_strays(dir) == 1); /* a/ */
  snprintf(sub, sizeof sub, "%s/a/b", dir);
  GS_EXPECT(gs_strays(sub) == 0);

  /* Clean up (the test leaves nothing in /tmp). */
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  GS_EXPECT(system(cmd) == 0);
  gs_mpi_finalize();
  GS_TEST_DONE();
}
