/* gs_backend_cpu_fmm_walk.c: the CPU backend's dual walk (falcON, Dehnen 2002), mutual and
 * deterministic on any number of threads.
 * The walk: a cell meets itself by its children meeting themselves and each other; two cells A,
 * B with r_A + r_B < theta |z_A - z_B| interact through their expansions (one M2L for both);
 * else two leaves, or two cells of few bodies, are summed directly (each pair once for both
 * bodies); else the larger of the two (by r) is split and its children meet the other.
 * Threads: the top of the tree and its frontier (gs_backend_cpu_fmm.h: disjoint subtrees). One
 * thread walks the top first, doing what it meets there and setting aside each pair whose cells
 * both lie below the top; those pairs, grouped by their two frontier cells, are the tasks. Each
 * task touches only its two subtrees, so the tasks are put in rounds (a greedy colouring, in the
 * order of their frontier cells) of tasks that share no subtree; the rounds run one after the
 * other, each round's tasks on any threads. What a cell or a body receives thus comes in one
 * order, the rounds', decided by the tree alone: the same bits on 1 thread or 64, on every rank.
 * The interactions made are those of the plain serial walk (the top's decisions are its
 * decisions); only the order of their sums differs with the top's size, which depends on n. */
#include "gs_backend_cpu_fmm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GS_CPU_FMM_DIRECT 1024    /* n_A n_B at or below which a pair that cannot interact is summed directly */

/* A pair set aside by the top's walk: cells a, b (a == b: a cell with itself), their frontier
 * cells' numbers, its place in the walk. */
struct gs_cpu_fmm_walk_pair {
  uint64_t a, b, seq;
  uint32_t fa, fb; /* fa <= fb */
};

struct gs_fmm_walk {
  struct gs_cpu_fmm_walk_pair *pairs; /* the tasks' pairs, in task order once grouped */
  uint64_t npairs, pcap;
  uint64_t *task_at;              /* task k: pairs [task_at[k], task_at[k + 1]) */
  uint32_t *task_round;
  uint64_t *order, *round_at;     /* the tasks by round; round r: order[round_at[r] .. round_at[r + 1]) */
  uint64_t tcap;
  uint64_t *deg, *used;           /* the colouring's tasks per frontier cell and rounds taken (bits) */
  uint64_t dcap, ucap;            /* ... kept from step to step: no allocation once they fit */
};

/* One thread's walk: the tree, the settings and its counters. */
struct gs_fmm_walker {
  struct gs_fmm_cpu *t;
  double theta2, eps2, G;
  uint64_t m2l, p2p, direct;
};

/* Bodies [i0, i1) and [j0, j1) on each other (disjoint ranges), each pair once. */
static void gs_cpu_fmm_walk_direct(struct gs_fmm_walker *w, uint64_t i0, uint64_t i1, uint64_t j0, uint64_t j1) {
  struct gs_fmm_cpu *t = w->t;
  const double *x = t->x, *y = t->y, *z = t->z, *m = t->m, G = w->G, eps2 = w->eps2;
  double *ax = t->ax, *ay = t->ay, *az = t->az, *phi = t->phi;
  for (uint64_t i = i0; i < i1; i++) {
    const double xi = x[i], yi = y[i], zi = z[i], gmi = G * m[i];
    double sx = 0, sy = 0, sz = 0, sp = 0;
#pragma omp simd reduction(+ : sx, sy, sz, sp)
    for (uint64_t j = j0; j < j1; j++) {
      const double dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi, r2 = dx * dx + dy * dy + dz * dz + eps2;
      const double inv = 1 / sqrt(r2), inv3 = inv * inv * inv, gmj = G * m[j];
      sx += dx * gmj * inv3, sy += dy * gmj * inv3, sz += dz * gmj * inv3, sp -= gmj * inv;
      ax[j] -= dx * gmi * inv3, ay[j] -= dy * gmi * inv3, az[j] -= dz * gmi * inv3, phi[j] -= gmi * inv;
    }
    ax[i] += sx, ay[i] += sy, az[i] += sz, phi[i] += sp;
  }
  w->p2p += (i1 - i0) * (j1 - j0);
}

/* A cell's bodies on each other, each pair once. */
static void gs_cpu_fmm_walk_direct_self(struct gs_fmm_walker *w, const struct gs_dtree_node *nd) {
  uint64_t end = nd->first + nd->count;
  for (uint64_t i = nd->first; i + 1 < end; i++)
    gs_cpu_fmm_walk_direct(w, i, i + 1, i + 1, end);
}

/* May cells a and b interact through their expansions? R = z_a - z_b. */
static int gs_cpu_fmm_walk_apart(const struct gs_fmm_walker *w, uint64_t a, uint64_t b, double R[3]) {
  const struct gs_fmm_cpu *t = w->t;
  double d2 = 0, s = t->radius[a] + t->radius[b];
  for (int d = 0; d < 3; d++)
    R[d] = t->centre[3 * a + d] - t->centre[3 * b + d], d2 += R[d] * R[d];
  return s * s < w->theta2 * d2;
}

static void gs_cpu_fmm_walk_m2l(struct gs_fmm_walker *w, uint64_t a, uint64_t b, const double R[3]) {
  struct gs_fmm_cpu *t = w->t;
  const int nc = t->ex.nc;
  gs_backend_cpu_fmm_expand_m2l(&t->ex, R, w->eps2, t->M + a * nc, t->M + b * nc, t->T + a * nc, t->T + b * nc);
  w->m2l++;
}

/* What the walk does with a pair of distinct cells: 0 interact (done), 1 summed directly (done),
 * 2 split a, 3 split b. */
static int gs_cpu_fmm_walk_decide(struct gs_fmm_walker *w, uint64_t a, uint64_t b) {
  const struct gs_fmm_cpu *t = w->t;
  const struct gs_dtree_node *na = &t->node[a], *nb = &t->node[b];
  double R[3];
  if (gs_cpu_fmm_walk_apart(w, a, b, R)) return gs_cpu_fmm_walk_m2l(w, a, b, R), 0;
  if ((!na->nchild && !nb->nchild) || na->count * nb->count <= w->direct) {
    gs_cpu_fmm_walk_direct(w, na->first, na->first + na->count, nb->first, nb->first + nb->count);
    return 1;
  }
  return na->nchild && (!nb->nchild || t->radius[a] >= t->radius[b]) ? 2 : 3;
}

/* The top's walk sets aside each pair of cells both below the top (a task's part). */
static void gs_cpu_fmm_walk_defer(struct gs_fmm_cpu *t, uint64_t a, uint64_t b) {
  struct gs_fmm_walk *k = t->walk;
  if (k->npairs == k->pcap) {
    k->pcap = k->pcap ? 2 * k->pcap : 4096;
    gs_backend_cpu_fmm_grow(t, &k->pairs, k->pcap, sizeof *k->pairs);
  }
  uint32_t fa = (uint32_t)t->front[a], fb = (uint32_t)t->front[b];
  struct gs_cpu_fmm_walk_pair p = {a, b, k->npairs, fa < fb ? fa : fb, fa < fb ? fb : fa};
  k->pairs[k->npairs++] = p;
}

/* Distinct cells a and b; top: the top's walk (one thread), which sets aside a pair of cells both
 * below the top instead of walking it. */
static void gs_cpu_fmm_walk_pair(struct gs_fmm_walker *w, uint64_t a, uint64_t b, int top) {
  if (top && w->t->front[a] >= 0 && w->t->front[b] >= 0) {
    gs_cpu_fmm_walk_defer(w->t, a, b);
    return;
  }
  int what = gs_cpu_fmm_walk_decide(w, a, b);
  if (what < 2) return;
  const struct gs_dtree_node *nd = &w->t->node[what == 2 ? a : b];
  for (uint32_t c = 0; c < nd->nchild; c++)
    what == 2 ? gs_cpu_fmm_walk_pair(w, nd->child + c, b, top) : gs_cpu_fmm_walk_pair(w, a, nd->child + c, top);
}

/* Cell a with itself; top as for gs_cpu_fmm_walk_pair. */
static void gs_cpu_fmm_walk_self(struct gs_fmm_walker *w, uint64_t a, int top) {
  const struct gs_dtree_node *nd = &w->t->node[a];
  if (top && w->t->front[a] >= 0) {
    gs_cpu_fmm_walk_defer(w->t, a, a);
    return;
  }
  if (!nd->nchild) {
    gs_cpu_fmm_walk_direct_self(w, nd);
    return;
  }
  for (uint32_t i = 0; i < nd->nchild; i++) {
    gs_cpu_fmm_walk_self(w, nd->child + i, top);
    for (uint32_t j = i + 1; j < nd->nchild; j++)
      gs_cpu_fmm_walk_pair(w, nd->child + i, nd->child + j, top);
  }
}

static int gs_cpu_fmm_walk_cmp(const void *x, const void *y) {
  const struct gs_cpu_fmm_walk_pair *p = x, *q = y;
  if (p->fa != q->fa) return p->fa < q->fa ? -1 : 1;
  if (p->fb != q->fb) return p->fb < q->fb ? -1 : 1;
  return (p->seq > q->seq) - (p->seq < q->seq);
}

/* The tasks (pairs grouped by their frontier cells) and their rounds; returns the rounds. */
static uint32_t gs_cpu_fmm_walk_rounds(struct gs_fmm_cpu *t, uint32_t nf, uint64_t *ntask) {
  struct gs_fmm_walk *k = t->walk;
  qsort(k->pairs, k->npairs, sizeof *k->pairs, gs_cpu_fmm_walk_cmp);
  uint64_t n = 0;
  for (uint64_t i = 0; i < k->npairs; i++)
    n += i == 0 || k->pairs[i].fa != k->pairs[i - 1].fa || k->pairs[i].fb != k->pairs[i - 1].fb;
  if (n + 1 > k->tcap) {
    k->tcap = n + 1;
    gs_backend_cpu_fmm_grow(t, &k->task_at, k->tcap, sizeof *k->task_at);
    gs_backend_cpu_fmm_grow(t, &k->order, k->tcap, sizeof *k->order);
    gs_backend_cpu_fmm_grow(t, &k->task_round, k->tcap, sizeof *k->task_round);
    gs_backend_cpu_fmm_grow(t, &k->round_at, k->tcap + 1, sizeof *k->round_at);
  }
  if (nf + 1 > k->dcap) k->dcap = nf + 1, gs_backend_cpu_fmm_grow(t, &k->deg, k->dcap, sizeof *k->deg);
  uint64_t *deg = k->deg, maxdeg = 0;
  memset(deg, 0, sizeof *deg * ((size_t)nf + 1));
  for (uint64_t i = 0, m = 0; i < k->npairs; i++)
    if (i == 0 || k->pairs[i].fa != k->pairs[i - 1].fa || k->pairs[i].fb != k->pairs[i - 1].fb) {
      k->task_at[m++] = i;
      deg[k->pairs[i].fa]++;
      if (k->pairs[i].fb != k->pairs[i].fa) deg[k->pairs[i].fb]++;
    }
  k->task_at[n] = k->npairs;
  for (uint32_t f = 0; f < nf; f++)
    maxdeg = deg[f] > maxdeg ? deg[f] : maxdeg;
  /* a greedy colouring needs at most 2 maxdeg - 1 rounds: that many bits per frontier cell */
  uint64_t words = (2 * maxdeg) / 64 + 1, nused = (uint64_t)nf * words + 1;
  if (nused > k->ucap) k->ucap = nused, gs_backend_cpu_fmm_grow(t, &k->used, k->ucap, sizeof *k->used);
  uint64_t *used = k->used;
  memset(used, 0, sizeof *used * nused);
  uint32_t rounds = 0;
  for (uint64_t m = 0; m < n; m++) {
    const struct gs_cpu_fmm_walk_pair *p = &k->pairs[k->task_at[m]];
    uint64_t *ua = used + (uint64_t)p->fa * words, *ub = used + (uint64_t)p->fb * words, r = 0;
    for (uint64_t wd = 0; wd < words; wd++) {
      uint64_t busy = ua[wd] | ub[wd];
      if (busy != UINT64_MAX) {
        r = 64 * wd + (uint64_t)__builtin_ctzll(~busy);
        break;
      }
    }
    ua[r / 64] |= 1ULL << (r % 64), ub[r / 64] |= 1ULL << (r % 64);
    k->task_round[m] = (uint32_t)r;
    rounds = (uint32_t)r + 1 > rounds ? (uint32_t)r + 1 : rounds;
  }
  /* the tasks by round (a counting sort: each round's in the frontier cells' order) */
  memset(k->round_at, 0, sizeof *k->round_at * ((size_t)rounds + 1));
  for (uint64_t m = 0; m < n; m++)
    k->round_at[k->task_round[m] + 1]++;
  for (uint32_t r = 0; r < rounds; r++)
    k->round_at[r + 1] += k->round_at[r];
  for (uint64_t m = 0; m < n; m++)
    k->order[k->round_at[k->task_round[m]]++] = m;
  for (uint32_t r = rounds; r > 0; r--)
    k->round_at[r] = k->round_at[r - 1];
  k->round_at[0] = 0;
  *ntask = n;
  return rounds;
}

void gs_backend_cpu_fmm_walk_run(struct gs_fmm_cpu *t, const struct gs_fmm_args *a) {
  if (!t->walk && !(t->walk = calloc(1, sizeof *t->walk))) GS_DIE(t->where, "calloc", "out of memory");
  struct gs_fmm_walk *k = t->walk;
  struct gs_fmm_walker w0 = {.t = t, .theta2 = a->theta * a->theta, .eps2 = a->eps2, .G = a->G, .direct = GS_CPU_FMM_DIRECT};
  k->npairs = 0;
  uint32_t nf = (uint32_t)t->nroots, rounds = 0;
  uint64_t ntask = 0;
  if (t->nodes) gs_cpu_fmm_walk_self(&w0, 0, 1);
  if (k->npairs) rounds = gs_cpu_fmm_walk_rounds(t, nf, &ntask);
  uint64_t m2l = w0.m2l, p2p = w0.p2p;
  /* The rounds one after the other, a round's tasks on any threads (they share no cell), so each
   * cell sees its tasks in the rounds' order. (OpenMP tasks with dependences on the frontier
   * cells would spare the waits at each round's end, but LeakSanitizer finds blocks that GCC 12's
   * libgomp allocated for them lost, which fails the sanitized build.) */
#pragma omp parallel reduction(+ : m2l, p2p)
  {
    struct gs_fmm_walker w = {.t = t, .theta2 = w0.theta2, .eps2 = w0.eps2, .G = w0.G, .direct = w0.direct};
    for (uint32_t r = 0; r < rounds; r++) {
#pragma omp for schedule(dynamic, 1)
      for (uint64_t i = k->round_at[r]; i < k->round_at[r + 1]; i++) {
        if (a->stop && a->stop()) continue; /* abandoned: one task's work bounds the wait */
        uint64_t m = k->order[i];
        for (uint64_t j = k->task_at[m]; j < k->task_at[m + 1]; j++) {
          const struct gs_cpu_fmm_walk_pair *p = &k->pairs[j];
          if (p->a == p->b) gs_cpu_fmm_walk_self(&w, p->a, 0);
          else gs_cpu_fmm_walk_pair(&w, p->a, p->b, 0);
        }
      }
    }
    m2l += w.m2l, p2p += w.p2p;
  }
  if (a->counts)
    a->counts[GS_FMM_M2L] = m2l, a->counts[GS_FMM_P2P] = p2p, a->counts[GS_FMM_TASKS] = ntask,
    a->counts[GS_FMM_ROUNDS] = rounds;
}

void gs_backend_cpu_fmm_walk_free(struct gs_fmm_cpu *t) {
  struct gs_fmm_walk *k = t->walk;
  if (!k) return;
  free(k->pairs), free(k->task_at), free(k->task_round), free(k->order), free(k->round_at);
  free(k->deg), free(k->used);
  free(k);
  t->walk = NULL;
}
