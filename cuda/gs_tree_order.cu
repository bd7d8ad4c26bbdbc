/* gs_tree_order.cu: the tree's body order as the ranks share it (gs_cuda.h): where a run of the
 * order may end so that no group of targets is split (gs_tree_order_bounds_launch), and a walk's
 * results by order put back into index order (gs_tree_order_unsort_launch), both over the tree
 * gs_tree_build.cu left in the workspace (gs_tree_internal.cuh: idx, the body of each sorted
 * position; gid, the group of each). */
#include "gs_cuda.h"
#include "gs_tree_internal.cuh"

/* ---- group starts (where the ranks' runs of the order may end) -------------------------------- */

struct gs_tr_wants {
  uint64_t want[GS_TR_BOUNDS];
};

/* Thread k: the first position s >= want[k] where a group starts (gid changes), or n. A group
 * holds at most GS_TR_GROUP positions, so this takes fewer steps than that. */
static __global__ void gs_tr_bounds_kernel(gs_tr_wants w, int m, const uint32_t *__restrict__ gid, uint64_t n,
                                           uint64_t *__restrict__ got)
{
  const int k = threadIdx.x;
  if (k >= m) return;
  uint64_t s = w.want[k] < n ? w.want[k] : n;
  while (s > 0 && s < n && gid[s] == gid[s - 1]) ++s;
  got[k] = s;
}

extern "C" int gs_tree_order_bounds_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, const uint64_t *want,
                                     uint64_t *got, int m, void *stream)
{
  gs_tr_layout L;
  if (!c || !gs_tr_args_ok(a) || !gs_tree_build_layout(a, &L) || m < 0 || (m && (!want || !got)))
    return (int)cudaErrorInvalidValue;
  if (a->n == 0) {
    for (int k = 0; k < m; ++k) got[k] = 0;
    return (int)cudaSuccess;
  }
  if (!a->ws || a->ws_bytes < L.total) return (int)cudaErrorInvalidValue;
  const cudaStream_t st = (cudaStream_t)stream;
  uint64_t *d = reinterpret_cast<uint64_t *>(gs_tr_at<char>(a->ws, L.nsel) + 64);
  for (int k0 = 0; k0 < m; k0 += GS_TR_BOUNDS) {
    const int cnt = m - k0 < GS_TR_BOUNDS ? m - k0 : GS_TR_BOUNDS;
    gs_tr_wants w;
    for (int k = 0; k < cnt; ++k) w.want[k] = want[k0 + k];
    gs_tr_bounds_kernel<<<1, 32, 0, st>>>(w, cnt, gs_tr_at<const uint32_t>(a->ws, L.gid), a->n, d);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemcpyAsync(got + k0, d, cnt * sizeof(uint64_t), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) return (int)e;
  }
  return (int)cudaSuccess;
}

/* ---- back into index order ------------------------------------------------------------------- */

template <typename T>
static __global__ void gs_tr_unsort_kernel(const gs_nb_vec_t<T> *__restrict__ src, const uint32_t *__restrict__ idx,
                                           uint32_t n, uint64_t d_first, uint64_t d_count,
                                           gs_nb_vec_t<T> *__restrict__ dst)
{
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const uint64_t i = idx[s];
  if (i - d_first < d_count) dst[i - d_first] = src[s];
}

extern "C" int gs_tree_order_unsort_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, const void *src, void *dst,
                                     uint64_t d_first, uint64_t d_count, void *stream)
{
  gs_tr_layout L;
  if (!c || !gs_tr_args_ok(a) || !gs_tree_build_layout(a, &L)) return (int)cudaErrorInvalidValue;
  if (a->n == 0 || d_count == 0) return (int)cudaSuccess;
  if (!src || ((uintptr_t)src & 15u) || !dst || ((uintptr_t)dst & 15u) || !a->ws || a->ws_bytes < L.total)
    return (int)cudaErrorInvalidValue;
  const uint32_t *idx = gs_tr_at<const uint32_t>(a->ws, L.idx);
  const unsigned grid = (unsigned)((a->n + 255) / 256);
  const cudaStream_t st = (cudaStream_t)stream;
  if (a->precision)
    gs_tr_unsort_kernel<double><<<grid, 256, 0, st>>>((const gs_nb_double4 *)src, idx, (uint32_t)a->n, d_first, d_count,
                                                      (gs_nb_double4 *)dst);
  else
    gs_tr_unsort_kernel<float><<<grid, 256, 0, st>>>((const float4 *)src, idx, (uint32_t)a->n, d_first, d_count,
                                                     (float4 *)dst);
  return (int)cudaGetLastError();
}
