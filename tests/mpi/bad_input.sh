#!/bin/sh
# Bad input on 4 ranks: exit status 2, exactly one "gpusim:" line (from rank 0), no hang.
. "$GS_TEST_LIB"
GS_TIMEOUT=60
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
  gs_mpirun "${np:-4}" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc = 124 ] && gs_fail "'$*' hung"
  [ $rc = 2 ] || { cat "$tmp/out" "$tmp/err"; gs_fail "'$*': exit status $rc, want 2"; }
  n=$(grep -c '^gpusim: ' "$tmp/err")
  [ "$n" = 1 ] || { cat "$tmp/err"; gs_fail "'$*': $n gpusim lines on stderr, want 1"; }
  grep -q '^gpusim: error: ' "$tmp/err" || gs_fail "'$*': no 'gpusim: error:' line"
  echo "ok: $* -> $(grep '^gpusim: ' "$tmp/err")"
}
# expect WANT ARGS...: as check, and the one error line says WANT (which error, not only that).
expect() {
  want=$1
  shift
  check "$@"
  grep -qF -- "$want" "$tmp/err" || { cat "$tmp/err"; gs_fail "'$*': the error does not say '$want'"; }
}
check frobnicate
# No subcommand runs the main job (tests/mpi/main_job.sh), which takes the common options only.
expect "unknown option '--n' with no subcommand before it: only the common options apply" --backend cpu --n 5
expect "--gpu-bind: 'x' is not local, none or a list" --backend cpu --gpu-bind x
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
expect 'is smaller than the 4 ranks' reduce --backend cpu --total 3
# Missing values, repeated and contradictory options, empty list elements.
expect "--n needs a value (N)" nbody --n --steps 3
expect "--n is given more than once" reduce --n 1000 --n 2000
expect "--n (elements per rank) and --total (over all ranks) contradict" reduce --backend cpu --total 4000 --n 1000
expect "--kernel: 'omp,' has an empty entry" reduce --backend cpu --kernel omp,
expect "--kernel: 'omp,' has an empty entry" nbody --backend cpu --kernel omp,
# Sizes whose byte counts wrap 64 bits, or that cannot be allocated: one line, no crash, no hang.
for np in 1 3; do
  expect "--n 4611686018427387904: 4611686018427387904 int elements per rank (4 bytes each): more than 2^63 bytes" \
    reduce --backend cpu --n 2^62
  expect "--n 2305843009213693952: 2305843009213693952 double elements per rank (8 bytes each): more than 2^63 bytes" \
    reduce --backend cpu --n 2^61 --type double
  expect "--total 4611686018427387904: " reduce --backend cpu --total 2^62 --source host
  expect "input per rank does not fit in the" reduce --backend cpu --n 2^50 --type double
  # MPI counts are whole tiles of 128 bodies: 2^31 bodies and more decompose (issue 13); past
  # INT_MAX tiles they do not.
  expect "549755813888 bodies: more than the 274877906816 (2147483647 tiles of 128) that MPI's int counts allow" \
    nbody --backend cpu --n 2^39
  expect "2147483653 bodies: " nbody --backend cpu --n 2147483653
  expect "--n: 2^41 is out of range" nbody --backend cpu --n 2^41
  expect "(double precision) does not fit in the" nbody --backend cpu --n 2^30 --precision double
done
np=4
expect "--n 4611686018427387904 on 4 ranks: more than 2^64 elements in all" reduce --backend cpu --n 2^62
[ "$(gs_gpus)" = 0 ] && check info --backend cuda

# Started as N singletons (srun without PMI): detected and refused.
SLURM_STEP_NUM_TASKS=4 timeout 60 "$GPUSIM" info --backend cpu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || gs_fail "singleton: exit status $rc, want 2"
grep -q 'singletons' "$tmp/err" || gs_fail "singleton: no message"
echo "ok: singleton detection -> $(cat "$tmp/err")"
echo "PASS"
