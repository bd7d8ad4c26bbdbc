/* gs_tree_internal.cuh: shared by the Barnes-Hut sources in cuda/ (gs_tree_build.cu builds, and
 * gs_tree_walk.cu walks, the tree that lives in the caller's workspace). CUDA C++ only. Owns:
 *   - the workspace layout (struct gs_tr_layout), a pure function of (n, targets, precision and
 *     CUB's temporary bytes), so build and walk find every array at the same offset;
 *   - the node encoding of the binary radix tree (Karras 2012) over the Morton-sorted bodies:
 *     internal nodes 0 .. n-2 (0 the root), leaf s (the s-th body in Morton order) as n-1+s;
 *   - the limits that bound every loop and every stack (depth, leaf bucket, stack entries).
 * A node's moments are four vectors: cm = (com x, y, z, mass), qd = (Qxx, Qyy, Qxy, Qxz),
 * lo = (box min x, y, z, Qyz), hi = (box max x, y, z, S), Q the traceless quadrupole about the
 * centre of mass, sum m (3 x x^T - |x|^2 I), Qzz = -Qxx - Qyy, and S the trace of the second
 * moment, sum m |x|^2, which the softened expansion needs besides Q (gs_tree_walk.cu). */
#ifndef GS_TREE_INTERNAL_CUH
#define GS_TREE_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "gs_cuda.h"
#include "gs_nbody_internal.cuh"
#include "gs_tree.h"

/* Most bodies in a leaf bucket: the walk appends a bucket to its 64-entry body list in one go
 * while fewer than 32 are waiting, so a bucket holds at most 32. The default, 16, halves the
 * nodes a walk must test against 8 (more tests) or 32 (more body-body pairs). */
#define GS_TR_LEAF_DEFAULT GS_CUDA_TREE_LEAF
#define GS_TR_LEAF_MAX 32

/* Partial boxes of the first bounding-box pass (the second pass reduces them in one block). */
#define GS_TR_BOX_BLOCKS 512
#define GS_TR_BOX_THREADS 256

/* Morton keys: 21 bits per axis, 63 bits in all. Keys tie only for bodies in one 2^-21 cell; the
 * tree then splits them by their (distinct) 32-bit sorted positions, or in the distributed tree by
 * their 64-bit ids, so a node's common prefix grows by at least one bit per level: no internal
 * node is deeper than 63 + 64 = 127. */
#define GS_TR_KEY_BITS 21
#define GS_TR_DEPTH_MAX 128

/* Walk stack, per warp, in internal nodes: the warp pops up to 32 at once, as many as keep the
 * stack within GS_TR_STACK_PAR entries after their children are pushed (each pop pushes at most
 * two), and one at a time once it holds GS_TR_STACK_PAR or more. One at a time is a depth-first
 * walk, whose entries above GS_TR_STACK_PAR rise at least one tree level per two entries of a
 * pair, so the stack never holds more than GS_TR_STACK_PAR + GS_TR_DEPTH_MAX + 2 entries:
 * GS_TR_STACK has room for that, and the walk traps (a launch error, never a silent overflow)
 * should it ever not. A walk whose frontier outgrows GS_TR_STACK_PAR loses its parallelism: the
 * bound is a trade of shared memory (4 bytes a warp per entry) against that. 2048 walked fastest
 * of the bounds measured, smaller ones losing parallelism, larger ones warps per block
 * (docs/performance.md, the tree's section). */
#ifndef GS_TR_STACK_PAR
#define GS_TR_STACK_PAR 2048
#endif
#define GS_TR_STACK (GS_TR_STACK_PAR + GS_TR_DEPTH_MAX + 32)

/* Warps per block of the walk (each walks one group of targets at a time). */
#ifndef GS_TR_WARPS
#define GS_TR_WARPS 4
#endif

/* Most targets in a group, one per lane: the walk's groups are the largest nodes of the tree
 * with at most this many bodies (gs_tree_build.cu), so a group is a compact Morton cell, never
 * 32 consecutive bodies that straddle a boundary between two distant cells. */
#define GS_TR_GROUP 32

#define GS_TR_NONE 0xffffffffu

/* The distributed tree's merged node ids (gs_tree_dstate.cuh): a child with GS_TR_BODY set is a
 * body (its index below), GS_TR_MISSING a child a remote node was sent without (closed); a node's
 * range GS_TR_WHOLE makes it never a leaf bucket (a top node, or a remote node that is not one). */
#define GS_TR_BODY 0x80000000u
#define GS_TR_MISSING 0x7fffffffu
#define GS_TR_WHOLE make_uint2(0u, 0xfffffffeu)

/* Boundaries one launch of gs_tree_order_bounds_launch finds (more take several). */
#define GS_TR_BOUNDS 24

/* Byte offsets of the workspace's arrays (each 256-byte aligned). */
struct gs_tr_layout {
  size_t box;      /* 2 + 2 GS_TR_BOX_BLOCKS vectors: [0] min, [1] max, then the partial boxes */
  size_t keys_in;  /* n uint64: Morton keys in index order */
  size_t keys;     /* n uint64: sorted */
  size_t idx_in;   /* n uint32: 0 .. n-1 */
  size_t idx;      /* n uint32: the body index of each sorted position */
  size_t spos;     /* n vectors: pos in Morton order */
  size_t cm, qd, lo, hi; /* n vectors each: the moments of internal node k at [k] */
  size_t child;    /* n uint2: the children of internal node k (node ids) */
  size_t range;    /* n uint2: the sorted bodies [first, last] under internal node k */
  size_t parent;   /* 2n uint32: the parent of every node id (GS_TR_NONE for the root) */
  size_t flag;     /* n uint32: arrivals per internal node while moments go up the tree, then the
                    * first position of each group of the tree */
  size_t gid;      /* n uint32: the group of the tree (1, 2, ...) of every sorted position */
  size_t tgt;      /* i_count uint32: by index, the targets in walk order (a sorted position, or a
                    * padding body's index >= n) */
  size_t gstart;   /* i_count uint32: the first target of each group of the walk */
  size_t nsel;     /* uint32 counters: [0] targets selected, [1] groups, [2] groups taken; then
                    * from byte 64, GS_TR_BOUNDS uint64 group starts (gs_tree_bounds_launch) */
  size_t temp;     /* CUB's temporary storage (sort in build, select in walk) */
  size_t temp_bytes;
  size_t total;
};

static inline size_t gs_tr_align(size_t b) { return (b + 255) / 256 * 256; }

/* The layout for n bodies, i_count targets, vectors of vbytes and CUB temporaries of temp bytes.
 * Everything the build writes lies before tgt, at offsets that depend on n alone: a walk of fewer
 * targets than the workspace was sized for (one rank's run of the order) finds the tree where the
 * build left it, and lays out its own arrays (tgt .. temp) within the same bytes. */
static inline void gs_tr_layout_make(uint64_t n, uint64_t i_count, size_t vbytes, size_t temp,
                                     struct gs_tr_layout *L)
{
  const size_t nn = n ? (size_t)n : 1;
  size_t o = 0;
  L->box = o;     o += gs_tr_align((2 + 2 * GS_TR_BOX_BLOCKS) * vbytes);
  L->keys_in = o; o += gs_tr_align(nn * 8);
  L->keys = o;    o += gs_tr_align(nn * 8);
  L->idx_in = o;  o += gs_tr_align(nn * 4);
  L->idx = o;     o += gs_tr_align(nn * 4);
  L->spos = o;    o += gs_tr_align(nn * vbytes);
  L->cm = o;      o += gs_tr_align(nn * vbytes);
  L->qd = o;      o += gs_tr_align(nn * vbytes);
  L->lo = o;      o += gs_tr_align(nn * vbytes);
  L->hi = o;      o += gs_tr_align(nn * vbytes);
  L->child = o;   o += gs_tr_align(nn * 8);
  L->range = o;   o += gs_tr_align(nn * 8);
  L->parent = o;  o += gs_tr_align(2 * nn * 4);
  L->flag = o;    o += gs_tr_align(nn * 4);
  L->gid = o;     o += gs_tr_align(nn * 4);
  L->tgt = o;     o += gs_tr_align((i_count ? (size_t)i_count : 1) * 4);
  L->gstart = o;  o += gs_tr_align((i_count ? (size_t)i_count : 1) * 4);
  L->nsel = o;    o += 256;
  L->temp = o;    o += gs_tr_align(temp ? temp : 1);
  L->temp_bytes = temp;
  L->total = o;
}

/* A typed pointer into the workspace. */
template <typename P>
static inline P *gs_tr_at(void *ws, size_t off)
{
  return reinterpret_cast<P *>(static_cast<char *>(ws) + off);
}

/* The leaf bucket size the walk uses for a->leaf (0: the default; clamped to 1 .. 32). */
static inline int gs_tr_leaf(int leaf)
{
  if (leaf <= 0) return GS_TR_LEAF_DEFAULT;
  return leaf > GS_TR_LEAF_MAX ? GS_TR_LEAF_MAX : leaf;
}

/* Sizes that fit the 32-bit indices (n < 2^30 also keeps the radix tree's searches in int), and
 * a target range that does not wrap. */
static inline bool gs_tr_sizes_ok(const struct gs_tree_args *a)
{
  return a->n < (1ull << 30) && a->i_count < (1ull << 31) && a->i_first + a->i_count >= a->i_first;
}

/* The arguments both launchers accept (no device needed): the sizes, a known precision, law and
 * opening, the lengths the force law needs (normal numbers: rsqrt flushes denormals), theta > 0
 * and, for the relative test, alpha > 0. The launchers check pointers and the workspace. */
static inline bool gs_tr_args_ok(const struct gs_tree_args *a)
{
  if (!a || (a->precision != 0 && a->precision != 1) || !gs_tr_sizes_ok(a)) return false;
  if (a->targets != GS_TREE_BY_INDEX && a->targets != GS_TREE_BY_ORDER) return false;
  if (a->law != GS_LAW_PLUMMER && a->law != GS_LAW_CUTOFF) return false;
  const double len = a->law == GS_LAW_PLUMMER ? a->eps2 : a->cut2;
  const double tiny = a->precision ? 2.3e-308 : 1.2e-38; /* a normal number: rsqrt flushes denormals */
  if (!(len >= tiny) || !(len < (a->precision ? 1e300 : 3e38)) || !(a->G == a->G)) return false;
  if (a->opening != GS_TREE_GEOMETRIC && a->opening != GS_TREE_RELATIVE) return false;
  if (!(a->theta > 0) || (a->opening == GS_TREE_RELATIVE && !(a->alpha > 0))) return false;
  return true;
}

/* Loads of moments another block may have written during this kernel: through L2 (ld.cg),
 * never from a stale L1 line. */
static __device__ __forceinline__ float4 gs_tr_ldcg(const float4 *p) { return __ldcg(p); }
static __device__ __forceinline__ gs_nb_double4 gs_tr_ldcg(const gs_nb_double4 *p)
{
  const double2 a = __ldcg(reinterpret_cast<const double2 *>(p));
  const double2 b = __ldcg(reinterpret_cast<const double2 *>(p) + 1);
  gs_nb_double4 v;
  v.x = a.x; v.y = a.y; v.z = b.x; v.w = b.y;
  return v;
}

/* The CUB temporary bytes the walk's selections need for n bodies and i_count targets
 * (gs_tree_walk.cu; 0 on error). */
extern "C" size_t gs_tree_walk_temp_bytes(uint64_t n, uint64_t i_count);

/* The workspace layout for a (gs_tree_build.cu): build and walk both take it from here. Returns 0
 * when CUB could not size its temporaries. */
extern "C" int gs_tree_build_layout(const struct gs_tree_args *a, struct gs_tr_layout *L);

#endif
