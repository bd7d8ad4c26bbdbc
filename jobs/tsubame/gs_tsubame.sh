# gs_tsubame.sh: the part of the TSUBAME 4.0 job scripts (jobs/tsubame/nbody.sh, reduce.sh) that
# is the same in all of them, sourced by each (it is not a job script itself): the shell options,
# the modules, the gpusim binary and the defaults of the GPUSIM_* variables, ranks per node, the
# job's results directory, USR1 forwarding, and the functions gs_log, gs_die, gs_have, gs_run
# and gs_nbody_args. The variables it reads are in the scripts' headers and docs/cluster.md.
# Grid Engine runs a copy of the job script from its spool directory, so a script finds this file
# through GPUSIM_JOBS, next to itself (run by hand) or in the submit directory's jobs/ (the job
# block of each script says how); it is read when the job starts, not when it is submitted.
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
# NCCL (--exchange nccl, auto's first choice on GPUs; reduce's device combine) picks its own
# transports (NVLink/PCIe in a node; InfiniBand verbs, else TCP sockets, between nodes). Where the
# site's defaults are wrong, set NCCL_SOCKET_IFNAME (e.g. ib0) and NCCL_IB_HCA (e.g. mlx5_0) before
# submitting: they reach every rank, never guessed here. NCCL_DEBUG=WARN puts NCCL's own reason
# beside gpusim's error line when a collective fails (docs/cluster.md).
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}

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
  for v in PATH LD_LIBRARY_PATH OMP_NUM_THREADS $(compgen -v NCCL_); do [ -n "${!v:-}" ] && cmd+=(-x "$v"); done
  cmd+=($GPUSIM_MPIRUN_ARGS "$GPUSIM" "$sub" --backend "$GPUSIM_BACKEND"
    --csv "$GS_OUTDIR/results.csv" --json "$GS_OUTDIR/$tag.json" "$@")
  case $GPUSIM_FORWARD_USR1 in
    yes | no) gs_forward=$GPUSIM_FORWARD_USR1 ;;
    # grep reads all of --help: with pipefail, grep -q stopping early could kill gpusim (SIGPIPE).
    *) if "$GPUSIM" "$sub" --help 2>&1 | grep USR1 >/dev/null; then gs_forward=yes; else gs_forward=no; fi ;;
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
# NBODY_IC, NBODY_PRECISION, NBODY_KERNEL, NBODY_OVERLAP, NBODY_EXCHANGE, NBODY_SOLVER and
# NBODY_THETA (those set), into GS_NBODY_ARGS.
gs_nbody_args() {
  local o v
  GS_NBODY_ARGS=()
  for o in n steps dt eps ic precision kernel overlap exchange solver theta; do
    v=$(printenv "NBODY_$(echo "$o" | tr a-z A-Z)") && [ -n "$v" ] && GS_NBODY_ARGS+=("--$o" "$v")
  done
  return 0
}
