/* gs_tree_open.cuh: what a Barnes-Hut walk decides about a node, shared by the walk
 * (gs_tree_walk.cu) and the distributed tree's locally essential trees (gs_tree_dlet.cu), which
 * must send every node some target of the receiver may open: both call this very function, the
 * sender with a receiver's cell box in place of a group's. CUDA C++ only. */
#ifndef GS_TREE_OPEN_CUH
#define GS_TREE_OPEN_CUH

#include "gs_tree_internal.cuh"

/* Everything a walk reads, by value (a kernel parameter). */
template <typename T>
struct gs_tr_walk_args {
  const gs_nb_vec_t<T> *pos, *spos, *cm, *qd, *lo, *hi, *aold;
  const uint2 *child, *range;
  const uint32_t *tgt, *idx, *gstart;
  uint32_t *cnt;  /* the layout's counters: [1] groups, [2] groups taken */
  gs_nb_vec_t<T> *acc;
  uint64_t i_first;
  uint32_t ntgt, n, leaf;  /* targets in the walk order */
  int by_order;  /* GS_TREE_BY_ORDER */
  int rel;  /* the relative opening test (else the geometric one) */
  T G, e2, cut2, theta2, alpha;
  unsigned long long *counts;
  /* The distributed tree's merged tree (gs_tree_dmerge.cu; the walk's DT instances): children
   * flagged GS_TR_BODY for bodies, GS_TR_MISSING where a remote node came closed; the walk starts
   * at root; the targets are spos[0, ntgt) in order (aold and acc by position, idx unused);
   * interactions per target into work (NULL: none), closed nodes it had to open into
   * counts[GS_TREE_MISSING]. */
  uint32_t root;
  double *work;
};

/* a's opening test and force law into p: the relative test where it applies (not on a first
 * evaluation, which has no |a_old|), G, the softening, the cutoff, theta^2 and alpha, these two
 * times shrink (1 for a walk; the senders of the locally essential trees shrink them against
 * rounding, gs_tree_dlet.cu). */
template <typename T>
static inline void gs_tr_open_settings(gs_tr_walk_args<T> &p, const struct gs_tree_args *a, double shrink)
{
  p.rel = a->opening == GS_TREE_RELATIVE && !a->first;
  p.G = (T)a->G, p.e2 = a->law == GS_LAW_PLUMMER ? (T)a->eps2 : T(0), p.cut2 = (T)a->cut2;
  p.theta2 = (T)(a->theta * a->theta * shrink), p.alpha = (T)(a->alpha * shrink);
}

/* The warp's group: its targets' box, the smallest |a_old| (relative test), live targets, and
 * the interaction counts so far. */
template <typename T>
struct gs_tr_group {
  T lx, ly, lz, hx, hy, hz, amin;
  uint32_t live;
  unsigned long long bb, bc;
};

/* What the walk does with a node for a group. */
enum gs_tr_fate { GS_TR_ACCEPT = 0, GS_TR_OPEN = 1, GS_TR_SKIP = 2 };

/* The fate of a node (centre of mass and mass c, box l .. h) for group g. Exact shortcuts first:
 * under the cutoff law a node whose box lies wholly within the cutoff of every target (with a
 * margin of 2^-10 for rounding) exerts nothing and is skipped; under Plummer softening a node
 * whose bodies all sit at one point is exactly its monopole, taken whole even by its own bodies
 * (the self pair then adds m_i / eps to the potential, taken out as always). These keep coincident
 * bodies O(n) instead of O(n^2). Then a node is opened when its box overlaps the group's (a
 * target may be inside: the expansion would not converge, and the target's own body must be met
 * as a body), and under the cutoff law when any part of it may lie within the cutoff of a target.
 * Else the opening test, with d the distance from the centre of mass to the group's box and size
 * the distance from the centre of mass to the farthest corner of the node's box (Bonsai's opening
 * radius): geometric, size > theta d; relative (GADGET-2), G M size^2 / d^4 > alpha |a_old|. */
template <typename T, int LAW>
static __device__ __forceinline__ int gs_tr_fate(const gs_tr_walk_args<T> &p, const gs_tr_group<T> &g,
                                                 const gs_nb_vec_t<T> &c, const gs_nb_vec_t<T> &l,
                                                 const gs_nb_vec_t<T> &h)
{
  if constexpr (LAW == GS_LAW_CUTOFF) {
    const T fx = fmax(h.x - g.lx, g.hx - l.x), fy = fmax(h.y - g.ly, g.hy - l.y), fz = fmax(h.z - g.lz, g.hz - l.z);
    if (fx * fx + fy * fy + fz * fz < p.cut2 * T(1 - 1.0 / 1024)) return GS_TR_SKIP;
  } else {
    if (l.x == h.x && l.y == h.y && l.z == h.z) return GS_TR_ACCEPT;
  }
  if (l.x <= g.hx && h.x >= g.lx && l.y <= g.hy && h.y >= g.ly && l.z <= g.hz && h.z >= g.lz) return GS_TR_OPEN;
  if constexpr (LAW == GS_LAW_CUTOFF) {
    const T bx = fmax(fmax(l.x - g.hx, g.lx - h.x), T(0));
    const T by = fmax(fmax(l.y - g.hy, g.ly - h.y), T(0));
    const T bz = fmax(fmax(l.z - g.hz, g.lz - h.z), T(0));
    if (bx * bx + by * by + bz * bz < p.cut2) return GS_TR_OPEN;
  }
  const T dx = fmax(fmax(g.lx - c.x, c.x - g.hx), T(0));
  const T dy = fmax(fmax(g.ly - c.y, c.y - g.hy), T(0));
  const T dz = fmax(fmax(g.lz - c.z, c.z - g.hz), T(0));
  const T d2 = dx * dx + dy * dy + dz * dz;
  const T sx = fmax(c.x - l.x, h.x - c.x), sy = fmax(c.y - l.y, h.y - c.y), sz = fmax(c.z - l.z, h.z - c.z);
  const T size2 = sx * sx + sy * sy + sz * sz;
  const bool open = p.rel ? fabs(p.G) * c.w * size2 > p.alpha * g.amin * (d2 * d2) : size2 > p.theta2 * d2;
  return open ? GS_TR_OPEN : GS_TR_ACCEPT;
}

#endif
