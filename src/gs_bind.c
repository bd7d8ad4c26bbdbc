/* gs_bind.c: the rank-to-GPU policy. The shared-GPU check compares physical devices (PCI bus
 * ids), not counts, so that a launcher that gives each rank its own CUDA_VISIBLE_DEVICES (four
 * ranks, each seeing one different GPU) is accepted while four ranks on one GPU are not. */
#include "gs_bind.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int gs_bind_visible_count(const char *cvd, int physical) {
  if (!cvd) return physical;
  int count = 0;
  char seen[1024] = {0};
  const char *p = cvd;
  while (*p) {
    while (*p == ' ') p++;
    if (isdigit((unsigned char)*p)) {
      char *end;
      long idx = strtol(p, &end, 10);
      if (idx < 0 || idx >= physical || idx >= (long)sizeof seen || seen[idx]) break;
      seen[idx] = 1;
      p = end;
    } else if (strncmp(p, "GPU-", 4) == 0 || strncmp(p, "MIG-", 4) == 0) {
      p += strcspn(p, ",");
    } else {
      break;
    }
    while (*p == ' ') p++;
    if (*p != ',' && *p != '\0') break;
    count++;
    if (*p == ',') p++;
  }
  return count;
}

int gs_bind_choose(const char *policy, int local_rank, int local_size, int ndev, int share, int *gpu,
                   struct gs_msg *msg) {
  if (ndev <= 0) return gs_error_msg(msg, "no GPU visible (CUDA_VISIBLE_DEVICES or driver?)");
  if (strcmp(policy, "none") == 0) {
    *gpu = -1;
    return GS_OK;
  }
  if (strcmp(policy, "local") == 0) {
    *gpu = local_rank % ndev;
    return GS_OK;
  }
  int len = 1;
  for (const char *p = policy; *p; p++) len += *p == ',';
  if (local_size > len && !share)
    return gs_error_msg(msg, "--gpu-bind=%s lists %d GPU(s) but a node runs %d ranks (add --gpu-share to reuse them)",
                        policy, len, local_size);
  int want = local_rank % len;
  const char *p = policy;
  for (int i = 0; i < want; i++) p = strchr(p, ',') + 1;
  long idx = strtol(p, NULL, 10);
  if (idx >= ndev)
    return gs_error_msg(msg, "--gpu-bind=%s names GPU %ld but only %d are visible", policy, idx, ndev);
  *gpu = (int)idx;
  return GS_OK;
}

int gs_bind_find_shared(const char (*pci)[GS_PCI_MAX], int count, int *a, int *b) {
  for (int i = 0; i < count; i++)
    for (int j = i + 1; j < count; j++)
      if (pci[i][0] && strcmp(pci[i], pci[j]) == 0) {
        *a = i;
        *b = j;
        return 1;
      }
  return 0;
}
