/* gs_matmul_ref.h: `gpusim matmul`'s inputs and their exact answers. Every element of A, B and of
 * Freivalds' vectors is a function of its global indices (counter-based, as in gs_reduce_ref.c),
 * so any rank makes any element and no rank ever holds the whole matrices; the result does not
 * depend on the rank count. Inputs:
 *   seed:   a[i][k] = 2k + i, b[k][j] = j - k (the seed's matrices; integers);
 *   random: multiples of 2^-10 in [-1, 1], from a hash of (seed, matrix, index): 11 significant
 *           bits at most, so they are exact in float and in TF32 too. */
#ifndef GS_MATMUL_REF_H
#define GS_MATMUL_REF_H

#include <stdint.h>

#include "gs_types.h"

struct gs_matmul_ref {
  int ic;             /* enum gs_matmul_ic */
  uint64_t seed;
  uint64_t m, n, k;   /* C (m x n) = A (m x k) * B (k x n) */
};

/* Elements of A, B, and of Freivalds' vector v (|x_j| in [1/2, 1], random sign). */
double gs_matmul_ref_a(const struct gs_matmul_ref *r, uint64_t i, uint64_t k);
double gs_matmul_ref_b(const struct gs_matmul_ref *r, uint64_t k, uint64_t j);
double gs_matmul_ref_x(const struct gs_matmul_ref *r, int v, uint64_t j);

/* Rows [i0, i0 + rows) x columns [c0, c0 + cols) of A (which = 'a') or B ('b') into dst, row-major
 * with leading dimension ld, as float or double. */
void gs_matmul_ref_fill(const struct gs_matmul_ref *r, char which, enum gs_dtype t, void *dst, uint64_t i0,
                        uint64_t rows, uint64_t c0, uint64_t cols, uint64_t ld);

/* --ic seed: C[i][j] = sum_k (2k + i)(j - k) exactly, and sum_k |2k + i| |j - k|, both as
 * integers rounded once to double (exact below 2^53). */
void gs_matmul_ref_seed(uint64_t K, uint64_t i, uint64_t j, double *c, double *abs_sum);

/* --ic random: C[i][j] and sum_k |a_ik| |b_kj| by a double dot product over k. */
void gs_matmul_ref_dot(const struct gs_matmul_ref *r, uint64_t i, uint64_t j, double *c, double *abs_sum);

#endif
