#!/bin/sh
# Where an N-body run writes (issue 11 items 3, 5, 7, 9, 10; issue 17; issue 30 item 7): the --output directory
# is made and checked before step 0 and refused with one error if unusable; a write that fails
# mid-run stops the run at once; a failed stop checkpoint is reported as failed; another run's
# checkpoint or snapshot is never overwritten or deleted (a clash with its steps is refused before step
# 0, on any rank count); FIFOs are refused; |dE/E0| is never NaN.
. "$GS_TEST_LIB"
[ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher (mpiexec) found by configure"
tmp=$(mktemp -d)
mnt="" ro=""
cleanup() {
  [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
  [ -n "$ro" ] && umount "$ro" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
common="--backend cpu --n 600 --iters 1 --kernel omp --progress off"

# bad WHAT ARGS...: exit 2 with exactly one "gpusim: error:" line, before any step (no row), on
# $bad_np ranks.
bad_np=2
bad() {
  what=$1
  shift
  out=$(GS_TIMEOUT=60 gs_mpirun "$bad_np" nbody $common "$@" 2>&1)
  rc=$?
  errs=$(echo "$out" | grep -c '^gpusim: error:')
  [ $rc = 2 ] && [ "$errs" = 1 ] || { echo "$out"; gs_fail "$what: exit $rc with $errs error lines, want 2 and 1"; }
  echo "$out" | grep -q '^ *0 ' && { echo "$out"; gs_fail "$what: refused only after step 0"; }
  echo "ok: $what -> $(echo "$out" | grep '^gpusim: error:')"
}

# Item 7: nested outputs are made (checkpoints too); a file, or a read-only place, is refused
# before step 0.
out=$(gs_mpirun 2 nbody $common --steps 4 --checkpoint-every 2 --output "$tmp/a/b/c") || { echo "$out"; gs_fail "nested --output"; }
[ -f "$tmp/a/b/c/checkpoint_000000004.gsck" ] || gs_fail "nested --output: no checkpoint of step 4 in a/b/c"
echo "ok: --output a/b/c with checkpoints"
: >"$tmp/file"
bad "--output a file" --steps 4 --checkpoint-every 2 --output "$tmp/file"
bad "--output below a file" --steps 4 --output "$tmp/file/sub"
# Issue 17: the default --output exists after any run (a stop may come at any step).
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && gs_mpirun 1 nbody $common --steps 2 >/dev/null) || gs_fail "run in an empty directory"
[ -d "$tmp/cwd/nbody-out" ] || gs_fail "nbody-out/ not made by a run without snapshots"
echo "ok: nbody-out/ made before step 0"

# Items 5: another run's checkpoint is neither overwritten nor deleted; --overwrite writes beside it
# (its checkpoints at steps this run does not reach).
gs_mpirun 2 nbody $common --steps 8 --checkpoint-every 8 --output "$tmp/mine" >/dev/null || gs_fail "first run"
bad "a second run into a run's --output" --steps 6 --checkpoint-every 3 --seed 2 --output "$tmp/mine"
bad "the same command again" --steps 8 --checkpoint-every 8 --output "$tmp/mine"
out=$(gs_mpirun 2 nbody $common --steps 6 --checkpoint-every 3 --seed 2 --output "$tmp/mine" --overwrite) ||
  { echo "$out"; gs_fail "--overwrite run"; }
[ -f "$tmp/mine/checkpoint_000000008.gsck" ] || gs_fail "--overwrite deleted the first run's checkpoint"
[ -f "$tmp/mine/checkpoint_000000006.gsck" ] && [ ! -f "$tmp/mine/checkpoint_000000003.gsck" ] ||
  gs_fail "--overwrite run: its own step 6 should be there, its own step 3 gone"
echo "ok: --overwrite keeps the other run's checkpoint"
bad "a restart whose --output holds another run" --steps 10 --restart "$tmp/mine/checkpoint_000000008.gsck" --output "$tmp/mine"
# Issue 30 item 7: --overwrite into a directory holding another run's checkpoint at a step this run
# may write (here the same run on 1 rank: bit for bit what a 1-rank run writes at step 10, which
# was kept, taken for this run's own and deleted at step 11, while 3 ranks stopped at step 10) is
# refused before step 0, the same on any rank count, and the file survives; so is --solver tree.
gs_mpirun 1 nbody $common --steps 10 --checkpoint-every 10 --output "$tmp/d10" >/dev/null || gs_fail "1-rank run to step 10"
sum=$(cksum <"$tmp/d10/checkpoint_000000010.gsck")
# clash WHAT ARGS...: bad, with the error naming that file, which is still there and unchanged.
clash() {
  bad "$@"
  echo "$out" | grep 'gpusim: error: --output .* holds checkpoint_000000010.gsck, a step this run may checkpoint' >/dev/null ||
    gs_fail "$1: the error does not name checkpoint_000000010.gsck"
  [ "$(cksum <"$tmp/d10/checkpoint_000000010.gsck" 2>/dev/null)" = "$sum" ] || gs_fail "$1: the other run's checkpoint is gone or changed"
}
for bad_np in 1 3; do
  clash "--overwrite, another run's checkpoint at a step this run writes, $bad_np rank(s)" --steps 12 --checkpoint-every 1 \
    --output "$tmp/d10" --overwrite
done
bad_np=2
clash "--overwrite, a stop could come at the other run's step" --steps 12 --output "$tmp/d10" --overwrite
direct=$common
common="--backend cpu --n 600 --iters 1 --progress off" # no --kernel: the tree has none
clash "--solver tree --overwrite into a direct run's checkpoints" --steps 12 --checkpoint-every 1 --solver tree \
  --output "$tmp/d10" --overwrite
common=$direct
out=$(gs_mpirun 3 nbody $common --steps 9 --checkpoint-every 1 --output "$tmp/d10" --overwrite) ||
  { echo "$out"; gs_fail "--overwrite run that ends before the other run's step"; }
[ "$(cksum <"$tmp/d10/checkpoint_000000010.gsck")" = "$sum" ] && [ -f "$tmp/d10/checkpoint_000000009.gsck" ] ||
  gs_fail "--overwrite run to step 9: want its step 9 beside the other run's step 10, unchanged"
echo "ok: --overwrite with a checkpoint at a step of this run: refused before step 0 on 1 and 3 ranks, the file kept"
# Snapshots too: another run's are never replaced, with --overwrite neither (refused before step
# 0, the files kept); a restart from the directory itself goes on writing into it.
gs_mpirun 2 nbody $common --steps 4 --snapshot-every 2 --output "$tmp/snaps" >/dev/null || gs_fail "run with snapshots"
ssum=$(cat "$tmp/snaps"/snapshot_* | cksum)
for extra in "" --overwrite; do
  bad "another run's snapshots ${extra:-(no --overwrite)}" --steps 6 --snapshot-every 3 --seed 2 --output "$tmp/snaps" $extra
  echo "$out" | grep 'gpusim: error: --output .* holds snapshot_000\.[a-z0-9]*, a snapshot this run would write' >/dev/null ||
    gs_fail "another run's snapshots: the error does not name snapshot_000"
  [ "$(cat "$tmp/snaps"/snapshot_* | cksum)" = "$ssum" ] || gs_fail "another run's snapshots: changed"
done
gs_mpirun 2 nbody $common --steps 4 --snapshot-every 2 --checkpoint-every 4 --output "$tmp/snapr" >/dev/null ||
  gs_fail "run with snapshots and a checkpoint"
out=$(gs_mpirun 2 nbody $common --steps 8 --snapshot-every 2 --restart "$tmp/snapr" --output "$tmp/snapr") ||
  { echo "$out"; gs_fail "a restart from its own --output, with snapshots"; }
ls "$tmp/snapr" | grep '^snapshot_004\.' >/dev/null || gs_fail "the restart wrote no snapshot 4"
echo "ok: another run's snapshots are kept (with --overwrite too); a restart from the directory writes on"
mkdir "$tmp/evil"
echo 'victim' >"$tmp/victim.txt"
printf '{\n  "file": "../victim.txt"\n}\n' >"$tmp/evil/checkpoint.json"
bad "a manifest naming no checkpoint" --steps 2 --checkpoint-every 1 --output "$tmp/evil"
gs_mpirun 2 nbody $common --steps 2 --checkpoint-every 1 --output "$tmp/evil" --overwrite >/dev/null || gs_fail "evil --overwrite"
[ -f "$tmp/victim.txt" ] || gs_fail "a manifest naming ../victim.txt made a run delete it"
echo "ok: ../victim.txt survives"

# Item 10: a different --seed on a restart is refused; |dE/E0| of one body or no mass is n/a, never NaN.
bad "--seed other than the checkpoint's" --steps 8 --restart "$tmp/a/b/c" --seed 5 --output "$tmp/a/b/c"
echo '0 0 0 0 0 0 1' >"$tmp/one.txt"
printf '%s\n' '1 0 0 0 0 0 0' '-1 0 0 0 0 0 0' >"$tmp/massless.txt"
for ic in one massless; do
  out=$(gs_mpirun 1 nbody --backend cpu --iters 1 --kernel omp --ic "$tmp/$ic.txt" --steps 4 --energy-every 2 \
    --output "$tmp/$ic") || { echo "$out"; gs_fail "$ic: run"; }
  echo "$out" | grep -qi 'nan' && { echo "$out"; gs_fail "$ic: NaN printed"; }
  echo "$out" | grep -q '^ *4 .* n/a ' || { echo "$out"; gs_fail "$ic: no n/a for |dE/E0|"; }
done
echo "ok: |dE/E0| n/a for one body and for no mass"
# Issue 17: progress lines before the first diagnostics row say |dE/E0| of step 0, not '?'.
out=$(gs_mpirun 1 nbody --backend cpu --n 300 --iters 1 --kernel omp --steps 30 --progress lines --output "$tmp/prog") ||
  gs_fail "progress run"
echo "$out" | grep '^# progress' | grep -q '|dE/E0| ?' && { echo "$out"; gs_fail "progress line with |dE/E0| ?"; }
echo "$out" | grep -q '^# progress: step 3/30 .*|dE/E0| 0.00e+00' || { echo "$out"; gs_fail "no progress line at step 3 with step 0's |dE/E0|"; }
echo "ok: progress lines carry |dE/E0| from the start"

# Item 9: a FIFO as --ic or --restart is refused at once (the write end is never opened).
mkfifo "$tmp/fifo" || gs_hard "mkfifo"
bad "--ic FIFO" --steps 2 --ic "$tmp/fifo" --output "$tmp/f1"
bad "--restart FIFO" --steps 2 --restart "$tmp/fifo" --output "$tmp/f2"

# Items 3 and 7 on a full file system (a small tmpfs; needs root and mount).
mnt="$tmp/full"
mkdir "$mnt"
if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
  mnt=""
  echo "SKIP: cannot mount a small tmpfs here (not root, or no mount): the full-disk cases did not run"
  exit 77
fi
ro="$tmp/ro"
mkdir "$ro"
mount -t tmpfs -o ro,size=16k tmpfs "$ro" || { ro=""; gs_hard "a read-only tmpfs did not mount where a writable one did"; }
bad "--output on a read-only file system" --steps 2 --output "$ro/out"
bad "--output a read-only directory" --steps 2 --output "$ro"
dd if=/dev/zero of="$mnt/fill" bs=1k count=56 2>/dev/null # 8 KiB left: the probe fits, no checkpoint does
out=$(gs_mpirun 2 nbody $common --steps 50 --checkpoint-every 1 --output "$mnt/run" 2>&1)
rc=$?
[ $rc = 1 ] || { echo "$out"; gs_fail "full disk: exit $rc, want 1"; }
[ "$(echo "$out" | grep -c '^gpusim: error:')" = 1 ] || { echo "$out"; gs_fail "full disk: not exactly one error line"; }
echo "$out" | grep -q '^# stopped after step 1 of 50: writing to .* failed' || { echo "$out"; gs_fail "full disk: did not stop at step 1"; }
echo "$out" | grep -q '^# checkpoint: step 1 written' && gs_fail "full disk: a failed checkpoint reported as written"
echo "ok: full disk: stopped at the first failed write -> $(echo "$out" | grep '^gpusim: error:')"
# Item 3: a stop (SIGUSR1 to the ranks) whose checkpoint fails says so and exits non-zero.
sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/usr1.pid" "$MPIEXEC" $GS_MPIFLAGS -n 2 "$GPUSIM" nbody $common --steps 100000000 \
  --energy-every 5 --output "$mnt/stop" >"$tmp/usr1.log" 2>&1 &
n=0
until [ -s "$tmp/usr1.pid" ] && grep -q '^ *5 ' "$tmp/usr1.log"; do
  sleep 0.1; n=$((n + 1)); [ $n -gt 3000 ] && gs_fail "usr1 run did not reach step 5"
done
launcher=$(cat "$tmp/usr1.pid")
for p in $(pgrep -P "$launcher" -x gpusim); do kill -USR1 "$p"; done
wait "$launcher"
rc=$?
[ $rc != 0 ] || { cat "$tmp/usr1.log"; gs_fail "stop with a failed checkpoint: exit 0"; }
grep -q 'checkpoint: step [0-9]* written' "$tmp/usr1.log" && { cat "$tmp/usr1.log"; gs_fail "failed checkpoint reported as written"; }
grep -q 'resume with' "$tmp/usr1.log" && { cat "$tmp/usr1.log"; gs_fail "a resume offered without a checkpoint"; }
grep -q '^# stopped after step [0-9]* of 100000000 (SIGUSR1), but its checkpoint could not be written' "$tmp/usr1.log" ||
  { cat "$tmp/usr1.log"; gs_fail "no failed-checkpoint stop line"; }
echo "ok: SIGUSR1 on a full disk: exit $rc, says the checkpoint failed"
echo PASS
