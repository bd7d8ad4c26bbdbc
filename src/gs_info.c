/* gs_info.c: `gpusim info`: which host, node-local rank and GPU each rank got, with the GPU's
 * size and theoretical bandwidth, gathered and printed by rank 0 so lines never interleave. */
#include "gs_info.h"

#include <stdlib.h>

#include "gs_mpi.h"
#include "gs_report.h"

static int gs_info_main(struct gs_run *run) {
  struct gs_report rep;
  gs_report_init(&rep, run);
  struct gs_rank_info *all = NULL;
  if (run->rank == 0) {
    all = calloc((size_t)run->size, sizeof *all);
    if (!all) GS_DIE(&run->where, "calloc", "out of memory");
  }
  gs_mpi_gather_ranks(run, all);
  int status = GS_OK;
  if (run->rank == 0) {
    gs_report_header(stdout, run, &rep, NULL);
    printf("%4s  %-20s %5s %4s  %-14s %8s %5s %8s  %s\n", "rank", "host", "local", "gpu", "pci_bus_id", "mem_GiB",
           "SMs", "bw_GB/s", "name");
    for (int r = 0; r < run->size; r++) {
      const struct gs_rank_info *i = &all[r];
      char local[24], gpu[16] = "-", bw[16] = "-";
      snprintf(local, sizeof local, "%d/%d", i->local_rank, i->local_size);
      if (i->dev.index >= 0) snprintf(gpu, sizeof gpu, "%d", i->dev.index);
      if (i->dev.bw_theory > 0) snprintf(bw, sizeof bw, "%.1f", i->dev.bw_theory / 1e9);
      printf("%4d  %-20s %5s %4s  %-14s %8.1f %5d %8s  %s\n", i->rank, i->host, local, gpu,
             i->dev.pci[0] ? i->dev.pci : "-", i->dev.mem_bytes / (1 << 30), i->dev.sm_count, bw, i->dev.name);
      struct gs_row row = {.workload = "info", .kernel = "-", .rank = i->rank, .metric = "bw_theory",
                           .value = i->dev.bw_theory / 1e9, .unit = "GB/s", .efficiency = -1};
      snprintf(row.params, sizeof row.params, "host=%s;local_rank=%d;gpu=%d;pci=%s;sms=%d", i->host, i->local_rank,
               i->dev.index, i->dev.pci, i->dev.sm_count);
      gs_report_add(&rep, &row);
    }
    fflush(stdout);
    status = gs_report_write(&rep, run);
  }
  free(all);
  gs_report_free(&rep);
  GS_CHECK_MPI(&run->where, MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD));
  return status;
}

const struct gs_workload gs_info_workload = {
    .name = "info",
    .summary = "show, per rank, the host, node-local rank and GPU it got",
    .main = gs_info_main,
};
