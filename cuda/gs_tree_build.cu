/* gs_tree_build.cu: the tree half of the Barnes-Hut solver of gs_cuda.h (gs_tree_build_workspace,
 * gs_tree_build_launch): every step on the GPU, in the caller's workspace (gs_tree_internal.cuh):
 *   1. bounding box of pos[0, n): per-block min / max, then one block over the partials (min and
 *      max are exact, so the box is the same whatever the order);
 *   2. 63-bit Morton keys (21 bits per axis, in the box's bounding cube);
 *   3. a stable sort of (key, index) with cub::DeviceRadixSort (equal keys keep index order), and
 *      the positions gathered into Morton order once, for coalesced walks;
 *   4. the binary radix tree over the sorted keys (Karras 2012), ties broken by sorted position,
 *      so coincident bodies make an ordinary (balanced) subtree; every node covers a contiguous
 *      run of sorted bodies;
 *   5. moments bottom-up: one thread per leaf climbs while it is the second child to arrive at
 *      a node (one atomic counter per node), and computes that node from its children, left then
 *      right. The first to arrive leaves, so no thread ever waits for another (weak forward
 *      progress suffices: nothing depends on blocks being co-resident), and every node's sums
 *      are the same function of its children's whichever thread computes them: the same
 *      positions give bitwise the same tree;
 *   6. the walk's groups: the largest nodes with at most GS_TR_GROUP bodies, numbered along the
 *      sorted order (gid), so that a group is a compact cell of space. */
#include <cub/cub.cuh>

#include "gs_cuda.h"
#include "gs_tree_kernels.cuh"

/* A coordinate's 21-bit cell in [lo, lo + 2^21 / scale), clamped (rounding at the top edge). */
template <typename T>
static __device__ __forceinline__ uint64_t gs_tr_cell(T x, T lo, T scale)
{
  const T c = (x - lo) * scale;
  const T top = T((1u << GS_TR_KEY_BITS) - 1);
  return (uint64_t)(c > T(0) ? (c < top ? c : top) : T(0));
}

/* Keys of pos[0, n) in the bounding cube of box (its largest extent on every axis), and the
 * index payload 0 .. n-1 the sort carries. */
template <typename T>
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_keys(const gs_nb_vec_t<T> *__restrict__ pos, uint32_t n, const gs_nb_vec_t<T> *__restrict__ box,
           uint64_t *__restrict__ keys, uint32_t *__restrict__ idx)
{
  const uint32_t i = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (i >= n) return;
  const gs_nb_vec_t<T> lo = box[0], hi = box[1], p = pos[i];
  const T ext = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
  const T scale = ext > T(0) ? T(1u << GS_TR_KEY_BITS) / ext : T(0);
  keys[i] = gs_tr_spread(gs_tr_cell<T>(p.x, lo.x, scale)) << 2 | gs_tr_spread(gs_tr_cell<T>(p.y, lo.y, scale)) << 1 |
            gs_tr_spread(gs_tr_cell<T>(p.z, lo.z, scale));
  idx[i] = i;
}

/* Positions into Morton order. */
template <typename T>
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_gather(const gs_nb_vec_t<T> *__restrict__ pos, const uint32_t *__restrict__ idx, uint32_t n,
             gs_nb_vec_t<T> *__restrict__ spos)
{
  const uint32_t s = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (s < n) spos[s] = pos[idx[s]];
}

/* Step 6: flag[s] = 1 where a group of the tree starts (flag zeroed before): the children of
 * size <= GS_TR_GROUP of a node larger than that, or the root when the whole tree is that small.
 * The groups partition the sorted positions; an inclusive sum of the flags numbers them. */
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_group_flags(const uint2 *__restrict__ child, const uint2 *__restrict__ range, uint32_t n,
                  uint32_t *__restrict__ flag)
{
  const uint32_t k = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (n < 2 || (k == 0 && range[0].y - range[0].x + 1 <= GS_TR_GROUP)) {
    if (k == 0) flag[0] = 1;
    return;
  }
  if (k >= n - 1) return;
  const uint2 r = range[k];
  if (r.y - r.x + 1 <= GS_TR_GROUP) return;
  const uint2 c = child[k];
  const uint32_t kids[2] = {c.x, c.y};
  for (int h = 0; h < 2; ++h) {
    const uint32_t id = kids[h];
    const uint2 cr = id >= n - 1 ? make_uint2(id - (n - 1), id - (n - 1)) : range[id];
    if (cr.y - cr.x + 1 <= GS_TR_GROUP) flag[cr.x] = 1;
  }
}

/* ---- host side ------------------------------------------------------------------------------ */

/* CUB's temporary bytes for sorting n (key, index) pairs (0 on error). */
static size_t gs_tr_sort_bytes(uint64_t n)
{
  size_t bytes = 0;
  if (n < 2) return 0;
  if (cub::DeviceRadixSort::SortPairs(NULL, bytes, (const uint64_t *)NULL, (uint64_t *)NULL, (const uint32_t *)NULL,
                                      (uint32_t *)NULL, (int)n, 0, 3 * GS_TR_KEY_BITS) != cudaSuccess)
    return 0;
  return bytes;
}

/* CUB's temporary bytes for numbering the groups of n positions (0 on error). */
static size_t gs_tr_scan_bytes(uint64_t n)
{
  size_t bytes = 0;
  if (n < 1) return 0;
  if (cub::DeviceScan::InclusiveSum(NULL, bytes, (const uint32_t *)NULL, (uint32_t *)NULL, (int)n) != cudaSuccess)
    return 0;
  return bytes ? bytes : 1;
}

extern "C" int gs_tree_build_layout(const struct gs_tree_args *a, struct gs_tr_layout *L)
{
  const size_t sort = gs_tr_sort_bytes(a->n), sel = gs_tree_walk_temp_bytes(a->n, a->i_count);
  const size_t scan = gs_tr_scan_bytes(a->n);
  if ((a->n >= 2 && !sort) || (a->n >= 1 && (!sel || !scan))) return 0;
  size_t temp = sort > sel ? sort : sel;
  temp = temp > scan ? temp : scan;
  gs_tr_layout_make(a->n, a->i_count, a->precision ? sizeof(gs_nb_double4) : sizeof(float4), temp, L);
  return 1;
}

/* Only n, i_count and precision matter (a caller may ask before it has set the rest). */
extern "C" size_t gs_tree_build_workspace(struct gs_cuda_ctx *c, const struct gs_tree_args *a)
{
  gs_tr_layout L;
  if (!c || !a || (a->precision != 0 && a->precision != 1) || !gs_tr_sizes_ok(a) || !gs_tree_build_layout(a, &L))
    return 0;
  return L.total;
}

/* Steps 1 .. 5 on st; n >= 1. */
template <typename T>
static cudaError_t gs_tr_build(const struct gs_tree_args *a, const gs_tr_layout &L, cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  void *ws = a->ws;
  const uint32_t n = (uint32_t)a->n;
  const V *pos = (const V *)a->pos;
  V *box = gs_tr_at<V>(ws, L.box);
  const uint64_t want = (a->n + GS_TR_BOX_THREADS - 1) / GS_TR_BOX_THREADS;
  const unsigned parts = (unsigned)(want < GS_TR_BOX_BLOCKS ? want : GS_TR_BOX_BLOCKS);
  gs_tr_box_part<T><<<parts, GS_TR_BOX_THREADS, 0, st>>>(pos, n, box + 2);
  gs_tr_box_final<T><<<1, GS_TR_BOX_THREADS, 0, st>>>(box, parts, n, a->counts);
  uint64_t *keys_in = gs_tr_at<uint64_t>(ws, L.keys_in), *keys = gs_tr_at<uint64_t>(ws, L.keys);
  uint32_t *idx_in = gs_tr_at<uint32_t>(ws, L.idx_in), *idx = gs_tr_at<uint32_t>(ws, L.idx);
  gs_tr_keys<T><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(pos, n, box, keys_in, idx_in);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  if (n >= 2) {
    size_t bytes = L.temp_bytes;
    e = cub::DeviceRadixSort::SortPairs(gs_tr_at<void>(ws, L.temp), bytes, keys_in, keys, idx_in, idx, (int)n, 0,
                                        3 * GS_TR_KEY_BITS, st);
    if (e != cudaSuccess) return e;
  } else {
    e = cudaMemcpyAsync(idx, idx_in, sizeof(uint32_t), cudaMemcpyDeviceToDevice, st);
    if (e != cudaSuccess) return e;
  }
  V *spos = gs_tr_at<V>(ws, L.spos);
  gs_tr_gather<T><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(pos, idx, n, spos);
  if (n >= 2) {
    uint2 *child = gs_tr_at<uint2>(ws, L.child);
    uint32_t *parent = gs_tr_at<uint32_t>(ws, L.parent), *flag = gs_tr_at<uint32_t>(ws, L.flag);
    gs_tr_radix<<<gs_tr_grid(n - 1), GS_TR_BLOCK, 0, st>>>(keys, NULL, (int)n, child, gs_tr_at<uint2>(ws, L.range),
                                                          parent, flag);
    const gs_tr_leaves<T> leaf = {spos, {NULL, NULL, NULL, NULL}};
    gs_tr_moments<T><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(leaf, n, child, parent, flag, gs_tr_at<V>(ws, L.cm),
                                                            gs_tr_at<V>(ws, L.qd), gs_tr_at<V>(ws, L.lo),
                                                            gs_tr_at<V>(ws, L.hi));
  }
  /* 6: the arrival counters are spent; their array now flags the groups' first positions */
  uint32_t *gflag = gs_tr_at<uint32_t>(ws, L.flag);
  e = cudaMemsetAsync(gflag, 0, (size_t)n * sizeof(uint32_t), st);
  if (e != cudaSuccess) return e;
  gs_tr_group_flags<<<gs_tr_grid(n > 1 ? n - 1 : 1), GS_TR_BLOCK, 0, st>>>(
      gs_tr_at<uint2>(ws, L.child), gs_tr_at<uint2>(ws, L.range), n, gflag);
  size_t bytes = L.temp_bytes;
  e = cub::DeviceScan::InclusiveSum(gs_tr_at<void>(ws, L.temp), bytes, gflag, gs_tr_at<uint32_t>(ws, L.gid), (int)n, st);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

/* n = 0: nothing to build (the node count, if asked, is 0). */
extern "C" int gs_tree_build_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, void *stream)
{
  gs_tr_layout L;
  if (!c || !gs_tr_args_ok(a) || !gs_tree_build_layout(a, &L)) return (int)cudaErrorInvalidValue;
  const cudaStream_t st = (cudaStream_t)stream;
  if (a->n == 0) {
    if (a->counts) return (int)cudaMemsetAsync(a->counts + GS_TREE_NODES, 0, sizeof(uint64_t), st);
    return (int)cudaSuccess;
  }
  if (!a->pos || ((uintptr_t)a->pos & 15u) || !a->ws || ((uintptr_t)a->ws & 255u) || a->ws_bytes < L.total)
    return (int)cudaErrorInvalidValue;
  const cudaError_t e = a->precision ? gs_tr_build<double>(a, L, st) : gs_tr_build<float>(a, L, st);
  return (int)e;
}
