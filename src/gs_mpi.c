/* gs_mpi.c: where each rank runs. The node-local rank comes from MPI_Comm_split_type
 * (MPI_COMM_TYPE_SHARED), never from launcher variables: SLURM_LOCALID is wrong under mpirun
 * inside sbatch. The backend and GPU choice is agreed by all ranks, so a problem on one rank is
 * one message from rank 0 and exit 2 everywhere, not a hang. */
#include "gs_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gs_bind.h"

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

void gs_mpi_init(int *argc, char ***argv, int required) {
  int provided = MPI_THREAD_SINGLE;
#ifdef __SANITIZE_ADDRESS__
  __lsan_disable();
#endif
  int rc = MPI_Init_thread(argc, argv, required, &provided);
#ifdef __SANITIZE_ADDRESS__
  __lsan_enable();
#endif
  struct gs_where w = {.rank = -1, .gpu = -1};
  if (rc != MPI_SUCCESS) gs_error_mpi_die(&w, "MPI_Init_thread", rc, __FILE__, __LINE__);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  if (gethostname(w.host, GS_HOST_MAX - 1) != 0) strcpy(w.host, "unknown");
  if (provided < required) {
    char why[128];
    snprintf(why, sizeof why, "the MPI library provides thread level %d, gpusim needs %d (MPI_THREAD_FUNNELED)",
             provided, required);
    GS_DIE(&w, "MPI_Init_thread", why);
  }
}

void gs_mpi_finalize(void) {
#ifdef __SANITIZE_ADDRESS__
  __lsan_do_leak_check(); /* once: the check at exit is then skipped */
#endif
  MPI_Finalize();
}

int gs_mpi_launcher_size(void) {
  /* Open MPI's and PMI's own counts first: under mpirun inside an allocation the SLURM step
   * variables describe mpirun's daemons, not the ranks. Then srun's step task count. */
  static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    if (v && atoi(v) > 0) return atoi(v);
  }
  return 0;
}

/* Choose the backend from the option and every rank's device count: the backend table's device
 * backend (gs_backend_kind) or its host one; auto takes the device backend when it is built and
 * every rank sees a device. */
static int gs_mpi_choose_backend(struct gs_run *run, int ndev, const char *why, struct gs_msg *msg) {
  const char *dname, *dlabel, *probe, *hname, *hlabel, *hprobe;
  const struct gs_backend *dev = gs_backend_kind(1, &dname, &dlabel, &probe);
  const struct gs_backend *be = gs_backend_kind(0, &hname, &hlabel, &hprobe);
  int want = run->opt->common.backend, status = GS_OK;
  if (want == GS_BACKEND_CUDA && !dev)
    return gs_error_msg(msg, "--backend %s: this gpusim was built without %s (reconfigure with --with-%s)", dname,
                        dlabel, dname);
  if (want == GS_BACKEND_CUDA && ndev == 0)
    status = gs_error_msg(msg, "--backend %s: rank %d on %s sees no GPU%s%s%s%s%s", dname, run->rank, run->where.host,
                          why ? " (" : "", why ? probe : "", why ? ": " : "", why ? why : "", why ? ")" : "");
  if (gs_error_agree(MPI_COMM_WORLD, &run->where, status, msg) != GS_OK) return GS_USAGE;

  /* For auto: the first rank without a GPU, if any, decides for the host backend. */
  int mine = ndev > 0 ? run->size : run->rank, first = run->size;
  GS_CHECK_MPI(&run->where, MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  char *note = run->backend_note;
  size_t size = sizeof run->backend_note;
  if (want == GS_BACKEND_CPU) {
    snprintf(note, size, "%s (--backend %s)", hname, hname);
  } else if (want == GS_BACKEND_CUDA) {
    be = dev;
    snprintf(note, size, "%s (--backend %s)", dname, dname);
  } else if (!dev) {
    snprintf(note, size, "%s (auto: built without %s)", hname, dlabel);
  } else if (first < run->size) {
    snprintf(note, size, "%s (auto: rank %d sees no GPU)", hname, first);
  } else {
    be = dev;
    snprintf(note, size, "%s (auto: every rank sees a GPU)", dname);
  }
  run->be = be;
  return GS_OK;
}

/* Pick and open this rank's GPU, then refuse two ranks of a node on one GPU unless allowed. */
static int gs_mpi_bind(struct gs_run *run, int ndev, struct gs_msg *msg) {
  const struct gs_common_opts *c = &run->opt->common;
  int gpu = -1;
  int status = gs_bind_choose(c->gpu_bind, run->local_rank, run->local_size, ndev, c->gpu_share, &gpu, msg);
  if (status != GS_OK)
    gs_error_msg(msg, "rank %d on %s: %.400s", run->rank, run->where.host, msg->text);
  if (gs_error_agree(MPI_COMM_WORLD, &run->where, status, msg) != GS_OK) return GS_USAGE;
  run->ctx = run->be->open(&run->where, gpu, &run->dev);

  char(*pci)[GS_PCI_MAX] = calloc((size_t)run->local_size, GS_PCI_MAX);
  if (!pci) GS_DIE(&run->where, "calloc", "out of memory");
  GS_CHECK_MPI(&run->where, MPI_Allgather(run->dev.pci, GS_PCI_MAX, MPI_CHAR, pci, GS_PCI_MAX, MPI_CHAR, run->node));
  int a, b;
  status = GS_OK;
  if (!c->gpu_share && gs_bind_find_shared((const char(*)[GS_PCI_MAX])pci, run->local_size, &a, &b))
    status = gs_error_msg(msg,
                          "node-local ranks %d and %d on %s would share GPU %s (%d ranks, %d visible GPUs); "
                          "start fewer ranks per node, or pass --gpu-share",
                          a, b, run->where.host, pci[a], run->local_size, ndev);
  free(pci);
  return gs_error_agree(MPI_COMM_WORLD, &run->where, status, msg);
}

/* GPUSIM_MEMORY_LIMIT=BYTES caps the memory that the workloads' size checks assume for a rank's
 * device (the node's host memory on the CPU backend, shared by its ranks; one GPU's memory on
 * CUDA), so that a test of the refusal, or a node shared with other jobs, does not depend on how
 * much the machine has. It only ever lowers what the system reports. Read on every rank: a bad
 * value is bad input (the lowest such rank's message). */
static int gs_mpi_memory(struct gs_run *run, struct gs_msg *msg) {
  const char *v = getenv("GPUSIM_MEMORY_LIMIT");
  uint64_t limit = 0;
  int rc = 0, status = GS_OK;
  run->mem_bytes = run->dev.mem_bytes;
  run->mem_note[0] = '\0';
  if (v && *v && ((rc = gs_options_parse_u64(v, &limit)) != 0 || limit == 0))
    status = gs_error_msg(msg, "GPUSIM_MEMORY_LIMIT=%.64s: %s; give bytes (examples: 16G, 2^34, 1.6e10) or unset it",
                          v, rc == -2 ? "too large for 64 bits" : rc == -3 ? "negative" : rc ? "not a number" : "zero");
  else if (v && *v && (run->mem_bytes <= 0 || (double)limit < run->mem_bytes)) {
    run->mem_bytes = (double)limit;
    snprintf(run->mem_note, sizeof run->mem_note, " (capped by GPUSIM_MEMORY_LIMIT=%.64s)", v);
  }
  return gs_error_agree(MPI_COMM_WORLD, &run->where, status, msg);
}

int gs_mpi_setup(const struct gs_options *opt, int launcher_size, struct gs_run *run, struct gs_msg *msg) {
  memset(run, 0, sizeof *run);
  run->opt = opt;
  run->node = MPI_COMM_NULL;
  GS_CHECK_MPI(&run->where, MPI_Comm_rank(MPI_COMM_WORLD, &run->rank));
  GS_CHECK_MPI(&run->where, MPI_Comm_size(MPI_COMM_WORLD, &run->size));
  run->where.rank = run->rank;
  run->where.gpu = -1;
  if (gethostname(run->where.host, GS_HOST_MAX - 1) != 0) strcpy(run->where.host, "unknown");

  if (run->size == 1 && launcher_size > 1)
    return gs_error_msg(msg,
                        "MPI_COMM_WORLD has 1 rank but the launcher started %d tasks: they are running as "
                        "separate singletons (srun without PMI?); use srun --mpi=pmix or mpirun",
                        launcher_size);

  GS_CHECK_MPI(&run->where, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, run->rank,
                                                   MPI_INFO_NULL, &run->node));
  GS_CHECK_MPI(&run->where, MPI_Comm_rank(run->node, &run->local_rank));
  GS_CHECK_MPI(&run->where, MPI_Comm_size(run->node, &run->local_size));
  int leader = run->local_rank == 0;
  GS_CHECK_MPI(&run->where, MPI_Allreduce(&leader, &run->nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));

  const char *name, *label, *probe, *why = NULL;
  const struct gs_backend *dev = gs_backend_kind(1, &name, &label, &probe);
  int ndev = dev ? dev->device_count(&why) : 0;
  if (gs_mpi_choose_backend(run, ndev, why, msg) != GS_OK) return GS_USAGE;
  if (run->be->caps & GS_CAP_DEVICES) {
    if (gs_mpi_bind(run, ndev, msg) != GS_OK) return GS_USAGE;
  } else {
#ifdef _OPENMP
    /* More ranks on a node than it has cores: one thread a rank, unless OMP_NUM_THREADS says. Each
     * rank's threads would otherwise spin for cores the others hold: 8 ranks of 2 threads on 2
     * cores ran `gpusim` (the main job) in 27-40 s, 8 ranks of 1 thread in 8 s. */
    if ((run->be->caps & GS_CAP_HOST_MEMORY) && !getenv("OMP_NUM_THREADS") &&
        run->local_size > sysconf(_SC_NPROCESSORS_ONLN))
      omp_set_num_threads(1);
#endif
    run->ctx = run->be->open(&run->where, -1, &run->dev);
  }
  return gs_mpi_memory(run, msg);
}

void gs_mpi_teardown(struct gs_run *run) {
  if (run->ctx) run->be->close(run->ctx);
  run->ctx = NULL;
  if (run->node != MPI_COMM_NULL) MPI_Comm_free(&run->node);
}

void gs_mpi_gather_ranks(const struct gs_run *run, struct gs_rank_info *all) {
  struct gs_rank_info me;
  memset(&me, 0, sizeof me);
  me.rank = run->rank;
  me.local_rank = run->local_rank;
  me.local_size = run->local_size;
  memcpy(me.host, run->where.host, sizeof me.host);
  me.dev = run->dev;
  /* Raw bytes: every rank runs the same binary, so the layout matches. */
  GS_CHECK_MPI(&run->where, MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD));
}
