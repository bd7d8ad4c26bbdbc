/* gs_backend_cpu_dbody.c: the CPU backend's primitives over the bodies one rank holds under the
 * distributed tree (struct gs_dtree_ops, gs_backend_cpu_dtree.c's table): the box, the keys and
 * the (key, id) sort, the searches of the cells' first keys, the work per cell and its rescaling,
 * and the rows that carry a body to another rank. Host memory is this backend's device memory,
 * so every one is a plain loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend_cpu_dtree.h"

void gs_backend_cpu_dbody_box(gs_ctx *c, void *t, int precision, const struct gs_dtree_bodies *b, double m[6]) {
  (void)c, (void)t;
  for (int k = 0; k < 6; k++)
    m[k] = INFINITY;
  for (uint64_t i = 0; i < b->n; i++) {
    double q[4];
    gs_backend_cpu_dtree_get(precision, b->pos, i, q);
    for (int k = 0; k < 3; k++) {
      if (q[k] < m[k]) m[k] = q[k];
      if (-q[k] < m[3 + k]) m[3 + k] = -q[k];
    }
  }
}

/* The key of x: 21 bits per axis from the cube, interleaved a digit (x | y << 1 | z << 2, the CPU
 * tree's octant order) per level from the top. Every rank computes it with the same doubles (and
 * the CUDA backend's keys are these bits too: cuda/gs_tree_dbody.cu). */
static uint64_t gs_cpu_dbody_key(const struct gs_dtree_cube *cube, const double x[3]) {
  const double cells = (double)(1u << GS_DTREE_BITS);
  uint64_t g[3], k = 0;
  for (int c = 0; c < 3; c++) {
    double f = cube->edge > 0 ? (x[c] - cube->lo[c]) / cube->edge * cells : 0;
    g[c] = !(f > 0) ? 0 : f >= cells - 1 ? (uint64_t)cells - 1 : (uint64_t)f;
  }
  for (int b = GS_DTREE_BITS - 1; b >= 0; b--)
    k = k << 3 | ((g[0] >> b) & 1) | ((g[1] >> b) & 1) << 1 | ((g[2] >> b) & 1) << 2;
  return k;
}

struct gs_cpu_dbody_order {
  uint64_t key, id, at;
};

static int gs_cpu_dbody_cmp(const void *x, const void *y) {
  const struct gs_cpu_dbody_order *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* v (n rows of `row` bytes) into the order o, through tmp. */
static void gs_cpu_dbody_permute(void *v, size_t row, const struct gs_cpu_dbody_order *o, uint64_t n, char *tmp) {
  for (uint64_t i = 0; i < n; i++)
    memcpy(tmp + i * row, (const char *)v + o[i].at * row, row);
  memcpy(v, tmp, n * row);
}

void gs_backend_cpu_dbody_sort(gs_ctx *c, void *t, int precision, const struct gs_dtree_cube *cube,
                               struct gs_dtree_bodies *b) {
  (void)t;
  size_t vb = precision ? 32 : 16;
  struct gs_cpu_dbody_order *o = malloc(sizeof *o * (b->n ? b->n : 1));
  char *tmp = malloc(vb * (b->n ? b->n : 1));
  if (!o || !tmp) GS_DIE(&c->where, "malloc", "out of memory");
  for (uint64_t i = 0; i < b->n; i++) {
    double q[4];
    gs_backend_cpu_dtree_get(precision, b->pos, i, q);
    o[i].key = gs_cpu_dbody_key(cube, q), o[i].id = b->id[i], o[i].at = i;
  }
  qsort(o, b->n, sizeof *o, gs_cpu_dbody_cmp);
  void *vec[3] = {b->pos, b->vel, b->acc};
  for (int k = 0; k < 3; k++)
    gs_cpu_dbody_permute(vec[k], vb, o, b->n, tmp);
  gs_cpu_dbody_permute(b->work, sizeof *b->work, o, b->n, tmp);
  for (uint64_t i = 0; i < b->n; i++)
    b->key[i] = o[i].key, b->id[i] = o[i].id;
  free(o), free(tmp);
}

void gs_backend_cpu_dbody_lower(gs_ctx *c, void *t, const struct gs_dtree_bodies *b, const uint64_t *want,
                                uint64_t *got, int m) {
  (void)c, (void)t;
  for (int k = 0; k < m; k++) {
    uint64_t lo = 0, hi = b->n;
    while (lo < hi) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (b->key[mid] < want[k])
        lo = mid + 1;
      else
        hi = mid;
    }
    got[k] = lo;
  }
}

void gs_backend_cpu_dbody_sums(gs_ctx *c, void *t, const struct gs_dtree_bodies *b, const uint64_t *at, int nc,
                               double *w) {
  (void)c, (void)t;
  for (int k = 0; k < nc; k++) {
    w[k] = 0;
    for (uint64_t i = at[k]; i < at[k + 1]; i++)
      w[k] += b->work[i];
  }
}

void gs_backend_cpu_dbody_spread(gs_ctx *c, void *t, struct gs_dtree_bodies *b, double seconds) {
  (void)c, (void)t;
  double total = 0;
  for (uint64_t i = 0; i < b->n; i++)
    total += b->work[i];
  for (uint64_t i = 0; i < b->n && total > 0; i++)
    b->work[i] *= seconds / total;
}

void gs_backend_cpu_dbody_pack(gs_ctx *c, void *t, int precision, const struct gs_dtree_bodies *b,
                               const struct gs_dtree_run *runs, int nrun, void *buf) {
  (void)c, (void)t;
  size_t esz = precision ? 32 : 16, row = GS_DTREE_ROW(esz);
  for (int r = 0; r < nrun; r++)
    for (uint64_t j = 0; j < runs[r].count; j++) {
      uint64_t i = runs[r].from + j;
      char *o = (char *)buf + (runs[r].to + j) * row;
      memcpy(o, (const char *)b->pos + i * esz, esz), memcpy(o + esz, (const char *)b->vel + i * esz, esz);
      memcpy(o + 2 * esz, (const char *)b->acc + i * esz, esz);
      memcpy(o + 3 * esz, &b->id[i], 8), memcpy(o + 3 * esz + 8, &b->work[i], 8);
    }
}

void gs_backend_cpu_dbody_unpack(gs_ctx *c, void *t, int precision, const void *buf, uint64_t n,
                                 struct gs_dtree_bodies *b, uint64_t at) {
  (void)c, (void)t;
  size_t esz = precision ? 32 : 16, row = GS_DTREE_ROW(esz);
  for (uint64_t j = 0; j < n; j++) {
    uint64_t i = at + j;
    const char *o = (const char *)buf + j * row;
    memcpy((char *)b->pos + i * esz, o, esz), memcpy((char *)b->vel + i * esz, o + esz, esz);
    memcpy((char *)b->acc + i * esz, o + 2 * esz, esz);
    memcpy(&b->id[i], o + 3 * esz, 8), memcpy(&b->work[i], o + 3 * esz + 8, 8);
  }
}
