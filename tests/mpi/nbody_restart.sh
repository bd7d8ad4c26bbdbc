#!/bin/sh
# Long runs that lose nothing, on the CPU backend: N steps + checkpoint + restart + N steps ends
# in exactly the state of 2N steps (same ranks); SIGUSR1 and the wall-clock budget make a run
# checkpoint and exit 0 with the resume command; --checkpoint-interval checkpoints by the clock;
# resuming on another rank count ends in the same state within round-off; damaged or mismatched
# checkpoints are refused, each with its own message.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cpu --n 600 --iters 1 --kernel omp --energy-every 5 --progress lines"

for prec in single double; do
  out=$(gs_mpirun 2 nbody $common --precision $prec --steps 20) || gs_fail "$prec: 20 steps"
  whole=$(echo "$out" | gs_hash_of)
  out=$(gs_mpirun 2 nbody $common --precision $prec --steps 10 --checkpoint-every 10 --output "$tmp/$prec") || gs_fail "$prec: 10 steps"
  echo "$out" | grep -q '^# checkpoint: step 10 written' || { echo "$out"; gs_fail "$prec: no checkpoint at step 10"; }
  out=$(gs_mpirun 2 nbody $common --steps 20 --restart "$tmp/$prec") || { echo "$out"; gs_fail "$prec: restart"; }
  echo "$out" | grep -q '^# restart: from' || gs_fail "$prec: no restart line"
  echo "$out" | grep -q "$prec precision" || gs_fail "$prec: precision not taken from the checkpoint"
  resumed=$(echo "$out" | gs_hash_of)
  [ -n "$whole" ] && [ "$whole" = "$resumed" ] || gs_fail "$prec: 20 steps give $whole, 10 + restart + 10 give $resumed"
  echo "ok: $prec: 10 + restart + 10 steps = 20 steps, state $whole"
done
# Another rank count may resume: the force sums split differently, so the state after 10 more
# steps is that of the uninterrupted run within round-off: every position and velocity within
# 1e-12 (double precision, values of order 1; a lost or misplaced body is off by 1e-3 or more), and
# the printed energies to their last printed digit.
out=$(gs_mpirun 2 nbody $common --precision double --steps 20 --snapshot-every 10 --output "$tmp/whole") ||
  gs_fail "uninterrupted run with snapshots"
row2=$(echo "$out" | awk '$1 == "20" && NF == 8 { print $3, $4, $5 }')
out=$(gs_mpirun 4 nbody $common --steps 20 --restart "$tmp/double" --snapshot-every 10 --output "$tmp/four")
rc=$?
[ $rc = 0 ] || { echo "$out"; gs_fail "restart on 4 ranks: exit $rc"; }
echo "$out" | grep -q 'same state only within round-off' || gs_fail "no note about the rank count"
row4=$(echo "$out" | awk '$1 == "20" && NF == 8 { print $3, $4, $5 }')
for c in 1 2 3; do
  gs_near "4-rank resume: energy column $c at step 20" "$(echo $row4 | cut -d' ' -f$c)" "$(echo $row2 | cut -d' ' -f$c)" 2e-9
done
# Positions and velocities from the snapshots, where this machine has a reader for the format
# (without one, the energies above still hold the resume to round-off).
(gs_snap_dump "$tmp/whole/snapshot_002") >"$tmp/d2" && (gs_snap_dump "$tmp/four/snapshot_002") >"$tmp/d4"
rc=$?
[ $rc = 0 ] || [ $rc = 77 ] || gs_fail "reading the snapshots of step 20: exit $rc"
if [ $rc = 77 ]; then
  echo "note: no reader here for $(ls "$tmp/four"): positions not compared, the energies were"
else
  worst=$(paste -d' ' "$tmp/d2" "$tmp/d4" | awk '
    NR == 1 { if ($0 != "time 0.02 step 20 n 600 time 0.02 step 20 n 600") { print "header: " $0; exit } next }
    $1 != $9 { print "row " NR - 1 ": ids " $1 ", " $9; exit }
    { for (k = 2; k <= 7; k++) { d = $k - $(k + 8); if (d < 0) d = -d; if (d > w) w = d } }
    END { if (NR != 601) print NR - 1 " bodies"; else printf "%.3g\n", w }')
  echo "ok: resumed on 4 ranks: largest position/velocity difference to the 2-rank run: $worst"
  gs_below "4-rank resume: largest position/velocity difference" "$worst" 1e-12
fi

# --checkpoint-interval: checkpoints by the wall clock (every 0.12 s here, none by step count)
# during a run that --walltime stops after about 7 s whatever the machine's speed (a fixed step
# count ends before the first interval on a fast one); the stop adds one more. The last one is
# there and resumes. (With 3 s, a busy CI machine's 0.35 s fsync of a checkpoint, or ASan, made the
# budget's reserve, two steps and two checkpoints and a second, stop the run after 2.)
out=$(gs_mpirun 2 nbody --backend cpu --n 256 --iters 1 --steps 100000000 --walltime 00:00:10 \
  --checkpoint-interval 0.002 --output "$tmp/clock" --progress off) || gs_fail "--checkpoint-interval run: exit $?"
n=$(echo "$out" | grep -c '^# checkpoint: step [0-9]* written')
last=$(echo "$out" | sed -n 's/^# checkpoint: step \([0-9]*\) written.*/\1/p' | tail -1)
[ "$n" -ge 3 ] || { echo "$out"; gs_fail "--checkpoint-interval: $n checkpoint(s), want 3 or more"; }
[ -f "$tmp/clock/checkpoint_$(printf '%09d' "$last").gsck" ] || { ls "$tmp/clock"; gs_fail "no checkpoint file for step $last"; }
out=$(gs_mpirun 2 nbody --backend cpu --iters 1 --steps $((last + 2)) --restart "$tmp/clock" --progress off) ||
  gs_fail "resume from the interval checkpoint"
echo "$out" | grep -q "^# restart: from .* at step $last " || gs_fail "did not resume at step $last"
echo "$out" | grep -q "^# final state: step $((last + 2))," || gs_fail "the resumed run did not reach step $((last + 2))"
echo "ok: --checkpoint-interval: $n checkpoints by the clock, resumed from step $last"

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

# Refusals: exit 2 and exactly one line, the one for that refusal (bad WANT ARGS...: WANT is a
# grep -E pattern for the text after "gpusim: error: ").
bad() {
  want=$1
  shift
  # --n may be given once: the case that gives another N replaces common's.
  case " $* " in *" --n "*) args="${common/--n 600 /}" ;; *) args=$common ;; esac
  out=$(gs_mpirun 2 nbody $args "$@" 2>&1)
  rc=$?
  [ $rc = 2 ] || { echo "$out"; gs_fail "'$*': exit $rc, want 2"; }
  [ "$(echo "$out" | grep -c '^gpusim: error: ')" = 1 ] || { echo "$out"; gs_fail "'$*': not exactly one error line"; }
  echo "$out" | grep -qE "^gpusim: error: $want" || { echo "$out"; gs_fail "'$*': want the message '$want'"; }
  echo "ok: $* -> $(echo "$out" | grep '^gpusim: error')"
}
ck="--restart $tmp/single:"
bad "$ck the checkpoint is in single precision, --precision says double" --steps 30 --restart "$tmp/single" --precision double
bad "$ck the checkpoint has N = 600, --n says 700" --steps 30 --restart "$tmp/single" --n 700
bad "$ck the checkpoint's time step is 0.001, --dt says 0.002" --steps 30 --restart "$tmp/single" --dt 0.002
bad "$ck the checkpoint's softening is 0.01, --eps says 0.02" --steps 30 --restart "$tmp/single" --eps 0.02
bad "$ck the checkpoint started from 'plummer', --ic says 'uniform'" --steps 30 --restart "$tmp/single" --ic uniform
bad "$ck the checkpoint is at step 10; --steps 5 is the step to end at" --steps 5 --restart "$tmp/single"
bad "--restart $tmp/nothing-here: No such file or directory" --steps 30 --restart "$tmp/nothing-here"
f=$(ls "$tmp"/single/checkpoint_*.gsck)
cp "$f" "$tmp/damaged.gsck"
printf 'X' | dd of="$tmp/damaged.gsck" bs=1 seek=3000 conv=notrunc 2>/dev/null
bad "--restart $tmp/damaged.gsck: the data are corrupted \(checksum mismatch\)" --steps 30 --restart "$tmp/damaged.gsck"
head -c 4000 "$f" >"$tmp/short.gsck"
bad "--restart $tmp/short.gsck: the file is 4000 bytes, the header says [0-9]+: truncated" --steps 30 --restart "$tmp/short.gsck"
bad "--walltime: '1:99:00' is not HH:MM:SS" --steps 30 --walltime 1:99:00
echo "PASS"
