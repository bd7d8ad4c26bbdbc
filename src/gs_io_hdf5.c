/* gs_io_hdf5.c: the HDF5 snapshot writer, GADGET layout (docs/snapshot-format.md): /Header,
 * /Units, /Parameters and /PartType1's four datasets. With parallel HDF5 every rank writes its own
 * hyperslab with collective transfers; with serial HDF5 rank 0 owns the file and the rows come to
 * it with MPI_Gatherv, a bounded number of rows at a time (gs_io.c says how one write goes). */
#include <config.h>

#include "gs_io_hdf5.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

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
  gs_io_job_fail(j, "%s failed: %s", what, why);
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
    gs_h5_attr(j, h, "extent_min", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, j->lo);
    gs_h5_attr(j, h, "extent_max", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, j->hi);
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
  if (!gs_io_job_agree(j)) goto out;
  uint64_t *ids = (uint64_t *)(void *)j->buf;
#ifdef GS_HAVE_HDF5_PARALLEL
  /* Every rank makes j->calls collective calls; past the end of its slice they select nothing. */
  for (uint64_t k = 0; k < j->calls; k++) {
    uint64_t lo, hi;
    gs_io_job_rows(j, k, &lo, &hi);
    for (uint64_t i = lo; ids_only && i < hi; i++) ids[i - lo] = s->first + i;
    const void *buf = ids_only || hi == lo ? (const void *)ids : (const void *)(data + lo * (uint64_t)w);
    gs_h5_rows(j, dset, mtype, dxpl, w, s->first + lo, s->first + hi, buf);
  }
#else
  /* Rank 0 writes global rows [lo, hi) per call after gathering them, each rank sending the part
   * of its slice that falls in it. Counts and displacements are at most 3 x rows doubles (below
   * INT_MAX by GS_IO_ROWS_MAX) whatever n_total is: the global offset lo stays in uint64. */
  int *counts = NULL, *displs = NULL;
  if (j->rank == 0 && (!(counts = malloc(2 * sizeof(int) * (size_t)j->size)))) gs_io_job_fail(j, "out of memory");
  if (!gs_io_job_agree(j)) goto out;
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
      int rc = MPI_Gatherv(send ? data + (a - s->first) * (uint64_t)w : data, send, MPI_DOUBLE, j->buf, counts, displs,
                           MPI_DOUBLE, 0, j->comm);
      if (rc != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_Gatherv", rc);
    } else {
      for (uint64_t i = lo; j->rank == 0 && i < hi; i++) ids[i - lo] = i;
    }
    /* After a failure rank 0 keeps gathering (the others are in it) but stops writing. */
    if (j->rank == 0 && j->ok) gs_h5_rows(j, dset, mtype, dxpl, w, lo, hi, j->buf);
  }
  free(counts);
#endif
  gs_io_job_agree(j);
out:
  if (dset >= 0) H5Dclose(dset);
}

void gs_io_hdf5_write(struct gs_io_job *j) {
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
  if (!gs_io_job_agree(j)) goto out;
  if (writer) {
    file = H5Fcreate(j->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0) gs_h5_fail(j, "H5Fcreate");
  }
  /* The data plus room for HDF5's metadata (about 8 KiB for this layout; 64 KiB is ample). */
  if (j->rank == 0) gs_io_job_reserve(j, j->dir, 64 * s->n_total + 65536, 1);
  if (!gs_io_job_agree(j)) goto out;
  if (writer) {
    gs_h5_header(j, file);
    group = H5Gcreate2(file, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0) gs_h5_fail(j, "H5Gcreate2 (PartType1)");
  }
  if (gs_io_job_agree(j)) {
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
