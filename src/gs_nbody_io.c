/* gs_nbody_io.c: what leaves the GPUs of an N-body run: checkpoints (the whole state, bitwise,
 * written by rank 0 as the ranks' slices stream in), snapshots (real bodies in double, each rank
 * its slice) and the state hash that proves a restarted run ends where an uninterrupted one does;
 * and what comes back in: the checkpoint a run resumes from. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_checkpoint.h"
#include "gs_file.h"
#include "gs_io.h"
#include "gs_nbody_io.h"
#include "gs_nbody_solver.h"

_Static_assert(GS_NBODY_TILE == GS_CKPT_TILE, "checkpoints check npad against the driver's tile");

/* Rank 0's use of the state as it streams in (gs_nbody_io_stream): array k's next bytes. */
typedef void gs_nbody_io_sink(void *arg, int k, const void *data, size_t bytes);

/* The state's arrays 0 .. arrays - 1 (pos, vel, acc) to rank 0 in global order, each rank's
 * standard id slice (tiles of bodies, npad in all) in rank order: sink(arg, k, slice, bytes) on
 * rank 0. Each rank sends its slices in turn, so rank 0 holds its own and one other at a time:
 * O(N / P) memory on every rank (a gather to rank 0 held all N, which the domains layout of the
 * tree must not need). Collective. */
static void gs_nbody_io_stream(struct gs_nbody_job *job, int arrays, gs_nbody_io_sink *sink, void *arg) {
  const int me = job->run->rank, P = job->run->size, *tiles = job->dec.tiles;
  const size_t mine = job->count * job->esz;
  void *part[3] = {malloc(mine ? mine : 1), malloc(mine ? mine : 1), arrays > 2 ? malloc(mine ? mine : 1) : NULL};
  if (!part[0] || !part[1] || (arrays > 2 && !part[2]))
    GS_DIE(&job->run->where, "malloc", "out of memory for the state");
  /* This rank's id slice from the solver, wherever it holds those bodies. */
  job->solver->gather(job->state, part[0], part[1], part[2]);
  for (int k = 0; k < arrays; k++) {
    if (me != 0) {
      GS_CHECK_MPI(&job->run->where, MPI_Send(part[k], tiles[me], job->tile_type, 0, k, MPI_COMM_WORLD));
      continue;
    }
    /* Rank 0's own slice first, then each other rank's into the same buffer (none is larger:
     * gs_nbody_decomp.h). */
    sink(arg, k, part[k], mine);
    for (int r = 1; r < P; r++) {
      GS_CHECK_MPI(&job->run->where,
                   MPI_Recv(part[k], tiles[r], job->tile_type, r, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      sink(arg, k, part[k], (size_t)tiles[r] * GS_NBODY_TILE * job->esz);
    }
  }
  free(part[0]), free(part[1]), free(part[2]);
}

/* gs_nbody_io_gather's sink: into the whole arrays, one after another. */
struct gs_nbody_io_whole {
  char *to[3];
  size_t at[3];
};

static void gs_nbody_io_into(void *arg, int k, const void *data, size_t bytes) {
  struct gs_nbody_io_whole *w = arg;
  memcpy(w->to[k] + w->at[k], data, bytes);
  w->at[k] += bytes;
}

void gs_nbody_io_gather(struct gs_nbody_job *job, void **pos, void **vel, void **acc) {
  size_t all = job->npad * job->esz;
  struct gs_nbody_io_whole w = {{NULL, NULL, NULL}, {0, 0, 0}};
  *pos = *vel = *acc = NULL;
  if (job->run->rank == 0) {
    for (int k = 0; k < 3; k++)
      if (!(w.to[k] = malloc(all ? all : 1))) GS_DIE(&job->run->where, "malloc", "out of memory for the state");
    *pos = w.to[0], *vel = w.to[1], *acc = w.to[2];
  }
  gs_nbody_io_stream(job, 3, gs_nbody_io_into, &w);
}

/* What a checkpoint of this run after `step` says about it (sizes and sums come at writing). */
static void gs_nbody_io_header(const struct gs_nbody_job *job, long step, struct gs_ckpt_header *h) {
  memset(h, 0, sizeof *h);
  h->step = (uint64_t)step;
  h->time = step * job->o->dt;
  h->n = job->n;
  h->npad = job->npad;
  h->precision = job->prec;
  h->law = job->law;
  h->ranks = job->run->size;
  h->kernel = job->kernel;
  h->dt = job->o->dt;
  h->eps = job->o->eps;
  h->G = job->G;
  h->eps2 = job->eps2;
  h->cut2 = job->cut2;
  h->e0 = job->e0;
  if (job->p0_set && job->p0_step == 0)
    h->p0_set = 1, memcpy(h->p0, job->p0, sizeof h->p0);
  h->seed = job->o->seed;
  snprintf(h->ic, sizeof h->ic, "%s", job->ic_name);
  job->solver->ckpt(job, h);
}

/* gs_nbody_io_checkpoint's sink: the payload's bytes in file order (pos, vel, acc). */
static void gs_nbody_io_to_file(void *arg, int k, const void *data, size_t bytes) {
  (void)k;
  gs_checkpoint_add(arg, data, bytes);
}

int gs_nbody_io_checkpoint(struct gs_nbody_job *job, long step) {
  struct gs_msg msg = {{0}};
  struct gs_ckpt_header h;
  struct gs_ckpt_writer *w = NULL;
  int status = GS_OK;
  if (job->run->rank == 0) {
    gs_nbody_io_header(job, step, &h);
    if (!(w = gs_checkpoint_begin(job->o->output, &h, job->ckpt_prev)))
      GS_DIE(&job->run->where, "malloc", "out of memory for a checkpoint");
  }
  gs_nbody_io_stream(job, 3, gs_nbody_io_to_file, w); /* the sink runs on rank 0 only */
  if (job->run->rank == 0 && gs_checkpoint_end(w, &h, job->ckpt_prev, &msg) != 0) status = GS_FAILED;
  GS_CHECK_MPI(&job->run->where, MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (status != GS_OK && job->run->rank == 0) fprintf(stderr, "gpusim: error: %s\n", msg.text);
  return status;
}

int gs_nbody_io_snapshot(struct gs_nbody_job *job, int index, long step) {
  /* Real bodies of this slice only: the padding at the end never shows. */
  uint64_t first, end;
  gs_nbody_decomp_bodies(&job->dec, job->run->rank, job->n, &first, &end);
  uint64_t count = end - first;
  size_t bytes = (job->count ? job->count : 1) * job->esz;
  void *p = malloc(bytes), *v = malloc(bytes);
  double *pos = malloc(3 * sizeof(double) * (count ? count : 1)),
         *vel = malloc(3 * sizeof(double) * (count ? count : 1));
  double *mass = malloc(sizeof(double) * (count ? count : 1));
  if (!p || !v || !pos || !vel || !mass) GS_DIE(&job->run->where, "malloc", "out of memory for a snapshot");
  job->solver->gather(job->state, p, v, NULL); /* collective */
  for (uint64_t k = 0; k < count; k++)
    for (int c = 0; c < 4; c++) {
      double pv = job->prec ? ((double *)p)[4 * k + c] : ((float *)p)[4 * k + c];
      double vv = job->prec ? ((double *)v)[4 * k + c] : ((float *)v)[4 * k + c];
      if (c < 3)
        pos[3 * k + c] = pv, vel[3 * k + c] = vv;
      else
        mass[k] = pv;
    }
  /* The header names the initial conditions: the preset, or the file's name as --ic gave it (a
   * restart that did not repeat --ic FILE only knows it was a file). */
  const char *ic = job->ic_name;
  if (strcmp(ic, "file") == 0 && !gs_nbody_options_preset(job->o->ic)) ic = job->o->ic;
  struct gs_snapshot s = {.n_total = job->n,
                          .first = first,
                          .count = count,
                          .pos = pos,
                          .vel = vel,
                          .mass = mass,
                          .time = step * job->o->dt,
                          .step = step,
                          .G = job->G,
                          .eps = job->law == GS_LAW_PLUMMER ? job->o->eps : 0.0,
                          .ic = ic};
  struct gs_msg msg = {{0}};
  int status = gs_io_write_snapshot(job->o->output, index, &s, MPI_COMM_WORLD, &msg);
  if (status != GS_OK && job->run->rank == 0) fprintf(stderr, "gpusim: error: %s\n", msg.text);
  free(p), free(v), free(pos), free(vel), free(mass);
  return status;
}

/* gs_nbody_io_hash's sink: the real bodies' bytes of pos, then of vel (the padding left out). */
struct gs_nbody_io_sum {
  uint64_t h;
  size_t at[2], real; /* bytes of each array seen so far; real bodies' bytes of an array */
};

static void gs_nbody_io_add(void *arg, int k, const void *data, size_t bytes) {
  struct gs_nbody_io_sum *s = arg;
  size_t take = s->at[k] >= s->real ? 0 : s->real - s->at[k] < bytes ? s->real - s->at[k] : bytes;
  s->h = gs_checkpoint_hash(s->h, data, take);
  s->at[k] += bytes;
}

uint64_t gs_nbody_io_hash(struct gs_nbody_job *job) {
  struct gs_nbody_io_sum s = {GS_FNV_OFFSET, {0, 0}, job->n * job->esz};
  gs_nbody_io_stream(job, 2, gs_nbody_io_add, &s);
  return job->run->rank == 0 ? s.h : 0;
}

/* Can a file be created, written, synced and removed in dir? 0, or -1 with errno. */
static int gs_nbody_io_probe(const char *dir) {
  char path[4200], host[64] = "";
  gethostname(host, sizeof host - 1);
  host[strcspn(host, "/")] = 0;
  snprintf(path, sizeof path, "%s/.gpusim-probe.%s.%ld", dir, host, (long)getpid());
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return -1;
  char block[4096];
  memset(block, 0, sizeof block);
  int rc = write(fd, block, sizeof block) == (ssize_t)sizeof block && fsync(fd) == 0 ? 0 : -1, err = errno;
  close(fd);
  unlink(path);
  errno = err;
  return rc;
}

/* Is --restart's checkpoint (DIR, or a FILE in it) in the directory dir? Then this run goes on
 * with the run that wrote dir's snapshots. */
static int gs_nbody_io_continues(const char *restart, const char *dir) {
  char r[4096], d[4096], *slash;
  struct stat st;
  if (!restart[0] || !realpath(restart, r) || !realpath(dir, d) || stat(r, &st) != 0) return 0;
  if (!S_ISDIR(st.st_mode) && (slash = strrchr(r, '/'))) *slash = 0;
  return strcmp(r, d) == 0;
}

/* Snapshots this run would write over another run's (rank 0, before step 0): the indices from its
 * first (0 for a new run) to that of its last step; a restart from dir itself goes on with the run
 * that wrote them (its first index may be that run's last, written again). */
static int gs_nbody_io_snapshot_clash(const struct gs_nbody_job *job, struct gs_msg *msg) {
  const struct gs_nbody_opts *o = job->o;
  char name[256];
  if (o->snapshot_every <= 0 || gs_nbody_io_continues(o->restart, o->output)) return GS_OK;
  long k = o->snapshot_every, first = o->restart[0] ? job->step0 / k + 1 : 0, last = (o->steps + k - 1) / k;
  if (first > last || gs_io_find_snapshot(o->output, (int)first, (int)last, name, sizeof name) < 0) return GS_OK;
  return gs_error_msg(msg,
                      "--output %s holds %s, a snapshot this run would write (its snapshots %ld to %ld), and gpusim "
                      "never replaces a file it did not write, even with --overwrite: choose another --output, or "
                      "move that file away",
                      o->output, name, first, last);
}

int gs_nbody_io_prepare(struct gs_nbody_job *job, const struct gs_ckpt_header *resumed, struct gs_msg *msg) {
  const char *dir = job->o->output;
  int status = GS_OK;
  struct stat st;
  if (job->run->rank == 0) {
    struct gs_ckpt_header run;
    gs_nbody_io_header(job, 0, &run);
    if (gs_file_mkdirs(dir) != 0 || stat(dir, &st) != 0)
      status = gs_error_msg(msg, "--output %s: cannot create the directory: %s", dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
      status = gs_error_msg(msg, "--output %s: not a directory", dir);
    else if (gs_nbody_io_probe(dir) != 0)
      status = gs_error_msg(msg, "--output %s: cannot write files there: %s", dir, strerror(errno));
    else if (!job->o->overwrite)
      status = gs_checkpoint_claim(dir, &run, job->o->restart[0] != 0, msg);
    if (status == GS_OK) /* --overwrite too: a file this run could only fail on at its step */
      status = gs_checkpoint_clash(dir, (uint64_t)job->step0, (uint64_t)job->o->steps, resumed, msg);
    if (status == GS_OK) status = gs_nbody_io_snapshot_clash(job, msg);
    if (status == GS_OK) gs_checkpoint_clean(dir);
  }
  return gs_error_agree(MPI_COMM_WORLD, &job->run->where, status, msg);
}

int gs_nbody_io_restart(struct gs_nbody_job *job, struct gs_ckpt_header *h, struct gs_ckpt_reader **ckpt,
                        struct gs_msg *msg) {
  const struct gs_options *opt = job->run->opt;
  int status = GS_OK;
  *ckpt = NULL;
  if (job->run->rank == 0) {
    status = gs_checkpoint_open_payload(job->o->restart, h, ckpt, msg);
    const char *path = job->o->restart;
    if (status == GS_OK && gs_options_given(opt, "n") && h->n != job->o->n)
      status = gs_error_msg(msg, "--restart %s: the checkpoint has N = %llu, --n says %llu", path,
                            (unsigned long long)h->n, (unsigned long long)job->o->n);
    else if (status == GS_OK && gs_options_given(opt, "precision") && h->precision != job->o->precision)
      status = gs_error_msg(msg, "--restart %s: the checkpoint is in %s precision, --precision says %s", path,
                            h->precision ? "double" : "single", job->o->precision ? "double" : "single");
    else if (status == GS_OK && gs_options_given(opt, "dt") && h->dt != job->o->dt)
      status = gs_error_msg(msg, "--restart %s: the checkpoint's time step is %.17g, --dt says %.17g", path, h->dt,
                            job->o->dt);
    else if (status == GS_OK && gs_options_given(opt, "eps") && h->eps != job->o->eps)
      status = gs_error_msg(msg, "--restart %s: the checkpoint's softening is %.17g, --eps says %.17g", path, h->eps,
                            job->o->eps);
    else if (status == GS_OK && gs_options_given(opt, "ic") && strcmp(h->ic, job->o->ic) != 0 &&
             !(strcmp(h->ic, "file") == 0 && !gs_nbody_options_preset(job->o->ic)))
      status =
          gs_error_msg(msg, "--restart %s: the checkpoint started from '%s', --ic says '%s'", path, h->ic, job->o->ic);
    else if (status == GS_OK && gs_options_given(opt, "seed") && h->seed != job->o->seed)
      status = gs_error_msg(msg, "--restart %s: the checkpoint's seed is %llu, --seed says %llu", path,
                            (unsigned long long)h->seed, (unsigned long long)job->o->seed);
    else if (status == GS_OK && (long)h->step >= job->o->steps)
      status = gs_error_msg(msg,
                            "--restart %s: the checkpoint is at step %llu; --steps %d is the step to end at, "
                            "give a larger one",
                            path, (unsigned long long)h->step, job->o->steps);
  }
  if (gs_error_agree(MPI_COMM_WORLD, &job->run->where, status, msg) != GS_OK) {
    gs_checkpoint_close(*ckpt);
    *ckpt = NULL;
    return GS_USAGE;
  }
  GS_CHECK_MPI(&job->run->where, MPI_Bcast(h, (int)sizeof *h, MPI_BYTE, 0, MPI_COMM_WORLD));
  return GS_OK;
}

void gs_nbody_io_adopt(struct gs_nbody_job *job, const struct gs_ckpt_header *h, struct gs_nbody_opts *o) {
  job->n = h->n;
  job->prec = h->precision;
  job->esz = job->prec ? 32 : 16;
  job->law = h->law;
  job->G = h->G;
  job->eps2 = h->eps2;
  job->cut2 = h->cut2;
  job->step0 = (long)h->step;
  job->e0 = h->e0;
  job->p0_set = h->p0_set == 1;
  if (job->p0_set) memcpy(job->p0, h->p0, sizeof job->p0);
  snprintf(job->ic_name, sizeof job->ic_name, "%s", h->ic);
  o->dt = h->dt;
  o->eps = h->eps;
  o->precision = h->precision;
  o->seed = h->seed;
  /* The solver and the tree's settings that the command line leaves out: the checkpoint's. */
  const struct gs_options *opt = job->run->opt;
  if (!gs_options_given(opt, "solver")) o->solver = h->solver;
  const struct gs_nbody_solver *sv = gs_nbody_solver_find(o->solver);
  if (sv && o->solver == (int)h->solver) sv->adopt(h, o, opt);
}
