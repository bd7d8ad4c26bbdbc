/* Rank-to-GPU binding with simulated node sizes and CUDA_VISIBLE_DEVICES values. */
#include <string.h>

#include "gs_bind.h"
#include "gs_test.h"

int main(void) {
  /* CUDA_VISIBLE_DEVICES as the runtime reads it. */
  GS_EXPECT(gs_bind_visible_count(NULL, 4) == 4);
  GS_EXPECT(gs_bind_visible_count("", 4) == 0);
  GS_EXPECT(gs_bind_visible_count("2", 4) == 1);
  GS_EXPECT(gs_bind_visible_count("0,1,2,3", 4) == 4);
  GS_EXPECT(gs_bind_visible_count("3,1", 4) == 2);
  GS_EXPECT(gs_bind_visible_count("0,7,1", 4) == 1);  /* stops at the invalid 7 */
  GS_EXPECT(gs_bind_visible_count("1,1", 4) == 1);    /* a repeat ends the list */
  GS_EXPECT(gs_bind_visible_count("-1", 4) == 0);
  GS_EXPECT(gs_bind_visible_count("GPU-8a2b,GPU-77c1", 4) == 2);
  GS_EXPECT(gs_bind_visible_count("0, 1", 2) == 2);

  struct gs_msg msg;
  int gpu;
  /* local: node-local rank modulo the visible devices; 4 ranks on a 4-GPU node. */
  for (int lr = 0; lr < 4; lr++) GS_EXPECT(gs_bind_choose("local", lr, 4, 4, 0, &gpu, &msg) == GS_OK && gpu == lr);
  /* 8 ranks on 4 GPUs: wraps (the shared check then refuses it without --gpu-share). */
  GS_EXPECT(gs_bind_choose("local", 6, 8, 4, 0, &gpu, &msg) == GS_OK && gpu == 2);
  /* each rank sees one GPU of its own (launcher set CUDA_VISIBLE_DEVICES per rank). */
  GS_EXPECT(gs_bind_choose("local", 3, 4, gs_bind_visible_count("3", 4), 0, &gpu, &msg) == GS_OK && gpu == 0);
  GS_EXPECT(gs_bind_choose("local", 0, 1, 0, 0, &gpu, &msg) == GS_USAGE && strstr(msg.text, "no GPU"));
  GS_EXPECT(gs_bind_choose("none", 2, 4, 4, 0, &gpu, &msg) == GS_OK && gpu == -1);
  /* an explicit list, indexed by node-local rank. */
  GS_EXPECT(gs_bind_choose("3,2,1,0", 1, 4, 4, 0, &gpu, &msg) == GS_OK && gpu == 2);
  GS_EXPECT(gs_bind_choose("1,0", 1, 4, 4, 0, &gpu, &msg) == GS_USAGE && strstr(msg.text, "lists 2 GPU(s)"));
  GS_EXPECT(gs_bind_choose("1,0", 3, 4, 4, 1, &gpu, &msg) == GS_OK && gpu == 0);
  GS_EXPECT(gs_bind_choose("0,5", 1, 2, 4, 0, &gpu, &msg) == GS_USAGE && strstr(msg.text, "names GPU 5"));

  const char pci[4][GS_PCI_MAX] = {"0000:18:00.0", "0000:2a:00.0", "0000:18:00.0", "0000:3a:00.0"};
  int a, b;
  GS_EXPECT(gs_bind_find_shared(pci, 4, &a, &b) == 1 && a == 0 && b == 2);
  GS_EXPECT(gs_bind_find_shared(pci, 2, &a, &b) == 0);
  GS_TEST_DONE();
}
