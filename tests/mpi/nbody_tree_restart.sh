#!/bin/sh
# --solver tree loses nothing on the CPU backend: 10 steps + checkpoint + restart + 10 steps end in
# exactly the state of 20 steps (the relative opening test's previous accelerations are the
# checkpoint's) with the same momentum drift (P0 is the checkpoint's); a plain --restart takes the
# checkpoint's solver and tree settings; other settings are allowed with a note; a stop signal
# mid-run leaves a checkpoint of the last completed step whose state is that of an uninterrupted
# run of as many steps, and which resumes.
. "$GS_TEST_LIB"
command -v pgrep >/dev/null || gs_skip "no pgrep to find the ranks"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cpu --n 700 --iters 1 --energy-every 5 --progress off"
hash_of() { sed -n 's/^# final state: .* = \([0-9a-f]*\)$/\1/p'; }

k=0
for variant in "--precision single" "--precision double --opening relative" "--ic disk --opening relative --alpha 0.01"; do
  k=$((k + 1))
  out=$(gs_mpirun 2 nbody $common --solver tree $variant --steps 20) || { echo "$out"; gs_fail "$variant: 20 steps"; }
  whole=$(echo "$out" | hash_of)
  momentum=$(echo "$out" | grep '^# momentum: |P - P0| ')
  out=$(gs_mpirun 2 nbody $common --solver tree $variant --steps 10 --checkpoint-every 10 --output "$tmp/c$k") ||
    { echo "$out"; gs_fail "$variant: 10 steps"; }
  out=$(gs_mpirun 2 nbody $common --steps 20 --restart "$tmp/c$k")
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$variant: restart: exit $rc"; }
  echo "$out" | grep -q '^# solver: tree' || { echo "$out"; gs_fail "$variant: the restart did not take the tree"; }
  echo "$out" | grep -q 'only within the tree' && { echo "$out"; gs_fail "$variant: a note about other settings"; }
  resumed=$(echo "$out" | hash_of)
  [ -n "$whole" ] && [ "$whole" = "$resumed" ] || gs_fail "$variant: 20 steps give $whole, 10 + restart + 10 give $resumed"
  # the checkpoint keeps P0: the momentum drift after the restart is the uninterrupted run's
  [ -n "$momentum" ] && [ "$(echo "$out" | grep '^# momentum: ')" = "$momentum" ] ||
    { echo "$out"; gs_fail "$variant: momentum after the restart, want '$momentum'"; }
  echo "ok: $variant: 10 + restart + 10 steps = 20 steps, state $whole"
done
# Other settings than the checkpoint's: allowed, with a note (and verified as any run).
out=$(gs_mpirun 2 nbody $common --steps 12 --restart "$tmp/c1" --solver tree --theta 0.6) || gs_fail "restart at theta 0.6"
echo "$out" | grep -q '^# restart: the checkpoint was written by the tree at theta = 0.5, .*only within the tree' ||
  { echo "$out"; gs_fail "no note about another theta"; }
gs_verified "$out" "restart at theta 0.6"
out=$(gs_mpirun 2 nbody $common --steps 12 --restart "$tmp/c1" --solver direct) || gs_fail "restart with direct"
echo "$out" | grep -q '^# restart: the checkpoint was written by the tree solver, this run uses the direct one' ||
  { echo "$out"; gs_fail "no note about another solver"; }
echo "ok: restarts under other settings say so"

# A stop signal mid-run: the checkpoint of the last completed step, the state of as many steps.
export OMP_NUM_THREADS=1
gs_mpirun 2 nbody --backend cpu --n 3000 --iters 1 --progress off --solver tree --steps 100000000 \
  --checkpoint-every 2 --output "$tmp/sig" >"$tmp/sig.out" 2>&1 &
launcher=$!
n=0
until grep -q '^# checkpoint: step 4 written' "$tmp/sig.out" 2>/dev/null; do
  sleep 0.2; n=$((n + 1)); [ $n -gt 600 ] && { cat "$tmp/sig.out"; gs_fail "the signalled run did not get going"; }
done
for p in $(pgrep -x gpusim); do
  tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--output $tmp/sig" && kill -USR1 "$p"
done
wait $launcher
rc=$?
[ $rc = 0 ] || { cat "$tmp/sig.out"; gs_fail "signalled run: exit $rc, want 0"; }
step=$(sed -n 's/^# stopped after step \([0-9]*\) .*/\1/p' "$tmp/sig.out")
[ -n "$step" ] || { cat "$tmp/sig.out"; gs_fail "no stop message"; }
stopped=$(hash_of <"$tmp/sig.out")
out=$(gs_mpirun 2 nbody --backend cpu --n 3000 --iters 1 --progress off --solver tree --steps "$step") ||
  gs_fail "uninterrupted $step steps"
[ "$(echo "$out" | hash_of)" = "$stopped" ] || gs_fail "stopped at step $step in $stopped, $step steps give $(echo "$out" | hash_of)"
out=$(gs_mpirun 2 nbody --backend cpu --iters 1 --progress off --steps $((step + 2)) --restart "$tmp/sig") ||
  gs_fail "resume after the signal"
echo "$out" | grep -q "^# final state: step $((step + 2))," || gs_fail "resumed run did not reach step $((step + 2))"
gs_verified "$out" "resumed after the signal"
echo "ok: SIGUSR1 at step $step: the state of $step steps, resumed to $((step + 2))"
