#!/bin/bash
# The SLURM job scripts under a real SLURM on this machine: munge, slurmctld and three slurmd
# (n1 and n2 on this one host, each with its CPUs and two stand-in GPUs; n3 without GPUs), with
# everything (config, spool, state, logs, sockets) in a temporary directory and the daemons
# stopped on exit (slurm.conf: ProctrackType=proctrack/linuxproc, TaskPlugin=task/none,
# SelectType=select/cons_tres, auth and credentials by munge). The jobs, submitted with
# sbatch --wait, run the CPU backend on small sizes and must give N ranks:
#   reduce_1node.sbatch      srun --mpi=pmix, and mpirun inside the allocation: 2 ranks, 1 node
#   reduce_multinode.sbatch  mpirun over 2 nodes: 4 ranks, node-local ranks 0/2 1/2 on each node;
#                            srun over 1 node (srun --mpi=pmix over two slurmd of the *same* host
#                            cannot work: their PMIx servers find each other by socket path)
#   nbody_*.sbatch           a run on 1 node (srun) and on 2 (mpirun); where gpusim has no
#                            nbody: exit 77 and a clear message
#   sweep_array.sbatch       a 3-task array sharing one CSV
#   scaling.sbatch           sweep.py inside the allocation with srun
#   USR1 (as --signal=B:USR1 delivers it, here by scancel --batch): logged and not forwarded by
#   default to gpusim reduce (it has no USR1 handler and would die of it), forwarded to every
#   rank with GPUSIM_FORWARD_USR1=yes (through srun and through mpirun)
#   checkpoint/restart   nbody_1node.sbatch stopped by USR1 mid-run (exit 0, a checkpoint, the
#                        stop line with step S), resumed by the documented resubmit command
#                        (NBODY_RESTART=DIR NBODY_STEPS=S+5) and compared with an uninterrupted
#                        job of S+5 steps: the same final-state hash (srun and mpirun)
#   every sbatch example of docs/cluster.md and the scripts' headers, as written, through a
#   test-scale sbatch (examples_lib.sh), the GPU-less recipe on n3 (partition cpu, no GPUs); an
#   example whose job SLURM itself ended (time limit, node failure) runs once more, said so
# A failure ends with the daemons' logs, then the job's own last lines and its SLURM record.
# Needs root (slurmd starts job steps as their owner) and Debian's slurmctld, slurmd,
# slurm-client and munge; skips (77) where they are missing or SLURM cannot start here.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$GS_TEST_LIB"
. "$(dirname "$0")/examples_lib.sh"
top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
jobs=$top/jobs

PATH=$PATH:/usr/sbin:/sbin # the daemons' home, not on every user's PATH
for c in slurmctld slurmd sbatch srun sinfo squeue scancel munged; do
  command -v $c >/dev/null 2>&1 ||
    gs_skip "$c not found (Debian: apt-get install slurmctld slurmd slurm-client munge)"
done
[ "$(id -u)" = 0 ] || gs_skip "needs root: slurmd starts job steps as the user who submitted them"
[ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher (mpiexec) found by configure"

T=$(mktemp -d /tmp/gsslurm.XXXXXX) || gs_hard "mktemp"
chmod 755 "$T"
pids=""
cleanup() {
  set +e
  if [ -n "$pids" ]; then
    timeout 10 scancel --full --quiet --user=root >/dev/null 2>&1
    for i in $(seq 50); do [ -z "$(timeout 5 squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
    # An sbatch --wait never collected (a failure part-way) would poll a stopped controller.
    for v in $(compgen -v bg_); do pkill -P "${!v}" 2>/dev/null; done
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do
      for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$p" 2>/dev/null
    done
  fi
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 99' INT TERM
showlogs() {
  for f in "$T"/log/*; do echo "---- $f"; tail -25 "$f"; done
}
# job_record JID: what SLURM's completion log says of a finished job (an array's: of each task):
# its state, times, node and exit code. Where a job's own log stops short (a time limit, a node
# that SLURM gave up on), this says which.
job_record() {
  awk -v j="$1" '$1 == "JobId=" j || $0 ~ " ArrayJobId=" j " " { s = ""
      for (f = 1; f <= NF; f++) if ($f ~ /^(JobId|JobState|StartTime|EndTime|NodeList|ExitCode)=/) s = s " " $f
      print "SLURM:" s }' "$T/log/jobcomp.txt" 2>/dev/null
}
# fail MESSAGE: the daemons' logs, then (last, where a short view of the log still shows it) the
# last lines of the job's own log (logs, where an example set it) and SLURM's record of the job in
# hand (jid), if any, and the message.
fail() {
  showlogs
  [ -n "${logs:-}" ] && { echo "---- the job's log (job $jid), its last lines"; tail -12 $logs; }
  [ -n "${jid:-}" ] && job_record "$jid"
  gs_fail "$*"
}

# ---- the cluster ----
host=$(hostname -s)
# The machine's CPUs: nproc would give OMP_NUM_THREADS where that is set (1 here leaves no room
# for a 2-task job on a node).
ncpu=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
mkdir -p "$T/munge" "$T/state" "$T/log" "$T/dev" "$T/work" "$T/results" "$T/n1/spool" "$T/n2/spool" "$T/n3/spool"
chmod 711 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge/munge.key"
# Stand-in GPUs (gres needs device files; nothing opens them: the jobs run the CPU backend).
for i in 0 1 2 3; do mknod "$T/dev/gpu$i" c 1 3 2>/dev/null || : >"$T/dev/gpu$i"; done
conf() { # conf SPOOL: slurm.conf; each slurmd gets its own spool (stepd sockets are named by job)
  cat <<EOF
ClusterName=gstest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.socket.2
StateSaveLocation=$T/state
SlurmdSpoolDir=$1
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$1/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-$(basename "$(dirname "$1")").log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
# Every job's exit code, where job_rc finds it when sbatch --wait has lost the job
JobCompType=jobcomp/filetxt
JobCompLoc=$T/log/jobcomp.txt
MailProg=/bin/true
DebugFlags=NO_CONF_HASH
KillWait=5
# sbatch --wait polls every 2 s while MinJobAge / 3 <= 2, instead of backing off to 32 s
MinJobAge=6
# RPCs wait up to 20 s (5 once): a loaded CI machine (make -j2 distcheck, the suite beside this
# test and 40 sbatch --wait polling) must not turn a slow answer into a failure.
MessageTimeout=20
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + 1)) CPUs=$ncpu Gres=gpu:2 State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + 2)) CPUs=$ncpu Gres=gpu:2 State=UNKNOWN
NodeName=n3 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + 3)) CPUs=$ncpu State=UNKNOWN
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=n1,n2 MaxTime=INFINITE State=UP
PartitionName=cpu Nodes=n3 MaxTime=INFINITE State=UP
EOF
}
gres="AutoDetect=off
NodeName=n1 Name=gpu File=$T/dev/gpu[0-1]
NodeName=n2 Name=gpu File=$T/dev/gpu[2-3]"
for d in "$T" "$T/n1" "$T/n2" "$T/n3"; do echo "$gres" >"$d/gres.conf"; done
export SLURM_CONF=$T/slurm.conf

munged -F --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.socket.2" \
  --pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" \
  >"$T/log/munged.out" 2>&1 &
pids="$!"
for i in $(seq 50); do [ -S "$T/munge/munge.socket.2" ] && break; sleep 0.1; done
[ -S "$T/munge/munge.socket.2" ] || { showlogs; gs_skip "munged would not start here"; }

# Three TCP ports below the ephemeral range (so no outgoing connection holds one), free now.
ports_free() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket, sys
for p in sys.argv[1:]:
    s = socket.socket(); s.bind(("", int(p))); s.close()' "$@" 2>/dev/null
  else
    for p in "$@"; do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && return 1; done
    return 0
  fi
}
# start_slurm: slurmctld and two slurmd on fresh ports; 0 once n1 (at least) is idle.
start_slurm() {
  local try i
  for try in 1 2 3; do
    base=""
    for i in $(seq 30); do
      b=$((12000 + RANDOM % 18000))
      ports_free $b $((b + 1)) $((b + 2)) $((b + 3)) && { base=$b; break; }
    done
    [ -n "$base" ] || return 1
    conf "$T/spool" >"$T/slurm.conf"
    for n in n1 n2 n3; do conf "$T/$n/spool" >"$T/$n/slurm.conf"; done
    slurmctld -D -f "$T/slurm.conf" >>"$T/log/slurmctld.out" 2>&1 &
    ctld=$!
    slurmd -D -f "$T/n1/slurm.conf" -N n1 >>"$T/log/slurmd-n1.out" 2>&1 &
    d1=$!
    slurmd -D -f "$T/n2/slurm.conf" -N n2 >>"$T/log/slurmd-n2.out" 2>&1 &
    d2=$!
    # n3: a node without GPUs, alone in partition cpu (the GPU-less recipe of docs/cluster.md)
    slurmd -D -f "$T/n3/slurm.conf" -N n3 >>"$T/log/slurmd-n3.out" 2>&1 &
    d3=$!
    pids="$pids $ctld $d1 $d2 $d3"
    local t_end=$((SECONDS + 30))
    while [ $SECONDS -lt $t_end ]; do
      up=$(timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2 == "idle" {print $1}' | sort -u | tr '\n' ' ')
      [ "$up" = "n1 n2 n3 " ] && return 0
      kill -0 $ctld 2>/dev/null && kill -0 $d1 2>/dev/null || break # lost a port race: retry
      sleep 0.5
    done
    case "$up" in *n1*) return 0 ;; esac
    echo "note: SLURM did not come up on ports $base..$((base + 2)) (try $try)"
    for p in $ctld $d1 $d2 $d3; do kill $p 2>/dev/null; done
    wait $ctld $d1 $d2 $d3 2>/dev/null
  done
  return 1
}
start_slurm || { showlogs; gs_skip "SLURM could not start here (no node came up idle; logs above)"; }
nodes2=yes
case "$up" in *n1*n2*) ;; *) nodes2=no; echo "note: only $up came up: the 2-node job is left out" ;; esac
case "$up" in *n3*) ;; *) showlogs; fail "the GPU-less node n3 did not come up" ;; esac
srun_mpi=pmix
timeout 10 srun --mpi=list 2>&1 | grep -qw pmix || srun_mpi=pmi2
timeout 5 sinfo
echo "srun --mpi=$srun_mpi; $(srun --version)"

# ---- helpers ----
export OMP_NUM_THREADS=1 GPUSIM_BACKEND=cpu GPUSIM_RESULTS=$T/results GPUSIM_SRUN_MPI=$srun_mpi
# Open MPI as root inside the jobs (sbatch passes this environment on).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
small="--ntasks-per-node=2 --gpus-per-node=2 --cpus-per-task=1 --time=00:05:00"
small_reduce="--n 1e5 --iters 2 --warmup 1"
# Every wait in this test is a cap that ends as soon as what it waits for happens; the caps are
# minutes, not seconds (a job on a loaded machine starts late), so they cost nothing when it passes.
# submit NAME SCRIPT [VAR=VALUE...] -- [SBATCH-OPTIONS...]: sbatch --wait in the background (the
# jobs are tiny, and sbatch --wait polls every 2 to 10 s: together they take one wait, not many).
submit() {
  local name=$1 script=$2
  shift 2
  local -a envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  (
    cd "$T/work" || exit 1
    env ${envs[@]+"${envs[@]}"} timeout 300 sbatch --wait --parsable --job-name="$name" \
      -o "$T/work/$name.log" "$@" "$jobs/slurm/$script" >"$T/work/$name.id" 2>"$T/work/$name.err"
    echo $? >"$T/work/$name.rc"
  ) &
  eval "bg_$(echo "$name" | tr -c 'a-zA-Z0-9\n' _)=$!"
}
# job_rc JID RC ERRFILE: the job's exit status. sbatch --wait's own (RC), unless its poll came
# after the controller had purged the finished job (MinJobAge, short here for fast polls on a
# busy machine): then it says "no longer found" and exits 0, whatever the job did. The exit
# code then comes from the controller's completion log (the highest of an array's tasks): its
# ExitCode=STATUS:SIGNAL, 128 + SIGNAL for a script killed by a signal (STATUS 0), and 1 for a
# job SLURM ended otherwise (JobState TIMEOUT, NODE_FAIL, ... with ExitCode=0:0), as sbatch
# --wait says of those.
job_rc() {
  grep -q 'no longer found' "$3" 2>/dev/null || { echo "$2"; return; }
  local i codes
  for i in $(seq 100); do
    codes=$(job_record "$1" | awk '{ v = ""; ok = 0
      for (f = 1; f <= NF; f++) {
        if ($f ~ /^ExitCode=/) { split(substr($f, 10), c, ":"); v = c[1] != 0 ? c[1] : c[2] != 0 ? 128 + c[2] : 0 }
        if ($f == "JobState=COMPLETED") ok = 1
      }
      if (v != "") print (v == 0 && !ok) ? 1 : v }' | sort -n | tail -1)
    [ -n "$codes" ] && break
    sleep 0.1
  done
  echo "sbatch lost job $1; its exit code from the completion log: ${codes:-none}" >&2
  echo "${codes:-lost}"
}
# collect NAME: wait for a submitted job; sets jid, rc and log (the job's output), shows the log.
collect() {
  local name=$1 v
  v=bg_$(echo "$name" | tr -c 'a-zA-Z0-9\n' _)
  wait "${!v}"
  log=$T/work/$name.log
  rc=$(cat "$T/work/$name.rc" 2>/dev/null)
  jid=$(head -1 "$T/work/$name.id" 2>/dev/null | cut -d';' -f1)
  cat "$T/work/$name.err" 2>/dev/null
  [ "$rc" = 124 ] && fail "$name: sbatch --wait still waiting after 300 s"
  [ -n "$jid" ] || fail "$name: sbatch gave no job id (exit status $rc)"
  rc=$(job_rc "$jid" "$rc" "$T/work/$name.err")
  echo "== $name: job $jid, exit status $rc (at ${SECONDS}s)"
  cat "$log"
}
# check_reduce NAME RANKS NODES LAUNCHER: the run's own output, CSV and binding.
check_reduce() {
  local name=$1 np=$2 nn=$3 how=$4 d=$T/results/$1-$jid
  [ "$rc" = 0 ] || fail "$name: exit status $rc"
  grep -q "launch ($how)" "$log" || fail "$name: not launched with $how"
  grep -q '^# verification: OK' "$d/reduce.out" || fail "$name: not verified"
  grep -q "^# job: $np rank(s) on $nn node(s), job $jid" "$d/reduce.out" ||
    fail "$name: want '$np rank(s) on $nn node(s), job $jid'"
  # Node-local ranks from MPI_Comm_split_type: 0..L-1 on every node, L = ranks per node.
  local per=$((np / nn)) want got
  want=$(for r in $(seq 0 $((np - 1))); do echo "local rank $((r % per))/$per"; done)
  got=$(sed -n 's/^# rank [0-9]*: host [^,]*, \(local rank [0-9]*\/[0-9]*\),.*/\1/p' "$d/reduce.out")
  [ "$got" = "$want" ] || fail "$name: node-local ranks '$got', want '$want'"
  awk -F, -v np="$np" -v j="$jid" 'NR > 1 && $6 == -1 { n++; if ($8 != np || $3 != j) bad++ }
    END { exit !(n >= 1 && !bad) }' "$d/results.csv" || fail "$name: CSV job rows (ranks $np, job $jid)"
  [ -s "$d/reduce.json" ] && [ -s "$d/reduce.env" ] || fail "$name: reduce.json/reduce.env missing"
  echo "ok: $name: $np ranks on $nn node(s) by $how"
}

# ---- the jobs, all submitted at once ----
submit r1-srun reduce_1node.sbatch GPUSIM_ARGS="$small_reduce" GPUSIM_LAUNCHER=srun -- $small
submit r1-mpirun reduce_1node.sbatch GPUSIM_ARGS="$small_reduce" GPUSIM_LAUNCHER=mpirun -- $small
if [ $nodes2 = yes ]; then
  # Shared memory between ranks is per node, and these two nodes share one host, where the
  # ranks of n1 and n2 would collide on the same segment names: TCP only here.
  submit rm-mpirun reduce_multinode.sbatch GPUSIM_ARGS="$small_reduce" GPUSIM_LAUNCHER=mpirun \
    GPUSIM_MPIRUN_ARGS="--mca btl self,tcp" -- $small
fi
submit rm-srun reduce_multinode.sbatch GPUSIM_ARGS="$small_reduce" GPUSIM_LAUNCHER=srun -- $small --nodes=1
# A bad option is gpusim's exit status 2, passed on as the job's.
submit r1-bad reduce_1node.sbatch GPUSIM_ARGS="--n 0" -- $small
if "$GPUSIM" nbody --help >/dev/null 2>&1; then
  have_nbody=yes
  submit nb1 nbody_1node.sbatch NBODY_N=256 NBODY_STEPS=2 -- $small
  [ $nodes2 = yes ] && submit nbm-mpirun nbody_multinode.sbatch NBODY_N=256 NBODY_STEPS=2 \
    GPUSIM_LAUNCHER=mpirun GPUSIM_MPIRUN_ARGS="--mca btl self,tcp" -- $small
else
  have_nbody=no
  submit nb1 nbody_1node.sbatch -- $small
fi
submit sw sweep_array.sbatch GPUSIM_ARGS="--iters 2 --warmup 1" GPUSIM_SWEEP_VALUES="1e4 2e4 3e4" -- \
  --array=0-2 --open-mode=append --ntasks-per-node=1 --gpus-per-node=1 --cpus-per-task=1 --time=00:05:00
# GPUSIM_MPIRUN_ARGS: a one-word value that starts with "--" reaches sweep.py intact (issue 17, item 2)
submit sc scaling.sbatch GPUSIM_JOBS="$jobs" GPUSIM_REPEATS=1 GPUSIM_ARGS="--iters 2 --warmup 1" GPUSIM_MPIRUN_ARGS=--oversubscribe \
  GPUSIM_SWEEP_ARGS="--gpus 1,2 --strong-size 2e4 --weak-size 1e4" -- $small --nodes=1

collect r1-srun
check_reduce r1-srun 2 1 srun
collect r1-mpirun
check_reduce r1-mpirun 2 1 mpirun
if [ $nodes2 = yes ]; then
  collect rm-mpirun
  check_reduce rm-mpirun 4 2 mpirun
fi
# srun --mpi=pmix over the two slurmd of this one host cannot work (their PMIx servers find each
# other by socket path), so the multi-node script runs on one node with srun.
collect rm-srun
check_reduce rm-srun 2 1 srun

collect r1-bad
[ "$rc" = 2 ] || fail "bad input: job exit status $rc, want 2"
echo "ok: bad input gives exit status 2"

collect nb1
if [ $have_nbody = yes ]; then
  [ "$rc" = 0 ] || fail "nbody: exit status $rc"
  grep -q '^# verification: OK' "$T/results/nb1-$jid/nbody.out" || fail "nbody: not verified"
  grep -q "launch (srun): .* nbody .* --n 256 --steps 2" "$log" || fail "nbody: NBODY_N/NBODY_STEPS not passed on"
  grep -q "^# job: 2 rank(s) on 1 node(s), job $jid" "$T/results/nb1-$jid/nbody.out" || fail "nbody: want 2 ranks"
  echo "ok: nbody_1node: 2 ranks by srun"
  if [ $nodes2 = yes ]; then
    collect nbm-mpirun
    [ "$rc" = 0 ] || fail "nbody multinode: exit status $rc"
    grep -q '^# verification: OK' "$T/results/nbm-mpirun-$jid/nbody.out" || fail "nbody multinode: not verified"
    grep -q "^# job: 4 rank(s) on 2 node(s), job $jid" "$T/results/nbm-mpirun-$jid/nbody.out" ||
      fail "nbody multinode: want 4 ranks on 2 nodes"
    echo "ok: nbody_multinode: 4 ranks on 2 nodes by mpirun"
  fi
else
  [ "$rc" = 77 ] || fail "nbody without gpusim nbody: exit status $rc, want 77"
  grep -q 'gpusim nbody is not in this build' "$log" || fail "nbody: no clear message"
  echo "ok: nbody_1node says gpusim has no nbody yet (77)"
fi

collect sw
[ "$rc" = 0 ] || fail "array: exit status $rc"
d=$T/results/sw-$jid
sizes=$(awk -F, 'NR > 1 && $6 == -1 {print $12}' "$d/results.csv" | sort -n | tr '\n' ' ')
[ "$sizes" = "10000 20000 30000 " ] || fail "array: problem sizes '$sizes' in the shared CSV"
[ "$(grep -c '^schema_version,' "$d/results.csv")" = 1 ] || fail "array: CSV header not once"
ls "$d"/task0.out "$d"/task1.out "$d"/task2.out >/dev/null || fail "array: task outputs"
echo "ok: array of 3 tasks, one CSV"

collect sc
[ "$rc" = 0 ] || fail "scaling: exit status $rc"
for k in strong weak; do
  n=$(awk -F, -v j="$jid" 'NR > 1 && $6 == -1 && $3 == j' "$T/results/sc-$jid/reduce-$k.csv" | wc -l)
  [ "$n" = 2 ] || fail "scaling: $n job rows in reduce-$k.csv, want 2 (1 and 2 ranks)"
done
grep -q '^\[4/4\] reduce weak P=2 repeat 1: ok' "$log" || fail "scaling: sweep.py progress lines"
echo "ok: scaling.sbatch ran sweep.py with srun"

# ---- USR1: what --signal=B:USR1@120 delivers, sent here with scancel --batch ----
# A stand-in gpusim (gs_fake_gpusim) waits for the test to say go, noting any USR1.
gs_fake_gpusim "$T/fake-gpusim"
usr1_submit() { # usr1_submit NAME LAUNCHER FORWARD
  mkdir -p "$T/work/$1.d"
  submit "$1" reduce_1node.sbatch GPUSIM="$T/fake-gpusim" GS_FAKE_DIR="$T/work/$1.d" \
    GPUSIM_ARGS="$small_reduce" GPUSIM_LAUNCHER="$2" GPUSIM_FORWARD_USR1="$3" -- $small
}
usr1_signal() { # usr1_signal NAME FORWARD: once both ranks run, USR1 to the batch shell; then go
  local d=$T/work/$1.d i
  for i in $(seq 1800); do
    [ -e "$d/started.0" ] && [ -e "$d/started.1" ] && break
    sleep 0.1
  done
  if [ -e "$d/started.0" ] && [ -e "$d/started.1" ]; then
    scancel --batch --signal=USR1 "$(head -1 "$T/work/$1.id" | cut -d';' -f1)" || echo "$1: scancel failed"
    # Go only once the signal has done what it will do, before the real gpusim replaces the
    # stand-in (to which an unhandled USR1 would be fatal).
    for i in $(seq 600); do
      if [ "$2" = yes ]; then
        [ -e "$d/usr1.0" ] && [ -e "$d/usr1.1" ] && break
      else
        grep -q 'USR1: time limit near' "$T/work/$1.log" 2>/dev/null && break
      fi
      sleep 0.1
    done
    [ "$2" = yes ] || sleep 0.5 # a USR1 wrongly forwarded would have arrived by now
  fi
  touch "$d/go"
}
usr1_check() { # usr1_check NAME LAUNCHER FORWARD
  local name=$1 d=$T/work/$1.d
  collect "$name"
  [ -e "$d/started.1" ] || fail "$name: the ranks did not start"
  [ "$rc" = 0 ] || fail "$name: exit status $rc after USR1"
  if [ "$3" = yes ]; then
    grep -q 'USR1: forwarded to the job step' "$log" || fail "$name: no 'forwarded' line"
    [ -e "$d/usr1.0" ] && [ -e "$d/usr1.1" ] || fail "$name: USR1 did not reach both ranks"
    echo "ok: $name: USR1 forwarded through $2 to both ranks"
  else
    grep -q 'USR1: time limit near; not forwarded' "$log" || fail "$name: no 'not forwarded' line"
    ls "$d"/usr1.* >/dev/null 2>&1 && fail "$name: USR1 reached a rank"
    echo "ok: $name: USR1 logged, not forwarded, and the job went on to exit 0"
  fi
}
usr1_submit usr1-auto srun auto
usr1_submit usr1-srun srun yes
usr1_submit usr1-mpirun mpirun yes
usr1_signal usr1-auto auto
usr1_signal usr1-srun yes
usr1_signal usr1-mpirun yes
usr1_check usr1-auto srun auto
usr1_check usr1-srun srun yes
usr1_check usr1-mpirun mpirun yes

# ---- checkpoint/restart: a job stopped before its time limit resumes where it stopped ----
# SLURM's --signal=B:USR1@120 sends USR1 to the batch shell 120 s before the time limit; waiting
# for a real time limit would take minutes (--time is in whole minutes), too slow for a test, so
# the signal is sent here exactly as SLURM sends it: scancel --signal=USR1 --batch. The script's
# trap forwards it (GPUSIM_FORWARD_USR1=auto: gpusim nbody's --help mentions USR1), gpusim
# checkpoints after the current step and exits 0. Then the documented resume command (the same
# variables plus NBODY_RESTART=DIR, NBODY_STEPS = the step to end at) runs to S+5, and so does an
# uninterrupted job; both must end in the same state. Each launcher on a node of its own.
help=
[ $have_nbody = yes ] && { help=$("$GPUSIM" nbody --help 2>&1) || gs_fail "gpusim nbody --help: exit status $?"; }
if case $help in *--restart*) true ;; *) false ;; esac; then
  ck_vars=(NBODY_N=500 NBODY_KERNEL=omp GPUSIM_ARGS="--iters 1 --energy-every 5 --progress lines")
  ck_launchers="srun mpirun"
  declare -A ck_S ck_dir # per launcher: the step it stopped at, its checkpoint directory
  [ $nodes2 = yes ] || ck_launchers=srun # one node: run one chain, not two queued one after another
  for L in $ck_launchers; do
    submit ck-$L nbody_1node.sbatch "${ck_vars[@]}" NBODY_STEPS=100000000 GPUSIM_LAUNCHER=$L -- $small
  done
  for L in $ck_launchers; do # once it is stepping (step 50 in its table), the time-limit warning
    ok=no
    for i in $(seq 1800); do
      jid=$(head -1 "$T/work/ck-$L.id" 2>/dev/null | cut -d';' -f1)
      if [ -n "$jid" ] && awk '$1 ~ /^[0-9]+$/ && $1 >= 50 {f = 1} END {exit !f}' \
        "$T/results/ck-$L-$jid/nbody.out" 2>/dev/null; then
        ok=yes
        break
      fi
      sleep 0.1
    done
    [ $ok = yes ] || fail "ck-$L: not stepping after 180 s"
    scancel --signal=USR1 --batch "$jid" || fail "ck-$L: scancel --signal=USR1 --batch $jid"
  done
  for L in $ck_launchers; do
    collect ck-$L
    out=$T/results/ck-$L-$jid/nbody.out
    [ "$rc" = 0 ] || fail "ck-$L: exit status $rc after USR1, want 0"
    grep -q 'USR1: forwarded to the job step' "$log" || fail "ck-$L: USR1 not forwarded"
    stop=$(grep '^# stopped after step [0-9]* of 100000000 (SIGUSR1): resume with the same options plus --restart ' "$out")
    [ -n "$stop" ] || fail "ck-$L: no stop line"
    S=$(echo "$stop" | sed 's/^# stopped after step \([0-9]*\) .*/\1/')
    dir=${stop##* --restart }
    [ "$dir" = "$T/results/ck-$L-$jid/nbody-out" ] || fail "ck-$L: checkpoint in '$dir', want the job's nbody-out"
    [ -s "$dir/checkpoint.json" ] && [ -s "$dir/$(printf 'checkpoint_%09d.gsck' "$S")" ] ||
      fail "ck-$L: no checkpoint of step $S in $dir: $(ls "$dir" 2>&1)"
    grep -q "^# final state: step $S, " "$out" || fail "ck-$L: final state not at step $S"
    echo "ok: ck-$L: stopped by USR1 at step $S ($L), checkpoint in the job's directory, exit 0"
    ck_S[$L]=$S ck_dir[$L]=$dir
  done
  for L in $ck_launchers; do
    S=${ck_S[$L]}
    # The documented resume: the same variables plus NBODY_RESTART=DIR, NBODY_STEPS the end step.
    submit ck-$L-resume nbody_1node.sbatch "${ck_vars[@]}" NBODY_STEPS=$((S + 5)) GPUSIM_LAUNCHER=$L \
      NBODY_RESTART="${ck_dir[$L]}" -- $small
    submit ck-$L-whole nbody_1node.sbatch "${ck_vars[@]}" NBODY_STEPS=$((S + 5)) GPUSIM_LAUNCHER=$L -- $small
  done
  for L in $ck_launchers; do
    S=${ck_S[$L]}
    E=$((S + 5))
    collect ck-$L-resume
    out=$T/results/ck-$L-resume-$jid/nbody.out
    [ "$rc" = 0 ] || fail "ck-$L-resume: exit status $rc"
    grep -q "^# restart: from ${ck_dir[$L]} at step $S " "$out" || fail "ck-$L-resume: not resumed at step $S"
    h1=$(sed -n "s/^# final state: step $E, .* FNV-1a 64 = \([0-9a-f]*\)\$/\1/p" "$out")
    [ -n "$h1" ] || fail "ck-$L-resume: no final state at step $E"
    grep -q '^# job: 2 rank(s) on 1 node(s)' "$out" || fail "ck-$L-resume: want 2 ranks"
    collect ck-$L-whole
    out=$T/results/ck-$L-whole-$jid/nbody.out
    [ "$rc" = 0 ] || fail "ck-$L-whole: exit status $rc"
    h2=$(sed -n "s/^# final state: step $E, .* FNV-1a 64 = \([0-9a-f]*\)\$/\1/p" "$out")
    [ -n "$h2" ] || fail "ck-$L-whole: no final state at step $E"
    grep -q '^# job: 2 rank(s) on 1 node(s)' "$out" || fail "ck-$L-whole: want 2 ranks"
    [ "$h1" = "$h2" ] || fail "ck-$L: resumed run ends in state $h1, uninterrupted run in $h2 (step $E)"
    echo "ok: ck-$L: resumed from step $S to $E ($L) = uninterrupted $E steps: FNV-1a $h1"
  done
fi

# ---- every documented sbatch example (docs/cluster.md, the scripts' headers), as written ----
# Each in a submit directory of its own (./gpusim: the test-size stand-in), through a test-scale
# sbatch: the real sbatch with --wait, and the resources scaled to this cluster: 2 tasks of 1 CPU
# and 2 GPUs per node (a GPU count of 0, the GPU-less recipe, is kept), 1 node with srun (two
# slurmd of one host cannot run a multi-node PMIx step) and at most 2 with mpirun, arrays of at
# most 3 tasks, 5 minutes. Partitions gpu (n1, n2) and cpu (n3, no GPUs) are this cluster's.
# All of them are submitted at once and run two at a time (each takes a whole node of n1 and n2;
# the GPU-less one n3): the last waits for the queue, which took 2 minutes here beside three busy
# loops, and longer on a busy CI machine. So each one's cap (from its submission, and ending when
# it does) is 20 minutes, not the 5 that a lone example gets.
export GS_EXAMPLE_CAP=1200
real_sbatch=$(command -v sbatch)
mkdir -p "$T/exbin"
cat >"$T/exbin/sbatch" <<EOF
#!/bin/bash
args=(--wait --parsable --time=00:05:00)
have=" "
nodes_max=\$([ "\${GPUSIM_LAUNCHER:-srun}" = mpirun ] && [ $nodes2 = yes ] && echo 2 || echo 1)
for a in "\$@"; do
  case \$a in
    --nodes=*) a=--nodes=\$(( \${a#*=} < nodes_max ? \${a#*=} : nodes_max )) ;;
    --ntasks-per-node=*) a=--ntasks-per-node=2 ;;
    --cpus-per-task=*) a=--cpus-per-task=1 ;;
    --gpus-per-node=0) ;;
    --gpus-per-node=*) a=--gpus-per-node=2 ;;
    --array=*) r=\${a#*=}; r=\${r%%%*}; a=--array=\${r%-*}-\$(( \${r#*-} < \${r%-*} + 2 ? \${r#*-} : \${r%-*} + 2 )) ;;
    --time=*) continue ;;
  esac
  have="\$have\${a%%=*} "
  args+=("\$a")
done
script=\${args[\${#args[@]}-1]}
unset 'args[\${#args[@]}-1]'
n=\$(sed -n 's/^#SBATCH --nodes=//p' "\$script")
for d in --nodes=\$(( n < nodes_max ? n : nodes_max )) --ntasks-per-node=2 --cpus-per-task=1 --gpus-per-node=2; do
  case \$have in *" \${d%%=*} "*) ;; *) args+=("\$d") ;; esac
done
case \$have in *" --array "*) ;; *) grep -q '^#SBATCH --array=' "\$script" && args+=(--array=0-2) ;; esac
echo "test-scale sbatch: \${args[*]} \$script" >&2
exec timeout $GS_EXAMPLE_CAP "$real_sbatch" "\${args[@]}" "\$script"
EOF
chmod +x "$T/exbin/sbatch"
gs_examples_distinct | awk -F'\t' '$2 == "sbatch"' >"$T/ex.list"
[ -s "$T/ex.list" ] || fail "no sbatch examples"
# example_start DIR CMD: run the example CMD in the submit directory DIR, in the background
# (DIR.out its output, DIR.rc its exit status); bg_NAME (NAME: DIR's name) its process.
example_start() {
  gs_example_workdir "$1"
  (
    unset GPUSIM GPUSIM_RESULTS GPUSIM_BACKEND GPUSIM_ARGS GPUSIM_LAUNCHER GPUSIM_MPIRUN_ARGS
    export OMPI_MCA_btl=self,tcp # two nodes of one host: no shared-memory transport between them
    PATH="$T/exbin:$PATH" gs_example_run "$1" "$2" >"$1.out" 2>&1
    echo $? >"$1.rc"
  ) &
  eval "bg_$(basename "$1")=\$!"
}
# example_check DIR CMD: wait for the example started in DIR and show its output and job log;
# 0 if it passed, else 1 and why (the job's id in jid, its logs in logs, where known).
example_check() {
  local d=$1 cmd=$2 v rc
  v=bg_$(basename "$d")
  wait "${!v}"
  why= jid= logs=
  rc=$(cat "$d.rc")
  jid=$(grep -E '^[0-9]+(;.*)?$' "$d.out" | head -1 | cut -d';' -f1)
  cat "$d.out"
  [ -n "$jid" ] || { why="no job id"; return 1; }
  rc=$(job_rc "$jid" "$rc" "$d.out")
  # The job's log: <job name>-<job id>.out in the submit directory (an array's: name-id_task.out)
  logs=$(ls "$d"/*-"$jid".out "$d"/*-"$jid"_*.out 2>/dev/null)
  [ -n "$logs" ] || { why="no log $d/<job name>-$jid.out: $(ls "$d")"; return 1; }
  cat $logs
  [ "$rc" = 0 ] || { why="exit status $rc"; return 1; }
  case $cmd in
    *scaling.sbatch*) grep -q '^# sweep: [0-9]* run(s), 0 failed' $logs || { why="the sweep"; return 1; } ;;
    *) [ "$(cat $logs | grep -c '^# verification: OK')" = "$(echo $logs | wc -w)" ] || { why="not verified"; return 1; } ;;
  esac
  case $cmd in *NBODY_RESTART=*) grep -q '^# restart: from .* at step 2 ' $logs || { why="not resumed"; return 1; } ;; esac
  case $cmd in
    *sweep_array.sbatch*) [ "$(tail -n +2 "$d"/results/*-"$jid"/array-tasks.csv | cut -d, -f1 | sort -u)" = "$jid" ] &&
      [ "$(tail -n +2 "$d"/results/*-"$jid"/array-tasks.csv | wc -l)" = "$(echo $logs | wc -w)" ] ||
      { why="array-tasks.csv: $(cat "$d"/results/*-"$jid"/array-tasks.csv)"; return 1; } ;;
  esac
  return 0
}
i=0
while IFS="$(printf '\t')" read -r where kind cmd; do
  i=$((i + 1))
  example_start "$T/ex$i" "$cmd"
done <"$T/ex.list"
i=0
while IFS="$(printf '\t')" read -r where kind cmd; do
  i=$((i + 1))
  echo "== $where: $cmd"
  if ! example_check "$T/ex$i" "$cmd"; then
    # A job that SLURM itself ended: its 5-minute limit (these jobs take seconds: something hung,
    # the script, gpusim or a step launch on this stand-in cluster of one host, and the job's
    # log above says how far it got) or a node SLURM gave up on. Once more, alone; the first
    # one's log and record stay above, and a second such end fails.
    rec=$([ -n "$jid" ] && job_record "$jid")
    case $rec in
      *JobState=TIMEOUT* | *JobState=NODE_FAIL*)
        echo "$rec"
        echo "note: $where: SLURM ended job $jid (above), not the script: once more"
        example_start "$T/ex${i}_again" "$cmd"
        example_check "$T/ex${i}_again" "$cmd" ;;
      *) false ;;
    esac || fail "$where: $why"
  fi
  echo "ok: $where (job $jid, at ${SECONDS}s)"
done <"$T/ex.list"
echo "ok: $i sbatch examples"
echo "PASS"
