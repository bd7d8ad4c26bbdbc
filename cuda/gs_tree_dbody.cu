/* gs_tree_dbody.cu: the CUDA distributed tree's primitives over the bodies one rank holds
 * (gs_cuda.h; the state: gs_tree_dstate.cuh, opened and closed here): the box, the keys and the
 * (key, id) sort, the searches for the cells' first keys, the work per cell and its rescaling,
 * and the rows that carry a body to another rank. Everything stays on the device; only the small
 * host arrays of the calls cross. The keys are the CPU backend's bits (the same double arithmetic,
 * gs_backend_cpu_dbody.c), so both backends cut the same cells. */
#include <cub/cub.cuh>

#include "gs_tree_dstate.cuh"
#include "gs_tree_kernels.cuh"

extern "C" int gs_tree_dbody_open(struct gs_tree_dstate **s)
{
  *s = (struct gs_tree_dstate *)calloc(1, sizeof **s);
  if (!*s) return (int)cudaErrorMemoryAllocation;
  return (int)cudaMalloc((void **)&(*s)->counts, 16 * sizeof *(*s)->counts);
}

extern "C" void gs_tree_dbody_close(struct gs_tree_dstate *s)
{
  if (!s) return;
  void *p[] = {s->idx, s->parent, s->flag, s->cellid, s->gid, s->gstart, s->cub, s->small, s->counts, s->at, s->lroot, s->lrec, s->cm, s->qd, s->lo, s->hi,
               s->spos, s->child, s->range, s->table, s->tkey_in, s->tkey, s->tiota, s->tord, s->tpos, s->crec,
               s->camin, s->cown, s->ccnt, s->cref, s->tchild, s->trange, s->tparent, s->tflag, s->tamin, s->trr,
               s->er, s->eid, s->ecell, s->eopen, s->front, s->bodies, s->bscan, s->ekind, s->send, s->lr};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++)
    if (p[k]) cudaFree(p[k]);
  free(s);
}

extern "C" size_t gs_tree_dbody_bytes(const struct gs_tree_dstate *s)
{
  if (!s) return 0;
  const size_t vs = (size_t)s->mvs, tv = (size_t)(s->vs ? s->vs : 16);
  return s->bcap * 28 + s->mcap * (4 * vs + 16) + s->scap * vs + (size_t)s->ccap * (8 + 4 + 5 * 32) +
         (size_t)s->tcap * (sizeof(struct gs_dtree_cell) + 8 + 8 + 4 + 4 + 4 + 5 * tv + 4 + 4 + 4 + 8 + 8 + 8 + 4 + 8) +
         s->ecap * (7 * 4 + 1) + s->cub_cap + s->small_cap + s->send_cap + s->lr_cap + 16 * sizeof *s->counts;
}

/* Room for n bodies' scratch (all the per-body arrays together) and the merged tree's node arrays
 * over n bodies in vectors of vs bytes, which the sort borrows (nothing in them is kept). */
static cudaError_t gs_tr_dbody_room(gs_tree_dstate *s, uint64_t n, int vs, cudaStream_t st)
{
  cudaError_t e = gs_tr_dmerged_room(s, n ? n : 1, n ? n : 1, 0, 0, vs, st);
  if (e != cudaSuccess || (n <= s->bcap && vs == s->vs && s->idx)) return e;
  void **p[] = {(void **)&s->idx, (void **)&s->parent, (void **)&s->flag, (void **)&s->cellid, (void **)&s->gid,
                (void **)&s->gstart};
  const size_t row[] = {4, 8, 4, 4, 4, 4};
  const uint64_t cap = n + n / 16 + 1024;
  for (size_t k = 0; k < sizeof row / sizeof *row; k++)
    if ((e = gs_tr_dregrow(p[k], row[k], cap, 0, st)) != cudaSuccess) return e;
  s->bcap = cap, s->vs = vs;
  return cudaSuccess;
}

/* Room for bytes of small staging. */
static cudaError_t gs_tr_dbody_small(gs_tree_dstate *s, size_t bytes)
{
  return gs_tr_dgrow(&s->small, &s->small_cap, bytes);
}

template <typename T>
static cudaError_t gs_tr_dbody_box_t(gs_tree_dstate *s, const void *pos, uint64_t n, double m[6], cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  for (int k = 0; k < 6; k++)
    m[k] = INFINITY;
  if (n == 0) return cudaSuccess;
  cudaError_t e = gs_tr_dbody_small(s, (2 + 2 * GS_TR_BOX_BLOCKS) * sizeof(V));
  if (e != cudaSuccess) return e;
  V *box = (V *)s->small, h[2];
  const uint64_t want = (n + GS_TR_BOX_THREADS - 1) / GS_TR_BOX_THREADS;
  const unsigned parts = (unsigned)(want < GS_TR_BOX_BLOCKS ? want : GS_TR_BOX_BLOCKS);
  gs_tr_box_part<T><<<parts, GS_TR_BOX_THREADS, 0, st>>>((const V *)pos, (uint32_t)n, box + 2);
  gs_tr_box_final<T><<<1, GS_TR_BOX_THREADS, 0, st>>>(box, parts, (uint32_t)n, NULL);
  if ((e = cudaMemcpyAsync(h, box, sizeof h, cudaMemcpyDeviceToHost, st)) != cudaSuccess) return e;
  if ((e = cudaStreamSynchronize(st)) != cudaSuccess) return e;
  m[0] = h[0].x, m[1] = h[0].y, m[2] = h[0].z, m[3] = -(double)h[1].x, m[4] = -(double)h[1].y, m[5] = -(double)h[1].z;
  return cudaGetLastError();
}

extern "C" int gs_tree_dbody_box(struct gs_tree_dstate *s, int precision, const void *pos, uint64_t n, double m[6],
                                 void *stream)
{
  const cudaStream_t st = (cudaStream_t)stream;
  return (int)(precision ? gs_tr_dbody_box_t<double>(s, pos, n, m, st) : gs_tr_dbody_box_t<float>(s, pos, n, m, st));
}

/* The CPU backend's key of one coordinate's cell: (x - lo) / edge * 2^21 in IEEE double, rounded
 * as there (no contraction: each operation its own), clamped to the grid. */
static __device__ __forceinline__ uint64_t gs_tr_dbody_cell(double x, double lo, double edge)
{
  const double cells = (double)(1u << GS_DTREE_BITS);
  const double f = edge > 0 ? __dmul_rn(__ddiv_rn(__dsub_rn(x, lo), edge), cells) : 0;
  return !(f > 0) ? 0 : f >= cells - 1 ? (uint64_t)cells - 1 : (uint64_t)f;
}

/* Keys of pos[0, n) on cube (digit x | y << 1 | z << 2, gs_dtree.h), and the payload 0 .. n-1. */
template <typename T>
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_dbody_keys(const gs_nb_vec_t<T> *__restrict__ pos, uint32_t n, const struct gs_dtree_cube cube,
                 uint64_t *__restrict__ key, uint32_t *__restrict__ iota)
{
  const uint32_t i = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (i >= n) return;
  const gs_nb_vec_t<T> p = pos[i];
  key[i] = gs_tr_spread(gs_tr_dbody_cell(p.x, cube.lo[0], cube.edge)) |
           gs_tr_spread(gs_tr_dbody_cell(p.y, cube.lo[1], cube.edge)) << 1 |
           gs_tr_spread(gs_tr_dbody_cell(p.z, cube.lo[2], cube.edge)) << 2;
  iota[i] = i;
}

/* The runs of equal keys (coincident bodies) put in id order: the thread at a run's start sorts
 * its payloads by insertion (runs are short); a run longer than 64 is left to the full sort by
 * (key, id), counted in *over. */
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_dbody_ties(const uint64_t *__restrict__ key, uint32_t n, const uint64_t *__restrict__ id, uint32_t *idx,
                 unsigned long long *over)
{
  const uint32_t s = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (s + 1 >= n || key[s + 1] != key[s] || (s > 0 && key[s - 1] == key[s])) return;
  uint32_t e = s + 1;
  while (e < n && key[e] == key[s] && e - s <= 64) ++e;
  if (e - s > 64) {
    atomicAdd(over, 1ull);
    return;
  }
  for (uint32_t j = s + 1; j < e; ++j) {
    const uint32_t v = idx[j];
    const uint64_t x = id[v];
    uint32_t k = j;
    for (; k > s && id[idx[k - 1]] > x; --k) idx[k] = idx[k - 1];
    idx[k] = v;
  }
}

/* to[s] = from[idx[s]], rows of R bytes (R a multiple of 8). */
template <int R>
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_dbody_gather(const void *__restrict__ from, const uint32_t *__restrict__ idx, uint32_t n, void *__restrict__ to)
{
  struct row {
    uint64_t w[R / 8];
  };
  const uint32_t s = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (s < n) ((row *)to)[s] = ((const row *)from)[idx[s]];
}

/* v (n rows of R bytes) into the order idx, through tmp. */
template <int R>
static cudaError_t gs_tr_dbody_permute(void *v, const uint32_t *idx, uint32_t n, void *tmp, cudaStream_t st)
{
  gs_tr_dbody_gather<R><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(v, idx, n, tmp);
  return cudaMemcpyAsync(v, tmp, (size_t)R * n, cudaMemcpyDeviceToDevice, st);
}

/* CUB's radix sort of n (key, uint32) pairs over bits [0, bits) between the two buffers of each
 * (no third copy: the result in whichever Current() says), its temporaries grown. */
static cudaError_t gs_tr_dbody_radix(gs_tree_dstate *s, cub::DoubleBuffer<uint64_t> &k, cub::DoubleBuffer<uint32_t> &v,
                                     uint32_t n, int bits, cudaStream_t st)
{
  return gs_tr_dcub(s, [&](void *t, size_t &bytes) {
    return cub::DeviceRadixSort::SortPairs(t, bytes, k, v, (int)n, 0, bits, st);
  });
}

/* change[s] = 1 where sorted key s differs from the one before (their inclusive sum numbers the
 * runs of equal keys); composite[s] = run << idbits | the id of the body there: the runs keep
 * their key order, and within a run the ids decide. */
static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_dbody_flags(const uint64_t *__restrict__ key, uint32_t n, uint32_t *__restrict__ change)
{
  const uint32_t s = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (s < n) change[s] = s > 0 && key[s] != key[s - 1];
}

static __global__ void __launch_bounds__(GS_TR_BLOCK)
gs_tr_dbody_composite(const uint32_t *__restrict__ rank, const uint32_t *__restrict__ idx,
                      const uint64_t *__restrict__ id, uint32_t n, int idbits, uint64_t *__restrict__ out)
{
  const uint32_t s = blockIdx.x * GS_TR_BLOCK + threadIdx.x;
  if (s < n) out[s] = (uint64_t)rank[s] << idbits | id[idx[s]];
}

/* The bits of this rank's largest id (the composite keys' id part). */
static cudaError_t gs_tr_dbody_idbits(gs_tree_dstate *s, const uint64_t *id, uint32_t n, int *bits, cudaStream_t st)
{
  unsigned long long h = 0;
  uint64_t *most = (uint64_t *)(s->counts + 10);
  cudaError_t e;
  if ((e = gs_tr_dcub(s, [&](void *t, size_t &bytes) {
         return cub::DeviceReduce::Max(t, bytes, id, most, (int)n, st);
       })) != cudaSuccess ||
      (e = cudaMemcpyAsync(&h, most, sizeof h, cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
      (e = cudaStreamSynchronize(st)) != cudaSuccess)
    return e;
  for (*bits = 1; *bits < 64 && h >> *bits; ++*bits) {}
  return cudaSuccess;
}

/* Where a run of equal keys was too long for gs_tr_dbody_ties: the order (the keys sorted in k's
 * Current, the bodies' indices in v's) sorted again by (run, id), one 64-bit radix sort of the
 * run's number above the id (ranks hold fewer than 2^30 bodies; ids of up to 34 bits fit); then
 * the keys gathered in the new order. */
static cudaError_t gs_tr_dbody_by_id(gs_tree_dstate *s, const struct gs_dtree_bodies *b,
                                     cub::DoubleBuffer<uint64_t> &k, cub::DoubleBuffer<uint32_t> &v, uint32_t n,
                                     cudaStream_t st)
{
  int idbits = 0, runbits = 1;
  cudaError_t e = gs_tr_dbody_idbits(s, b->id, n, &idbits, st);
  while (runbits < 32 && (uint64_t)n >> runbits) runbits++;
  if (e != cudaSuccess || idbits + runbits > 64) return e != cudaSuccess ? e : cudaErrorInvalidValue;
  uint32_t *rank = s->flag; /* free until the build */
  gs_tr_dbody_flags<<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(k.Current(), n, rank);
  if ((e = gs_tr_dcub(s, [&](void *t, size_t &bytes) {
         return cub::DeviceScan::InclusiveSum(t, bytes, rank, rank, (int)n, st);
       })) != cudaSuccess)
    return e;
  gs_tr_dbody_composite<<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(rank, v.Current(), b->id, n, idbits, k.Alternate());
  k.selector ^= 1;
  if ((e = gs_tr_dbody_radix(s, k, v, n, idbits + runbits, st)) != cudaSuccess) return e;
  gs_tr_dbody_gather<8><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(b->key, v.Current(), n, k.Alternate());
  k.selector ^= 1;
  return cudaGetLastError();
}

/* The order by (key, id) in v's Current payload and the sorted keys in k's Current. */
template <typename T>
static cudaError_t gs_tr_dbody_order(gs_tree_dstate *s, const struct gs_dtree_cube *cube, struct gs_dtree_bodies *b,
                                     cub::DoubleBuffer<uint64_t> &k, cub::DoubleBuffer<uint32_t> &v, cudaStream_t st)
{
  using V = gs_nb_vec_t<T>;
  const uint32_t n = (uint32_t)b->n;
  gs_tr_dbody_keys<T><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>((const V *)b->pos, n, *cube, k.Current(), v.Current());
  cudaError_t e = gs_tr_dbody_radix(s, k, v, n, 3 * GS_DTREE_BITS, st);
  unsigned long long over = 0;
  if (e != cudaSuccess || (e = cudaMemsetAsync(s->counts + 8, 0, sizeof over, st)) != cudaSuccess) return e;
  gs_tr_dbody_ties<<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>(k.Current(), n, b->id, v.Current(), s->counts + 8);
  if ((e = cudaMemcpyAsync(&over, s->counts + 8, sizeof over, cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
      (e = cudaStreamSynchronize(st)) != cudaSuccess || !over)
    return e;
  /* the fallback reads the keys in the bodies' order: made again where it can read them */
  gs_tr_dbody_keys<T><<<gs_tr_grid(n), GS_TR_BLOCK, 0, st>>>((const V *)b->pos, n, *cube, b->key, s->cellid);
  return gs_tr_dbody_by_id(s, b, k, v, n, st);
}

template <typename T>
static cudaError_t gs_tr_dbody_sort_t(gs_tree_dstate *s, const struct gs_dtree_cube *cube, struct gs_dtree_bodies *b,
                                      cudaStream_t st)
{
  const uint32_t n = (uint32_t)b->n;
  const int R = (int)sizeof(gs_nb_vec_t<T>);
  cudaError_t e = gs_tr_dbody_room(s, n, R, st);
  if (e != cudaSuccess || n == 0) return e;
  /* the scratch the merged tree lends: keys in lo and qd, payloads in gid and idx, rows via cm */
  cub::DoubleBuffer<uint64_t> k((uint64_t *)s->lo, (uint64_t *)s->qd);
  cub::DoubleBuffer<uint32_t> v(s->gid, s->idx);
  if ((e = gs_tr_dbody_order<T>(s, cube, b, k, v, st)) != cudaSuccess) return e;
  const uint32_t *idx = v.Current();
  void *vec[3] = {b->pos, b->vel, b->acc};
  for (int c = 0; c < 3; c++)
    if ((e = R == 16 ? gs_tr_dbody_permute<16>(vec[c], idx, n, s->cm, st)
                     : gs_tr_dbody_permute<32>(vec[c], idx, n, s->cm, st)) != cudaSuccess)
      return e;
  if ((e = gs_tr_dbody_permute<8>(b->id, idx, n, s->cm, st)) != cudaSuccess ||
      (e = gs_tr_dbody_permute<8>(b->work, idx, n, s->cm, st)) != cudaSuccess ||
      (e = cudaMemcpyAsync(b->key, k.Current(), 8ull * n, cudaMemcpyDeviceToDevice, st)) != cudaSuccess)
    return e;
  s->built = 0; /* the bodies moved: the last build is not theirs */
  return cudaStreamSynchronize(st);
}

extern "C" int gs_tree_dbody_sort(struct gs_tree_dstate *s, int precision, const struct gs_dtree_cube *cube,
                                  struct gs_dtree_bodies *b, void *stream)
{
  const cudaStream_t st = (cudaStream_t)stream;
  if (b->n >= (1ull << 30)) return (int)cudaErrorInvalidValue; /* 32-bit positions (gs_tr_sizes_ok) */
  return (int)(precision ? gs_tr_dbody_sort_t<double>(s, cube, b, st) : gs_tr_dbody_sort_t<float>(s, cube, b, st));
}

/* got[k] = the first of key[0, n) not below want[k] (in place: want and got may be one array). */
static __global__ void gs_tr_dbody_lower_kernel(const uint64_t *__restrict__ key, uint64_t n, uint64_t *w, int m)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  const uint64_t x = w[k];
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (key[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  w[k] = lo;
}

extern "C" int gs_tree_dbody_lower(struct gs_tree_dstate *s, const uint64_t *key, uint64_t n, const uint64_t *want,
                                   uint64_t *got, int m, void *stream)
{
  const cudaStream_t st = (cudaStream_t)stream;
  if (m <= 0) return (int)cudaSuccess;
  cudaError_t e = gs_tr_dbody_small(s, 8 * (size_t)m);
  if (e != cudaSuccess) return (int)e;
  uint64_t *w = (uint64_t *)s->small;
  if ((e = cudaMemcpyAsync(w, want, 8 * (size_t)m, cudaMemcpyHostToDevice, st)) != cudaSuccess) return (int)e;
  gs_tr_dbody_lower_kernel<<<(m + 255) / 256, 256, 0, st>>>(key, n, w, m);
  if ((e = cudaMemcpyAsync(got, w, 8 * (size_t)m, cudaMemcpyDeviceToHost, st)) != cudaSuccess) return (int)e;
  if ((e = cudaStreamSynchronize(st)) != cudaSuccess) return (int)e;
  return (int)cudaGetLastError();
}

/* One warp per run: w[k] = work summed over [at[k], at[k + 1]), lanes then a fixed shuffle tree. */
static __global__ void gs_tr_dbody_sums_kernel(const double *__restrict__ work, const uint64_t *__restrict__ at,
                                               int nc, double *__restrict__ w)
{
  const int k = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32), lane = threadIdx.x & 31;
  if (k >= nc) return;
  double v = 0;
  for (uint64_t i = at[k] + lane; i < at[k + 1]; i += 32) v += work[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(~0u, v, o);
  if (lane == 0) w[k] = v;
}

extern "C" int gs_tree_dbody_sums(struct gs_tree_dstate *s, const double *work, const uint64_t *at, int nc, double *w,
                                  void *stream)
{
  const cudaStream_t st = (cudaStream_t)stream;
  if (nc <= 0) return (int)cudaSuccess;
  cudaError_t e = gs_tr_dbody_small(s, 8 * (2 * (size_t)nc + 1));
  if (e != cudaSuccess) return (int)e;
  uint64_t *dat = (uint64_t *)s->small;
  double *dw = (double *)(dat + nc + 1);
  if ((e = cudaMemcpyAsync(dat, at, 8 * ((size_t)nc + 1), cudaMemcpyHostToDevice, st)) != cudaSuccess) return (int)e;
  gs_tr_dbody_sums_kernel<<<(unsigned)(((size_t)nc * 32 + 255) / 256), 256, 0, st>>>(work, dat, nc, dw);
  if ((e = cudaMemcpyAsync(w, dw, 8 * (size_t)nc, cudaMemcpyDeviceToHost, st)) != cudaSuccess) return (int)e;
  if ((e = cudaStreamSynchronize(st)) != cudaSuccess) return (int)e;
  return (int)cudaGetLastError();
}

/* work[i] *= seconds / total, total the sum the reduction left in *total (nothing where it is 0). */
static __global__ void gs_tr_dbody_scale(double *work, uint64_t n, double seconds, const double *total)
{
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && *total > 0) work[i] *= seconds / *total;
}

extern "C" int gs_tree_dbody_spread(struct gs_tree_dstate *s, double *work, uint64_t n, double seconds, void *stream)
{
  const cudaStream_t st = (cudaStream_t)stream;
  if (n == 0) return (int)cudaSuccess;
  cudaError_t e = gs_tr_dbody_small(s, 8);
  double *total = (double *)s->small;
  if (e != cudaSuccess || (e = gs_tr_dcub(s, [&](void *t, size_t &bytes) {
                             return cub::DeviceReduce::Sum(t, bytes, work, total, (int)n, st);
                           })) != cudaSuccess)
    return (int)e;
  gs_tr_dbody_scale<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(work, n, seconds, total);
  if ((e = cudaStreamSynchronize(st)) != cudaSuccess) return (int)e;
  return (int)cudaGetLastError();
}

/* One block per run: its rows of pos, vel, acc (vectors of V), id and work into buf. */
template <typename V>
static __global__ void gs_tr_dbody_pack_kernel(const V *pos, const V *vel, const V *acc, const uint64_t *id,
                                               const double *work, const struct gs_dtree_run *runs, char *buf)
{
  const struct gs_dtree_run r = runs[blockIdx.x];
  const size_t row = GS_DTREE_ROW(sizeof(V));
  for (uint64_t j = threadIdx.x; j < r.count; j += blockDim.x) {
    const uint64_t i = r.from + j;
    char *o = buf + (r.to + j) * row;
    ((V *)o)[0] = pos[i], ((V *)o)[1] = vel[i], ((V *)o)[2] = acc[i];
    ((uint64_t *)(o + 3 * sizeof(V)))[0] = id[i], ((double *)(o + 3 * sizeof(V)))[1] = work[i];
  }
}

/* One thread per row of buf into the bodies [at, at + n). */
template <typename V>
static __global__ void gs_tr_dbody_unpack_kernel(const char *buf, uint64_t n, V *pos, V *vel, V *acc, uint64_t *id,
                                                 double *work, uint64_t at)
{
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const size_t row = GS_DTREE_ROW(sizeof(V));
  const char *o = buf + j * row;
  const uint64_t i = at + j;
  pos[i] = ((const V *)o)[0], vel[i] = ((const V *)o)[1], acc[i] = ((const V *)o)[2];
  id[i] = ((const uint64_t *)(o + 3 * sizeof(V)))[0], work[i] = ((const double *)(o + 3 * sizeof(V)))[1];
}

extern "C" int gs_tree_dbody_pack(struct gs_tree_dstate *s, int precision, const struct gs_dtree_bodies *b,
                                  const struct gs_dtree_run *runs, int nrun, void *buf, void *stream)
{
  const cudaStream_t st = (cudaStream_t)stream;
  if (nrun <= 0) return (int)cudaSuccess;
  cudaError_t e = gs_tr_dbody_small(s, sizeof *runs * (size_t)nrun);
  if (e != cudaSuccess) return (int)e;
  if ((e = cudaMemcpyAsync(s->small, runs, sizeof *runs * (size_t)nrun, cudaMemcpyHostToDevice, st)) != cudaSuccess)
    return (int)e;
  const struct gs_dtree_run *dr = (const struct gs_dtree_run *)s->small;
  if (precision)
    gs_tr_dbody_pack_kernel<gs_nb_double4><<<(unsigned)nrun, 256, 0, st>>>(
        (const gs_nb_double4 *)b->pos, (const gs_nb_double4 *)b->vel, (const gs_nb_double4 *)b->acc, b->id, b->work,
        dr, (char *)buf);
  else
    gs_tr_dbody_pack_kernel<float4><<<(unsigned)nrun, 256, 0, st>>>((const float4 *)b->pos, (const float4 *)b->vel,
                                                                    (const float4 *)b->acc, b->id, b->work, dr,
                                                                    (char *)buf);
  if ((e = cudaStreamSynchronize(st)) != cudaSuccess) return (int)e;
  return (int)cudaGetLastError();
}

extern "C" int gs_tree_dbody_unpack(struct gs_tree_dstate *s, int precision, const void *buf, uint64_t n,
                                    struct gs_dtree_bodies *b, uint64_t at, void *stream)
{
  (void)s;
  const cudaStream_t st = (cudaStream_t)stream;
  if (n == 0) return (int)cudaSuccess;
  const unsigned grid = (unsigned)((n + 255) / 256);
  if (precision)
    gs_tr_dbody_unpack_kernel<gs_nb_double4><<<grid, 256, 0, st>>>((const char *)buf, n, (gs_nb_double4 *)b->pos,
                                                                   (gs_nb_double4 *)b->vel, (gs_nb_double4 *)b->acc,
                                                                   b->id, b->work, at);
  else
    gs_tr_dbody_unpack_kernel<float4><<<grid, 256, 0, st>>>((const char *)buf, n, (float4 *)b->pos, (float4 *)b->vel,
                                                            (float4 *)b->acc, b->id, b->work, at);
  cudaError_t e = cudaStreamSynchronize(st);
  if (e != cudaSuccess) return (int)e;
  return (int)cudaGetLastError();
}
