/* gs_gpu_copy.h: the C GPU tests' copies of host double arrays to and from the device in a
 * precision (float4 or double4 vectors as the launchers take them). Include after
 * cuda_runtime.h and gs_gpu_skip.h (for CK). */
#ifndef GS_GPU_COPY_H
#define GS_GPU_COPY_H

#include <stdint.h>
#include <stdlib.h>

/* A device copy of h (n4 doubles) in precision prec (1 double, 0 float), with 64 bytes of slack
 * and room for one vector when n4 is 0; CK ends the test on a runtime error. */
static void *to_dev(const double *h, uint64_t n4, int prec)
{
  void *d = NULL;
  const size_t es = prec ? 8 : 4;
  CK(cudaMalloc(&d, (n4 ? n4 : 4) * es + 64));
  if (prec) {
    CK(cudaMemcpy(d, h, n4 * es, cudaMemcpyHostToDevice));
  } else {
    float *f = malloc((n4 ? n4 : 1) * es);
    if (!f) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (uint64_t k = 0; k < n4; ++k) f[k] = (float)h[k];
    CK(cudaMemcpy(d, f, n4 * es, cudaMemcpyHostToDevice));
    free(f);
  }
  return d;
}

/* n4 values of d (precision prec) into h as doubles. */
static void from_dev(double *h, const void *d, uint64_t n4, int prec)
{
  if (prec) {
    CK(cudaMemcpy(h, d, n4 * 8, cudaMemcpyDeviceToHost));
  } else {
    float *f = malloc((n4 ? n4 : 1) * 4);
    if (!f) { fprintf(stderr, "out of memory\n"); exit(1); }
    CK(cudaMemcpy(f, d, n4 * 4, cudaMemcpyDeviceToHost));
    for (uint64_t k = 0; k < n4; ++k) h[k] = f[k];
    free(f);
  }
}

#endif
