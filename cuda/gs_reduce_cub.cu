/* gs_reduce_cub.cu: the CUB baseline, kernel id GS_RK_CUB (10): cub::DeviceReduce from the CCCL
 * that ships with the CUDA toolkit. Owns gs_reduce_cub_run (gs_reduce_cub.h) and nothing else; the
 * dispatcher in gs_reduce_kernels.cu hands it the workspace past the header.
 *
 * Every element is converted to the accumulator type before it is combined (int -> long long,
 * float -> double), with the same ops and identities as our kernels, so the comparison is like
 * for like: an int32 sum must not overflow and a float sum must accumulate in double. CUB's
 * DeviceReduce is run-to-run deterministic (a fixed grid, partials combined in order, no
 * atomics). The item count is 64-bit, so n may exceed 2^31.
 *
 * Supported CUDA: 12.0 and later (CUB 2.0 onwards; configure compiles these calls). Only what
 * exists from CUB 2.0 to CCCL 3.x is used: our own op functor, the combine of our kernels
 * (cuda::minimum and cuda::maximum are CCCL 2.8, CUDA 12.9), and DeviceReduce::TransformReduce
 * where it exists (CUB 2.4, CUDA 12.5); before that, the dispatcher that DeviceReduce::Reduce
 * itself calls, with a converting input iterator and 64-bit offsets (CUB 2.0's Reduce takes an
 * int count; 2.0 to 2.3 have the same DispatchReduce<In, Out, Offset, Op, Init>::Dispatch). */
#include <cub/cub.cuh>

#include "gs_reduce_cub.h"
#include "gs_reduce_internal.cuh"

/* The element -> accumulator conversion and the three ops. CUB takes them as functor objects;
 * these are the only structs in our CUDA code, because CUB's interface wants them. They live in
 * an anonymous namespace so that every CUB template instantiated with them (its kernels and
 * dispatch functions) has internal linkage too: this object exports gs_reduce_cub_run and CUB's
 * own type-independent helpers, none of our instantiations. */
namespace {
template <typename T, typename A>
struct gs_rd_cub_to_acc {
  __host__ __device__ __forceinline__ A operator()(T x) const { return (A)x; }
};
template <int OP>
struct gs_rd_cub_op {
  template <typename A> __device__ __forceinline__ A operator()(A a, A b) const { return gs_rd_combine<OP, A>(a, b); }
};
} // namespace

template <typename T, typename A, typename Op>
static cudaError_t gs_rd_cub_run(const void *d_in, uint64_t n, void *d_temp, size_t *temp_bytes,
                                 void *d_out, cudaStream_t st, Op op, A init)
{
#if CUB_VERSION >= 200400
  return cub::DeviceReduce::TransformReduce(d_temp, *temp_bytes, (const T *)d_in, (A *)d_out,
                                            (int64_t)n, op, gs_rd_cub_to_acc<T, A>(), init, st);
#else
  typedef cub::TransformInputIterator<A, gs_rd_cub_to_acc<T, A>, const T *> It;
  return cub::DispatchReduce<It, A *, long long, Op, A>::Dispatch(
      d_temp, *temp_bytes, It((const T *)d_in, gs_rd_cub_to_acc<T, A>()), (A *)d_out, (long long)n, op,
      init, st);
#endif
}

template <typename T, typename A>
static cudaError_t gs_rd_cub_typed(int op, const void *d_in, uint64_t n, void *d_temp,
                                   size_t *temp_bytes, void *d_out, cudaStream_t st)
{
  switch (op) {
  case GS_OP_SUM:
    return gs_rd_cub_run<T, A>(d_in, n, d_temp, temp_bytes, d_out, st, gs_rd_cub_op<GS_OP_SUM>(),
                               gs_rd_identity<GS_OP_SUM, A>());
  case GS_OP_MIN:
    return gs_rd_cub_run<T, A>(d_in, n, d_temp, temp_bytes, d_out, st, gs_rd_cub_op<GS_OP_MIN>(),
                               gs_rd_identity<GS_OP_MIN, A>());
  default:
    return gs_rd_cub_run<T, A>(d_in, n, d_temp, temp_bytes, d_out, st, gs_rd_cub_op<GS_OP_MAX>(),
                               gs_rd_identity<GS_OP_MAX, A>());
  }
}

extern "C" int gs_reduce_cub_run(int dtype, int op, const void *d_in, uint64_t n, void *d_temp, size_t *temp_bytes,
                                 void *d_out, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t e;
  if (!temp_bytes || n == 0) return (int)cudaErrorInvalidValue;
  switch (dtype) {
  case GS_DTYPE_INT32: e = gs_rd_cub_typed<int, long long>(op, d_in, n, d_temp, temp_bytes, d_out, st); break;
  case GS_DTYPE_FLOAT: e = gs_rd_cub_typed<float, double>(op, d_in, n, d_temp, temp_bytes, d_out, st); break;
  case GS_DTYPE_DOUBLE: e = gs_rd_cub_typed<double, double>(op, d_in, n, d_temp, temp_bytes, d_out, st); break;
  default: return (int)cudaErrorInvalidValue;
  }
  /* CUB checks its launches with cudaPeekAtLastError, which leaves a launch error set; read and
   * clear it here, as our own launchers do with cudaGetLastError. */
  if (d_temp) {
    const cudaError_t last = cudaGetLastError();
    if (e == cudaSuccess) e = last;
  }
  return (int)e;
}
