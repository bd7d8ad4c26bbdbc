/* gs_exchange.h: how a workload's ranks move device data to each other (--exchange): through
 * pinned host memory and MPI (host), device buffers handed to a CUDA-aware MPI (cuda-mpi), or the
 * backend's device collectives (nccl, be->coll). The choice, the reason for it, and the waits
 * that must not hang when a peer rank is gone. */
#ifndef GS_EXCHANGE_H
#define GS_EXCHANGE_H

#include <sys/types.h>

#include "gs_backend.h"
#include "gs_error.h"
#include "gs_mpi.h"

/* --exchange's choices, in the order of the option's "auto|nccl|cuda-mpi|host". */
enum gs_exchange_mode { GS_EXCHANGE_AUTO = 0, GS_EXCHANGE_NCCL, GS_EXCHANGE_CUDA_MPI, GS_EXCHANGE_HOST };
#define GS_EXCHANGE_CHOICES "auto|nccl|cuda-mpi|host"

/* Seconds a collective may go on after a stop signal before its peers count as gone: ranks enter
 * a collective together, so a live peer finishes it in milliseconds. */
#define GS_EXCHANGE_GRACE 3.0

struct gs_exchange {
  int mode;                    /* enum gs_exchange_mode, never AUTO once open */
  char note[240];              /* "nccl (auto: NCCL 2.28.9, one GPU per rank)": for the run header */
  const struct gs_backend *be;
  gs_ctx *ctx;
  gs_coll *coll;               /* the backend's communicator (nccl), else NULL */
  const struct gs_where *where;
  int npeers;                  /* this node's other ranks of the communicator ... */
  int *peer_rank;              /* ... their world ranks ... */
  pid_t *peer_pid;             /* ... and process ids: a vanished one is a peer gone */
  int shared_gpu[2];           /* two world ranks of this node on one GPU (--gpu-share), else -1 */
  int (*stop)(void);           /* the pending stop signal (gs_signal_pending), or NULL */
  double stop_seen;            /* MPI_Wtime when a wait first saw the stop signal (0: not yet) */
  char gone[200];              /* why the last check found a peer gone */
  void *stage;                 /* pinned host staging of gs_exchange_alltoallv (host mode), grown */
  size_t stage_cap;
  gs_event *done;              /* the event its collectives wait on (nccl), made on first use */
  uint64_t chunk;              /* the most bytes of one MPI message of an all-to-all (0: 2^30; tests set less) */
};

/* Choose the mode for want (enum gs_exchange_mode) on comm (the world, or a process row or
 * column), opening the device communicator for nccl. Collective over comm (and over the node's
 * communicator for the peers' ids). Returns GS_OK, or GS_USAGE with msg the same on every rank
 * (a mode this build, this backend or this MPI library cannot give). */
int gs_exchange_open(struct gs_exchange *x, const struct gs_run *run, MPI_Comm comm, int want, struct gs_msg *msg);

/* Free what open made (collective for nccl). */
void gs_exchange_close(struct gs_exchange *x);

/* "nccl", "cuda-mpi", "host" (or "auto"). */
const char *gs_exchange_name(int mode);

/* Does the MPI library take device buffers? 1 or 0, with the library's answer in why. The
 * environment variable GPUSIM_CUDA_AWARE_MPI=1 or 0 overrides it, for a library that cannot say
 * (MPICH with MPIR_CVAR_ENABLE_GPU, Cray MPICH with MPICH_GPU_SUPPORT_ENABLED). Not collective. */
int gs_exchange_cuda_aware(char *why, size_t why_size);

/* Wait on the host for e, recorded on a queue after device collectives: polls, and dies with the
 * reason (aborting the communicator) when a peer is gone. */
void gs_exchange_wait(struct gs_exchange *x, gs_event *e);

/* Every rank sends rank r sbytes[r] of send (backend memory, the parts in rank order) and gets
 * rbytes[r] from rank r into recv (the same), in the mode chosen: NCCL's point-to-point, MPI on
 * device buffers (cuda-mpi), or staged through pinned host memory; a backend whose memory is the
 * host's hands its buffers to MPI. Zero-byte pairs move nothing; returns once recv is complete.
 * Collective over the world: every rank enters, one with nothing to send too. */
void gs_exchange_alltoallv(struct gs_exchange *x, const void *send, const uint64_t *sbytes, void *recv,
                           const uint64_t *rbytes, gs_queue *q);

/* The same over buffers MPI reads and writes (host memory, or device memory where MPI is
 * CUDA-aware), as MPI messages of any size: for host data on any backend. Collective over the
 * world likewise. */
void gs_exchange_alltoallv_host(struct gs_exchange *x, const void *send, const uint64_t *sbytes, void *recv,
                                const uint64_t *rbytes);

/* MPI_Waitall for n requests by polling MPI_Testall, dying with call's name when a peer on this
 * node is gone (a rank killed mid-run must not leave the others blocked until mpirun's SIGKILL). */
void gs_exchange_mpi_wait(struct gs_exchange *x, int n, MPI_Request *reqs, const char *call);

#endif
