/* gs_io_raw.c: the raw snapshot writer, for builds without HDF5 (docs/snapshot-format.md): a
 * 128-byte little-endian header and the four arrays, written with MPI-IO, every rank its rows at
 * its own offset with MPI_File_write_at_all; then a JSON sidecar that describes the layout. */
#include <config.h>

#include "gs_io_raw.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_file.h"

/* The raw format's fixed header (docs/snapshot-format.md has every field). */
#define GS_RAW_HEADER 128u
#define GS_RAW_IC 40u

/* Little-endian stores that do not depend on the host's byte order. */
static inline void gs_put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void gs_put_f64(unsigned char *p, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  gs_put_u64(p, v);
}

/* Offsets of the four arrays: Coordinates, Velocities, Masses, ParticleIDs. */
static void gs_raw_offsets(uint64_t n, uint64_t off[4]) {
  off[0] = GS_RAW_HEADER;
  off[1] = off[0] + 24 * n;
  off[2] = off[1] + 24 * n;
  off[3] = off[2] + 8 * n;
}

void gs_io_raw_write(struct gs_io_job *j) {
  const struct gs_snapshot *s = j->s;
  uint64_t off[4], n = s->n_total;
  gs_raw_offsets(n, off);
  if (j->rank == 0) gs_io_job_reserve(j, j->dir, off[3] + 8 * n, 0);
  if (!gs_io_job_agree(j)) return;
  MPI_File fh;
  int rc = MPI_File_open(j->comm, j->tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_File_open", rc);
  if (!gs_io_job_agree(j)) return;
  /* The exact size: a stale temporary from a killed run must not leave a longer tail. */
  if ((rc = MPI_File_set_size(fh, (MPI_Offset)(off[3] + 8 * n))) != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_File_set_size", rc);
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
    if ((rc = MPI_File_write_at(fh, 0, h, (int)sizeof h, MPI_BYTE, &st)) != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_File_write_at (header)", rc);
  }
  /* Each array through the staging buffer in little-endian order; every rank makes j->calls
   * collective calls per array, with zero bytes once its slice is done. The byte count of one call
   * is at most rows x 24 (below INT_MAX by GS_IO_ROWS_MAX); offsets are MPI_Offset (64 bits), so
   * 2^31 bodies and more go through in pieces. */
  const double *src[3] = {s->pos, s->vel, s->mass};
  const int width[4] = {3, 3, 1, 1};
  for (int a = 0; a < 4; a++) {
    for (uint64_t k = 0; k < j->calls; k++) {
      uint64_t lo, hi, w = (uint64_t)width[a];
      gs_io_job_rows(j, k, &lo, &hi);
      for (uint64_t i = lo * w; i < hi * w; i++) {
        if (a < 3) gs_put_f64(j->buf + 8 * (i - lo * w), src[a][i]);
        else gs_put_u64(j->buf + 8 * (i - lo), s->first + i);
      }
      int bytes = (int)((hi - lo) * w * 8);
      MPI_Status st;
      int got = 0;
      rc = MPI_File_write_at_all(fh, (MPI_Offset)(off[a] + (s->first + lo) * w * 8), j->buf, bytes, MPI_BYTE, &st);
      if (rc != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_File_write_at_all", rc);
      else if (bytes && (MPI_Get_count(&st, MPI_BYTE, &got) != MPI_SUCCESS || got != bytes))
        gs_io_job_fail(j, "short write (%d of %d bytes): disk full?", got, bytes);
    }
  }
  if ((rc = MPI_File_sync(fh)) != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_File_sync", rc);
  if ((rc = MPI_File_close(&fh)) != MPI_SUCCESS) gs_io_job_mpi_fail(j, "MPI_File_close", rc);
}

/* A JSON number: %.17g round-trips a double; JSON has no inf or nan, so those become null. */
static void gs_json_num(char *out, size_t len, double v) {
  if (isfinite(v)) snprintf(out, len, "%.17g", v);
  else snprintf(out, len, "null");
}

/* DIR/snapshot_NNN.json: the layout of the .bin and the run's parameters, written atomically by
 * rank 0 after the .bin is in place. */
void gs_io_raw_write_sidecar(struct gs_io_job *j, const char *dir, int index) {
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
  char ext[6][32]; /* extent_min x y z, extent_max x y z */
  for (int c = 0; c < 3; c++) gs_json_num(ext[c], sizeof ext[c], j->lo[c]), gs_json_num(ext[3 + c], sizeof ext[c], j->hi[c]);
  uint64_t n = s->n_total, off[4];
  gs_raw_offsets(n, off);
  char json[8192];
  int len = snprintf(json, sizeof json,
      "{\n  \"format\": \"gpusim raw snapshot\",\n  \"magic\": \"GSSNAP01\",\n  \"version\": 1,\n"
      "  \"gpusim_version\": \"%s\",\n  \"file\": \"%s\",\n  \"byte_order\": \"little\",\n"
      "  \"header_bytes\": %u,\n  \"file_bytes\": %" PRIu64 ",\n  \"n_total\": %" PRIu64 ",\n"
      "  \"time\": %s,\n  \"step\": %ld,\n  \"G\": %s,\n  \"eps\": %s,\n  \"ic\": \"%s\",\n"
      "  \"units\": \"N-body (Henon) units, G = %s\",\n"
      "  \"extent_min\": [%s, %s, %s],\n  \"extent_max\": [%s, %s, %s],\n  \"arrays\": {\n"
      "    \"Coordinates\": {\"dtype\": \"<f8\", \"shape\": [%" PRIu64 ", 3], \"offset\": %" PRIu64 "},\n"
      "    \"Velocities\": {\"dtype\": \"<f8\", \"shape\": [%" PRIu64 ", 3], \"offset\": %" PRIu64 "},\n"
      "    \"Masses\": {\"dtype\": \"<f8\", \"shape\": [%" PRIu64 "], \"offset\": %" PRIu64 "},\n"
      "    \"ParticleIDs\": {\"dtype\": \"<u8\", \"shape\": [%" PRIu64 "], \"offset\": %" PRIu64 "}\n  }\n}\n",
      PACKAGE_VERSION, j->name, GS_RAW_HEADER, off[3] + 8 * n, n, t, s->step, g, e, esc, g, ext[0], ext[1], ext[2],
      ext[3], ext[4], ext[5], n, off[0], n, off[1], n,
      off[2], n, off[3]);
  snprintf(path, sizeof path, "%s/snapshot_%03d.json", dir, index);
  if (len < 0 || (size_t)len >= sizeof json) gs_io_job_fail(j, "JSON sidecar too long");
  else if (gs_file_write_atomic(path, json, (size_t)len) != 0) gs_io_job_fail(j, "cannot write %s: %s", path, strerror(errno));
}
