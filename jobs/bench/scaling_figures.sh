#!/bin/bash
# scaling_figures.sh: the scaling figures of README.md and docs/performance.md, one per workload
# and solver (reduce, nbody direct, nbody tree, matmul SUMMA), strong and weak, from one call.
# Run from a built tree (it builds nothing) on a GPU machine of any size:
#
#   jobs/bench/scaling_figures.sh [OUTDIR]
#
# GPU counts: 1, 2, 4, ... up to what `nvidia-smi -L` lists (1,2 on 2 GPUs; 1,2,4 on 4). Runs
# jobs/scaling/sweep.py --workload all with its defaults (reduce 2^30 in all / 2^28 per GPU,
# nbody direct 2^20 / 2^18 sqrt(P), tree 2^24 / 2^24 per GPU, matmul 16384 / 16384 cbrt(P)),
# REPEATS runs of each configuration [3], then jobs/scaling/plot.py: CSVs, commands and run logs
# in OUTDIR [$OUT, else ./scaling-out], every figure in OUTDIR/figures, and the workloads' own,
# <sweep>-scaling.png with its caption <sweep>-scaling.txt (device, git revision, medians, the
# commands), also in FIGDIR [docs/figures]; the table of medians on stdout (and in
# OUTDIR/scaling_figures.txt). Exit status 0 when every run and figure succeeded, else 1.
#
# Expected time on 2 H100: about 5 minutes (48 runs; an estimate from the per-step times of
# docs/performance.md plus about 2 s of CUDA and MPI start per run, not yet timed as a whole).
# On 4 GPUs a third of the runs more. REPEATS=2 cuts it by a third.
#
# GPUSIM_BACKEND=cpu: the same on the CPU backend, for CI (tests/jobs/scaling_cpu.sh): 1 and 2
# ranks (oversubscribed), tiny sizes, 2 repeats, FIGDIR = OUTDIR/figures (never docs/).
# MPIEXEC and MPIRUN_ARGS choose the launcher and its options [mpirun; --bind-to none, and on the
# CPU backend --oversubscribe too].
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-$PWD/scaling-out}}
gpusim=${GPUSIM:-./gpusim}
backend=${GPUSIM_BACKEND:-cuda}
mkdir -p "$out" || exit 2
[ -x "$gpusim" ] || { echo "scaling_figures: error: no gpusim at $gpusim (run from a built tree, or set GPUSIM)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
py=python3 # plot.py needs matplotlib: the first python3 that has it
for p in python3 /usr/bin/python3; do
  command -v $p >/dev/null 2>&1 && $p -c 'import matplotlib' 2>/dev/null && { py=$p; break; }
done
sweep=(python3 "$top/jobs/scaling/sweep.py" --workload all --gpusim "$gpusim" --backend "$backend" --out "$out")
if [ "$backend" = cpu ]; then
  figdir=${FIGDIR:-$out/figures}
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
  sweep+=(--gpus 1,2 --repeats "${REPEATS:-2}" --mpirun-args "${MPIRUN_ARGS---oversubscribe --bind-to none}"
    --sizes reduce=2e5,1e5 --sizes nbody=512,256 --sizes tree=2048,1024 --sizes matmul=128,96
    --args "reduce=--iters 2" --args "nbody=--steps 2 --iters 1" --args "tree=--steps 2 --iters 1"
    --args "matmul=--iters 1 --warmup 0")
else
  figdir=${FIGDIR:-$top/docs/figures}
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  [ "$ngpu" -ge 1 ] || { echo "scaling_figures: error: nvidia-smi lists no GPU (GPUSIM_BACKEND=cpu for the CPU backend)" >&2; exit 2; }
  gpus=1
  p=2
  while [ "$p" -le "$ngpu" ]; do gpus=$gpus,$p && p=$((p * 2)); done
  nvidia-smi -L | tee "$out/gpus.txt"
  sweep+=(--gpus "$gpus" --repeats "${REPEATS:-3}" --mpirun-args "${MPIRUN_ARGS---bind-to none}")
fi
{
  echo "\$ $(printf '%q ' "${sweep[@]}")"
  t0=$(date +%s)
  "${sweep[@]}"
  sweep_rc=$?
  echo "# sweeps: $(($(date +%s) - t0)) s, exit status $sweep_rc"
  plot=("$py" "$top/jobs/scaling/plot.py" "$out" --out "$out/figures" --table)
  echo "\$ $(printf '%q ' "${plot[@]}")"
  "${plot[@]}"
  plot_rc=$?
  # Only the workloads' figures and captions go to FIGDIR, each put in place whole (a copy, then
  # a rename): the per-sweep figures and the reduce ladder of these short runs stay in OUTDIR
  # (docs/figures/reduce-ladder.png is the 2^28 ladder of every kernel, made apart).
  if [ "$figdir" != "$out/figures" ]; then
    mkdir -p "$figdir" || plot_rc=2
    for f in "$out"/figures/*-scaling.png "$out"/figures/*-scaling.txt; do
      [ -f "$f" ] || continue
      cp "$f" "$figdir/.$(basename "$f").tmp" && mv -f "$figdir/.$(basename "$f").tmp" "$figdir/$(basename "$f")" &&
        echo "$figdir/$(basename "$f")" || plot_rc=2
    done
  fi
  echo "# figures: exit status $plot_rc"
  [ $sweep_rc = 0 ] && [ $plot_rc = 0 ]
} 2>&1 | tee "$out/scaling_figures.txt"
exit "${PIPESTATUS[0]}"
