# gs_tsubame.sh: the part of the TSUBAME 4.0 job scripts (jobs/tsubame/nbody.sh, reduce.sh) that
# is the same in all of them, sourced by each (it is not a job script itself): the shell options,
# the modules, the gpusim binary and the defaults of the GPUSIM_* variables, ranks per node, the
# job's results directory, USR1 and USR2 forwarding, and the functions gs_log, gs_die, gs_have,
# gs_run, gs_walltime and gs_nbody_args. The variables it reads are in the scripts' headers and
# docs/cluster.md.
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

# Graceful stop. Grid Engine signals the job's whole process group (this shell, mpirun, the
# tee of gs_run; not the ranks, which mpirun puts in groups of their own): with -notify (the
# scripts ask for it) qdel and the h_rt limit send USR2, then SIGKILL the queue's notify time
# later (docs/cluster.md has the times measured); a soft limit (-l s_rt=) or a coming suspend
# sends USR1. mpirun passes both on to every rank at once, and the traps below forward them too
# (mpirun then passes them on again: harmless), so a job stops where the signal reached only this
# shell. gpusim nbody then abandons the step in progress, writes a checkpoint, says how to resume
# and exits 0. A subcommand without a handler (gpusim reduce, matmul) would be killed by the
# signal's default action, so with GPUSIM_FORWARD_USR1=auto a signal is only forwarded to a
# subcommand whose --help mentions it; yes always forwards it, no never does. Not forwarded, it
# is logged and the job runs on (mpirun, signalled by Grid Engine itself, still passes it on).
# Untrapped, USR2 would end this shell at once and the job with it, ranks mid-checkpoint.
gs_child=
gs_forward=" " # the signals to forward, each between spaces
gs_signal() { # gs_signal SIG: the trap of USR1 and USR2
  [ "$1" = USR2 ] && gs_log "USR2: Grid Engine ends this job (qdel or h_rt): SIGKILL follows after the queue's notify time"
  if [ -z "$gs_child" ]; then
    gs_log "$1: no MPI job running"
  elif case $gs_forward in *" $1 "*) true ;; *) false ;; esac then
    kill -"$1" "$gs_child" 2>/dev/null && gs_log "$1: forwarded to mpirun (graceful stop)"
  else
    gs_log "$1: not forwarded (no graceful stop for it in this subcommand)"
  fi
}
trap 'gs_signal USR1' USR1
trap 'gs_signal USR2' USR2

# gs_walltime: into GS_WALLTIME_ARGS, gpusim nbody's --walltime budget from the job's time limit
# (h_rt), so that gpusim checkpoints and stops (exit 0) before Grid Engine's warning and kill:
# the limit less GPUSIM_WALLTIME_MARGIN seconds (default a tenth of the limit, at most 120 s: for
# mpirun's start and end, the last output) and less the time this job has run already. The limit
# is what `qstat -j JOB_ID` says the job asked for (a qsub -l h_rt= or this script's #$ line);
# where qstat cannot say, this script's own #$ -l h_rt= line. None when GPUSIM_ARGS has a
# --walltime of its own, or no limit is found (then -notify's USR2 is the only warning).
gs_secs() { # gs_secs [[H:]M:]S: seconds, or nothing
  echo "$1" | awk -F: '/^[0-9]+(:[0-9]+)?(:[0-9]+)?$/ { s = 0; for (i = 1; i <= NF; i++) s = 60 * s + $i; print s }'
}
gs_walltime() {
  local limit from margin budget
  GS_WALLTIME_ARGS=()
  case " $GPUSIM_ARGS " in *" --walltime"*) gs_log "time limit: --walltime from GPUSIM_ARGS"; return 0 ;; esac
  from="qstat -j ${JOB_ID:-}"
  limit=$(gs_secs "$([ -n "${JOB_ID:-}" ] && qstat -j "$JOB_ID" 2>/dev/null | sed -n 's/^hard resource_list: *//p' |
    tr ', ' '\n\n' | sed -n 's/^h_rt=//p' | head -1)")
  if [ -z "$limit" ]; then
    from="this script's #\$ line (qstat -j gave none; a qsub -l h_rt= is not seen)"
    limit=$(gs_secs "$(sed -n 's/^#\$ -l h_rt=\([0-9:]*\)$/\1/p' "$0" 2>/dev/null | tail -1)")
  fi
  [ -n "$limit" ] || { gs_log "time limit: no h_rt found: no --walltime budget (USR2 before the kill, with -notify)"; return 0; }
  margin=${GPUSIM_WALLTIME_MARGIN:-$((limit / 10 < 120 ? limit / 10 : 120))}
  case $margin in '' | *[!0-9]*) gs_die "GPUSIM_WALLTIME_MARGIN=$margin: want seconds" ;; esac
  budget=$((limit - margin - SECONDS))
  [ "$budget" -gt 0 ] || budget=1
  GS_WALLTIME_ARGS=(--walltime "$budget")
  gs_log "time limit: h_rt $limit s (from $from); gpusim --walltime $budget s ($margin s margin, $SECONDS s spent)"
}

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
  # yes: forward USR1 and USR2; auto: those the subcommand's --help names; no: neither. (grep
  # reads all of --help: with pipefail, grep -q stopping early could kill gpusim with SIGPIPE.)
  gs_forward=" "
  for v in USR1 USR2; do
    case $GPUSIM_FORWARD_USR1 in
      yes) gs_forward="$gs_forward$v " ;;
      no) ;;
      *) if "$GPUSIM" "$sub" --help 2>&1 | grep "$v" >/dev/null; then gs_forward="$gs_forward$v "; fi ;;
    esac
  done
  env | grep -E '^(JOB_|NHOSTS=|NSLOTS=|PE_HOSTFILE=|SGE_|GPUSIM|CUDA_VISIBLE_DEVICES=|OMP_)' | sort >"$GS_OUTDIR/$tag.env"
  gs_log "job ${JOB_ID:-none}: $GS_NNODES node(s), $GS_NRANKS rank(s), results in $GS_OUTDIR"
  gs_log "launch: ${cmd[*]}"
  # tee ignores USR1 and USR2: Grid Engine signals it too; killed, it loses the rest (the stop line)
  "${cmd[@]}" > >(trap '' USR1 USR2; exec tee -a "$GS_OUTDIR/$tag.out") 2>&1 &
  gs_child=$!
  while kill -0 "$gs_child" 2>/dev/null; do wait "$gs_child"; done
  wait "$gs_child"
  rc=$?
  gs_child=
  gs_log "gpusim $sub: exit status $rc"
  return $rc
}

# gs_nbody_args: gpusim nbody's options from NBODY_N, NBODY_STEPS, NBODY_DT, NBODY_EPS,
# NBODY_IC, NBODY_PRECISION, NBODY_KERNEL, NBODY_OVERLAP, NBODY_EXCHANGE, NBODY_SOLVER,
# NBODY_THETA, NBODY_TREE_LAYOUT and NBODY_TREE_CELL (those set: NBODY_TREE_LAYOUT gives --tree-layout),
# into GS_NBODY_ARGS.
gs_nbody_args() {
  local o v
  GS_NBODY_ARGS=()
  for o in n steps dt eps ic precision kernel overlap exchange solver theta tree-layout tree-cell; do
    v=$(printenv "NBODY_$(echo "$o" | tr a-z- A-Z_)") && [ -n "$v" ] && GS_NBODY_ARGS+=("--$o" "$v")
  done
  return 0
}
