#!/bin/bash
# The TSUBAME job scripts (jobs/tsubame/) under a real Grid Engine on this machine (issue 32):
# Debian's Son of Grid Engine, brought up and configured by gs_gridengine.sh (one host, queue
# all.q, PE mpi, TSUBAME's resource types as complexes; the daemons it starts are stopped on exit).
# Every job goes through a TSUBAME-like qsub (first on PATH): it drops TSUBAME's own -g GROUP
# (saying so), adds -w e (a request that cannot be met fails at once instead of waiting for ever)
# and -pe mpi 2 (this one host stands in for a node: 2 slots, 2 ranks) where no -pe is given, and
# waits for the job (its accounting record; at most 240 s), returning its exit status as
# qsub -sync y does (whose own return lagged by minutes at times here). The jobs run the CPU
# backend on 2 ranks (GPUSIM_NPERNODE=2, passed with -V like everything the jobs need, Open MPI's
# permission to run as root included), and each one's results directory, CSV, log and exit
# status (qacct's) are checked:
#   reduce.sh, nbody.sh (direct and tree), matmul.sh; a job that checks the PE's slots reach
#   mpirun (ras gridengine) and that qrsh -inherit works in it (Open MPI starts its daemons on a
#   job's other hosts with it)
#   the time limit: nbody.sh with -l h_rt=0:01:00 stops by its --walltime budget (from qstat -j,
#   h_rt less the margin) before h_rt, exit 0, no USR2; with a --walltime of the user's longer
#   than h_rt, it reaches h_rt: Grid Engine sends USR2 (-notify), the script and mpirun pass it on,
#   gpusim checkpoints and the job exits 0 before the SIGKILL; a qdel-ed job the same. Each of the
#   two resumes (NBODY_RESTART=DIR, NBODY_STEPS=S+5) to the final-state hash of an uninterrupted
#   job of S+5 steps.
#   every TSUBAME example of docs/cluster.md and the scripts' headers, as written, through that
#   qsub (examples_lib.sh: ./gpusim runs the real one at test size)
# Needs root, Open MPI and Debian's gridengine-master, gridengine-exec and gridengine-client;
# skips (77) without them. One run at a time on a machine (a lock): Grid Engine is the machine's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$GS_TEST_LIB"
. "$(dirname "$0")/examples_lib.sh"
. "$(dirname "$0")/gs_gridengine.sh"
top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
jobs=$top/jobs

why=$(gs_ge_check)
[ -z "$why" ] || gs_skip "$why"
[ -n "${MPIEXEC:-}" ] && "$MPIEXEC" --version 2>&1 | grep 'Open MPI\|OpenRTE' >/dev/null ||
  gs_skip "no Open MPI mpiexec (the TSUBAME scripts run Open MPI's mpirun)"
command -v mpirun >/dev/null 2>&1 || gs_skip "no mpirun on PATH (the TSUBAME scripts' launcher)"
help=$("$GPUSIM" nbody --help 2>&1) || gs_hard "gpusim nbody --help failed: $help"
case $help in *--walltime*) ;; *) gs_hard "gpusim nbody has no --walltime" ;; esac
command -v flock >/dev/null 2>&1 || gs_skip "no flock (util-linux): one Grid Engine test at a time"
exec 9>/var/lock/gpusim-gridengine.lock
flock -w 1200 9 || gs_hard "another Grid Engine test held /var/lock/gpusim-gridengine.lock for 20 minutes"

T=$(mktemp -d /tmp/gsge.XXXXXX) || gs_hard "mktemp"
chmod 755 "$T"
mkdir -p "$T/bin" "$T/work" "$T/results"
cleanup() {
  set +e
  local j
  j=$(cat "$T"/work/*.sub "$T"/ex*.out 2>/dev/null | sed -n 's/^Your job \([0-9]*\) .*/\1/p' | sort -u)
  [ -n "$j" ] && timeout 20 qdel $j >/dev/null 2>&1 # jobs of this test still queued or running
  for v in $(compgen -v bg_); do kill "${!v}" 2>/dev/null; done
  gs_ge_down
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 99' INT TERM

t_up=$SECONDS
gs_ge_up || gs_fail "Grid Engine did not come up (the lines above)"
echo "Grid Engine up in $((SECONDS - t_up)) s (started here: ${GS_GE_STARTED:-none}); $(qstat -help 2>&1 | head -1)"
host=$(gs_ge_host)

# ---- the TSUBAME-like qsub, the stand-in module, the jobs' environment ----
real_qsub=$(command -v qsub)
{
  echo '#!/bin/bash'
  echo "real_qsub=$real_qsub"
  cat <<'EOF'
# TSUBAME's qsub on this test's Grid Engine: -g GROUP is TSUBAME's own (the group that pays), not
# Son of Grid Engine's; -w e and -pe mpi 2 (if no -pe) are added; then it waits for the job, as
# qsub -sync y would, and exits with its exit status. Not -sync y itself: its return lagged the
# job's end by minutes at times here (a job that ended at 62 s, qsub -sync y saw some 4 minutes
# later), so this waits for the job's accounting record instead (flushed at once), at most 240 s.
args=()
pe=no
while [ $# -gt 0 ]; do
  case $1 in
    -g) echo "test qsub: dropped '-g $2' (TSUBAME's own option: the group that pays for the job)" >&2; shift 2; continue ;;
    -pe) pe=yes ;;
  esac
  args+=("$1")
  shift
done
extra=(-w e)
[ $pe = yes ] || extra+=(-pe mpi 2)
echo "test qsub: qsub ${extra[*]} ${args[*]}, then wait for the job" >&2
out=$(timeout 60 "$real_qsub" "${extra[@]}" "${args[@]}")
rc=$?
echo "$out"
[ $rc = 0 ] || exit $rc
jid=$(echo "$out" | sed -n 's/^Your job \([0-9]*\) .*/\1/p')
[ -n "$jid" ] || exit 1
a=
while [ $SECONDS -lt 240 ]; do
  a=$(qacct -j "$jid" 2>/dev/null) && break
  sleep 0.5
done
[ -n "$a" ] || { echo "test qsub: job $jid still not ended after 240 s"; exit 124; }
ex=$(echo "$a" | awk '$1 == "exit_status" { v = $2 } END { print v }')
echo "Job $jid exited with exit code $ex."
exit "$ex"
EOF
} >"$T/bin/qsub"
printf '#!/bin/sh\necho "module $*"\n' >"$T/bin/module"
chmod +x "$T/bin/qsub" "$T/bin/module"
export PATH="$T/bin:$PATH"
export OMP_NUM_THREADS=1 GPUSIM_BACKEND=cpu GPUSIM_RESULTS=$T/results GPUSIM_NPERNODE=2 GPUSIM_JOBS=$jobs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The PE's slots, not oversubscription, must make room for the ranks.
unset OMPI_MCA_rmaps_base_oversubscribe GPUSIM_ARGS GPUSIM_MPIRUN GPUSIM_MPIRUN_ARGS GPUSIM_MODULES

showlogs() { tail -20 /var/spool/gridengine/qmaster/messages 2>/dev/null; qstat -f 2>/dev/null; }
fail() { showlogs; gs_fail "$*"; }
# submit NAME SCRIPT [VAR=VALUE...] -- [QSUB-OPTIONS...]: jobs/tsubame/SCRIPT as job NAME, from
# $T/work, in the background (the test qsub waits for the job).
submit() {
  local name=$1 script=$2
  shift 2
  local -a envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  case $script in /*) ;; *) script=$jobs/tsubame/$script ;; esac
  (
    cd "$T/work" || exit 1
    env ${envs[@]+"${envs[@]}"} qsub -g tsubame-group -V -N "$name" "$@" "$script" >"$T/work/$name.sub" 2>&1
    echo $? >"$T/work/$name.rc"
  ) &
  eval "bg_$(echo "$name" | tr -c 'a-zA-Z0-9\n' _)=$!"
}
jid_of() { sed -n 's/^Your job \([0-9]*\) .*/\1/p' "$1" 2>/dev/null | head -1; }
# acct JID: exit_status and failed of the finished job, from qacct (ex, failed; its last record: an
# accounting file that outlived a reinstall of Grid Engine may hold an older job of the same number)
acct() {
  local i out=
  for i in $(seq 100); do out=$(qacct -j "$1" 2>/dev/null) && break; sleep 0.2; done
  ex=$(echo "$out" | awk '$1 == "exit_status" { v = $2 } END { print v }')
  failed=$(echo "$out" | awk '$1 == "failed" { v = $2 } END { print v }')
}
# collect NAME: wait for a submitted job; sets jid, rc (the test qsub's: the job's exit status), ex
# and failed (qacct's), log (the job's -j y output, <name>.o<jid> in the submit directory), d (its
# results directory); shows qsub's lines and the log.
collect() {
  local name=$1 v
  v=bg_$(echo "$name" | tr -c 'a-zA-Z0-9\n' _)
  wait "${!v}"
  rc=$(cat "$T/work/$name.rc" 2>/dev/null)
  jid=$(jid_of "$T/work/$name.sub")
  echo "== $name: job ${jid:-none}, qsub exit status $rc (at ${SECONDS}s)"
  cat "$T/work/$name.sub"
  [ -n "$jid" ] || fail "$name: no job id from qsub"
  [ "$rc" = 124 ] && fail "$name: the job still not ended after 240 s"
  acct "$jid"
  echo "qacct: exit_status $ex, failed $failed"
  log=$T/work/$name.o$jid
  d=$T/results/$name-$jid
  [ -f "$log" ] || fail "$name: no job log $log: $(ls "$T/work")"
  grep -v '^ *[0-9]' "$log" | tail -40
}
# ok_job NAME WORKLOAD: exit status 0 everywhere, verified, 2 ranks, the CSV's job row, the files
ok_job() {
  [ "$rc" = 0 ] && [ "$ex" = 0 ] && [ "$failed" = 0 ] || fail "$1: qsub exit status $rc, qacct exit_status '$ex' failed '$failed'"
  grep -q "^test qsub: dropped '-g tsubame-group'" "$T/work/$1.sub" || fail "$1: -g not dropped with a message"
  grep -q '^# verification: OK' "$d/$2.out" || fail "$1: not verified"
  grep -q "^# job: 2 rank(s) on 1 node(s), job $jid" "$d/$2.out" || fail "$1: want 2 ranks, job $jid"
  awk -F, -v j="$jid" 'NR > 1 && $6 == -1 && $8 == 2 && $3 == j { n++ } END { exit !n }' "$d/results.csv" ||
    fail "$1: no CSV job row for 2 ranks, job $jid"
  [ -s "$d/$2.json" ] && grep -q "^JOB_ID=$jid\$" "$d/$2.env" && grep -q '^NSLOTS=2$' "$d/$2.env" &&
    grep -q '^PE_HOSTFILE=' "$d/$2.env" || fail "$1: $2.json / $2.env (JOB_ID, NSLOTS=2, PE_HOSTFILE)"
  grep -q '^module load cuda openmpi' "$log" || fail "$1: no module load"
}
# Each nbody chain's variables: steps of some 20-50 ms on this machine's CPU backend.
nb=(NBODY_N=2048 NBODY_STEPS=100000000 GPUSIM_ARGS="--iters 1 --energy-every 5 --progress lines")
hash_at() { sed -n "s/^# final state: step $2, .* FNV-1a 64 = \([0-9a-f]*\)\$/\1/p" "$1"; }
# stopped NAME WHY: the stop line (WHY: the reason in it), its checkpoint; sets S and ck
stopped() {
  local line
  line=$(grep "^# stopped after step [0-9]* of 100000000 ($2): resume with the same options plus --restart " "$d/nbody.out")
  [ -n "$line" ] || fail "$1: no '# stopped after step S of 100000000 ($2): resume ...' line"
  S=$(echo "$line" | sed 's/^# stopped after step \([0-9]*\) .*/\1/')
  ck=${line##* --restart }
  [ "$ck" = "$d/nbody-out" ] && [ -s "$ck/$(printf 'checkpoint_%09d.gsck' "$S")" ] || fail "$1: no checkpoint of step $S in $d/nbody-out"
}

# ---- the time limit and qdel first (the longest), then everything else queues behind them ----
submit budget nbody.sh "${nb[@]}" -- -l h_rt=0:01:00
submit hrt nbody.sh NBODY_N=2048 NBODY_STEPS=100000000 GPUSIM_ARGS="--iters 1 --energy-every 5 --progress lines --walltime 1:00:00" \
  -- -l h_rt=0:00:20
submit qdel nbody.sh "${nb[@]}" --
for i in $(seq 1200); do
  jq=$(jid_of "$T/work/qdel.sub")
  [ -n "$jq" ] && awk '$1 ~ /^[0-9]+$/ && $1 >= 20 { f = 1 } END { exit !f }' "$T/results/qdel-$jq/nbody.out" 2>/dev/null && break
  sleep 0.1
done
[ -n "$jq" ] || fail "qdel: no job id after 120 s"
qdel "$jq" || fail "qdel $jq"
t_qdel=$(date +%s)

submit reduce reduce.sh GPUSIM_ARGS="--n 1e5 --iters 2 --warmup 1" --
submit direct nbody.sh NBODY_N=256 NBODY_STEPS=3 --
submit tree nbody.sh NBODY_N=512 NBODY_STEPS=3 NBODY_SOLVER=tree --
submit matmul matmul.sh GPUSIM_ARGS="--n 96 --iters 1" --
# The PE as Open MPI sees it: its allocation (ras gridengine: the PE's slots, no hostfile), and
# qrsh -inherit, how it starts its daemons on a job's other hosts (this job has one host).
cat >"$T/pe.sh" <<'EOF'
#!/bin/bash
#$ -cwd
#$ -j y
echo "NSLOTS=$NSLOTS PE=$PE PE_HOSTFILE: $(cat "$PE_HOSTFILE")"
mpirun --display-allocation -np "$NSLOTS" hostname 2>&1 | tr -s ' \t' '  ' | sed 's/^ //' | grep -E ": flags=.* slots=|^$(hostname)\$" | sort | uniq -c
h=$(awk 'NR == 1 { print $1 }' "$PE_HOSTFILE")
qrsh -inherit -nostdin "$h" echo "qrsh -inherit $h: ok"
EOF
submit pe "$T/pe.sh" --

# ---- every documented TSUBAME example, as written ----
gs_examples_distinct | awk -F'\t' '$2 == "tsubame"' >"$T/ex.list"
[ -s "$T/ex.list" ] || fail "no TSUBAME examples"
i=0
while IFS="$(printf '\t')" read -r where kind cmd; do
  i=$((i + 1))
  gs_example_workdir "$T/ex$i"
  (
    unset GPUSIM GPUSIM_RESULTS GPUSIM_BACKEND GPUSIM_JOBS
    gs_example_run "$T/ex$i" "$cmd" >"$T/ex$i.out" 2>&1
    echo $? >"$T/ex$i.rc"
  ) &
  eval "bg_ex$i=\$!"
done <"$T/ex.list"

# ---- qdel: USR2 at once, a checkpoint, exit 0 before the SIGKILL ----
collect qdel
t_usr2=$(sed -n 's/^# \[gpusim-job \([0-9:]*\)\] USR2: Grid Engine ends this job.*/\1/p' "$log" | head -1)
stopped qdel SIGUSR2
[ "$rc" = 0 ] && [ "$ex" = 0 ] || fail "qdel: exit status $rc (qacct $ex), want 0: the run ended before the SIGKILL"
grep -q "^# \[gpusim-job [0-9:]*\] gpusim nbody: exit status 0" "$log" || fail "qdel: the job shell did not see gpusim's exit 0"
grep -q 'USR2: forwarded to mpirun (graceful stop)' "$log" || fail "qdel: USR2 not trapped and forwarded"
echo "ok: qdel: USR2 (at $t_usr2, qdel at $(date -u -d @"$t_qdel" +%H:%M:%S)), checkpoint of step $S, exit 0 (qacct failed $failed)"
S_qdel=$S ck_qdel=$ck
submit qdel-resume nbody.sh "${nb[@]/#NBODY_STEPS=*/NBODY_STEPS=$((S + 5))}" NBODY_RESTART="$ck" --
submit qdel-whole nbody.sh "${nb[@]/#NBODY_STEPS=*/NBODY_STEPS=$((S + 5))}" --

# ---- h_rt reached (the user's --walltime longer than h_rt): USR2, a checkpoint, exit 0 ----
collect hrt
grep -q 'time limit: --walltime from GPUSIM_ARGS' "$log" || fail "hrt: the user's --walltime not kept"
stopped hrt SIGUSR2
[ "$rc" = 0 ] && [ "$ex" = 0 ] || fail "hrt: exit status $rc (qacct $ex), want 0: the run ended before the SIGKILL"
grep -q 'USR2: Grid Engine ends this job' "$log" || fail "hrt: no USR2 at h_rt"
start=$(sed -n 's/^# \[gpusim-job \([0-9:]*\)\] job [0-9]*: .*/\1/p' "$log" | head -1)
t_usr2=$(sed -n 's/^# \[gpusim-job \([0-9:]*\)\] USR2: Grid Engine ends this job.*/\1/p' "$log" | head -1)
echo "ok: hrt: h_rt=20 s reached: USR2 at $t_usr2 (launch at $start), checkpoint of step $S, exit 0 (qacct failed $failed)"
S_hrt=$S ck_hrt=$ck
hv=(NBODY_N=2048 GPUSIM_ARGS="--iters 1 --energy-every 5 --progress lines --walltime 1:00:00" NBODY_STEPS=$((S + 5)))
submit hrt-resume nbody.sh "${hv[@]}" NBODY_RESTART="$ck" --
submit hrt-whole nbody.sh "${hv[@]}" --

# ---- the budget: gpusim stops by itself before h_rt ----
collect budget
grep -q "time limit: h_rt 60 s (from qstat -j $jid); gpusim --walltime [0-9]* s (6 s margin" "$log" ||
  fail "budget: no --walltime budget from the job's h_rt (qstat -j)"
stopped budget "wall-clock budget nearly spent"
[ "$rc" = 0 ] && [ "$ex" = 0 ] && [ "$failed" = 0 ] || fail "budget: exit status $rc, qacct $ex, failed $failed: want 0, 0, 0"
grep USR2 "$log" && fail "budget: USR2 came: the budget did not stop the run before h_rt"
echo "ok: budget: stopped by --walltime at step $S before h_rt=60 s, exit 0, no USR2"

# ---- the scripts ----
collect reduce
ok_job reduce reduce
echo "ok: reduce.sh"
collect direct
ok_job direct nbody
grep -q "time limit: h_rt 3600 s (from qstat -j $jid); gpusim --walltime" "$log" || fail "direct: no budget from h_rt"
grep -q -- '--n 256 --steps 3 --walltime [0-9]* --output ' "$log" || fail "direct: NBODY_* and the budget not passed on"
echo "ok: nbody.sh, direct"
collect tree
ok_job tree nbody
grep -q '^# solver: tree' "$d/nbody.out" || fail "tree: not the tree solver"
echo "ok: nbody.sh, tree"
collect matmul
ok_job matmul matmul
grep -q '^# SUMMA: 1 x 2 process grid' "$d/matmul.out" || fail "matmul: not SUMMA on 2 ranks"
echo "ok: matmul.sh"
collect pe
[ "$rc" = 0 ] || fail "pe: exit status $rc"
grep -q "^NSLOTS=2 PE=mpi PE_HOSTFILE: $host 2 all.q@$host" "$log" || fail "pe: not 2 slots of PE mpi on $host"
grep -qE "^ *1 $host: flags=.* slots=2 " "$log" || fail "pe: mpirun's allocation is not the PE's 2 slots"
grep -qE "^ *2 $host\$" "$log" || fail "pe: mpirun did not start 2 ranks"
grep -q "^qrsh -inherit $host: ok\$" "$log" || fail "pe: qrsh -inherit"
echo "ok: PE mpi: mpirun's allocation is the PE's slots; qrsh -inherit works"

# ---- the examples ----
i=0
while IFS="$(printf '\t')" read -r where kind cmd; do
  i=$((i + 1))
  v=bg_ex$i
  wait "${!v}"
  rc=$(cat "$T/ex$i.rc")
  jid=$(jid_of "$T/ex$i.out")
  echo "== $where: $cmd"
  grep -v '^ *[0-9]' "$T/ex$i.out" | tail -30
  [ -n "$jid" ] || fail "$where: no job id"
  acct "$jid"
  name=$(sed -n 's/^#\$ -N //p' "$jobs/tsubame/$(echo "$cmd" | sed 's|.*jobs/tsubame/\([a-z]*\.sh\).*|\1|')")
  log=$T/ex$i/$name.o$jid
  [ -f "$log" ] || fail "$where: no log $log: $(ls "$T/ex$i")"
  grep -v '^ *[0-9]' "$log" | tail -25
  [ "$rc" = 0 ] && [ "$ex" = 0 ] || fail "$where: exit status $rc (qacct $ex)"
  grep -q '^# verification: OK' "$log" || fail "$where: not verified"
  case $cmd in *NBODY_RESTART=*) grep -q '^# restart: from .* at step 2 ' "$log" || fail "$where: not resumed" ;; esac
  echo "ok: $where (job $jid)"
done <"$T/ex.list"
echo "ok: $i TSUBAME examples under Grid Engine"

# ---- the resumed runs end where uninterrupted ones do ----
for k in qdel hrt; do
  S=S_$k
  E=$((${!S} + 5))
  collect $k-resume
  [ "$rc" = 0 ] || fail "$k-resume: exit status $rc"
  ckv=ck_$k
  grep -q "^# restart: from ${!ckv} at step ${!S} " "$d/nbody.out" || fail "$k-resume: not resumed at step ${!S}"
  h1=$(hash_at "$d/nbody.out" $E)
  collect $k-whole
  [ "$rc" = 0 ] || fail "$k-whole: exit status $rc"
  h2=$(hash_at "$d/nbody.out" $E)
  [ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "$k: resumed run ends in state '$h1', an uninterrupted one in '$h2' (step $E)"
  echo "ok: $k: resumed from step ${!S} to $E = uninterrupted $E steps: FNV-1a $h1"
done
echo "PASS (${SECONDS}s)"
