#!/bin/bash
# gpusim matmul on TSUBAME 4.0 (Altair Grid Engine): 2 node_f nodes x 4 H100, one rank per GPU.
#
# Submit from the gpusim source tree, where results/ will go (from elsewhere, set GPUSIM_JOBS to
# its jobs/ directory: the script sources jobs/tsubame/gs_tsubame.sh; -V passes your environment
# to the job):
#   GPUSIM=$PWD/gpusim qsub -g GROUP -V jobs/tsubame/matmul.sh
#   GPUSIM=$PWD/gpusim GPUSIM_ARGS="--n 16384 --type double" qsub -g GROUP -V jobs/tsubame/matmul.sh
#   qsub -g GROUP -V -l node_f=4 -l h_rt=0:30:00 jobs/tsubame/matmul.sh      # 4 nodes, 16 GPUs
# GROUP is your TSUBAME group (it pays for the job). Build gpusim on TSUBAME with the same
# modules loaded (module load cuda openmpi).
# The ranks form a 2D grid (the most square, 1D when their count is prime; GPUSIM_ARGS="--grid RxC"
# picks another) and multiply by SUMMA: panels of A along process rows, of B along process columns
# (--exchange nccl: GPU to GPU; docs/cluster.md).
# Edit: the #$ lines below (h_rt = wall time; node_f = whole nodes of 4 H100, or node_h (2 GPUs),
# node_q (1) and smaller types: ranks per node follow the GPUs the job gets; qsub options override
# them) and GPUSIM_MODULES: pin the module versions gpusim was built with (module avail cuda
# openmpi), e.g. GPUSIM_MODULES="cuda/12.8 openmpi/5.0.7" (example versions).
#
# Environment:
#   GPUSIM              the gpusim binary [gpusim on PATH, else ./gpusim in the submit directory]
#   GPUSIM_ARGS         options for gpusim matmul [none: the seed's N = 2048 float, every kernel]
#   GPUSIM_BACKEND      auto | cuda | cpu [auto]
#   GPUSIM_MODULES      modules to load first ["cuda openmpi"]; empty: load none
#   GPUSIM_NPERNODE     ranks per node [the GPUs the job sees on its node: node_f 4, node_h 2,
#                       node_q/node_o/gpu_1 1 (CUDA_VISIBLE_DEVICES, else nvidia-smi -L); 1 if none]
#   GPUSIM_MPIRUN       the mpirun [mpirun, from the openmpi module: Open MPI 5];
#   GPUSIM_MPIRUN_ARGS  more mpirun options [none]
#   GPUSIM_RESULTS      where per-job directories go [$SGE_O_WORKDIR/results]
#   GPUSIM_FORWARD_USR1 auto | yes | no: forward USR1 and USR2 to gpusim [auto]
#   GPUSIM_JOBS         the gpusim jobs/ directory [next to this script, else $SGE_O_WORKDIR/jobs]
# Results: $GPUSIM_RESULTS/<job name>-<job id>/: matmul.out, results.csv
# (docs/results-schema.md), matmul.json, matmul.env. Exit status: gpusim's (0 ok, 1 failed
# verification or runtime error, 2 bad input).
#
#$ -cwd
#$ -N gpusim-matmul
#$ -l node_f=2
#$ -l h_rt=0:15:00
#$ -notify
#$ -j y

# ---- gpusim job block: the same in every jobs/tsubame script (tests/jobs/job_scripts.sh checks) ----
# The shared part is jobs/tsubame/gs_tsubame.sh. Grid Engine runs a copy of this script from its
# spool directory, where no file sits next to it: the shared file is taken from GPUSIM_JOBS (the
# gpusim jobs/ directory) when set, else from next to this script (run by hand), else from jobs/
# in the submit directory (qsub ... jobs/tsubame/SCRIPT from the gpusim source tree).
if [ -n "${GPUSIM_JOBS:-}" ]; then
  gs_lib=$GPUSIM_JOBS/tsubame/gs_tsubame.sh
elif [ -f "$(dirname "$0")/gs_tsubame.sh" ]; then
  gs_lib=$(dirname "$0")/gs_tsubame.sh
else
  gs_lib=${SGE_O_WORKDIR:-$PWD}/jobs/tsubame/gs_tsubame.sh
fi
[ -f "$gs_lib" ] || {
  echo "gpusim-job: error: $gs_lib not found: submit from the gpusim source tree or set GPUSIM_JOBS to its jobs/ directory" >&2
  exit 2
}
. "$gs_lib"
# ---- end of the gpusim job block ----

gs_have matmul || {
  gs_log "gpusim matmul is not in this build ($GPUSIM matmul --help failed): nothing to run"
  exit 77
}
gs_run matmul matmul $GPUSIM_ARGS
exit $?
