/* gs_nbody_tree.c: --solver tree's evaluation: workspace, build + walk, a step's exchanges.
 * Every rank builds the tree over all N bodies; the ranks then share the tree's own body order
 * (Morton order on the GPU), rank r walking a run of positions of that order, not a slice of the
 * index order. Its targets are then a compact region of space whatever the
 * initial conditions put where: index slices of a Plummer sphere are spread over the whole sphere,
 * so each rank's groups of nearby targets came out half empty and two GPUs were slower than one.
 * The forces, written in tree order, are all-gathered and put back into index order
 * (be->tree->unsort), each rank keeping its own index slice.
 * The runs are balanced by walk time, not by count: the sphere's core costs more per body than its
 * outskirts. After each evaluation every rank's walk time is shared, and the next runs follow the
 * measured rates (positions per second), half way each time against noise. They end only where
 * a group of targets starts (be->tree->bounds), so whoever walks a body, its force is the same:
 * the balance changes the time, never a bit of the result. */
#include "gs_nbody_tree.h"

#include <stdlib.h>

#include "gs_nbody_exchange.h"

/* The ranks' runs of the tree's order (P > 1): rank r walks positions [at[r], at[r + 1]). */
struct gs_nbody_tree_runs {
  uint64_t *at;              /* P + 1 boundaries */
  double *share;             /* every rank's wanted count of positions */
  double walk;               /* this rank's last walk, device seconds (0: none yet) */
  int *counts, *displs;      /* the forces' all-gather: the runs in bodies ... */
  uint64_t *first, *bytes;   /* ... and in bytes */
  MPI_Datatype body;         /* one body vector */
};

void gs_nbody_tree_close(struct gs_nbody_tree *t) {
  struct gs_nbody_job *job = t->repl.job;
  void *dev[] = {t->ws, t->d_counts, t->d_sorted_acc, t->d_aold};
  for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
    if (dev[k]) job->be->free_device(job->ctx, dev[k]);
  for (int e = 0; e < 4; e++)
    job->be->event_destroy(job->ctx, t->ev[e]);
  struct gs_nbody_tree_runs *runs = t->runs;
  MPI_Type_free(&runs->body);
  free(runs->at), free(runs->share), free(runs->counts), free(runs->displs), free(runs->first), free(runs->bytes);
  free(runs);
}

/* The relative opening test reads every target's previous acceleration (by body index). */
static int gs_nbody_tree_relative(const struct gs_nbody_job *job) { return job->o->opening == GS_TREE_RELATIVE; }

struct gs_tree_args gs_nbody_tree_settings(const struct gs_nbody_job *job, int potential, int first) {
  const struct gs_nbody_opts *o = job->o;
  struct gs_tree_args a = {.precision = job->prec,
                           .law = job->law,
                           .potential = potential,
                           .G = job->corrupt ? -job->G : job->G, /* a planted fault: repulsion */
                           .eps2 = job->eps2,
                           .cut2 = job->cut2,
                           .opening = o->opening,
                           .first = first,
                           .theta = o->theta,
                           .alpha = o->alpha,
                           .leaf = o->leaf,
                           .stop = job->stop};
  return a;
}

static struct gs_tree_args gs_nbody_tree_args(const struct gs_nbody_tree *t, int potential, int first) {
  const struct gs_nbody_job *job = t->repl.job;
  struct gs_tree_args a = gs_nbody_tree_settings(job, potential, first);
  a.pos = job->d_pos, a.n = job->n, a.targets = GS_TREE_BY_ORDER, a.i_first = 0;
  a.i_count = job->npad; /* the most any rank walks: the workspace's size */
  a.acc = t->d_sorted_acc, a.aold = t->d_aold, a.ws = t->ws, a.ws_bytes = t->ws_bytes;
  return a;
}

/* The workspace, the counters, the forces' arrays and the events, once before the first
 * evaluation; then the runs (gs_nbody_tree_parts). */
static void gs_nbody_tree_alloc(struct gs_nbody_tree *t) {
  struct gs_nbody_job *job = t->repl.job;
  const struct gs_backend *be = job->be;
  struct gs_tree_args a = gs_nbody_tree_args(t, 1, 1); /* all of a run's settings */
  size_t all = job->npad * job->esz;
  t->ws_bytes = be->tree->workspace(job->ctx, &a);
  t->ws = be->alloc_device(job->ctx, t->ws_bytes ? t->ws_bytes : 1);
  t->d_counts = be->alloc_device(job->ctx, GS_TREE_COUNTS * sizeof(uint64_t));
  t->d_sorted_acc = be->alloc_device(job->ctx, all);
  be->zero_device(job->ctx, t->d_counts, GS_TREE_COUNTS * sizeof(uint64_t), job->qc);
  be->zero_device(job->ctx, t->d_sorted_acc, all, job->qc); /* padding rows travel, never read */
  if (gs_nbody_tree_relative(job)) {
    t->d_aold = be->alloc_device(job->ctx, all);
    be->zero_device(job->ctx, t->d_aold, all, job->qc);
  }
  for (int e = 0; e < 4; e++)
    t->ev[e] = be->event_create(job->ctx);
  be->queue_sync(job->ctx, job->qc);
}

/* The ranks' runs, equal counts until the walk times say otherwise. */
static void gs_nbody_tree_parts(struct gs_nbody_tree *t) {
  struct gs_nbody_job *job = t->repl.job;
  int P = job->run->size;
  struct gs_nbody_tree_runs *runs = calloc(1, sizeof *runs);
  if (!runs) GS_DIE(&job->run->where, "malloc", "out of memory");
  runs->at = calloc((size_t)P + 1, sizeof *runs->at), runs->share = calloc((size_t)P, sizeof *runs->share);
  runs->counts = calloc((size_t)P, sizeof *runs->counts), runs->displs = calloc((size_t)P, sizeof *runs->displs);
  runs->first = calloc((size_t)P, sizeof *runs->first), runs->bytes = calloc((size_t)P, sizeof *runs->bytes);
  if (!runs->at || !runs->share || !runs->counts || !runs->displs || !runs->first || !runs->bytes)
    GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int r = 0; r < P; r++)
    runs->share[r] = (double)job->n / P;
  GS_CHECK_MPI(&job->run->where, MPI_Type_contiguous((int)job->esz, MPI_BYTE, &runs->body));
  GS_CHECK_MPI(&job->run->where, MPI_Type_commit(&runs->body));
  t->runs = runs;
}

/* The next runs' wanted counts from the last walk times (P > 1; collective, polled): positions
 * per second of each rank, every share moved half way to the count those rates balance. */
static void gs_nbody_tree_balance(struct gs_nbody_tree *tree) {
  struct gs_nbody_job *job = tree->repl.job;
  struct gs_nbody_tree_runs *runs = tree->runs;
  int P = job->run->size;
  double *t = malloc(sizeof *t * (size_t)P), rate = 0;
  if (!t) GS_DIE(&job->run->where, "malloc", "out of memory");
  MPI_Request req;
  GS_CHECK_MPI(&job->run->where, MPI_Iallgather(&runs->walk, 1, MPI_DOUBLE, t, 1, MPI_DOUBLE, MPI_COMM_WORLD, &req));
  gs_exchange_mpi_wait(&job->xchg, 1, &req, "MPI_Iallgather (the tree walks' times)");
  int known = 1;
  for (int r = 0; r < P; r++)
    known &= t[r] > 0, rate += t[r] > 0 ? (double)(runs->at[r + 1] - runs->at[r]) / t[r] : 0;
  if (known && rate > 0)
    for (int r = 0; r < P; r++)
      runs->share[r] =
          0.5 * runs->share[r] + 0.5 * (double)job->n * ((double)(runs->at[r + 1] - runs->at[r]) / t[r]) / rate;
  free(t);
}

/* The runs for this evaluation (after the build: they end at group starts) and the all-gather's
 * parts. Every rank computes the same runs from the same tree and the same shares. */
static void gs_nbody_tree_cut(struct gs_nbody_tree *t, const struct gs_tree_args *a) {
  struct gs_nbody_job *job = t->repl.job;
  struct gs_nbody_tree_runs *runs = t->runs;
  int P = job->run->size;
  uint64_t *want = malloc(sizeof *want * (size_t)P);
  if (!want) GS_DIE(&job->run->where, "malloc", "out of memory");
  double sum = 0;
  for (int r = 1; r < P; r++) {
    sum += runs->share[r - 1];
    want[r - 1] = sum <= 0 ? 0 : sum >= (double)job->n ? job->n : (uint64_t)(sum + 0.5);
  }
  runs->at[0] = 0, runs->at[P] = job->n;
  job->be->tree->bounds(job->ctx, a, want, runs->at + 1, P - 1, job->qc);
  for (int r = 1; r < P; r++)
    if (runs->at[r] < runs->at[r - 1]) runs->at[r] = runs->at[r - 1]; /* monotone whatever the shares */
  for (int r = 0; r < P; r++) {
    runs->counts[r] = (int)(runs->at[r + 1] - runs->at[r]), runs->displs[r] = (int)runs->at[r];
    runs->first[r] = runs->at[r] * job->esz, runs->bytes[r] = (uint64_t)runs->counts[r] * job->esz;
  }
  free(want);
}

void gs_nbody_tree_resume(struct gs_nbody_tree *t) {
  struct gs_nbody_job *job = t->repl.job;
  gs_nbody_repl_resume(t);
  if (!gs_nbody_tree_relative(job)) return;
  if (job->count)
    job->be->copy_d2d(job->ctx, (char *)t->d_aold + job->first * job->esz, job->d_acc, job->count * job->esz,
                      job->qc);
  gs_nbody_exchange_gather(job, t->d_aold);
  job->be->queue_sync(job->ctx, job->qc);
}

int gs_nbody_tree_forces(struct gs_nbody_tree *t, void *acc, int potential, int first, int flags) {
  struct gs_nbody_job *job = t->repl.job;
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  struct gs_nbody_tree_runs *runs = t->runs;
  gs_event **ev = t->ev;
  int P = job->run->size, r = job->run->rank;
  struct gs_tree_args a = gs_nbody_tree_args(t, potential, first);
  a.counts = flags & GS_NBODY_TREE_COUNT ? t->d_counts : NULL;
  if (flags & GS_NBODY_TREE_DIAG) a.opening = GS_TREE_GEOMETRIC, a.theta = GS_NBODY_TREE_DIAG_THETA;
  /* abandoned (the step is undone): no walk, but the build, the runs and the forces' all-gather
   * still happen, as every other rank, which may not have seen the signal yet, takes part in them
   * with the same runs */
  int go = !(a.stop && a.stop()), diag = flags & GS_NBODY_TREE_DIAG;
  /* the diagnostics' walk (another theta) neither moves the runs nor times them: the balance
   * follows the simulation's walks (the same flags on every rank: collective or on none) */
  if (P > 1 && !diag) gs_nbody_tree_balance(t);
  /* The tree's own events: the walk's time runs from ev[1], or with P > 1 from ev[3], after the
   * host has read the runs. */
  be->event_record(c, ev[0], job->qc);
  be->tree->build(c, &a, job->qc);
  be->event_record(c, ev[1], job->qc);
  if (P > 1) {
    gs_nbody_tree_cut(t, &a);
    be->event_record(c, ev[3], job->qc);
  } else {
    runs->at[0] = 0, runs->at[1] = job->n;
  }
  a.i_first = runs->at[r], a.i_count = runs->at[r + 1] - runs->at[r];
  a.acc = (char *)t->d_sorted_acc + a.i_first * job->esz;
  if (go && a.i_count) be->tree->walk(c, &a, job->qc);
  be->event_record(c, ev[2], job->qc);
  if (P > 1) {
    be->event_sync(c, ev[2]); /* the all-gather's time is its own, not the walk's */
    if (!diag) runs->walk = go ? be->event_seconds(c, ev[3], ev[2]) : 0;
    struct gs_nbody_parts parts = {runs->body, runs->counts, runs->displs, runs->first, runs->bytes};
    t->gather_s = gs_nbody_exchange_gatherv(job, t->d_sorted_acc, &parts);
  }
  if (!go) return 0;
  be->tree->unsort(c, &a, t->d_sorted_acc, acc, job->first, job->count, job->qc);
  if ((flags & GS_NBODY_TREE_KEEP) && t->d_aold) be->tree->unsort(c, &a, t->d_sorted_acc, t->d_aold, 0, job->n, job->qc);
  return 1;
}

void gs_nbody_tree_times(struct gs_nbody_tree *t, double *build, double *walk) {
  const struct gs_nbody_job *job = t->repl.job;
  const struct gs_backend *be = job->be;
  be->event_sync(job->ctx, t->ev[2]);
  *build = be->event_seconds(job->ctx, t->ev[0], t->ev[1]);
  *walk = be->event_seconds(job->ctx, t->ev[job->run->size > 1 ? 3 : 1], t->ev[2]);
}

int gs_nbody_tree_diag_own(const struct gs_nbody_job *job) {
  return job->o->opening == GS_TREE_GEOMETRIC && job->o->theta == GS_NBODY_TREE_DIAG_THETA;
}

double gs_nbody_tree_step(struct gs_nbody_tree *t, int potential, int first, struct gs_step_times *st) {
  struct gs_nbody_job *job = t->repl.job;
  if (first) {
    gs_nbody_tree_forces(t, job->d_acc, potential, 1, GS_NBODY_TREE_KEEP);
    job->be->queue_sync(job->ctx, job->qc);
    return 0;
  }
  double exchange = gs_nbody_exchange_gather(job, job->d_pos);
  st->part[GS_NBODY_TREE_BUILD] = st->part[GS_NBODY_TREE_WALK] = 0;
  if (gs_nbody_tree_forces(t, job->d_acc, potential && gs_nbody_tree_diag_own(job), 0, GS_NBODY_TREE_KEEP))
    gs_nbody_tree_times(t, &st->part[GS_NBODY_TREE_BUILD], &st->part[GS_NBODY_TREE_WALK]);
  st->forces = st->part[GS_NBODY_TREE_BUILD] + st->part[GS_NBODY_TREE_WALK];
  return exchange + t->gather_s;
}

void gs_nbody_tree_scratch(struct gs_nbody_tree *t) {
  gs_nbody_tree_forces(t, t->repl.job->d_acc_scratch, 1, 0, GS_NBODY_TREE_DIAG);
}

void gs_nbody_tree_open(struct gs_nbody_tree *t) {
  gs_nbody_tree_alloc(t);
  gs_nbody_tree_parts(t);
}
