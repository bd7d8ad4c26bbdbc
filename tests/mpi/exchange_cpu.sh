#!/bin/sh
# --exchange on the CPU backend, 1 to 4 ranks: host, auto and cuda-mpi (MPI handed the device
# buffers, which are host memory here; GPUSIM_CUDA_AWARE_MPI=1 stands for a CUDA-aware library) end
# in bitwise the same state, overlap on and off; the header says which mode and why; the modes this
# build, backend or library cannot give are one-line usage errors (exit 2); reduce reports its
# device combine as unavailable, with the reason.
. "$GS_TEST_LIB"
GS_TIMEOUT=120
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="nbody --backend cpu --n 700 --steps 4 --iters 1 --kernel omp --progress off"
run() { # run NP MODE OVERLAP [ENV...]: the state hash; the header's exchange line in $tmp/line
  np=$1 mode=$2 ov=$3
  shift 3
  out=$(env "$@" GS_TIMEOUT=$GS_TIMEOUT sh -c '. "$GS_TEST_LIB"; gs_mpirun "$0" "$@"' "$np" $common --exchange "$mode" --overlap "$ov" 2>&1)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$np rank(s), --exchange $mode --overlap $ov: exit $rc"; }
  echo "$out" | grep '^# exchange: ' >"$tmp/line"
  h=$(echo "$out" | gs_hash_of)
  [ -n "$h" ] || { echo "$out"; gs_fail "$np rank(s), --exchange $mode: no final state"; }
  echo "$h"
}
says() { grep -qF -- "$1" "$tmp/line" || { cat "$tmp/line"; gs_fail "$2: the header does not say '$1'"; }; }

for np in 1 2 3 4; do
  for ov in on off; do
    [ $ov = off ] && [ $np != 3 ] && continue
    want=$(run $np host $ov)
    says "# exchange: host (--exchange host" "$np ranks, host"
    got=$(run $np auto $ov GPUSIM_CUDA_AWARE_MPI=0)
    [ "$got" = "$want" ] || gs_fail "$np ranks, overlap $ov: auto gives $got, host $want"
    if [ $np = 1 ]; then says "host (auto: one rank, nothing to exchange)" "1 rank, auto"
    else says "host (auto: no nccl: " "$np ranks, auto"; says "no cuda-mpi: GPUSIM_CUDA_AWARE_MPI=0" "$np ranks, auto"; fi
    got=$(run $np cuda-mpi $ov GPUSIM_CUDA_AWARE_MPI=1)
    [ "$got" = "$want" ] || gs_fail "$np ranks, overlap $ov: cuda-mpi gives $got, host $want"
    says "cuda-mpi (--exchange cuda-mpi: device buffers handed to MPI, GPUSIM_CUDA_AWARE_MPI=1)" "$np ranks, cuda-mpi"
    if [ $np -gt 1 ]; then
      got=$(run $np auto $ov GPUSIM_CUDA_AWARE_MPI=1)
      [ "$got" = "$want" ] || gs_fail "$np ranks: auto (CUDA-aware) gives $got, host $want"
      says "cuda-mpi (auto: " "$np ranks, auto with a CUDA-aware MPI"
    fi
    echo "ok: $np rank(s), overlap $ov: host, auto and cuda-mpi end in state $want"
  done
done

# Usage errors: exit 2 on every rank, one line from rank 0.
usage() { # usage WANT NP ARGS...
  want=$1 np=$2
  shift 2
  gs_mpirun "$np" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc = 2 ] || { cat "$tmp/out" "$tmp/err"; gs_fail "'$*' on $np: exit $rc, want 2"; }
  [ "$(grep -c '^gpusim: ' "$tmp/err")" = 1 ] || { cat "$tmp/err"; gs_fail "'$*' on $np: not one gpusim line"; }
  grep -qF -- "gpusim: error: $want" "$tmp/err" || { cat "$tmp/err"; gs_fail "'$*' on $np: the error does not say '$want'"; }
  echo "ok: $np rank(s): $(cat "$tmp/err")"
}
# Without CUDA there is no NCCL; a CUDA build (with or without NCCL) on the CPU backend says either.
info=$("$GPUSIM" info --backend cpu 2>&1)
rc=$?
[ $rc = 0 ] || { echo "$info"; gs_fail "gpusim info --backend cpu: exit $rc"; }
if echo "$info" | grep -q '^# CUDA: not built'; then
  nccl_why="--exchange nccl: this gpusim was built without NCCL (configure --with-nccl)"
else
  nccl_why="--exchange nccl: "
fi
for np in 1 3; do
  usage "$nccl_why" $np $common --exchange nccl
  GPUSIM_CUDA_AWARE_MPI=0 usage "--exchange cuda-mpi: GPUSIM_CUDA_AWARE_MPI=0 (--exchange host" $np $common --exchange cuda-mpi
done
usage "--exchange: " 2 $common --exchange gpu
# The library's own answer (no override): Debian's Open MPI is not CUDA-aware.
out=$(env -u GPUSIM_CUDA_AWARE_MPI sh -c '. "$GS_TEST_LIB"; gs_mpirun 2 "$@"' x $common --exchange cuda-mpi 2>&1)
rc=$?
case $rc in
  2) echo "$out" | grep -q '^gpusim: error: --exchange cuda-mpi: the MPI library' || { echo "$out"; gs_fail "cuda-mpi: no reason"; }
     echo "ok: this MPI library: $(echo "$out" | grep '^gpusim: ')" ;;
  0) echo "$out" | grep -q '^# exchange: cuda-mpi (--exchange cuda-mpi: device buffers handed to MPI, MPIX_Query_cuda_support() = 1)' ||
       { echo "$out"; gs_fail "cuda-mpi accepted without the library's yes"; }
     echo "ok: this MPI library is CUDA-aware" ;;
  *) echo "$out"; gs_fail "cuda-mpi, the library's answer: exit $rc" ;;
esac

# reduce: the device combine is reported, unavailable on the CPU backend.
out=$(gs_mpirun 2 reduce --backend cpu --total 10000 --kernel omp) || { echo "$out"; gs_fail "reduce on 2 ranks"; }
echo "$out" | grep -q '^# device combine: none (' || { echo "$out"; gs_fail "reduce: no device combine line"; }
gs_verified "$out" "reduce with the combine line"
echo "ok: reduce: $(echo "$out" | grep '^# device combine')"

# matmul: SUMMA's panels in each mode, verified, on a 1D (3 ranks) and a 2D (4 ranks) grid; the
# header names each direction's mode.
for np in 3 4; do
  for mode in host cuda-mpi; do
    out=$(GPUSIM_CUDA_AWARE_MPI=1 sh -c '. "$GS_TEST_LIB"; gs_mpirun "$0" "$@"' $np matmul --backend cpu --m 150 --n 130 \
      --k 170 --panel 16 --ic random --iters 1 --warmup 0 --exchange $mode 2>&1) || { echo "$out"; gs_fail "matmul on $np, $mode"; }
    gs_verified "$out" "matmul on $np ranks, --exchange $mode"
    echo "$out" | grep -q "^# exchange: A panels $mode (--exchange $mode" || { echo "$out"; gs_fail "matmul $mode: header"; }
    echo "ok: matmul on $np ranks, --exchange $mode: verified"
  done
done
usage "$nccl_why" 4 matmul --backend cpu --m 64 --exchange nccl
