/* gs_nbody_diag.cu: per-body diagnostic terms (kinetic and potential energy, momentum, mass
 * moment) as eight double arrays, which the driver sums with the reduction kernels (gs_cuda.h's
 * gs_nbody_diag_terms). The grid is fixed (at most 4096 blocks of 256): it needs no launch facts. */
#include "gs_nbody_internal.cuh"

template <typename T4>
static __global__ void gs_nb_terms_kernel(const T4 *pos, const T4 *vel, const T4 *acc, uint64_t count, double *t)
{
  for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < count; k += (uint64_t)gridDim.x * blockDim.x) {
    const T4 p = pos[k], v = vel[k];
    const double m = p.w, vx = v.x, vy = v.y, vz = v.z;
    t[k] = 0.5 * m * (vx * vx + vy * vy + vz * vz);
    t[count + k] = 0.5 * m * (double)acc[k].w;
    t[2 * count + k] = m * vx;
    t[3 * count + k] = m * vy;
    t[4 * count + k] = m * vz;
    t[5 * count + k] = m * (double)p.x;
    t[6 * count + k] = m * (double)p.y;
    t[7 * count + k] = m * (double)p.z;
  }
}

extern "C" int gs_nbody_diag_terms(struct gs_cuda_ctx *c, int precision, const void *pos, const void *vel,
                                   const void *acc, uint64_t count, double *terms, void *stream)
{
  (void)c;
  if (count == 0) return 0;
  const unsigned block = 256;
  const unsigned grid = (unsigned)((count + block - 1) / block < 4096 ? (count + block - 1) / block : 4096);
  cudaStream_t st = (cudaStream_t)stream;
  if (precision)
    gs_nb_terms_kernel<<<grid, block, 0, st>>>((const gs_nb_double4 *)pos, (const gs_nb_double4 *)vel,
                                               (const gs_nb_double4 *)acc, count, terms);
  else
    gs_nb_terms_kernel<<<grid, block, 0, st>>>((const float4 *)pos, (const float4 *)vel, (const float4 *)acc,
                                               count, terms);
  return (int)cudaGetLastError();
}
