#!/bin/sh
# Long runs that lose nothing, on the CPU backend: N steps + checkpoint + restart + N steps ends
# in exactly the state of 2N steps (same ranks); SIGUSR1 and the wall-clock budget make a run
# checkpoint and exit 0 with the resume command; damaged or mismatched checkpoints are refused.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cpu --n 600 --iters 1 --kernel omp --energy-every 5 --progress lines"
hash_of() { sed -n 's/^# final state: .* = \([0-9a-f]*\)$/\1/p'; }

for prec in single double; do
  out=$(gs_mpirun 2 nbody $common --precision $prec --steps 20) || gs_fail "$prec: 20 steps"
  whole=$(echo "$out" | hash_of)
  out=$(gs_mpirun 2 nbody $common --precision $prec --steps 10 --checkpoint-every 10 --output "$tmp/$prec") || gs_fail "$prec: 10 steps"
  echo "$out" | grep -q '^# checkpoint: step 10 written' || { echo "$out"; gs_fail "$prec: no checkpoint at step 10"; }
  out=$(gs_mpirun 2 nbody $common --steps 20 --restart "$tmp/$prec") || { echo "$out"; gs_fail "$prec: restart"; }
  echo "$out" | grep -q '^# restart: from' || gs_fail "$prec: no restart line"
  echo "$out" | grep -q "$prec precision" || gs_fail "$prec: precision not taken from the checkpoint"
  resumed=$(echo "$out" | hash_of)
  [ -n "$whole" ] && [ "$whole" = "$resumed" ] || gs_fail "$prec: 20 steps give $whole, 10 + restart + 10 give $resumed"
  echo "ok: $prec: 10 + restart + 10 steps = 20 steps, state $whole"
done
# Another rank count may resume (the sums split differently: same state within round-off).
out=$(gs_mpirun 4 nbody $common --steps 20 --restart "$tmp/double") || gs_fail "restart on 4 ranks"
echo "$out" | grep -q 'same state only within round-off' || gs_fail "no note about the rank count"

# SIGUSR1 (as SLURM's --signal=B:USR1 forwards it): checkpoint after the current step, exit 0.
gs_mpirun 2 nbody $common --steps 100000000 --output "$tmp/sig" >"$tmp/sig.out" 2>&1 &
launcher=$!
n=0
until grep -q '^# simulation with kernel' "$tmp/sig.out" 2>/dev/null; do
  sleep 0.2; n=$((n + 1)); [ $n -gt 300 ] && gs_fail "the signalled run did not start"
done
sleep 1
# Signal this run's ranks only (other tests may run gpusim at the same time).
for p in $(pgrep -x gpusim); do
  tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--output $tmp/sig" && kill -USR1 "$p"
done
wait $launcher
rc=$?
cat "$tmp/sig.out" | tail -4
[ $rc = 0 ] || gs_fail "signalled run: exit $rc, want 0"
grep -q '^# stopped after step [0-9]* of 100000000 (SIGUSR1): resume with' "$tmp/sig.out" || gs_fail "no stop message"
step=$(sed -n 's/^# stopped after step \([0-9]*\) .*/\1/p' "$tmp/sig.out")
out=$(gs_mpirun 2 nbody $common --steps $((step + 3)) --restart "$tmp/sig") || gs_fail "resume after the signal"
echo "$out" | grep -q "^# final state: step $((step + 3))," || gs_fail "resumed run did not reach step $((step + 3))"
echo "ok: SIGUSR1 at step $step, resumed to $((step + 3))"

# The wall-clock budget: stops, checkpoints and says so.
out=$(gs_mpirun 2 nbody $common --steps 100000000 --walltime 00:00:03 --output "$tmp/wall") || gs_fail "walltime run: exit $?"
echo "$out" | grep -q 'wall-clock budget nearly spent' || { echo "$out" | tail; gs_fail "no walltime stop"; }
[ -f "$tmp/wall/checkpoint.json" ] || gs_fail "no checkpoint at the walltime stop"
echo "ok: walltime stop"

# Progress: plain lines in a log (auto, not a terminal), a redrawn bar when asked (or on a tty).
export SLURM_JOB_ID=1 # "inside a batch job": plain lines even on Open MPI's pseudo-terminal
out=$(gs_mpirun 1 nbody --backend cpu --n 300 --steps 30 --iters 1) || gs_fail "progress run"
unset SLURM_JOB_ID
echo "$out" | grep -q '^# progress: step 30/30 (100%), t = 0.03, |dE/E0| [0-9.e+-]*, .* interactions/s, elapsed .*, remaining' ||
  { echo "$out"; gs_fail "no progress line"; }
out=$(gs_mpirun 1 nbody --backend cpu --n 300 --steps 30 --iters 1 --progress bar) || gs_fail "progress bar run"
echo "$out" | tr '\r' '\n' | grep -q '^\[##############################\] step 30/30' || gs_fail "no progress bar"
out=$(gs_mpirun 1 nbody --backend cpu --n 300 --steps 30 --iters 1 --progress off) || gs_fail "progress off run"
echo "$out" | grep -q 'progress' && gs_fail "progress printed with --progress off"
echo "ok: progress lines, bar, off"

# gpusim's own snapshots, read back by an independent reader: bodies from a file, so every
# value at step 0 is known; ids are the global indices; the header says 4 bodies at time 0.
printf '%s\n' '1 0 0 0 0.5 0 0.25' '-1 0 0 0 -0.5 0 0.25' '0 1 0 -0.5 0 0 0.25' '0 -1 0 0.5 0 0 0.25' >"$tmp/four.txt"
gs_mpirun 2 nbody --backend cpu --ic "$tmp/four.txt" --steps 2 --snapshot-every 1 --iters 1 --precision double \
  --output "$tmp/snap" >/dev/null || gs_fail "snapshot run"
ls "$tmp/snap"
py=""
for p in /usr/bin/python3 python3; do "$p" -c 'import h5py' 2>/dev/null && py=$p && break; done
if [ -f "$tmp/snap/snapshot_000.hdf5" ] && [ -z "$py" ]; then
  echo "note: no h5py here: the HDF5 snapshot's values are checked by tests/mpi/snapshot_read.sh only"
elif [ -f "$tmp/snap/snapshot_000.hdf5" ]; then
  "$py" - "$tmp/snap" <<'PY' || gs_fail "snapshot contents"
import sys, h5py
d = sys.argv[1]
with h5py.File(d + "/snapshot_000.hdf5", "r") as f:
    h = f["Header"].attrs
    assert list(h["NumPart_ThisFile"]) == [0, 4, 0, 0, 0, 0] and h["Time"] == 0.0, dict(h)
    p = f["PartType1/Coordinates"][:]; v = f["PartType1/Velocities"][:]
    assert p.tolist() == [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]], p
    assert v.tolist() == [[0, 0.5, 0], [0, -0.5, 0], [-0.5, 0, 0], [0.5, 0, 0]], v
    assert f["PartType1/ParticleIDs"][:].tolist() == [0, 1, 2, 3]
    assert f["PartType1/Masses"][:].tolist() == [0.25] * 4
with h5py.File(d + "/snapshot_002.hdf5", "r") as f:
    assert abs(f["Header"].attrs["Time"] - 0.002) < 1e-15
print("snapshot values OK")
PY
else
  [ -f "$tmp/snap/snapshot_000.bin" ] && [ -f "$tmp/snap/snapshot_000.json" ] || gs_fail "no snapshot files"
fi
echo "ok: snapshots of gpusim nbody read back"

# Refusals: exit 2, one message.
bad() {
  out=$(gs_mpirun 2 nbody $common "$@" 2>&1)
  rc=$?
  [ $rc = 2 ] || { echo "$out"; gs_fail "'$*': exit $rc, want 2"; }
  echo "ok: $* -> $(echo "$out" | grep '^gpusim: error')"
}
bad --steps 30 --restart "$tmp/single" --precision double
bad --steps 30 --restart "$tmp/single" --n 700
bad --steps 5 --restart "$tmp/single"
bad --steps 30 --restart "$tmp/nothing-here"
f=$(ls "$tmp"/single/checkpoint_*.gsck)
cp "$f" "$tmp/damaged.gsck"
printf 'X' | dd of="$tmp/damaged.gsck" bs=1 seek=3000 conv=notrunc 2>/dev/null
bad --steps 30 --restart "$tmp/damaged.gsck"
head -c 4000 "$f" >"$tmp/short.gsck"
bad --steps 30 --restart "$tmp/short.gsck"
bad --steps 30 --walltime 1:99:00
echo "PASS"
