/* gs_gate.cu: a gate a stream can be stopped at. A one-thread kernel spins on a flag in mapped
 * host memory until the host opens it, so everything queued behind it (start event, kernels,
 * stop event) is already submitted when it runs: the events then time the device, not the host's
 * launch overhead (nvbench's "blocking kernel" method). A two-second limit keeps a forgotten
 * gate from hanging the GPU. */
#include "gs_cuda.h"

__global__ void gs_gate_spin(const volatile int *flag)
{
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    if (*flag) return;
    __nanosleep(200);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < 2000000000ull);
}

extern "C" int gs_cuda_gate_wait(const volatile int *d_flag, void *stream)
{
  gs_gate_spin<<<1, 1, 0, (cudaStream_t)stream>>>(d_flag);
  return (int)cudaGetLastError();
}
