/* gs_tree_dlet.cu: the CUDA distributed tree's locally essential trees (gs_tree_dlet_launch,
 * gs_cuda.h): what this rank's cells must send each other rank so that the receiver's walk finds
 * every node it opens. A node is needed by receiver r when the walk's own test (gs_tree_open.cuh),
 * with theta^2 and alpha shrunk by 2^-12 against rounding, opens it for one of r's cells' boxes
 * (each group of r lies in one; a box that holds the group's is nearer, so a group that opens the
 * node always finds its cell does, gs_tr_dlet_needed). r's cells are found top down through the
 * top trie (gs_tree_dtop.cu): a top node whose box does not open the node, or whose owners leave r
 * out, is passed over with every cell below it, so a test costs about the trie's depth, not r's
 * cell count.
 *
 * All receivers at once, level by level: level 0 the (receiver, cell) pairs whose root is needed,
 * in receiver order; each level's open nodes give the next level two entries each, their
 * children, in the same order, as a body, a leaf bucket of at most leaf bodies (needed: its bodies
 * follow), an open node or a shut one (its record alone). Every level is thus grouped by receiver;
 * one pass at the end copies each receiver's parts, level after level, into its message (the
 * format: gs_tree_dstate.cuh). A receiver rebuilds the links from the order alone: the entries
 * after the roots are, two by two, the children of the open entries in their order. */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gs_tree_dstate.cuh"

/* The senders' view of the receivers' cells: the top trie (its nodes' boxes, least amin, owners'
 * range and children, gs_tree_dtop.cu) and the cells in key order. */
template <typename T>
struct gs_tr_dlet_view {
  const gs_nb_vec_t<T> *tlo, *thi, *clo, *chi;
  const T *tamin, *camin;
  const int2 *trr;
  const int *cown;
  const uint2 *tchild;
  uint32_t m;
};

/* May receiver r's walk open the node (centre of mass c, box l .. h)? Top down through the top
 * trie; where it has one cell only, that cell. */
template <typename T, int LAW>
static __device__ bool gs_tr_dlet_needed(const gs_tr_walk_args<T> &p, const gs_tr_dlet_view<T> &v,
                                         const gs_nb_vec_t<T> &c, const gs_nb_vec_t<T> &l, const gs_nb_vec_t<T> &h,
                                         int r)
{
  uint32_t stack[72]; /* a top trie over distinct 63-bit keys is at most 63 deep: a pop pushes two */
  const uint32_t last = v.m - 1;
  int sp = 0;
  stack[sp++] = v.m > 1 ? 0u : last;
  while (sp > 0) {
    const uint32_t e = stack[--sp];
    gs_tr_group<T> g;
    if (e >= last) {
      const uint32_t j = e - last;
      if (v.cown[j] != r) continue;
      const gs_nb_vec_t<T> lo = v.clo[j], hi = v.chi[j];
      g.lx = lo.x, g.ly = lo.y, g.lz = lo.z, g.hx = hi.x, g.hy = hi.y, g.hz = hi.z, g.amin = v.camin[j];
      if (gs_tr_fate<T, LAW>(p, g, c, l, h) == GS_TR_OPEN) return true;
      continue;
    }
    const int2 rr = v.trr[e];
    if (r < rr.x || r > rr.y) continue;
    const gs_nb_vec_t<T> lo = v.tlo[e], hi = v.thi[e];
    g.lx = lo.x, g.ly = lo.y, g.lz = lo.z, g.hx = hi.x, g.hy = hi.y, g.hz = hi.z, g.amin = v.tamin[e];
    if (gs_tr_fate<T, LAW>(p, g, c, l, h) != GS_TR_OPEN) continue;
    if (sp + 2 > 72) __trap(); /* cannot happen (depth); never silently */
    const uint2 ch = v.tchild[e];
    stack[sp++] = ch.y, stack[sp++] = ch.x;
  }
  return false;
}

/* What a level kernel needs besides the test's arguments. */
struct gs_tr_dlet_level {
  uint32_t leaf;     /* the walk's bucket size */
  int P, me, cell0;  /* ranks, this rank, its first cell in the table */
  const int *first;  /* P + 1: receiver r's cells are table[first[r], first[r + 1]) */
  uint32_t *cnt;     /* per (level, receiver): entries, then bucket bodies (after levels * P) */
  uint32_t lp;       /* levels * P */
};

/* The kind of child c (a local node id, or GS_TR_BODY | a body) for receiver r, its bodies if it
 * is a bucket sent whole. */
template <typename T, int LAW>
static __device__ uint8_t gs_tr_dlet_kind(const gs_tr_walk_args<T> &p, const gs_tr_dlet_view<T> &v,
                                          const gs_tr_dlet_level &q, uint32_t c, int r, uint32_t *bodies)
{
  *bodies = 0;
  if (c & GS_TR_BODY) return GS_TR_DK_BODY;
  const uint2 cr = p.range[c];
  const uint32_t cnt = cr.y - cr.x + 1;
  if (!gs_tr_dlet_needed<T, LAW>(p, v, p.cm[c], p.lo[c], p.hi[c], r)) return GS_TR_DK_SHUT;
  if (cnt > q.leaf) return GS_TR_DK_OPEN;
  *bodies = cnt;
  return (uint8_t)cnt;
}

/* Level 0: pair (r, k), k this rank's cell, r = idx / nc: its root needed by r? (flag) */
template <typename T, int LAW>
static __global__ void gs_tr_dlet_roots(const gs_tr_walk_args<T> p, const gs_tr_dlet_view<T> v,
                                        const gs_tr_dlet_level q, const uint64_t *__restrict__ at,
                                        const uint32_t *__restrict__ lroot, int nc, uint32_t *__restrict__ flag)
{
  const uint64_t idx = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (uint64_t)q.P * nc) return;
  const int r = (int)(idx / nc), k = (int)(idx % nc);
  const uint32_t x = lroot[k];
  flag[idx] = r != q.me && q.first[r + 1] > q.first[r] && at[k + 1] - at[k] > 1 &&
              gs_tr_dlet_needed<T, LAW>(p, v, p.cm[x], p.lo[x], p.hi[x], r);
}

/* The selected pairs sel[0, ns) as level 0's entries (roots: open, or a bucket sent whole). */
static __global__ void gs_tr_dlet_root_entries(const uint32_t *__restrict__ sel, uint32_t ns, int nc,
                                               const uint64_t *__restrict__ at, const uint32_t *__restrict__ lroot,
                                               const gs_tr_dlet_level q, uint32_t *er, uint32_t *eid, uint32_t *ecell,
                                               uint8_t *kind, uint32_t *open, uint32_t *bodies)
{
  const uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= ns) return;
  const int r = (int)(sel[e] / nc), k = (int)(sel[e] % nc);
  const uint32_t cnt = (uint32_t)(at[k + 1] - at[k]);
  er[e] = (uint32_t)r, eid[e] = lroot[k], ecell[e] = (uint32_t)(q.cell0 + k);
  kind[e] = cnt > q.leaf ? GS_TR_DK_OPEN : (uint8_t)cnt;
  open[e] = cnt > q.leaf, bodies[e] = cnt > q.leaf ? 0 : cnt;
  atomicAdd(q.cnt + r, 1u);
  atomicAdd(q.cnt + q.lp + r, bodies[e]);
}

/* Level L + 1 from level L's open entries front[0, nf): entry base + 2 i + h is the h-th child of
 * front[i]'s node, for the same receiver. */
template <typename T, int LAW>
static __global__ void gs_tr_dlet_children(const gs_tr_walk_args<T> p, const gs_tr_dlet_view<T> v,
                                           const gs_tr_dlet_level q, const uint2 *__restrict__ child,
                                           const uint32_t *__restrict__ front, uint32_t nf, uint64_t base, int level,
                                           uint32_t *er, uint32_t *eid, uint8_t *kind, uint32_t *open,
                                           uint32_t *bodies)
{
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nf) return;
  const uint32_t e = front[i], r = er[e];
  const uint2 ch = child[eid[e]];
  const uint32_t kid[2] = {ch.x, ch.y};
  for (int h = 0; h < 2; h++) {
    const uint64_t o = base + 2ull * i + h;
    uint32_t nb = 0;
    const uint8_t k = gs_tr_dlet_kind<T, LAW>(p, v, q, kid[h], (int)r, &nb);
    er[o] = r, eid[o] = kid[h], kind[o] = k, open[o] = k == GS_TR_DK_OPEN, bodies[o] = nb;
    atomicAdd(q.cnt + (uint32_t)level * q.P + r, 1u);
    if (nb) atomicAdd(q.cnt + q.lp + (uint32_t)level * q.P + r, nb);
  }
}

/* Where each (level, receiver) part goes (host-made, gs_tr_dlet_layout). */
struct gs_tr_dlet_place {
  const uint64_t *lstart;  /* levels + 1: each level's first entry */
  const uint32_t *bstart;  /* levels * P: the part's first entry */
  const uint32_t *entoff;  /* its first entry in the message */
  const uint32_t *bodoff;  /* its first body in the message's bodies */
  const uint64_t *msgoff;  /* P: the message's first byte in the send buffer */
  const gs_tr_dhead *head; /* P: the messages' headers */
  int levels, P;
};

/* Entry e into its receiver's message: kind, record (a body's position in its first vector), a
 * root's table index, a bucket's bodies; the receiver's first root writes the header. */
template <typename T>
static __global__ void gs_tr_dlet_pack(const gs_tr_walk_args<T> p, const gs_tr_dlet_place w, uint64_t ne,
                                       const uint32_t *__restrict__ er, const uint32_t *__restrict__ eid,
                                       const uint32_t *__restrict__ ecell, const uint8_t *__restrict__ kind,
                                       const uint32_t *__restrict__ bscan, char *send)
{
  using V = gs_nb_vec_t<T>;
  const uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= ne) return;
  int L = 0;
  while (L + 1 < w.levels && w.lstart[L + 1] <= e) ++L;
  const uint32_t r = er[e], blk = (uint32_t)L * w.P + r, bs = w.bstart[blk];
  const uint64_t j = w.entoff[blk] + (e - bs);
  const gs_tr_dhead h = w.head[r];
  char *m = send + w.msgoff[r];
  const uint8_t k = kind[e];
  m[gs_tr_dkinds_at(h) + j] = (char)k;
  V *rec = (V *)(m + gs_tr_drecs_at(h)) + 4 * j;
  const uint32_t x = eid[e];
  if (k == GS_TR_DK_BODY) {
    rec[0] = p.spos[x & ~GS_TR_BODY], rec[1] = rec[2] = rec[3] = gs_nb_make<T>(0, 0, 0, 0);
  } else {
    rec[0] = p.cm[x], rec[1] = p.qd[x], rec[2] = p.lo[x], rec[3] = p.hi[x];
  }
  if (L == 0) ((uint32_t *)(m + gs_tr_dcells_at()))[j] = ecell[e];
  if (L == 0 && e == bs) *(gs_tr_dhead *)m = h;
  if (k <= GS_TR_LEAF_MAX) {
    V *b = (V *)(m + gs_tr_dbodies_at(h, (int)sizeof(V))) + w.bodoff[blk] + (bscan[e] - bscan[bs]);
    const uint2 cr = p.range[x];
    for (uint32_t t = 0; t < k; t++) b[t] = p.spos[cr.x + t];
  }
}

/* ---- host side ------------------------------------------------------------------------------ */

#define GS_TR_DLET_LEVELS (GS_TR_DEPTH_MAX + 2) /* a cell's subtree is at most this many levels deep */

/* Room for need entries, the first keep of them and the first nf of the front kept. */
static cudaError_t gs_tr_dlet_room(gs_tree_dstate *s, uint64_t need, uint64_t keep, uint64_t nf, cudaStream_t st)
{
  if (need <= s->ecap && s->er) return cudaSuccess;
  const uint64_t cap = need + need / 2 + 1024;
  void **p[] = {(void **)&s->er, (void **)&s->eid, (void **)&s->ecell, (void **)&s->eopen, (void **)&s->bodies,
                (void **)&s->ekind, (void **)&s->front, (void **)&s->bscan};
  const size_t row[] = {4, 4, 4, 4, 4, 1, 4, 4};
  const uint64_t kept[] = {keep, keep, keep, keep, keep, keep, nf, 0};
  cudaError_t e = cudaSuccess;
  for (size_t k = 0; k < sizeof row / sizeof *row && e == cudaSuccess; k++)
    e = gs_tr_dregrow(p[k], row[k], cap, kept[k], st);
  s->ecap = cap;
  return e;
}

/* The flagged ones of the n items from `from` on (their indices, in order) into s->front; their
 * count into *got (host). */
static cudaError_t gs_tr_dlet_select(gs_tree_dstate *s, uint64_t from, const uint32_t *flags, uint64_t n,
                                     uint32_t *got, cudaStream_t st)
{
  const thrust::counting_iterator<uint32_t> it((uint32_t)from);
  unsigned long long *cnt = s->counts + 9;
  unsigned long long h = 0;
  cudaError_t e;
  if ((e = gs_tr_dcub(s, [&](void *t, size_t &bytes) {
         return cub::DeviceSelect::Flagged(t, bytes, it, flags, s->front, cnt, (int64_t)n, st);
       })) != cudaSuccess ||
      (e = cudaMemcpyAsync(&h, cnt, sizeof h, cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
      (e = cudaStreamSynchronize(st)) != cudaSuccess)
    return e;
  *got = (uint32_t)h;
  return cudaGetLastError();
}

/* The walk's test as the senders use it: theta^2 and alpha shrunk against rounding (when in
 * doubt, send), over the merged arrays; and the receivers' view of the top. */
template <typename T>
static void gs_tr_dlet_args(const gs_tree_dstate *s, const struct gs_tree_args *a, gs_tr_walk_args<T> *p,
                            gs_tr_dlet_view<T> *v)
{
  using V = gs_nb_vec_t<T>;
  const double margin = 1 - 1.0 / 4096;
  memset(p, 0, sizeof *p);
  p->spos = (const V *)s->spos, p->cm = (const V *)s->cm, p->qd = (const V *)s->qd;
  p->lo = (const V *)s->lo, p->hi = (const V *)s->hi, p->range = s->range;
  gs_tr_open_settings(*p, a, margin);
  const uint64_t x0 = gs_tr_dx0(s);
  const V *rec = (const V *)s->crec;
  *v = {(const V *)s->lo + x0, (const V *)s->hi + x0, rec + 2 * (size_t)s->m, rec + 3 * (size_t)s->m,
        (const T *)s->tamin, (const T *)s->camin, s->trr, s->cown, s->tchild, (uint32_t)s->m};
}

/* Level 0 (the roots) and the levels after it until no entry is open; lstart[L]: level L's first
 * entry, *levels of them. */
template <typename T, int LAW>
static cudaError_t gs_tr_dlet_levels(gs_tree_dstate *s, const gs_tr_walk_args<T> &p, const gs_tr_dlet_view<T> &v,
                                     const gs_tr_dlet_level &q, uint64_t *lstart, int *levels, cudaStream_t st)
{
  const int nc = s->nlc;
  const uint64_t pairs = (uint64_t)q.P * nc;
  cudaError_t e = gs_tr_dlet_room(s, pairs, 0, 0, st);
  if (e != cudaSuccess) return e;
  gs_tr_dlet_roots<T, LAW><<<(unsigned)((pairs + 255) / 256), 256, 0, st>>>(p, v, q, s->at, s->lroot, nc, s->bscan);
  uint32_t ns = 0, nf = 0;
  if ((e = gs_tr_dlet_select(s, 0, s->bscan, pairs, &ns, st)) != cudaSuccess) return e;
  gs_tr_dlet_root_entries<<<(ns + 255) / 256 + 1, 256, 0, st>>>(s->front, ns, nc, s->at, s->lroot, q, s->er, s->eid,
                                                               s->ecell, s->ekind, s->eopen, s->bodies);
  lstart[0] = 0, lstart[1] = ns, *levels = ns ? 1 : 0;
  if (ns && (e = gs_tr_dlet_select(s, 0, s->eopen, ns, &nf, st)) != cudaSuccess) return e;
  for (int L = 1; nf > 0; L++) {
    if (L + 1 >= GS_TR_DLET_LEVELS) return cudaErrorInvalidValue; /* deeper than any tree: a bug */
    const uint64_t base = lstart[L];
    if ((e = gs_tr_dlet_room(s, base + 2ull * nf, base, nf, st)) != cudaSuccess) return e;
    gs_tr_dlet_children<T, LAW><<<(nf + 255) / 256, 256, 0, st>>>(p, v, q, s->child, s->front, nf, base, L, s->er,
                                                                   s->eid, s->ekind, s->eopen, s->bodies);
    lstart[L + 1] = base + 2ull * nf, *levels = L + 1;
    if ((e = gs_tr_dlet_select(s, base, s->eopen + base, 2ull * nf, &nf, st)) != cudaSuccess) return e;
  }
  return cudaGetLastError();
}

/* The messages' layout from the parts' counts (host): headers, bytes[r], and where each part goes. */
static size_t gs_tr_dlet_layout(const uint32_t *cnt, int levels, int P, int vs, const uint64_t *lstart,
                                uint64_t *bytes, uint32_t *bstart, uint32_t *entoff, uint32_t *bodoff,
                                uint64_t *msgoff, gs_tr_dhead *head)
{
  const uint32_t lp = (uint32_t)GS_TR_DLET_LEVELS * P;
  size_t total = 0;
  for (int r = 0; r < P; r++) {
    gs_tr_dhead h = {0, 0, 0, 0};
    for (int L = 0; L < levels; L++) {
      entoff[L * P + r] = (uint32_t)h.nentry, bodoff[L * P + r] = (uint32_t)h.nbody;
      h.nentry += cnt[L * P + r], h.nbody += cnt[lp + L * P + r];
    }
    h.nroot = levels ? cnt[r] : 0;
    head[r] = h, msgoff[r] = total;
    bytes[r] = h.nentry ? gs_tr_dbytes(h, vs) : 0;
    total += bytes[r];
  }
  for (int L = 0; L < levels; L++) {
    uint64_t at = lstart[L];
    for (int r = 0; r < P; r++)
      bstart[L * P + r] = (uint32_t)at, at += cnt[L * P + r];
  }
  return total;
}

/* Each entry's first body among its receiver's buckets' (exclusive sum of the bucket sizes). */
static cudaError_t gs_tr_dlet_scan(gs_tree_dstate *s, uint64_t ne, cudaStream_t st)
{
  return gs_tr_dcub(s, [&](void *t, size_t &bytes) {
    return cub::DeviceScan::ExclusiveSum(t, bytes, s->bodies, s->bscan, (int64_t)ne, st);
  });
}

/* Byte offsets of the per-(level, receiver) tables, alike on the host and the device (lr). */
struct gs_tr_dlet_tabs {
  size_t cnt, lstart, first, bstart, entoff, bodoff, msgoff, head, total;
};

static gs_tr_dlet_tabs gs_tr_dlet_tabs_of(int P)
{
  const size_t lp = (size_t)GS_TR_DLET_LEVELS * P;
  gs_tr_dlet_tabs t;
  size_t o = 0;
  t.cnt = o, o += gs_tr_dup16(8 * lp); /* entries, then bucket bodies, per (level, receiver) */
  t.lstart = o, o += gs_tr_dup16(8 * (GS_TR_DLET_LEVELS + 1));
  t.first = o, o += gs_tr_dup16(4 * ((size_t)P + 1));
  t.bstart = o, o += gs_tr_dup16(4 * lp);
  t.entoff = o, o += gs_tr_dup16(4 * lp);
  t.bodoff = o, o += gs_tr_dup16(4 * lp);
  t.msgoff = o, o += gs_tr_dup16(8 * (size_t)P);
  t.head = o, o += sizeof(gs_tr_dhead) * P;
  t.total = o;
  return t;
}

/* The messages written from the entries (ne of them) and the layout h (host, t's offsets; its
 * counts read back already): h's tables up, the send buffer grown, one pass. */
template <typename T>
static cudaError_t gs_tr_dlet_write(gs_tree_dstate *s, const gs_tr_walk_args<T> &p, const gs_tr_dlet_tabs &t,
                                    char *h, int levels, int P, uint64_t ne, size_t total, cudaStream_t st)
{
  char *d = (char *)s->lr;
  cudaError_t e = gs_tr_dgrow(&s->send, &s->send_cap, total);
  if (e != cudaSuccess ||
      (e = cudaMemcpyAsync(d + t.lstart, h + t.lstart, t.total - t.lstart, cudaMemcpyHostToDevice, st)) != cudaSuccess)
    return e;
  const gs_tr_dlet_place w = {(const uint64_t *)(d + t.lstart), (const uint32_t *)(d + t.bstart),
                              (const uint32_t *)(d + t.entoff), (const uint32_t *)(d + t.bodoff),
                              (const uint64_t *)(d + t.msgoff), (const gs_tr_dhead *)(d + t.head), levels, P};
  gs_tr_dlet_pack<T><<<(unsigned)((ne + 255) / 256), 256, 0, st>>>(p, w, ne, s->er, s->eid, s->ecell, s->ekind,
                                                                    s->bscan, (char *)s->send);
  return cudaStreamSynchronize(st);
}

template <typename T, int LAW>
static cudaError_t gs_tr_dlet_t(gs_tree_dstate *s, const struct gs_tree_args *a, const int *first, int P, int me,
                                uint64_t *bytes, cudaStream_t st)
{
  const gs_tr_dlet_tabs t = gs_tr_dlet_tabs_of(P);
  const size_t lp = (size_t)GS_TR_DLET_LEVELS * P;
  char *h = (char *)calloc(1, t.total);
  cudaError_t e = h ? gs_tr_dgrow(&s->lr, &s->lr_cap, t.total) : cudaErrorMemoryAllocation;
  char *d = (char *)s->lr;
  if (e == cudaSuccess) memcpy(h + t.first, first, 4 * ((size_t)P + 1));
  if (e != cudaSuccess || (e = cudaMemsetAsync(d + t.cnt, 0, 8 * lp, st)) != cudaSuccess ||
      (e = cudaMemcpyAsync(d + t.first, h + t.first, 4 * ((size_t)P + 1), cudaMemcpyHostToDevice, st)) != cudaSuccess) {
    free(h);
    return e;
  }
  gs_tr_walk_args<T> p;
  gs_tr_dlet_view<T> v;
  gs_tr_dlet_args<T>(s, a, &p, &v);
  const gs_tr_dlet_level q = {(uint32_t)gs_tr_leaf(a->leaf), P, me, first[me],
                              (const int *)(d + t.first), (uint32_t *)(d + t.cnt), (uint32_t)lp};
  uint64_t *lstart = (uint64_t *)(h + t.lstart);
  int levels = 0;
  e = gs_tr_dlet_levels<T, LAW>(s, p, v, q, lstart, &levels, st);
  const uint64_t ne = e == cudaSuccess ? lstart[levels] : 0;
  if (e == cudaSuccess && ne) e = gs_tr_dlet_scan(s, ne, st);
  if (e == cudaSuccess && ne && (e = cudaMemcpyAsync(h + t.cnt, d + t.cnt, 8 * lp, cudaMemcpyDeviceToHost, st)) ==
                                    cudaSuccess)
    e = cudaStreamSynchronize(st);
  if (e == cudaSuccess && ne) {
    const size_t total = gs_tr_dlet_layout((const uint32_t *)(h + t.cnt), levels, P, (int)sizeof(gs_nb_vec_t<T>),
                                           lstart, bytes, (uint32_t *)(h + t.bstart), (uint32_t *)(h + t.entoff),
                                           (uint32_t *)(h + t.bodoff), (uint64_t *)(h + t.msgoff),
                                           (gs_tr_dhead *)(h + t.head));
    e = gs_tr_dlet_write<T>(s, p, t, h, levels, P, ne, total, st);
  }
  free(h);
  return e == cudaSuccess ? cudaGetLastError() : e;
}

extern "C" int gs_tree_dlet_launch(struct gs_cuda_ctx *c, struct gs_tree_dstate *s, const struct gs_tree_args *a,
                                   const struct gs_dtree_cell *table, const int *first, int P, int me, uint64_t *bytes,
                                   const void **out, void *stream)
{
  (void)c, (void)table;
  for (int r = 0; r < P; r++)
    bytes[r] = 0;
  *out = s ? s->send : NULL;
  if (!s || !gs_tr_args_ok(a) || !s->top_ready || (s->n && !s->built)) return (int)cudaErrorInvalidValue;
  if (P < 2 || s->nlc == 0) return (int)cudaSuccess;
  const cudaStream_t st = (cudaStream_t)stream;
  cudaError_t e;
  if (a->precision)
    e = a->law == GS_LAW_PLUMMER ? gs_tr_dlet_t<double, GS_LAW_PLUMMER>(s, a, first, P, me, bytes, st)
                                 : gs_tr_dlet_t<double, GS_LAW_CUTOFF>(s, a, first, P, me, bytes, st);
  else
    e = a->law == GS_LAW_PLUMMER ? gs_tr_dlet_t<float, GS_LAW_PLUMMER>(s, a, first, P, me, bytes, st)
                                 : gs_tr_dlet_t<float, GS_LAW_CUTOFF>(s, a, first, P, me, bytes, st);
  *out = s->send;
  return (int)e;
}
