/* gs_tree_dtop.cu: the CUDA distributed tree's top (gs_tree_dtop_launch, gs_cuda.h). The cell table
 * every rank gathered (its cells' root records, in the CPU node's fields: exact) goes to the device
 * as it is, is put in key order there (CUB), and becomes:
 *   - per cell j of that order: its record, least |a_old|, owner, count and its reference in the
 *     merged tree (gs_tree_dstate.cuh): this rank's root node, a body slot for a cell of one body,
 *     or its slot as a remote root, closed until a message opens it;
 *   - the top trie over the cells: Karras's radix tree over their first keys (disjoint prefixes:
 *     the common prefix of two cells' first keys is that of any of their bodies' keys, so this is
 *     the part of the bodies' trie above the cells) with its moments from the cells' records by
 *     the builder's own kernel, every rank the same bits; and per top node the least amin and the
 *     range of owners below it, with which the LET's senders test a receiver's cells top down. */
#include <cub/cub.cuh>
#include <math.h>

#include "gs_tree_dstate.cuh"
#include "gs_tree_kernels.cuh"

/* Room for m cells' arrays, vectors of vs bytes. */
static cudaError_t gs_tr_dtop_room(gs_tree_dstate *s, int m, int vs)
{
  if (m <= s->tcap && vs == s->vs && s->crec) return cudaSuccess;
  const size_t cap = (size_t)m + m / 4 + 16;
  void **p[] = {(void **)&s->table, (void **)&s->tkey_in, (void **)&s->tkey, (void **)&s->tiota, (void **)&s->tord,
                (void **)&s->tpos, &s->crec, &s->camin, (void **)&s->cown, (void **)&s->ccnt, (void **)&s->cref,
                (void **)&s->tchild, (void **)&s->trange, (void **)&s->tparent, (void **)&s->tflag, &s->tamin,
                (void **)&s->trr};
  const size_t row[] = {sizeof(struct gs_dtree_cell), 8, 8, 4, 4, 4, 4 * (size_t)vs, (size_t)vs, 4, 4, 4, 8, 8, 8, 4,
                        (size_t)vs, 8};
  for (size_t k = 0; k < sizeof row / sizeof *row; k++) {
    const cudaError_t e = gs_tr_dregrow(p[k], row[k], cap, 0, 0);
    if (e != cudaSuccess) return e;
  }
  s->tcap = (int)cap;
  return cudaSuccess;
}

static __global__ void gs_tr_dtop_keys(const struct gs_dtree_cell *__restrict__ t, int m, uint64_t *__restrict__ key,
                                       uint32_t *__restrict__ iota)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < m) key[k] = t[k].key, iota[k] = (uint32_t)k;
}

/* The merged tree's references and the arrays of cell j in key order (k = ord[j] in the table). */
struct gs_tr_dtop_where {
  uint64_t n, slot0; /* held bodies (the cells' body slots follow them); the first remote root slot */
  int me, cell0;     /* this rank; its first cell in the table */
};

template <typename T>
static __global__ void gs_tr_dtop_cells(const struct gs_dtree_cell *__restrict__ t, const uint32_t *__restrict__ ord,
                                        int m, const gs_tr_dtop_where w, const uint32_t *__restrict__ lroot,
                                        uint32_t *__restrict__ pos, gs_nb_vec_t<T> *__restrict__ rec, T *camin,
                                        int *own, uint32_t *cnt, uint32_t *ref)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  const uint32_t k = ord[j];
  const struct gs_dtree_node nd = t[k].node;
  pos[k] = (uint32_t)j;
  rec[j] = gs_nb_make<T>(nd.com[0], nd.com[1], nd.com[2], nd.mass);
  rec[m + j] = gs_nb_make<T>(nd.q[0], nd.q[1], nd.q[3], nd.q[4]);
  rec[2 * m + j] = gs_nb_make<T>(nd.lo[0], nd.lo[1], nd.lo[2], nd.q[5]);
  rec[3 * m + j] = gs_nb_make<T>(nd.hi[0], nd.hi[1], nd.hi[2], nd.tr);
  camin[j] = (T)t[k].amin, own[j] = t[k].owner, cnt[j] = (uint32_t)nd.count;
  ref[j] = nd.count == 1          ? GS_TR_BODY | (uint32_t)(w.n + j)
           : t[k].owner == w.me   ? lroot[k - w.cell0]
                                  : (uint32_t)(w.slot0 + j);
}

/* Cell j's slot where the walk may meet it: its body (a cell of one), or, for a remote cell, its
 * root closed (children GS_TR_MISSING, never a bucket) until a message opens it. */
template <typename T>
static __global__ void gs_tr_dtop_slots(int m, const gs_tr_dtop_where w, const gs_nb_vec_t<T> *__restrict__ rec,
                                        const int *own, const uint32_t *cnt, gs_nb_vec_t<T> *spos, gs_nb_vec_t<T> *cm,
                                        gs_nb_vec_t<T> *qd, gs_nb_vec_t<T> *lo, gs_nb_vec_t<T> *hi, uint2 *child,
                                        uint2 *range)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  if (cnt[j] == 1) spos[w.n + j] = rec[j];
  if (cnt[j] < 2 || own[j] == w.me) return;
  const uint64_t x = w.slot0 + j;
  cm[x] = rec[j], qd[x] = rec[m + j], lo[x] = rec[2 * m + j], hi[x] = rec[3 * m + j];
  child[x] = make_uint2(GS_TR_MISSING, GS_TR_MISSING), range[x] = GS_TR_WHOLE;
}

/* One thread per cell climbs the top trie as gs_tr_moments does (the second child to arrive
 * computes its parent): the least amin and the lowest and highest owner below each top node. */
template <typename T>
static __global__ void gs_tr_dtop_bounds(int m, const uint2 *__restrict__ child, const uint32_t *__restrict__ parent,
                                         uint32_t *flag, const T *__restrict__ camin, const int *__restrict__ own,
                                         T *amin, int2 *rr)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  uint32_t node = parent[m - 1 + j];
  while (node != GS_TR_NONE) {
    __threadfence();
    if (atomicAdd(flag + node, 1u) == 0) return;
    __threadfence();
    const uint2 c = child[node];
    T a[2];
    int2 r[2];
    const uint32_t kid[2] = {c.x, c.y};
    for (int h = 0; h < 2; h++) {
      const uint32_t id = kid[h];
      a[h] = id >= (uint32_t)m - 1 ? camin[id - (m - 1)] : __ldcg(amin + id);
      const int o = id >= (uint32_t)m - 1 ? own[id - (m - 1)] : 0;
      r[h] = id >= (uint32_t)m - 1 ? make_int2(o, o) : __ldcg(rr + id);
    }
    amin[node] = fmin(a[0], a[1]);
    rr[node] = make_int2(min(r[0].x, r[1].x), max(r[0].y, r[1].y));
    node = parent[node];
  }
}

/* Top node t's children in the merged tree: top nodes at x0 + t, cells by their references. */
static __global__ void gs_tr_dtop_encode(int m, uint64_t x0, const uint2 *__restrict__ tchild,
                                         const uint32_t *__restrict__ ref, uint2 *child, uint2 *range)
{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m - 1) return;
  const uint2 c = tchild[t];
  const uint32_t last = (uint32_t)m - 1;
  child[x0 + t] = make_uint2(c.x >= last ? ref[c.x - last] : (uint32_t)(x0 + c.x),
                             c.y >= last ? ref[c.y - last] : (uint32_t)(x0 + c.y));
  range[x0 + t] = GS_TR_WHOLE;
}

/* The top trie over m >= 2 cells (keys sorted in s->tkey, records in s->crec) at node x0. */
template <typename T>
static cudaError_t gs_tr_dtop_trie(gs_tree_dstate *s, int m, uint64_t x0, cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  const V *rec = (const V *)s->crec;
  gs_tr_radix<<<gs_tr_grid(m - 1), GS_TR_BLOCK, 0, st>>>(s->tkey, NULL, m, s->tchild, s->trange, s->tparent, s->tflag);
  const gs_tr_leaves<T> leaf = {NULL, {rec, rec + m, rec + 2 * m, rec + 3 * m}};
  gs_tr_moments<T><<<gs_tr_grid(m), GS_TR_BLOCK, 0, st>>>(leaf, (uint32_t)m, s->tchild, s->tparent, s->tflag,
                                                          (V *)s->cm + x0, (V *)s->qd + x0, (V *)s->lo + x0,
                                                          (V *)s->hi + x0);
  cudaError_t e = cudaMemsetAsync(s->tflag, 0, sizeof(uint32_t) * (size_t)m, st);
  if (e != cudaSuccess) return e;
  gs_tr_dtop_bounds<T><<<gs_tr_grid(m), GS_TR_BLOCK, 0, st>>>(m, s->tchild, s->tparent, s->tflag, (const T *)s->camin,
                                                              s->cown, (T *)s->tamin, s->trr);
  gs_tr_dtop_encode<<<gs_tr_grid(m), GS_TR_BLOCK, 0, st>>>(m, x0, s->tchild, s->cref, s->child, s->range);
  return cudaGetLastError();
}

template <typename T>
static cudaError_t gs_tr_dtop_t(gs_tree_dstate *s, const struct gs_dtree_cell *table, int m, int cell0, int me,
                                cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  cudaError_t e = gs_tr_dtop_room(s, m, (int)sizeof(V));
  if (e != cudaSuccess) return e;
  s->m = m;
  const gs_tr_dtop_where w = {s->n, gs_tr_dslot(s), me, cell0};
  if ((e = gs_tr_dmerged_room(s, gs_tr_dlet0(s) + 1, s->n + (uint64_t)m, gs_tr_dx0(s), s->n, (int)sizeof(V), st)) !=
      cudaSuccess)
    return e;
  if ((e = cudaMemcpyAsync(s->table, table, sizeof *table * (size_t)m, cudaMemcpyHostToDevice, st)) != cudaSuccess)
    return e;
  const unsigned grid = (unsigned)((m + 255) / 256);
  gs_tr_dtop_keys<<<grid, 256, 0, st>>>(s->table, m, s->tkey_in, s->tiota);
  if (m >= 2) {
    if ((e = gs_tr_dcub(s, [&](void *t, size_t &bytes) {
           return cub::DeviceRadixSort::SortPairs(t, bytes, s->tkey_in, s->tkey, s->tiota, s->tord, m, 0,
                                                  3 * GS_DTREE_BITS, st);
         })) != cudaSuccess)
      return e;
  } else if ((e = cudaMemcpyAsync(s->tord, s->tiota, 4, cudaMemcpyDeviceToDevice, st)) != cudaSuccess) {
    return e;
  }
  V *rec = (V *)s->crec;
  gs_tr_dtop_cells<T><<<grid, 256, 0, st>>>(s->table, s->tord, m, w, s->lroot, s->tpos, rec, (T *)s->camin, s->cown,
                                            s->ccnt, s->cref);
  gs_tr_dtop_slots<T><<<grid, 256, 0, st>>>(m, w, rec, s->cown, s->ccnt, (V *)s->spos, (V *)s->cm, (V *)s->qd,
                                            (V *)s->lo, (V *)s->hi, s->child, s->range);
  if (m >= 2 && (e = gs_tr_dtop_trie<T>(s, m, gs_tr_dx0(s), st)) != cudaSuccess) return e;
  if (m >= 2) s->root = (uint32_t)gs_tr_dx0(s);
  else if ((e = cudaMemcpyAsync(&s->root, s->cref, 4, cudaMemcpyDeviceToHost, st)) != cudaSuccess) return e;
  if ((e = cudaStreamSynchronize(st)) != cudaSuccess) return e;
  s->top_ready = 1;
  return cudaGetLastError();
}

extern "C" int gs_tree_dtop_launch(struct gs_tree_dstate *s, const struct gs_tree_args *a,
                                   const struct gs_dtree_cell *table, int ncell, int cell0, int me, void *stream)
{
  if (!s || !a || ncell < 1 || (s->n && !s->built)) return (int)cudaErrorInvalidValue;
  const cudaStream_t st = (cudaStream_t)stream;
  return (int)(a->precision ? gs_tr_dtop_t<double>(s, table, ncell, cell0, me, st)
                            : gs_tr_dtop_t<float>(s, table, ncell, cell0, me, st));
}
