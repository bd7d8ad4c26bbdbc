/* gs_nbody_internal.cuh: shared by the N-body sources in cuda/ (CUDA C++ only, never included
 * from C). Owns what the force kernels (gs_nbody_kernels.cu), the integrators
 * (gs_nbody_integrate.cu) and the diagnostics (gs_nbody_diag.cu) have in common; the tree's
 * files take the vector types and the reciprocal square root from it (gs_tree_internal.cuh):
 *   - the body vector type of each precision (float4, or gs_nb_double4: four doubles);
 *   - the reciprocal square roots the ladder steps use, in both precisions;
 *   - the last step of every force kernel: scale by G, negate the potential, store or add.
 * Layout of a body: (x, y, z, m); of a result: (ax, ay, az, potential). */
#ifndef GS_NBODY_INTERNAL_CUH
#define GS_NBODY_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <cuda/std/type_traits>

#include "gs_cuda.h"

/* Four doubles with the 16-byte alignment the host's double4 buffers have. CUDA 13 deprecates
 * double4 (in favour of double4_16a / _32a, which older toolkits lack); this struct has the same
 * layout in every toolkit, and the compiler moves it as two 16-byte loads or stores. */
struct __align__(16) gs_nb_double4 {
  double x, y, z, w;
};

/* Body / result vector of scalar type T. */
template <typename T>
using gs_nb_vec_t = cuda::std::conditional_t<sizeof(T) == 8, gs_nb_double4, float4>;

template <typename T>
__device__ __forceinline__ gs_nb_vec_t<T> gs_nb_make(T x, T y, T z, T w)
{
  gs_nb_vec_t<T> v;
  v.x = x; v.y = y; v.z = z; v.w = w;
  return v;
}

/* The seed's square roots, kernels 1..6: IEEE sqrt (kernel 1 divides by it), and rsqrtf / the
 * library rsqrt. Without -ftz=true, rsqrtf compiles to MUFU.RSQ wrapped in a denormal fix-up
 * (FSETP and two predicated FMULs); the double rsqrt to MUFU.RSQ64H, one cubic correction (5 DP
 * operations) and a range test that branches to a slow path, which splits the unrolled loop into
 * basic blocks the scheduler cannot interleave. */
__device__ __forceinline__ float gs_nb_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double gs_nb_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float gs_nb_rsqrt(float x) { return rsqrtf(x); }
__device__ __forceinline__ double gs_nb_rsqrt(double x) { return rsqrt(x); }

/* Kernels 7 and 8 (beyond the seed, which ends with -ftz=true): one instruction in single
 * precision, MUFU.RSQ flushing denormals (an argument is r^2 + eps^2 >= eps^2, or a cutoff pair's
 * r^2 >= cut2: never denormal in practice). In double: MUFU.RSQ64H, an estimate from the high
 * word (relative error about 2^-20), then the same cubic correction as the library's rsqrt,
 * y' = y + y e (1/2 + 3/8 e) with e = 1 - x y^2, which leaves about 2^-60 plus rounding: full
 * double precision, 5 DP operations and no branch. Valid for positive normal finite x; x = 0
 * gives NaN, which the cutoff select discards. */
__device__ __forceinline__ float gs_nb_rsqrt_lean(float x)
{
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ double gs_nb_rsqrt_lean(double x)
{
  double y;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  const double e = fma(-x, y * y, 1.0);
  return fma(fma(e, 0.375, 0.5), y * e, y);
}

/* The final step of every force kernel for result k: the sums times G, the potential negated
 * (sum m_j / r -> -G sum m_j / r), then stored or added to acc[k]. Without POT, w stays as it was
 * (accumulate) or becomes 0 (overwrite). */
template <typename T, bool POT>
__device__ __forceinline__ void gs_nb_store(gs_nb_vec_t<T> *acc, uint64_t k, T ax, T ay, T az,
                                            T phi, T G, int accumulate)
{
  gs_nb_vec_t<T> r = gs_nb_make<T>(G * ax, G * ay, G * az, POT ? -G * phi : T(0));
  if (accumulate) {
    const gs_nb_vec_t<T> o = acc[k];
    r.x += o.x; r.y += o.y; r.z += o.z; r.w += o.w;
  }
  acc[k] = r;
}

/* Is target i one of the sources [j_first, j_first + j_count)? Kernels without the i != j test
 * count the self term in the potential (m_i / eps) and take it out when this holds. */
__device__ __forceinline__ bool gs_nb_is_source(uint64_t i, uint64_t j_first, uint64_t j_count)
{
  return i >= j_first && i - j_first < j_count;
}

#endif
