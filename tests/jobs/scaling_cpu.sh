#!/bin/bash
# jobs/scaling/sweep.py and plot.py on CPU-backend results: strong and weak sweeps of reduce on
# 1 and 2 ranks (tiny sizes, 2 repeats), one CSV per sweep written by gpusim's own --csv; every
# workload and solver (--workload all, the tree) through jobs/bench/scaling_figures.sh; then
# the PNG figures, headless, from those CSVs and from a GPU-like CSV (efficiency against a
# theoretical peak, the kernel ladder) made from the same header. The plot part needs
# matplotlib (Debian: python3-matplotlib) and skips without it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$GS_TEST_LIB"
. "$(dirname "$0")/examples_lib.sh"
top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
sweep=$top/jobs/scaling/sweep.py
plot=$top/jobs/scaling/plot.py
command -v python3 >/dev/null 2>&1 || gs_skip "no python3"
[ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher (mpiexec) found by configure"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
unset SLURM_JOB_ID # locally: mpirun, whatever the environment
S() { timeout 300 python3 "$sweep" --gpusim "$GPUSIM" --backend cpu --mpirun "$MPIEXEC" --mpirun-args "$GS_MPIFLAGS" "$@"; }

# What it would run: --total for strong scaling, --n (per rank) for weak.
out=$(S --gpus 1,2 --repeats 1 --strong-size 2e5 --weak-size 1e5 --dry-run -- --iters 2) || gs_fail "dry run"
echo "$out"
[ "$(echo "$out" | grep -c -- "reduce --backend cpu --total 2e5 --csv .*/reduce-strong.csv --iters 2$")" = 2 ] ||
  gs_fail "dry run: strong sweep commands"
[ "$(echo "$out" | grep -c -- "reduce --backend cpu --n 1e5 --csv .*/reduce-weak.csv --iters 2$")" = 2 ] ||
  gs_fail "dry run: weak sweep commands"
echo "$out" | grep -q -- "-np 2 .*--total 2e5" || gs_fail "dry run: no 2-rank run"

# Bad input: exit status 2.
S --gpus 0 --dry-run >/dev/null 2>&1
[ $? = 2 ] || gs_fail "--gpus 0: want exit status 2"
S --strong-size 1.5 --dry-run >/dev/null 2>&1
[ $? = 2 ] || gs_fail "--strong-size 1.5: want exit status 2"

# A launcher option of one word that starts with "--", as the docs show it (issue 17, item 2).
out=$(timeout 60 python3 "$sweep" --gpusim "$GPUSIM" --gpus 1 --repeats 1 --dry-run --mpirun-args --oversubscribe \
  --srun-args --gpus-per-task=1 -- --iters 2 2>&1)
rc=$?
[ $rc = 0 ] || { echo "$out"; gs_fail "--mpirun-args --oversubscribe: exit status $rc"; }
echo "$out" | grep -q -- "-np 1 --oversubscribe .*--iters 2$" || { echo "$out"; gs_fail "--mpirun-args --oversubscribe not passed on"; }
echo "ok: --mpirun-args/--srun-args take a value that starts with --"

# nbody: skipped with a clear message while gpusim has none.
if "$GPUSIM" nbody --help >/dev/null 2>&1; then
  S --workload nbody --gpus 1,2 --repeats 1 --strong-size 512 --weak-size 256 --out "$tmp/nbody" -- --steps 2 ||
    gs_fail "nbody sweep"
  # Weak scaling of all-pairs work: n = 256 sqrt(P).
  [ "$(awk -F, 'NR > 1 && $6 == -1 {print $8 ":" $12}' "$tmp/nbody/nbody-weak.csv" | sort -u | tr '\n' ' ')" = "1:256 2:362 " ] ||
    gs_fail "nbody weak sweep sizes"
  [ -s "$tmp/nbody/nbody-strong.csv" ] && [ -s "$tmp/nbody/nbody-weak.csv" ] || gs_fail "nbody sweep CSVs"
  echo "ok: nbody sweep"
else
  out=$(S --workload nbody --gpus 1,2 --out "$tmp/nbody" 2>&1)
  rc=$?
  echo "$out"
  [ $rc = 77 ] && echo "$out" | grep -q 'gpusim nbody is not in this build' ||
    gs_fail "nbody sweep without gpusim nbody: exit status $rc, want 77 and a message"
  echo "ok: the nbody sweep skips (77) while gpusim has no nbody"
fi

# The sweep for real.
S --gpus 1,2 --repeats 2 --strong-size 2e5 --weak-size 1e5 --out "$tmp/sw" -- --iters 2 --warmup 1 ||
  { rc=$?; cat "$tmp"/sw/logs/* 2>/dev/null; gs_fail "sweep: exit status $rc"; }
ls "$tmp/sw" "$tmp/sw/logs"
[ "$(ls "$tmp/sw/logs" | wc -l)" = 8 ] || gs_fail "want 8 run logs"
for k in strong weak; do
  f=$tmp/sw/reduce-$k.csv
  cat "$f"
  [ "$(grep -c '^schema_version,' "$f")" = 1 ] || gs_fail "$k: CSV header not once"
  # Per repeat: a 1-rank run (1 job row) and a 2-rank run (a job row and 2 rank rows).
  [ "$(($(wc -l <"$f") - 1))" = 8 ] || gs_fail "$k: want 8 rows"
  got=$(awk -F, 'NR > 1 && $6 == -1 {print $8 ":" $12}' "$f" | sort | uniq -c | awk '{print $1 "x" $2}' | tr '\n' ' ')
  if [ $k = strong ]; then want="2x1:200000 2x2:200000 "; else want="2x1:100000 2x2:200000 "; fi
  [ "$got" = "$want" ] || gs_fail "$k: job rows (count x ranks:size) '$got', want '$want'"
done
echo "ok: strong and weak sweeps, 1 and 2 ranks, 2 repeats, one CSV each"

# Every workload and solver (--workload all): the four sweeps' commands and file names, each
# sweep's weak rule (matmul n = SIZE cbrt(P): 96 -> 121 on 2; tree n = SIZE P), and nbody with
# --solver tree among its options is the tree sweep.
out=$(S --workload all --gpus 1,2 --repeats 1 --dry-run --out "$tmp/all" --sizes reduce=2e5,1e5 --sizes nbody=512,256 \
  --sizes tree=2048,1024 --sizes matmul=128,96) || gs_fail "dry run of --workload all"
echo "$out"
for w in "reduce --backend cpu --total 2e5 --csv .*/reduce-strong.csv" "reduce --backend cpu --n 1e5 --csv .*/reduce-weak.csv" \
  "nbody --backend cpu --n 512 --csv .*/nbody-strong.csv --steps 3 --iters 1" "nbody --backend cpu --n 362 --csv .*/nbody-weak.csv" \
  "nbody --backend cpu --n 2048 --csv .*/nbody-tree-strong.csv --solver tree" "-np 2 .*nbody --backend cpu --n 2048 --csv .*/nbody-tree-weak.csv --solver tree" \
  "matmul --backend cpu --n 128 --csv .*/matmul-strong.csv" "-np 2 .*matmul --backend cpu --n 121 --csv .*/matmul-weak.csv"; do
  echo "$out" | grep -e "$w" >/dev/null || gs_fail "--workload all: no command like '$w'"
done
[ "$(echo "$out" | grep -c -- '--csv')" = 16 ] || gs_fail "--workload all: want 16 commands"
[ "$(echo "$out" | grep -c -- '--solver tree')" = 4 ] || gs_fail "--workload all: want 4 tree commands"
out=$(S --workload nbody --gpus 2 --repeats 1 --dry-run --strong-size 1024 --weak-size 512 --out "$tmp/t" -- --solver tree --steps 1) ||
  gs_fail "dry run of nbody -- --solver tree"
echo "$out" | grep -e "--n 1024 --csv .*/nbody-tree-strong.csv --solver tree --steps 1$" >/dev/null &&
  echo "$out" | grep -e "--n 1024 --csv .*/nbody-tree-weak.csv --solver tree --steps 1$" >/dev/null ||
  { echo "$out"; gs_fail "nbody -- --solver tree: not the tree sweep (nbody-tree-*.csv, n = SIZE P)"; }
S --workload all --strong-size 100 --dry-run >/dev/null 2>&1
[ $? = 2 ] || gs_fail "--workload all --strong-size: want exit status 2"
S --workload nbody,fft --dry-run >/dev/null 2>&1
[ $? = 2 ] || gs_fail "--workload nbody,fft: want exit status 2"
echo "ok: --workload all and tree: commands, CSV names, weak rules"

# jobs/bench/scaling_figures.sh on the CPU backend (tiny sizes, 1 and 2 ranks, 2 repeats): every
# sweep for real, one CSV per workload and solver, the tree's rows only in the tree's files.
have_mpl=no
for p in python3 /usr/bin/python3; do
  command -v $p >/dev/null 2>&1 && $p -c 'import matplotlib' 2>/dev/null && have_mpl=yes
done
sf=$tmp/sf
sfout=$(MPIEXEC=$MPIEXEC MPIRUN_ARGS=$GS_MPIFLAGS GPUSIM_BACKEND=cpu timeout 900 bash "$top/jobs/bench/scaling_figures.sh" "$sf" 2>&1)
rc=$?
echo "$sfout" | grep -v '^\['
echo "$sfout" | grep '^# sweeps: [0-9]* s, exit status 0$' >/dev/null || { cat "$sf"/logs/* 2>/dev/null | tail -40; gs_fail "scaling_figures.sh: the sweeps failed"; }
[ $have_mpl = no ] || [ $rc = 0 ] || gs_fail "scaling_figures.sh: exit status $rc"
for f in reduce nbody nbody-tree matmul; do
  for k in strong weak; do
    c=$sf/$f-$k.csv
    [ -s "$c" ] || gs_fail "scaling_figures.sh: no $f-$k.csv"
    got=$(awk -F, 'NR > 1 && $6 == -1 && $14 > 0 {print $8}' "$c" | sort | uniq -c | awk '{print $1 "x" $2}' | tr '\n' ' ')
    case $f in nbody*) want="4x1 4x2 " ;; *) want="2x1 2x2 " ;; esac # nbody: a forces and a step row a run
    [ "$got" = "$want" ] || gs_fail "$f-$k.csv: timed job rows (count x ranks) '$got', want '$want'"
    [ "$(grep -c -- '--csv' "$sf/$f-$k.commands")" = 4 ] || gs_fail "$f-$k.commands: want 4 commands"
  done
done
grep ',nbody,tree,' "$sf"/nbody-strong.csv "$sf"/nbody-weak.csv && gs_fail "tree rows in the direct sum's CSVs"
[ "$(awk -F, 'NR > 1 && $6 == -1 && $5 != "tree"' "$sf"/nbody-tree-strong.csv "$sf"/nbody-tree-weak.csv | wc -l)" = 0 ] ||
  gs_fail "rows of another solver in the tree's CSVs"
echo "ok: scaling_figures.sh on the CPU backend: 8 sweeps, one CSV and command list each"

# ---- the figures ----
py=""
for p in python3 /usr/bin/python3; do
  command -v $p >/dev/null 2>&1 && $p -c 'import matplotlib' 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || gs_skip "matplotlib not installed (python3-matplotlib); the sweep part passed"
png_ok() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
# Headless: a DISPLAY that leads nowhere must not matter.
out=$(DISPLAY=:99 timeout 120 $py "$plot" "$tmp/sw" --out "$tmp/figs" 2>&1) || { rc=$?; echo "$out"; gs_fail "plot: exit status $rc"; }
echo "$out"
for f in reduce-strong reduce-weak reduce-ladder; do
  png_ok "$tmp/figs/$f.png" || gs_fail "plot: $f.png missing or not a PNG"
done
echo "ok: CPU-backend figures: $(cd "$tmp/figs" && ls | tr '\n' ' ')"
# scaling_figures.sh's: a figure per workload and solver, its caption with the device, the runs'
# commands and the medians, and the table on stdout; nothing put into docs/ on the CPU backend.
for f in reduce nbody nbody-tree matmul; do
  png_ok "$sf/figures/$f-scaling.png" || gs_fail "scaling_figures.sh: no $f-scaling.png"
  t=$sf/figures/$f-scaling.txt
  grep "^gpusim $f scaling: .*, cpu backend, " "$t" >/dev/null || gs_fail "$f-scaling.txt: no title with the device"
  [ "$(grep -c -- "--csv $sf/$f-\(strong\|weak\).csv" "$t")" = 4 ] || { cat "$t"; gs_fail "$f-scaling.txt: want the 4 commands"; }
  grep "^strong .* P=1 .* P=2 .*x (" "$t" >/dev/null && grep "^weak .* P=2 " "$t" >/dev/null ||
    gs_fail "$f-scaling.txt: no medians"
  echo "$sfout" | grep "^$f: " >/dev/null || gs_fail "scaling_figures.sh: no table of $f"
done
grep -- "--solver tree" "$sf/figures/nbody-scaling.txt" && gs_fail "nbody-scaling.txt: tree commands in the direct sum's caption"
# The tree's series name its layout (the CPU backend's default: domains), so both designs can share a figure.
grep "^strong tree (domains) \[step\] .* P=2 " "$sf/figures/nbody-tree-scaling.txt" >/dev/null ||
  { cat "$sf/figures/nbody-tree-scaling.txt"; gs_fail "nbody-tree-scaling.txt: no 'tree (domains) [step]' series"; }
[ "$(ls "$sf/figures" | grep -c 'scaling\.png$')" = 4 ] || gs_fail "want 4 workload figures: $(ls "$sf/figures")"
echo "$sfout" | grep "docs/figures" && gs_fail "scaling_figures.sh on the CPU backend wrote to docs/figures"
echo "ok: one figure per workload and solver, with its caption and table"
if [ -d "$tmp/nbody" ]; then
  out=$(timeout 120 $py "$plot" "$tmp/nbody" 2>&1) || { rc=$?; echo "$out"; gs_fail "plot nbody: exit status $rc"; }
  echo "$out"
  for f in nbody-strong nbody-weak; do
    png_ok "$tmp/nbody/$f.png" || gs_fail "plot nbody: $f.png missing or not a PNG"
  done
  echo "ok: nbody figures"
fi

# A GPU-like sweep (8 GPUs, the kernel ladder, efficiency against a theoretical peak), in the
# same schema: the figures the GPU machine will make.
mkdir -p "$tmp/gpu"
$py - "$tmp/sw/reduce-strong.csv" "$tmp/gpu" <<'PY' || gs_fail "making the GPU-like CSV"
import csv, sys
hdr = next(csv.reader(open(sys.argv[1])))
peak = 4800.0
for kind in ("strong", "weak"):
    with open("%s/reduce-%s.csv" % (sys.argv[2], kind), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=hdr)
        w.writeheader()
        for rep in range(2):
            for p in (1, 2, 4, 8):
                for k, frac in (("1", .1), ("4", .35), ("7", .8), ("vec", .85), ("onepass", .9), ("cub", .88)):
                    n = 2**30 if kind == "strong" else 2**28 * p
                    bw = peak * frac * p * (0.95 if p > 1 else 1) * (1 + 0.01 * rep)
                    t = n * 4 / (bw * 1e9)
                    row = dict.fromkeys(hdr, "")
                    row.update(schema_version=1, run_id="r%d-%d" % (rep, p), workload="reduce", kernel=k,
                               rank=-1, nodes=(p + 3) // 4, ranks=p, gpus_per_node=min(p, 4),
                               gpu_model="NVIDIA H200", backend="cuda", problem_size=n, iterations=20,
                               time_min_s=t * .99, time_median_s=t, time_max_s=t * 1.01, metric="bandwidth",
                               value=bw, unit="GB/s", efficiency=bw / (peak * p),
                               params="type=int;op=sum;source=device;block=256;check=OK;copy_ceiling_GBps=4100")
                    w.writerow(row)
                    w.writerow(dict(row, rank=0, value=bw / p, efficiency=""))
PY
out=$(timeout 120 $py "$plot" "$tmp/gpu/reduce-strong.csv" "$tmp/gpu/reduce-weak.csv" --out "$tmp/gpufigs" 2>&1) ||
  { rc=$?; echo "$out"; gs_fail "plot (GPU-like): exit status $rc"; }
echo "$out"
for f in reduce-strong reduce-weak reduce-ladder; do
  png_ok "$tmp/gpufigs/$f.png" || gs_fail "plot (GPU-like): $f.png missing or not a PNG"
done
out=$(timeout 120 $py "$plot" "$tmp/gpu" --kernel 7,onepass,cub --out "$tmp/gpufigs2" 2>&1) || gs_fail "plot --kernel"
for f in reduce-strong reduce-weak reduce-ladder; do
  png_ok "$tmp/gpufigs2/$f.png" || gs_fail "plot --kernel: $f.png missing or not a PNG"
done
echo "ok: GPU-like figures"

# --kernel naming none of a sweep's kernels (CPU results have omp only): each figure left out is
# named, with the reason, and the exit status is 1 (issue 17, item 6).
out=$(timeout 120 $py "$plot" "$tmp/sw" --kernel 7,onepass,cub --out "$tmp/nokern" 2>&1)
rc=$?
echo "$out"
[ $rc = 1 ] || gs_fail "plot --kernel with none of the sweep's kernels: exit status $rc, want 1"
for k in strong weak; do
  echo "$out" | grep -q "^plot: .*reduce-$k.png not drawn: .*reduce-$k.csv has no job rows of kernel(s) 7,onepass,cub (it has: omp)" ||
    gs_fail "plot --kernel: no message for the $k figure left out"
done
echo "ok: plot --kernel names the figures it leaves out, exit status 1"

# The documented python3 jobs/scaling/... examples, as written, in a submit directory of their
# own (./gpusim the test-size stand-in; sweeps scaled to 1,2 GPUs and 1 repeat on 2 cores); a
# plot example plots GPU-like CSVs put where it looks (the figures it promises need GPU kernels).
gs_example_workdir "$tmp/ex"
# The python3 with matplotlib, as a wrapper: a symlink to a virtual environment's python would
# start the base interpreter (it finds pyvenv.cfg beside the link, not beside its target).
mkdir -p "$tmp/pybin" && printf '#!/bin/sh\nexec "%s" "$@"\n' "$(command -v $py)" >"$tmp/pybin/python3" &&
  chmod +x "$tmp/pybin/python3"
gs_examples_distinct | awk -F'\t' '$2 == "python"' >"$tmp/ex.list"
: >"$tmp/ex.done"
while IFS="$(printf '\t')" read -r where kind cmd; do
  case $cmd in
    *plot.py*) # its inputs (a directory, or CSV files) made from the GPU-like CSVs; d: where the PNGs go
      cmd=$(echo "$cmd" | sed 's/<job id>/1234/; s/XXXX/1234/')
      d=
      for w in $(echo "$cmd" | sed 's/ #.*//; s/.*plot\.py //; s/ -.*//'); do
        case $w in
          *.csv) cp "$tmp/gpu/$(basename "$w")" "$tmp/ex/$w" || gs_fail "$where: no GPU-like $w" ;;
          *) rm -rf "${tmp:?}/ex/$w" && mkdir -p "$tmp/ex/$w" && cp "$tmp/gpu"/*.csv "$tmp/ex/$w/" || gs_fail "$where: GPU-like CSVs" ;;
        esac
        [ -n "$d" ] || d=$(case $w in *.csv) dirname "$w" ;; *) echo "$w" ;; esac)
      done
      case $cmd in *" --out "*) d=$(echo "$cmd" | sed 's/.* --out \([^ ]*\).*/\1/') ;; esac
      ;;
    *sweep.py*) cmd=$(echo "$cmd" | sed 's/--gpus [0-9,]*/--gpus 1,2/; s/--repeats [0-9]*/--repeats 1/') ;;
  esac
  out=$(unset GPUSIM GPUSIM_BACKEND; PATH="$tmp/pybin:$PATH" gs_example_run "$tmp/ex" "$cmd")
  rc=$?
  if [ $rc != 0 ]; then # the runs' own logs say why
    echo "$out"
    find "$tmp/ex" -name '*.log' -newer "$tmp/ex.list" | while read -r l; do echo "== $l" && tail -20 "$l"; done
    gs_fail "$where: '$cmd': exit status $rc"
  fi
  case $cmd in
    *plot.py*) for f in reduce-strong reduce-weak reduce-ladder; do
        png_ok "$tmp/ex/$d/$f.png" || { echo "$out"; gs_fail "$where: no $d/$f.png"; }
      done ;;
    *) echo "$out" | grep -q '^# sweep: [0-9]* run(s), 0 failed' || { echo "$out"; gs_fail "$where: sweep"; } ;;
  esac
  echo "ok: $where: $cmd"
  echo "$where" >>"$tmp/ex.done"
done <"$tmp/ex.list"
[ -s "$tmp/ex.list" ] && [ "$(wc -l <"$tmp/ex.done")" = "$(wc -l <"$tmp/ex.list")" ] ||
  gs_fail "$(wc -l <"$tmp/ex.done") of $(wc -l <"$tmp/ex.list") python examples run"

# Bad input: exit status 2; nothing to plot: 1.
echo "a,b" >"$tmp/other.csv"
timeout 60 $py "$plot" "$tmp/other.csv" --out "$tmp/x" >/dev/null 2>&1
[ $? = 2 ] || gs_fail "plot of a foreign CSV: want exit status 2"
timeout 60 $py "$plot" "$tmp/nonexistent" >/dev/null 2>&1
[ $? = 2 ] || gs_fail "plot of a missing file: want exit status 2"
head -1 "$tmp/sw/reduce-strong.csv" >"$tmp/empty-strong.csv"
timeout 60 $py "$plot" "$tmp/empty-strong.csv" --out "$tmp/x" >/dev/null 2>&1
[ $? = 1 ] || gs_fail "plot with nothing to plot: want exit status 1"
echo "PASS"
