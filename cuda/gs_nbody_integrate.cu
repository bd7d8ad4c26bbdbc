/* gs_nbody_integrate.cu: the leapfrog pieces of gs_cuda.h, gs_cuda_nbody_kick (v += a dt) and
 * gs_cuda_nbody_drift (x += v dt, the mass in pos.w kept), in both precisions. Both stream three
 * 16-byte (single) or 32-byte (double) vectors per body and do one FMA per component: pure
 * bandwidth, so a grid-stride loop over a grid sized to fill every SM once, 16- or 32-byte
 * accesses, and nothing else. Vector types: gs_nbody_internal.cuh. */
#include <cmath>

#include "gs_cuda.h"
#include "gs_nbody_internal.cuh"

/* Threads per block, and resident threads per SM the grid is sized for (full occupancy on sm_80
 * and sm_90: these kernels need few registers). */
#define GS_NB_INT_BLOCK 256
#define GS_NB_INT_THREADS_PER_SM 2048

/* v.xyz += a.xyz * dt, v.w left as it was. */
template <typename T>
__global__ void __launch_bounds__(GS_NB_INT_BLOCK)
gs_nb_kick_kernel(gs_nb_vec_t<T> *__restrict__ vel, const gs_nb_vec_t<T> *__restrict__ acc, uint64_t count, T dt)
{
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
    gs_nb_vec_t<T> v = vel[k];
    const gs_nb_vec_t<T> a = acc[k];
    v.x += a.x * dt;
    v.y += a.y * dt;
    v.z += a.z * dt;
    vel[k] = v;
  }
}

/* x.xyz += v.xyz * dt; the mass x.w is written back unchanged (one vector store, not three). */
template <typename T>
__global__ void __launch_bounds__(GS_NB_INT_BLOCK)
gs_nb_drift_kernel(gs_nb_vec_t<T> *__restrict__ pos, const gs_nb_vec_t<T> *__restrict__ vel, uint64_t count, T dt)
{
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
    gs_nb_vec_t<T> p = pos[k];
    const gs_nb_vec_t<T> v = vel[k];
    p.x += v.x * dt;
    p.y += v.y * dt;
    p.z += v.z * dt;
    pos[k] = p;
  }
}

/* Checks shared by both launchers, then the grid: one block per GS_NB_INT_BLOCK bodies, at most
 * as many blocks as the device holds at once (the loop strides over the rest). */
static cudaError_t gs_nb_int_grid(int precision, const void *out, const void *in, uint64_t count, double dt,
                                  unsigned *grid)
{
  if (precision != 0 && precision != 1) return cudaErrorInvalidValue;
  if (!std::isfinite(dt)) return cudaErrorInvalidValue;
  if (count == 0) { *grid = 0; return cudaSuccess; }
  if (!out || !in || ((uintptr_t)out & 15u) || ((uintptr_t)in & 15u)) return cudaErrorInvalidValue;
  int dev = 0, sms = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e != cudaSuccess) return e;
  const uint64_t cap = (uint64_t)(sms > 0 ? sms : 1) * (GS_NB_INT_THREADS_PER_SM / GS_NB_INT_BLOCK);
  const uint64_t want = (count + GS_NB_INT_BLOCK - 1) / GS_NB_INT_BLOCK;
  *grid = (unsigned)(want < cap ? want : cap);
  return cudaSuccess;
}

extern "C" int gs_cuda_nbody_kick(int precision, void *vel, const void *acc, uint64_t count, double dt, void *stream)
{
  unsigned grid = 0;
  const cudaError_t e = gs_nb_int_grid(precision, vel, acc, count, dt, &grid);
  if (e != cudaSuccess || grid == 0) return (int)e;
  const cudaStream_t st = (cudaStream_t)stream;
  if (precision == 0)
    gs_nb_kick_kernel<float><<<grid, GS_NB_INT_BLOCK, 0, st>>>((float4 *)vel, (const float4 *)acc, count, (float)dt);
  else
    gs_nb_kick_kernel<double><<<grid, GS_NB_INT_BLOCK, 0, st>>>((gs_nb_double4 *)vel, (const gs_nb_double4 *)acc,
                                                                count, dt);
  return (int)cudaGetLastError();
}

extern "C" int gs_cuda_nbody_drift(int precision, void *pos, const void *vel, uint64_t count, double dt, void *stream)
{
  unsigned grid = 0;
  const cudaError_t e = gs_nb_int_grid(precision, pos, vel, count, dt, &grid);
  if (e != cudaSuccess || grid == 0) return (int)e;
  const cudaStream_t st = (cudaStream_t)stream;
  if (precision == 0)
    gs_nb_drift_kernel<float><<<grid, GS_NB_INT_BLOCK, 0, st>>>((float4 *)pos, (const float4 *)vel, count, (float)dt);
  else
    gs_nb_drift_kernel<double><<<grid, GS_NB_INT_BLOCK, 0, st>>>((gs_nb_double4 *)pos, (const gs_nb_double4 *)vel,
                                                                 count, dt);
  return (int)cudaGetLastError();
}
