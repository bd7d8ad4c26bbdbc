/* gs_nbody_decomp.c: slices of whole tiles, sizes differing by at most one tile (the first
 * tiles % ranks ranks get one more), the padding at the end: the split gpusim nbody has always
 * used, now counted in tiles so that no int holds a body index. */
#include "gs_nbody_decomp.h"

#include <limits.h>
#include <stdlib.h>

int gs_nbody_decomp_make(struct gs_nbody_decomp *d, uint64_t n, int ranks, struct gs_msg *msg) {
  *d = (struct gs_nbody_decomp){.n = n, .ranks = ranks};
  if (n == 0) return gs_error_msg(msg, "no bodies: the body count must be at least 1");
  if (ranks < 1) return gs_error_msg(msg, "%d ranks: the bodies need at least one rank", ranks);
  uint64_t tiles = n / GS_NBODY_TILE + (n % GS_NBODY_TILE != 0); /* no overflow near UINT64_MAX */
  /* The last rank's displacement plus its count is the tile count: both fit in int then. */
  if (tiles > (uint64_t)INT_MAX)
    return gs_error_msg(msg, "%llu bodies: more than the %llu (%d tiles of %d) that MPI's int counts allow",
                        (unsigned long long)n, (unsigned long long)INT_MAX * GS_NBODY_TILE, INT_MAX,
                        GS_NBODY_TILE);
  d->npad = tiles * GS_NBODY_TILE;
  d->tiles = malloc(sizeof(int) * (size_t)ranks);
  d->tile0 = malloc(sizeof(int) * (size_t)ranks);
  if (!d->tiles || !d->tile0) {
    gs_nbody_decomp_free(d);
    gs_error_msg(msg, "out of memory for the decomposition of %llu bodies over %d ranks", (unsigned long long)n,
                 ranks);
    return GS_FAILED;
  }
  uint64_t base = tiles / (uint64_t)ranks, extra = tiles % (uint64_t)ranks;
  for (int r = 0; r < ranks; r++) {
    uint64_t ur = (uint64_t)r;
    d->tile0[r] = (int)(ur * base + (ur < extra ? ur : extra));
    d->tiles[r] = (int)(base + (ur < extra));
  }
  return GS_OK;
}

void gs_nbody_decomp_free(struct gs_nbody_decomp *d) {
  free(d->tiles);
  free(d->tile0);
  d->tiles = d->tile0 = NULL;
}

uint64_t gs_nbody_decomp_first(const struct gs_nbody_decomp *d, int r) {
  return (uint64_t)d->tile0[r] * GS_NBODY_TILE;
}

uint64_t gs_nbody_decomp_count(const struct gs_nbody_decomp *d, int r) {
  return (uint64_t)d->tiles[r] * GS_NBODY_TILE;
}

void gs_nbody_decomp_bodies(const struct gs_nbody_decomp *d, int r, uint64_t n, uint64_t *lo, uint64_t *hi) {
  uint64_t first = gs_nbody_decomp_first(d, r), end = first + gs_nbody_decomp_count(d, r);
  *lo = first < n ? first : n, *hi = end < n ? end : n;
}
