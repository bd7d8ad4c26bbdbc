/* gs_tree_dbuild.cu: the CUDA distributed tree's build (gs_tree_dbuild_launch, gs_cuda.h): the
 * replicated tree's radix tree and moments (gs_tree_kernels.cuh) over this rank's bodies in (key,
 * id) order, ties split by id, so that each domain cell's subtree is a function of that cell's
 * bodies alone, whichever rank builds it and wherever its bodies start in the rank's array
 * (gs_tree_dstate.cuh says why the nodes above the cells do not matter). Then:
 *   - the children in the merged tree's encoding (bodies flagged GS_TR_BODY);
 *   - the walk's groups, the largest nodes of at most GS_TR_GROUP bodies that lie in one cell (a
 *     node spanning two cells is never a group, so a group is the same on any rank count);
 *   - each cell's root (a node whose range is exactly the cell's bodies: Karras's node f or l),
 *     its record and the least |a_old| of its bodies (the relative test's bound), to the host. */
#include <cub/cub.cuh>
#include <math.h>

#include "gs_tree_dstate.cuh"
#include "gs_tree_kernels.cuh"

/* cellid[s] = k for every position s of cell k (one block per cell). */
static __global__ void gs_tr_dbuild_cellid(const uint64_t *__restrict__ at, uint32_t *__restrict__ cellid)
{
  const uint32_t k = blockIdx.x;
  for (uint64_t s = at[k] + threadIdx.x; s < at[k + 1]; s += blockDim.x) cellid[s] = k;
}

/* The children of internal node i into the merged tree's encoding, in place: a body s (the
 * build's n - 1 + s) as GS_TR_BODY | s. */
static __global__ void __launch_bounds__(GS_TR_BLOCK) gs_tr_dbuild_encode(uint32_t n, uint2 *child)
{
  const uint32_t i = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (i + 1 >= n) return;
  const uint2 c = child[i];
  child[i] = make_uint2(c.x >= n - 1 ? GS_TR_BODY | (c.x - (n - 1)) : c.x, c.y >= n - 1 ? GS_TR_BODY | (c.y - (n - 1)) : c.y);
}

/* flag[s] = 1 where a group starts (flag zeroed before): the children of at most GS_TR_GROUP
 * bodies within one cell of a node that is larger or spans two cells; the root where the whole
 * tree is one small cell. */
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_dbuild_groups(const uint2 *__restrict__ child, const uint2 *__restrict__ range,
                    const uint32_t *__restrict__ cellid, uint32_t n, uint32_t *__restrict__ flag)
{
  const uint32_t k = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (n == 1) {
    if (k == 0) flag[0] = 1;
    return;
  }
  if (k >= n - 1) return;
  const uint2 r = range[k];
  const bool big = r.y - r.x + 1 > GS_TR_GROUP || cellid[r.x] != cellid[r.y];
  if (!big) {
    if (k == 0) flag[0] = 1;
    return;
  }
  const uint2 c = child[k];
  const uint32_t kids[2] = {c.x, c.y};
  for (int h = 0; h < 2; ++h) {
    const uint32_t id = kids[h];
    const uint2 cr = id >= n - 1 ? make_uint2(id - (n - 1), id - (n - 1)) : range[id];
    if (cr.y - cr.x + 1 <= GS_TR_GROUP && cellid[cr.x] == cellid[cr.y]) flag[cr.x] = 1;
  }
}

/* One warp per cell k (bodies [at[k], at[k + 1])): its root (a local node, or the body of a cell
 * of one), its record (cm, qd, lo, hi as the moments made them, or the body's point) and, where
 * rel, the least |a_old| of its bodies as the walk computes a group's (else +inf): into rec[5 k ..]. */
template <typename T>
static __global__ void gs_tr_dbuild_cells(const uint64_t *__restrict__ at, int nc, uint32_t n,
                                          const uint2 *__restrict__ range, const gs_nb_vec_t<T> *__restrict__ pos,
                                          const gs_nb_vec_t<T> *__restrict__ acc, const gs_nb_vec_t<T> *cm,
                                          const gs_nb_vec_t<T> *qd, const gs_nb_vec_t<T> *lo,
                                          const gs_nb_vec_t<T> *hi, int rel, uint32_t *__restrict__ root,
                                          gs_nb_vec_t<T> *__restrict__ rec)
{
  using V = gs_nb_vec_t<T>;
  const int k = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32), lane = threadIdx.x & 31;
  if (k >= nc) return;
  const uint32_t f = (uint32_t)at[k], l = (uint32_t)at[k + 1] - 1;
  T amin = T(INFINITY);
  for (uint32_t i = f + lane; rel && i <= l; i += 32) {
    const V o = acc[i];
    amin = fmin(amin, sqrt(o.x * o.x + o.y * o.y + o.z * o.z));
  }
  for (int o = 16; o > 0; o >>= 1) amin = fmin(amin, __shfl_xor_sync(~0u, amin, o));
  if (lane) return;
  V *r = rec + 5 * (size_t)k;
  if (f == l) {
    const V p = pos[f];
    root[k] = GS_TR_BODY | f;
    r[0] = p, r[1] = gs_nb_make<T>(0, 0, 0, 0), r[2] = gs_nb_make<T>(p.x, p.y, p.z, 0);
    r[3] = gs_nb_make<T>(p.x, p.y, p.z, 0);
  } else {
    const uint32_t node = f + 1 < n && range[f].x == f && range[f].y == l ? f : l;
    root[k] = node;
    r[0] = cm[node], r[1] = qd[node], r[2] = lo[node], r[3] = hi[node];
  }
  r[4] = gs_nb_make<T>(amin, 0, 0, 0);
}

/* The merged tree's first n - 1 nodes and the groups over b's n >= 1 bodies. */
template <typename T>
static cudaError_t gs_tr_dbuild_tree(gs_tree_dstate *s, const struct gs_dtree_bodies *b, int nc, cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  const uint32_t n = (uint32_t)b->n;
  if (n >= 2) {
    gs_tr_radix<<<gs_tr_grid(n - 1), GS_TR_BLOCK, 0, st>>>(b->key, b->id, (int)n, s->child, s->range, s->parent,
                                                          s->flag);
    const gs_tr_leaves<T> leaf = {(const V *)b->pos, {NULL, NULL, NULL, NULL}};
    gs_tr_moments<T><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(leaf, n, s->child, s->parent, s->flag, (V *)s->cm,
                                                            (V *)s->qd, (V *)s->lo, (V *)s->hi);
  }
  gs_tr_dbuild_cellid<<<(unsigned)nc, 256, 0, st>>>(s->at, s->cellid);
  cudaError_t e = cudaMemsetAsync(s->flag, 0, (size_t)n * sizeof(uint32_t), st);
  if (e != cudaSuccess) return e;
  gs_tr_dbuild_groups<<<gs_tr_grid(n > 1 ? n - 1 : 1), GS_TR_BLOCK, 0, st>>>(s->child, s->range, s->cellid, n,
                                                                             s->flag);
  if (n >= 2) gs_tr_dbuild_encode<<<gs_tr_grid(n - 1), GS_TR_BLOCK, 0, st>>>(n, s->child);
  return gs_tr_dcub(s, [&](void *t, size_t &bytes) {
    return cub::DeviceScan::InclusiveSum(t, bytes, s->flag, s->gid, (int)n, st);
  });
}

/* Cell k's record (5 vectors of rec) into cells[k]: the CPU node's fields carry the CUDA record's
 * numbers exactly (floats are doubles), so the table takes them to every rank and back. */
template <typename T>
static void gs_tr_dbuild_to_host(const gs_nb_vec_t<T> *r, uint64_t count, struct gs_dtree_cell *cell)
{
  struct gs_dtree_node *nd = &cell->node;
  const gs_nb_vec_t<T> cm = r[0], qd = r[1], lo = r[2], hi = r[3];
  memset(nd, 0, sizeof *nd);
  nd->com[0] = cm.x, nd->com[1] = cm.y, nd->com[2] = cm.z, nd->mass = cm.w;
  nd->q[0] = qd.x, nd->q[1] = qd.y, nd->q[3] = qd.z, nd->q[4] = qd.w, nd->q[5] = lo.w, nd->tr = hi.w;
  nd->lo[0] = lo.x, nd->lo[1] = lo.y, nd->lo[2] = lo.z, nd->hi[0] = hi.x, nd->hi[1] = hi.y, nd->hi[2] = hi.z;
  nd->count = count;
  cell->amin = r[4].x;
}

template <typename T>
static cudaError_t gs_tr_dbuild_t(gs_tree_dstate *s, const struct gs_tree_args *a, const struct gs_dtree_bodies *b,
                                  const uint64_t *at, struct gs_dtree_cell *cells, int nc, cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  const uint64_t n = b->n;
  cudaError_t e = gs_tr_dmerged_room(s, n, n, 0, 0, (int)sizeof(V), st); /* the held bodies: the first ones */
  if (e != cudaSuccess || (n && (e = cudaMemcpyAsync(s->spos, b->pos, sizeof(V) * n, cudaMemcpyDeviceToDevice, st)) !=
                                    cudaSuccess))
    return e;
  if (nc + 1 > s->ccap) {
    s->ccap = nc + nc / 4 + 16;
    if ((e = gs_tr_dregrow((void **)&s->at, 8, (uint64_t)s->ccap, 0, st)) != cudaSuccess ||
        (e = gs_tr_dregrow((void **)&s->lroot, 4, (uint64_t)s->ccap, 0, st)) != cudaSuccess ||
        (e = gs_tr_dregrow(&s->lrec, 5 * 32, (uint64_t)s->ccap, 0, st)) != cudaSuccess)
      return e;
  }
  s->n = n, s->nlc = nc, s->built = 0, s->top_ready = 0;
  if (n == 0 || nc == 0) return cudaSuccess;
  if ((e = cudaMemcpyAsync(s->at, at, 8 * ((size_t)nc + 1), cudaMemcpyHostToDevice, st)) != cudaSuccess ||
      (e = gs_tr_dbuild_tree<T>(s, b, nc, st)) != cudaSuccess)
    return e;
  const int rel = a->opening == GS_TREE_RELATIVE && !a->first;
  gs_tr_dbuild_cells<T><<<(unsigned)(((size_t)nc * 32 + 255) / 256), 256, 0, st>>>(
      s->at, nc, (uint32_t)n, s->range, (const V *)b->pos, (const V *)b->acc, (const V *)s->cm, (const V *)s->qd,
      (const V *)s->lo, (const V *)s->hi, rel, s->lroot, (V *)s->lrec);
  V *h = (V *)malloc(5 * sizeof(V) * (size_t)nc);
  if (!h) return cudaErrorMemoryAllocation;
  e = cudaMemcpyAsync(h, s->lrec, 5 * sizeof(V) * (size_t)nc, cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  for (int k = 0; k < nc && e == cudaSuccess; k++)
    gs_tr_dbuild_to_host<T>(h + 5 * (size_t)k, at[k + 1] - at[k], &cells[k]);
  free(h);
  if (e == cudaSuccess) s->built = 1;
  return e == cudaSuccess ? cudaGetLastError() : e;
}

extern "C" int gs_tree_dbuild_launch(struct gs_cuda_ctx *c, struct gs_tree_dstate *s, const struct gs_tree_args *a,
                                     const struct gs_dtree_bodies *b, const uint64_t *at, struct gs_dtree_cell *cells,
                                     int ncell, void *stream)
{
  (void)c;
  if (!s || !gs_tr_args_ok(a) || b->n >= (1ull << 30) || (b->n && b->n > s->bcap)) return (int)cudaErrorInvalidValue;
  const cudaStream_t st = (cudaStream_t)stream;
  return (int)(a->precision ? gs_tr_dbuild_t<double>(s, a, b, at, cells, ncell, st)
                            : gs_tr_dbuild_t<float>(s, a, b, at, cells, ncell, st));
}
