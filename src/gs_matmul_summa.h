/* gs_matmul_summa.h: one product C = A * B over the grid by SUMMA. For each K panel, the owner
 * column's A panel is broadcast along each process row and the owner row's B panel along each
 * process column, by --exchange (job->xrow, job->xcol): host = MPI_Ibcast on the row and column
 * communicators staged through pinned host memory (copy down on the copy queue, broadcast, copy
 * up); cuda-mpi = MPI_Ibcast on the device buffers; nccl = the device broadcast on the copy
 * queue), then the compute queue adds the
 * block product C += Apanel * Bpanel. A rank first multiplies the panels it holds itself (both
 * parts its own: on a 1D grid, its whole share of K), which wait for nothing, then the received
 * ones in K order. With --overlap on the received panels are double-buffered: panel p + 1 is
 * copied down, broadcast and copied up while an earlier product runs; each queue waits for the
 * other with events (copy up into a slot after the product that last read it; product after its
 * panel's copy up). --overlap off: the same steps in the same order, one after the other. On
 * one rank this is a single gemm of the whole K. */
#ifndef GS_MATMUL_SUMMA_H
#define GS_MATMUL_SUMMA_H

#include "gs_matmul_job.h"

/* One product with kernel k (NULL: the panel traffic alone, serially, no product). Returns this
 * rank's seconds from the start to the last product (backend events), and in *compute the sum
 * of its block products' times. Collective on the grid's communicators. */
double gs_matmul_summa_run(struct gs_matmul_job *job, const struct gs_kernel *k, double *compute);

#endif
