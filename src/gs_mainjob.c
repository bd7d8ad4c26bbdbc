/* gs_mainjob.c: `gpusim` with no subcommand, the main job (the design card's `mpirun -np 8
 * ./gpusim`). Each part is one workload run exactly as `gpusim ARGS` would run it: the arguments
 * chosen here for the machine go through the same dispatcher as the command line's (gs_command.c)
 * to the workload's own main, which prints its own tables and verdict and checks its own results;
 * no workload's logic is here. The parts' result rows go to the main job's sink (struct gs_run),
 * so --csv/--json get every part's rows under one run id, written once at the end, and the
 * summary takes each part's headline row from them. A part that fails, for whatever reason,
 * makes the main job fail. */
#define _POSIX_C_SOURCE 200809L
#include "gs_mainjob.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gs_command.h"
#include "gs_report.h"
#include "gs_signal.h"

/* One part: its command line after "gpusim" and its size in the summary (each with a %s for the
 * size gs_mainjob_sizes chose), and the row that sums it up there: the best value of its metric
 * among its whole-job rows whose params hold `phase` (NULL: any). */
struct gs_mainjob_part {
  const char *label, *args, *size, *metric, *phase;
  int output; /* takes --output (nbody: a directory of this run's own) */
};

static const struct gs_mainjob_part gs_mainjob_parts[] = {
    {"reduce", "reduce --n %s", "%s ints per rank", "bandwidth", NULL, 0},
    {"nbody direct", "nbody --n %s --progress off", "N = %s", "interactions", "phase=step", 1},
    {"nbody tree", "nbody --solver tree --n %s --progress off", "N = %s", "interactions", "phase=step", 1},
    {"matmul", "matmul --n %s", "M = N = K = %s", "flops", NULL, 0},
};
#define GS_MAINJOB_PARTS ((int)(sizeof gs_mainjob_parts / sizeof *gs_mainjob_parts))

/* What the parts run, chosen by rank 0 and the same on every rank. */
struct gs_mainjob_plan {
  char args[GS_MAINJOB_PARTS][160]; /* each part's words after "gpusim", split at spaces */
  char size[GS_MAINJOB_PARTS][40];
  char output[GS_PATH_MAX];         /* nbody's --output ("": nbody's default) */
  char basis[160];                  /* what the sizes were chosen for */
};

/* What the parts did (rank 0: rows and times). */
struct gs_mainjob_done {
  int status[GS_MAINJOB_PARTS];              /* each part's exit status, -1 not run */
  int first[GS_MAINJOB_PARTS], end[GS_MAINJOB_PARTS]; /* its rows in the sink */
  double wall[GS_MAINJOB_PARTS];
  int stopped;                               /* the stop signal that ended the job early, 0 none */
};

static uint64_t gs_mainjob_pow2_floor(double v) {
  uint64_t p = 1;
  while ((double)(2 * p) <= v) p *= 2;
  return p;
}

/* The sizes, in the order of gs_mainjob_parts. nbody and matmul solve the same problem at any rank
 * count, so a run at -np 1 of the same machine is their one-rank baseline; reduce gets the same
 * share per rank. On a GPU they follow rank 0's device (memory, SMs), on the CPU backend (its
 * device is the host) the host's memory and cores: a few seconds per part on 2 cores. */
static void gs_mainjob_sizes(const struct gs_run *run, uint64_t n[GS_MAINJOB_PARTS], char *basis, size_t size) {
  double mem = run->dev.mem_bytes > 0 ? run->dev.mem_bytes : 1e9;
  if (run->be->caps & GS_CAP_HOST_MEMORY) {
    /* Up to 16 cores: a container may see more than its CPU quota lets it use. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double f = (cores < 2 ? 2 : cores > 16 ? 16 : cores) / 2.0; /* 1 on 2 cores */
    n[0] = gs_mainjob_pow2_floor((1 << 22) * f);
    if (n[0] > (1u << 26)) n[0] = 1u << 26;
    /* reduce holds its input twice plus 128 MiB (its copy ceiling) per rank, in the node's memory */
    while (n[0] > 1024 && (8.0 * n[0] + 134217728.0) * run->local_size > mem / 2) n[0] /= 2;
    n[1] = 512 * (uint64_t)(8 * sqrt(f));   /* 4096 bodies on 2 cores: N^2 with the cores */
    n[2] = 128 * (uint64_t)(64 * f);        /* 8192: N log N */
    n[3] = 64 * (uint64_t)(8 * cbrt(f));    /* 512: N^3 */
    snprintf(basis, size, "the host: %.1f GiB, %ld cores", mem / 1073741824.0, cores);
  } else {
    double sm = run->dev.sm_count > 0 ? run->dev.sm_count : 1;
    n[0] = (uint64_t)1 << 28;
    /* reduce holds its input once plus 1 GiB (its copy ceiling): half the GPU's memory at most */
    while (n[0] > 1024 && 4.0 * n[0] + 1073741824.0 > mem / 2) n[0] /= 2;
    /* Every kernel runs, the seed's slow ones too: 2^18 bodies and 8192^3 took 12.7 and 23.1 s on
     * one H100 (the whole job 42 s); a quarter and an eighth of that work keep it near 15 s. */
    n[1] = 8192 * (uint64_t)(16 * fmin(1, sqrt(sm / 132))); /* 2^17 on an H100's 132 SMs: N^2 */
    if (n[1] < 16384) n[1] = 16384;
    n[2] = mem >= 8e9 ? 1u << 20 : 1u << 18;
    n[3] = 4096;
    snprintf(basis, size, "rank 0's GPU: %.1f GiB, %d SMs", mem / 1073741824.0, run->dev.sm_count);
  }
}

/* nbody's --output: a new directory of this run's own, where nbody writes only a stop signal's
 * checkpoint; in the current directory, else $TMPDIR or /tmp; "" when none can be made. */
static void gs_mainjob_outdir(char *out, size_t size) {
  const char *tmp = getenv("TMPDIR");
  const char *bases[] = {".", tmp && *tmp ? tmp : "/tmp", "/tmp"};
  for (int i = 0; i < 3; i++) {
    snprintf(out, size, "%s/gpusim-main.XXXXXX", bases[i]);
    if (mkdtemp(out)) return;
  }
  out[0] = 0;
}

/* The plan, made by rank 0 and broadcast. */
static void gs_mainjob_plan(const struct gs_run *run, struct gs_mainjob_plan *p) {
  memset(p, 0, sizeof *p);
  if (run->rank == 0) {
    uint64_t n[GS_MAINJOB_PARTS];
    gs_mainjob_sizes(run, n, p->basis, sizeof p->basis);
    for (int k = 0; k < GS_MAINJOB_PARTS; k++) {
      char count[24];
      int log2 = 0;
      while (((uint64_t)1 << log2) < n[k]) log2++;
      if (n[k] > 1024 && ((uint64_t)1 << log2) == n[k]) snprintf(count, sizeof count, "2^%d", log2);
      else snprintf(count, sizeof count, "%llu", (unsigned long long)n[k]);
      snprintf(p->args[k], sizeof p->args[k], gs_mainjob_parts[k].args, count);
      snprintf(p->size[k], sizeof p->size[k], gs_mainjob_parts[k].size, count);
    }
    gs_mainjob_outdir(p->output, sizeof p->output);
  }
  GS_CHECK_MPI(&run->where, MPI_Bcast(p, (int)sizeof *p, MPI_BYTE, 0, MPI_COMM_WORLD));
}

/* Part k, run as `gpusim ARGS` would run it with this job's common options, its rows into sink;
 * returns its exit status. */
static int gs_mainjob_part(struct gs_run *run, const struct gs_mainjob_plan *p, int k, struct gs_report *sink) {
  char line[sizeof p->args[k]], *argv[32], *save = NULL;
  int argc = 0;
  snprintf(line, sizeof line, "%s", p->args[k]);
  argv[argc++] = "gpusim";
  for (char *w = strtok_r(line, " ", &save); w && argc < 28; w = strtok_r(NULL, " ", &save)) argv[argc++] = w;
  if (gs_mainjob_parts[k].output && p->output[0]) argv[argc++] = "--output", argv[argc++] = (char *)p->output;
  argv[argc] = NULL;
  if (run->rank == 0) {
    printf("#\n# main job, part %d of %d, %s: gpusim", k + 1, GS_MAINJOB_PARTS, gs_mainjob_parts[k].label);
    for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);
  }
  struct gs_options *o = malloc(sizeof *o);
  if (!o) GS_DIE(&run->where, "malloc", "out of memory");
  struct gs_msg msg;
  int status = gs_command_parse(argc, argv, o, &msg);
  if (status == GS_OK) {
    o->common = run->opt->common;
    struct gs_run part = *run;
    part.opt = o;
    part.sink = sink;
    status = gs_command_run(&part);
  } else {
    gs_error_report(run->rank, &msg);
  }
  free(o);
  return status;
}

/* Part k's headline row among its rows in sink: whole job, its metric (and phase), timed, the best
 * value; NULL if it has none. */
static const struct gs_row *gs_mainjob_headline(const struct gs_report *sink, const struct gs_mainjob_done *d, int k) {
  const struct gs_mainjob_part *p = &gs_mainjob_parts[k];
  const struct gs_row *best = NULL;
  for (int i = d->first[k]; i < d->end[k]; i++) {
    const struct gs_row *r = &sink->rows[i];
    if (r->rank != -1 || strcmp(r->metric, p->metric) != 0 || !(r->t_median > 0)) continue;
    if (p->phase && !strstr(r->params, p->phase)) continue;
    if (!best || r->value > best->value) best = r;
  }
  return best;
}

/* Rank 0: the summary table and what its columns mean. */
static void gs_mainjob_summary(const struct gs_run *run, const struct gs_mainjob_plan *p, const struct gs_report *sink,
                               const struct gs_mainjob_done *d) {
  printf("#\n# main job summary: %d rank(s), %s backend, sizes for %s\n", run->size, run->be->name, p->basis);
  printf("%-13s %-11s %-20s %10s %18s %6s %9s %7s  %s\n", "workload", "kernel", "size", "median_ms", "rate", "%peak",
         "vs_1_rank", "wall_s", "check");
  for (int k = 0; k < GS_MAINJOB_PARTS; k++) {
    const struct gs_row *r = gs_mainjob_headline(sink, d, k);
    char ms[24] = "-", rate[48] = "-", peak[16] = "-", wall[16] = "-";
    if (r) {
      snprintf(ms, sizeof ms, "%.3f", r->t_median * 1e3);
      snprintf(rate, sizeof rate, "%.4g %s", r->value, r->unit);
      if (r->efficiency >= 0) snprintf(peak, sizeof peak, "%.1f", 100 * r->efficiency);
    }
    if (d->status[k] >= 0) snprintf(wall, sizeof wall, "%.1f", d->wall[k]);
    printf("%-13s %-11s %-20s %10s %18s %6s %9s %7s  %s\n", gs_mainjob_parts[k].label, r ? r->kernel : "-", p->size[k],
           ms, rate, peak, "-", wall, d->status[k] < 0 ? "not run" : d->status[k] == GS_OK ? "OK" : "FAILED");
  }
  printf("# median_ms: slowest rank, one reduction (reduce), one step of forces, exchange and integration (nbody), one "
         "product (matmul); rate: over all ranks, bytes read (reduce), interactions (nbody; the tree's as its walk "
         "counts them), 2 M N K flops (matmul); the best kernel's where a part times several; %%peak: of the "
         "device's stated peak times the ranks, where it has one\n");
  printf("# vs_1_rank: not measured here, since every part computes on every rank of the job: a one-rank baseline is "
         "a job of its own, `mpirun -np 1 ./gpusim` on this machine, which runs the same nbody and matmul problems "
         "(strong scaling) and the same reduce share per rank (weak scaling)\n");
}

/* Rank 0: the verdict line; GS_OK when every part verified. */
static int gs_mainjob_verdict(const struct gs_mainjob_done *d, double wall) {
  char failed[256] = "";
  int ok = 0, ran = 0;
  for (int k = 0; k < GS_MAINJOB_PARTS; k++) {
    ran += d->status[k] >= 0;
    if (d->status[k] == GS_OK) ok++;
    else if (d->status[k] >= 0)
      snprintf(failed + strlen(failed), sizeof failed - strlen(failed), "%s%s", failed[0] ? ", " : "",
               gs_mainjob_parts[k].label);
  }
  printf("# main job: %d of %d parts run in %.1f s\n", ran, GS_MAINJOB_PARTS, wall);
  if (d->stopped)
    printf("# stop: %s came; the parts after it were not run\n", gs_signal_name(d->stopped));
  if (ok == GS_MAINJOB_PARTS)
    printf("# verification: OK (%d of %d workloads verified)\n", ok, GS_MAINJOB_PARTS);
  else
    printf("# verification: FAILED (%s%s%s; %d of %d workloads verified)\n", failed, failed[0] && d->stopped ? "; " : "",
           d->stopped ? "stopped early" : "", ok, GS_MAINJOB_PARTS);
  fflush(stdout);
  return ok == GS_MAINJOB_PARTS ? GS_OK : GS_FAILED;
}

int gs_mainjob_run(struct gs_run *run) {
  struct gs_mainjob_plan plan;
  gs_mainjob_plan(run, &plan);
  struct gs_report sink;
  gs_report_init(&sink, run);
  struct gs_rank_info *all = run->rank == 0 ? calloc((size_t)run->size, sizeof *all) : NULL;
  if (run->rank == 0 && !all) GS_DIE(&run->where, "calloc", "out of memory");
  gs_mpi_gather_ranks(run, all);
  if (run->rank == 0) {
    gs_report_header(stdout, run, &sink, all);
    printf("# main job: %d workloads, each run and verified as its subcommand, sizes for %s\n", GS_MAINJOB_PARTS,
           plan.basis);
  }
  free(all);
  struct gs_mainjob_done done = {.stopped = 0};
  double t0 = MPI_Wtime();
  for (int k = 0; k < GS_MAINJOB_PARTS; k++) {
    done.status[k] = -1;
    if (done.stopped) continue;
    done.first[k] = sink.count;
    double t = MPI_Wtime();
    done.status[k] = gs_mainjob_part(run, &plan, k, &sink);
    done.wall[k] = MPI_Wtime() - t;
    done.end[k] = sink.count;
    /* nbody installs the stop handlers: after it, a stop signal ends the job between parts. */
    int sig = gs_signal_pending();
    GS_CHECK_MPI(&run->where, MPI_Allreduce(&sig, &done.stopped, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  }
  int status = GS_OK;
  if (run->rank == 0) {
    gs_mainjob_summary(run, &plan, &sink, &done);
    status = gs_mainjob_verdict(&done, MPI_Wtime() - t0);
    if (gs_report_write(&sink, run) != GS_OK) status = GS_FAILED;
    if (plan.output[0]) rmdir(plan.output); /* ours, and only if empty: a stop's checkpoint stays */
  }
  GS_CHECK_MPI(&run->where, MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD));
  gs_report_free(&sink);
  return status;
}
