/* gs_io.c: N-body snapshots (gs_io.h; the layouts are in docs/snapshot-format.md).
 *
 * One write, whatever the format:
 *   1. every rank checks the slices (contiguous, ordered by rank, summing to n_total) and rank 0
 *      makes DIR (and its parents) if missing;
 *   2. rank 0 checks and reserves the file's space (gs_io_reserve says why), then the data goes
 *      to DIR/.snapshot_NNN.EXT.tmp:
 *      - parallel HDF5: the file is opened with the MPI-IO driver on comm, every rank writes its
 *        own hyperslab [first, first + count) with collective transfers;
 *      - serial HDF5: rank 0 owns the file and the rows come to it with MPI_Gatherv, a bounded
 *        number of rows at a time (no count near INT_MAX, no copy of the whole snapshot);
 *      - raw: MPI-IO, every rank writes its rows at its own offset with MPI_File_write_at_all;
 *   3. rank 0 fsyncs the file, renames it over DIR/snapshot_NNN.EXT and fsyncs DIR (the raw
 *      format then writes its JSON sidecar atomically, so a .json means a complete .bin).
 *
 * Errors never abort: every rank keeps making the same sequence of collective calls whatever
 * failed locally, and at each checkpoint the ranks agree (MPI_Allreduce), so all return GS_FAILED
 * together with the message of the lowest failing rank. (A write failing inside a collective
 * MPI-IO transfer can leave the MPI library itself out of step between ranks: gs_io_reserve keeps
 * a full disk from getting that far.) Collective calls are
 * made in chunks of at most GS_IO_ROWS rows (the environment variable of that name on rank 0
 * overrides it, which the tests use to cross chunk boundaries with a few bodies). */
#define _GNU_SOURCE /* fallocate (Linux); everything else is POSIX */
#include <config.h>

#include "gs_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "gs_file.h"

#ifdef GS_HAVE_HDF5
#include <hdf5.h>
#endif

/* Rows per collective call: 2^18 rows of 3 doubles is 6 MiB of staging buffer, and the cap of
 * 2^26 keeps every MPI count (rows x 24 bytes) below INT_MAX. */
#define GS_IO_ROWS 262144u
#define GS_IO_ROWS_MAX (1u << 26)
#define GS_IO_PATH 4096
/* The raw format's fixed header (docs/snapshot-format.md has every field). */
#define GS_RAW_HEADER 128u
#define GS_RAW_IC 40u

const char *gs_io_format(void) {
#if defined(GS_HAVE_HDF5_PARALLEL)
  return "HDF5 (parallel, collective)";
#elif defined(GS_HAVE_HDF5)
  return "HDF5 (serial, via rank 0)";
#else
  return "raw binary + JSON";
#endif
}

/* Everything one snapshot write needs, the same on every rank except the slice. */
struct gs_io_job {
  const struct gs_snapshot *s;
  MPI_Comm comm;
  int rank, size;
  int ok;                  /* this rank has seen no failure (the agreed value after gs_io_agree) */
  struct gs_msg *msg;      /* the first failure's text */
  uint64_t rows;           /* rows per collective call */
  uint64_t calls;          /* collective calls per array: the same number on every rank */
  uint64_t *ranges;        /* first, count of every rank (MPI_Allgather) */
  unsigned char *buf;      /* staging buffer: rows x 3 x 8 bytes */
  char name[64];           /* snapshot_NNN.EXT */
  char path[GS_IO_PATH];   /* DIR/snapshot_NNN.EXT */
  char tmp[GS_IO_PATH];    /* DIR/.snapshot_NNN.EXT.tmp */
  const char *dir;         /* DIR */
};

/* Record a local failure; the first one is the one reported. */
static void gs_io_fail(struct gs_io_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gs_io_fail(struct gs_io_job *j, const char *fmt, ...) {
  if (!j->ok) return;
  j->ok = 0;
  int n = snprintf(j->msg->text, sizeof j->msg->text, "snapshot %s: ", j->path);
  if (n < 0 || (size_t)n >= sizeof j->msg->text) n = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->msg->text + n, sizeof j->msg->text - (size_t)n, fmt, ap);
  va_end(ap);
}

/* Checkpoint, collective: 1 when every rank is fine; otherwise every rank gets the lowest failing
 * rank's message (so the report does not depend on timing) and 0. */
static int gs_io_agree(struct gs_io_job *j) {
  int mine = j->ok ? j->size : j->rank, first = j->size;
  if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, j->comm) != MPI_SUCCESS) {
    gs_io_fail(j, "MPI_Allreduce failed while agreeing on the status");
    return 0;
  }
  if (first == j->size) return 1;
  MPI_Bcast(j->msg->text, (int)sizeof j->msg->text, MPI_CHAR, first, j->comm);
  j->ok = 0;
  return 0;
}

/* Rows [lo, hi) of this rank's slice that go in collective call k (empty past its end). */
static inline void gs_io_local_rows(const struct gs_io_job *j, uint64_t k, uint64_t *lo, uint64_t *hi) {
  uint64_t n = j->s->count, a = k * j->rows;
  *lo = a < n ? a : n;
  *hi = n - *lo > j->rows ? *lo + j->rows : n;
}

/* Little-endian stores that do not depend on the host's byte order. */
static inline void gs_put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void gs_put_f64(unsigned char *p, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  gs_put_u64(p, v);
}

/* Names, slice checks, DIR, chunking. Collective; returns the agreed status. */
static int gs_io_setup(struct gs_io_job *j, const char *dir, int index, const char *ext) {
  const struct gs_snapshot *s = j->s;
  j->dir = dir;
  snprintf(j->path, sizeof j->path, "%s/snapshot_%03d.%s", dir ? dir : "(null)", index, ext);
  snprintf(j->name, sizeof j->name, "snapshot_%03d.%s", index, ext);
  if (!dir || !*dir) gs_io_fail(j, "no directory given");
  if (index < 0) gs_io_fail(j, "negative snapshot index %d", index);
  int n = snprintf(j->tmp, sizeof j->tmp, "%s/.%s.tmp", dir ? dir : "", j->name);
  if (n < 0 || (size_t)n >= sizeof j->tmp) gs_io_fail(j, "directory name too long");
  if (s->count > 0 && (!s->pos || !s->vel || !s->mass)) gs_io_fail(j, "rank %d: no data for %" PRIu64 " bodies", j->rank, s->count);

  /* Every rank sees every slice, so every rank reaches the same verdict on them. */
  uint64_t mine[3] = {s->first, s->count, s->n_total};
  j->ranges = malloc(3 * sizeof(uint64_t) * (size_t)j->size);
  if (!j->ranges) {
    gs_io_fail(j, "out of memory");
    return gs_io_agree(j); /* the agreement reaches every rank before anyone gathers */
  }
  if (!gs_io_agree(j)) return 0;
  if (MPI_Allgather(mine, 3, MPI_UINT64_T, j->ranges, 3, MPI_UINT64_T, j->comm) != MPI_SUCCESS)
    gs_io_fail(j, "MPI_Allgather of the slices failed");
  uint64_t next = 0;
  for (int r = 0; r < j->size && j->ok; r++) {
    const uint64_t *q = j->ranges + 3 * r;
    if (q[2] != s->n_total)
      gs_io_fail(j, "ranks disagree on the number of bodies (%" PRIu64 " on rank 0, %" PRIu64 " on rank %d)", j->ranges[2], q[2], r);
    else if (q[0] != next || q[1] > s->n_total - next)
      gs_io_fail(j, "rank %d holds bodies [%" PRIu64 ", +%" PRIu64 ") where [%" PRIu64 ", ...) of %" PRIu64 " was expected", r, q[0], q[1], next, s->n_total);
    else
      next += q[1];
  }
  if (j->ok && next != s->n_total) gs_io_fail(j, "the ranks hold %" PRIu64 " of %" PRIu64 " bodies", next, s->n_total);

  /* Rank 0's chunk size for all, and DIR made once. */
  unsigned long rows = GS_IO_ROWS;
  if (j->rank == 0) {
    const char *e = getenv("GS_IO_ROWS");
    if (e && *e) rows = strtoul(e, NULL, 10);
    if (rows < 1 || rows > GS_IO_ROWS_MAX) rows = GS_IO_ROWS;
    struct stat st;
    if (j->ok && gs_file_mkdirs(dir) != 0) gs_io_fail(j, "cannot create directory %s: %s", dir, strerror(errno));
    else if (j->ok && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) gs_io_fail(j, "%s is not a directory", dir);
  }
  MPI_Bcast(&rows, 1, MPI_UNSIGNED_LONG, 0, j->comm);
  j->rows = rows;
  uint64_t calls = (s->count + j->rows - 1) / j->rows;
  MPI_Allreduce(&calls, &j->calls, 1, MPI_UINT64_T, MPI_MAX, j->comm);
  j->buf = malloc((size_t)j->rows * 24);
  if (!j->buf) gs_io_fail(j, "out of memory for a %" PRIu64 "-row buffer", j->rows);
  return gs_io_agree(j);
}

/* Rank 0, before any data moves: the space for `bytes` in the temporary file, so that a full disk
 * is a clean error here and not a write failing in the middle of a collective transfer (where
 * Open MPI's OMPIO and HDF5's collective metadata can be left out of step between ranks and
 * hang). statvfs catches a disk without room; fallocate then reserves the blocks where the file
 * system can (past the end of the file with keep_size, as HDF5 owns the file's size). */
static void gs_io_reserve(struct gs_io_job *j, const char *dir, uint64_t bytes, int keep_size) {
  struct statvfs v;
  if (statvfs(dir, &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize < bytes) {
    gs_io_fail(j, "not enough space in %s: %.1f MiB needed, %.1f MiB free", dir, bytes / 1048576.0,
               (double)v.f_bavail * v.f_frsize / 1048576.0);
    return;
  }
  int fd = open(j->tmp, O_WRONLY | O_CREAT | (keep_size ? 0 : O_TRUNC), 0644);
  if (fd < 0) {
    gs_io_fail(j, "cannot create %s: %s", j->tmp, strerror(errno));
    return;
  }
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
  if (bytes > 0 && fallocate(fd, keep_size ? FALLOC_FL_KEEP_SIZE : 0, 0, (off_t)bytes) != 0 &&
      errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL)
    gs_io_fail(j, "cannot reserve %.1f MiB: %s", bytes / 1048576.0, strerror(errno));
#endif
  close(fd);
}

/* Rank 0 puts the finished temporary file in place (fsync, rename, fsync DIR) or, after a failure
 * anywhere, removes it. Collective; returns the agreed status. */
static int gs_io_commit(struct gs_io_job *j, const char *dir) {
  int all_ok = gs_io_agree(j);
  if (j->rank == 0) {
    if (!all_ok) {
      unlink(j->tmp);
    } else {
      /* fsync through a new descriptor: the writers' data must be on disk before the rename. */
      int fd = open(j->tmp, O_RDONLY);
      if (fd < 0 || fsync(fd) != 0) gs_io_fail(j, "fsync: %s", strerror(errno));
      if (fd >= 0) close(fd);
      if (j->ok && rename(j->tmp, j->path) != 0) gs_io_fail(j, "rename from %s: %s", j->tmp, strerror(errno));
      int dfd = j->ok ? open(dir, O_RDONLY | O_DIRECTORY) : -1;
      if (j->ok && (dfd < 0 || fsync(dfd) != 0)) gs_io_fail(j, "fsync of the directory: %s", strerror(errno));
      if (dfd >= 0) close(dfd);
      if (!j->ok) unlink(j->tmp);
    }
  }
  return all_ok && gs_io_agree(j);
}

#ifdef GS_HAVE_HDF5
/* ---- HDF5, GADGET layout ---- */

/* The innermost entry of HDF5's error stack says what really went wrong ("unable to open file:
 * ... errno = 2, error message = 'No such file or directory'"); the outer ones only repeat it. */
static herr_t gs_h5_walk(unsigned n, const H5E_error2_t *e, void *data) {
  if (n == 0 && e->desc) snprintf(data, 300, "%s (%s)", e->desc, e->func_name ? e->func_name : "?");
  return 0;
}
static void gs_h5_fail(struct gs_io_job *j, const char *what) {
  char why[300] = "HDF5 gave no reason";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, gs_h5_walk, why);
  for (char *c = why; *c; c++) /* HDF5's texts can hold newlines: keep the report on one line */
    if (*c == '\n' || *c == '\r') *c = ' ';
  gs_io_fail(j, "%s failed: %s", what, why);
}

/* One attribute: n values (n == 0: a scalar), or a string when ftype < 0. In parallel every rank
 * calls this with the same values, as HDF5 requires of metadata operations. */
static void gs_h5_attr(struct gs_io_job *j, hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *v) {
  hid_t str = -1;
  if (ftype < 0) { /* fixed-length, NUL-terminated: h5dump and every reader show it as text */
    str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, strlen(v) + 1);
    H5Tset_strpad(str, H5T_STR_NULLTERM);
    ftype = mtype = str;
  }
  hid_t space = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0 || H5Awrite(a, mtype, v) < 0) gs_h5_fail(j, name);
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  if (str >= 0) H5Tclose(str);
}
static void gs_h5_f64(struct gs_io_job *j, hid_t loc, const char *name, double v) {
  gs_h5_attr(j, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &v);
}
static void gs_h5_i32(struct gs_io_job *j, hid_t loc, const char *name, int32_t v) {
  gs_h5_attr(j, loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &v);
}

/* The code units as one physical scale, for unit-aware readers (docs/snapshot-format.md, Units):
 * length 1 kpc and mass 1e10 Msun (GADGET's defaults, which yt and pynbody also assume), and the
 * velocity unit that makes the run's G exact, V = sqrt(G_cgs M / (G L)); time is L / V. u[]:
 * length (cm), mass (g), velocity (cm/s), time (s). */
#define GS_IO_KPC_CM 3.0856775814913673e21 /* IAU parsec x 1000 */
#define GS_IO_MSUN_G 1.988409870698051e33  /* IAU nominal GM_sun / CODATA 2018 G */
#define GS_IO_G_CGS 6.67430e-8             /* CODATA 2018 */
#define GS_IO_GYR_S 3.15576e16             /* 1e9 Julian years */
static void gs_h5_units(const struct gs_snapshot *s, double u[4]) {
  u[0] = GS_IO_KPC_CM;
  u[1] = 1e10 * GS_IO_MSUN_G;
  u[2] = sqrt(GS_IO_G_CGS * u[1] / (s->G * u[0]));
  u[3] = u[0] / u[2];
}

/* /Units and /Parameters: the units, and what GADGET-4 writes for a run without comoving
 * integration, so that yt and pynbody see a non-cosmological, non-periodic run. pynbody takes
 * its time from Time_GYR, and HubbleParam in /Parameters for a cosmological run, so it stays
 * out (it is in /Header for yt). No /Config group: yt would take the file for AREPO's. */
static void gs_h5_units_params(struct gs_io_job *j, hid_t file) {
  const struct gs_snapshot *s = j->s;
  static const char *unames[4] = {"UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s", "UnitTime_in_s"};
  double u[4];
  gs_h5_units(s, u);
  hid_t g = H5Gcreate2(file, "Units", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t p = H5Gcreate2(file, "Parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0 || p < 0) {
    gs_h5_fail(j, "H5Gcreate2 (Units, Parameters)");
  } else {
    for (int k = 0; k < 4; k++) gs_h5_f64(j, g, unames[k], u[k]);
    char note[200];
    snprintf(note, sizeof note, "N-body (Henon) units with G = %.17g, given as 1 kpc, 1e10 Msun and the velocity "
             "that makes G exact; any other length and mass scale is as valid", s->G);
    gs_h5_attr(j, g, "note", -1, -1, 0, note);
    gs_h5_i32(j, p, "ComovingIntegrationOn", 0);
    gs_h5_i32(j, p, "PeriodicBoundariesOn", 0);
    static const char *zeros[] = {"BoxSize", "Omega0", "OmegaLambda", "OmegaBaryon"};
    for (size_t i = 0; i < sizeof zeros / sizeof *zeros; i++) gs_h5_f64(j, p, zeros[i], 0);
    for (int k = 0; k < 3; k++) gs_h5_f64(j, p, unames[k], u[k]);
    gs_h5_f64(j, p, "GravityConstantInternal", s->G);
    gs_h5_f64(j, p, "Time_GYR", s->time * u[3] / GS_IO_GYR_S);
  }
  if (g >= 0) H5Gclose(g);
  if (p >= 0) H5Gclose(p);
}

/* /Header: everything GADGET-2/3 readers look for (yt reads them all, so the cosmology entries
 * are there with their non-cosmological values), then ours. */
static void gs_h5_header(struct gs_io_job *j, hid_t file) {
  const struct gs_snapshot *s = j->s;
  hid_t h = H5Gcreate2(file, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (h < 0) {
    gs_h5_fail(j, "H5Gcreate2 (Header)");
  } else {
    /* All bodies are PartType1 (collisionless); N >= 2^32 keeps its high word apart. */
    uint32_t low[6] = {0}, high[6] = {0};
    double masses[6] = {0}; /* masses are per body, in /PartType1/Masses */
    low[1] = (uint32_t)s->n_total;
    high[1] = (uint32_t)(s->n_total >> 32);
    gs_h5_attr(j, h, "NumPart_ThisFile", H5T_STD_U32LE, H5T_NATIVE_UINT32, 6, low);
    gs_h5_attr(j, h, "NumPart_Total", H5T_STD_U32LE, H5T_NATIVE_UINT32, 6, low);
    gs_h5_attr(j, h, "NumPart_Total_HighWord", H5T_STD_U32LE, H5T_NATIVE_UINT32, 6, high);
    gs_h5_attr(j, h, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 6, masses);
    gs_h5_f64(j, h, "Time", s->time);
    gs_h5_f64(j, h, "Redshift", 0);
    gs_h5_f64(j, h, "BoxSize", 0); /* 0: not periodic */
    gs_h5_i32(j, h, "NumFilesPerSnapshot", 1);
    gs_h5_f64(j, h, "Omega0", 0);
    gs_h5_f64(j, h, "OmegaLambda", 0);
    gs_h5_f64(j, h, "HubbleParam", 1);
    static const char *flags[] = {"Flag_Sfr", "Flag_Cooling", "Flag_Feedback", "Flag_StellarAge", "Flag_Metals"};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) gs_h5_i32(j, h, flags[i], 0);
    gs_h5_i32(j, h, "Flag_DoublePrecision", 1);
    int64_t step = s->step;
    gs_h5_attr(j, h, "gpusim_version", -1, -1, 0, PACKAGE_VERSION);
    gs_h5_attr(j, h, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &step);
    gs_h5_f64(j, h, "G", s->G);
    gs_h5_f64(j, h, "eps", s->eps);
    gs_h5_attr(j, h, "ic", -1, -1, 0, s->ic ? s->ic : "");
    H5Gclose(h);
  }
  gs_h5_units_params(j, file);
}

/* A dataset's units the way EAGLE-style readers (pynbody) take them: a description in U_L, U_V,
 * U_M, its factor to cgs, and no a or h scaling. */
static void gs_h5_dset_units(struct gs_io_job *j, hid_t dset, const char *name) {
  double u[4], cgs = 1;
  gs_h5_units(j->s, u);
  const char *what = "Particle index, no unit";
  if (strcmp(name, "Coordinates") == 0) what = "Position [U_L]", cgs = u[0];
  else if (strcmp(name, "Velocities") == 0) what = "Velocity [U_V]", cgs = u[2];
  else if (strcmp(name, "Masses") == 0) what = "Mass [U_M]", cgs = u[1];
  gs_h5_attr(j, dset, "VarDescription", -1, -1, 0, what);
  gs_h5_f64(j, dset, "CGSConversionFactor", cgs);
  gs_h5_f64(j, dset, "aexp-scale-exponent", 0);
  gs_h5_f64(j, dset, "h-scale-exponent", 0);
}

/* Rows [lo, hi) of one dataset of width w from buf (an empty selection still takes part in the
 * collective transfer). */
static void gs_h5_rows(struct gs_io_job *j, hid_t dset, hid_t mtype, hid_t dxpl, int w, uint64_t lo, uint64_t hi, const void *buf) {
  hsize_t start[2] = {lo, 0}, cnt[2] = {hi - lo, (hsize_t)w}, one[2] = {1, (hsize_t)w};
  int rank = w > 1 ? 2 : 1;
  hid_t fs = H5Dget_space(dset);
  hid_t ms = H5Screate_simple(rank, hi > lo ? cnt : one, NULL);
  if (hi > lo) {
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
  } else {
    H5Sselect_none(fs);
    H5Sselect_none(ms);
  }
  if (fs < 0 || ms < 0 || H5Dwrite(dset, mtype, ms, fs, dxpl, buf) < 0) gs_h5_fail(j, "H5Dwrite");
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
}

/* /PartType1/NAME: n_total rows of w doubles from data, or, for ParticleIDs (ids set), the uint64
 * global indices, which every writer makes itself. Collective; ends on an agreed status, so
 * the caller's `if (j->ok)` is the same on every rank. */
static void gs_h5_array(struct gs_io_job *j, hid_t group, hid_t dxpl, const char *name, int w, const double *data, int ids_only) {
  const struct gs_snapshot *s = j->s;
  hsize_t dims[2] = {s->n_total, (hsize_t)w};
  hid_t mtype = ids_only ? H5T_NATIVE_UINT64 : H5T_NATIVE_DOUBLE;
  hid_t dset = -1;
  if (group >= 0) {
    hid_t space = H5Screate_simple(w > 1 ? 2 : 1, dims, NULL);
    dset = H5Dcreate2(group, name, ids_only ? H5T_STD_U64LE : H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (dset < 0) gs_h5_fail(j, name);
    else gs_h5_dset_units(j, dset, name);
    H5Sclose(space);
  }
  /* Nobody enters a collective transfer on a dataset that another rank failed to create. */
  if (!gs_io_agree(j)) goto out;
  uint64_t *ids = (uint64_t *)(void *)j->buf;
#ifdef GS_HAVE_HDF5_PARALLEL
  /* Every rank makes j->calls collective calls; past the end of its slice they select nothing. */
  for (uint64_t k = 0; k < j->calls; k++) {
    uint64_t lo, hi;
    gs_io_local_rows(j, k, &lo, &hi);
    for (uint64_t i = lo; ids_only && i < hi; i++) ids[i - lo] = s->first + i;
    const void *buf = ids_only || hi == lo ? (const void *)ids : (const void *)(data + lo * (uint64_t)w);
    gs_h5_rows(j, dset, mtype, dxpl, w, s->first + lo, s->first + hi, buf);
  }
#else
  /* Rank 0 writes global rows [lo, hi) per call after gathering them, each rank sending the part
   * of its slice that falls in it. Counts are at most 3 x rows, far below INT_MAX. */
  int *counts = NULL, *displs = NULL;
  if (j->rank == 0 && (!(counts = malloc(2 * sizeof(int) * (size_t)j->size)))) gs_io_fail(j, "out of memory");
  if (!gs_io_agree(j)) goto out;
  if (counts) displs = counts + j->size;
  for (uint64_t lo = 0; lo < s->n_total; lo += j->rows) {
    uint64_t hi = s->n_total - lo > j->rows ? lo + j->rows : s->n_total;
    if (!ids_only) {
      uint64_t a = s->first > lo ? s->first : lo, b = s->first + s->count < hi ? s->first + s->count : hi;
      int send = b > a ? (int)((b - a) * (uint64_t)w) : 0;
      for (int r = 0; counts && r < j->size; r++) {
        const uint64_t *q = j->ranges + 3 * r;
        uint64_t ra = q[0] > lo ? q[0] : lo, rb = q[0] + q[1] < hi ? q[0] + q[1] : hi;
        counts[r] = rb > ra ? (int)((rb - ra) * (uint64_t)w) : 0;
        displs[r] = rb > ra ? (int)((ra - lo) * (uint64_t)w) : 0;
      }
      if (MPI_Gatherv(send ? data + (a - s->first) * (uint64_t)w : data, send, MPI_DOUBLE, j->buf, counts, displs, MPI_DOUBLE, 0, j->comm) != MPI_SUCCESS)
        gs_io_fail(j, "MPI_Gatherv of %s failed", name);
    } else {
      for (uint64_t i = lo; j->rank == 0 && i < hi; i++) ids[i - lo] = i;
    }
    /* After a failure rank 0 keeps gathering (the others are in it) but stops writing. */
    if (j->rank == 0 && j->ok) gs_h5_rows(j, dset, mtype, dxpl, w, lo, hi, j->buf);
  }
  free(counts);
#endif
  gs_io_agree(j);
out:
  if (dset >= 0) H5Dclose(dset);
}

static void gs_h5_write(struct gs_io_job *j) {
  const struct gs_snapshot *s = j->s;
  /* Our own messages replace HDF5's stack dumps; the caller's setting comes back at the end. */
  H5E_auto2_t old_func;
  void *old_data;
  H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER), file = -1, group = -1;
#ifdef GS_HAVE_HDF5_PARALLEL
  int writer = 1;
  if (H5Pset_fapl_mpio(fapl, j->comm, MPI_INFO_NULL) < 0) gs_h5_fail(j, "H5Pset_fapl_mpio");
  if (H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0) gs_h5_fail(j, "H5Pset_dxpl_mpio");
#else
  int writer = j->rank == 0;
#endif
  if (!gs_io_agree(j)) goto out;
  if (writer) {
    file = H5Fcreate(j->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0) gs_h5_fail(j, "H5Fcreate");
  }
  /* The data plus room for HDF5's metadata (about 8 KiB for this layout; 64 KiB is ample). */
  if (j->rank == 0) gs_io_reserve(j, j->dir, 64 * s->n_total + 65536, 1);
  if (!gs_io_agree(j)) goto out;
  if (writer) {
    gs_h5_header(j, file);
    group = H5Gcreate2(file, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0) gs_h5_fail(j, "H5Gcreate2 (PartType1)");
  }
  if (gs_io_agree(j)) {
    gs_h5_array(j, group, dxpl, "Coordinates", 3, s->pos, 0);
    if (j->ok) gs_h5_array(j, group, dxpl, "Velocities", 3, s->vel, 0);
    if (j->ok) gs_h5_array(j, group, dxpl, "Masses", 1, s->mass, 0);
    if (j->ok) gs_h5_array(j, group, dxpl, "ParticleIDs", 1, NULL, 1);
  }
  if (group >= 0) H5Gclose(group);
  /* The global flush is collective and, with the MPI-IO driver, ends in MPI_File_sync. */
  if (writer && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) gs_h5_fail(j, "H5Fflush");
out:
  if (file >= 0 && H5Fclose(file) < 0) gs_h5_fail(j, "H5Fclose");
  H5Pclose(dxpl);
  H5Pclose(fapl);
  H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
}

#else
/* ---- raw binary + JSON sidecar ---- */

static void gs_raw_mpi_fail(struct gs_io_job *j, const char *call, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error %d", rc);
  gs_io_fail(j, "%s failed: %s", call, text);
}

/* Offsets of the four arrays: Coordinates, Velocities, Masses, ParticleIDs. */
static void gs_raw_offsets(uint64_t n, uint64_t off[4]) {
  off[0] = GS_RAW_HEADER;
  off[1] = off[0] + 24 * n;
  off[2] = off[1] + 24 * n;
  off[3] = off[2] + 8 * n;
}

static void gs_raw_write(struct gs_io_job *j) {
  const struct gs_snapshot *s = j->s;
  uint64_t off[4], n = s->n_total;
  gs_raw_offsets(n, off);
  if (j->rank == 0) gs_io_reserve(j, j->dir, off[3] + 8 * n, 0);
  if (!gs_io_agree(j)) return;
  MPI_File fh;
  int rc = MPI_File_open(j->comm, j->tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) gs_raw_mpi_fail(j, "MPI_File_open", rc);
  if (!gs_io_agree(j)) return;
  /* The exact size: a stale temporary from a killed run must not leave a longer tail. */
  if ((rc = MPI_File_set_size(fh, (MPI_Offset)(off[3] + 8 * n))) != MPI_SUCCESS) gs_raw_mpi_fail(j, "MPI_File_set_size", rc);
  if (j->rank == 0) {
    unsigned char h[GS_RAW_HEADER] = "GSSNAP01";
    uint32_t ver = 1, hb = GS_RAW_HEADER;
    for (int i = 0; i < 4; i++) h[8 + i] = (unsigned char)(ver >> (8 * i)), h[12 + i] = (unsigned char)(hb >> (8 * i));
    gs_put_u64(h + 16, n);
    gs_put_f64(h + 24, s->time);
    gs_put_u64(h + 32, (uint64_t)(int64_t)s->step);
    gs_put_f64(h + 40, s->G);
    gs_put_f64(h + 48, s->eps);
    for (int a = 0; a < 4; a++) gs_put_u64(h + 56 + 8 * a, off[a]);
    if (s->ic) strncpy((char *)h + 88, s->ic, GS_RAW_IC - 1); /* the rest stays NUL */
    MPI_Status st;
    if ((rc = MPI_File_write_at(fh, 0, h, (int)sizeof h, MPI_BYTE, &st)) != MPI_SUCCESS) gs_raw_mpi_fail(j, "MPI_File_write_at (header)", rc);
  }
  /* Each array through the staging buffer in little-endian order; every rank makes j->calls
   * collective calls per array, with zero bytes once its slice is done. */
  const double *src[3] = {s->pos, s->vel, s->mass};
  const int width[4] = {3, 3, 1, 1};
  for (int a = 0; a < 4; a++) {
    for (uint64_t k = 0; k < j->calls; k++) {
      uint64_t lo, hi, w = (uint64_t)width[a];
      gs_io_local_rows(j, k, &lo, &hi);
      for (uint64_t i = lo * w; i < hi * w; i++) {
        if (a < 3) gs_put_f64(j->buf + 8 * (i - lo * w), src[a][i]);
        else gs_put_u64(j->buf + 8 * (i - lo), s->first + i);
      }
      int bytes = (int)((hi - lo) * w * 8);
      MPI_Status st;
      int got = 0;
      rc = MPI_File_write_at_all(fh, (MPI_Offset)(off[a] + (s->first + lo) * w * 8), j->buf, bytes, MPI_BYTE, &st);
      if (rc != MPI_SUCCESS) gs_raw_mpi_fail(j, "MPI_File_write_at_all", rc);
      else if (bytes && (MPI_Get_count(&st, MPI_BYTE, &got) != MPI_SUCCESS || got != bytes))
        gs_io_fail(j, "short write (%d of %d bytes): disk full?", got, bytes);
    }
  }
  if ((rc = MPI_File_sync(fh)) != MPI_SUCCESS) gs_raw_mpi_fail(j, "MPI_File_sync", rc);
  if ((rc = MPI_File_close(&fh)) != MPI_SUCCESS) gs_raw_mpi_fail(j, "MPI_File_close", rc);
}

/* A JSON number: %.17g round-trips a double; JSON has no inf or nan, so those become null. */
static void gs_json_num(char *out, size_t len, double v) {
  if (isfinite(v)) snprintf(out, len, "%.17g", v);
  else snprintf(out, len, "null");
}

/* DIR/snapshot_NNN.json: the layout of the .bin and the run's parameters, written atomically by
 * rank 0 after the .bin is in place. */
static void gs_raw_sidecar(struct gs_io_job *j, const char *dir, int index) {
  const struct gs_snapshot *s = j->s;
  const char *ic = s->ic ? s->ic : "";
  char esc[2 * GS_MSG_MAX] = "", t[32], g[32], e[32], path[GS_IO_PATH];
  size_t m = 0;
  for (const char *c = ic; *c && m + 8 < sizeof esc; c++) { /* JSON string escaping */
    if (*c == '"' || *c == '\\') m += (size_t)snprintf(esc + m, sizeof esc - m, "\\%c", *c);
    else if ((unsigned char)*c < 0x20) m += (size_t)snprintf(esc + m, sizeof esc - m, "\\u%04x", (unsigned)(unsigned char)*c);
    else esc[m++] = *c, esc[m] = 0;
  }
  gs_json_num(t, sizeof t, s->time);
  gs_json_num(g, sizeof g, s->G);
  gs_json_num(e, sizeof e, s->eps);
  uint64_t n = s->n_total, off[4];
  gs_raw_offsets(n, off);
  char json[8192];
  int len = snprintf(json, sizeof json,
      "{\n  \"format\": \"gpusim raw snapshot\",\n  \"magic\": \"GSSNAP01\",\n  \"version\": 1,\n"
      "  \"gpusim_version\": \"%s\",\n  \"file\": \"%s\",\n  \"byte_order\": \"little\",\n"
      "  \"header_bytes\": %u,\n  \"file_bytes\": %" PRIu64 ",\n  \"n_total\": %" PRIu64 ",\n"
      "  \"time\": %s,\n  \"step\": %ld,\n  \"G\": %s,\n  \"eps\": %s,\n  \"ic\": \"%s\",\n"
      "  \"units\": \"N-body (Henon) units, G = %s\",\n  \"arrays\": {\n"
      "    \"Coordinates\": {\"dtype\": \"<f8\", \"shape\": [%" PRIu64 ", 3], \"offset\": %" PRIu64 "},\n"
      "    \"Velocities\": {\"dtype\": \"<f8\", \"shape\": [%" PRIu64 ", 3], \"offset\": %" PRIu64 "},\n"
      "    \"Masses\": {\"dtype\": \"<f8\", \"shape\": [%" PRIu64 "], \"offset\": %" PRIu64 "},\n"
      "    \"ParticleIDs\": {\"dtype\": \"<u8\", \"shape\": [%" PRIu64 "], \"offset\": %" PRIu64 "}\n  }\n}\n",
      PACKAGE_VERSION, j->name, GS_RAW_HEADER, off[3] + 8 * n, n, t, s->step, g, e, esc, g, n, off[0], n, off[1], n,
      off[2], n, off[3]);
  snprintf(path, sizeof path, "%s/snapshot_%03d.json", dir, index);
  if (len < 0 || (size_t)len >= sizeof json) gs_io_fail(j, "JSON sidecar too long");
  else if (gs_file_write_atomic(path, json, (size_t)len) != 0) gs_io_fail(j, "cannot write %s: %s", path, strerror(errno));
}
#endif

int gs_io_write_snapshot(const char *dir, int index, const struct gs_snapshot *s, MPI_Comm comm, struct gs_msg *msg) {
  static const struct gs_snapshot none = {0};
  struct gs_io_job job = {0}, *j = &job;
  j->s = s ? s : &none;
  j->comm = comm;
  j->ok = 1;
  j->msg = msg;
  MPI_Comm_rank(comm, &j->rank);
  MPI_Comm_size(comm, &j->size);
  if (!s) gs_io_fail(j, "no snapshot data");
  /* Each step's status is agreed, so every rank takes the same branches. */
#ifdef GS_HAVE_HDF5
  if (gs_io_setup(j, dir, index, "hdf5")) {
    gs_h5_write(j);
    gs_io_commit(j, dir);
  }
#else
  if (gs_io_setup(j, dir, index, "bin")) {
    gs_raw_write(j);
    if (gs_io_commit(j, dir)) {
      if (j->rank == 0) gs_raw_sidecar(j, dir, index);
      gs_io_agree(j);
    }
  }
#endif
  free(j->ranges);
  free(j->buf);
  return j->ok ? GS_OK : GS_FAILED;
}
