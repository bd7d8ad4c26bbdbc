#!/bin/sh
# gs_exchange_alltoallv (the domains layout's migration and LET exchange) on 2 and 3 ranks of the
# CPU backend: every byte where it belongs, and a rank that sends nothing through one buffer for
# both sides (Open MPI's libnbc took equal buffers for MPI_IN_PLACE: 2 ranks hung) ends in time;
# parts split into several messages (as those past MPI's int counts) arrive whole and in order.
# tests/mpi/gs_alltoallv_check.c does the exchanges and checks the bytes.
. "$GS_TEST_LIB"
[ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher (mpiexec) found by configure"
check=${GS_ALLTOALLV_CHECK:?}
[ -x "$check" ] || gs_hard "no $check"
for np in 2 3; do
  out=$(timeout 60 "$MPIEXEC" $GS_MPIFLAGS -n $np "$check" 2>&1)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$np ranks: exit $rc (124: it hung)"; }
  echo "$out" | grep -E "^$np ranks: .* 0 wrong bytes; .* 0 wrong bytes; .* 0 wrong bytes$" >/dev/null ||
    { echo "$out"; gs_fail "$np ranks"; }
  echo "ok: $out"
done
echo "PASS"
