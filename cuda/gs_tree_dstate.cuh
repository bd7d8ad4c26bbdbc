/* gs_tree_dstate.cuh: the CUDA distributed tree's device state (struct gs_tree_dstate of gs_cuda.h),
 * which its sources share: gs_tree_dbody.cu (the held bodies' primitives; it opens and closes the
 * state), gs_tree_dbuild.cu (the cells' subtrees), gs_tree_dtop.cu (the cell table and the top
 * trie above the cells), gs_tree_dlet.cu (the locally essential trees sent), gs_tree_dmerge.cu (the
 * trees received, merged, and the walk), and the walk itself (gs_tree_walk.cu). CUDA C++ only.
 *
 * The merged tree, in one set of node arrays (cm, qd, lo, hi, child, range) and one body array
 * (spos), so the walk reads every node alike:
 *   nodes [0, X0)              this rank's internal nodes (X0 = n - 1, n held bodies), as the
 *                              build made them over its (key, id)-sorted bodies;
 *   nodes [X0, X0 + m - 1)     the top trie over the m cells of the table (internal nodes);
 *   nodes X0 + m - 1 + j       cell j's (key order) slot: a remote cell's root, its table record
 *                              until a message says more (children GS_TR_MISSING: closed);
 *   nodes from X0 + 2 m - 1    the received locally essential trees, one slot per entry;
 *   bodies [0, n)              the held bodies (their sorted positions);
 *   bodies n + j               cell j's body where it holds one (every rank has it from the table);
 *   bodies from n + m          the received bodies.
 * A child is a node id, or GS_TR_BODY | a body index, or GS_TR_MISSING. Only the nodes below the
 * cells' roots and the top trie are ever reached: this rank's local nodes above its cells (which
 * span several cells) are built but never walked, so the tree walked is the same on any rank
 * count: the top trie over the cells, each cell's subtree over its bodies in (key, id) order. */
#ifndef GS_TREE_DSTATE_CUH
#define GS_TREE_DSTATE_CUH

#include "gs_cuda.h"
#include "gs_tree_open.cuh"

struct gs_tree_dstate {
  int vs; /* bytes of a vector (16, 32) the vector arrays were made for */
  /* per held body (bcap): the sort's order, the build's links, cells and groups. The sort's other
   * scratch lives in the merged tree's node arrays, which are free until the build (its keys in
   * lo, its permutations through cm, its index payload in gid): 28 bytes a body here in all. */
  uint64_t bcap;
  uint32_t *idx;
  uint32_t *parent;  /* 2 bcap */
  uint32_t *flag, *cellid, *gid, *gstart;
  /* CUB's temporaries, small host <-> device staging, counters */
  void *cub;
  size_t cub_cap;
  void *small;
  size_t small_cap;
  unsigned long long *counts; /* GS_TREE_COUNTS of the walk; then [8..] scratch counters */
  /* this rank's cells (ccap): at, the root of each (a local node id), their records and amin */
  int ccap, nlc;
  uint64_t *at;
  uint32_t *lroot;
  void *lrec; /* 5 vectors a cell: cm, qd, lo, hi, (amin, count, 0, 0) */
  uint64_t n;   /* bodies the last build was over */
  int built;    /* a build over the held bodies is there */
  /* the merged tree (mcap nodes, scap bodies, vectors of mvs bytes) and where its walk starts */
  uint64_t mcap, scap;
  int mvs;
  uint32_t root;
  void *cm, *qd, *lo, *hi, *spos;
  uint2 *child, *range;
  /* the table (tcap cells) in key order (gs_tree_dtop.cu) and the top trie over it */
  int tcap, m, top_ready;
  struct gs_dtree_cell *table;
  uint64_t *tkey_in, *tkey;
  uint32_t *tiota, *tord, *tpos; /* key order -> table index, table index -> key order */
  void *crec;                    /* 4 m vectors: cm, qd, lo, hi */
  void *camin;                   /* m numbers of the run's precision */
  int *cown;
  uint32_t *ccnt, *cref;
  uint2 *tchild, *trange;
  uint32_t *tparent, *tflag;
  void *tamin;  /* m - 1 numbers: the least amin below each top node */
  int2 *trr;    /* m - 1: the lowest and highest owner below each top node */
  /* the LET's entries (ecap), level after level, and the messages out */
  uint64_t ecap;
  uint32_t *er, *eid, *ecell, *eopen, *front, *bodies, *bscan;
  uint8_t *ekind;
  void *send;
  size_t send_cap;
  void *lr; /* per (level, receiver) counts and offsets of the messages */
  size_t lr_cap;
};

/* The node id of the first top node, the first cell slot and the first received node. */
static inline uint64_t gs_tr_dx0(const gs_tree_dstate *s) { return s->n ? s->n - 1 : 0; }
static inline uint64_t gs_tr_dslot(const gs_tree_dstate *s) { return gs_tr_dx0(s) + (s->m > 1 ? s->m - 1 : 0); }
static inline uint64_t gs_tr_dlet0(const gs_tree_dstate *s) { return gs_tr_dslot(s) + (uint64_t)s->m; }

/* Room for bytes in *p (capacity *cap bytes); what it held is lost. */
static inline cudaError_t gs_tr_dgrow(void **p, size_t *cap, size_t bytes)
{
  if (bytes <= *cap && *p) return cudaSuccess;
  if (*p) cudaFree(*p);
  *p = NULL;
  *cap = bytes + bytes / 4 + 256;
  return cudaMalloc(p, *cap);
}

/* *p made anew for cap rows of row bytes, its first keep rows kept (nothing kept: the old array is
 * freed first, so the peak is the new one alone). */
static inline cudaError_t gs_tr_dregrow(void **p, size_t row, uint64_t cap, uint64_t keep, cudaStream_t st)
{
  if (*p && !keep) cudaFree(*p), *p = NULL;
  void *q = NULL;
  cudaError_t e = cudaMalloc(&q, row * cap);
  if (e != cudaSuccess) return e;
  if (*p) {
    if ((e = cudaMemcpyAsync(q, *p, row * keep, cudaMemcpyDeviceToDevice, st)) == cudaSuccess)
      e = cudaStreamSynchronize(st);
    cudaFree(*p);
  }
  *p = q;
  return e;
}

/* One CUB device-wide call, call(temp, bytes): asked its temporaries' size, s->cub grown, run. */
template <typename F>
static inline cudaError_t gs_tr_dcub(gs_tree_dstate *s, F call)
{
  size_t bytes = 0;
  cudaError_t e = call(NULL, bytes);
  if (e != cudaSuccess || (e = gs_tr_dgrow(&s->cub, &s->cub_cap, bytes)) != cudaSuccess) return e;
  bytes = s->cub_cap;
  return call(s->cub, bytes);
}

/* Room in the merged tree for nodes and bodies of vs-byte vectors, its first keep_nodes nodes and
 * keep_bodies bodies kept. */
static inline cudaError_t gs_tr_dmerged_room(gs_tree_dstate *s, uint64_t nodes, uint64_t bodies, uint64_t keep_nodes,
                                             uint64_t keep_bodies, int vs, cudaStream_t st)
{
  cudaError_t e = cudaSuccess;
  if (vs != s->mvs) keep_nodes = keep_bodies = 0;
  /* a sixteenth to spare: the node arrays are 80 or 144 bytes a body, the largest of the state */
  if (nodes > s->mcap || vs != s->mvs) {
    const uint64_t cap = nodes + nodes / 16 + 64;
    void **p[6] = {&s->cm, &s->qd, &s->lo, &s->hi, (void **)&s->child, (void **)&s->range};
    const size_t row[6] = {(size_t)vs, (size_t)vs, (size_t)vs, (size_t)vs, 8, 8};
    for (int k = 0; k < 6 && e == cudaSuccess; k++) e = gs_tr_dregrow(p[k], row[k], cap, keep_nodes, st);
    s->mcap = cap;
  }
  if (e == cudaSuccess && (bodies > s->scap || vs != s->mvs)) {
    const uint64_t cap = bodies + bodies / 16 + 64;
    if ((e = gs_tr_dregrow(&s->spos, (size_t)vs, cap, keep_bodies, st)) != cudaSuccess) return e;
    s->scap = cap;
  }
  if (e == cudaSuccess) s->mvs = vs;
  return e;
}

/* Kinds of a locally essential tree's entries on the wire (gs_tree_dlet.cu); 1 .. GS_TR_LEAF_MAX:
 * a leaf bucket of that many bodies, which follow. */
#define GS_TR_DK_BODY 253 /* one body: its position in the record's first vector */
#define GS_TR_DK_OPEN 254 /* a node some target may open: its two children are later entries */
#define GS_TR_DK_SHUT 255 /* a node no target may open: its record only */

/* A message's header: its roots (this rank's cells the receiver may open), its entries (the
 * roots first) and its buckets' bodies; then the roots' table indices (uint32, to 16 bytes), the
 * entries' kinds (to 16 bytes), their records (4 vectors each) and the bodies. */
struct gs_tr_dhead {
  uint64_t nroot, nentry, nbody, pad;
};

/* The bytes of a message with those counts for vectors of vs bytes, and where its parts start. */
static __host__ __device__ inline size_t gs_tr_dup16(size_t b) { return (b + 15) / 16 * 16; }
static __host__ __device__ inline size_t gs_tr_dcells_at() { return sizeof(gs_tr_dhead); }
static __host__ __device__ inline size_t gs_tr_dkinds_at(const gs_tr_dhead &h)
{
  return gs_tr_dcells_at() + gs_tr_dup16(4 * h.nroot);
}
static __host__ __device__ inline size_t gs_tr_drecs_at(const gs_tr_dhead &h)
{
  return gs_tr_dkinds_at(h) + gs_tr_dup16(h.nentry);
}
static __host__ __device__ inline size_t gs_tr_dbodies_at(const gs_tr_dhead &h, int vs)
{
  return gs_tr_drecs_at(h) + 4 * (size_t)vs * h.nentry;
}
static __host__ __device__ inline size_t gs_tr_dbytes(const gs_tr_dhead &h, int vs)
{
  return gs_tr_dbodies_at(h, vs) + vs * h.nbody;
}

/* The walk over the merged tree (gs_tree_walk.cu): p as the DT instances read it, the groups in
 * p.gstart already, their count at p.cnt[1]; blocks: as many as fit. */
template <typename T>
cudaError_t gs_tree_walk_merged(struct gs_cuda_ctx *c, const gs_tr_walk_args<T> &p, int law, int potential,
                                cudaStream_t st);

/* The groups of the walk over the held bodies in order (gs_tree_walk.cu): group starts (the
 * tree's groups, gid) into gstart, their count into cnt[1]; cnt[2] zeroed. */
cudaError_t gs_tree_walk_groups(const uint32_t *gid, uint32_t n, uint32_t *gstart, uint32_t *cnt, void *temp,
                                size_t temp_bytes, cudaStream_t st);

#endif
