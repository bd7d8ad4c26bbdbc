/* gs_alltoallv_check: gs_exchange_alltoallv (src/gs_exchange.c) on the CPU backend under mpirun
 * (tests/mpi/exchange_alltoallv.sh runs it on 2 and 3 ranks). Every rank r sends rank q
 * (r + 1) * (q + 2) quarter MB, each byte (r * 16 + q) & 255, and checks what it gets; then rank
 * 0 sends nothing at all and hands the exchange one buffer for both sides (send == recv), while
 * the others send it their parts: Open MPI's nonblocking collectives took equal buffers for
 * MPI_IN_PLACE and sent rank 0's receive buffer out, which no peer expected, and the job hung
 * (a hang the script's timeout turns into a failure); then the first exchange again in messages
 * of about 100 kB, as a part past MPI's int counts travels. Exit 0 when every byte arrived, 1 else. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gs_backend.h"
#include "gs_exchange.h"
#include "gs_mpi.h"

/* Parts of a quarter MB and more: past MPI's eager limit, so a send nobody expects is one that
 * waits for its receive, and hangs. */
#define GS_ALLTOALLV_CHECK_UNIT 262144

/* The sizes rank me sends rank q (sb[q]) and gets from it (rb[q]); with quiet, rank 0 sends
 * nothing. Returns the bytes this rank gets. */
static size_t gs_alltoallv_check_plan(int me, int P, int quiet, uint64_t *sb, uint64_t *rb) {
  size_t in = 0;
  for (int q = 0; q < P; q++) {
    sb[q] = (quiet && me == 0) || q == me ? 0 : (uint64_t)(me + 1) * (q + 2) * GS_ALLTOALLV_CHECK_UNIT;
    rb[q] = (quiet && q == 0) || q == me ? 0 : (uint64_t)(q + 1) * (me + 2) * GS_ALLTOALLV_CHECK_UNIT;
    in += rb[q];
  }
  return in;
}

/* One exchange; returns the wrong bytes received. With quiet, rank 0 hands its receive buffer
 * as its send buffer too. */
static int gs_alltoallv_check_one(struct gs_exchange *x, int me, int P, int quiet) {
  uint64_t *sb = calloc((size_t)P, sizeof *sb), *rb = calloc((size_t)P, sizeof *rb);
  size_t in = gs_alltoallv_check_plan(me, P, quiet, sb, rb), out = 0;
  for (int q = 0; q < P; q++)
    out += sb[q];
  unsigned char *send = malloc(out + 1), *recv = malloc(in + 1), *at = send;
  if (!sb || !rb || !send || !recv) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int q = 0; q < P; at += sb[q], q++)
    memset(at, (me * 16 + q) & 255, sb[q]);
  memset(recv, 0xee, in + 1);
  gs_exchange_alltoallv(x, quiet && me == 0 ? recv : send, sb, recv, rb, NULL);
  int bad = 0;
  at = recv;
  for (int q = 0; q < P; q++)
    for (uint64_t k = 0; k < rb[q]; k++)
      bad += *at++ != ((q * 16 + me) & 255);
  free(sb), free(rb), free(send), free(recv);
  return bad;
}

int main(int argc, char **argv) {
  /* gs_mpi_init/finalize as gpusim does: under ASan the leak check then runs before MPI_Finalize,
   * while Open MPI's components are still loaded and tests/lsan.supp can name them. */
  gs_mpi_init(&argc, &argv, MPI_THREAD_SINGLE);
  struct gs_run run;
  memset(&run, 0, sizeof run);
  MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &run.size);
  run.be = gs_backend_find("cpu");
  snprintf(run.where.host, sizeof run.where.host, "test");
  run.where.rank = run.rank, run.where.gpu = -1;
  run.ctx = run.be->open(&run.where, -1, &run.dev);
  struct gs_exchange x;
  struct gs_msg msg;
  if (gs_exchange_open(&x, &run, MPI_COMM_WORLD, GS_EXCHANGE_HOST, &msg) != GS_OK) {
    fprintf(stderr, "gs_exchange_open: %s\n", msg.text);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int bad[3] = {gs_alltoallv_check_one(&x, run.rank, run.size, 0), gs_alltoallv_check_one(&x, run.rank, run.size, 1)};
  x.chunk = 100003; /* parts of several messages, the last one short: as parts past 2^31 bytes go */
  bad[2] = gs_alltoallv_check_one(&x, run.rank, run.size, 0);
  int all[3];
  MPI_Allreduce(bad, all, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (run.rank == 0)
    printf("%d ranks: every rank to every other, %d wrong bytes; rank 0 sending nothing (send == recv), %d wrong "
           "bytes; in messages of %llu bytes, %d wrong bytes\n",
           run.size, all[0], all[1], (unsigned long long)x.chunk, all[2]);
  gs_exchange_close(&x);
  run.be->close(run.ctx);
  gs_mpi_finalize();
  return all[0] || all[1] || all[2];
}
