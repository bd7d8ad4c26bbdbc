#!/bin/sh
# Bad input on 4 ranks: exit status 2, exactly one "gpusim:" line (from rank 0), no hang. The
# sizes that the memory check must refuse are checked under GPUSIM_MEMORY_LIMIT, so that they do
# not depend on the machine (a 512 GB host takes 2^31 bodies and runs them for hours); then the
# variable itself: a small run refused under a small limit by every workload, bad values, and the
# same small run going on without it.
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
expect "unknown option '--n': it is a subcommand's option, given after the subcommand" --backend cpu --n 5
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
GPUSIM_MEMORY_LIMIT=4G
export GPUSIM_MEMORY_LIMIT
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
  grep -qF "does not fit in the" "$tmp/err" || { cat "$tmp/err"; gs_fail "2147483653 bodies: not the memory check"; }
  expect "--n: 2^41 is out of range" nbody --backend cpu --n 2^41
  expect "(double precision) does not fit in the" nbody --backend cpu --n 2^30 --precision double
done
np=4
expect "--n 4611686018427387904 on 4 ranks: more than 2^64 elements in all" reduce --backend cpu --n 2^62
# GPUSIM_MEMORY_LIMIT: every workload's check takes it (64 KiB: less than any machine has).
GPUSIM_MEMORY_LIMIT=64K
expect "does not fit in the 6.55e-05 GB of memory of rank 0's host, shared by the node's ranks (capped by GPUSIM_MEMORY_LIMIT=64K)" \
  nbody --backend cpu --n 1024
expect "(capped by GPUSIM_MEMORY_LIMIT=64K)" reduce --backend cpu --n 1000
expect "(capped by GPUSIM_MEMORY_LIMIT=64K)" matmul --backend cpu --n 64
for v in abc 0 -5 2^64 '1 G' 64KB; do
  GPUSIM_MEMORY_LIMIT=$v
  expect "GPUSIM_MEMORY_LIMIT=$v: " nbody --backend cpu --n 1024
done
expect "GPUSIM_MEMORY_LIMIT=64KB: not a number" info --backend cpu
# Unset or empty (what the system reports), or more than the machine has: the same run goes on.
for v in unset '' 2^60; do
  out=$(if [ "$v" = unset ]; then unset GPUSIM_MEMORY_LIMIT; else GPUSIM_MEMORY_LIMIT=$v; fi
    gs_mpirun 4 nbody --backend cpu --n 1024 --steps 1 --iters 1 --progress off 2>&1)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "GPUSIM_MEMORY_LIMIT ${v:-empty}: nbody --n 1024 exit $rc, want 0"; }
  gs_verified "$out" "GPUSIM_MEMORY_LIMIT ${v:-empty}: nbody --n 1024"
  echo "ok: GPUSIM_MEMORY_LIMIT ${v:-empty}: nbody --n 1024 runs"
done
unset GPUSIM_MEMORY_LIMIT
[ "$(gs_gpus)" = 0 ] && check info --backend cuda

# Started as N singletons (srun without PMI): detected and refused.
SLURM_STEP_NUM_TASKS=4 timeout 60 "$GPUSIM" info --backend cpu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || gs_fail "singleton: exit status $rc, want 2"
grep -q 'singletons' "$tmp/err" || gs_fail "singleton: no message"
echo "ok: singleton detection -> $(cat "$tmp/err")"

# Issue 30, item 11: each message says what is wrong, on 1 and 3 ranks.
printf '0 0 0 0 0 0 1\n1 0 0 0 0 0 1\n0 1\000 0 0 0 0 1      xx\n' >"$tmp/nul.txt"
printf '0 0 0 0 0 0 1\n1e999 0 0 0 0 0 1\n' >"$tmp/huge.txt"
printf '# no bodies\n\n' >"$tmp/empty.txt"
for np in 1 3; do
  expect "--kernel omp,omp: 'omp' is given twice" nbody --backend cpu --kernel omp,omp
  expect "--kernel 1,global: '1' and 'global' are the same kernel, given twice" nbody --backend cpu --kernel 1,global
  expect "--kernel all,omp: 'all' is every kernel: give it alone" reduce --backend cpu --kernel all,omp
  expect "--ic $tmp/nul.txt:3: the line holds a NUL byte" nbody --backend cpu --ic "$tmp/nul.txt"
  expect "--ic $tmp/huge.txt:2: want 7 numbers 'x y z vx vy vz m', got a value that is not finite" \
    nbody --backend cpu --ic "$tmp/huge.txt"
  # The tree's domains layout: rank 0 alone checks and counts the file, the same messages.
  expect "--ic $tmp/nul.txt:3: the line holds a NUL byte" nbody --backend cpu --solver tree --ic "$tmp/nul.txt"
  expect "--ic $tmp/huge.txt:2: want 7 numbers" nbody --backend cpu --solver tree --ic "$tmp/huge.txt"
  expect "--ic $tmp/empty.txt: no bodies in the file" nbody --backend cpu --solver tree --ic "$tmp/empty.txt"
  expect "--ic $tmp: not a regular file" nbody --backend cpu --solver tree --ic "$tmp"
  expect "gpusim: error: --n is an option of nbody: give it after the subcommand (gpusim nbody --n ...)" --n 5 nbody
  expect "gpusim: error: unknown option '--frob' (try 'gpusim --help')" --frob 5
  expect "--force-tol: must be > 0" nbody --backend cpu --solver tree --force-tol 0
  expect "--dt: must be > 0" nbody --backend cpu --dt 1e-400
done
# No --panel can help: a 1x3 grid's panel of 2^31 - 1 rows is at most 1 wide, and then K takes
# 2^31 - 1 panels; and where one can, the message gives the bound.
np=3
expect "matmul 2147483647 x 2147483647 x 2147483647 on a 1x3 grid: no --panel fits" matmul --backend cpu --n 2147483647
expect "--panel 64: a panel of 67108864 x 64 or 64 x 22369622 elements passes MPI's int count; give --panel 31 or less" \
  matmul --backend cpu --n 2^26 --k 2^20 --panel 64
expect "--panel 2: 524289 SUMMA panels of K = 1048576, more than 65536; give a larger --panel (at most 31)" \
  matmul --backend cpu --n 2^26 --k 2^20 --panel 2
echo "PASS"
