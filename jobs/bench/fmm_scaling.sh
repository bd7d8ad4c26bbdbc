#!/bin/bash
# fmm_scaling.sh: the runs behind docs/performance.md's FMM section (issue 41): the fast multipole
# solver and the CPU tree (its default layout) side by side on the CPU backend, one rank with all
# the cores, Plummer spheres of 2^14 .. 2^MAXLOG bodies in double at eps 0.05 (the tree's usual
# accuracy: docs/fmm.md), --steps 0 (the first evaluation's check, then --iters timed ones: their
# median). The machine's load is printed before each run (timings on a shared machine are
# noisy). Run from a built tree: jobs/bench/fmm_scaling.sh [OUTDIR] [MAXLOG] [ITERS]; rows go to
# OUTDIR/fmm-scaling.csv (docs/results-schema.md), the log to OUTDIR/fmm-scaling.txt; then
# jobs/bench/fmm_plot.py OUTDIR/fmm-scaling.csv draws the figure.
set -uo pipefail
out=${1:-${OUT:-$PWD/bench-out}}
maxlog=${2:-22}
iters=${3:-3}
mkdir -p "$out"
mpirun="mpirun --allow-run-as-root --bind-to none"
{
  for log in $(seq 14 2 "$maxlog"); do
    for solver in fmm tree; do
      echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
      echo "\$ mpirun -np 1 ./gpusim nbody --backend cpu --solver $solver --n 2^$log --precision double --eps 0.05 --steps 0 --iters $iters --progress off"
      $mpirun -np 1 ./gpusim nbody --backend cpu --solver $solver --n "2^$log" --precision double --eps 0.05 --steps 0 \
        --iters "$iters" --progress off --csv "$out/fmm-scaling.csv" 2>&1
    done
  done
} | tee "$out/fmm-scaling.txt"
