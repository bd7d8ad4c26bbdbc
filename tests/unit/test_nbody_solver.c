/* The N-body solver seam (src/gs_nbody_solver.h) with a solver the program does not have: a toy
 * that holds its bodies in reverse id order, moves them at every evaluation (its held order
 * rotates by one, into the other of two buffers, so every held pointer changes) and has a force
 * law of its own (a harmonic trap: a = -x, phi = |x|^2). The driver's own step loop
 * (gs_nbody_step_run), diagnostics (gs_nbody_energy_measure) and gather (gs_nbody_io_gather) run
 * over it on the CPU backend; the state, energy and momentum are checked against the same
 * leapfrog computed here in id order, and the toy's keep/undo against a copy. The toy is plugged
 * in by pointing job.solver at it: a solver in the program is its own file plus one line in
 * gs_nbody_solver.c's list, which declares its table (gs_nbody_solver.h names no solver, so the
 * program's are reached here as the driver reaches them: by --solver's value). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_nbody_energy.h"
#include "gs_nbody_io.h"
#include "gs_nbody_setup.h"
#include "gs_nbody_solver.h"
#include "gs_nbody_step.h"
#include "gs_progress.h"
#include "gs_test.h"

#define N 37 /* not a whole tile: the gather pads */
#define STEPS 12
#define DT 0.01

/* Two buffer sets (held order, (x, y, z, m) / (vx, vy, vz, 0) / (ax, ay, az, phi) and ids) and
 * the kept copy of the current one. */
struct toy {
  struct gs_nbody_job *job;
  double *pos[3], *vel[3], *acc[3], scratch[4 * N];
  uint64_t id[3][N];
  int cur, evals, reports;
};

static void toy_law(const double *pos, double *acc) {
  for (int k = 0; k < N; k++) {
    const double *x = pos + 4 * k;
    double *a = acc + 4 * k;
    a[0] = -x[0], a[1] = -x[1], a[2] = -x[2], a[3] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  }
}

static int toy_check(struct gs_nbody_job *job, struct gs_msg *msg) {
  (void)msg;
  job->kname = "toy";
  return GS_OK;
}

static void *toy_open(struct gs_nbody_job *job) {
  struct toy *t = calloc(1, sizeof *t);
  t->job = job;
  for (int b = 0; b < 3; b++)
    t->pos[b] = calloc(4 * N, sizeof(double)), t->vel[b] = calloc(4 * N, sizeof(double)),
    t->acc[b] = calloc(4 * N, sizeof(double));
  return t;
}

/* Body id i at held place N - 1 - i. */
static void toy_load(void *s, const struct gs_nbody_origin *from) {
  struct toy *t = s;
  const struct gs_bodies *b = from->b;
  t->job->mass = 0;
  for (int i = 0; i < N; i++) {
    int k = N - 1 - i;
    double q[4] = {b->x[i], b->y[i], b->z[i], b->m[i]}, v[4] = {b->vx[i], b->vy[i], b->vz[i], 0};
    memcpy(t->pos[0] + 4 * k, q, sizeof q), memcpy(t->vel[0] + 4 * k, v, sizeof v);
    t->id[0][k] = (uint64_t)i;
    t->job->mass += b->m[i];
  }
}

static void toy_resume(void *s) { (void)s; }

static void toy_held(void *s, struct gs_nbody_held *h) {
  struct toy *t = s;
  *h = (struct gs_nbody_held){t->pos[t->cur], t->vel[t->cur], t->acc[t->cur], t->id[t->cur], 0, N};
}

/* Move: the held order rotates by one into the other buffer; then the forces there. */
static double toy_forces(void *s, int potential, int first, struct gs_step_times *st) {
  struct toy *t = s;
  int from = t->cur, to = 1 - t->cur;
  (void)potential, (void)first;
  for (int k = 0; k < N; k++) {
    int j = (k + 1) % N;
    memcpy(t->pos[to] + 4 * k, t->pos[from] + 4 * j, 4 * sizeof(double));
    memcpy(t->vel[to] + 4 * k, t->vel[from] + 4 * j, 4 * sizeof(double));
    t->id[to][k] = t->id[from][j];
  }
  toy_law(t->pos[to], t->acc[to]);
  t->cur = to, t->evals++;
  if (st) st->forces = 0;
  return 0;
}

static const void *toy_potential(void *s, int fresh) {
  struct toy *t = s;
  if (!fresh) return t->acc[t->cur];
  toy_law(t->pos[t->cur], t->scratch);
  return t->scratch;
}

/* Keep: the current set into set 2 (with which set was current in cur's place on undo). */
static int toy_kept;
static void toy_keep(void *s) {
  struct toy *t = s;
  memcpy(t->pos[2], t->pos[t->cur], 4 * N * sizeof(double)), memcpy(t->vel[2], t->vel[t->cur], 4 * N * sizeof(double));
  memcpy(t->acc[2], t->acc[t->cur], 4 * N * sizeof(double)), memcpy(t->id[2], t->id[t->cur], sizeof t->id[2]);
  toy_kept = t->cur;
}

static void toy_undo(void *s) {
  struct toy *t = s;
  t->cur = toy_kept;
  memcpy(t->pos[t->cur], t->pos[2], 4 * N * sizeof(double)), memcpy(t->vel[t->cur], t->vel[2], 4 * N * sizeof(double));
  memcpy(t->acc[t->cur], t->acc[2], 4 * N * sizeof(double)), memcpy(t->id[t->cur], t->id[2], sizeof t->id[2]);
}

/* This rank's id slice, in id order, padding zero. */
static void toy_gather(void *s, void *pos, void *vel, void *acc) {
  struct toy *t = s;
  const struct gs_nbody_job *job = t->job;
  size_t bytes = job->count * job->esz;
  memset(pos, 0, bytes), memset(vel, 0, bytes);
  if (acc) memset(acc, 0, bytes);
  for (int k = 0; k < N; k++) {
    uint64_t i = t->id[t->cur][k];
    if (i < job->first || i >= job->first + job->count) continue;
    memcpy((double *)pos + 4 * (i - job->first), t->pos[t->cur] + 4 * k, 4 * sizeof(double));
    memcpy((double *)vel + 4 * (i - job->first), t->vel[t->cur] + 4 * k, 4 * sizeof(double));
    if (acc) memcpy((double *)acc + 4 * (i - job->first), t->acc[t->cur] + 4 * k, 4 * sizeof(double));
  }
}

static double toy_memory(const struct gs_nbody_job *job, uint64_t n) {
  (void)job, (void)n;
  return 0;
}
static void toy_adopt(const struct gs_ckpt_header *h, struct gs_nbody_opts *o, const struct gs_options *opt) {
  (void)h, (void)o, (void)opt;
}
static double toy_interactions(void *s) { return (void)s, N; }
static void toy_header(void *s, const struct gs_ckpt_header *ck) { (void)s, (void)ck; }
static void toy_first(void *s) { ((struct toy *)s)->reports++; }
static void toy_steps(void *s, const struct gs_step_times *times, int steps) {
  (void)times, (void)steps;
  ((struct toy *)s)->reports++;
}
static void toy_final(void *s, long last) { (void)last, ((struct toy *)s)->reports++; }
static void toy_ckpt(const struct gs_nbody_job *job, struct gs_ckpt_header *h) { (void)job, h->solver = 99; }
static void toy_close(void *s) {
  struct toy *t = s;
  for (int b = 0; b < 3; b++)
    free(t->pos[b]), free(t->vel[b]), free(t->acc[b]);
  free(t);
}

static const struct gs_nbody_solver toy = {.name = "toy",
                                           .id = 99,
                                           .memory = toy_memory,
                                           .adopt = toy_adopt,
                                           .check = toy_check,
                                           .open = toy_open,
                                           .load = toy_load,
                                           .resume = toy_resume,
                                           .held = toy_held,
                                           .forces = toy_forces,
                                           .potential = toy_potential,
                                           .keep = toy_keep,
                                           .undo = toy_undo,
                                           .gather = toy_gather,
                                           .interactions = toy_interactions,
                                           .header = toy_header,
                                           .report_first = toy_first,
                                           .report_steps = toy_steps,
                                           .report_final = toy_final,
                                           .ckpt = toy_ckpt,
                                           .close = toy_close};

/* The reference: the same kick-drift-kick in id order, and its energy, momentum and mass moment. */
static void reference(const struct gs_bodies *b, double *pos, double *vel, double diag[8]) {
  double acc[4 * N];
  for (int i = 0; i < N; i++) {
    double q[4] = {b->x[i], b->y[i], b->z[i], b->m[i]}, v[4] = {b->vx[i], b->vy[i], b->vz[i], 0};
    memcpy(pos + 4 * i, q, sizeof q), memcpy(vel + 4 * i, v, sizeof v);
  }
  toy_law(pos, acc);
  for (int s = 0; s < STEPS; s++) {
    for (int i = 0; i < N; i++)
      for (int c = 0; c < 3; c++)
        vel[4 * i + c] += acc[4 * i + c] * (0.5 * DT), pos[4 * i + c] += vel[4 * i + c] * DT;
    toy_law(pos, acc);
    for (int i = 0; i < N; i++)
      for (int c = 0; c < 3; c++)
        vel[4 * i + c] += acc[4 * i + c] * (0.5 * DT);
  }
  memset(diag, 0, 8 * sizeof(double));
  for (int i = 0; i < N; i++) {
    const double *x = pos + 4 * i, *v = vel + 4 * i, m = x[3];
    diag[0] += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), diag[1] += 0.5 * m * acc[4 * i + 3];
    for (int c = 0; c < 3; c++)
      diag[2 + c] += m * v[c], diag[5 + c] += m * x[c];
  }
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1); }

/* The driver's state for one rank of the CPU backend (as gs_nbody_main makes it). */
static void driver(struct gs_nbody_job *job, struct gs_run *run, struct gs_nbody_opts *o) {
  struct gs_msg msg;
  *o = (struct gs_nbody_opts){0}; /* no snapshots, checkpoints or wall-clock budget: nothing written */
  gs_nbody_options_defaults(o);
  o->steps = STEPS, o->dt = DT, o->energy_every = 4, o->progress = GS_PROGRESS_OFF, o->precision = 1;
  *job = (struct gs_nbody_job){.run = run,
                               .o = o,
                               .be = run->be,
                               .ctx = run->ctx,
                               .prec = 1,
                               .esz = 32,
                               .n = N,
                               .G = 1.0,
                               .t_start = MPI_Wtime(),
                               .solver = &toy};
  GS_EXPECT(gs_exchange_open(&job->xchg, run, MPI_COMM_WORLD, GS_EXCHANGE_HOST, &msg) == GS_OK);
  GS_EXPECT(job->solver->check(job, &msg) == GS_OK);
  gs_nbody_setup_decompose(job);
  gs_report_init(&job->rep, run);
  gs_nbody_setup_alloc(job);
}

int main(int argc, char **argv) {
  gs_mpi_init(&argc, &argv, MPI_THREAD_FUNNELED); /* MPI_Init's own allocations are not counted */
  struct gs_run run = {.size = 1, .where = {.rank = 0, .gpu = -1, .host = "test"}, .be = gs_backend_find("cpu")};
  struct gs_device_info info;
  run.ctx = run.be->open(&run.where, -1, &info);
  const struct gs_nbody_solver *direct = gs_nbody_solver_find(GS_NBODY_DIRECT);
  const struct gs_nbody_solver *tree = gs_nbody_solver_find(GS_NBODY_TREE);
  GS_EXPECT(direct && strcmp(direct->name, "direct") == 0 && direct->id == GS_NBODY_DIRECT);
  GS_EXPECT(tree && strcmp(tree->name, "tree") == 0 && tree->id == GS_NBODY_TREE && !gs_nbody_solver_find(toy.id));
  GS_EXPECT(!direct->rank_exact && tree->rank_exact); /* the restart line's claim on another rank count */
  struct gs_nbody_opts o;
  struct gs_nbody_job job;
  driver(&job, &run, &o);
  struct gs_bodies b = {0};
  GS_EXPECT(gs_ic_alloc(&b, N) == 0);
  gs_ic_plummer(&b, 3);
  job.state = toy.open(&job);
  toy.load(job.state, &(struct gs_nbody_origin){.b = &b});
  toy.report_first(job.state);
  toy.forces(job.state, 1, 1, NULL);
  struct gs_diag d0 = gs_nbody_energy_measure(&job, 0);
  job.e0 = d0.energy, job.p0_set = 1, memcpy(job.p0, d0.p, sizeof job.p0);
  struct gs_step_times times[STEPS];
  GS_EXPECT(gs_nbody_step_run(&job, times) == STEPS);
  struct toy *t = job.state;
  GS_EXPECT(t->evals == STEPS + 1 && t->id[t->cur][0] != N - 1); /* it moved: not the load's order */
  double pos[4 * N], vel[4 * N], ref[8];
  reference(&b, pos, vel, ref);
  /* Diagnostics over the held (moved) bodies, both the held forces' potential and a fresh one. */
  for (int fresh = 0; fresh < 2; fresh++) {
    struct gs_diag d = gs_nbody_energy_measure(&job, fresh);
    GS_EXPECT(close_to(d.kinetic, ref[0]) && close_to(d.potential, ref[1]));
    for (int c = 0; c < 3; c++)
      GS_EXPECT(close_to(d.p[c], ref[2 + c]) && close_to(d.com[c], ref[5 + c]));
  }
  /* The gather: rank 0 gets every body in id order, padded to whole tiles. */
  void *gp, *gv, *ga;
  toy.keep(job.state);
  gs_nbody_io_gather(&job, &gp, &gv, &ga);
  for (int i = 0; i < 4 * N; i++)
    GS_EXPECT(close_to(((double *)gp)[i], pos[i]) && close_to(((double *)gv)[i], vel[i]));
  GS_EXPECT(job.npad > N && ((double *)gp)[4 * N + 3] == 0); /* padding: no mass */
  /* Undo after a step's moves: the gather gives back the same bits. */
  toy.forces(job.state, 0, 0, &times[0]);
  toy.undo(job.state);
  void *up, *uv, *ua;
  gs_nbody_io_gather(&job, &up, &uv, &ua);
  GS_EXPECT(memcmp(up, gp, job.npad * job.esz) == 0 && memcmp(uv, gv, job.npad * job.esz) == 0);
  toy.report_final(job.state, STEPS);
  GS_EXPECT(t->reports == 2);
  free(gp), free(gv), free(ga), free(up), free(uv), free(ua);
  toy.close(job.state);
  gs_ic_free(&b);
  gs_nbody_setup_free(&job);
  run.be->close(run.ctx);
  gs_mpi_finalize();
  GS_TEST_DONE();
}
