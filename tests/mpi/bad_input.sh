#!/bin/sh
# Bad input on 4 ranks: exit status 2, exactly one "gpusim:" line (from rank 0), no hang.
. "$GS_TEST_LIB"
GS_TIMEOUT=60
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
  gs_mpirun 4 "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc = 124 ] && gs_fail "'$*' hung"
  [ $rc = 2 ] || { cat "$tmp/out" "$tmp/err"; gs_fail "'$*': exit status $rc, want 2"; }
  n=$(grep -c '^gpusim: ' "$tmp/err")
  [ "$n" = 1 ] || { cat "$tmp/err"; gs_fail "'$*': $n gpusim lines on stderr, want 1"; }
  grep -q '^gpusim: error: ' "$tmp/err" || gs_fail "'$*': no 'gpusim: error:' line"
  echo "ok: $* -> $(grep '^gpusim: ' "$tmp/err")"
}
check frobnicate
check
check info --bogus
check reduce --n
check reduce --n abc
check reduce --n -5
check reduce --n 99999999999999999999999
check reduce --n 0
check reduce --block 100
check reduce --block 2048
check reduce --type quad
check reduce --kernel 8x
check reduce --iters=
check info --gpu-bind=first
check info --gpu-bind=0,,1
check info --gpu-share=yes
check reduce --backend cpu --kernel vec --n 1000
check reduce --backend cpu --total 3 --n 1000
[ "$(gs_gpus)" = 0 ] && check info --backend cuda

# Started as N singletons (srun without PMI): detected and refused.
SLURM_STEP_NUM_TASKS=4 timeout 60 "$GPUSIM" info --backend cpu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || gs_fail "singleton: exit status $rc, want 2"
grep -q 'singletons' "$tmp/err" || gs_fail "singleton: no message"
echo "ok: singleton detection -> $(cat "$tmp/err")"
echo "PASS"
