/* gs_tree_walk.cu: the force half of the Barnes-Hut solver of gs_cuda.h (gs_tree_walk_launch),
 * over the tree gs_tree_build.cu left in the workspace (gs_tree_internal.cuh).
 *   - Targets in Morton order: by index, the sorted body order filtered to the slice [i_first,
 *     i_first + i_count) (cub::DeviceSelect, stable), then the targets past n (padding) in index
 *     order; by order, the sorted positions [i_first, i_first + i_count) themselves.
 *   - Groups: consecutive targets in one group of the tree (the largest nodes of at most
 *     GS_TR_GROUP bodies, gs_tree_build.cu), so a group is a compact cell; padding goes by 32.
 *     Grouping 32 consecutive targets instead let a group straddle two distant cells, and its box
 *     then overlapped (and opened down to the leaves) everything between them.
 *   - Persistent warps take the groups in Morton order off an atomic counter, one group at a
 *     time, so an expensive group holds up one warp and not a block's share of the grid; a
 *     group's result does not depend on which warp takes it.
 *   - A warp walks the tree once for its group's targets (one per lane), testing each node
 *     against the group's bounding box. It pops up to 32 nodes at a time off a
 *     shared-memory stack, one per lane, and each lane sorts its node: accepted whole (far by the
 *     opening test, and not overlapping the group), a leaf bucket (<= leaf bodies) taken body by
 *     body, or opened (internal children pushed, leaf children taken as bodies).
 *   - Accepted nodes and bodies go to two per-warp interaction lists in shared memory; each time
 *     one holds 32 entries, every lane loads one entry and the warp evaluates the batch, each lane
 *     for its own target, the sources broadcast by shuffles: no lane idles however the lists fill.
 *   - Accepted nodes act by monopole + quadrupole (Plummer-softened as the bodies are). A node with
 *     its quadrupole costs ~35 issue slots against 13 for a body (16 for a bare monopole), and
 *     cuts a node's error from O(theta^2) to O(theta^3). A host model of this algorithm (4096-body
 *     Plummer sphere) puts the 99th-percentile force error at 1.7e-3 for theta 0.5 with 1870 body
 *     and 147 node interactions per target (~29,500 slots); monopoles alone need theta 0.25 for
 *     the same error, with 3383 and 66 (~45,000 slots), and give 1.1e-2 at theta 0.5. Larger n
 *     take more nodes (at 2^18: 1768 bodies, 1059 nodes), where the quadrupole pays even more.
 * The order of every sum is fixed by the tree and the traversal (no atomics on forces), so the
 * same positions give bitwise the same forces. Self-interaction as the direct kernels: with
 * Plummer softening the self pair adds m_i / eps to the potential, taken out after the walk; the
 * cutoff law never counts it (r = 0 is inside the cutoff). The walk always reaches the target's
 * own body: a node that holds it overlaps the group's box and is opened, unless its bodies all sit
 * at one point (then its monopole is exact and holds the self pair: gs_tr_fate). */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gs_cuda.h"
#include "gs_tree_dstate.cuh"
#include "gs_tree_open.cuh"

/* A lane's target and its sums. */
template <typename T>
struct gs_tr_lane {
  T x, y, z, m;
  T ax, ay, az, phi;
};

/* A warp's shared memory: the node stack and the two interaction lists (sorted body positions,
 * node ids), 64 entries each: fewer than 32 wait between batches, and one step adds <= 32. */
struct gs_tr_warp_mem {
  uint32_t stack[GS_TR_STACK];
  uint32_t bl[64];
  uint32_t cl[64];
};

static __device__ __forceinline__ unsigned gs_tr_lane_id() { return threadIdx.x & 31u; }

/* One body on a lane's target: the direct kernels' interaction (gs_nbody_kernels.cu, kernel 7). */
template <typename T, int LAW, bool POT>
static __device__ __forceinline__ void gs_tr_pp(gs_tr_lane<T> &t, T sx, T sy, T sz, T sm, T e2, T cut2)
{
  const T dx = sx - t.x, dy = sy - t.y, dz = sz - t.z;
  const T dsq = dx * dx + (dy * dy + (dz * dz + e2));
  T inv = gs_nb_rsqrt_lean(dsq);
  if constexpr (LAW == GS_LAW_CUTOFF) inv = dsq < cut2 ? T(0) : inv;
  const T mr = sm * inv, scale = mr * (inv * inv);
  t.ax += dx * scale;
  t.ay += dy * scale;
  t.az += dz * scale;
  if constexpr (POT) t.phi += mr;
}

/* One accepted node, by the Taylor expansion to second order of the softened potential of its
 * bodies, -G sum m / (|d + x|^2 + eps2)^(1/2), about its centre of mass (d = com - target, x a
 * body's offset): with r^2 = |d|^2 + eps2, Q the traceless quadrupole and S = sum m |x|^2,
 *   phi = -G (M / r + q / (2 r^5)),  a = G (M d / r^3 - Q d / r^5 + 5 q d / (2 r^7)),
 *   q = d^T Q d - S eps2
 * (the trace term -S eps2 vanishes without softening, where this is the classic quadrupole; the
 * cutoff law passes eps2 = 0, and takes a node only wholly outside the cutoff). */
template <typename T, bool POT>
static __device__ __forceinline__ void gs_tr_pc(gs_tr_lane<T> &t, const gs_nb_vec_t<T> &cm, const gs_nb_vec_t<T> &qd,
                                                T qyz, T tr, T e2)
{
  const T dx = cm.x - t.x, dy = cm.y - t.y, dz = cm.z - t.z;
  const T inv = gs_nb_rsqrt_lean(dx * dx + (dy * dy + (dz * dz + e2)));
  const T inv2 = inv * inv, inv3 = inv * inv2;
  const T qzz = -(qd.x + qd.y);
  const T qx = qd.x * dx + qd.z * dy + qd.w * dz;
  const T qy = qd.z * dx + qd.y * dy + qyz * dz;
  const T qz = qd.w * dx + qyz * dy + qzz * dz;
  /* q / r^4 and Q d / r^2 are masses (times a length): scaled by r^-2 twice rather than r^-4 at
   * once, nothing here grows beyond the monopole's r^-3, as in the direct kernels */
  const T qn = ((dx * qx + dy * qy + dz * qz - tr * e2) * inv2) * inv2;
  const T mq = cm.w + T(2.5) * qn;
  t.ax += inv3 * (mq * dx - qx * inv2);
  t.ay += inv3 * (mq * dy - qy * inv2);
  t.az += inv3 * (mq * dz - qz * inv2);
  if constexpr (POT) t.phi += inv * (cm.w + T(0.5) * qn);
}

/* The first cnt (<= 32) entries of the body list on every lane's target. */
template <typename T, int LAW, bool POT>
static __device__ __forceinline__ void gs_tr_flush_bodies(const gs_tr_walk_args<T> &p, const uint32_t *bl, int cnt,
                                                          gs_tr_lane<T> &t, gs_tr_group<T> &g)
{
  const unsigned ln = gs_tr_lane_id();
  const gs_nb_vec_t<T> s = (int)ln < cnt ? p.spos[bl[ln]] : gs_nb_make<T>(0, 0, 0, 0);
#pragma unroll 8
  for (int j = 0; j < cnt; ++j)
    gs_tr_pp<T, LAW, POT>(t, __shfl_sync(~0u, s.x, j), __shfl_sync(~0u, s.y, j), __shfl_sync(~0u, s.z, j),
                          __shfl_sync(~0u, s.w, j), p.e2, p.cut2);
  g.bb += (unsigned long long)cnt * g.live;
}

/* The first cnt (<= 32) entries of the node list on every lane's target. */
template <typename T, bool POT>
static __device__ __forceinline__ void gs_tr_flush_cells(const gs_tr_walk_args<T> &p, const uint32_t *cl, int cnt,
                                                         gs_tr_lane<T> &t, gs_tr_group<T> &g)
{
  const unsigned ln = gs_tr_lane_id();
  gs_nb_vec_t<T> cm = gs_nb_make<T>(0, 0, 0, 0), qd = cm;
  T qyz = 0, tr = 0;
  if ((int)ln < cnt) {
    const uint32_t c = cl[ln];
    cm = p.cm[c], qd = p.qd[c], qyz = p.lo[c].w, tr = p.hi[c].w;
  }
#pragma unroll 4
  for (int j = 0; j < cnt; ++j) {
    const gs_nb_vec_t<T> c = gs_nb_make<T>(__shfl_sync(~0u, cm.x, j), __shfl_sync(~0u, cm.y, j),
                                           __shfl_sync(~0u, cm.z, j), __shfl_sync(~0u, cm.w, j));
    const gs_nb_vec_t<T> q = gs_nb_make<T>(__shfl_sync(~0u, qd.x, j), __shfl_sync(~0u, qd.y, j),
                                           __shfl_sync(~0u, qd.z, j), __shfl_sync(~0u, qd.w, j));
    gs_tr_pc<T, POT>(t, c, q, __shfl_sync(~0u, qyz, j), __shfl_sync(~0u, tr, j), p.e2);
  }
  g.bc += (unsigned long long)cnt * g.live;
}

/* Append v from every lane where has holds to list L of cnt entries; returns the new count. */
static __device__ __forceinline__ int gs_tr_append(uint32_t *L, int cnt, bool has, uint32_t v)
{
  const unsigned m = __ballot_sync(~0u, has), ln = gs_tr_lane_id();
  if (has) L[cnt + __popc(m & ((1u << ln) - 1u))] = v;
  __syncwarp();
  return cnt + __popc(m);
}

/* Drop the first 32 entries of a list of cnt >= 32 (fewer than 64). */
static __device__ __forceinline__ void gs_tr_shift(uint32_t *L, int cnt)
{
  const unsigned ln = gs_tr_lane_id();
  const bool move = (int)ln + 32 < cnt;
  const uint32_t v = move ? L[ln + 32] : 0u;
  __syncwarp();
  if (move) L[ln] = v;
  __syncwarp();
}

/* Evaluate a full batch of bodies, if the list holds one. */
template <typename T, int LAW, bool POT>
static __device__ __forceinline__ int gs_tr_drain_bodies(const gs_tr_walk_args<T> &p, uint32_t *bl, int nb,
                                                         gs_tr_lane<T> &t, gs_tr_group<T> &g)
{
  if (nb < 32) return nb;
  gs_tr_flush_bodies<T, LAW, POT>(p, bl, 32, t, g);
  __syncwarp();
  gs_tr_shift(bl, nb);
  return nb - 32;
}

/* Warp-wide minimum and maximum. */
template <typename T>
static __device__ __forceinline__ T gs_tr_wmin(T v)
{
  for (int o = 16; o > 0; o >>= 1) v = fmin(v, __shfl_xor_sync(~0u, v, o));
  return v;
}
template <typename T>
static __device__ __forceinline__ T gs_tr_wmax(T v)
{
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(~0u, v, o));
  return v;
}

/* Walk position k's entry: by order the sorted position i_first + k, by index tgt[k] (a sorted
 * position, or a padding body's index >= n). */
template <typename T>
static __device__ __forceinline__ uint32_t gs_tr_entry(const gs_tr_walk_args<T> &p, uint32_t k)
{
  return p.by_order ? (uint32_t)p.i_first + k : p.tgt[k];
}

/* The lane's target (walk position k, valid below end; the others copy lane 0's position and add
 * nothing to the box): entry e, body i; the group's box and smallest |a_old| over real bodies. */
template <typename T, bool DT>
static __device__ __forceinline__ void gs_tr_group_init(const gs_tr_walk_args<T> &p, uint32_t k, uint32_t end,
                                                        uint32_t &e, uint32_t &i, gs_tr_lane<T> &t,
                                                        gs_tr_group<T> &g)
{
  const bool valid = k < end;
  e = gs_tr_entry(p, valid ? k : k - gs_tr_lane_id());
  i = DT ? e : e < p.n ? p.idx[e] : e; /* the merged tree's targets are its first bodies, in order */
  const gs_nb_vec_t<T> q = DT || e < p.n ? p.spos[e] : p.pos[e];
  t.x = __shfl_sync(~0u, q.x, 0), t.y = __shfl_sync(~0u, q.y, 0), t.z = __shfl_sync(~0u, q.z, 0);
  if (valid) t.x = q.x, t.y = q.y, t.z = q.z;
  t.m = valid ? q.w : T(0);
  t.ax = t.ay = t.az = t.phi = 0;
  g.lx = gs_tr_wmin(t.x), g.ly = gs_tr_wmin(t.y), g.lz = gs_tr_wmin(t.z);
  g.hx = gs_tr_wmax(t.x), g.hy = gs_tr_wmax(t.y), g.hz = gs_tr_wmax(t.z);
  g.live = __popc(__ballot_sync(~0u, valid));
  g.amin = 0;
  if (p.rel) {
    T a = sizeof(T) == 8 ? T(1e300) : T(3e38);
    if (valid && i < p.n) {
      const gs_nb_vec_t<T> o = p.by_order ? p.aold[i] : p.acc[i - p.i_first];
      a = sqrt(o.x * o.x + o.y * o.y + o.z * o.z);
    }
    g.amin = gs_tr_wmin(a);
  }
}

/* Push the internal children of the lanes that opened their node (ch, `open`) onto the stack
 * above top; returns the new top. */
template <bool DT>
static __device__ __forceinline__ int gs_tr_push(uint32_t *stack, int top, bool open, uint2 ch, uint32_t n)
{
  const bool l = open && (DT ? !(ch.x & GS_TR_BODY) : ch.x < n - 1);
  const bool r = open && (DT ? !(ch.y & GS_TR_BODY) : ch.y < n - 1);
  const int mine = (int)l + (int)r;
  int incl = mine;
  for (int o = 1; o < 32; o <<= 1) {
    const int v = __shfl_up_sync(~0u, incl, o);
    if ((int)gs_tr_lane_id() >= o) incl += v;
  }
  const int total = __shfl_sync(~0u, incl, 31);
  if (top + total > GS_TR_STACK) __trap(); /* cannot happen (gs_tree_internal.cuh); never silently */
  int at = top + incl - mine;
  if (l) stack[at++] = ch.x;
  if (r) stack[at] = ch.y;
  __syncwarp();
  return top + total;
}

/* Append the buckets of the lanes where `bucket` holds (sorted bodies first .. first+cnt-1) to
 * the body list, one bucket at a time, evaluating each full batch; returns the list's count. */
template <typename T, int LAW, bool POT>
static __device__ __forceinline__ int gs_tr_buckets(const gs_tr_walk_args<T> &p, uint32_t *bl, int nb, bool bucket,
                                                    uint32_t first, uint32_t cnt, gs_tr_lane<T> &t,
                                                    gs_tr_group<T> &g)
{
  const unsigned ln = gs_tr_lane_id();
  for (unsigned m = __ballot_sync(~0u, bucket); m; m &= m - 1) {
    const int b = __ffs(m) - 1;
    const uint32_t f = __shfl_sync(~0u, first, b), c = __shfl_sync(~0u, cnt, b);
    if (ln < c) bl[nb + ln] = f + ln;
    __syncwarp();
    nb = gs_tr_drain_bodies<T, LAW, POT>(p, bl, nb + (int)c, t, g);
  }
  return nb;
}

/* One step of the walk: pop k nodes (one per lane), sort them, and feed the lists and the stack.
 * Returns the new top of the stack. */
template <typename T, int LAW, bool POT, bool DT>
static __device__ __forceinline__ int gs_tr_step(const gs_tr_walk_args<T> &p, gs_tr_warp_mem &w, int top, int &nb,
                                                 int &nc, gs_tr_lane<T> &t, gs_tr_group<T> &g)
{
  const unsigned ln = gs_tr_lane_id();
  /* up to 32 at a time, as many as keep the stack within GS_TR_STACK_PAR once their children are
   * pushed; one (depth first, bounded) when it is that full */
  int k = top < 32 ? top : 32;
  if (top + k > GS_TR_STACK_PAR) k = GS_TR_STACK_PAR - top > 1 ? GS_TR_STACK_PAR - top : 1;
  const bool mine = (int)ln < k;
  const uint32_t node = mine ? w.stack[top - k + (int)ln] : 0u;
  __syncwarp();
  top -= k;
  bool cell = false, bucket = false, open = false;
  uint32_t first = 0, cnt = 0;
  uint2 ch = make_uint2(0, 0);
  if (mine) {
    const int f = gs_tr_fate<T, LAW>(p, g, p.cm[node], p.lo[node], p.hi[node]);
    const uint2 r = p.range[node];
    first = r.x, cnt = r.y - r.x + 1;
    cell = f == GS_TR_ACCEPT;
    bucket = f == GS_TR_OPEN && cnt <= p.leaf;
    open = f == GS_TR_OPEN && !bucket;
    if (open) ch = p.child[node];
    if (DT && open && ch.x == GS_TR_MISSING) { /* a remote node sent closed: a bug, counted, taken whole */
      if (p.counts) atomicAdd(p.counts + GS_TREE_MISSING, 1ull);
      open = false, cell = true;
    }
  }
  nc = gs_tr_append(w.cl, nc, cell, node);
  if (nc >= 32) {
    gs_tr_flush_cells<T, POT>(p, w.cl, 32, t, g);
    __syncwarp();
    gs_tr_shift(w.cl, nc);
    nc -= 32;
  }
  nb = gs_tr_buckets<T, LAW, POT>(p, w.bl, nb, bucket, first, cnt, t, g);
  const uint32_t leaf0 = p.n - 1;
  const bool lb = DT ? (ch.x & GS_TR_BODY) != 0 : ch.x >= leaf0, rb = DT ? (ch.y & GS_TR_BODY) != 0 : ch.y >= leaf0;
  nb = gs_tr_append(w.bl, nb, open && lb, DT ? ch.x & ~GS_TR_BODY : ch.x - leaf0);
  nb = gs_tr_drain_bodies<T, LAW, POT>(p, w.bl, nb, t, g);
  nb = gs_tr_append(w.bl, nb, open && rb, DT ? ch.y & ~GS_TR_BODY : ch.y - leaf0);
  nb = gs_tr_drain_bodies<T, LAW, POT>(p, w.bl, nb, t, g);
  return gs_tr_push<DT>(w.stack, top, open, ch, p.n);
}

/* One group, the walk positions [b, end) (at most 32): its forces into acc. */
template <typename T, int LAW, bool POT, bool DT>
static __device__ __forceinline__ void gs_tr_walk_group(const gs_tr_walk_args<T> &p, gs_tr_warp_mem &w, uint32_t b,
                                                        uint32_t end, gs_tr_group<T> &g)
{
  const unsigned ln = gs_tr_lane_id();
  const uint32_t k = b + ln;
  uint32_t e, i;
  gs_tr_lane<T> t;
  gs_tr_group_init<T, DT>(p, k, end, e, i, t, g);
  const unsigned long long before = g.bb + g.bc;
  int top = 0, nb = 0, nc = 0;
  if (DT && (p.root & GS_TR_BODY)) { /* the whole merged tree is one body */
    if (ln == 0) w.bl[0] = p.root & ~GS_TR_BODY;
    nb = 1;
  } else if (DT) {
    if (ln == 0) w.stack[0] = p.root;
    top = 1;
  } else if (p.n <= p.leaf) { /* the whole tree is one bucket (or empty) */
    if (ln < p.n) w.bl[ln] = ln;
    nb = (int)p.n;
  } else {
    if (ln == 0) w.stack[0] = 0; /* the root */
    top = 1;
  }
  __syncwarp();
  while (top > 0) top = gs_tr_step<T, LAW, POT, DT>(p, w, top, nb, nc, t, g);
  gs_tr_flush_cells<T, POT>(p, w.cl, nc, t, g);
  gs_tr_flush_bodies<T, LAW, POT>(p, w.bl, nb, t, g);
  __syncwarp();
  if (k >= end) return;
  if (DT && p.work) p.work[k] = (double)((g.bb + g.bc - before) / g.live); /* each target met them all */
  /* the self pair's m_i / eps, as the direct kernels take it out (gs_nb_self_fix) */
  if constexpr (POT && LAW == GS_LAW_PLUMMER)
    if (DT || i < p.n) t.phi -= t.m * gs_nb_rsqrt_lean(p.e2);
  const T G = p.G;
  p.acc[p.by_order ? k : i - p.i_first] = gs_nb_make<T>(G * t.ax, G * t.ay, G * t.az, POT ? -G * t.phi : T(0));
}

/* Persistent warps: each takes the next group off the counter until none is left. */
template <typename T, int LAW, bool POT, bool DT>
static __global__ void __launch_bounds__(GS_TR_WARPS * 32)
gs_tr_walk_kernel(const gs_tr_walk_args<T> p)
{
  __shared__ gs_tr_warp_mem mem[GS_TR_WARPS];
  gs_tr_warp_mem &w = mem[threadIdx.x / 32];
  const uint32_t groups = p.cnt[1];
  gs_tr_group<T> g;
  g.bb = g.bc = 0;
  unsigned long long walked = 0;
  for (;;) {
    uint32_t q = 0;
    if (gs_tr_lane_id() == 0) q = atomicAdd(p.cnt + 2, 1u);
    q = __shfl_sync(~0u, q, 0);
    if (q >= groups) break;
    const uint32_t b = p.gstart[q], end = q + 1 < groups ? p.gstart[q + 1] : p.ntgt;
    gs_tr_walk_group<T, LAW, POT, DT>(p, w, b, end, g);
    ++walked;
  }
  if (gs_tr_lane_id() == 0 && p.counts) {
    atomicAdd(p.counts + GS_TREE_BODY_BODY, g.bb);
    atomicAdd(p.counts + GS_TREE_BODY_CELL, g.bc);
    atomicAdd(p.counts + GS_TREE_GROUPS, walked);
  }
}

/* ---- host side ------------------------------------------------------------------------------ */

namespace {
/* CUB's target predicate (by index): sorted position s holds a body of [first, first + count). */
struct gs_tr_in_slice {
  const uint32_t *idx;
  uint32_t first, count;
  __host__ __device__ __forceinline__ bool operator()(uint32_t s) const { return idx[s] - first < count; }
};

/* CUB's group predicate: walk position k starts a group (its group of the tree, or its padding
 * block of 32, differs from position k - 1's). */
struct gs_tr_starts {
  const uint32_t *tgt, *gid;
  uint32_t first, n;
  int by_order;
  __device__ __forceinline__ uint32_t key(uint32_t k) const
  {
    const uint32_t e = by_order ? first + k : tgt[k];
    return e < n ? gid[e] : 0x80000000u + (e - n) / GS_TR_GROUP;
  }
  __device__ __forceinline__ bool operator()(uint32_t k) const { return k == 0 || key(k) != key(k - 1); }
};
} // namespace

extern "C" size_t gs_tree_walk_temp_bytes(uint64_t n, uint64_t i_count)
{
  size_t a = 0, b = 0;
  if (n == 0 || n >= 0x7fffffffull || i_count >= 0x7fffffffull) return 0;
  const thrust::counting_iterator<uint32_t> it(0);
  const gs_tr_in_slice sel = {NULL, 0, 0};
  const gs_tr_starts st = {NULL, NULL, 0, 0, 0};
  if (cub::DeviceSelect::If(NULL, a, it, (uint32_t *)NULL, (uint32_t *)NULL, (int)n, sel) != cudaSuccess ||
      cub::DeviceSelect::If(NULL, b, it, (uint32_t *)NULL, (uint32_t *)NULL, (int)(i_count ? i_count : 1), st) !=
          cudaSuccess)
    return 0;
  a = a > b ? a : b;
  return a ? a : 1;
}

/* Targets past the bodies (padding) after the sorted ones: tgt[t] = lo + t. */
static __global__ void gs_tr_pad_targets(uint32_t *tgt, uint32_t count, uint32_t lo)
{
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < count) tgt[t] = lo + t;
}

/* The targets in walk order (by index: into the workspace's tgt list) and the groups' first walk
 * positions (gstart, their count in nsel[1]); *ntgt = the targets walked. */
static cudaError_t gs_tr_targets(const struct gs_tree_args *a, const gs_tr_layout &L, cudaStream_t st,
                                 uint32_t *ntgt)
{
  void *ws = a->ws;
  uint32_t *tgt = gs_tr_at<uint32_t>(ws, L.tgt), *cnt = gs_tr_at<uint32_t>(ws, L.nsel);
  const thrust::counting_iterator<uint32_t> it(0);
  cudaError_t e;
  if (a->targets == GS_TREE_BY_ORDER) {
    *ntgt = (uint32_t)(a->i_first >= a->n ? 0 : (a->i_first + a->i_count < a->n ? a->i_count : a->n - a->i_first));
  } else {
    const uint64_t end = a->i_first + a->i_count;
    const uint64_t c1 = a->i_first < a->n ? (end < a->n ? end : a->n) - a->i_first : 0;
    if (c1 > 0) {
      size_t bytes = L.temp_bytes;
      const gs_tr_in_slice sel = {gs_tr_at<const uint32_t>(ws, L.idx), (uint32_t)a->i_first, (uint32_t)c1};
      e = cub::DeviceSelect::If(gs_tr_at<void>(ws, L.temp), bytes, it, tgt, cnt, (int)a->n, sel, st);
      if (e != cudaSuccess) return e;
    }
    const uint64_t pad = a->i_count - c1;
    if (pad > 0) {
      const uint32_t lo = (uint32_t)(a->i_first > a->n ? a->i_first : a->n);
      gs_tr_pad_targets<<<(unsigned)((pad + 255) / 256), 256, 0, st>>>(tgt + c1, (uint32_t)pad, lo);
    }
    *ntgt = (uint32_t)a->i_count;
  }
  e = cudaMemsetAsync(cnt + 1, 0, 2 * sizeof(uint32_t), st);
  if (e != cudaSuccess || *ntgt == 0) return e;
  size_t bytes = L.temp_bytes;
  const gs_tr_starts gs = {tgt, gs_tr_at<const uint32_t>(ws, L.gid), (uint32_t)a->i_first, (uint32_t)a->n,
                           a->targets == GS_TREE_BY_ORDER};
  e = cub::DeviceSelect::If(gs_tr_at<void>(ws, L.temp), bytes, it, gs_tr_at<uint32_t>(ws, L.gstart), cnt + 1,
                            (int)*ntgt, gs, st);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

/* As many blocks as fit at once (the warps then take groups until none is left), fewer when
 * there are fewer groups than warps (at most one group per target). */
template <typename T, int LAW, bool POT, bool DT>
static cudaError_t gs_tr_walk_run(struct gs_cuda_ctx *c, const gs_tr_walk_args<T> &p, cudaStream_t st)
{
  int occ = 0;
  const cudaError_t e = (cudaError_t)gs_cuda_ctx_occupancy(c, (const void *)gs_tr_walk_kernel<T, LAW, POT, DT>,
                                                           GS_TR_WARPS * 32, &occ);
  if (e != cudaSuccess) return e;
  const uint64_t resident = (uint64_t)(c->sm_count > 0 ? c->sm_count : 1) * (uint64_t)(occ > 0 ? occ : 1);
  const uint64_t need = (p.ntgt + GS_TR_WARPS - 1) / GS_TR_WARPS;
  gs_tr_walk_kernel<T, LAW, POT, DT><<<(unsigned)(need < resident ? need : resident), GS_TR_WARPS * 32, 0, st>>>(p);
  return cudaGetLastError();
}

template <typename T, int LAW, bool POT>
static cudaError_t gs_tr_walk_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, const gs_tr_layout &L,
                                     uint32_t ntgt, cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  gs_tr_walk_args<T> p;
  void *ws = a->ws;
  p.pos = (const V *)a->pos;
  p.spos = gs_tr_at<const V>(ws, L.spos);
  p.cm = gs_tr_at<const V>(ws, L.cm), p.qd = gs_tr_at<const V>(ws, L.qd);
  p.lo = gs_tr_at<const V>(ws, L.lo), p.hi = gs_tr_at<const V>(ws, L.hi);
  p.aold = (const V *)a->aold;
  p.child = gs_tr_at<const uint2>(ws, L.child), p.range = gs_tr_at<const uint2>(ws, L.range);
  p.tgt = gs_tr_at<const uint32_t>(ws, L.tgt), p.idx = gs_tr_at<const uint32_t>(ws, L.idx);
  p.gstart = gs_tr_at<const uint32_t>(ws, L.gstart);
  p.cnt = gs_tr_at<uint32_t>(ws, L.nsel);
  p.acc = (V *)a->acc;
  p.i_first = a->i_first;
  p.ntgt = ntgt, p.n = (uint32_t)a->n, p.leaf = (uint32_t)gs_tr_leaf(a->leaf);
  p.by_order = a->targets == GS_TREE_BY_ORDER;
  gs_tr_open_settings(p, a, 1); /* a->law is LAW */
  p.counts = (unsigned long long *)a->counts;
  p.root = 0, p.work = NULL;
  return gs_tr_walk_run<T, LAW, POT, false>(c, p, st);
}

template <typename T>
static cudaError_t gs_tr_walk_t(struct gs_cuda_ctx *c, const struct gs_tree_args *a, const gs_tr_layout &L,
                                uint32_t ntgt, cudaStream_t st)
{
  const bool pot = a->potential != 0;
  if (a->law == GS_LAW_PLUMMER)
    return pot ? gs_tr_walk_launch<T, GS_LAW_PLUMMER, true>(c, a, L, ntgt, st)
               : gs_tr_walk_launch<T, GS_LAW_PLUMMER, false>(c, a, L, ntgt, st);
  return pot ? gs_tr_walk_launch<T, GS_LAW_CUTOFF, true>(c, a, L, ntgt, st)
             : gs_tr_walk_launch<T, GS_LAW_CUTOFF, false>(c, a, L, ntgt, st);
}

/* No targets: nothing launched. The workspace must hold the tree gs_tree_build_launch made from
 * the same pos and n, earlier on the same stream. */
extern "C" int gs_tree_walk_launch(struct gs_cuda_ctx *c, const struct gs_tree_args *a, void *stream)
{
  if (!c || !gs_tr_args_ok(a)) return (int)cudaErrorInvalidValue;
  if (a->i_count == 0) return (int)cudaSuccess;
  gs_tr_layout L;
  if (!gs_tree_build_layout(a, &L)) return (int)cudaErrorInvalidValue;
  if (!a->pos || ((uintptr_t)a->pos & 15u) || !a->acc || ((uintptr_t)a->acc & 15u) || !a->ws ||
      ((uintptr_t)a->ws & 255u) || a->ws_bytes < L.total)
    return (int)cudaErrorInvalidValue;
  if (a->targets == GS_TREE_BY_ORDER && a->opening == GS_TREE_RELATIVE && !a->first &&
      (!a->aold || ((uintptr_t)a->aold & 15u)))
    return (int)cudaErrorInvalidValue;
  const cudaStream_t st = (cudaStream_t)stream;
  uint32_t ntgt = 0;
  cudaError_t e = gs_tr_targets(a, L, st, &ntgt);
  if (e != cudaSuccess || ntgt == 0) return (int)e;
  return (int)(a->precision ? gs_tr_walk_t<double>(c, a, L, ntgt, st) : gs_tr_walk_t<float>(c, a, L, ntgt, st));
}

/* ---- the distributed tree's merged tree (gs_tree_dstate.cuh) -------------------------------- */

template <typename T>
cudaError_t gs_tree_walk_merged(struct gs_cuda_ctx *c, const gs_tr_walk_args<T> &p, int law, int potential,
                                cudaStream_t st)
{
  if (p.ntgt == 0) return cudaSuccess;
  if (law == GS_LAW_PLUMMER)
    return potential ? gs_tr_walk_run<T, GS_LAW_PLUMMER, true, true>(c, p, st)
                     : gs_tr_walk_run<T, GS_LAW_PLUMMER, false, true>(c, p, st);
  return potential ? gs_tr_walk_run<T, GS_LAW_CUTOFF, true, true>(c, p, st)
                   : gs_tr_walk_run<T, GS_LAW_CUTOFF, false, true>(c, p, st);
}

template cudaError_t gs_tree_walk_merged<float>(struct gs_cuda_ctx *, const gs_tr_walk_args<float> &, int, int,
                                                cudaStream_t);
template cudaError_t gs_tree_walk_merged<double>(struct gs_cuda_ctx *, const gs_tr_walk_args<double> &, int, int,
                                                 cudaStream_t);

cudaError_t gs_tree_walk_groups(const uint32_t *gid, uint32_t n, uint32_t *gstart, uint32_t *cnt, void *temp,
                                size_t temp_bytes, cudaStream_t st)
{
  cudaError_t e = cudaMemsetAsync(cnt + 1, 0, 2 * sizeof(uint32_t), st);
  if (e != cudaSuccess || n == 0) return e;
  const thrust::counting_iterator<uint32_t> it(0);
  const gs_tr_starts gs = {NULL, gid, 0, n, 1};
  return cub::DeviceSelect::If(temp, temp_bytes, it, gstart, cnt + 1, (int)n, gs, st);
}
