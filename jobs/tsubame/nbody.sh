#!/bin/bash
# gpusim nbody on TSUBAME 4.0 (Altair Grid Engine): 2 node_f nodes x 4 H100, one rank per GPU.
#
# Submit (from the directory where results/ should go; -V passes your environment to the job):
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
#   NBODY_OVERLAP       each set one becomes gpusim nbody's --n, --steps, --dt, --eps, --ic,
#                       --precision, --kernel, --overlap (on|off); unset: gpusim's default
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
#   GPUSIM_FORWARD_USR1 auto | yes | no: forward USR1 to gpusim [auto]
# Results: $GPUSIM_RESULTS/<job name>-<job id>/: nbody.out, results.csv
# (docs/results-schema.md), nbody.json, nbody.env, nbody-out/ (checkpoints, snapshots).
# Exit status: gpusim's (0 ok, 1 failed verification or runtime error, 2 bad input), or 77 when
# this gpusim has no nbody subcommand yet.
#
#$ -cwd
#$ -N gpusim-nbody
#$ -l node_f=2
#$ -l h_rt=1:00:00
#$ -j y

# ---- gpusim job block: the same in every jobs/tsubame script (tests/jobs/job_scripts.sh checks) ----
set -uo pipefail
set -f # GPUSIM_ARGS and friends are split into words below, never globbed
gs_log() { echo "# [gpusim-job $(date -u +%H:%M:%S)] $*"; }
gs_die() { echo "gpusim-job: error: $1" >&2; exit "${2:-2}"; }
cd "${SGE_O_WORKDIR:-$PWD}" || gs_die "cannot cd to $SGE_O_WORKDIR"
: "${GPUSIM_MODULES=cuda openmpi}"
if [ -n "$GPUSIM_MODULES" ]; then
  type module >/dev/null 2>&1 || { [ -f /etc/profile.d/modules.sh ] && . /etc/profile.d/modules.sh; }
  type module >/dev/null 2>&1 || gs_die "no module command here (GPUSIM_MODULES= skips module load)"
  set +u # some modulefiles read unset variables
  module load $GPUSIM_MODULES || gs_die "module load $GPUSIM_MODULES failed"
  set -u
fi
: "${GPUSIM:=$(command -v gpusim || echo "$PWD/gpusim")}"
: "${GPUSIM_ARGS:=}" "${GPUSIM_BACKEND:=auto}" "${GPUSIM_MPIRUN:=mpirun}" "${GPUSIM_MPIRUN_ARGS:=}"
: "${GPUSIM_FORWARD_USR1:=auto}" "${GPUSIM_RESULTS:=$PWD/results}"
[ -x "$GPUSIM" ] || gs_die "GPUSIM=$GPUSIM is not an executable; set GPUSIM=/path/to/gpusim"
# One rank per GPU of the resource type (node_f: 4 H100, node_h: 2, node_q: 1, node_o, gpu_1 and
# gpu_h: 1 or part of one), counted as the job sees them: CUDA_VISIBLE_DEVICES (the scheduler
# sets it for part of a node), else nvidia-smi -L; no GPU at all: 1. GPUSIM_NPERNODE overrides.
gs_node_gpus() {
  local n=0
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    n=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
  elif command -v nvidia-smi >/dev/null 2>&1; then
    n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  fi
  echo $((n > 0 ? n : 1))
}
: "${GPUSIM_NPERNODE:=$(gs_node_gpus)}"
case $GPUSIM_NPERNODE in [1-9] | [1-9][0-9]) ;; *) gs_die "GPUSIM_NPERNODE=$GPUSIM_NPERNODE: want ranks per node, 1..99" ;; esac
# -l node_f=N (node_h=N, ...) gives N nodes (NHOSTS).
GS_NNODES=${NHOSTS:-1}
GS_NRANKS=$((GS_NNODES * GPUSIM_NPERNODE))
GS_OUTDIR=$GPUSIM_RESULTS/${JOB_NAME:-gpusim}-${JOB_ID:-$$}
mkdir -p "$GS_OUTDIR" || gs_die "cannot create $GS_OUTDIR"
# The CPU backend's OpenMP threads: the node's cores shared by its ranks.
gs_cores=$(nproc 2>/dev/null || echo 1)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$((gs_cores / GPUSIM_NPERNODE > 0 ? gs_cores / GPUSIM_NPERNODE : 1))}

# gs_have SUBCOMMAND: does this gpusim have it (gpusim nbody is newer than gpusim reduce)?
gs_have() { "$GPUSIM" "$1" --help >/dev/null 2>&1; }

# Graceful stop: Grid Engine sends USR1 at a soft limit (-l s_rt=, where the site allows it)
# and, with -notify, USR1/USR2 before suspending/killing; "qsig"-style signals from the site
# reach this shell. The trap forwards USR1 to mpirun, which passes it on to every rank.
# gpusim nbody then abandons the step in progress, writes a checkpoint, says how to resume and
# exits 0. A subcommand without a handler (gpusim reduce) would be killed by USR1's default
# action, so with GPUSIM_FORWARD_USR1=auto the signal is only forwarded to a subcommand whose
# --help mentions USR1; yes always forwards it, no never does. Not forwarded, it is logged and
# the job runs on.
gs_child=
gs_forward=no
gs_usr1() {
  if [ -z "$gs_child" ]; then
    gs_log "USR1: no MPI job running"
  elif [ "$gs_forward" = yes ]; then
    kill -USR1 "$gs_child" 2>/dev/null && gs_log "USR1: forwarded to mpirun (graceful stop)"
  else
    gs_log "USR1: not forwarded (no graceful stop for it in this subcommand)"
  fi
}
trap gs_usr1 USR1

# gs_run TAG SUBCOMMAND ARGS...: gpusim SUBCOMMAND on GPUSIM_NPERNODE ranks per node; output to
# the job's log and GS_OUTDIR/TAG.out, rows appended to GS_OUTDIR/results.csv and written to
# GS_OUTDIR/TAG.json. Returns gpusim's exit status.
# TSUBAME 4.0's Open MPI is 5.x: there -npernode is still accepted but deprecated (its new
# spelling is --map-by ppr:4:node), -x still passes environment variables, and the launcher's
# MCA variables are PRTE_MCA_* (Open MPI 4's OMPI_MCA_rmaps_* and OMPI_MCA_orte_* are ignored).
gs_run() {
  local tag=$1 sub=$2 rc v
  shift 2
  local -a cmd=("$GPUSIM_MPIRUN" -npernode "$GPUSIM_NPERNODE" -np "$GS_NRANKS")
  for v in PATH LD_LIBRARY_PATH OMP_NUM_THREADS; do [ -n "${!v:-}" ] && cmd+=(-x "$v"); done
  cmd+=($GPUSIM_MPIRUN_ARGS "$GPUSIM" "$sub" --backend "$GPUSIM_BACKEND"
    --csv "$GS_OUTDIR/results.csv" --json "$GS_OUTDIR/$tag.json" "$@")
  case $GPUSIM_FORWARD_USR1 in
    yes | no) gs_forward=$GPUSIM_FORWARD_USR1 ;;
    *) if "$GPUSIM" "$sub" --help 2>&1 | grep -q USR1; then gs_forward=yes; else gs_forward=no; fi ;;
  esac
  env | grep -E '^(JOB_|NHOSTS=|NSLOTS=|PE_HOSTFILE=|SGE_|GPUSIM|CUDA_VISIBLE_DEVICES=|OMP_)' | sort >"$GS_OUTDIR/$tag.env"
  gs_log "job ${JOB_ID:-none}: $GS_NNODES node(s), $GS_NRANKS rank(s), results in $GS_OUTDIR"
  gs_log "launch: ${cmd[*]}"
  "${cmd[@]}" > >(tee -a "$GS_OUTDIR/$tag.out") 2>&1 &
  gs_child=$!
  while kill -0 "$gs_child" 2>/dev/null; do wait "$gs_child"; done
  wait "$gs_child"
  rc=$?
  gs_child=
  gs_log "gpusim $sub: exit status $rc"
  return $rc
}

# gs_nbody_args: gpusim nbody's options from NBODY_N, NBODY_STEPS, NBODY_DT, NBODY_EPS,
# NBODY_IC, NBODY_PRECISION, NBODY_KERNEL and NBODY_OVERLAP (those set), into GS_NBODY_ARGS.
gs_nbody_args() {
  local o v
  GS_NBODY_ARGS=()
  for o in n steps dt eps ic precision kernel overlap; do
    v=$(printenv "NBODY_$(echo "$o" | tr a-z A-Z)") && [ -n "$v" ] && GS_NBODY_ARGS+=("--$o" "$v")
  done
  return 0
}
# ---- end of the gpusim job block ----

gs_have nbody || {
  gs_log "gpusim nbody is not in this build ($GPUSIM nbody --help failed): nothing to run"
  exit 77
}
gs_nbody_args
# ---- Open MPI: time for the ranks to checkpoint after SIGTERM (scancel, qdel, a hard limit) ----
# mpirun passes SIGTERM on to the ranks and sends SIGKILL odls_base_sigkill_timeout seconds later
# (Open MPI 4's default: 1 s), too soon for gpusim nbody to write its checkpoint. Keep it below the
# scheduler's own SIGKILL delay (SLURM KillWait, 30 s by default; PBS kill_delay): past that it is moot.
export OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-25}
# ---- end of the Open MPI SIGTERM setting ----
# Checkpoints into this job's directory; NBODY_RESTART resumes (gpusim checks that N, dt, eps,
# the initial conditions and the precision match the checkpoint's).
if "$GPUSIM" nbody --help 2>&1 | grep -q -- --restart; then
  GS_NBODY_ARGS+=(--output "${NBODY_OUTPUT:-$GS_OUTDIR/nbody-out}")
  [ -z "${NBODY_RESTART:-}" ] || GS_NBODY_ARGS+=(--restart "$NBODY_RESTART")
elif [ -n "${NBODY_RESTART:-}${NBODY_OUTPUT:-}" ]; then
  gs_die "NBODY_RESTART/NBODY_OUTPUT: this gpusim nbody has no checkpoints (--restart, --output)"
fi
gs_run nbody nbody ${GS_NBODY_ARGS[@]+"${GS_NBODY_ARGS[@]}"} $GPUSIM_ARGS
exit $?
