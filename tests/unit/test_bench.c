/* The measurement harness (gs_bench.h) under a toy workload that the program does not have: its
 * own options, kernels, run-once, verify and row callbacks in this file, one line of a workload
 * table, and nothing else. It runs through the option parser and gs_mpi_setup on the CPU backend
 * like a subcommand; the test checks its rows (--csv, and the main job's sink), its verdict line
 * and its exit status, and that a planted wrong result makes it FAILED with exit status 1. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gs_bench.h"
#include "gs_file.h"
#include "gs_options.h"
#include "gs_test.h"

/* ---- the toy workload: sums 1..n with one of two kernels ---- */
struct toy_opts {
  char kernels[64];
  int iters, warmup;
  int64_t n;
};

static const char *const toy_kernel_names[] = {"loop", "gauss", NULL};
static const struct gs_kernel toy_kernels[] = {{"loop", "a loop", 0, 0}, {"gauss", "n (n + 1) / 2", 1, 0}};
static int toy_plant; /* make the gauss kernel's result wrong by one */

#define TOY(f) GS_OPT_AT(struct toy_opts, f)
static const struct gs_opt toy_opts_table[] = {
    {"kernel", GS_OPT_STRING, TOY(kernels), 0, 0, NULL, "LIST", "kernels (default all)", NULL},
    {"iters", GS_OPT_INT, TOY(iters), 1, 1000, NULL, "K", "timed runs (default 3)", NULL},
    {"warmup", GS_OPT_INT, TOY(warmup), 0, 1000, NULL, "K", "untimed runs (default 1)", NULL},
    {"n", GS_OPT_COUNT, TOY(n), 1, 1 << 20, NULL, "N", "terms (default 1000)", NULL},
    {0}};

static void toy_defaults(void *p) {
  struct toy_opts *o = p;
  strcpy(o->kernels, "all");
  o->iters = 3, o->warmup = 1, o->n = 1000;
}

struct toy {
  const struct toy_opts *o;
  int64_t got;
  int runs;
};

static void toy_once(struct gs_bench *b, const struct gs_kernel *k) {
  struct toy *t = b->w;
  int64_t n = t->o->n, s = 0;
  if (k->id == 0)
    for (int64_t i = 1; i <= n; i++) s += i;
  else
    s = n * (n + 1) / 2 + toy_plant;
  t->got = s;
  t->runs++;
}

static int toy_verify(struct gs_bench *b, const struct gs_kernel *k, struct gs_bench_result *r) {
  struct toy *t = b->w;
  (void)k;
  r->extra[0] = (double)t->got;
  return t->got == t->o->n * (t->o->n + 1) / 2;
}

static void toy_row(struct gs_bench *b, const struct gs_kernel *k, const struct gs_bench_result *r) {
  printf("%-6s %10.3f %6s %6s  %s\n", k->name, r->slow.median * 1e3, r->step, r->cum, r->ok ? "OK" : "FAILED");
  struct gs_row row = gs_bench_row(b, k, r, "sums", 1 / r->slow.median, "1/s", -1);
  snprintf(row.params, sizeof row.params, "sum=%.0f;check=%s", r->extra[0], r->ok ? "OK" : "FAILED");
  gs_report_add(b->rep, &row);
}

static const struct gs_bench_ops toy_ops = {.run_once = toy_once, .verify = toy_verify, .row = toy_row};

static int toy_main(struct gs_run *run) {
  struct toy t = {.o = gs_options_workload(run->opt)};
  struct gs_report rep;
  struct gs_msg msg;
  struct gs_bench b = {.run = run, .ops = &toy_ops, .w = &t, .workload = "toy", .rep = &rep, .kernels = toy_kernels,
                       .count = 2, .warmup = t.o->warmup, .iters = t.o->iters, .problem_size = (uint64_t)t.o->n};
  if (gs_bench_select(&b, t.o->kernels, toy_kernel_names, 0, &msg) != GS_OK) return GS_USAGE;
  gs_report_init(&rep, run);
  b.q = run->be->queue_create(run->ctx);
  gs_bench_table(&b);
  run->be->queue_destroy(run->ctx, b.q);
  int status = gs_bench_verdict(run, &rep, b.failed);
  GS_EXPECT(t.runs == 2 * (t.o->warmup + t.o->iters) || strcmp(t.o->kernels, "all") != 0);
  gs_report_free(&rep);
  return status;
}

static const struct gs_workload toy_workload = {.name = "toy", .summary = "a toy", .opts = toy_opts_table,
                                                .opts_size = sizeof(struct toy_opts), .defaults = toy_defaults,
                                                .kernels = toy_kernel_names, .main = toy_main};

/* ---- the test ---- */
static const struct gs_workload *const table[] = {&toy_workload, NULL}; /* the one table line */

/* Run `gpusim ARGS` with the toy table; stdout into out (a file's text, malloc'd). */
static int run_toy(int argc, char **argv, struct gs_report *sink, char **out) {
  static struct gs_options opt;
  struct gs_msg msg;
  if (gs_options_parse(argc, argv, table, &opt, &msg) != GS_OK) {
    fprintf(stderr, "parse: %s\n", msg.text);
    return -1;
  }
  struct gs_run run;
  GS_EXPECT(gs_mpi_setup(&opt, 0, &run, &msg) == GS_OK);
  run.sink = sink;
  char path[] = "/tmp/gs_test_bench_XXXXXX";
  int fd = mkstemp(path), saved = dup(1);
  fflush(stdout);
  dup2(fd, 1);
  int status = opt.wl->main(&run);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  size_t len;
  *out = gs_file_read(path, &len);
  unlink(path);
  gs_mpi_teardown(&run);
  return status;
}

int main(int argc, char **argv) {
  gs_mpi_init(&argc, &argv, MPI_THREAD_FUNNELED);
  char csv[] = "/tmp/gs_test_bench_csv_XXXXXX";
  close(mkstemp(csv));
  unlink(csv);
  char *out = NULL, *good[] = {"gpusim", "toy", "--backend", "cpu", "--n", "2000", "--csv", csv};
  int status = run_toy(8, good, NULL, &out);
  GS_EXPECT(status == GS_OK);
  GS_EXPECT(out && strstr(out, "\nloop ") == NULL && strncmp(out, "loop ", 5) == 0 && strstr(out, "\ngauss "));
  GS_EXPECT(out && strstr(out, "# verification: OK\n"));
  if (out) printf("%s", out);
  free(out);
  size_t len;
  char *rows = gs_file_read(csv, &len);
  GS_EXPECT(rows && strstr(rows, ",toy,loop,-1,1,1,1,") && strstr(rows, ",toy,gauss,-1,1,1,1,"));
  GS_EXPECT(rows && strstr(rows, ",2000,3,") && strstr(rows, "sum=2001000;check=OK"));
  free(rows);
  unlink(csv);

  /* A planted wrong result: FAILED in its row, the verdict and the exit status. */
  struct gs_report sink = {0};
  char *bad[] = {"gpusim", "toy", "--backend", "cpu", "--kernel", "gauss", "--iters", "2"};
  toy_plant = 1;
  status = run_toy(8, bad, &sink, &out);
  GS_EXPECT(status == GS_FAILED);
  GS_EXPECT(out && strstr(out, "# verification: FAILED\n") && strstr(out, "FAILED\n"));
  if (out) printf("%s", out);
  free(out);
  GS_EXPECT(sink.count == 1 && strcmp(sink.rows[0].kernel, "gauss") == 0 && sink.rows[0].iterations == 2);
  GS_EXPECT(sink.count == 1 && strstr(sink.rows[0].params, "check=FAILED") && sink.rows[0].rank == -1);
  gs_report_free(&sink);
  gs_mpi_finalize();
  GS_TEST_DONE();
}
