/* gpusim matmul's distribution (gs_matmul_grid.h): the most square process grid (1D for primes),
 * block ranges that cover every index exactly once with sizes within one (ragged sides, more
 * parts than things), owners that agree with the ranges, and SUMMA panels that tile K without
 * gap or overlap, never cross an owner's boundary of A's or B's K split, and stay within --panel
 * (the first one, on 2D grids, within a quarter of it).
 * No MPI: the module only computes. */
#include "gs_matmul_grid.h"
#include "gs_test.h"

static void gs_test_shape(int P, int rows, int cols) {
  int r, c;
  gs_matmul_grid_shape(P, &r, &c);
  GS_EXPECT(r == rows && c == cols);
  if (r != rows || c != cols) fprintf(stderr, "P=%d: %d x %d, want %d x %d\n", P, r, c, rows, cols);
}

/* n split into parts: contiguous, complete, sizes within one, the larger ones first, owners right. */
static void gs_test_range(uint64_t n, int parts) {
  uint64_t next = 0, lo = UINT64_MAX, hi = 0, prev = UINT64_MAX;
  for (int i = 0; i < parts; i++) {
    uint64_t first, count;
    gs_matmul_grid_range(n, parts, i, &first, &count);
    GS_EXPECT(first == next);
    GS_EXPECT(count <= prev); /* non-increasing: the extra ones go to the first parts */
    for (uint64_t x = first; x < first + count; x += count > 64 ? count / 7 + 1 : 1)
      GS_EXPECT(gs_matmul_grid_owner(n, parts, x) == i);
    if (count) GS_EXPECT(gs_matmul_grid_owner(n, parts, first + count - 1) == i);
    next = first + count, prev = count;
    lo = count < lo ? count : lo, hi = count > hi ? count : hi;
  }
  GS_EXPECT(next == n && hi - lo <= 1);
}

/* The panels of K on a rows x cols grid: tile K, each within one A part and one B part. */
static void gs_test_panels(uint64_t K, int rows, int cols, uint64_t panel) {
  uint64_t k0 = 0, count = 0;
  while (k0 < K) {
    struct gs_matmul_grid_panel p = gs_matmul_grid_panel(K, rows, cols, panel, k0);
    GS_EXPECT(p.k0 == k0 && p.width >= 1 && p.width <= panel && k0 + p.width <= K);
    /* 2D: the first panel narrow (the ranks off the diagonal wait for it) */
    if (k0 == 0 && rows > 1 && cols > 1 && panel >= GS_MATMUL_GRID_FIRST_DIV)
      GS_EXPECT(p.width <= panel / GS_MATMUL_GRID_FIRST_DIV);
    if (p.width == 0) return;
    GS_EXPECT(gs_matmul_grid_owner(K, cols, k0) == p.a_col && gs_matmul_grid_owner(K, cols, k0 + p.width - 1) == p.a_col);
    GS_EXPECT(gs_matmul_grid_owner(K, rows, k0) == p.b_row && gs_matmul_grid_owner(K, rows, k0 + p.width - 1) == p.b_row);
    k0 += p.width, count++;
  }
  GS_EXPECT(k0 == K && count == gs_matmul_grid_panels(K, rows, cols, panel));
  /* Fewest panels: at most ceil(K / panel) plus one per part boundary. */
  GS_EXPECT(count <= (K + panel - 1) / panel + (uint64_t)rows + (uint64_t)cols);
}

int main(void) {
  gs_test_shape(1, 1, 1);
  gs_test_shape(2, 1, 2);
  gs_test_shape(3, 1, 3);
  gs_test_shape(4, 2, 2);
  gs_test_shape(6, 2, 3);
  gs_test_shape(7, 1, 7);
  gs_test_shape(8, 2, 4);
  gs_test_shape(12, 3, 4);
  gs_test_shape(16, 4, 4);
  gs_test_shape(1024, 32, 32);
  gs_test_shape(1009, 1, 1009);
  const uint64_t sizes[] = {1, 2, 3, 5, 64, 65, 97, 129, 1000, 4097, (uint64_t)1 << 31, ((uint64_t)1 << 31) - 1};
  const int parts[] = {1, 2, 3, 4, 6, 7, 64, 1000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) gs_test_range(sizes[s], parts[p]);
  const int grids[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 2}, {2, 3}, {3, 4}, {1, 7}};
  const uint64_t ks[] = {1, 2, 5, 65, 129, 1000, 4099};
  const uint64_t panels[] = {1, 16, 64, 512, 100000};
  for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++)
      for (size_t w = 0; w < sizeof panels / sizeof panels[0]; w++)
        if (ks[k] / panels[w] < 5000) gs_test_panels(ks[k], grids[g][0], grids[g][1], panels[w]);
  /* A large K: 2^31 - 1 on a 2 x 3 grid in panels of 2^20. */
  gs_test_panels(((uint64_t)1 << 31) - 1, 2, 3, (uint64_t)1 << 20);
  GS_TEST_DONE();
}
