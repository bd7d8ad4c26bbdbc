#!/bin/sh
# The installed sweep driver and plotter, from outside the build tree: gpusim-plot draws the
# figures of its sample, the sweeps on 2 H200 installed with the documentation (the README's
# figures); gpusim-scaling runs a reduce sweep on 1 and 2 ranks of the CPU backend with the
# installed gpusim (neither --gpusim nor GPUSIM given), and gpusim-plot draws that too.
. "$GS_TEST_LIB"
. "${GS_TEST_LIB%/*}/install/gs_install_lib.sh"
sample=$GS_INST_DOCDIR/docs/results/scaling-2026-11-26-h200x2
[ -f "$sample/reduce-strong.csv" ] || gs_fail "no sample CSVs in $sample"
[ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher found by configure: gpusim-scaling cannot run"
gpusim-scaling --workload reduce --gpus 1,2 --repeats 1 --strong-size 2e4 --weak-size 1e4 --backend cpu \
  --mpirun "$MPIEXEC" --mpirun-args="$GS_MPIFLAGS" --out sweep -- --iters 2 --warmup 1 >sweep.out 2>&1 ||
  { rc=$?; cat sweep.out; gs_fail "gpusim-scaling: exit status $rc"; }
tail -3 sweep.out
grep "^\[1/4\] reduce strong P=1 repeat 1: ok" sweep.out >/dev/null || gs_fail "gpusim-scaling: no run of 1 rank"
grep -F "$GS_INST_BINDIR/gpusim reduce" sweep/reduce-strong.commands >/dev/null ||
  gs_fail "gpusim-scaling ran '$(head -1 sweep/reduce-strong.commands)', not the installed gpusim"
python3 -c 'import matplotlib' 2>/dev/null || gs_skip "no matplotlib for gpusim-plot (python3-matplotlib); gpusim-scaling passed"
gpusim-plot "$sample" --out figs >plot.out 2>&1 || { rc=$?; cat plot.out; gs_fail "gpusim-plot on $sample: exit status $rc"; }
for f in reduce-scaling.png nbody-scaling.png nbody-tree-scaling.png matmul-scaling.png reduce-ladder.png reduce-scaling.txt; do
  [ -s "figs/$f" ] || { cat plot.out; gs_fail "gpusim-plot $sample: no figs/$f"; }
done
grep 'H200' figs/reduce-scaling.txt >/dev/null || gs_fail "the sample's caption does not name its device"
gpusim-plot sweep --out sweep-figs --table >plot.out 2>&1 || { rc=$?; cat plot.out; gs_fail "gpusim-plot on the sweep: exit status $rc"; }
[ -s sweep-figs/reduce-scaling.png ] || { cat plot.out; gs_fail "gpusim-plot: no figure of the sweep"; }
echo "ok: gpusim-plot on $sample: $(ls figs | wc -l) files; gpusim-scaling with the installed gpusim, plotted"
echo "PASS"
