#!/bin/sh
# gpusim matmul on the CPU backend: SUMMA on 1, 2, 3, 4 and 6 ranks (grids 1x1, 1x2, 1x3 (1D),
# 2x2, 2x3) with ragged sides, both input kinds, float and double; every --grid of 6 ranks and 2x1
# give the same C; --overlap on and off give the same C; a wrong C prints FAILED and exits 1; bad
# input is one line and exit 2; CSV rows.
. "$GS_TEST_LIB"
set -o pipefail 2>/dev/null || true
# Under pipefail, "echo | grep -q" can fail on a match: grep -q exits at the first matching line
# and echo may then die of SIGPIPE. So the pipes below end in grep ... >/dev/null, which reads all.
export OMP_NUM_THREADS=1
common="--backend cpu --iters 1 --warmup 0"
ragged="--m 97 --n 65 --k 129 --panel 16"
# csum OUTPUT: the "sum of C" of the (first) kernel, which must be there.
csum() {
  s=$(echo "$1" | sed -n 's/^#   sum of C: \([^;]*\).*/\1/p' | head -1)
  [ -n "$s" ] || { echo "$1"; gs_fail "no 'sum of C' line"; }
  echo "$s"
}
for np in 1 2 3 4 6; do
  case $np in 1) grid="" ;; 2) grid="1 x 2 process grid (1D)" ;; 3) grid="1 x 3 process grid (1D)" ;;
    4) grid="2 x 2 process grid," ;; 6) grid="2 x 3 process grid," ;; esac
  for ic in seed random; do
    for t in float double; do
      out=$(gs_mpirun $np matmul $common $ragged --ic $ic --type $t 2>&1)
      rc=$?
      [ $rc = 0 ] || { echo "$out"; gs_fail "np=$np $ic $t: exit status $rc"; }
      gs_verified "$out" "np=$np $ic $t" 1
      [ -z "$grid" ] || echo "$out" | grep -F "# SUMMA: $grid" >/dev/null || { echo "$out"; gs_fail "np=$np: not a $grid"; }
      echo "ok: np=$np --ic $ic --type $t $(csum "$out")"
    done
  done
  # --overlap off is the serial schedule of the same panels: the same C, bit for bit.
  on=$(gs_mpirun $np matmul $common $ragged --ic random --overlap on 2>&1) || { echo "$on"; gs_fail "np=$np overlap on: exit"; }
  off=$(gs_mpirun $np matmul $common $ragged --ic random --overlap off 2>&1) || { echo "$off"; gs_fail "np=$np overlap off: exit"; }
  gs_verified "$off" "np=$np overlap off" 1
  [ "$(csum "$on")" = "$(csum "$off")" ] || gs_fail "np=$np: overlap on gives $(csum "$on"), off $(csum "$off")"
  echo "ok: np=$np overlap on = off"
done
# The seed's matrices in double are exact whatever the rank count: the same sum of C.
s1=$(csum "$(gs_mpirun 1 matmul $common $ragged --type double)")
s6=$(csum "$(gs_mpirun 6 matmul $common $ragged --type double)")
[ "$s1" = "$s6" ] || gs_fail "seed double: np=1 sum $s1, np=6 sum $s6"
# --grid: every shape of 6 ranks (and 2x1: B's panels travel, A's stay) gives that same C; random
# inputs pass the checks on each.
for g in 2x1 1x6 6x1 3x2 2x3; do
  np=$((${g%x*} * ${g#*x}))
  out=$(gs_mpirun $np matmul $common $ragged --type double --grid $g 2>&1) || { echo "$out"; gs_fail "--grid $g: exit"; }
  echo "$out" | grep "^# SUMMA: ${g%x*} x ${g#*x} process grid" >/dev/null || { echo "$out"; gs_fail "--grid $g: not that grid"; }
  [ "$(csum "$out")" = "$s1" ] || gs_fail "--grid $g: sum of C $(csum "$out"), np=1 $s1"
  out=$(gs_mpirun $np matmul $common $ragged --ic random --grid $g 2>&1) || { echo "$out"; gs_fail "--grid $g random: exit"; }
  gs_verified "$out" "--grid $g random" 1
  echo "ok: --grid $g"
done
# The default panel (8192) is cut to the largest share of K, and so are its buffers: K = 3001 on a
# 2 x 3 grid is split in thirds of 1001, 1000, 1000 (A's columns) and halves of 1501, 1500 (B's
# rows): panels [0, 250) (the first, on a 2D grid, a quarter of 1001), [250, 1001), [1001, 1501),
# [1501, 2001), [2001, 3001).
out=$(gs_mpirun 6 matmul $common --m 40 --n 50 --k 3001 --ic random 2>&1) || { echo "$out"; gs_fail "default panel: exit"; }
gs_verified "$out" "default panel on 6 ranks" 1
echo "$out" | grep '^# SUMMA: 2 x 3 process grid, .*; 5 panels of up to 1001 ' >/dev/null || { echo "$out"; gs_fail "default panel: not cut to the share of K, or the first one not to a quarter"; }
# More ranks than rows, columns or K (empty blocks), and a panel wider than K.
out=$(gs_mpirun 6 matmul $common --m 1 --n 2 --k 1 --ic random 2>&1) || { echo "$out"; gs_fail "1x2x1 on 6 ranks: exit"; }
gs_verified "$out" "1x2x1 on 6 ranks" 1
# A wrong C prints FAILED and exits 1 (the hook corrupts one element of the last rank's block).
# Each check must see it on its own: the element check (seed); Freivalds' test, on the other
# ranks of the process row, which sample no entry of that block (random).
for ic in seed random; do
  out=$(GPUSIM_TEST_CORRUPT_RESULT=1 gs_mpirun 3 matmul $common $ragged --ic $ic 2>&1)
  rc=$?
  echo "$out" | grep '^# verification: FAILED' >/dev/null || { echo "$out"; gs_fail "$ic: corrupted C not reported"; }
  [ $rc = 1 ] || gs_fail "$ic: corrupted C: exit status $rc, want 1"
  case $ic in seed) what="rank 2: kernel omp: element" ;; random) what="rank 0: kernel omp: Freivalds row" ;; esac
  echo "$out" | grep "^gpusim: $what" >/dev/null || { echo "$out"; gs_fail "$ic: corrupted C: no '$what' line"; }
  echo "ok: corrupted C ($ic) fails"
done
# Bad input: exactly one "gpusim:" line (from rank 0), saying what, exit status 2 on every rank.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad() {
  want=$1
  shift
  gs_mpirun 2 matmul --backend cpu "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc = 2 ] || { cat "$tmp/out" "$tmp/err"; gs_fail "'$*': exit status $rc, want 2"; }
  [ "$(grep -c '^gpusim: ' "$tmp/err")" = 1 ] && grep -q '^gpusim: error: ' "$tmp/err" ||
    { cat "$tmp/err"; gs_fail "'$*': not one 'gpusim: error:' line"; }
  grep -qF -- "$want" "$tmp/err" || { cat "$tmp/err"; gs_fail "'$*': the error does not say '$want'"; }
  echo "ok: bad input '$*': $(grep '^gpusim: ' "$tmp/err")"
}
bad "out of range" --n 0
bad "out of range" --m 2^31
bad "--type" --type half
bad "no kernel of the cpu backend runs --type tf32" --type tf32
bad "'smem9' is not a kernel" --kernel smem9
bad "does not run on the cpu backend" --kernel cublas
bad "empty entry" --kernel omp,
bad "--seed is for --ic random" --ic seed --seed 3
bad "out of range" --panel 0
bad "give a larger --panel" --n 64 --panel 1 --k 70000
bad "--grid 2x2 is 4 processes, but the job has 2 ranks" --grid 2x2
bad "--grid 2x: give RxC" --grid 2x
bad "--grid 0x2: give RxC" --grid 0x2
# CSV: one row for the job and one per rank, all checked OK.
out=$(gs_mpirun 2 matmul $common $ragged --csv "$tmp/r.csv" 2>&1) || { echo "$out"; gs_fail "--csv: exit"; }
rows=$(grep -c ',matmul,omp,' "$tmp/r.csv")
[ "$rows" = 3 ] || { cat "$tmp/r.csv"; gs_fail "--csv: $rows matmul rows, want 3"; }
[ "$(grep -c 'check=OK' "$tmp/r.csv")" = 3 ] && grep -q 'grid=1x2;panel=16' "$tmp/r.csv" ||
  { cat "$tmp/r.csv"; gs_fail "--csv: params"; }
grep -q ',flops,.*,TFLOP/s,' "$tmp/r.csv" || { cat "$tmp/r.csv"; gs_fail "--csv: metric or unit"; }
echo "PASS"
