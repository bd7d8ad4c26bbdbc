#!/bin/bash
# fmm_cputime.sh: the CPU time of one evaluation, fmm and tree, on one thread (OMP_NUM_THREADS=1,
# one rank), Plummer spheres of 2^14 .. 2^MAXLOG bodies in double at eps 0.05: issue 41's O(N)
# target measured in the unit a shared machine leaves nearly unchanged (the user CPU seconds a
# process is given do not grow while other jobs take the cores, as its wall clock does). Each
# solver runs twice, with --iters 1 and --iters 1 + EXTRA, both with --steps 0 (setup, the check's
# direct sum and the first evaluation the same): the difference over EXTRA is one evaluation's
# CPU seconds. Run from a built tree: jobs/bench/fmm_cputime.sh [OUTDIR] [MAXLOG] [EXTRA]; the
# table goes to OUTDIR/fmm-cputime.txt (N, solver, CPU microseconds per body per evaluation).
set -uo pipefail
out=${1:-${OUT:-$PWD/bench-out}}
maxlog=${2:-22}
extra=${3:-2}
mkdir -p "$out"
mpirun="mpirun --allow-run-as-root --bind-to none -x OMP_NUM_THREADS=1"
cpu() { # cpu SOLVER LOG ITERS: user + system seconds of the whole run
  /usr/bin/time -f "%U %S" -o "$out/.time" $mpirun -np 1 ./gpusim nbody --backend cpu --solver "$1" --n "2^$2" \
    --precision double --eps 0.05 --steps 0 --iters "$3" --progress off >/dev/null 2>&1 || { echo "run failed: $*" >&2; exit 1; }
  awk '{ print $1 + $2 }' "$out/.time"
}
{
  echo "# fmm_cputime: OMP_NUM_THREADS=1, one rank, --precision double --eps 0.05, $extra extra evaluations; load $(cut -d' ' -f1-3 /proc/loadavg)"
  printf "%8s %6s %12s %14s\n" "log2N" "solver" "cpu_s/eval" "cpu_us/body"
  for log in $(seq 14 2 "$maxlog"); do
    for solver in fmm tree; do
      # cpu's exit leaves only its command substitution: stop here, not on with an empty time
      a=$(cpu "$solver" "$log" 1) && b=$(cpu "$solver" "$log" $((1 + extra))) || exit 1
      awk -v l="$log" -v s="$solver" -v a="$a" -v b="$b" -v e="$extra" \
        'BEGIN { t = (b - a) / e; printf "%8d %6s %12.4f %14.4f\n", l, s, t, t / 2^l * 1e6 }'
    done
  done
} | tee "$out/fmm-cputime.txt"
