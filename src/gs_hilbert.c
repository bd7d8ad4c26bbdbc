/* gs_hilbert.c: Skilling's transform of 3D grid coordinates into their Hilbert index. Two passes
 * over the bits, top down: the first undoes, bit by bit, the reflections and axis exchanges the
 * curve makes inside the sub-cube chosen by the higher bits (only lower bits are touched, so the
 * top L bits of the result depend on the top L bits of the input alone: the nesting that lets a
 * cell of any level be ordered by one index); the second Gray-codes the "transposed" index, three
 * words whose bits q, read axis 0 first, are the index's digit q. */
#include "gs_hilbert.h"

uint64_t gs_hilbert_index(const uint32_t g[3], int bits) {
  uint32_t x[3] = {g[0], g[1], g[2]}, top = (uint32_t)1 << (bits - 1), t = 0;
  for (uint32_t q = top; q > 1; q >>= 1) {
    uint32_t low = q - 1;
    for (int i = 0; i < 3; i++) {
      if (x[i] & q) { /* reflect: invert axis 0's lower bits */
        x[0] ^= low;
      } else { /* exchange axis 0's and axis i's lower bits */
        uint32_t s = (x[0] ^ x[i]) & low;
        x[0] ^= s, x[i] ^= s;
      }
    }
  }
  x[1] ^= x[0], x[2] ^= x[1]; /* Gray code of the transposed index */
  for (uint32_t q = top; q > 1; q >>= 1)
    if (x[2] & q) t ^= q - 1;
  uint64_t h = 0;
  for (int b = bits - 1; b >= 0; b--)
    for (int i = 0; i < 3; i++)
      h = h << 1 | (((x[i] ^ t) >> b) & 1);
  return h;
}
