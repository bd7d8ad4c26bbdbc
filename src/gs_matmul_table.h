/* gs_matmul_table.h: `gpusim matmul`'s timed table. One rank: the plain kernel table (ms,
 * TFLOP/s, % of peak, step and cumulative speedup, check), like reduce's ladder. Several ranks:
 * SUMMA per kernel (ms, TFLOP/s per rank and in all, % of peak, the share of the time spent in
 * block products, how much of the panel traffic was hidden, check), each rank's time below. */
#ifndef GS_MATMUL_TABLE_H
#define GS_MATMUL_TABLE_H

#include "gs_bench.h"
#include "gs_matmul_job.h"

/* FLOP/s of one device for --type `type`, from the backend's device info (0 where it does not know
 * it), and where the number comes from. */
double gs_matmul_table_peak(const struct gs_device_info *dev, int type, const char **source);

/* The panel traffic alone (no products), median of --iters: this rank's seconds (0 on one rank). */
double gs_matmul_table_traffic(struct gs_matmul_job *job);

/* Time and check every selected kernel (b's mask) over the harness b; rank 0 prints the table and
 * adds the result rows. */
void gs_matmul_table_run(struct gs_matmul_job *job, struct gs_bench *b);

#endif
