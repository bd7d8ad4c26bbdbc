#!/bin/sh
# gpusim reduce on the GPU: every kernel, type and op verified, on every GPU of the machine (up
# to 4 ranks), with --source host too. Skips without a GPU. (The kernels themselves, at odd and
# > 2^31 sizes, are tested by test_gpu_reduce.)
. "$GS_TEST_LIB"
np=$(gs_gpu_ranks) || exit $?
common="--backend cuda --iters 3 --warmup 1"
for t in int float double; do
  for op in sum min max; do
    out=$(gs_mpirun $np reduce $common --n 1000003 --type $t --op $op) || { rc=$?; echo "$out"; gs_fail "$t $op: exit $rc"; }
    gs_verified "$out" "$t $op" 10
    echo "ok: $t $op on $np GPU(s)"
  done
done
out=$(gs_mpirun $np reduce $common --source host --n 2^24 --chunk 2^20) || gs_fail "--source host: exit $?"
echo "$out"
gs_verified "$out" "--source host"
echo "PASS"
