/* gs_matmul_setup.h: a matmul job's place on the grid, its buffers, queues and inputs. */
#ifndef GS_MATMUL_SETUP_H
#define GS_MATMUL_SETUP_H

#include "gs_error.h"
#include "gs_matmul_job.h"

/* The grid (--grid, or the most square), this rank's blocks and the panels (no allocation, no MPI
 * but the communicators' split). GS_USAGE with msg, the same on every rank, when --grid is not the
 * rank count (nothing made then). Call once, before gs_matmul_setup_check. */
int gs_matmul_setup_grid(struct gs_matmul_job *job, struct gs_msg *msg);

/* Do the blocks fit MPI's int counts and this rank's memory? GS_USAGE with msg, the same on every
 * rank (collective), else GS_OK. */
int gs_matmul_setup_check(const struct gs_matmul_job *job, struct gs_msg *msg);

/* --exchange for the panels: A's along process rows, B's along process columns (collective).
 * GS_USAGE with msg, the same on every rank, when the mode cannot be given. */
int gs_matmul_setup_exchange(struct gs_matmul_job *job, struct gs_msg *msg);

/* Queues, events, buffers; A and B made on the host (pinned) and copied up. */
void gs_matmul_setup_buffers(struct gs_matmul_job *job);

/* Free all of it, communicators included. */
void gs_matmul_setup_free(struct gs_matmul_job *job);

#endif
