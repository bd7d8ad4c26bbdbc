/* The Hilbert index (gs_hilbert.c) on small grids, every point: a bijection onto [0, 8^bits), the
 * curve starts at the origin and ends at a corner one edge of the cube away, consecutive indices
 * are face-adjacent points (one coordinate differs by one), and it nests: a point's index read to
 * its top 3 L bits is its cube's index on the 2^L grid, so every cube of every level is one run
 * of consecutive indices (the property the domain cut relies on). At 21 bits, sampled points: the
 * same nesting, and face neighbours' indices in the same finest cube pair are the cube's run. */
#include <stdlib.h>
#include <string.h>

#include "gs_hilbert.h"
#include "gs_test.h"

/* Every point of the 2^bits grid. */
static void gs_test_grid(int bits) {
  uint32_t side = (uint32_t)1 << bits;
  uint64_t n = (uint64_t)side * side * side;
  uint32_t *at = malloc(sizeof *at * 3 * n);
  char *seen = calloc(n, 1);
  if (!at || !seen) exit(99);
  int bad_range = 0, bad_twice = 0, bad_nest = 0;
  for (uint32_t x = 0; x < side; x++)
    for (uint32_t y = 0; y < side; y++)
      for (uint32_t z = 0; z < side; z++) {
        uint32_t g[3] = {x, y, z};
        uint64_t h = gs_hilbert_index(g, bits);
        if (h >= n) {
          bad_range++;
          continue;
        }
        bad_twice += seen[h]++ != 0;
        memcpy(at + 3 * h, g, sizeof g);
        for (int L = 1; L < bits; L++) {
          uint32_t c[3] = {x >> (bits - L), y >> (bits - L), z >> (bits - L)};
          bad_nest += h >> (3 * (bits - L)) != gs_hilbert_index(c, L);
        }
      }
  GS_EXPECT(bad_range == 0 && bad_twice == 0); /* n distinct indices below n: a bijection */
  GS_EXPECT(bad_nest == 0);
  int bad_step = 0;
  for (uint64_t h = 0; h + 1 < n && !bad_range; h++) {
    int dist = 0;
    for (int c = 0; c < 3; c++)
      dist += abs((int)at[3 * (h + 1) + c] - (int)at[3 * h + c]);
    bad_step += dist != 1;
  }
  GS_EXPECT(bad_step == 0);
  if (bad_range + bad_twice + bad_nest + bad_step)
    fprintf(stderr, "bits %d: %d out of range, %d twice, %d not nested, %d steps not to a face neighbour\n", bits,
            bad_range, bad_twice, bad_nest, bad_step);
  GS_EXPECT(at[0] == 0 && at[1] == 0 && at[2] == 0); /* starts at the origin */
  int ends = 0;                                      /* ends at a corner one edge away */
  for (int c = 0; c < 3; c++)
    ends += at[3 * (n - 1) + c] == side - 1 ? 1 : at[3 * (n - 1) + c] == 0 ? 0 : 9;
  GS_EXPECT(ends == 1);
  free(at), free(seen);
}

/* 21 bits (the tree's key grid): sampled points' indices nest into every coarser level, and a
 * point's face neighbour inside its level-20 cube has an index in that cube's run of 8. */
static void gs_test_fine(void) {
  uint64_t s = 88172645463325252ull; /* xorshift64 */
  int bad = 0;
  for (int k = 0; k < 20000; k++) {
    uint32_t g[3];
    for (int c = 0; c < 3; c++) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      g[c] = (uint32_t)(s & ((1u << GS_HILBERT_MAX_BITS) - 1));
    }
    uint64_t h = gs_hilbert_index(g, GS_HILBERT_MAX_BITS);
    bad += h >> 63 != 0;
    for (int L = 1; L < GS_HILBERT_MAX_BITS; L++) {
      uint32_t c[3] = {g[0] >> (GS_HILBERT_MAX_BITS - L), g[1] >> (GS_HILBERT_MAX_BITS - L),
                       g[2] >> (GS_HILBERT_MAX_BITS - L)};
      bad += h >> (3 * (GS_HILBERT_MAX_BITS - L)) != gs_hilbert_index(c, L);
    }
    uint32_t f[3] = {g[0] ^ 1, g[1], g[2]};
    bad += gs_hilbert_index(f, GS_HILBERT_MAX_BITS) >> 3 != h >> 3 || gs_hilbert_index(f, GS_HILBERT_MAX_BITS) == h;
  }
  GS_EXPECT(bad == 0);
  if (bad) fprintf(stderr, "21 bits: %d sampled checks failed\n", bad);
}

int main(void) {
  for (int bits = 1; bits <= 5; bits++)
    gs_test_grid(bits);
  gs_test_fine();
  GS_TEST_DONE();
}
