/* gs_matmul_grid.h: how `gpusim matmul` spreads C = A * B over P ranks. The ranks form a grid of
 * rows x cols processes (--grid, or else the most square factorisation of P, rows <= cols: 1 x P
 * when P is prime), rank r at (r / cols, r % cols). Process (pr, pc) holds block (pr, pc) of C,
 * and A and B are split the same way: C's rows by pr and columns by pc, A's rows by pr and its K
 * columns by pc, B's K rows by pr and its columns by pc. Every split is as even as possible: the first (n mod parts)
 * parts have one more (ragged sides need no padding). SUMMA walks K in panels that never cross
 * a part boundary of A's K split or of B's, so each panel has one owner column (A) and one owner
 * row (B). Pure arithmetic, no MPI. */
#ifndef GS_MATMUL_GRID_H
#define GS_MATMUL_GRID_H

#include <stdint.h>

/* rows x cols = P with rows the largest divisor of P not above sqrt(P). */
void gs_matmul_grid_shape(int P, int *rows, int *cols);

/* Part i of n things split into `parts`: its first index and its count. */
void gs_matmul_grid_range(uint64_t n, int parts, int i, uint64_t *first, uint64_t *count);

/* The part of n things split into `parts` that holds index x (x < n). */
int gs_matmul_grid_owner(uint64_t n, int parts, uint64_t x);

/* The SUMMA panel starting at k0 (< K): its width, at most `panel`, ending at the next part
 * boundary of K split over `rows` (B) or over `cols` (A); and its owners. On a 2D grid the
 * first panel (k0 = 0) is at most panel / GS_MATMUL_GRID_FIRST_DIV wide: a rank off the
 * diagonal holds no panel whole (its A part and B part cover different K), so it starts by
 * waiting for the first broadcast, and a narrow first panel shortens that wait. */
#ifndef GS_MATMUL_GRID_FIRST_DIV
#define GS_MATMUL_GRID_FIRST_DIV 4
#endif
struct gs_matmul_grid_panel {
  uint64_t k0, width;
  int a_col; /* the process column whose A block holds these columns */
  int b_row; /* the process row whose B block holds these rows */
};
struct gs_matmul_grid_panel gs_matmul_grid_panel(uint64_t K, int rows, int cols, uint64_t panel, uint64_t k0);

/* How many panels gs_matmul_grid_panel makes of K. */
uint64_t gs_matmul_grid_panels(uint64_t K, int rows, int cols, uint64_t panel);

#endif
