#!/bin/bash
# nbody_tables.sh: the runs behind docs/performance.md's N-body tables. Run from a built tree on
# a GPU node: jobs/bench/nbody_tables.sh [OUTDIR] [MAXGPUS]. Each command is echoed before its
# output; rows also go to OUTDIR/nbody.csv (docs/results-schema.md).
set -uo pipefail
out=${1:-${OUT:-$PWD/bench-out}}
maxgpu=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
mkdir -p "$out"
mpirun="mpirun --allow-run-as-root --bind-to none"
run() { # run NP ARGS...
  local np=$1
  shift
  echo "\$ mpirun -np $np ./gpusim $*"
  $mpirun -np "$np" ./gpusim "$@" --csv "$out/nbody.csv" 2>&1
}
{
  # The seed 004 ladder and ours, single and double precision.
  run 1 nbody --n 2^18 --steps 2 --iters 3
  run 1 nbody --n 2^18 --steps 2 --iters 3 --precision double --kernel soften,fma,multi,jsplit
  # The headline: N = 2^20 single, 2^18 double.
  run 1 nbody --n 2^20 --steps 10 --iters 5 --kernel fma,multi,jsplit
  # Strong scaling, overlap on and off.
  for n in 2^16 2^20; do
    np=1
    while [ "$np" -le "$maxgpu" ]; do
      for ov in on off; do run $np nbody --n $n --steps 20 --iters 3 --kernel jsplit --overlap $ov; done
      np=$((np * 2))
    done
  done
  # Weak scaling: N^2 / P fixed (N = 2^18 sqrt(P)).
  for p in 1:262144 2:370728 4:524288; do
    np=${p%%:*}
    [ "$np" -le "$maxgpu" ] && run $np nbody --n ${p##*:} --steps 10 --iters 3 --kernel jsplit
  done
  # The seed 003 experiment: the 2D disk, N = 10240 and 20480, 10 steps, GPU vs one CPU core.
  for n in 10240 20480; do
    run 1 nbody --ic disk --n $n --steps 10 --iters 3 --kernel shared,jsplit
    OMP_NUM_THREADS=1 run 1 nbody --ic disk --n $n --steps 10 --iters 1 --backend cpu
  done
} | tee "$out/nbody_tables.txt"
