#!/bin/sh
# --exchange on 2 GPUs: nccl, host, auto (which must pick nccl in an NCCL build) and cuda-mpi (where
# the MPI library is CUDA-aware; otherwise its one-line usage error) end in bitwise the same state,
# overlap on and off, single and double precision; nccl on one rank works too; reduce's device
# combine matches the reference for every type and operator; matmul's SUMMA panels travel in every
# mode, along the process row (1x2) and column (2x1), every kernel of every type verified on ragged
# sides, panels cut where a rank's share of K ends. Skips with fewer than 2 GPUs.
. "$GS_TEST_LIB"
np=$(gs_gpu_ranks) || exit $?
[ "$np" -ge 2 ] || gs_skip "fewer than 2 GPUs ($np)"
np=2
GS_TIMEOUT=300
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nccl=yes
out=$(gs_mpirun 1 nbody --backend cuda --n 1000 --steps 2 --kernel jsplit --iters 1 --exchange nccl 2>&1)
rc=$?
case $rc in
  0) echo "$out" | grep -q '^# exchange: nccl (--exchange nccl: NCCL ' || { echo "$out"; gs_fail "1 rank, nccl: header"; } ;;
  2) echo "$out" | grep -q 'gpusim: error: --exchange nccl: this gpusim was built without NCCL' || { echo "$out"; gs_fail "1 rank, nccl: exit 2"; }
     nccl=no; echo "note: this build has no NCCL: nccl is not compared" ;;
  *) echo "$out"; gs_fail "1 rank, --exchange nccl: exit $rc" ;;
esac
aware=yes
out=$(gs_mpirun 2 nbody --backend cuda --n 1000 --steps 2 --kernel jsplit --iters 1 --exchange cuda-mpi 2>&1)
rc=$?
case $rc in
  0) ;;
  2) echo "$out" | grep -q 'gpusim: error: --exchange cuda-mpi: ' || { echo "$out"; gs_fail "cuda-mpi: exit 2 without its line"; }
     aware=no; echo "note: $(echo "$out" | grep '^gpusim: error')" ;;
  *) echo "$out"; gs_fail "--exchange cuda-mpi: exit $rc" ;;
esac
modes="host auto"
[ $nccl = yes ] && modes="$modes nccl"
[ $aware = yes ] && modes="$modes cuda-mpi"
for prec in single double; do
  for ov in on off; do
    want=""
    for mode in $modes; do
      out=$(gs_mpirun $np nbody --backend cuda --n 5000 --steps 10 --precision $prec --kernel jsplit --iters 1 \
        --overlap $ov --exchange $mode 2>&1)
      rc=$?
      [ $rc = 0 ] || { echo "$out"; gs_fail "$prec, overlap $ov, --exchange $mode: exit $rc"; }
      h=$(echo "$out" | gs_hash_of)
      [ -n "$h" ] || { echo "$out"; gs_fail "$prec, $mode: no final state"; }
      [ -n "$want" ] || want=$h
      [ "$h" = "$want" ] || gs_fail "$prec, overlap $ov: --exchange $mode gives $h, host $want"
      if [ $mode = auto ] && [ $nccl = yes ]; then
        echo "$out" | grep -q '^# exchange: nccl (auto: NCCL ' || { echo "$out" | grep exchange; gs_fail "auto did not pick nccl"; }
      fi
      echo "ok: $prec, overlap $ov, --exchange $mode: state $h ($(echo "$out" | grep '^# per step' | sed 's/.*exchange \([0-9.]* ms\), \([^;]*\);.*/exchange \1, \2/'))"
    done
  done
done
# 1x2: A's panels travel along the process row; 2x1: B's along the process column.
for grid in 1x2 2x1; do
  for type in float double tf32; do
    for mode in $modes; do
      out=$(gs_mpirun $np matmul --backend cuda --m 1000 --n 777 --k 3001 --panel 512 --type $type --ic random \
        --kernel all --iters 1 --warmup 0 --exchange $mode --grid $grid 2>&1)
      rc=$?
      [ $rc = 0 ] || { echo "$out"; gs_fail "matmul $grid $type, --exchange $mode: exit $rc"; }
      gs_verified "$out" "matmul $grid $type, --exchange $mode"
      echo "$out" | grep -q "^# SUMMA: ${grid%x*} x ${grid#*x} process grid (1D), .* 6 panels of up to 512 " ||
        { echo "$out"; gs_fail "matmul $grid: grid or panels"; }
      echo "ok: matmul $grid $type, --exchange $mode: $(echo "$out" | grep -v '^#' | grep -cE ' OK$') kernels verified"
    done
  done
done
[ $nccl = yes ] || exit 0
for type in int float double; do
  for op in sum min max; do
    out=$(gs_mpirun $np reduce --backend cuda --n 1000000 --type $type --op $op --kernel 7 --iters 3 2>&1)
    rc=$?
    [ $rc = 0 ] || { echo "$out"; gs_fail "reduce $type $op: exit $rc"; }
    echo "$out" | grep -q '^# device combine (NCCL .* matches the reference$' || { echo "$out"; gs_fail "reduce $type $op: device combine"; }
    gs_verified "$out" "reduce $type $op"
    echo "ok: reduce $type $op: $(echo "$out" | grep -E '^# (MPI_Allreduce|device combine)' | sed 's/ of the partial results//' | tr '\n' ' ')"
  done
done
