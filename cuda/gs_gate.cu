/* gs_gate.cu: a gate a stream can be stopped at. A one-thread kernel spins on a flag in mapped
 * host memory until the host opens it, so everything queued behind it (start event, kernels,
 * stop event) is already submitted when it runs: the events then time the device, not the host's
 * launch overhead (nvbench's "blocking kernel" method). A two-second limit keeps a forgotten
 * gate from hanging the GPU; when it strikes, the kernel says so in *expired, because the region
 * behind the gate then started before the host had queued all of it. */
#include "gs_cuda.h"

static __global__ void gs_gate_spin(const volatile int *flag, volatile int *expired)
{
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    if (*flag) return;
    __nanosleep(200);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < 2000000000ull);
  *expired = 1;
  __threadfence_system(); /* push the write out to host memory now, not when the kernel ends */
}

extern "C" int gs_gate_launch(const volatile int *d_flag, volatile int *d_expired, void *stream)
{
  if (!d_flag || !d_expired) return (int)cudaErrorInvalidValue;
  gs_gate_spin<<<1, 1, 0, (cudaStream_t)stream>>>(d_flag, d_expired);
  return (int)cudaGetLastError();
}
