#!/bin/sh
# gpusim nbody on the GPU: every kernel verified in both precisions, on every GPU of the machine
# (up to 4 ranks), overlap on and off giving the same energies. Skips without a GPU.
. "$GS_TEST_LIB"
np=$(gs_gpu_ranks) || exit 77
for prec in single double; do
  for n in 1000 20000; do
    out=$(gs_mpirun $np nbody --backend cuda --n $n --steps 10 --precision $prec --iters 1) || { echo "$out"; gs_fail "$prec n=$n: exit $?"; }
    gs_verified "$out" "$prec n=$n" 8
    echo "ok: $prec n=$n on $np GPU(s)"
  done
done
for np2 in 1 $np; do
  for ov in on off; do
    out=$(gs_mpirun $np2 nbody --backend cuda --n 5000 --steps 20 --precision double --kernel jsplit --overlap $ov) || gs_fail "np=$np2 $ov"
    e=$(echo "$out" | awk '$1 == "20" && NF == 8 { print $5 }')
    [ -z "${e1:-}" ] && e1=$e
    awk -v a="$e" -v b="$e1" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-8) }' || gs_fail "np=$np2 $ov: E $e vs $e1"
    echo "ok: np=$np2 overlap $ov E = $e"
  done
done
echo "PASS"
