/* gs_nbody_integrate.cu: the leapfrog pieces of gs_cuda.h, gs_nbody_integrate_kick (v += a dt)
 * and gs_nbody_integrate_drift (x += v dt, the mass in pos.w kept), in both precisions. Both
 * stream three 16-byte (single) or 32-byte (double) vectors per body and do one FMA per
 * component: pure bandwidth, so a grid-stride loop over a grid sized to fill every SM once (the SM
 * count from the launch context), 16- or 32-byte accesses, and nothing else. Vector types:
 * gs_nbody_internal.cuh. */
#include <cmath>

#include "gs_cuda.h"
#include "gs_nbody_internal.cuh"

/* Threads per block, and resident threads per SM the grid is sized for (full occupancy on sm_80
 * and sm_90: these kernels need few registers). */
#define GS_NB_INT_BLOCK 256
#define GS_NB_INT_THREADS_PER_SM 2048

/* x.xyz += y.xyz * dt, x.w written back unchanged (one vector store, not three): a kick is
 * (x, y) = (velocity, acceleration), a drift (position with its mass in w, velocity). */
template <typename T>
static __global__ void __launch_bounds__(GS_NB_INT_BLOCK)
gs_nb_axpy3_kernel(gs_nb_vec_t<T> *__restrict__ x, const gs_nb_vec_t<T> *__restrict__ y, uint64_t count, T dt)
{
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
    gs_nb_vec_t<T> v = x[k];
    const gs_nb_vec_t<T> d = y[k];
    v.x += d.x * dt;
    v.y += d.y * dt;
    v.z += d.z * dt;
    x[k] = v;
  }
}

/* Checks, then the grid: one block per GS_NB_INT_BLOCK bodies, at most as many blocks as c's
 * device holds at once (the loop strides over the rest). */
static cudaError_t gs_nb_int_grid(const struct gs_cuda_ctx *c, int precision, const void *out, const void *in,
                                  uint64_t count, double dt, unsigned *grid)
{
  if (!c) return cudaErrorInvalidValue;
  if (precision != 0 && precision != 1) return cudaErrorInvalidValue;
  if (!std::isfinite(dt)) return cudaErrorInvalidValue;
  if (count == 0) { *grid = 0; return cudaSuccess; }
  if (!out || !in || ((uintptr_t)out & 15u) || ((uintptr_t)in & 15u)) return cudaErrorInvalidValue;
  const int sms = c->sm_count;
  const uint64_t cap = (uint64_t)(sms > 0 ? sms : 1) * (GS_NB_INT_THREADS_PER_SM / GS_NB_INT_BLOCK);
  const uint64_t want = (count + GS_NB_INT_BLOCK - 1) / GS_NB_INT_BLOCK;
  *grid = (unsigned)(want < cap ? want : cap);
  return cudaSuccess;
}

/* Checks, grid, and the launch in either precision. */
static int gs_nb_axpy3(const struct gs_cuda_ctx *c, int precision, void *x, const void *y, uint64_t count, double dt,
                       void *stream)
{
  unsigned grid = 0;
  const cudaError_t e = gs_nb_int_grid(c, precision, x, y, count, dt, &grid);
  if (e != cudaSuccess || grid == 0) return (int)e;
  const cudaStream_t st = (cudaStream_t)stream;
  if (precision == 0)
    gs_nb_axpy3_kernel<float><<<grid, GS_NB_INT_BLOCK, 0, st>>>((float4 *)x, (const float4 *)y, count, (float)dt);
  else
    gs_nb_axpy3_kernel<double><<<grid, GS_NB_INT_BLOCK, 0, st>>>((gs_nb_double4 *)x, (const gs_nb_double4 *)y,
                                                                 count, dt);
  return (int)cudaGetLastError();
}

extern "C" int gs_nbody_integrate_kick(struct gs_cuda_ctx *c, int precision, void *vel, const void *acc,
                                       uint64_t count, double dt, void *stream)
{
  return gs_nb_axpy3(c, precision, vel, acc, count, dt, stream);
}

extern "C" int gs_nbody_integrate_drift(struct gs_cuda_ctx *c, int precision, void *pos, const void *vel,
                                        uint64_t count, double dt, void *stream)
{
  return gs_nb_axpy3(c, precision, pos, vel, count, dt, stream);
}
