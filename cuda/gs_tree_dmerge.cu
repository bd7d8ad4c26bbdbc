/* gs_tree_dmerge.cu: the CUDA distributed tree's walk (gs_tree_dmerge_walk, gs_cuda.h): the
 * messages received (gs_tree_dlet.cu wrote them) merged into the merged tree (gs_tree_dstate.cuh),
 * then the replicated tree's walk over it (gs_tree_walk.cu, its merged-tree instances) for this
 * rank's bodies. A message's entries take consecutive node slots (a body entry's slot goes
 * unused: its body takes a body slot), its buckets' bodies consecutive body slots, then its body
 * entries'; an open entry's children are the entries after the roots two by two, in the order of
 * the open entries (an exclusive count of the open ones before it), and a root also opens its
 * cell's slot, which the top trie points to. */
#include <cub/cub.cuh>

#include "gs_tree_dstate.cuh"

/* Per entry: open entries, body entries and bucket bodies before it (an exclusive scan). */
struct gs_tr_dmerge_count {
  uint32_t open, body, bucket;
};

struct gs_tr_dmerge_add {
  __host__ __device__ __forceinline__ gs_tr_dmerge_count operator()(const gs_tr_dmerge_count &a,
                                                                     const gs_tr_dmerge_count &b) const
  {
    return {a.open + b.open, a.body + b.body, a.bucket + b.bucket};
  }
};

static __global__ void gs_tr_dmerge_counts(const uint8_t *__restrict__ kind, uint64_t ne, gs_tr_dmerge_count *c)
{
  const uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= ne) return;
  const uint8_t k = kind[e];
  c[e] = {k == GS_TR_DK_OPEN, k == GS_TR_DK_BODY, k <= GS_TR_LEAF_MAX ? (uint32_t)k : 0u};
}

/* Where one message goes: its first node slot, its buckets' first body slot, its body entries'
 * first body slot, its counts; the cells' slots and the table's key order. */
struct gs_tr_dmerge_at {
  uint64_t node0, bucket0, body0, nroot, ne;
  uint64_t slot0; /* the first cell slot (cell j's: slot0 + j) */
};

/* Entry c's reference in the merged tree. */
static __device__ __forceinline__ uint32_t gs_tr_dmerge_ref(const gs_tr_dmerge_at &w, const uint8_t *kind,
                                                            const gs_tr_dmerge_count *c, uint64_t e)
{
  return kind[e] == GS_TR_DK_BODY ? GS_TR_BODY | (uint32_t)(w.body0 + c[e].body) : (uint32_t)(w.node0 + e);
}

/* Entry e of one message into its slots; a root into its cell's slot too. */
template <typename T>
static __global__ void gs_tr_dmerge_place(const gs_tr_dmerge_at w, const uint8_t *__restrict__ kind,
                                          const gs_tr_dmerge_count *__restrict__ c,
                                          const gs_nb_vec_t<T> *__restrict__ rec, const uint32_t *__restrict__ cells,
                                          const uint32_t *__restrict__ tpos, gs_nb_vec_t<T> *spos, gs_nb_vec_t<T> *cm,
                                          gs_nb_vec_t<T> *qd, gs_nb_vec_t<T> *lo, gs_nb_vec_t<T> *hi, uint2 *child,
                                          uint2 *range)
{
  const uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= w.ne) return;
  const uint8_t k = kind[e];
  const gs_nb_vec_t<T> *r = rec + 4 * e;
  if (k == GS_TR_DK_BODY) {
    spos[w.body0 + c[e].body] = r[0];
    return;
  }
  uint2 ch = make_uint2(GS_TR_MISSING, GS_TR_MISSING), rg = GS_TR_WHOLE;
  if (k == GS_TR_DK_OPEN) {
    const uint64_t f = w.nroot + 2ull * c[e].open;
    ch = make_uint2(gs_tr_dmerge_ref(w, kind, c, f), gs_tr_dmerge_ref(w, kind, c, f + 1));
  } else if (k <= GS_TR_LEAF_MAX) {
    const uint32_t b = (uint32_t)(w.bucket0 + c[e].bucket);
    rg = make_uint2(b, b + k - 1);
  }
  const uint64_t x = w.node0 + e;
  cm[x] = r[0], qd[x] = r[1], lo[x] = r[2], hi[x] = r[3], child[x] = ch, range[x] = rg;
  if (e < w.nroot) {
    const uint64_t y = w.slot0 + tpos[cells[e]];
    child[y] = ch, range[y] = rg;
  }
}

/* One message at m (device; its header h) into the slots w says. */
template <typename T>
static cudaError_t gs_tr_dmerge_one(gs_tree_dstate *s, const char *m, const gs_tr_dhead &h, const gs_tr_dmerge_at &w,
                                    cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  const uint64_t ne = h.nentry;
  const unsigned grid = (unsigned)((ne + 255) / 256);
  cudaError_t e = gs_tr_dgrow(&s->small, &s->small_cap, 2 * sizeof(gs_tr_dmerge_count) * ne + 16);
  if (e != cudaSuccess) return e;
  gs_tr_dmerge_count *cin = (gs_tr_dmerge_count *)s->small, *cout = cin + ne;
  const uint8_t *kind = (const uint8_t *)(m + gs_tr_dkinds_at(h));
  gs_tr_dmerge_counts<<<grid, 256, 0, st>>>(kind, ne, cin);
  const gs_tr_dmerge_count zero = {0, 0, 0};
  if ((e = gs_tr_dcub(s, [&](void *t, size_t &bytes) {
         return cub::DeviceScan::ExclusiveScan(t, bytes, cin, cout, gs_tr_dmerge_add(), zero, (int64_t)ne, st);
       })) != cudaSuccess)
    return e;
  if (h.nbody && (e = cudaMemcpyAsync((V *)s->spos + w.bucket0, m + gs_tr_dbodies_at(h, (int)sizeof(V)),
                                      sizeof(V) * h.nbody, cudaMemcpyDeviceToDevice, st)) != cudaSuccess)
    return e;
  gs_tr_dmerge_place<T><<<grid, 256, 0, st>>>(w, kind, cout, (const V *)(m + gs_tr_drecs_at(h)),
                                              (const uint32_t *)(m + gs_tr_dcells_at()), s->tpos, (V *)s->spos,
                                              (V *)s->cm, (V *)s->qd, (V *)s->lo, (V *)s->hi, s->child, s->range);
  return cudaGetLastError();
}

/* Every message of recv (rbytes[q] from rank q, host) merged after the top's slots. */
template <typename T>
static cudaError_t gs_tr_dmerge_all(gs_tree_dstate *s, const char *recv, const uint64_t *rbytes, int P,
                                    cudaStream_t st)
{
  gs_tr_dhead *h = (gs_tr_dhead *)calloc((size_t)P, sizeof *h);
  if (!h) return cudaErrorMemoryAllocation;
  cudaError_t e = cudaSuccess;
  uint64_t off = 0, ne = 0, nb = 0;
  for (int q = 0; q < P && e == cudaSuccess; off += rbytes[q], q++)
    if (rbytes[q]) e = cudaMemcpyAsync(&h[q], recv + off, sizeof *h, cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  for (int q = 0; q < P; q++)
    ne += h[q].nentry, nb += h[q].nbody + h[q].nentry; /* a body entry's body: nentry bounds them */
  const uint64_t let0 = gs_tr_dlet0(s), b0 = s->n + (uint64_t)s->m;
  if (e == cudaSuccess) e = gs_tr_dmerged_room(s, let0 + ne + 1, b0 + nb + 1, let0, b0, (int)sizeof(gs_nb_vec_t<T>), st);
  gs_tr_dmerge_at w = {let0, b0, 0, 0, 0, gs_tr_dslot(s)};
  off = 0;
  for (int q = 0; q < P && e == cudaSuccess; off += rbytes[q], q++) {
    if (!rbytes[q]) continue;
    w.body0 = w.bucket0 + h[q].nbody, w.nroot = h[q].nroot, w.ne = h[q].nentry;
    e = gs_tr_dmerge_one<T>(s, recv + off, h[q], w, st);
    w.node0 += h[q].nentry, w.bucket0 = w.body0 + h[q].nentry;
  }
  free(h);
  return e;
}

/* The merged tree's walk of the held bodies b into a->acc (their order), work per body. */
template <typename T>
static cudaError_t gs_tr_dmerge_walk_t(struct gs_cuda_ctx *c, gs_tree_dstate *s, const struct gs_tree_args *a,
                                       const struct gs_dtree_bodies *b, double *work, uint64_t *missing,
                                       cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  const uint32_t n = (uint32_t)s->n;
  uint32_t *cnt = (uint32_t *)(s->counts + 12); /* the walk's [1] groups, [2] taken */
  cudaError_t e = cudaMemsetAsync(s->counts, 0, GS_TREE_COUNTS * sizeof *s->counts, st);
  const size_t temp = gs_tree_walk_temp_bytes(n ? n : 1, n ? n : 1);
  if (e != cudaSuccess || (e = gs_tr_dgrow(&s->cub, &s->cub_cap, temp)) != cudaSuccess ||
      (e = gs_tree_walk_groups(s->gid, n, s->gstart, cnt, s->cub, s->cub_cap, st)) != cudaSuccess)
    return e;
  gs_tr_walk_args<T> p;
  memset(&p, 0, sizeof p);
  p.spos = (const V *)s->spos, p.cm = (const V *)s->cm, p.qd = (const V *)s->qd;
  p.lo = (const V *)s->lo, p.hi = (const V *)s->hi, p.aold = (const V *)b->acc;
  p.child = s->child, p.range = s->range, p.gstart = s->gstart, p.cnt = cnt, p.acc = (V *)a->acc;
  p.ntgt = n, p.n = n, p.leaf = (uint32_t)gs_tr_leaf(a->leaf), p.by_order = 1;
  gs_tr_open_settings(p, a, 1);
  p.counts = s->counts, p.root = s->root, p.work = work;
  if ((e = gs_tree_walk_merged<T>(c, p, a->law, a->potential, st)) != cudaSuccess) return e;
  unsigned long long h[GS_TREE_COUNTS];
  if ((e = cudaMemcpyAsync(h, s->counts, sizeof h, cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
      (e = cudaStreamSynchronize(st)) != cudaSuccess)
    return e;
  if (a->counts)
    for (int k = GS_TREE_BODY_BODY; k <= GS_TREE_GROUPS; k++)
      if (k != GS_TREE_NODES) a->counts[k] += h[k];
  *missing = h[GS_TREE_MISSING];
  return cudaGetLastError();
}

extern "C" int gs_tree_dmerge_walk(struct gs_cuda_ctx *c, struct gs_tree_dstate *s, const struct gs_tree_args *a,
                                   const struct gs_dtree_cell *table, int ncell, int cell0, const void *recv,
                                   const uint64_t *rbytes, int P, const struct gs_dtree_bodies *b, double *work,
                                   uint64_t *missing, void *stream)
{
  *missing = 0;
  if (!s || !gs_tr_args_ok(a) || (s->n && !s->built) || b->n != s->n) return (int)cudaErrorInvalidValue;
  const cudaStream_t st = (cudaStream_t)stream;
  cudaError_t e = cudaSuccess;
  const int me = s->nlc ? table[cell0].owner : -1; /* a rank without cells owns none of them */
  if (!s->top_ready) e = (cudaError_t)gs_tree_dtop_launch(s, a, table, ncell, cell0, me, stream);
  if (e == cudaSuccess)
    e = a->precision ? gs_tr_dmerge_all<double>(s, (const char *)recv, rbytes, P, st)
                     : gs_tr_dmerge_all<float>(s, (const char *)recv, rbytes, P, st);
  if (e == cudaSuccess && s->n)
    e = a->precision ? gs_tr_dmerge_walk_t<double>(c, s, a, b, work, missing, st)
                     : gs_tr_dmerge_walk_t<float>(c, s, a, b, work, missing, st);
  s->top_ready = 0; /* the next walk's table is the next let's */
  return (int)e;
}
