#!/bin/bash
# An installed job template through a real batch system, as a user submits it: a copy of
# tsubame/reduce.sh in a directory of the user's, submitted with qsub -V to a one-host Grid
# Engine (tests/jobs/gs_gridengine.sh brings it up, as tests/jobs/gridengine_local.sh does),
# with none of the GPUSIM_* variables that would point elsewhere: Grid Engine runs a copy from its
# spool directory, which must find the installed gs_tsubame.sh and gpusim by itself. The job runs
# the CPU backend on 2 ranks (-pe mpi 2) and must exit 0, verified, by the installed gpusim.
# Needs root, Open MPI and Debian's Grid Engine packages (.ci/run installs them); skips (77)
# without them.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$GS_TEST_LIB"
. "${GS_TEST_LIB%/*}/install/gs_install_lib.sh"
. "$GS_INST_SRCDIR/tests/jobs/gs_gridengine.sh"
why=$(gs_ge_check)
[ -z "$why" ] || gs_skip "no Grid Engine to submit a template to: $why"
[ -n "${MPIEXEC:-}" ] && "$MPIEXEC" --version 2>&1 | grep 'Open MPI\|OpenRTE' >/dev/null ||
  gs_skip "no Open MPI mpiexec (the TSUBAME templates run Open MPI's mpirun)"
command -v mpirun >/dev/null 2>&1 || gs_skip "no mpirun on PATH (the TSUBAME templates' launcher)"
command -v flock >/dev/null 2>&1 || gs_skip "no flock (util-linux): one Grid Engine test at a time"
exec 9>/var/lock/gpusim-gridengine.lock
flock -w 1200 9 || gs_hard "another Grid Engine test held /var/lock/gpusim-gridengine.lock for 20 minutes"
jid=
gs_inst_cleanup() {
  [ -n "$jid" ] && timeout 20 qdel "$jid" >/dev/null 2>&1
  gs_ge_down
  rm -rf "$GS_INST_TMP"
}
gs_ge_up || gs_fail "Grid Engine did not come up (the lines above)"
user=$GS_INST_TMP/user
mkdir -p "$user"
chmod 755 "$GS_INST_TMP" "$user"
cp "$GS_INST_JOBSDIR/tsubame/reduce.sh" "$user/myreduce.sh"
cd "$user" || gs_hard "cd $user"
# The PE's slots, not oversubscription, make room for the ranks; no module command here.
sub=$(gs_inst_env -u OMPI_MCA_rmaps_base_oversubscribe OMP_NUM_THREADS=1 GPUSIM_BACKEND=cpu GPUSIM_MODULES= \
  GPUSIM_NPERNODE=2 GPUSIM_ARGS="--n 1e5 --iters 2 --warmup 1" \
  timeout 60 qsub -V -w e -pe mpi 2 -N t-install myreduce.sh 2>&1) || { rc=$?; echo "$sub"; gs_fail "qsub: exit status $rc"; }
echo "$sub"
jid=$(echo "$sub" | sed -n 's/^Your job \([0-9]*\) .*/\1/p')
[ -n "$jid" ] || gs_fail "no job id from qsub"
acct=
for i in $(seq 480); do acct=$(qacct -j "$jid" 2>/dev/null) && break; sleep 0.5; done
[ -n "$acct" ] || { qstat -f; gs_fail "job $jid not ended after 240 s"; }
j=$jid
jid= # ended: nothing to qdel
log=$user/t-install.o$j
cat "$log" 2>/dev/null | grep -v '^ *[0-9]' | tail -25
ex=$(echo "$acct" | awk '$1 == "exit_status" { v = $2 } END { print v }')
[ "$ex" = 0 ] || gs_fail "job $j: exit status '$ex'"
d=$user/results/t-install-$j
grep '^# verification: OK' "$d/reduce.out" >/dev/null || gs_fail "job $j: not verified ($d/reduce.out)"
grep "^# job: 2 rank(s) on 1 node(s), job $j" "$d/reduce.out" >/dev/null || gs_fail "job $j: not 2 ranks"
grep "launch: .* $GS_INST_BINDIR/gpusim reduce " "$log" >/dev/null || gs_fail "job $j: did not launch the installed gpusim"
echo "ok: Grid Engine job $j: a copy of the installed tsubame/reduce.sh, the installed gpusim on 2 ranks"
echo "PASS"
