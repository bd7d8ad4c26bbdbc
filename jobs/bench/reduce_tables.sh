#!/bin/bash
# reduce_tables.sh: the runs behind docs/performance.md's reduction tables. Run from a built
# tree on a GPU node: jobs/bench/reduce_tables.sh [OUTDIR] [MAXGPUS]. Each table's exact command
# is echoed before its output; rows also go to OUTDIR/reduce.csv (docs/results-schema.md).
set -uo pipefail
out=${1:-${OUT:-$PWD/bench-out}}
maxgpu=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
mkdir -p "$out"
mpirun="mpirun --allow-run-as-root --bind-to none"
run() { # run NP ARGS...: one gpusim run, its command and output kept
  local np=$1
  shift
  echo "\$ mpirun -np $np ./gpusim $*"
  $mpirun -np "$np" ./gpusim "$@" --csv "$out/reduce.csv" 2>&1
}
{
  # The seed's own case (SEEDS.md section 1: 2^22 ints, block 128), then 2^28.
  run 1 reduce --n 2^22 --block 128 --iters 100
  run 1 reduce --n 2^28 --block 256 --iters 30
  # gpusim's best against CUB, per type and size.
  for t in int float double; do
    for n in 2^20 2^24 2^28 2^30; do
      run 1 reduce --type $t --n $n --kernel vec,onepass,cub --iters 100 --warmup 10
    done
  done
  # Block size 512 for the modern kernels.
  for n in 2^20 2^24 2^28 2^30; do run 1 reduce --n $n --block 512 --kernel vec,onepass,cub --iters 100 --warmup 10; done
  # Input in pinned host memory, streamed.
  run 1 reduce --source host --n 2^28 --streams 4 --chunk 2^24 --kernel 7,onepass,cub --iters 10
  run 1 reduce --source host --n 2^30 --streams 4 --chunk 2^24 --kernel onepass --iters 5
  # Weak scaling across GPUs: 2^30 int32 per rank.
  np=2
  while [ "$np" -le "$maxgpu" ]; do
    run $np reduce --n 2^30 --kernel 7,vec,onepass,cub --iters 50
    np=$((np * 2))
  done
} | tee "$out/reduce_tables.txt"
