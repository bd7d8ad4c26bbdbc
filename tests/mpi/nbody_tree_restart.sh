#!/bin/sh
# --solver tree loses nothing on the CPU backend: 10 steps + checkpoint + restart + 10 steps end in
# exactly the state of 20 steps (the relative opening test's previous accelerations are the
# checkpoint's) with the same momentum drift (P0 is the checkpoint's), and on another rank count
# in the same bits, as the header says; a plain --restart takes the
# checkpoint's solver and tree settings; other settings are allowed with a note; a stop signal
# mid-run leaves a checkpoint of the last completed step whose state is that of an uninterrupted
# run of as many steps, and which resumes.
. "$GS_TEST_LIB"
command -v pgrep >/dev/null || gs_skip "no pgrep to find the ranks"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cpu --n 700 --iters 1 --energy-every 5 --progress off"

k=0
for variant in "--precision single" "--precision double --opening relative" "--ic disk --opening relative --alpha 0.01"; do
  k=$((k + 1))
  out=$(gs_mpirun 2 nbody $common --solver tree $variant --steps 20) || { echo "$out"; gs_fail "$variant: 20 steps"; }
  whole=$(echo "$out" | gs_hash_of)
  momentum=$(echo "$out" | grep '^# momentum: |P - P0| ')
  out=$(gs_mpirun 2 nbody $common --solver tree $variant --steps 10 --checkpoint-every 10 --output "$tmp/c$k") ||
    { echo "$out"; gs_fail "$variant: 10 steps"; }
  out=$(gs_mpirun 2 nbody $common --steps 20 --restart "$tmp/c$k")
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$variant: restart: exit $rc"; }
  echo "$out" | grep -q '^# solver: tree' || { echo "$out"; gs_fail "$variant: the restart did not take the tree"; }
  echo "$out" | grep -q 'only within the tree' && { echo "$out"; gs_fail "$variant: a note about other settings"; }
  resumed=$(echo "$out" | gs_hash_of)
  [ -n "$whole" ] && [ "$whole" = "$resumed" ] || gs_fail "$variant: 20 steps give $whole, 10 + restart + 10 give $resumed"
  # the checkpoint keeps P0: the momentum drift after the restart is the uninterrupted run's
  [ -n "$momentum" ] && [ "$(echo "$out" | grep '^# momentum: ')" = "$momentum" ] ||
    { echo "$out"; gs_fail "$variant: momentum after the restart, want '$momentum'"; }
  echo "ok: $variant: 10 + restart + 10 steps = 20 steps, state $whole"
done
# Another rank count: the tree's forces do not depend on it, so a checkpoint of 2 ranks resumed on 3
# ends in the same bits, and the header says so, not the direct solver's "only within round-off"
# (the replicated layout here; the domains': nbody_dtree.sh).
rep="$common --solver tree --tree-layout replicated"
out=$(gs_mpirun 2 nbody $rep --steps 20) || { echo "$out"; gs_fail "replicated: 20 steps"; }
whole=$(echo "$out" | gs_hash_of)
out=$(gs_mpirun 2 nbody $rep --steps 10 --checkpoint-every 10 --output "$tmp/rep") ||
  { echo "$out"; gs_fail "replicated: 10 steps"; }
out=$(gs_mpirun 3 nbody $rep --steps 20 --restart "$tmp/rep")
rc=$?
[ $rc = 0 ] || { echo "$out"; gs_fail "replicated: restart on 3 ranks: exit $rc"; }
gs_verified "$out" "replicated: restart on 3 ranks"
echo "$out" | grep "^# restart: from .* (written by 2 rank(s); this solver's forces do not depend on the rank count" \
  >/dev/null || { echo "$out"; gs_fail "replicated: no note that the rank count changes no bit"; }
echo "$out" | grep 'only within round-off' >/dev/null && { echo "$out"; gs_fail "replicated: a round-off note on 3 ranks"; }
[ -n "$whole" ] && [ "$(echo "$out" | gs_hash_of)" = "$whole" ] ||
  gs_fail "replicated: restart on 3 ranks ends in $(echo "$out" | gs_hash_of), 20 steps on 2 in $whole"
echo "ok: replicated: checkpoint of 2 ranks, restart on 3: the same state $whole, and the header says so"

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
stopped=$(gs_hash_of <"$tmp/sig.out")
[ -n "$stopped" ] || { cat "$tmp/sig.out"; gs_fail "no final state after the stop"; }
out=$(gs_mpirun 2 nbody --backend cpu --n 3000 --iters 1 --progress off --solver tree --steps "$step") ||
  gs_fail "uninterrupted $step steps"
[ "$(echo "$out" | gs_hash_of)" = "$stopped" ] || gs_fail "stopped at step $step in $stopped, $step steps give $(echo "$out" | gs_hash_of)"
out=$(gs_mpirun 2 nbody --backend cpu --iters 1 --progress off --steps $((step + 2)) --restart "$tmp/sig") ||
  gs_fail "resume after the signal"
echo "$out" | grep -q "^# final state: step $((step + 2))," || gs_fail "resumed run did not reach step $((step + 2))"
gs_verified "$out" "resumed after the signal"
echo "ok: SIGUSR1 at step $step: the state of $step steps, resumed to $((step + 2))"

# Issue 30, item 11: a restart without --solver takes the checkpoint's (as it does its tree
# settings), so the tree's options alone apply to a tree checkpoint and are refused, saying why,
# for a direct one; forged values (checksums recomputed) are refused like a damaged file.
bad3() {
  want=$1
  shift
  out=$(gs_mpirun 3 nbody $common "$@" 2>&1)
  rc=$?
  [ $rc = 2 ] || { echo "$out"; gs_fail "'$*': exit $rc, want 2"; }
  [ "$(echo "$out" | grep -c '^gpusim: ')" = 1 ] || { echo "$out"; gs_fail "'$*': not exactly one gpusim line"; }
  echo "$out" | grep "^gpusim: error: " | grep -F -- "$want" >/dev/null || { echo "$out"; gs_fail "'$*': want the message '$want'"; }
  echo "ok: $* -> $(echo "$out" | grep '^gpusim: error')"
}
out=$(gs_mpirun 3 nbody $common --steps 12 --restart "$tmp/c1" --theta 0.6)
rc=$?
[ $rc = 0 ] || { echo "$out"; gs_fail "restart with --theta alone: exit $rc"; }
echo "$out" | grep '^# solver: tree (Barnes-Hut), geometric opening theta = 0.6' >/dev/null ||
  { echo "$out"; gs_fail "restart with --theta alone: not the tree at theta 0.6"; }
gs_verified "$out" "restart with --theta alone"
out=$(gs_mpirun 3 nbody $common --steps 12 --restart "$tmp/c2" --alpha 0.02) || { echo "$out"; gs_fail "--alpha alone"; }
echo "$out" | grep '^# solver: tree (Barnes-Hut), relative opening .* alpha = 0.02' >/dev/null ||
  { echo "$out"; gs_fail "restart with --alpha alone: not the relative test at alpha 0.02"; }
echo "ok: --theta or --alpha alone resume a tree checkpoint with the tree"
bad3 "--alpha is the relative opening test's tolerance: it needs --opening relative (the checkpoint's test is geometric)" \
  --steps 12 --restart "$tmp/c1" --alpha 0.02
gs_mpirun 2 nbody $common --steps 2 --checkpoint-every 2 --output "$tmp/direct" >/dev/null || gs_fail "direct checkpoint"
bad3 "--theta is an option of the tree, and the checkpoint was written by --solver direct (give --solver tree to change solvers)" \
  --steps 4 --restart "$tmp/direct" --theta 0.6
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 to forge checkpoints (the checks above passed)"; exit 0; }
# forge SRC DST OFFSET FORMAT VALUE: SRC with one value written at OFFSET (struct FORMAT) and
# both FNV-1a checksums made to match again (payload_sum at 192, header_sum at 200).
forge() {
  python3 - "$@" <<'PY' || gs_fail "forge $*"
import struct, sys
src, dst, off, fmt, val = sys.argv[1:]
b = bytearray(open(src, "rb").read())
struct.pack_into(fmt, b, int(off), float(val) if fmt in ("<f", "<d") else int(val))
def fnv(data):
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h
struct.pack_into("<Q", b, 192, fnv(b[512:]))
struct.pack_into("<Q", b, 200, 0)
struct.pack_into("<Q", b, 200, fnv(b[:512]))
open(dst, "wb").write(b)
PY
}
f=$(ls "$tmp"/c1/checkpoint_*.gsck)
forge "$f" "$tmp/leaf.gsck" 232 "<i" 2147483647
bad3 "bad header: fields theta = 0.5, opening = 0, alpha = 0.005, leaf = 2147483647 are not a tree's settings" \
  --steps 12 --restart "$tmp/leaf.gsck"
forge "$f" "$tmp/nan.gsck" $((512 + 4 * (4 * 7 + 1))) "<f" nan # floats of 4 bytes, 4 a body
bad3 "--restart $tmp/nan.gsck: body 7's position (y) is nan: not finite" --steps 12 --restart "$tmp/nan.gsck"
forge "$f" "$tmp/inf.gsck" $((512 + 16 * 768 + 16 * 3)) "<f" inf # N = 700: 768 padded
bad3 "--restart $tmp/inf.gsck: body 3's velocity (x) is inf: not finite" --steps 12 --restart "$tmp/inf.gsck"
echo "ok: forged checkpoints refused"
