#!/bin/sh
# gpusim matmul's SUMMA on the GPU backend, 1D and 2D: 1, 2, 3, 4 and 6 ranks (grids 1x2, 1x3, 2x2,
# 2x3; ranks share the GPUs with --gpu-share where there are fewer), every kernel of every type on
# ragged sides verified, the same kernels on every rank count; on 2x2, --overlap off gives the same
# C as on; the seed's matrices in double give the same exact C on 1, 4 and 6 ranks. Exchange modes
# and one GPU per rank: exchange_gpu.sh. Skips without a GPU.
. "$GS_TEST_LIB"
gs_gpu_ranks >/dev/null || exit $?
ngpu=$(gs_gpus)
common="--backend cuda --iters 1 --warmup 0"
ragged="--m 1000 --n 777 --k 3001 --panel 512"
# run NP ARGS...: gpusim matmul on NP ranks, sharing the GPUs when NP exceeds them; its output in out.
run() {
  np=$1
  shift
  share=""
  [ "$np" -gt "$ngpu" ] && share=--gpu-share
  out=$(gs_mpirun $np matmul $common $share "$@" 2>&1)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "np=$np '$*': exit status $rc"; }
}
# sums OUTPUT: every kernel's "sum of C", one line.
sums() { echo "$1" | sed -n 's/^#   sum of C: \([^;]*\).*/\1/p' | tr '\n' ' '; }
for t in float double tf32; do
  want=""
  for np in 1 2 3 4 6; do
    case $np in 1) grid="" ;; 2) grid="1 x 2 process grid (1D)" ;; 3) grid="1 x 3 process grid (1D)" ;;
      4) grid="2 x 2 process grid," ;; 6) grid="2 x 3 process grid," ;; esac
    run $np $ragged --type $t --ic random --kernel all
    gs_verified "$out" "np=$np $t"
    [ -z "$grid" ] || echo "$out" | grep -qF "# SUMMA: $grid" || { echo "$out"; gs_fail "np=$np: not a $grid"; }
    ok=$(echo "$out" | grep -v '^#' | grep -E ' OK$' | awk '{print $1}' | tr '\n' ' ')
    [ -n "$ok" ] || { echo "$out"; gs_fail "np=$np $t: no kernel row checked OK"; }
    [ -n "$want" ] || want=$ok
    [ "$ok" = "$want" ] || { echo "$out"; gs_fail "np=$np $t: kernels checked OK '$ok', on 1 rank '$want'"; }
    echo "ok: np=$np --type $t: $ok"
  done
done
# The 2x2 grid with --overlap off is the serial schedule of the same panels: the same C, bit for bit.
for k in "--type float --kernel simt" "--type double --kernel dmma"; do
  run 4 $ragged $k --ic random --overlap on
  on=$out
  run 4 $ragged $k --ic random --overlap off
  off=$out
  gs_verified "$off" "2x2 $k, overlap off" 1
  [ -n "$(sums "$on")" ] && [ "$(sums "$on")" = "$(sums "$off")" ] ||
    gs_fail "2x2 $k: overlap on gives '$(sums "$on")', off '$(sums "$off")'"
  echo "ok: 2x2 $k: overlap on = off"
done
# The seed's matrices in double: every element of C is an integer, exact in every kernel and rank
# count, and at K = 1001 the sum of |C| stays below 1e15 < 2^53, so the sum is exact in any order.
seed="--m 1000 --n 777 --k 1001 --panel 256 --type double --kernel simt,dmma,cublas"
run 1 $seed
s1=$(sums "$out")
for n in 4 6; do
  run $n $seed
  gs_verified "$out" "seed double, np=$n" 3
  [ -n "$s1" ] && [ "$(sums "$out")" = "$s1" ] || gs_fail "seed double: np=$n sums '$(sums "$out")', np=1 '$s1'"
done
echo "ok: seed double: the same exact C on 1, 4 and 6 ranks: $s1"
echo "PASS"
