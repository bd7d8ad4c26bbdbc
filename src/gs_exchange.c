/* gs_exchange.c: --exchange's choice and the waits that notice a peer gone (see the header). */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "gs_exchange.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_MPI_EXT_H
#include <mpi-ext.h> /* Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

const char *gs_exchange_name(int mode) {
  static const char *const names[] = {"auto", "nccl", "cuda-mpi", "host"};
  return mode >= 0 && mode <= GS_EXCHANGE_HOST ? names[mode] : "?";
}

int gs_exchange_cuda_aware(char *why, size_t why_size) {
  const char *env = getenv("GPUSIM_CUDA_AWARE_MPI");
  if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0)) {
    snprintf(why, why_size, "GPUSIM_CUDA_AWARE_MPI=%s", env);
    return env[0] == '1';
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  int yes = MPIX_Query_cuda_support();
  snprintf(why, why_size, "%s", yes ? "MPIX_Query_cuda_support() = 1"
                                    : "the MPI library was built CUDA-aware but MPIX_Query_cuda_support() = 0 "
                                      "(its CUDA support is off at run time)");
  return yes;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  snprintf(why, why_size, "the MPI library is not CUDA-aware (MPIX_CUDA_AWARE_SUPPORT = 0)");
  return 0;
#else
  snprintf(why, why_size, "the MPI library cannot say whether it is CUDA-aware (no MPIX_CUDA_AWARE_SUPPORT; "
                          "GPUSIM_CUDA_AWARE_MPI=1 says it is)");
  return 0;
#endif
}

/* This node's other ranks of comm: world rank and process id, so a wait can tell a peer gone. */
static void gs_exchange_peers(struct gs_exchange *x, const struct gs_run *run, MPI_Comm comm) {
  MPI_Comm node;
  int n = 0, me = 0;
  GS_CHECK_MPI(x->where, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  GS_CHECK_MPI(x->where, MPI_Comm_size(node, &n));
  GS_CHECK_MPI(x->where, MPI_Comm_rank(node, &me));
  long mine[2] = {run->rank, (long)getpid()}, *all = malloc(sizeof *all * 2 * (size_t)n);
  x->peer_rank = malloc(sizeof *x->peer_rank * (size_t)n);
  x->peer_pid = malloc(sizeof *x->peer_pid * (size_t)n);
  if (!all || !x->peer_rank || !x->peer_pid) GS_DIE(x->where, "malloc", "out of memory");
  GS_CHECK_MPI(x->where, MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, node));
  x->npeers = 0;
  for (int i = 0; i < n; i++)
    if (i != me) x->peer_rank[x->npeers] = (int)all[2 * i], x->peer_pid[x->npeers++] = (pid_t)all[2 * i + 1];
  /* A live peer this process cannot see (ranks in separate containers, another pid namespace) is
   * never checked: its absence here must not read as its death later. */
  for (int i = 0; i < x->npeers; i++)
    if (kill(x->peer_pid[i], 0) != 0 && errno == ESRCH) x->peer_pid[i] = 0;
  /* Two ranks on one GPU (--gpu-share): NCCL refuses them, so auto must not try. */
  char(*pci)[GS_PCI_MAX] = calloc((size_t)n, GS_PCI_MAX);
  if (!pci) GS_DIE(x->where, "calloc", "out of memory");
  GS_CHECK_MPI(x->where, MPI_Allgather(run->dev.pci, GS_PCI_MAX, MPI_CHAR, pci, GS_PCI_MAX, MPI_CHAR, node));
  x->shared_gpu[0] = x->shared_gpu[1] = -1;
  for (int i = 0; i < n && x->shared_gpu[0] < 0; i++)
    for (int j = i + 1; j < n; j++)
      if (pci[i][0] && strcmp(pci[i], pci[j]) == 0) {
        x->shared_gpu[0] = (int)all[2 * i], x->shared_gpu[1] = (int)all[2 * j];
        break;
      }
  free(pci);
  free(all);
  MPI_Comm_free(&node);
}

/* A peer gone: a process of this node's ranks that no longer exists. NULL while all live. */
static const char *gs_exchange_peer_gone(struct gs_exchange *x) {
  for (int i = 0; i < x->npeers; i++)
    if (x->peer_pid[i] > 0 && kill(x->peer_pid[i], 0) != 0 && errno == ESRCH) {
      snprintf(x->gone, sizeof x->gone, "rank %d (pid %ld on this node) is gone", x->peer_rank[i],
               (long)x->peer_pid[i]);
      return x->gone;
    }
  return NULL;
}

/* The policy behind be->coll->wait: a peer process gone, or a stop signal GS_EXCHANGE_GRACE
 * seconds old with the collective unfinished (mpirun signals the survivors when a rank dies). */
static const char *gs_exchange_coll_gone(void *arg, double waited) {
  struct gs_exchange *x = arg;
  (void)waited;
  if (gs_exchange_peer_gone(x)) return x->gone;
  int sig = x->stop ? x->stop() : 0;
  if (!sig) return NULL;
  double now = MPI_Wtime();
  if (x->stop_seen == 0) x->stop_seen = now;
  if (now - x->stop_seen < GS_EXCHANGE_GRACE) return NULL;
  snprintf(x->gone, sizeof x->gone,
           "a stop signal (%d) came %.0f s ago and the collective has not finished: a peer rank is gone", sig,
           now - x->stop_seen);
  return x->gone;
}

void gs_exchange_wait(struct gs_exchange *x, gs_event *e) {
  if (x->coll) x->be->coll->wait(x->ctx, x->coll, e, gs_exchange_coll_gone, x);
  else x->be->event_sync(x->ctx, e);
}

void gs_exchange_mpi_wait(struct gs_exchange *x, int n, MPI_Request *reqs, const char *call) {
  double next = MPI_Wtime() + 1e-3;
  for (;;) {
    int done = 0;
    GS_CHECK_MPI(x->where, MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE));
    if (done) return;
    if (MPI_Wtime() < next) continue; /* spin, as MPI's own waits do: a step's timing starts here */
    next = MPI_Wtime() + 1e-3;
    if (gs_exchange_peer_gone(x)) GS_DIE(x->where, call, x->gone);
  }
}

/* Every rank of comm agrees on a yes: the lowest rank's no (and its reason) wins. */
static int gs_exchange_agree(struct gs_exchange *x, MPI_Comm comm, int yes, char *why, size_t why_size) {
  int me = 0, first = 0, size = 0;
  GS_CHECK_MPI(x->where, MPI_Comm_rank(comm, &me));
  GS_CHECK_MPI(x->where, MPI_Comm_size(comm, &size));
  int mine = yes ? size : me;
  GS_CHECK_MPI(x->where, MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return 1;
  GS_CHECK_MPI(x->where, MPI_Bcast(why, (int)why_size, MPI_CHAR, first, comm));
  return 0;
}

/* Open the backend's device communicator; NULL with the reason in why (the same on every rank). */
static gs_coll *gs_exchange_coll(struct gs_exchange *x, MPI_Comm comm, char *why, size_t why_size) {
  if (!x->be->coll) {
#ifdef GS_HAVE_NCCL
    snprintf(why, why_size, "the %s backend has no device collectives", x->be->name);
#else
    snprintf(why, why_size, "this gpusim was built without NCCL (configure --with-nccl)");
#endif
    return NULL;
  }
  if (!(x->be->caps & GS_CAP_DEVICES)) {
    snprintf(why, why_size, "the %s backend has no devices", x->be->name);
    return NULL;
  }
  /* Ranks on one GPU (--gpu-share) anywhere: NCCL would refuse them, so nobody tries. */
  if (x->shared_gpu[0] >= 0)
    snprintf(why, why_size, "ranks %d and %d share a GPU (--gpu-share): NCCL needs one GPU per rank",
             x->shared_gpu[0], x->shared_gpu[1]);
  if (!gs_exchange_agree(x, comm, x->shared_gpu[0] < 0, why, why_size)) return NULL;
  return x->be->coll->open(x->ctx, comm, why, why_size);
}

int gs_exchange_open(struct gs_exchange *x, const struct gs_run *run, MPI_Comm comm, int want, struct gs_msg *msg) {
  memset(x, 0, sizeof *x);
  x->be = run->be, x->ctx = run->ctx, x->where = &run->where;
  int size = 0;
  GS_CHECK_MPI(x->where, MPI_Comm_size(comm, &size));
  gs_exchange_peers(x, run, comm);
  char no_coll[200] = "", no_aware[200] = "", yes[200] = "";
  if (want == GS_EXCHANGE_NCCL || (want == GS_EXCHANGE_AUTO && size > 1)) {
    x->coll = gs_exchange_coll(x, comm, no_coll, sizeof no_coll);
    if (!gs_exchange_agree(x, comm, x->coll != NULL, no_coll, sizeof no_coll) && x->coll) {
      x->be->coll->close(x->ctx, x->coll); /* another rank could not: nobody uses it */
      x->coll = NULL;
    }
  }
  int aware = 0;
  if (want == GS_EXCHANGE_CUDA_MPI || (want == GS_EXCHANGE_AUTO && size > 1 && !x->coll)) {
    aware = gs_exchange_cuda_aware(no_aware, sizeof no_aware);
    if (aware) snprintf(yes, sizeof yes, "%s", no_aware);
    aware = gs_exchange_agree(x, comm, aware, no_aware, sizeof no_aware);
  }
  int status = GS_OK;
  if (want == GS_EXCHANGE_NCCL && !x->coll)
    status = gs_error_msg(msg, "--exchange nccl: %s", no_coll);
  else if (want == GS_EXCHANGE_CUDA_MPI && !aware)
    status = gs_error_msg(msg, "--exchange cuda-mpi: %s (--exchange host stages through host memory)", no_aware);
  x->mode = x->coll ? GS_EXCHANGE_NCCL : aware ? GS_EXCHANGE_CUDA_MPI : GS_EXCHANGE_HOST;
  const char *how = want == GS_EXCHANGE_AUTO ? "auto" : want == GS_EXCHANGE_NCCL ? "--exchange nccl" : "--exchange cuda-mpi";
  if (x->mode == GS_EXCHANGE_NCCL)
    snprintf(x->note, sizeof x->note, "nccl (%s: %s, device to device, one GPU per rank)", how, x->be->coll->name);
  else if (x->mode == GS_EXCHANGE_CUDA_MPI)
    snprintf(x->note, sizeof x->note, "cuda-mpi (%s: device buffers handed to MPI, %s)", how, yes);
  else if (want == GS_EXCHANGE_HOST)
    snprintf(x->note, sizeof x->note, "host (--exchange host: staged through pinned host memory)");
  else if (size == 1)
    snprintf(x->note, sizeof x->note, "host (auto: one rank, nothing to exchange)");
  else
    snprintf(x->note, sizeof x->note, "host (auto: no nccl: %.90s; no cuda-mpi: %.90s)", no_coll, no_aware);
  return status;
}

/* The most bytes one message of gs_exchange_alltoallv_host carries: MPI counts are int, so a
 * part of 2^31 bytes or more (a first migration of 2^25 bodies to one rank) goes as several, in
 * order (MPI keeps the order of one sender's messages of one tag). */
#define GS_EXCHANGE_CHUNK ((uint64_t)1 << 30)
/* Their tag: past the positions' ring's (its steps, below the rank count) and within the least
 * MPI_TAG_UB that MPI promises. */
#define GS_EXCHANGE_TAG 32767

/* Each part as messages of at most chunk bytes to or from its rank (MPI_Irecv or MPI_Isend by
 * post), parts in rank order from buf on: appended to req[*n]. */
static void gs_exchange_parts(struct gs_exchange *x, int P, const uint64_t *bytes, char *buf, uint64_t chunk, int recv,
                              MPI_Request *req, int *n) {
  for (int r = 0; r < P; buf += bytes[r], r++)
    for (uint64_t at = 0; at < bytes[r]; at += chunk) {
      int b = (int)(bytes[r] - at < chunk ? bytes[r] - at : chunk);
      if (recv)
        GS_CHECK_MPI(x->where, MPI_Irecv(buf + at, b, MPI_BYTE, r, GS_EXCHANGE_TAG, MPI_COMM_WORLD, &req[(*n)++]));
      else
        GS_CHECK_MPI(x->where, MPI_Isend(buf + at, b, MPI_BYTE, r, GS_EXCHANGE_TAG, MPI_COMM_WORLD, &req[(*n)++]));
    }
}

/* Point to point, not MPI_Ialltoallv: no int count limits the parts, and no send buffer that
 * equals the receive buffer (a rank with nothing to send may hand one buffer for both) is taken
 * for MPI_IN_PLACE, as Open MPI's nonblocking collectives (libnbc) take it (they then sent what
 * recv held, which no peer expected: a hang, seen with 2 ranks of which one sent nothing). The
 * receives are posted first; a rank's part to itself is a message like any other (the buffers may
 * be device memory handed to a CUDA-aware MPI). */
void gs_exchange_alltoallv_host(struct gs_exchange *x, const void *send, const uint64_t *sbytes, void *recv,
                                const uint64_t *rbytes) {
  int P = 0, n = 0;
  GS_CHECK_MPI(x->where, MPI_Comm_size(MPI_COMM_WORLD, &P));
  uint64_t chunk = x->chunk && x->chunk < GS_EXCHANGE_CHUNK ? x->chunk : GS_EXCHANGE_CHUNK, m = 0;
  for (int r = 0; r < P; r++)
    m += (sbytes[r] + chunk - 1) / chunk + (rbytes[r] + chunk - 1) / chunk;
  MPI_Request *req = malloc(sizeof *req * (m ? m : 1));
  if (!req) GS_DIE(x->where, "malloc", "out of memory");
  gs_exchange_parts(x, P, rbytes, recv, chunk, 1, req, &n);
  gs_exchange_parts(x, P, sbytes, (char *)send, chunk, 0, req, &n);
  gs_exchange_mpi_wait(x, n, req, "MPI_Irecv/MPI_Isend (an all-to-all's parts)");
  free(req);
}

void gs_exchange_alltoallv(struct gs_exchange *x, const void *send, const uint64_t *sbytes, void *recv,
                           const uint64_t *rbytes, gs_queue *q) {
  const struct gs_backend *be = x->be;
  if ((be->caps & GS_CAP_HOST_MEMORY) || x->mode == GS_EXCHANGE_CUDA_MPI) {
    be->queue_sync(x->ctx, q); /* send was written on q */
    gs_exchange_alltoallv_host(x, send, sbytes, recv, rbytes);
  } else if (x->mode == GS_EXCHANGE_NCCL) {
    if (!x->done) x->done = be->event_create(x->ctx);
    be->coll->alltoallv(x->ctx, x->coll, send, sbytes, recv, rbytes, q);
    be->event_record(x->ctx, x->done, q);
    gs_exchange_wait(x, x->done);
  } else { /* host: through pinned buffers, the sends first, the receives after them */
    int P = 0;
    GS_CHECK_MPI(x->where, MPI_Comm_size(MPI_COMM_WORLD, &P));
    uint64_t out = 0, in = 0;
    for (int r = 0; r < P; r++)
      out += sbytes[r], in += rbytes[r];
    if (out + in > x->stage_cap) {
      if (x->stage) be->free_host(x->ctx, x->stage);
      x->stage_cap = out + in + (out + in) / 4 + 4096;
      x->stage = be->alloc_host(x->ctx, x->stage_cap);
    }
    char *hs = x->stage, *hr = hs + out;
    if (out) be->copy_d2h(x->ctx, hs, send, out, q);
    be->queue_sync(x->ctx, q);
    gs_exchange_alltoallv_host(x, hs, sbytes, hr, rbytes);
    if (in) be->copy_h2d(x->ctx, recv, hr, in, q);
    be->queue_sync(x->ctx, q);
  }
}

void gs_exchange_close(struct gs_exchange *x) {
  if (x->stage) x->be->free_host(x->ctx, x->stage);
  if (x->done) x->be->event_destroy(x->ctx, x->done);
  x->stage = NULL, x->done = NULL, x->stage_cap = 0;
  if (x->coll) x->be->coll->close(x->ctx, x->coll);
  x->coll = NULL;
  free(x->peer_rank);
  free(x->peer_pid);
  x->peer_rank = NULL, x->peer_pid = NULL;
}
