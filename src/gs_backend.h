/* gs_backend.h: the backend seam. Drivers own the algorithm (loops, MPI, overlap, timing,
 * verification); a backend owns memory and compute primitives. A backend is a const table of
 * operations plus an opaque per-rank state (struct gs_ctx) that `open` makes and `close` frees.
 * The core table holds memory, queues, copies, events and gates; each workload's primitives sit
 * in a sub-table of their own. What differs between backends is said by `caps` and by each
 * sub-table's kernel list, never by a backend's name. Every primitive checks its own errors and
 * aborts the job on failure (gs_error_die), naming rank, host, device and call. */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "gs_bind.h"
#include "gs_error.h"
#include "gs_nbody_force.h"
#include "gs_dtree.h"
#include "gs_tree.h"
#include "gs_fmm.h"

/* What a rank computes on: a GPU, or the host's cores for the CPU backend. */
struct gs_device_info {
  int index;               /* device index, -1 where the backend has none */
  char name[96];           /* "NVIDIA H200", or the CPU model */
  char pci[GS_PCI_MAX];    /* PCI bus id, "" where there is none */
  double mem_bytes;        /* device (or host) memory */
  int sm_count;            /* multiprocessors (CPU: OpenMP threads) */
  int cc_major, cc_minor;  /* compute capability */
  double l2_bytes;         /* L2 cache size */
  double bw_theory;        /* bytes/s: 2 x memory clock x bus width (0 if unknown) */
  /* Dense peak FLOP/s per device: FP32 (SIMT), FP64 (tensor cores, what DGEMM uses), TF32
   * (tensor cores); 0 where the backend does not know them (the CPU backend never does). */
  double flops_fp32, flops_fp64, flops_tf32;
  char flops_source[48];   /* where the peaks come from ("" with none) */
};

/* A backend's per-rank state (its device, its launch facts, this rank's identity). */
typedef struct gs_ctx gs_ctx;
/* An in-order work queue (a CUDA stream; nothing on the CPU, where work runs at once). */
typedef struct gs_queue gs_queue;
/* A gate: close it on a queue and the queue's later work waits until it is opened, so a timed
 * region measures the device's time, not the host's launch overhead. */
typedef struct gs_gate gs_gate;
/* A point in a queue, for timing and cross-queue waits (a CUDA event; a clock read on the CPU). */
typedef struct gs_event gs_event;

/* Capabilities: what a driver may rely on, or must allow for. */
enum gs_backend_cap {
  GS_CAP_DEVICES = 1u << 0,      /* ranks bind to devices of their node (--gpu-bind, --gpu-share) */
  GS_CAP_HOST_MEMORY = 1u << 1,  /* device buffers are host memory, shared by the node's ranks */
  GS_CAP_CONCURRENT = 1u << 2,   /* queues run beside the host and each other: overlap is real */
  GS_CAP_DEVICE_TIMING = 1u << 3 /* gated events time the device's work, not the host's clock */
};

/* One kernel of a backend's list for a workload. */
struct gs_kernel {
  const char *name;   /* what --kernel takes ("7", "onepass", "jsplit", "omp") */
  const char *title;  /* a few words for tables */
  int id;             /* the backend's own id, passed back to its primitives */
  unsigned flags;     /* enum gs_kernel_flag */
};

enum gs_kernel_flag {
  GS_KERNEL_LADDER = 1u << 0,   /* a step of the seed's ladder ("--kernel ladder") */
  GS_KERNEL_BASELINE = 1u << 1, /* a vendor library's (CUB): the yardstick, not one of ours */
  GS_KERNEL_INTERNAL = 1u << 2, /* the one the backend recommends for drivers' own sums */
  GS_KERNEL_TF32 = 1u << 3,     /* matmul: float inputs rounded to TF32 on tensor cores (looser tolerance) */
  GS_KERNEL_FLOAT = 1u << 4,    /* matmul: runs float */
  GS_KERNEL_DOUBLE = 1u << 5,   /* matmul: runs double */
  GS_KERNEL_STAGED = 1u << 6    /* matmul: stages its inputs in a device workspace (simt: both packed in
                                 * tiles; wgmma: B^T, and A if its rows are not 16-byte aligned): up to
                                 * (m + n + 256) x (k + 32) more elements */
};

/* Reduction primitives (gs_reduce.c, and the N-body diagnostics' sums). */
struct gs_reduce_ops {
  const struct gs_kernel *kernels; /* in the order tables show them */
  int count;
  /* Workspace bytes for n elements; zero it once after allocation. One workspace serves one
   * queue at a time (a kernel may keep a counter there): concurrent queues need one each. */
  size_t (*workspace)(gs_ctx *c, int kernel, int dtype, int op, uint64_t n);
  /* Reduce n elements of `in` into one union gs_acc at `out` (device memory), asynchronously on
   * q. n = 0 gives gs_acc_identity (gs_acc.h). */
  void (*run)(gs_ctx *c, int kernel, int dtype, int op, const void *in, uint64_t n, void *ws, size_t ws_bytes,
              void *out, gs_queue *q);
  /* A backend's own knob, NULL where it has none (the CPU): the threads per block of its block
   * kernels in later workspace and run calls (reduce's --block; 0: the backend's own choice). */
  void (*set_block)(gs_ctx *c, int block);
};

/* N-body primitives (gs_nbody*.c). Vectors are float4 or double4 by precision (0, 1). */
struct gs_nbody_ops {
  const struct gs_kernel *kernels;
  int count;
  size_t (*workspace)(gs_ctx *c, const struct gs_nbody_force_args *a);
  void (*forces)(gs_ctx *c, const struct gs_nbody_force_args *a, gs_queue *q);
  void (*kick)(gs_ctx *c, int precision, void *vel, const void *acc, uint64_t count, double dt, gs_queue *q);
  void (*drift)(gs_ctx *c, int precision, void *pos, const void *vel, uint64_t count, double dt, gs_queue *q);
  /* Per-body diagnostic terms into terms[k * count + i], k = 0: m v^2 / 2, 1: m phi / 2,
   * 2..4: m v, 5..7: m x; the driver sums each with the reduction primitives. */
  void (*terms)(gs_ctx *c, int precision, const void *pos, const void *vel, const void *acc, uint64_t count,
                double *terms, gs_queue *q);
};

/* Barnes-Hut tree primitives (--solver tree). build makes the tree over pos[0, n) in ws; walk
 * then computes the forces on the targets from it (the same ws and pos, later on the same queue).
 * Neither may rely on all of a device's blocks being resident at once (weak forward progress
 * only); coincident bodies, n = 0..3 and clustered inputs must neither hang nor overflow a limit. */
struct gs_tree_ops {
  const char *method;  /* a line for the run header: keys, build, moments, walk */
  /* Workspace bytes for a (n, the targets, precision); the caller allocates it, the backend
   * initialises what it needs in build. */
  size_t (*workspace)(gs_ctx *c, const struct gs_tree_args *a);
  void (*build)(gs_ctx *c, const struct gs_tree_args *a, gs_queue *q);
  void (*walk)(gs_ctx *c, const struct gs_tree_args *a, gs_queue *q);
  /* The results of a GS_TREE_BY_ORDER walk back into index order: dst[i - d_first] = src[s] for
   * each tree position s < n whose body i lies in [d_first, d_first + d_count) (others are left
   * alone); the tree's order is the one the last build over a->pos left in a->ws. */
  void (*unsort)(gs_ctx *c, const struct gs_tree_args *a, const void *src, void *dst, uint64_t d_first,
                 uint64_t d_count, gs_queue *q);
  /* Where runs of the tree's order may end so that every force is the same whoever walks it: a
   * backend that walks groups of targets together (the GPU: cells of up to 32 bodies) must not
   * see a group split. For each want[k] <= n, the first group start at or after it (n if none)
   * into got[k], from the tree the last build left in a->ws; returns once known (the host waits
   * for the queue). A backend that walks body by body returns want itself. */
  void (*bounds)(gs_ctx *c, const struct gs_tree_args *a, const uint64_t *want, uint64_t *got, int m, gs_queue *q);
};

/* The distributed tree's primitives (--tree-layout domains, gs_nbody_dtree*.c: the solver owns the
 * cells, the cut and every MPI call; these run where the bodies live). b's arrays and every
 * buffer named "backend memory" are the backend's (device memory where it has devices); the tree
 * they build lives in a state of their own (open / close). The tree is the compressed key-grid
 * trie of gs_dtree.h: bitwise the same whatever rank builds which part, so every rank count gives
 * the same forces. Each primitive returns once its work is done (the solver times them on the
 * host); host arrays are named so. */
struct gs_dtree_ops {
  const char *method; /* a line for the run header */
  int leaf;           /* bodies per leaf bucket where --leaf leaves it to the backend */
  int body_bytes[2];  /* bytes its state takes per held body (single, double), for the memory check */
  /* The state, whose work runs on queue q (every primitive returns once it is done). */
  void *(*open)(gs_ctx *c, gs_queue *q);
  void (*close)(gs_ctx *c, void *t);
  /* The bytes of memory its state holds now (the backend's memory: the device's where it has one). */
  size_t (*bytes)(gs_ctx *c, void *t);
  /* Per axis the least position and the negated greatest over b's bodies into m[6] (host; +inf
   * for no body): one MPI_MIN then gives the global cube. */
  void (*box)(gs_ctx *c, void *t, int precision, const struct gs_dtree_bodies *b, double m[6]);
  /* The keys of b's positions on cube, then b sorted by (key, id): pos, vel, acc, id, key, work
   * permuted alike. */
  void (*sort)(gs_ctx *c, void *t, int precision, const struct gs_dtree_cube *cube, struct gs_dtree_bodies *b);
  /* For each of the m keys want[k] (host), the first of b's sorted bodies whose key is not below
   * it, into got[k] (host). */
  void (*lower)(gs_ctx *c, void *t, const struct gs_dtree_bodies *b, const uint64_t *want, uint64_t *got, int m);
  /* The work of b's bodies [at[k], at[k + 1]) summed into w[k] (host arrays), k < nc. */
  void (*sums)(gs_ctx *c, void *t, const struct gs_dtree_bodies *b, const uint64_t *at, int nc, double *w);
  /* b's work (the last walk's interactions per body) rescaled to sum to seconds: a body carries
   * its cost to whichever rank holds it next. */
  void (*spread)(gs_ctx *c, void *t, struct gs_dtree_bodies *b, double seconds);
  /* Rows of b (GS_DTREE_ROW bytes each) into buf (backend memory) by the nrun runs (host). */
  void (*pack)(gs_ctx *c, void *t, int precision, const struct gs_dtree_bodies *b, const struct gs_dtree_run *runs,
               int nrun, void *buf);
  /* n rows of buf (backend memory) into b's bodies [at, at + n) (b has the room; b->n is the
   * caller's). */
  void (*unpack)(gs_ctx *c, void *t, int precision, const void *buf, uint64_t n, struct gs_dtree_bodies *b, uint64_t at);
  /* The subtrees of this rank's ncell cells, cell k holding b's sorted bodies [at[k], at[k + 1]):
   * their roots' records and amin into cells[k] (the rest of cells[k] is the caller's). */
  void (*build)(gs_ctx *c, void *t, const struct gs_tree_args *a, const struct gs_dtree_bodies *b, const uint64_t *at,
                struct gs_dtree_cell *cells, int ncell);
  /* The locally essential trees of this rank's cells (as built: table[first[me]] on) for every
   * other rank r, whose cells are table[first[r], first[r + 1]) (P + 1 entries of first): into the
   * backend's own memory, receiver after receiver in rank order, bytes[r] of them (host; 0 for me
   * and for a rank that needs nothing); *out is valid until the next call. */
  void (*let)(gs_ctx *c, void *t, const struct gs_tree_args *a, const struct gs_dtree_cell *table, const int *first,
              int P, int me, uint64_t *bytes, const void **out);
  /* The merged tree (the table's top trie, this rank's subtrees, the messages recv from every rank
   * in rank order, rbytes[r] of them (host)) and the walk of b's bodies into a->acc (held order);
   * interactions per target into work (NULL: none). Returns the nodes the walk had to open but
   * could not (0 unless a bug). */
  uint64_t (*walk)(gs_ctx *c, void *t, const struct gs_tree_args *a, const struct gs_dtree_cell *table, int ncell,
                   int cell0, const void *recv, const uint64_t *rbytes, int P, const struct gs_dtree_bodies *b,
                   double *work);
};

/* Matrix-multiply primitives (gs_matmul*.c). Matrices are row-major: element (i, j) of an r x c
 * matrix with leading dimension ld >= c is at [i * ld + j]. */
struct gs_matmul_ops {
  const struct gs_kernel *kernels;
  int count;
  /* C (m x n, ldc) = A (m x k, lda) * B (k x n, ldb), or C += A * B with accumulate, in dtype
   * GS_DTYPE_FLOAT or GS_DTYPE_DOUBLE (tf32: GS_DTYPE_FLOAT with a kernel flagged for it), on q.
   * Any m, n, k >= 0 (k = 0: C = 0, or unchanged with accumulate). */
  void (*gemm)(gs_ctx *c, int kernel, int dtype, uint64_t m, uint64_t n, uint64_t k, const void *A, uint64_t lda,
               const void *B, uint64_t ldb, void *C, uint64_t ldc, int accumulate, gs_queue *q);
  /* Free what gemm made on first use (a library handle, a staging workspace: the backend's own
   * matmul state, not its core's); the next gemm makes them again. NULL: nothing to free. */
  void (*release)(gs_ctx *c);
};

/* Fast multipole primitives (--solver fmm, gs_nbody_fmm.c: the solver owns the timing, the ranks
 * and the checks). The tree they build lives in a state of their own (open / close), from build
 * to unsort, over pos[0, n) of the last build: build (the octree), upward (each cell's multipole
 * expansion), interact (the dual walk: each cell-cell interaction and each leaf-leaf pair applied
 * to both sides at once), downward (each cell's local expansion to its children and bodies), in
 * that order on one queue. The results are in the tree's body order until unsort; the same
 * positions give the same bits whatever the backend's threads, so every rank that evaluates them
 * gets the same forces. */
struct gs_fmm_ops {
  const char *method; /* a line for the run header */
  int leaf;           /* bodies per leaf bucket where gs_fmm_args leaves it to the backend */
  void *(*open)(gs_ctx *c);
  void (*close)(gs_ctx *c, void *t);
  void (*build)(gs_ctx *c, void *t, const struct gs_fmm_args *a, gs_queue *q);
  void (*upward)(gs_ctx *c, void *t, const struct gs_fmm_args *a, gs_queue *q);
  void (*interact)(gs_ctx *c, void *t, const struct gs_fmm_args *a, gs_queue *q);
  void (*downward)(gs_ctx *c, void *t, const struct gs_fmm_args *a, gs_queue *q);
  /* The results into index order: dst[i - d_first] for each body i in [d_first, d_first +
   * d_count) (vectors of a->precision, device memory). */
  void (*unsort)(gs_ctx *c, void *t, const struct gs_fmm_args *a, void *dst, uint64_t d_first, uint64_t d_count,
                 gs_queue *q);
};

/* Device collectives over the ranks of an MPI communicator, one device per rank (NCCL), queued on
 * a gs_queue like any other work: data moves device to device, never through the host. Every
 * rank of the communicator makes the same calls in the same order. A failure (the library's
 * error, a peer gone, a collective that never finishes) names rank, host, GPU and call, aborts
 * the communicator so no device stays blocked, then aborts the job. */
typedef struct gs_coll gs_coll;
struct gs_coll_ops {
  const char *name; /* the library and its version, for the run header ("NCCL 2.28.9") */
  /* Collective over comm (any communicator: the world, a process row): NULL on every rank, with
   * the reason in why, when the library cannot make it (no device per rank, an init error). */
  gs_coll *(*open)(gs_ctx *c, MPI_Comm comm, char *why, size_t why_size);
  void (*close)(gs_ctx *c, gs_coll *k);
  /* In place: member r's bytes [first[r], first[r] + bytes[r]) of buf reach every member. */
  void (*allgather)(gs_ctx *c, gs_coll *k, void *buf, const uint64_t *first, const uint64_t *bytes, gs_queue *q);
  /* out[i] = in[i] combined over the members by op (enum gs_op), count accumulators (union
   * gs_acc: int64 for GS_DTYPE_INT32, double otherwise). in == out is allowed. */
  void (*allreduce)(gs_ctx *c, gs_coll *k, const void *in, void *out, uint64_t count, int dtype, int op,
                    gs_queue *q);
  /* buf's bytes from member root to every member. */
  void (*bcast)(gs_ctx *c, gs_coll *k, void *buf, uint64_t bytes, int root, gs_queue *q);
  /* Member r gets sbytes[r] of send (after those for the members before r) into its recv (after
   * what the members before this one sent it), rbytes[r] from member r: every pair at once, a
   * pair of zero bytes skipped, the member's own part copied on the device. */
  void (*alltoallv)(gs_ctx *c, gs_coll *k, const void *send, const uint64_t *sbytes, void *recv,
                    const uint64_t *rbytes, gs_queue *q);
  /* Wait on the host for e, recorded after collectives, by polling: returns when it is done; dies
   * (aborting the communicator) on the library's asynchronous error, when gone(arg) says a peer
   * is gone (a message: why), or after a generous timeout. */
  void (*wait)(gs_ctx *c, gs_coll *k, gs_event *e, const char *(*gone)(void *arg, double waited), void *arg);
};

struct gs_backend {
  const char *name;    /* what --backend takes: "cpu", "cuda" */
  const char *timing;  /* how its events time a region, for the run header */
  unsigned caps;       /* enum gs_backend_cap */

  /* Devices this process can see (0 without a driver). When the runtime could not count (no
   * driver, a driver older than the runtime), *why (if why is not NULL) gets its error text, else
   * NULL: a broken GPU setup must not pass for "no GPU". */
  int (*device_count)(const char **why);
  /* Runtime and driver versions as 1000*major + 10*minor (0 if none). */
  void (*versions)(int *runtime, int *driver);
  /* This rank's state on device `gpu` (-1: the runtime's default), which it describes in info.
   * `where` names the rank in error messages; its gpu field is filled in. */
  gs_ctx *(*open)(struct gs_where *where, int gpu, struct gs_device_info *info);
  void (*close)(gs_ctx *c);

  /* Device memory, and page-locked host memory for fast asynchronous copies. */
  void *(*alloc_device)(gs_ctx *c, size_t bytes);
  void (*free_device)(gs_ctx *c, void *p);
  void *(*alloc_host)(gs_ctx *c, size_t bytes);
  void (*free_host)(gs_ctx *c, void *p);
  void (*zero_device)(gs_ctx *c, void *p, size_t bytes, gs_queue *q);
  /* The device's free and total memory now, whoever uses it (every process on it); NULL where the
   * backend's memory is the host's. */
  void (*mem_info)(gs_ctx *c, double *free_bytes, double *total_bytes);

  /* Queues and asynchronous copies on them. */
  gs_queue *(*queue_create)(gs_ctx *c);
  /* A queue whose kernels the device starts ahead of the pending blocks of other queues' kernels
   * (CUDA: the greatest stream priority): for transfers that must not wait for a big kernel on
   * another queue to drain. */
  gs_queue *(*queue_create_urgent)(gs_ctx *c);
  void (*queue_destroy)(gs_ctx *c, gs_queue *q);
  void (*queue_sync)(gs_ctx *c, gs_queue *q);
  void (*queue_wait)(gs_ctx *c, gs_queue *q, gs_event *e); /* q waits for e */
  void (*copy_h2d)(gs_ctx *c, void *dst, const void *src, size_t bytes, gs_queue *q);
  void (*copy_d2h)(gs_ctx *c, void *dst, const void *src, size_t bytes, gs_queue *q);
  void (*copy_d2d)(gs_ctx *c, void *dst, const void *src, size_t bytes, gs_queue *q);

  /* Gates. gate_open returns 1 when the gate had already given up waiting (after 2 s): the
   * region timed behind it then includes host time, and the driver says so. */
  gs_gate *(*gate_create)(gs_ctx *c);
  void (*gate_destroy)(gs_ctx *c, gs_gate *g);
  void (*gate_close)(gs_ctx *c, gs_gate *g, gs_queue *q);
  int (*gate_open)(gs_ctx *c, gs_gate *g);

  /* Events. */
  gs_event *(*event_create)(gs_ctx *c);
  void (*event_destroy)(gs_ctx *c, gs_event *e);
  void (*event_record)(gs_ctx *c, gs_event *e, gs_queue *q);
  void (*event_sync)(gs_ctx *c, gs_event *e);
  double (*event_seconds)(gs_ctx *c, gs_event *start, gs_event *stop);

  /* Each workload's primitives. */
  const struct gs_reduce_ops *reduce;
  const struct gs_nbody_ops *nbody;
  const struct gs_matmul_ops *matmul;
  const struct gs_tree_ops *tree; /* NULL where the backend has no tree solver */
  const struct gs_dtree_ops *dtree; /* NULL where it has no distributed tree (--tree-layout replicated only) */
  const struct gs_coll_ops *coll; /* NULL where the backend has no device collectives */
  const struct gs_fmm_ops *fmm;   /* NULL where it has no fast multipole solver (--solver fmm refused) */
};

/* The backend built under name ("cpu", "cuda"), or NULL. */
const struct gs_backend *gs_backend_find(const char *name);

/* The program's device backend (devices = 1: ranks bind to its devices; --backend auto takes it
 * when every rank sees one) or its host backend (devices = 0, the fallback): its name, its label
 * ("CUDA"), the runtime call that counts its devices (NULL: none) and its table, NULL where this
 * build lacks it. */
const struct gs_backend *gs_backend_kind(int devices, const char **name, const char **label, const char **probe);

/* The i-th backend this program knows: its label for the run header ("CUDA"; "" for one with
 * no versions to tell) and its table, NULL where this build lacks it (a CPU-only build knows
 * CUDA but has no table for it). Returns 0 past the end. */
int gs_backend_at(int i, const char **label, const struct gs_backend **table);

/* The kernel of list (count entries) named name, or NULL. */
const struct gs_kernel *gs_backend_kernel(const struct gs_kernel *list, int count, const char *name);

/* The workloads whose kernels every backend lists, built or not (gs_backend_names). */
enum gs_backend_workload { GS_BACKEND_REDUCE = 0, GS_BACKEND_NBODY, GS_BACKEND_MATMUL, GS_BACKEND_WORKLOADS };

/* Every backend's kernel names for workload, built or not (a CPU-only build still knows CUDA's, so
 * that --kernel says they do not run on its backend, not that they are no kernel): into known,
 * NULL-terminated (at most max - 1 names), the numbered backend's first, then the device
 * backends'; and into text (size bytes; NULL: none) the help line `line` (a printf format with
 * one %s) with the list "1..8 / a, b (cuda), c (cpu)" for its %s: the numbers where a backend
 * numbers its kernels, then each backend's names (or its own grouping of them, "1..7 (the seed
 * ladder), vec") and its name, sep (", " or " / ") between backends. Returns how many of known
 * --kernel may also give by number 1..that (CUDA's N-body kernels, its matmul ladder). The names
 * are the backends' own (gs_backend_cpu_*.c, gs_backend_cuda_names.c): no driver spells one. */
int gs_backend_names(int workload, const char *sep, const char *line, const char **known, int max, char *text,
                     size_t size);

/* The backends' tables (gs_backend_cpu.c, and gs_backend_cuda.c in a CUDA build). */
extern const struct gs_backend gs_backend_cpu_ops;
extern const struct gs_backend gs_backend_cuda_ops;
/* Their kernel lists, each ended by a NULL name, in every build (gs_backend_cpu_<workload>.c,
 * gs_backend_cuda_names.c): what their sub-tables hold; and how CUDA's --help line groups its
 * reduce and matmul names. */
extern const struct gs_kernel gs_backend_cpu_reduce_kernels[];
extern const struct gs_kernel gs_backend_cpu_nbody_kernels[];
extern const struct gs_kernel gs_backend_cpu_matmul_kernels[];
extern const struct gs_kernel gs_backend_cuda_names_reduce[];
extern const struct gs_kernel gs_backend_cuda_names_nbody[];
extern const struct gs_kernel gs_backend_cuda_names_matmul[];
extern const char gs_backend_cuda_names_reduce_help[];
extern const char gs_backend_cuda_names_matmul_help[];

#endif
