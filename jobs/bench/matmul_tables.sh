#!/bin/bash
# matmul_tables.sh: the runs behind docs/performance.md's matrix-multiply tables. Run from a built
# tree on a GPU node: jobs/bench/matmul_tables.sh [OUTDIR] [MAXGPUS]. Each table's exact command
# is echoed before its output; rows also go to OUTDIR/matmul.csv (docs/results-schema.md).
# The seed's experiment (SEEDS.md section 3): N = 2048, the ladder in float and double, and one
# CPU core (the CPU backend on one OpenMP thread) for the seed's speedup column, which the last
# table computes from the rows: one core's median time over each kernel's.
set -uo pipefail
out=${1:-${OUT:-$PWD/bench-out}}
maxgpu=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
mkdir -p "$out"
mpirun="mpirun --allow-run-as-root --bind-to none"
run() { # run NP ARGS...: one gpusim run, its command and output kept
  local np=$1
  shift
  echo "\$ mpirun -np $np ./gpusim $*"
  $mpirun -np "$np" ./gpusim "$@" --csv "$out/matmul.csv" 2>&1
}
{
  # The seed's ladder on the GPU, then one CPU core on the same problem.
  for t in float double; do run 1 matmul --n 2048 --type $t --kernel ladder,cublas --iters 20 --warmup 3; done
  for t in float double; do OMP_NUM_THREADS=1 run 1 matmul --backend cpu --n 2048 --type $t --iters 1 --warmup 0; done
  # Ours against cuBLAS, per type and size (the issue's targets: ratios to the cuBLAS row).
  for n in 4096 8192 16384; do
    run 1 matmul --n $n --type float --kernel simt,cublas --iters 10 --warmup 2
    run 1 matmul --n $n --type double --iters 10 --warmup 2
    run 1 matmul --n $n --type tf32 --iters 10 --warmup 2
  done
  # Ragged sides, random inputs (Freivalds' check).
  run 1 matmul --m 4097 --n 3001 --k 5003 --ic random --iters 5
  # SUMMA at N = 16384 on 2, 4, ... GPUs, overlap on and off (one GPU: the rows above).
  np=2
  while [ "$np" -le "$maxgpu" ]; do
    for ov in on off; do run $np matmul --n 16384 --kernel simt,cublas --overlap $ov --iters 5; done
    run $np matmul --n 16384 --type double --kernel dmma,cublas --iters 5
    np=$((np * 2))
  done
  # The seed's speedup column: one core's median over each kernel's, per type, at N = 2048.
  python3 - "$out/matmul.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["workload"] == "matmul" and r["rank"] == "-1"
        and "m=2048;n=2048;k=2048" in r["params"]]
core = {r["params"].split(";")[0]: float(r["time_median_s"]) for r in rows if r["backend"] == "cpu"}
print("# speedup over one CPU core at N = 2048 (the seed's column)")
for r in rows:
    t = r["params"].split(";")[0]
    if r["backend"] != "cpu" and t in core:
        print("%-8s %-12s %10.3f ms %8.1fx" % (t[5:], r["kernel"], 1e3 * float(r["time_median_s"]),
                                              core[t] / float(r["time_median_s"])))
PY
} | tee "$out/matmul_tables.txt"
