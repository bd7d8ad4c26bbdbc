/* gs_report.c: the header every run prints and the result rows of --csv/--json. The CSV is
 * appended under a lock and replaced atomically, so a job array writing one file loses nothing
 * and a killed job leaves the previous complete file (gs_file.h: symlinks are followed, devices
 * and FIFOs written into, never replaced). */
#define _GNU_SOURCE
#include <config.h>

#include "gs_report.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gs_file.h"
#include "gs_version.h"

static const char *gs_report_columns =
    "schema_version,run_id,job_id,workload,kernel,rank,nodes,ranks,gpus_per_node,gpu_model,backend,"
    "problem_size,iterations,time_min_s,time_median_s,time_max_s,metric,value,unit,efficiency,params,"
    "mpi_library,cuda_version,gpusim_version,git_revision,timestamp";

void gs_report_init(struct gs_report *rep, const struct gs_run *run) {
  memset(rep, 0, sizeof *rep);
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(rep->timestamp, sizeof rep->timestamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  char id[24];
  strftime(id, sizeof id, "%Y%m%dT%H%M%SZ", &tm);
  snprintf(rep->run_id, sizeof rep->run_id, "%s-%ld", id, (long)getpid() % 100000);
  GS_CHECK_MPI(&run->where, MPI_Bcast(rep->run_id, (int)sizeof rep->run_id, MPI_CHAR, 0, MPI_COMM_WORLD));
  GS_CHECK_MPI(&run->where, MPI_Bcast(rep->timestamp, (int)sizeof rep->timestamp, MPI_CHAR, 0, MPI_COMM_WORLD));
  static const char *jobvars[] = {"SLURM_JOB_ID", "PBS_JOBID", "JOB_ID"};
  for (size_t i = 0; i < sizeof jobvars / sizeof *jobvars && !rep->job_id[0]; i++) {
    const char *v = getenv(jobvars[i]);
    if (v) snprintf(rep->job_id, sizeof rep->job_id, "%s", v);
  }
  gs_version_mpi(rep->mpi_library, sizeof rep->mpi_library);
  gs_version_cuda(run->be, rep->cuda_version, sizeof rep->cuda_version);
  snprintf(rep->gpu_model, sizeof rep->gpu_model, "%s", run->dev.name);
  GS_CHECK_MPI(&run->where, MPI_Bcast(rep->gpu_model, (int)sizeof rep->gpu_model, MPI_CHAR, 0, MPI_COMM_WORLD));
}

void gs_report_header(FILE *f, const struct gs_run *run, const struct gs_report *rep, const struct gs_rank_info *all) {
  if (run->sink) return;
  gs_version_print(f, "# ", rep->timestamp);
  fprintf(f, "# backend: %s\n", run->backend_note);
  fprintf(f, "# job: %d rank(s) on %d node(s)%s%s\n", run->size, run->nodes, rep->job_id[0] ? ", job " : "", rep->job_id);
  for (int r = 0; all && r < run->size; r++) {
    const struct gs_rank_info *i = &all[r];
    if (i->dev.index >= 0)
      fprintf(f, "# rank %d: host %s, local rank %d/%d, GPU %d %s (%s)\n", i->rank, i->host, i->local_rank,
              i->local_size, i->dev.index, i->dev.name, i->dev.pci);
    else
      fprintf(f, "# rank %d: host %s, local rank %d/%d, CPU %s (%d threads)\n", i->rank, i->host, i->local_rank,
              i->local_size, i->dev.name, i->dev.sm_count);
  }
}

void gs_report_add(struct gs_report *rep, const struct gs_row *row) {
  if (rep->count == rep->cap) {
    int cap = rep->cap ? 2 * rep->cap : 32;
    struct gs_row *rows = realloc(rep->rows, (size_t)cap * sizeof *rows);
    if (!rows) return; /* rows are a by-product; the table on stdout still has everything */
    rep->rows = rows;
    rep->cap = cap;
  }
  rep->rows[rep->count++] = *row;
}

/* Growing string buffer for the files. */
struct gs_buf {
  char *p;
  size_t len, cap;
};

static void gs_buf_printf(struct gs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gs_buf_printf(struct gs_buf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->p && (size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap <= b->len + (size_t)n) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) return;
    b->p = p;
    b->cap = cap;
  }
}

/* A CSV field: quoted when it holds a comma, quote or space. */
static void gs_buf_csv(struct gs_buf *b, const char *s) {
  if (!strpbrk(s, ",\" ")) {
    gs_buf_printf(b, "%s", s);
    return;
  }
  gs_buf_printf(b, "\"");
  for (; *s; s++) gs_buf_printf(b, *s == '"' ? "\"\"" : "%c", *s);
  gs_buf_printf(b, "\"");
}

/* A JSON string. */
static void gs_buf_json(struct gs_buf *b, const char *s) {
  gs_buf_printf(b, "\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') gs_buf_printf(b, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) gs_buf_printf(b, "\\u%04x", *s);
    else gs_buf_printf(b, "%c", *s);
  }
  gs_buf_printf(b, "\"");
}

static void gs_report_csv_row(struct gs_buf *b, const struct gs_report *rep, const struct gs_run *run,
                              const struct gs_row *r) {
  int per_node = (run->size + run->nodes - 1) / run->nodes;
  gs_buf_printf(b, "%d,", GS_SCHEMA_VERSION);
  const char *strs1[] = {rep->run_id, rep->job_id, r->workload, r->kernel};
  for (int i = 0; i < 4; i++) gs_buf_csv(b, strs1[i]), gs_buf_printf(b, ",");
  gs_buf_printf(b, "%d,%d,%d,%d,", r->rank, run->nodes, run->size, per_node);
  gs_buf_csv(b, rep->gpu_model);
  gs_buf_printf(b, ",%s,%" PRIu64 ",%d,%.9g,%.9g,%.9g,", run->be->name, r->problem_size, r->iterations, r->t_min,
                r->t_median, r->t_max);
  gs_buf_csv(b, r->metric);
  gs_buf_printf(b, ",%.17g,", r->value);
  gs_buf_csv(b, r->unit);
  if (r->efficiency >= 0) gs_buf_printf(b, ",%.6f,", r->efficiency);
  else gs_buf_printf(b, ",,");
  const char *strs2[] = {r->params, rep->mpi_library, rep->cuda_version, PACKAGE_VERSION, GS_GIT_REVISION, rep->timestamp};
  for (int i = 0; i < 6; i++) gs_buf_csv(b, strs2[i]), gs_buf_printf(b, i < 5 ? "," : "\n");
}

static int gs_report_csv(const struct gs_report *rep, const struct gs_run *run, const char *path) {
  /* gs_file_append locks the CSV itself (job arrays sharing one file lose no row) and replaces
   * it atomically (a killed job leaves the previous complete file). */
  struct gs_buf b = {0};
  for (int i = 0; i < rep->count; i++) gs_report_csv_row(&b, rep, run, &rep->rows[i]);
  int rc = b.p ? gs_file_append(path, gs_report_columns, b.p, b.len) : -1;
  if (rc == -2)
    fprintf(stderr, "gpusim: error: --csv %s: the file has other columns (another schema); use a new file\n", path);
  else if (rc != 0)
    fprintf(stderr, "gpusim: error: --csv %s: %s\n", path, strerror(errno));
  free(b.p);
  return rc == 0 ? GS_OK : GS_FAILED;
}

static int gs_report_json(const struct gs_report *rep, const struct gs_run *run, const char *path) {
  struct gs_buf b = {0};
  int per_node = (run->size + run->nodes - 1) / run->nodes;
  gs_buf_printf(&b, "{\n  \"schema_version\": %d,\n  \"rows\": [", GS_SCHEMA_VERSION);
  for (int i = 0; i < rep->count; i++) {
    const struct gs_row *r = &rep->rows[i];
    gs_buf_printf(&b, "%s\n    {\"run_id\": ", i ? "," : "");
    gs_buf_json(&b, rep->run_id);
    gs_buf_printf(&b, ", \"job_id\": ");
    gs_buf_json(&b, rep->job_id);
    gs_buf_printf(&b, ", \"workload\": ");
    gs_buf_json(&b, r->workload);
    gs_buf_printf(&b, ", \"kernel\": ");
    gs_buf_json(&b, r->kernel);
    gs_buf_printf(&b, ", \"rank\": %d, \"nodes\": %d, \"ranks\": %d, \"gpus_per_node\": %d, \"gpu_model\": ", r->rank,
                  run->nodes, run->size, per_node);
    gs_buf_json(&b, rep->gpu_model);
    gs_buf_printf(&b, ", \"backend\": \"%s\", \"problem_size\": %" PRIu64 ", \"iterations\": %d, \"time_min_s\": %.9g, "
                  "\"time_median_s\": %.9g, \"time_max_s\": %.9g, \"metric\": ", run->be->name, r->problem_size,
                  r->iterations, r->t_min, r->t_median, r->t_max);
    gs_buf_json(&b, r->metric);
    gs_buf_printf(&b, ", \"value\": %.17g, \"unit\": ", r->value);
    gs_buf_json(&b, r->unit);
    if (r->efficiency >= 0) gs_buf_printf(&b, ", \"efficiency\": %.6f, \"params\": ", r->efficiency);
    else gs_buf_printf(&b, ", \"efficiency\": null, \"params\": ");
    gs_buf_json(&b, r->params);
    gs_buf_printf(&b, ", \"mpi_library\": ");
    gs_buf_json(&b, rep->mpi_library);
    gs_buf_printf(&b, ", \"cuda_version\": \"%s\", \"gpusim_version\": \"%s\", \"git_revision\": \"%s\", "
                  "\"timestamp\": \"%s\"}", rep->cuda_version, PACKAGE_VERSION, GS_GIT_REVISION, rep->timestamp);
  }
  gs_buf_printf(&b, "\n  ]\n}\n");
  int status = GS_OK;
  if (!b.p || gs_file_write_atomic(path, b.p, b.len) != 0) {
    fprintf(stderr, "gpusim: error: --json %s: %s\n", path, strerror(errno));
    status = GS_FAILED;
  }
  free(b.p);
  return status;
}

int gs_report_write(const struct gs_report *rep, const struct gs_run *run) {
  if (run->rank != 0) return GS_OK;
  if (run->sink) {
    for (int i = 0; i < rep->count; i++) gs_report_add(run->sink, &rep->rows[i]);
    return GS_OK;
  }
  int status = GS_OK;
  if (run->opt->common.csv[0] && gs_report_csv(rep, run, run->opt->common.csv) != GS_OK) status = GS_FAILED;
  if (run->opt->common.json[0] && gs_report_json(rep, run, run->opt->common.json) != GS_OK) status = GS_FAILED;
  return status;
}

void gs_report_free(struct gs_report *rep) {
  free(rep->rows);
  rep->rows = NULL;
  rep->count = rep->cap = 0;
}
