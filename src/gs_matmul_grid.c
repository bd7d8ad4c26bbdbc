/* gs_matmul_grid.c: the process grid, block ranges and SUMMA panels (see the header). */
#include "gs_matmul_grid.h"

void gs_matmul_grid_shape(int P, int *rows, int *cols) {
  int r = 1;
  for (int d = 1; (int64_t)d * d <= P; d++)
    if (P % d == 0) r = d;
  *rows = r;
  *cols = P / r;
}

void gs_matmul_grid_range(uint64_t n, int parts, int i, uint64_t *first, uint64_t *count) {
  uint64_t base = n / (uint64_t)parts, extra = n % (uint64_t)parts, ui = (uint64_t)i;
  *count = base + (ui < extra);
  *first = ui * base + (ui < extra ? ui : extra);
}

int gs_matmul_grid_owner(uint64_t n, int parts, uint64_t x) {
  uint64_t base = n / (uint64_t)parts, extra = n % (uint64_t)parts;
  /* The first `extra` parts hold base + 1 each, the rest base. */
  if (x < extra * (base + 1)) return (int)(x / (base + 1));
  return (int)(extra + (x - extra * (base + 1)) / base);
}

/* The end of the part of n (split into parts) that holds x. */
static uint64_t gs_matmul_grid_part_end(uint64_t n, int parts, uint64_t x) {
  uint64_t first, count;
  gs_matmul_grid_range(n, parts, gs_matmul_grid_owner(n, parts, x), &first, &count);
  return first + count;
}

struct gs_matmul_grid_panel gs_matmul_grid_panel(uint64_t K, int rows, int cols, uint64_t panel, uint64_t k0) {
  struct gs_matmul_grid_panel p = {.k0 = k0};
  if (k0 == 0 && rows > 1 && cols > 1 && panel >= GS_MATMUL_GRID_FIRST_DIV) panel /= GS_MATMUL_GRID_FIRST_DIV;
  uint64_t end = k0 + panel < K ? k0 + panel : K;
  uint64_t a_end = gs_matmul_grid_part_end(K, cols, k0), b_end = gs_matmul_grid_part_end(K, rows, k0);
  if (a_end < end) end = a_end;
  if (b_end < end) end = b_end;
  p.width = end - k0;
  p.a_col = gs_matmul_grid_owner(K, cols, k0);
  p.b_row = gs_matmul_grid_owner(K, rows, k0);
  return p;
}

uint64_t gs_matmul_grid_panels(uint64_t K, int rows, int cols, uint64_t panel) {
  uint64_t count = 0;
  for (uint64_t k0 = 0; k0 < K; count++) k0 += gs_matmul_grid_panel(K, rows, cols, panel, k0).width;
  return count;
}
