#!/bin/sh
# gpusim info on 1, 2 and 4 ranks with the CPU backend: one line per rank, ranks 0..N-1 in
# order, printed by rank 0 only, and the header saying which backend was chosen.
. "$GS_TEST_LIB"
for np in 1 2 4; do
  out=$(gs_mpirun $np info --backend cpu) || gs_fail "np=$np: exit status $?"
  echo "$out"
  ranks=$(echo "$out" | grep -E '^ +[0-9]+  ' | awk '{printf "%s ", $1}')
  want=$(seq 0 $((np - 1)) | awk '{printf "%s ", $1}')
  [ "$ranks" = "$want" ] || gs_fail "np=$np: rank lines '$ranks', want '$want'"
  echo "$out" | grep -q '^# backend: cpu (--backend cpu)' || gs_fail "np=$np: no backend line"
  echo "$out" | grep -q "^# job: $np rank(s) on 1 node(s)" || gs_fail "np=$np: no job line"
  [ "$(echo "$out" | grep -c '^# gpusim ')" = 1 ] || gs_fail "np=$np: header printed more than once"
done
# auto picks the CPU backend where no rank sees a GPU, and says why.
if [ "$(gs_gpus)" = 0 ]; then
  out=$(gs_mpirun 2 info) || gs_fail "auto: exit status $?"
  echo "$out" | grep -q '^# backend: cpu (auto: ' || gs_fail "auto did not choose and explain the CPU backend"
fi
echo "PASS"
