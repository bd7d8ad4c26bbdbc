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
#include "gs_tree_internal.cuh"

#define GS_TR_BLOCK 256

template <typename T>
static __device__ __forceinline__ void gs_tr_minmax(gs_nb_vec_t<T> &lo, gs_nb_vec_t<T> &hi, const gs_nb_vec_t<T> &l,
                                                    const gs_nb_vec_t<T> &h)
{
  lo.x = fmin(lo.x, l.x); lo.y = fmin(lo.y, l.y); lo.z = fmin(lo.z, l.z);
  hi.x = fmax(hi.x, h.x); hi.y = fmax(hi.y, h.y); hi.z = fmax(hi.z, h.z);
}

/* Block reduction of (lo, hi) into thread 0's copy. */
template <typename T>
static __device__ void gs_tr_block_box(gs_nb_vec_t<T> &lo, gs_nb_vec_t<T> &hi)
{
  __shared__ gs_nb_vec_t<T> slo[GS_TR_BOX_THREADS], shi[GS_TR_BOX_THREADS];
  const unsigned t = threadIdx.x;
  slo[t] = lo; shi[t] = hi;
  __syncthreads();
  for (unsigned s = GS_TR_BOX_THREADS / 2; s > 0; s >>= 1) {
    if (t < s) {
      gs_tr_minmax<T>(lo, hi, slo[t + s], shi[t + s]);
      slo[t] = lo; shi[t] = hi;
    }
    __syncthreads();
  }
}

/* Pass 1: block b's box of its grid-stride share of pos[0, n) into part[2b], part[2b+1]. */
template <typename T>
static __global__ void __launch_bounds__(GS_TR_BOX_THREADS)
gs_tr_box_part(const gs_nb_vec_t<T> *__restrict__ pos, uint32_t n, gs_nb_vec_t<T> *__restrict__ part)
{
  const T big = sizeof(T) == 8 ? T(1e300) : T(3e38);
  gs_nb_vec_t<T> lo = gs_nb_make<T>(big, big, big, 0), hi = gs_nb_make<T>(-big, -big, -big, 0);
  for (uint32_t i = blockIdx.x * GS_TR_BOX_THREADS + threadIdx.x; i < n; i += gridDim.x * GS_TR_BOX_THREADS)
    gs_tr_minmax<T>(lo, hi, pos[i], pos[i]);
  gs_tr_block_box<T>(lo, hi);
  if (threadIdx.x == 0) part[2 * blockIdx.x] = lo, part[2 * blockIdx.x + 1] = hi;
}

/* Pass 2: one block over the `parts` partial boxes into box[0] (min), box[1] (max); and the node
 * count for the statistics (2n - 1 nodes: n - 1 internal, n leaves). */
template <typename T>
static __global__ void __launch_bounds__(GS_TR_BOX_THREADS)
gs_tr_box_final(gs_nb_vec_t<T> *__restrict__ box, unsigned parts, uint32_t n, uint64_t *counts)
{
  const T big = sizeof(T) == 8 ? T(1e300) : T(3e38);
  gs_nb_vec_t<T> lo = gs_nb_make<T>(big, big, big, 0), hi = gs_nb_make<T>(-big, -big, -big, 0);
  const gs_nb_vec_t<T> *part = box + 2;
  for (unsigned b = threadIdx.x; b < parts; b += GS_TR_BOX_THREADS) gs_tr_minmax<T>(lo, hi, part[2 * b], part[2 * b + 1]);
  gs_tr_block_box<T>(lo, hi);
  if (threadIdx.x == 0) {
    box[0] = lo, box[1] = hi;
    if (counts) counts[GS_TREE_NODES] = n ? 2ull * n - 1 : 0;
  }
}

/* The 21 low bits of v spread to every third bit. */
static __device__ __forceinline__ uint64_t gs_tr_spread(uint64_t v)
{
  v &= 0x1fffffull;
  v = (v | v << 32) & 0x1f00000000ffffull;
  v = (v | v << 16) & 0x1f0000ff0000ffull;
  v = (v | v << 8) & 0x100f00f00f00f00full;
  v = (v | v << 4) & 0x10c30c30c30c30c3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

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

/* Common prefix length of sorted entries i and j (Karras's delta), ties broken by position:
 * 64 + the common prefix of i and j when the keys are equal; -1 for j outside [0, n). */
static __device__ __forceinline__ int gs_tr_delta(const uint64_t *__restrict__ k, int n, int i, int j)
{
  if (j < 0 || j >= n) return -1;
  const uint64_t x = k[i] ^ k[j];
  return x ? __clzll((long long)x) : 64 + __clz(i ^ j);
}

/* Internal node i of the radix tree over n >= 2 sorted keys: its range, its split, its children
 * (node ids: internal g, or leaf n-1+g), their parent links and its arrival counter, zeroed. */
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_radix(const uint64_t *__restrict__ k, int n, uint2 *__restrict__ child, uint2 *__restrict__ range,
            uint32_t *__restrict__ parent, uint32_t *__restrict__ flag)
{
  const int i = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (i >= n - 1) return;
  const int d = gs_tr_delta(k, n, i, i + 1) > gs_tr_delta(k, n, i, i - 1) ? 1 : -1;
  const int dmin = gs_tr_delta(k, n, i, i - d);
  int lmax = 2;
  while (gs_tr_delta(k, n, i, i + lmax * d) > dmin) lmax *= 2;
  int l = 0;
  for (int t = lmax / 2; t >= 1; t /= 2)
    if (gs_tr_delta(k, n, i, i + (l + t) * d) > dmin) l += t;
  const int j = i + l * d, dnode = gs_tr_delta(k, n, i, j);
  int s = 0;
  for (int div = 2, t = l; t > 1; div *= 2) {
    t = (l + div - 1) / div;
    if (gs_tr_delta(k, n, i, i + (s + t) * d) > dnode) s += t;
  }
  const int g = i + s * d + (d < 0 ? -1 : 0);
  const int first = i < j ? i : j, last = i < j ? j : i;
  const uint32_t left = first == g ? (uint32_t)(n - 1 + g) : (uint32_t)g;
  const uint32_t right = last == g + 1 ? (uint32_t)(n - 1 + g + 1) : (uint32_t)(g + 1);
  child[i] = make_uint2(left, right);
  range[i] = make_uint2((uint32_t)first, (uint32_t)last);
  parent[left] = (uint32_t)i;
  parent[right] = (uint32_t)i;
  flag[i] = 0;
  if (i == 0) parent[0] = GS_TR_NONE;
}

/* A node's moments (gs_tree_internal.cuh's four vectors), in registers. */
template <typename T>
struct gs_tr_mom {
  gs_nb_vec_t<T> cm, qd, lo, hi;
};

/* Node id c's moments: a leaf is its body (no quadrupole, a point box); an internal node was
 * written by another thread of this kernel, so it is read through L2. */
template <typename T>
static __device__ __forceinline__ gs_tr_mom<T> gs_tr_node_mom(uint32_t c, uint32_t n, const gs_nb_vec_t<T> *spos,
                                                              const gs_nb_vec_t<T> *cm, const gs_nb_vec_t<T> *qd,
                                                              const gs_nb_vec_t<T> *lo, const gs_nb_vec_t<T> *hi)
{
  gs_tr_mom<T> m;
  if (c >= n - 1) {
    const gs_nb_vec_t<T> p = spos[c - (n - 1)];
    m.cm = p;
    m.qd = gs_nb_make<T>(0, 0, 0, 0);
    m.lo = gs_nb_make<T>(p.x, p.y, p.z, 0);
    m.hi = gs_nb_make<T>(p.x, p.y, p.z, 0);
  } else {
    m.cm = gs_tr_ldcg(cm + c);
    m.qd = gs_tr_ldcg(qd + c);
    m.lo = gs_tr_ldcg(lo + c);
    m.hi = gs_tr_ldcg(hi + c);
  }
  return m;
}

/* Child c's second moments moved to the parent's centre (cx, cy, cz) by the parallel-axis
 * theorem and added to q: the traceless quadrupole (xx, yy, xy, xz, yz), then the trace of the
 * second moment, sum m |x|^2. */
template <typename T>
static __device__ __forceinline__ void gs_tr_quad_add(T *q, const gs_tr_mom<T> &c, T cx, T cy, T cz)
{
  const T dx = c.cm.x - cx, dy = c.cm.y - cy, dz = c.cm.z - cz, m = c.cm.w;
  const T r2 = dx * dx + dy * dy + dz * dz;
  q[0] += c.qd.x + m * (3 * dx * dx - r2);
  q[1] += c.qd.y + m * (3 * dy * dy - r2);
  q[2] += c.qd.z + m * (3 * dx * dy);
  q[3] += c.qd.w + m * (3 * dx * dz);
  q[4] += c.lo.w + m * (3 * dy * dz);
  q[5] += c.hi.w + m * r2;
}

/* The parent of children a (left) and b (right): mass, centre of mass (the box centre when
 * massless; the bodies' point exactly when they all sit at one, so that the walk may take such a
 * node whole), box, quadrupole and trace (both exactly 0 for a point). */
template <typename T>
static __device__ __forceinline__ gs_tr_mom<T> gs_tr_combine(const gs_tr_mom<T> &a, const gs_tr_mom<T> &b)
{
  gs_tr_mom<T> p;
  p.lo = a.lo; p.hi = a.hi;
  gs_tr_minmax<T>(p.lo, p.hi, b.lo, b.hi);
  const T M = a.cm.w + b.cm.w;
  T cx, cy, cz;
  if (p.lo.x == p.hi.x && p.lo.y == p.hi.y && p.lo.z == p.hi.z) {
    cx = p.lo.x, cy = p.lo.y, cz = p.lo.z; /* coincident bodies: their point, exactly (no rounding) */
  } else if (M > T(0)) {
    const T inv = T(1) / M;
    cx = (a.cm.w * a.cm.x + b.cm.w * b.cm.x) * inv;
    cy = (a.cm.w * a.cm.y + b.cm.w * b.cm.y) * inv;
    cz = (a.cm.w * a.cm.z + b.cm.w * b.cm.z) * inv;
  } else {
    cx = T(0.5) * (p.lo.x + p.hi.x), cy = T(0.5) * (p.lo.y + p.hi.y), cz = T(0.5) * (p.lo.z + p.hi.z);
  }
  T q[6] = {0, 0, 0, 0, 0, 0};
  gs_tr_quad_add<T>(q, a, cx, cy, cz);
  gs_tr_quad_add<T>(q, b, cx, cy, cz);
  p.cm = gs_nb_make<T>(cx, cy, cz, M);
  p.qd = gs_nb_make<T>(q[0], q[1], q[2], q[3]);
  p.lo.w = q[4];
  p.hi.w = q[5];
  return p;
}

/* One thread per leaf climbs the tree: at each node the first of its two children to arrive
 * leaves, the second computes the node (left child, then right) and climbs on. The fences make
 * a node's moments visible before its parent's counter says it is done. */
template <typename T>
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_moments(const gs_nb_vec_t<T> *__restrict__ spos, uint32_t n, const uint2 *__restrict__ child,
              const uint32_t *__restrict__ parent, uint32_t *flag, gs_nb_vec_t<T> *cm, gs_nb_vec_t<T> *qd,
              gs_nb_vec_t<T> *lo, gs_nb_vec_t<T> *hi)
{
  const uint32_t s = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (s >= n) return;
  uint32_t node = parent[n - 1 + s];
  while (node != GS_TR_NONE) {
    __threadfence();
    if (atomicAdd(flag + node, 1u) == 0) return;
    __threadfence();
    const uint2 c = child[node];
    const gs_tr_mom<T> a = gs_tr_node_mom<T>(c.x, n, spos, cm, qd, lo, hi);
    const gs_tr_mom<T> b = gs_tr_node_mom<T>(c.y, n, spos, cm, qd, lo, hi);
    const gs_tr_mom<T> p = gs_tr_combine<T>(a, b);
    cm[node] = p.cm; qd[node] = p.qd; lo[node] = p.lo; hi[node] = p.hi;
    node = parent[node];
  }
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

static unsigned gs_tr_grid(uint64_t n) { return (unsigned)((n + GS_TR_BLOCK - 1) / GS_TR_BLOCK); }

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
    gs_tr_radix<<<gs_tr_grid(n - 1), GS_TR_BLOCK, 0, st>>>(keys, (int)n, child, gs_tr_at<uint2>(ws, L.range), parent,
                                                          flag);
    gs_tr_moments<T><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(spos, n, child, parent, flag, gs_tr_at<V>(ws, L.cm),
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
