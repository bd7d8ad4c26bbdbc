#!/bin/bash
# gpusim nbody on TSUBAME 4.0 (Altair Grid Engine): 2 node_f nodes x 4 H100, one rank per GPU.
#
# Submit from the gpusim source tree, where results/ will go (from elsewhere, set GPUSIM_JOBS to
# its jobs/ directory: the script sources jobs/tsubame/gs_tsubame.sh; -V passes your environment
# to the job):
#   GPUSIM=$PWD/gpusim qsub -g GROUP -V jobs/tsubame/nbody.sh
#   GPUSIM=$PWD/gpusim NBODY_N=2^20 NBODY_STEPS=100 qsub -g GROUP -V jobs/tsubame/nbody.sh
#   qsub -g GROUP -V -l node_f=4 -l h_rt=0:30:00 jobs/tsubame/nbody.sh      # 4 nodes, 16 GPUs
#   GPUSIM=$PWD/gpusim NBODY_STEPS=100000 NBODY_RESTART=$PWD/results/gpusim-nbody-1234/nbody-out qsub -g GROUP -V jobs/tsubame/nbody.sh   # resume job 1234
# GROUP is your TSUBAME group (it pays for the job). Build gpusim on TSUBAME with the same
# modules loaded (module load cuda openmpi).
# Edit: the #$ lines below (h_rt = wall time; node_f = whole nodes of 4 H100, or node_h (2 GPUs),
# node_q (1) and smaller types: ranks per node follow the GPUs the job gets; qsub options override
# them) and GPUSIM_MODULES: pin the module versions gpusim was built with (module avail cuda
# openmpi), e.g. GPUSIM_MODULES="cuda/12.8 openmpi/5.0.7" (example versions).
#
# Environment:
#   GPUSIM              the gpusim binary [gpusim on PATH, else ./gpusim in the submit directory]
#   NBODY_N, NBODY_STEPS, NBODY_DT, NBODY_EPS, NBODY_IC, NBODY_PRECISION, NBODY_KERNEL,
#   NBODY_OVERLAP, NBODY_EXCHANGE, NBODY_SOLVER (direct | tree), NBODY_THETA
#                       each set one becomes gpusim nbody's --n, --steps, --dt, --eps, --ic,
#                       --precision, --kernel, --overlap (on|off), --exchange (auto|nccl|cuda-mpi|
#                       host, docs/cluster.md); unset: gpusim's default
#   NBODY_RESTART       resume from this checkpoint directory (its newest) or file: --restart;
#                       NBODY_STEPS is then the step to end at [none: start from step 0]
#   NBODY_OUTPUT        --output, where checkpoints and snapshots go [<the job's directory>/nbody-out]
#   GPUSIM_ARGS         more options for gpusim nbody [none]
#   GPUSIM_BACKEND      auto | cuda | cpu [auto]
#   GPUSIM_MODULES      modules to load first ["cuda openmpi"]; empty: load none
#   GPUSIM_NPERNODE     ranks per node [the GPUs the job sees on its node: node_f 4, node_h 2,
#                       node_q/node_o/gpu_1 1 (CUDA_VISIBLE_DEVICES, else nvidia-smi -L); 1 if none]
#   GPUSIM_MPIRUN       the mpirun [mpirun, from the openmpi module: Open MPI 5];
#   GPUSIM_MPIRUN_ARGS  more mpirun options [none]
#   GPUSIM_RESULTS      where per-job directories go [$SGE_O_WORKDIR/results]
#   GPUSIM_FORWARD_USR1 auto | yes | no: forward USR1 and USR2 to gpusim [auto]
#   GPUSIM_JOBS         the gpusim jobs/ directory [next to this script, else $SGE_O_WORKDIR/jobs]
#   GPUSIM_WALLTIME_MARGIN  seconds between gpusim's --walltime budget and h_rt [a tenth of h_rt,
#                       at most 120]; a --walltime in GPUSIM_ARGS replaces the budget
# Time limit: gpusim gets --walltime = h_rt less the margin and checkpoints and stops (exit 0)
# before it; qdel, or h_rt reached all the same, sends USR2 (-notify) and SIGKILL after the
# queue's notify time: gpusim checkpoints on USR2 too. Either way the log ends with "# stopped
# after step S of T (...): resume with the same options plus --restart DIR": resubmit with
# NBODY_RESTART=DIR (the last example above).
# Results: $GPUSIM_RESULTS/<job name>-<job id>/: nbody.out, results.csv
# (docs/results-schema.md), nbody.json, nbody.env, nbody-out/ (checkpoints, snapshots).
# Exit status: gpusim's (0 ok, 1 failed verification or runtime error, 2 bad input), or 77 when
# this gpusim has no nbody subcommand yet.
#
#$ -cwd
#$ -N gpusim-nbody
#$ -l node_f=2
#$ -l h_rt=1:00:00
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

gs_have nbody || {
  gs_log "gpusim nbody is not in this build ($GPUSIM nbody --help failed): nothing to run"
  exit 77
}
gs_nbody_args
gs_walltime
GS_NBODY_ARGS+=(${GS_WALLTIME_ARGS[@]+"${GS_WALLTIME_ARGS[@]}"})
# ---- Open MPI: time for the ranks to checkpoint after SIGTERM (scancel, qdel, a hard limit) ----
# Signalled, mpirun (Open MPI 4.1) waits odls_base_sigkill_timeout seconds, sends the ranks SIGTERM,
# waits as long again and sends SIGKILL (default 1 s each): too soon for gpusim nbody's checkpoint.
# A scheduler's SIGTERM (scancel, qdel, the time limit) reaches the ranks at once too. Keep it below
# the scheduler's own SIGKILL delay (SLURM KillWait, 30 s by default; PBS kill_delay).
export OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-25}
# ---- end of the Open MPI SIGTERM setting ----
# Checkpoints into this job's directory; NBODY_RESTART resumes (gpusim checks that N, dt, eps,
# the initial conditions and the precision match the checkpoint's).
if "$GPUSIM" nbody --help 2>&1 | grep -- --restart >/dev/null; then
  GS_NBODY_ARGS+=(--output "${NBODY_OUTPUT:-$GS_OUTDIR/nbody-out}")
  [ -z "${NBODY_RESTART:-}" ] || GS_NBODY_ARGS+=(--restart "$NBODY_RESTART")
elif [ -n "${NBODY_RESTART:-}${NBODY_OUTPUT:-}" ]; then
  gs_die "NBODY_RESTART/NBODY_OUTPUT: this gpusim nbody has no checkpoints (--restart, --output)"
fi
gs_run nbody nbody ${GS_NBODY_ARGS[@]+"${GS_NBODY_ARGS[@]}"} $GPUSIM_ARGS
exit $?
