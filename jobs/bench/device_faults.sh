#!/bin/bash
# device_faults.sh: on a GPU machine, after jobs/bench/device_check.sh has built gpusim, the
# GPU-side checks of the fault handling that the CPU suite cannot make:
#   1. a stop signal during a long GPU run: mpirun's SIGTERM, the ranks abandon the step in
#      progress and checkpoint the last whole one within mpirun's SIGKILL delay (1 s), and a
#      resume to S+3 steps ends with the hash of an uninterrupted S+3-step run;
#   2. sizes a GPU cannot hold are one error line and exit 2, not a crash;
#   3. with no GPU visible, the GPU tests fail under GPUSIM_REQUIRE_GPU=1 and skip with the CUDA
#      runtime's reason without it.
# Logs go to $OUT (or ./device-logs). Usage: jobs/bench/device_faults.sh [N]  (default 2^20)
set -uo pipefail
out=${OUT:-$PWD/device-logs}
mkdir -p "$out"
n=${1:-2^20}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
np=$(nvidia-smi -L | wc -l)
[ "$np" -gt 2 ] && np=2
run="mpirun --allow-run-as-root -np $np ./gpusim nbody --backend cuda --n $n --kernel jsplit --iters 1 --progress lines"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)

# 1. SIGTERM to mpirun during a long run, then resume.
$run --steps 1000000 --output "$tmp/stop" >"$out/stop.log" 2>&1 &
pid=$!
i=0
until grep -q '^# simulation with kernel' "$out/stop.log" || [ $i -gt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 3
kill -TERM $pid
wait $pid
echo "mpirun exit status after SIGTERM: $?"
grep -E '^# (stop|stopped|checkpoint)' "$out/stop.log" || bad "no stop lines after SIGTERM"
s=$(sed -n 's/^# stopped after step \([0-9]*\) of.*/\1/p' "$out/stop.log")
if [ -n "$s" ]; then
  $run --steps $((s + 3)) --restart "$tmp/stop" --output "$tmp/stop" >"$out/resume.log" 2>&1 || bad "resume: exit $?"
  $run --steps $((s + 3)) --output "$tmp/straight" >"$out/straight.log" 2>&1 || bad "uninterrupted run: exit $?"
  a=$(sed -n 's/.*FNV-1a 64 = //p' "$out/resume.log")
  b=$(sed -n 's/.*FNV-1a 64 = //p' "$out/straight.log")
  echo "stopped at step $s; resumed to $((s + 3)): $a; uninterrupted: $b"
  [ -n "$a" ] && [ "$a" = "$b" ] || bad "resumed state $a differs from the uninterrupted $b"
else
  bad "no checkpoint step in the stop line"
fi

# 2. Sizes a GPU cannot hold.
for args in "reduce --backend cuda --n 2^36 --type double" "nbody --backend cuda --n 2^31"; do
  msg=$(./gpusim $args 2>&1 >/dev/null)
  rc=$?
  echo "gpusim $args -> exit $rc: $msg"
  [ $rc = 2 ] && [ "$(echo "$msg" | grep -c '^gpusim: error: ')" = 1 ] || bad "gpusim $args: exit $rc"
done

# 3. No GPU visible.
CUDA_VISIBLE_DEVICES= ./tests/gs_gpu_count
echo "gs_gpu_count with no GPU visible: exit $?"
CUDA_VISIBLE_DEVICES= ./gpusim info --backend cuda
echo "gpusim info --backend cuda with no GPU visible: exit $?"
CUDA_VISIBLE_DEVICES= GPUSIM_REQUIRE_GPU=1 make check TESTS=tests/gpu/reduce_gpu.sh >"$out/require.log" 2>&1 &&
  bad "GPUSIM_REQUIRE_GPU=1 with no GPU visible: reduce_gpu.sh passed"
grep -E '^(PASS|FAIL|SKIP)' "$out/require.log"
CUDA_VISIBLE_DEVICES= make check TESTS=tests/gpu/reduce_gpu.sh >"$out/skip.log" 2>&1 || bad "no GPU visible: reduce_gpu.sh did not skip"
grep -E '^(PASS|FAIL|SKIP)' "$out/skip.log"
grep -h 'SKIP:' tests/gpu/reduce_gpu.log
rm -rf "$tmp"
[ $fail = 0 ] && echo "device_faults: all checks passed"
exit $fail
