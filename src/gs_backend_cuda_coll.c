/* gs_backend_cuda_coll.c: the CUDA backend's device collectives (be->coll) with NCCL, built only
 * where configure found it (GS_HAVE_NCCL). One NCCL communicator per MPI communicator: rank 0's
 * unique id broadcast over MPI, one GPU per rank. The host never blocks inside NCCL: work is
 * queued on a stream, and `wait` polls the event after it, so a peer that died mid-collective is
 * noticed (ncclCommGetAsyncError, the driver's gone() policy, a timeout) and the communicator is
 * aborted (ncclCommAbort frees the device from the kernel that waits for the dead peer) before
 * the job is. */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gs_backend_cuda.h"
#include "gs_types.h"

/* A collective still unfinished after this long is a hang, whatever the peers are doing: the
 * largest all-gather gpusim makes (2^24 bodies, 256 MB) takes under a millisecond on NVLink. */
#define GS_COLL_TIMEOUT 300.0

struct gs_coll {
  ncclComm_t comm;
  int rank, size;
};

/* Abort the communicator (the device stops waiting for peers), then the job. */
static _Noreturn void gs_cuda_coll_die(gs_ctx *c, gs_coll *k, const char *call, const char *why, const char *file,
                                       int line) {
  char text[GS_MSG_MAX];
  snprintf(text, sizeof text, "%s%s", why, k && k->comm ? " (NCCL communicator aborted)" : "");
  alarm(2 * GS_ERROR_ABORT_S); /* an abort that hangs (a proxy thread stuck on a dead peer) ends here */
  if (k && k->comm) ncclCommAbort(k->comm);
  if (k) k->comm = NULL;
  gs_error_die(&c->where, call, text, file, line);
}

/* Check an NCCL call: on failure name rank, host, GPU and call, with NCCL's own last words. */
#define GS_CHECK_NCCL(c, k, call)                                                                     \
  do {                                                                                                \
    ncclResult_t gs_r_ = (call);                                                                      \
    if (gs_r_ != ncclSuccess) {                                                                       \
      char gs_w_[GS_MSG_MAX];                                                                         \
      snprintf(gs_w_, sizeof gs_w_, "%s: %s", ncclGetErrorString(gs_r_), ncclGetLastError((k)->comm)); \
      gs_cuda_coll_die((c), (k), #call, gs_w_, __FILE__, __LINE__);                                   \
    }                                                                                                 \
  } while (0)

static gs_coll *gs_cuda_coll_open(gs_ctx *c, MPI_Comm comm, char *why, size_t why_size) {
  gs_coll *k = calloc(1, sizeof *k);
  if (!k) GS_DIE(&c->where, "calloc", "out of memory");
  GS_CHECK_MPI(&c->where, MPI_Comm_rank(comm, &k->rank));
  GS_CHECK_MPI(&c->where, MPI_Comm_size(comm, &k->size));
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  ncclResult_t r = k->rank == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
  int ok = r == ncclSuccess;
  GS_CHECK_MPI(&c->where, MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  if (!ok) {
    snprintf(why, why_size, "ncclGetUniqueId failed on rank 0");
    free(k);
    return NULL;
  }
  GS_CHECK_MPI(&c->where, MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm));
  r = ncclCommInitRank(&k->comm, k->size, id, k->rank);
  ok = r == ncclSuccess;
  int all = 0;
  GS_CHECK_MPI(&c->where, MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
  if (all) return k;
  /* Every rank says the same: the first failing rank's reason (two ranks on one GPU, say). */
  int mine = ok ? k->size : k->rank, first = 0;
  GS_CHECK_MPI(&c->where, MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (!ok) snprintf(why, why_size, "ncclCommInitRank on rank %d of %d: %s", k->rank, k->size, ncclGetErrorString(r));
  GS_CHECK_MPI(&c->where, MPI_Bcast(why, (int)why_size, MPI_CHAR, first, comm));
  if (ok) ncclCommAbort(k->comm); /* local: a peer without a communicator cannot join a destroy */
  free(k);
  return NULL;
}

static void gs_cuda_coll_close(gs_ctx *c, gs_coll *k) {
  if (k->comm) GS_CHECK_NCCL(c, k, ncclCommDestroy(k->comm));
  free(k);
}

/* A group of broadcasts, one from each member's slice, in place: slices of any size (the
 * decomposition's whole tiles differ by one tile) without a padded copy; NCCL runs them as one. */
static void gs_cuda_coll_allgather(gs_ctx *c, gs_coll *k, void *buf, const uint64_t *first, const uint64_t *bytes,
                                   gs_queue *q) {
  GS_CHECK_NCCL(c, k, ncclGroupStart());
  for (int r = 0; r < k->size; r++) {
    char *p = (char *)buf + first[r];
    GS_CHECK_NCCL(c, k, ncclBroadcast(p, p, bytes[r], ncclInt8, r, k->comm, (cudaStream_t)q));
  }
  GS_CHECK_NCCL(c, k, ncclGroupEnd());
}

static void gs_cuda_coll_allreduce(gs_ctx *c, gs_coll *k, const void *in, void *out, uint64_t count, int dtype, int op,
                                   gs_queue *q) {
  ncclDataType_t t = dtype == GS_DTYPE_INT32 ? ncclInt64 : ncclFloat64;
  ncclRedOp_t o = op == GS_OP_SUM ? ncclSum : op == GS_OP_MIN ? ncclMin : ncclMax;
  GS_CHECK_NCCL(c, k, ncclAllReduce(in, out, count, t, o, k->comm, (cudaStream_t)q));
}

static void gs_cuda_coll_bcast(gs_ctx *c, gs_coll *k, void *buf, uint64_t bytes, int root, gs_queue *q) {
  GS_CHECK_NCCL(c, k, ncclBroadcast(buf, buf, bytes, ncclInt8, root, k->comm, (cudaStream_t)q));
}

/* One group of sends and receives between every pair (NCCL's point-to-point, which it runs at
 * once); the member's own part is a device copy, which NCCL need not see. */
static void gs_cuda_coll_alltoallv(gs_ctx *c, gs_coll *k, const void *send, const uint64_t *sbytes, void *recv,
                                   const uint64_t *rbytes, gs_queue *q) {
  uint64_t so = 0, ro = 0;
  for (int r = 0; r < k->rank; r++)
    so += sbytes[r], ro += rbytes[r];
  if (sbytes[k->rank])
    GS_CHECK_CUDA(c, cudaMemcpyAsync((char *)recv + ro, (const char *)send + so, sbytes[k->rank],
                                     cudaMemcpyDeviceToDevice, (cudaStream_t)q));
  so = ro = 0;
  GS_CHECK_NCCL(c, k, ncclGroupStart());
  for (int r = 0; r < k->size; r++) {
    if (r != k->rank && sbytes[r])
      GS_CHECK_NCCL(c, k, ncclSend((const char *)send + so, sbytes[r], ncclInt8, r, k->comm, (cudaStream_t)q));
    if (r != k->rank && rbytes[r])
      GS_CHECK_NCCL(c, k, ncclRecv((char *)recv + ro, rbytes[r], ncclInt8, r, k->comm, (cudaStream_t)q));
    so += sbytes[r], ro += rbytes[r];
  }
  GS_CHECK_NCCL(c, k, ncclGroupEnd());
}

/* Spin on the event, as cudaEventSynchronize does, and once a millisecond ask NCCL and the
 * driver's policy whether the peers are still there. */
static void gs_cuda_coll_wait(gs_ctx *c, gs_coll *k, gs_event *e, const char *(*gone)(void *arg, double waited),
                              void *arg) {
  double t0 = MPI_Wtime(), next = t0 + 1e-3;
  for (;;) {
    cudaError_t q = cudaEventQuery((cudaEvent_t)e);
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady)
      gs_cuda_coll_die(c, k, "cudaEventQuery (after a collective)", cudaGetErrorString(q), __FILE__, __LINE__);
    double now = MPI_Wtime();
    if (now < next) continue;
    next = now + 1e-3;
    ncclResult_t async = ncclSuccess;
    GS_CHECK_NCCL(c, k, ncclCommGetAsyncError(k->comm, &async));
    if (async != ncclSuccess && async != ncclInProgress) {
      char why[GS_MSG_MAX];
      snprintf(why, sizeof why, "%s: %s", ncclGetErrorString(async), ncclGetLastError(k->comm));
      gs_cuda_coll_die(c, k, "ncclCommGetAsyncError", why, __FILE__, __LINE__);
    }
    const char *peer = gone ? gone(arg, now - t0) : NULL;
    if (peer) gs_cuda_coll_die(c, k, "waiting for an NCCL collective", peer, __FILE__, __LINE__);
    if (now - t0 > GS_COLL_TIMEOUT) {
      char why[96];
      snprintf(why, sizeof why, "not finished after %.0f s: a peer rank hangs or is gone", now - t0);
      gs_cuda_coll_die(c, k, "waiting for an NCCL collective", why, __FILE__, __LINE__);
    }
  }
}

/* "NCCL 2.28.9", the version built against. */
#define GS_COLL_STR2(x) #x
#define GS_COLL_STR(x) GS_COLL_STR2(x)

const struct gs_coll_ops gs_backend_cuda_coll_ops = {
    .name = "NCCL " GS_COLL_STR(NCCL_MAJOR) "." GS_COLL_STR(NCCL_MINOR) "." GS_COLL_STR(NCCL_PATCH),
    .open = gs_cuda_coll_open,
    .close = gs_cuda_coll_close,
    .allgather = gs_cuda_coll_allgather,
    .allreduce = gs_cuda_coll_allreduce,
    .bcast = gs_cuda_coll_bcast,
    .alltoallv = gs_cuda_coll_alltoallv,
    .wait = gs_cuda_coll_wait,
};
