#!/bin/sh
# On a GPU machine: each rank gets its own GPU (distinct PCI bus ids) on up to 4 ranks, and
# more ranks than GPUs is refused unless --gpu-share. Skips without a GPU.
. "$GS_TEST_LIB"
np=$(gs_gpu_ranks) || exit $?
out=$(gs_mpirun $np info --backend cuda) || gs_fail "info on $np ranks: exit $?"
echo "$out"
echo "$out" | grep -q '^# backend: cuda' || gs_fail "not on the CUDA backend"
lines=$(echo "$out" | grep -cE '^ +[0-9]+  ')
[ "$lines" = "$np" ] || gs_fail "$lines rank lines, want $np"
distinct=$(echo "$out" | grep -E '^ +[0-9]+  ' | awk '{print $5}' | sort -u | wc -l)
[ "$distinct" = "$np" ] || gs_fail "$np ranks on only $distinct distinct GPUs"
out=$(gs_mpirun $((np + 1)) info --backend cuda 2>&1)
[ $? = 2 ] || gs_fail "$((np + 1)) ranks on $np GPUs accepted without --gpu-share"
echo "$out" | grep -q 'would share GPU' || gs_fail "no sharing message"
gs_mpirun $((np + 1)) info --backend cuda --gpu-share >/dev/null || gs_fail "--gpu-share refused"
echo "PASS"
