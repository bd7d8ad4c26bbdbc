/* gs_reduce_cub.h: internal to cuda/ (not part of the public C interface in gs_cuda.h). The CUB
 * baseline, kernel id GS_RK_CUB, called by the dispatcher in gs_reduce_kernels.cu. Plain C types
 * only, C linkage, so the header needs no CUDA or CUB headers. */
#ifndef GS_REDUCE_CUB_H
#define GS_REDUCE_CUB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceReduce over n >= 1 elements of d_in (type dtype, a gs_dtype) with op (a gs_op) into
 * one union gs_acc at d_out, the elements converted to the accumulator type first (int64 for
 * int32, double for float and double), so that CUB does the same job as kernels 1..9.
 * CUB's own convention: with d_temp == NULL it only stores the temp bytes it needs in *temp_bytes
 * and launches nothing; otherwise *temp_bytes is what d_temp holds, and too little gives
 * cudaErrorInvalidValue. Asynchronous on stream (a cudaStream_t). Returns a cudaError_t. */
int gs_reduce_cub_run(int dtype, int op, const void *d_in, uint64_t n, void *d_temp, size_t *temp_bytes, void *d_out,
                      void *stream);

#ifdef __cplusplus
}
#endif

#endif
