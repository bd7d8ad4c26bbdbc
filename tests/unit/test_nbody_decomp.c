/* The N-body decomposition in whole tiles, past 2^31 bodies: every body in exactly one slice,
 * slices in rank order, sizes within one tile, the padding under one tile at the end, and no
 * value truncated to int on the way. No MPI: the module only computes the split. */
#include <limits.h>
#include <string.h>

#include "gs_nbody_decomp.h"
#include "gs_test.h"

#define T ((uint64_t)GS_NBODY_TILE)

/* Check one split against every property the driver relies on. */
static void gs_test_split(uint64_t n, int P) {
  struct gs_nbody_decomp d;
  struct gs_msg msg = {{0}};
  int rc = gs_nbody_decomp_make(&d, n, P, &msg);
  GS_EXPECT(rc == GS_OK);
  if (rc != GS_OK) {
    fprintf(stderr, "n=%llu P=%d: %s\n", (unsigned long long)n, P, msg.text);
    return;
  }
  GS_EXPECT(d.n == n && d.ranks == P);
  GS_EXPECT(d.npad >= n && d.npad - n < T && d.npad % T == 0);
  uint64_t next = 0, lo = UINT64_MAX, hi = 0;
  for (int r = 0; r < P; r++) {
    uint64_t first = gs_nbody_decomp_first(&d, r), count = gs_nbody_decomp_count(&d, r);
    GS_EXPECT(first == next); /* contiguous in rank order: each body in exactly one slice */
    GS_EXPECT(first == (uint64_t)d.tile0[r] * T && count == (uint64_t)d.tiles[r] * T);
    GS_EXPECT(d.tiles[r] >= 0 && d.tile0[r] >= 0);
    next = first + count;
    lo = count < lo ? count : lo;
    hi = count > hi ? count : hi;
  }
  GS_EXPECT(next == d.npad);  /* the slices cover the bodies and the padding, nothing more */
  GS_EXPECT(hi - lo <= T);    /* sizes differ by at most one tile */
  /* The same split as gpusim nbody always made: the first tiles % P ranks get one more. */
  uint64_t tiles = d.npad / T;
  for (int r = 0; r < P; r++) GS_EXPECT((uint64_t)d.tiles[r] == tiles / P + ((uint64_t)r < tiles % P));
  gs_nbody_decomp_free(&d);
  GS_EXPECT(d.tiles == NULL && d.tile0 == NULL);
}

/* 2^31 + 5 bodies: the last slice ends, and the single-rank slice's count is, beyond INT_MAX;
 * at 5 * 2^31 + 5 bodies the later slices also start beyond it (an int there would wrap). */
static void gs_test_large(void) {
  uint64_t n = (1ull << 31) + 5, big = 5 * (1ull << 31) + 5;
  int ranks[] = {1, 3, 8};
  for (int i = 0; i < 3; i++) gs_test_split(n, ranks[i]), gs_test_split(big, ranks[i]);
  struct gs_nbody_decomp d;
  struct gs_msg msg;
  GS_EXPECT(gs_nbody_decomp_make(&d, n, 3, &msg) == GS_OK);
  GS_EXPECT(d.npad == (1ull << 31) + T); /* 16777217 tiles: 5592406, 5592406, 5592405 */
  GS_EXPECT(gs_nbody_decomp_count(&d, 0) == 5592406 * T && gs_nbody_decomp_first(&d, 1) == 5592406 * T);
  GS_EXPECT(gs_nbody_decomp_first(&d, 2) == 2 * 5592406 * T && gs_nbody_decomp_count(&d, 2) == 5592405 * T);
  GS_EXPECT(gs_nbody_decomp_first(&d, 2) + gs_nbody_decomp_count(&d, 2) > (uint64_t)INT_MAX);
  gs_nbody_decomp_free(&d);
  GS_EXPECT(gs_nbody_decomp_make(&d, n, 1, &msg) == GS_OK);
  GS_EXPECT(gs_nbody_decomp_count(&d, 0) == d.npad && d.npad > (uint64_t)INT_MAX);
  gs_nbody_decomp_free(&d);
  GS_EXPECT(gs_nbody_decomp_make(&d, big, 3, &msg) == GS_OK);
  GS_EXPECT(gs_nbody_decomp_first(&d, 1) == 27962027 * T && gs_nbody_decomp_first(&d, 1) > (uint64_t)INT_MAX);
  GS_EXPECT(gs_nbody_decomp_first(&d, 2) == 2 * 27962027 * T && gs_nbody_decomp_count(&d, 2) == 27962027 * T);
  gs_nbody_decomp_free(&d);
  GS_EXPECT(gs_nbody_decomp_make(&d, big, 8, &msg) == GS_OK);
  GS_EXPECT(gs_nbody_decomp_first(&d, 7) > (uint64_t)INT_MAX && gs_nbody_decomp_count(&d, 7) == 10485760 * T);
  GS_EXPECT(gs_nbody_decomp_first(&d, 7) + gs_nbody_decomp_count(&d, 7) == d.npad);
  gs_nbody_decomp_free(&d);
}

/* Small cases: one body, one whole tile, more ranks than tiles (some ranks get none). */
static void gs_test_small(void) {
  gs_test_split(1, 1);
  gs_test_split(1, 4);
  gs_test_split(T, 1);
  gs_test_split(T, 2);
  gs_test_split(T + 1, 2);
  gs_test_split(5 * T - 3, 8);
  gs_test_split(1000, 3);
  struct gs_nbody_decomp d;
  struct gs_msg msg;
  GS_EXPECT(gs_nbody_decomp_make(&d, 3 * T, 5, &msg) == GS_OK);
  GS_EXPECT(d.tiles[0] == 1 && d.tiles[2] == 1 && d.tiles[3] == 0 && d.tiles[4] == 0);
  GS_EXPECT(gs_nbody_decomp_first(&d, 4) == 3 * T && gs_nbody_decomp_count(&d, 4) == 0);
  gs_nbody_decomp_free(&d);
  /* The bodies of each slice: the last one's padding cut off, past the last body empty. */
  uint64_t lo, hi;
  GS_EXPECT(gs_nbody_decomp_make(&d, 2 * T + 5, 4, &msg) == GS_OK);
  gs_nbody_decomp_bodies(&d, 1, 2 * T + 5, &lo, &hi);
  GS_EXPECT(lo == T && hi == 2 * T);
  gs_nbody_decomp_bodies(&d, 2, 2 * T + 5, &lo, &hi);
  GS_EXPECT(lo == 2 * T && hi == 2 * T + 5);
  gs_nbody_decomp_bodies(&d, 3, 2 * T + 5, &lo, &hi);
  GS_EXPECT(lo == 2 * T + 5 && hi == 2 * T + 5);
  gs_nbody_decomp_free(&d);
  GS_EXPECT(gs_nbody_decomp_make(&d, 1, 1, &msg) == GS_OK && d.npad == T && d.tiles[0] == 1);
  gs_nbody_decomp_free(&d);
}

/* Refusals: no bodies, and more tiles than MPI's int counts and displacements can hold. */
static void gs_test_refuse(void) {
  struct gs_nbody_decomp d;
  struct gs_msg msg = {{0}};
  GS_EXPECT(gs_nbody_decomp_make(&d, 0, 2, &msg) == GS_USAGE && strstr(msg.text, "no bodies"));
  GS_EXPECT(gs_nbody_decomp_make(&d, 10, 0, &msg) == GS_USAGE && strstr(msg.text, "0 ranks"));
  GS_EXPECT(d.tiles == NULL && d.tile0 == NULL);
  gs_nbody_decomp_free(&d); /* harmless after a refusal */
  uint64_t most = (uint64_t)INT_MAX * T; /* INT_MAX whole tiles: the largest that fits */
  GS_EXPECT(gs_nbody_decomp_make(&d, most, 4, &msg) == GS_OK && d.tile0[3] + d.tiles[3] == INT_MAX);
  gs_nbody_decomp_free(&d);
  msg.text[0] = '\0';
  GS_EXPECT(gs_nbody_decomp_make(&d, most + 1, 4, &msg) == GS_USAGE);
  GS_EXPECT(strstr(msg.text, "274877906817 bodies: more than the 274877906816") != NULL);
  GS_EXPECT(strstr(msg.text, "MPI's int counts") != NULL);
  GS_EXPECT(gs_nbody_decomp_make(&d, UINT64_MAX, 4, &msg) == GS_USAGE);
}

int main(void) {
  gs_test_small();
  gs_test_large();
  gs_test_refuse();
  GS_TEST_DONE();
}
