#!/bin/sh
# On the GPU: N steps + checkpoint + restart + N steps ends in exactly the state of 2N steps,
# in both precisions, with the overlapped exchange on every GPU of the machine (up to 4 ranks);
# and a snapshot is written. Skips without a GPU.
. "$GS_TEST_LIB"
np=$(gs_gpu_ranks) || exit $?
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cuda --n 20000 --iters 1 --kernel jsplit --energy-every 5"
# run NAME ARGS...: gpusim on $np ranks; its output, or the test fails on a non-zero exit status
# (a pipe into gs_hash_of would hide the status of a run that printed FAILED).
run() {
  what=$1
  shift
  out=$(gs_mpirun $np nbody "$@")
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$what: exit $rc"; }
  gs_verified "$out" "$what"
}
for prec in single double; do
  run "$prec: 20 steps" $common --precision $prec --steps 20
  whole=$(echo "$out" | gs_hash_of)
  run "$prec: first half" $common --precision $prec --steps 10 --checkpoint-every 10 --snapshot-every 10 --output "$tmp/$prec"
  run "$prec: restart" $common --steps 20 --restart "$tmp/$prec"
  resumed=$(echo "$out" | gs_hash_of)
  [ -n "$whole" ] && [ "$whole" = "$resumed" ] || gs_fail "$prec: 20 steps give '$whole', 10 + restart + 10 give '$resumed'"
  ls "$tmp/$prec" | grep -q '^snapshot_001' || { ls -l "$tmp/$prec"; gs_fail "$prec: no snapshot"; }
  echo "ok: $prec on $np GPU(s): 10 + restart + 10 steps = 20 steps, state $whole"
done
echo "PASS"
