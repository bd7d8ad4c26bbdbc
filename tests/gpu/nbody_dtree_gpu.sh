#!/bin/sh
# --solver tree --tree-layout domains on the CUDA backend (the default layout there): the final
# state bitwise the same on 1, 2 and 4 ranks (sharing the GPUs with --gpu-share where there are
# fewer, as a one-GPU machine runs it), for a Plummer sphere, a clump with coincident bodies and a
# collapse whose bodies change ranks; both precisions, the relative test and the cutoff law; every
# run verified against the double direct sum, a planted wrong force FAILS; checkpoint on 4 ranks,
# restart on 2 and 1 (bitwise) and in the replicated layout (verified); the run's lines (method,
# the step's parts, LET bytes, memory). Skips without a GPU.
. "$GS_TEST_LIB"
ngpu=$(gs_gpu_ranks) || exit $?
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cuda --solver tree --iters 1 --progress off"
migrated() { sed -n 's/^# per step .* \([0-9]*\) bodies migrated over the run;.*/\1/p'; }
share() { [ "$1" -gt "$ngpu" ] && echo --gpu-share; }

# run NP ARGS...: a verified run on NP ranks, checked at the start and the end; output in $out.
run() {
  np=$1
  shift
  out=$(gs_mpirun "$np" nbody $common $(share "$np") "$@" 2>&1)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$* on $np rank(s): exit $rc"; }
  gs_verified "$out" "$* on $np rank(s)"
  [ "$(echo "$out" | grep -c '^# tree check (.*: OK$')" = 2 ] || { echo "$out"; gs_fail "$* on $np: checks not OK"; }
}

# same NPS ARGS...: one final state on every rank count of NPS; more than 1 rank: LET bytes sent.
same() {
  nps=$1
  shift
  first=""
  for np in $nps; do
    run "$np" "$@"
    h=$(echo "$out" | gs_hash_of)
    [ -n "$h" ] || { echo "$out"; gs_fail "$* on $np rank(s): no final state"; }
    [ -z "$first" ] && first=$h
    [ "$h" = "$first" ] || { echo "$out"; gs_fail "$*: $np ranks end in $h, the first run in $first"; }
    if [ "$np" -gt 1 ]; then
      echo "$out" | grep -E '^# per step .*LET exchange [0-9.]+ ms \([1-9][0-9.e+]* bytes sent by the busiest rank\)' \
        >/dev/null || { echo "$out"; gs_fail "$* on $np ranks: no LET bytes"; }
    fi
  done
}

awk 'BEGIN { srand(7); for (i = 0; i < 6000; i++) { r = i < 3000 ? 0.02 : 1; do { x = 2 * rand() - 1; y = 2 * rand() - 1
  z = 2 * rand() - 1 } while (x * x + y * y + z * z > 1); if (i % 20 == 3) { x = 0.5; y = 0; z = 0 }
  printf "%.7f %.7f %.7f 0 0 0 %.6f\n", 0.3 + r * x, r * y, r * z, 1 / 6000 } }' >"$tmp/clump.txt"

same "1 2 4" --n 20000 --steps 3 --tree-cell 512
echo "ok: Plummer 20000: the same state $first on 1, 2 and 4 ranks"
out1=$out
for want in '^# tree layout: domains' '^# tree method: CUDA: ' \
  '^# per step \(median of 3, slowest rank\): total [0-9.]+ ms, domain update [0-9.]+ ms, build [0-9.]+ ms, LET exchange' \
  '^# memory per rank \(the largest\): [0-9.e+-]+ GB .*, [0-9]+ bytes a body over the ranks; the device'; do
  echo "$out1" | grep -E "$want" >/dev/null || { echo "$out1"; gs_fail "no line matching '$want'"; }
done
same "1 4" --precision double --n 20000 --steps 2 --tree-cell 512
echo "ok: double: the same state $first on 1 and 4 ranks"
same "1 2 4" --ic "$tmp/clump.txt" --steps 2 --tree-cell 256 --precision double
echo "ok: a clump with 300 coincident bodies: the same state $first on 1, 2 and 4 ranks"
same "1 4" --n 20000 --steps 3 --opening relative --alpha 0.002 --tree-cell 512
echo "ok: relative opening: the same state $first on 1 and 4 ranks"
same "1 4" --ic disk --n 20000 --steps 2 --tree-cell 512
echo "ok: disk, cutoff law: the same state $first on 1 and 4 ranks"
same "1 4" --ic uniform --n 8192 --steps 6 --dt 0.05 --tree-cell 128
n=$(echo "$out" | migrated)
[ -n "$n" ] && [ "$n" -gt 0 ] || { echo "$out"; gs_fail "the collapse migrated '$n' bodies on 4 ranks, want some"; }
echo "ok: a collapse migrating $n bodies on 4 ranks ends in the 1-rank state $first"

# The default tree layout on CUDA is the domains'; the replicated one stays, verified.
out=$(gs_mpirun 1 nbody --backend cuda --solver tree --tree-layout replicated --iters 1 --progress off --n 20000 \
  --steps 2 2>&1) || { rc=$?; echo "$out"; gs_fail "replicated layout: exit $rc"; }
gs_verified "$out" "replicated layout"
echo "$out" | grep '^# solver: tree .*every rank builds the whole tree' >/dev/null || { echo "$out"; gs_fail "not replicated"; }
echo "ok: --tree-layout replicated on CUDA, verified"

# A planted fault (the walk's G negated): FAILED, exit 1.
out=$(GPUSIM_TEST_CORRUPT_RESULT=1 gs_mpirun 2 nbody $common $(share 2) --n 8192 --steps 1 2>&1)
rc=$?
[ $rc = 1 ] && echo "$out" | grep '^# verification: FAILED' >/dev/null || { echo "$out"; gs_fail "forces reversed: exit $rc"; }
echo "ok: forces reversed: FAILED (exit 1)"

# Checkpoint on 4 ranks at step 4, restart on 2 and 1: the uninterrupted run's state.
ck="--n 20000 --tree-cell 512 --opening relative --alpha 0.002 --energy-every 2"
run 4 $ck --steps 8
whole=$(echo "$out" | gs_hash_of)
[ -n "$whole" ] || { echo "$out"; gs_fail "8 steps on 4 rank(s): no final state"; }
run 4 $ck --steps 4 --checkpoint-every 4 --output "$tmp/ck"
for np in 2 1; do
  cp -r "$tmp/ck" "$tmp/ck$np"
  run $np --steps 8 --restart "$tmp/ck$np" --output "$tmp/ck$np"
  [ "$(echo "$out" | gs_hash_of)" = "$whole" ] || gs_fail "restart on $np rank(s): $(echo "$out" | gs_hash_of), want $whole"
done
echo "ok: checkpoint on 4 ranks, restart on 2 and 1 rank(s): the state $whole of 8 steps"
echo "PASS"
