#!/bin/sh
# gpusim nbody on the GPU: every kernel verified in both precisions, on every GPU of the machine
# (up to 4 ranks), overlap on and off giving the same energies on 1 rank and on several (2 ranks
# sharing the GPU with --gpu-share on a 1-GPU machine). Skips without a GPU.
. "$GS_TEST_LIB"
np=$(gs_gpu_ranks) || exit $?
for prec in single double; do
  for n in 1000 20000; do
    out=$(gs_mpirun $np nbody --backend cuda --n $n --steps 10 --precision $prec --iters 1)
    rc=$?
    [ $rc = 0 ] || { echo "$out"; gs_fail "$prec n=$n: exit $rc"; }
    gs_verified "$out" "$prec n=$n" 8
    echo "ok: $prec n=$n on $np GPU(s)"
  done
done
# Several ranks against one: never np=1 against itself, so a 1-GPU machine runs 2 ranks on its GPU.
ngpu=$(gs_gpus)
many=$np
[ "$many" = 1 ] && many=2
e1=""
for np2 in 1 $many; do
  share=""
  [ "$np2" -gt "$ngpu" ] && share=--gpu-share
  for ov in on off; do
    out=$(gs_mpirun $np2 nbody --backend cuda $share --n 5000 --steps 20 --precision double --kernel jsplit --overlap $ov)
    rc=$?
    [ $rc = 0 ] || { echo "$out"; gs_fail "np=$np2 overlap $ov: exit $rc"; }
    e=$(echo "$out" | awk '$1 == "20" && NF == 8 { print $5 }')
    [ -n "$e1" ] || e1=$e
    gs_near "np=$np2 overlap $ov: final energy against np=1 overlap on" "$e" "$e1" 1e-8
    echo "ok: np=$np2 overlap $ov E = $e"
  done
done
echo "PASS"
