#!/bin/bash
# The installed job templates (GS_INST_JOBSDIR, $(pkgdatadir)/jobs): every SLURM, PBS and TSUBAME
# script of the source tree is there, executable, parses, says it is a template and takes the
# installed gpusim (no ./gpusim of the submit directory, no jobs/ of it). And copies of them, in a
# directory of a user's, run as their batch systems would run them, with none of the GPUSIM_*
# variables set that would point elsewhere: pbs/reduce.pbs, tsubame/reduce.sh run from a spool
# directory (as Grid Engine runs a copy: it must find the installed gs_tsubame.sh) and
# slurm/scaling.sbatch (its sweep: the installed gpusim-scaling), on 2 ranks of the CPU backend,
# the batch systems stood in by their variables (PBS_NODEFILE, NHOSTS, SLURM_NTASKS) as
# tests/jobs/job_scripts.sh does for the source tree's scripts. tests/install/batch.sh submits
# one to a real SLURM or Grid Engine.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$GS_TEST_LIB"
. "${GS_TEST_LIB%/*}/install/gs_install_lib.sh"
src=$GS_INST_SRCDIR/jobs
j=$GS_INST_JOBSDIR
want=$(cd "$src" && ls slurm/*.sbatch pbs/*.pbs tsubame/*.sh)
have=$(cd "$j" 2>/dev/null && ls slurm/* pbs/* tsubame/*)
[ "$have" = "$want" ] || gs_fail "installed templates '$(echo $have)', want '$(echo $want)'"
for t in $want; do
  f=$j/$t
  [ -x "$f" ] || gs_fail "$f: not executable"
  bash -n "$f" || gs_fail "$f: bash -n"
  sed -n 2p "$f" | grep -E "^# Installed (template|with the TSUBAME templates) of gpusim $GS_INST_VERSION" >/dev/null ||
    gs_fail "$f: no template note on line 2"
  # One awk, not grep | grep -v: the pipe would hide the first grep failing on the template.
  awk -v inst="$j/tsubame/gs_tsubame.sh" '(/command -v gpusim/ || /\/jobs\/tsubame\/gs_tsubame\.sh$/) && !index($0, inst) {
      print FNR ":" $0; n++ } END { exit n > 0 }' "$f" ||
    gs_fail "$f: still looks for gpusim or gs_tsubame.sh in the source tree's way (lines above)"
  case $t in
    tsubame/[!g]*) grep -Fx "  gs_lib=$j/tsubame/gs_tsubame.sh" "$f" >/dev/null || gs_fail "$f: not the installed gs_tsubame.sh" ;;
    *) grep -Fx ": \"\${GPUSIM:=$GS_INST_BINDIR/gpusim}\"" "$f" >/dev/null || gs_fail "$f: GPUSIM's default is not the installed gpusim" ;;
  esac
done
echo "ok: $(echo $want | wc -w) templates in $j"

[ -n "${MPIEXEC:-}" ] && "$MPIEXEC" --version 2>&1 | grep 'Open MPI\|OpenRTE' >/dev/null ||
  gs_skip "no Open MPI mpiexec here: the templates are not run (the checks above passed)"
user=$GS_INST_TMP/user
mkdir -p "$user" "$GS_INST_TMP/spool"
cp "$j/pbs/reduce.pbs" "$j/slurm/scaling.sbatch" "$user/"
cp "$j/tsubame/reduce.sh" "$GS_INST_TMP/spool/job" # Grid Engine runs a copy in its spool directory
hostname >"$GS_INST_TMP/nodefile"
hostname >>"$GS_INST_TMP/nodefile"
# run NAME VAR=VALUE... -- SCRIPT: SCRIPT with bash in $user, in gs_inst_env's environment (none
# of the caller's GPUSIM_* variables, nor CUDA_VISIBLE_DEVICES) plus VAR=VALUE; output in $NAME.log.
run() {
  local name=$1
  shift
  local -a vars=()
  while [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  (cd "$user" && gs_inst_env OMP_NUM_THREADS=1 GPUSIM_BACKEND=cpu "${vars[@]}" timeout 300 bash "$@") \
    >"$GS_INST_TMP/$name.log" 2>&1
}
check() { # check NAME WHAT RC RESULTS-DIR: run NAME (the template WHAT) verified, 2 ranks, the installed gpusim
  local log=$GS_INST_TMP/$1.log
  [ "$3" = 0 ] || { cat "$log"; gs_fail "$2: exit status $3"; }
  grep '^# verification: OK' "$4/reduce.out" >/dev/null || { cat "$log"; gs_fail "$2: not verified"; }
  grep '^# job: 2 rank(s) on 1 node(s)' "$4/reduce.out" >/dev/null || gs_fail "$2: not 2 ranks"
  grep -F "launch" "$log" | grep -F " $GS_INST_BINDIR/gpusim reduce " >/dev/null || { cat "$log"; gs_fail "$2: did not launch the installed gpusim"; }
  echo "ok: $2: the installed gpusim on 2 ranks, results in $4"
}
run pbs PBS_NODEFILE="$GS_INST_TMP/nodefile" PBS_JOBID=301.pbs PBS_JOBNAME=t-pbs PBS_O_WORKDIR="$user" \
  GPUSIM_MPIEXEC="$MPIEXEC" GPUSIM_MPIEXEC_ARGS="$GS_MPIFLAGS" GPUSIM_ARGS="--n 1e5 --iters 2 --warmup 1" -- reduce.pbs
check pbs pbs/reduce.pbs $? "$user/results/t-pbs-301"
run tsubame JOB_ID=302 JOB_NAME=t-tsubame NHOSTS=1 SGE_O_WORKDIR="$user" GPUSIM_NPERNODE=2 GPUSIM_MODULES= \
  GPUSIM_MPIRUN="$MPIEXEC" GPUSIM_MPIRUN_ARGS="$GS_MPIFLAGS" GPUSIM_ARGS="--n 1e5 --iters 2 --warmup 1" -- "$GS_INST_TMP/spool/job"
check tsubame "tsubame/reduce.sh (from a spool directory)" $? "$user/results/t-tsubame-302"
run scaling SLURM_SUBMIT_DIR="$user" SLURM_JOB_ID=303 SLURM_JOB_NAME=t-scaling SLURM_NTASKS=2 GPUSIM_LAUNCHER=mpirun \
  GPUSIM_MPIRUN="$MPIEXEC" GPUSIM_MPIRUN_ARGS="$GS_MPIFLAGS" GPUSIM_REPEATS=1 GPUSIM_ARGS="--iters 2 --warmup 1" \
  GPUSIM_SWEEP_ARGS="--gpus 1,2 --strong-size 2e4 --weak-size 1e4" -- scaling.sbatch
rc=$?
d=$user/results/t-scaling-303
[ $rc = 0 ] && grep '^# sweep: 4 run(s), 0 failed' "$d/sweep.out" >/dev/null || { cat "$GS_INST_TMP/scaling.log"; gs_fail "slurm/scaling.sbatch: exit status $rc"; }
grep -F "$GS_INST_BINDIR/gpusim reduce" "$d/reduce-strong.commands" >/dev/null || gs_fail "slurm/scaling.sbatch: not the installed gpusim"
echo "ok: slurm/scaling.sbatch: the installed gpusim-scaling, 4 runs"
echo "PASS"
