/* gs_gate_launch on a GPU: a gate opened while it waits holds its stream until then and leaves
 * *expired at 0; a gate already open passes at once; a gate nobody opens gives up after about
 * 2 s and sets *expired to 1, so the host can tell that a timed region started early. Exits 77
 * without a GPU (and in a CPU-only build). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include <config.h>
#include "gs_gpu_skip.h"
#ifndef GS_HAVE_CUDA
int main(void) { return gs_gpu_skip("CPU-only build (configured without CUDA)"); }
#else
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime.h>

#include "gs_cuda.h"
#include "gs_gpu_skip.h" /* again, for its CUDA part */

static int g_fail;

static void expect(int ok, const char *what)
{
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) g_fail++;
}

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One gate in mapped host memory: word 0 its flag, word 1 its expired word. */
struct gate {
  volatile int *h; /* host view */
  int *d;          /* device view */
};

/* Close the gate on st with the flag at `flag`, open it `open_after` seconds after the launch
 * (never when negative), wait for the stream. Returns the seconds from launch to drained stream;
 * *held says whether the stream was still waiting just before the gate was opened. */
static double run_gate(struct gate g, cudaStream_t st, int flag, double open_after, int *held)
{
  g.h[0] = flag;
  g.h[1] = 0;
  const double t0 = now();
  CK(gs_gate_launch(&g.d[0], &g.d[1], st));
  *held = -1;
  if (open_after >= 0) {
    const struct timespec nap = {0, 1000000};
    while (now() - t0 < open_after) nanosleep(&nap, NULL);
    *held = cudaStreamQuery(st) == cudaErrorNotReady;
    g.h[0] = 1;
  }
  CK(cudaStreamSynchronize(st));
  return now() - t0;
}

int main(void)
{
  const int skip = gs_gpu_skip_without_device();
  if (skip) return skip;
  CK(cudaSetDevice(0));
  struct gate g;
  CK(cudaHostAlloc((void **)&g.h, 2 * sizeof(int), cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void **)&g.d, (void *)g.h, 0));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  int held = 0;

  double t = run_gate(g, st, 0, 0.3, &held);
  printf("# opened after 0.3 s: stream drained after %.3f s\n", t);
  expect(held == 1, "a closed gate holds its stream until it is opened");
  expect(g.h[1] == 0, "an opened gate leaves expired at 0");
  expect(t < 1.5, "an opened gate lets its stream go on");

  t = run_gate(g, st, 1, -1, &held);
  printf("# already open: %.3f s\n", t);
  expect(g.h[1] == 0 && t < 1.0, "an open gate passes at once, expired 0");

  t = run_gate(g, st, 0, -1, &held);
  printf("# never opened: stream drained after %.3f s\n", t);
  expect(g.h[1] == 1, "a gate nobody opens sets expired to 1");
  expect(t >= 2.0 && t < 6.0, "a gate nobody opens gives up after about 2 s");

  expect(gs_gate_launch(NULL, &g.d[1], st) == (int)cudaErrorInvalidValue, "no flag");
  expect(gs_gate_launch(&g.d[0], NULL, st) == (int)cudaErrorInvalidValue, "no expired word");
  CK(cudaStreamDestroy(st));
  CK(cudaFreeHost((void *)g.h));
  printf("%s\n", g_fail ? "FAIL" : "PASS");
  return g_fail ? 1 : 0;
}
#endif
