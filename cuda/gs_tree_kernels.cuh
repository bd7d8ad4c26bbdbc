/* gs_tree_kernels.cuh: the build's kernels that the replicated tree (gs_tree_build.cu) and the
 * distributed tree's builds (gs_tree_dbuild.cu: each domain cell's subtree; gs_tree_dtop.cu: the
 * top trie over the cells) share, so that a node is the same function of its children in both:
 * the exact bounding box in two passes, the Morton digit spread, Karras's radix tree and the
 * moments bottom-up (gs_tree_internal.cuh's four vectors). CUDA C++ only. */
#ifndef GS_TREE_KERNELS_CUH
#define GS_TREE_KERNELS_CUH

#include "gs_tree_internal.cuh"

#define GS_TR_BLOCK 256

/* Blocks of GS_TR_BLOCK threads for n items, one each. */
static inline unsigned gs_tr_grid(uint64_t n) { return (unsigned)((n + GS_TR_BLOCK - 1) / GS_TR_BLOCK); }

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

/* Common prefix length of sorted entries i and j (Karras's delta), ties broken by position (64 +
 * the common prefix of i and j when the keys are equal) or, with ids, by id (64 + the common
 * prefix of the two ids: the entries are sorted by (key, id), so the tree over equal keys is the
 * trie of their ids, whatever positions they have); -1 for j outside [0, n). */
static __device__ __forceinline__ int gs_tr_delta(const uint64_t *__restrict__ k, const uint64_t *__restrict__ id, int n,
                                                  int i, int j)
{
  if (j < 0 || j >= n) return -1;
  const uint64_t x = k[i] ^ k[j];
  if (x) return __clzll((long long)x);
  return id ? 64 + __clzll((long long)(id[i] ^ id[j])) : 64 + __clz(i ^ j);
}

/* Internal node i of the radix tree over n >= 2 sorted keys (ties by id where ids is not NULL):
 * its range, its split, its children (node ids: internal g, or leaf n-1+g), their parent links and
 * its arrival counter, zeroed. */
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_radix(const uint64_t *__restrict__ k, const uint64_t *__restrict__ ids, int n, uint2 *__restrict__ child,
            uint2 *__restrict__ range, uint32_t *__restrict__ parent, uint32_t *__restrict__ flag)
{
  const int i = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (i >= n - 1) return;
  const int d = gs_tr_delta(k, ids, n, i, i + 1) > gs_tr_delta(k, ids, n, i, i - 1) ? 1 : -1;
  const int dmin = gs_tr_delta(k, ids, n, i, i - d);
  int lmax = 2;
  while (gs_tr_delta(k, ids, n, i, i + lmax * d) > dmin) lmax *= 2;
  int l = 0;
  for (int t = lmax / 2; t >= 1; t /= 2)
    if (gs_tr_delta(k, ids, n, i, i + (l + t) * d) > dmin) l += t;
  const int j = i + l * d, dnode = gs_tr_delta(k, ids, n, i, j);
  int s = 0;
  for (int div = 2, t = l; t > 1; div *= 2) {
    t = (l + div - 1) / div;
    if (gs_tr_delta(k, ids, n, i, i + (s + t) * d) > dnode) s += t;
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

/* The leaves of a tree whose moments go up it: bodies (pos: a point, no quadrupole), or, for the
 * distributed tree's top trie, whole records (the cells' roots: rec[0..3] = cm, qd, lo, hi). */
template <typename T>
struct gs_tr_leaves {
  const gs_nb_vec_t<T> *pos;
  const gs_nb_vec_t<T> *rec[4];
};

/* Node id c's moments: a leaf is its body (no quadrupole, a point box) or its record; an internal
 * node was written by another thread of this kernel, so it is read through L2. */
template <typename T>
static __device__ __forceinline__ gs_tr_mom<T> gs_tr_node_mom(uint32_t c, uint32_t n, const gs_tr_leaves<T> &leaf,
                                                              const gs_nb_vec_t<T> *cm, const gs_nb_vec_t<T> *qd,
                                                              const gs_nb_vec_t<T> *lo, const gs_nb_vec_t<T> *hi)
{
  gs_tr_mom<T> m;
  if (c >= n - 1 && leaf.rec[0]) {
    const uint32_t s = c - (n - 1);
    m.cm = leaf.rec[0][s], m.qd = leaf.rec[1][s], m.lo = leaf.rec[2][s], m.hi = leaf.rec[3][s];
  } else if (c >= n - 1) {
    const gs_nb_vec_t<T> p = leaf.pos[c - (n - 1)];
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
gs_tr_moments(const gs_tr_leaves<T> leaf, uint32_t n, const uint2 *__restrict__ child,
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
    const gs_tr_mom<T> a = gs_tr_node_mom<T>(c.x, n, leaf, cm, qd, lo, hi);
    const gs_tr_mom<T> b = gs_tr_node_mom<T>(c.y, n, leaf, cm, qd, lo, hi);
    const gs_tr_mom<T> p = gs_tr_combine<T>(a, b);
    cm[node] = p.cm; qd[node] = p.qd; lo[node] = p.lo; hi[node] = p.hi;
    node = parent[node];
  }
}

#endif
