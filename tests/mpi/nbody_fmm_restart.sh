#!/bin/sh
# --solver fmm loses nothing on the CPU backend: 6 steps + checkpoint + restart + 6 steps end in
# exactly the state of 12 steps with the same momentum line (P0 is the checkpoint's), and so does
# the restart on another rank count (the same state), as the header says; a plain --restart takes the checkpoint's
# solver, order and theta; other settings and other solvers (into and out of the fmm) are allowed
# with a note and verified (no momentum verdict after another solver's checkpoint: its steps are in
# the drift); the fmm's options on a checkpoint of another solver, without --solver
# fmm, are refused, saying why.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cpu --n 800 --iters 1 --energy-every 3 --progress off"

k=0
for variant in "--precision single" "--precision double --fmm-order 4 --fmm-theta 0.5"; do
  k=$((k + 1))
  out=$(gs_mpirun 2 nbody $common --solver fmm $variant --steps 12) || { echo "$out"; gs_fail "$variant: 12 steps"; }
  whole=$(echo "$out" | gs_hash_of)
  momentum=$(echo "$out" | grep '^# momentum: |P - P0| ')
  out=$(gs_mpirun 2 nbody $common --solver fmm $variant --steps 6 --checkpoint-every 6 --output "$tmp/c$k") ||
    { echo "$out"; gs_fail "$variant: 6 steps"; }
  for np in 2 3; do
    out=$(gs_mpirun $np nbody $common --steps 12 --restart "$tmp/c$k")
    rc=$?
    [ $rc = 0 ] || { echo "$out"; gs_fail "$variant: restart on $np ranks: exit $rc"; }
    gs_verified "$out" "$variant: restart on $np ranks"
    echo "$out" | grep -q '^# solver: fmm' || { echo "$out"; gs_fail "$variant: the restart did not take the fmm"; }
    echo "$out" | grep -q 'only within' && { echo "$out"; gs_fail "$variant, $np ranks: a note about other settings"; }
    [ $np = 3 ] && { echo "$out" | grep -q "^# restart: from .* (written by 2 rank(s); this solver's forces do not depend on the rank count" ||
      { echo "$out"; gs_fail "$variant: no note that the rank count changes no bit"; }; }
    resumed=$(echo "$out" | gs_hash_of)
    [ -n "$whole" ] && [ "$whole" = "$resumed" ] || gs_fail "$variant: 12 steps give $whole, 6 + restart on $np + 6 give $resumed"
    # the same line on the same rank count (on another, the diagnostics' sums over the ranks differ
    # in the last bits, at 1e-17 in double)
    [ $np = 3 ] || { [ -n "$momentum" ] && [ "$(echo "$out" | grep '^# momentum: ')" = "$momentum" ]; } ||
      { echo "$out"; gs_fail "$variant: momentum after the restart on $np ranks, want '$momentum'"; }
  done
  echo "ok: $variant: 6 + restart (2 and 3 ranks) + 6 steps = 12 steps, state $whole"
done

# Other settings, and other solvers: allowed, with a note, and verified.
out=$(gs_mpirun 2 nbody $common --steps 8 --restart "$tmp/c2" --fmm-order 5) || { echo "$out"; gs_fail "restart at order 5"; }
echo "$out" | grep -q '^# restart: the checkpoint was written by the fmm at order 4, theta = 0.5: .*only within the fmm' ||
  { echo "$out"; gs_fail "no note about another order"; }
gs_verified "$out" "restart at order 5"
for other in tree direct; do
  out=$(gs_mpirun 2 nbody $common --steps 8 --restart "$tmp/c2" --solver $other) || { echo "$out"; gs_fail "fmm -> $other"; }
  echo "$out" | grep -q "^# restart: the checkpoint was written by the fmm solver, this run uses the $other one" ||
    { echo "$out"; gs_fail "no note about the $other solver"; }
  gs_verified "$out" "fmm checkpoint resumed by $other"
done
gs_mpirun 2 nbody $common --precision double --solver tree --steps 3 --checkpoint-every 3 --output "$tmp/tree" >/dev/null ||
  gs_fail "tree checkpoint"
out=$(gs_mpirun 3 nbody $common --steps 6 --restart "$tmp/tree" --solver fmm) || { echo "$out"; gs_fail "tree -> fmm"; }
echo "$out" | grep -q '^# restart: the checkpoint was written by the tree solver, this run uses the fmm one' ||
  { echo "$out"; gs_fail "no note about the tree"; }
echo "$out" | grep -q '^# solver: fmm .*order 6, theta = 0.7' || { echo "$out"; gs_fail "tree -> fmm: not the fmm's defaults"; }
# the tree's steps (and its forces in the first half-kick) are in the drift: no verdict on it
echo "$out" | grep -q '^# momentum: |P - P0| / (M v_rms) = .* no tolerance' || { echo "$out"; gs_fail "tree -> fmm: a momentum verdict"; }
gs_verified "$out" "tree checkpoint resumed by the fmm"
echo "ok: restarts into and out of the fmm, and at other settings, say so and are verified"

# (gs_usage_error: 2 ranks, one error line from rank 0, exit 2; its WANT is an extended regex)
gs_usage_error '--fmm-order is an option of the fast multipole solver, and the checkpoint was written by another solver \(give --solver fmm' \
  nbody $common --steps 6 --restart "$tmp/tree" --fmm-order 4
gs_usage_error '--theta is an option of the tree, and the checkpoint was written by --solver fmm \(give --solver tree' \
  nbody $common --steps 8 --restart "$tmp/c1" --theta 0.6
