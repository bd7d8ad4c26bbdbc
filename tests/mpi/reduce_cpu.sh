#!/bin/sh
# gpusim reduce on the CPU backend, 1, 2 and 4 ranks: every run verifies itself against the CPU
# reference, and the global result is the same whatever the rank count (the input sequence is
# defined by global index), which proves the MPI_Allreduce combine with the right type and op.
. "$GS_TEST_LIB"
common="--backend cpu --iters 2 --warmup 1"
for t in int float double; do
  for op in sum min max; do
    ref1=""
    for np in 1 2 4; do
      out=$(gs_mpirun $np reduce $common --total 100003 --type $t --op $op) || { rc=$?; echo "$out"; gs_fail "$t $op np=$np: exit $rc"; }
      gs_verified "$out" "$t $op np=$np"
      ref=$(echo "$out" | sed -n 's/^# reference: .* = \([^ ]*\) .*/\1/p')
      [ -n "$ref" ] || gs_fail "$t $op np=$np: no reference line"
      [ -z "$ref1" ] && ref1=$ref
      [ "$ref" = "$ref1" ] || gs_fail "$t $op: np=$np gives $ref, np=1 gave $ref1"
      echo "ok: $t $op np=$np = $ref"
    done
  done
done
# Tiny and odd sizes per rank.
for n in 1 31 33 1000; do
  out=$(gs_mpirun 2 reduce $common --n $n) || gs_fail "n=$n: exit $?"
  gs_verified "$out" "n=$n"
done
# The streamed host path (chunks over queues) and its contrasts, on 2 ranks: the table's rows
# (copies alone, serial pinned and pageable, the pipeline) and a result row for each.
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
out=$(gs_mpirun 2 reduce $common --source host --n 100000 --chunk 4096 --streams 3 --type float --csv "$csv")
echo "$out"
gs_verified "$out" "--source host"
[ "$(echo "$out" | grep -c 'pipeline: chunks over streams.*OK$')" = 1 ] || gs_fail "--source host: no pipeline row"
for want in '^kernel +path +ms +GB/s/GPU +agg_GB/s +%pinned +overlap  check$' \
  '^- +copy only: pinned host -> device +[0-9.]+ +[0-9.]+ +[0-9.]+ +100\.0 +-  -$' \
  '^omp +serial, pinned: copy all, then reduce +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +-  OK$' \
  '^omp +serial, pageable: copy all, then reduce +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +-  OK$' \
  '^omp +pipeline: chunks over streams +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%  OK$'; do
  echo "$out" | grep -E "$want" >/dev/null || gs_fail "--source host: no line matching '$want'"
done
[ "$(grep -c ',reduce,[-a-z]*,-1,.*,bandwidth,.*"type=float;op=sum;source=host;path=' "$csv")" = 4 ] &&
  grep 'source=host;path=copy only: pinned host -> device;streams=3;chunk=4096;check=-' "$csv" >/dev/null &&
  [ "$(grep -c 'source=host;path=.*;streams=3;chunk=4096;check=OK' "$csv")" = 3 ] ||
  { cat "$csv"; gs_fail "--source host: want 4 result rows (copies alone, 3 checked paths)"; }
# A wrong result prints FAILED and exits 1 (test hook corrupts the last rank's result).
export GPUSIM_TEST_CORRUPT_RESULT=1
out=$(gs_mpirun 2 reduce $common --n 1000 2>&1)
rc=$?
unset GPUSIM_TEST_CORRUPT_RESULT
echo "$out" | grep -q '^# verification: FAILED' || { echo "$out"; gs_fail "corrupted result not reported"; }
[ $rc = 1 ] || gs_fail "corrupted result: exit status $rc, want 1"
echo "PASS"
