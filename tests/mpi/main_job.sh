#!/bin/sh
# The main job, bare `gpusim` (issue 34), on 1, 3 and 8 ranks of the CPU backend: every workload
# runs and verifies itself (its own verdict line, an OK row of the summary with a time and a
# rate), the last line is the OK verdict and the exit status 0; --csv and --json get every part's
# rows under one run id; nbody's output directory is gone afterwards. Then a wrong result planted
# in one workload at a time (GPUSIM_TEST_CORRUPT_RESULT=PART) makes the bare run say FAILED for
# that workload alone and exit 1.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || gs_hard "cannot cd to $tmp"
labels="reduce:nbody direct:nbody tree:matmul"
# summary_row OUT LABEL: LABEL's row of OUT's summary table (the lines after its heading line).
summary_row() {
  echo "$1" | awk -v l="$2" '/^# main job summary/ { on = 1; next } on && /^#/ { on = 0 }
    on && index($0, l "  ") == 1 { print }'
}
# The row has a kernel, a median time and a rate with its unit, then its check.
row_re='[a-z0-9-]+ .* [0-9]+[.][0-9]+ +[0-9.e+-]+ (GB/s|1/s|TFLOP/s) '
for np in 1 3 8; do
  out=$(gs_mpirun $np --backend cpu --csv "$tmp/r$np.csv" --json "$tmp/r$np.json" 2>"$tmp/err")
  rc=$?
  [ $rc = 0 ] || { echo "$out"; cat "$tmp/err"; gs_fail "np=$np: exit status $rc, want 0"; }
  last=$(echo "$out" | tail -1)
  [ "$last" = "# verification: OK (4 of 4 workloads verified)" ] || { echo "$out"; gs_fail "np=$np: last line '$last'"; }
  n=$(echo "$out" | grep -c '^# verification: OK$')
  [ "$n" = 4 ] || { echo "$out"; gs_fail "np=$np: $n parts say '# verification: OK', want 4"; }
  IFS=:
  for l in $labels; do
    row=$(summary_row "$out" "$l")
    echo "$row" | grep -E "^$l +$row_re.*  OK\$" >/dev/null || { echo "$out"; gs_fail "np=$np: no verified summary row for $l: '$row'"; }
  done
  unset IFS
  # The files: one header, rows of every workload (the tree's too), one run id, JSON = CSV rows.
  csv="$tmp/r$np.csv"
  [ "$(grep -c '^schema_version,' "$csv")" = 1 ] || gs_fail "np=$np: CSV header count"
  for w in reduce nbody matmul; do
    grep "^1,[^,]*,[^,]*,$w," "$csv" >/dev/null || gs_fail "np=$np: no $w row in the CSV"
  done
  grep 'solver=tree' "$csv" >/dev/null || gs_fail "np=$np: no tree row in the CSV"
  ids=$(sed 1d "$csv" | cut -d, -f2 | sort -u | wc -l)
  [ "$ids" = 1 ] || gs_fail "np=$np: $ids run ids in the CSV, want 1"
  rows=$(sed 1d "$csv" | wc -l)
  jrows=$(grep -c '"run_id": ' "$tmp/r$np.json")
  [ "$rows" = "$jrows" ] || gs_fail "np=$np: $rows CSV rows, $jrows JSON rows"
  ls -d "$tmp"/gpusim-main.* >/dev/null 2>&1 && gs_fail "np=$np: the main job left its nbody directory"
  echo "ok: np=$np: $(echo "$out" | grep '^# main job: 4 of 4')"
done
# A wrong result in any one workload: that workload FAILED in the summary, the others OK, exit 1
# (one thread a rank: 2 ranks of 2 threads on 2 cores would only make these runs slower).
for part in reduce nbody-direct nbody-tree matmul; do
  bad=$(echo "$part" | tr - ' ')
  out=$(GPUSIM_TEST_CORRUPT_RESULT=$part OMP_NUM_THREADS=1 gs_mpirun 2 --backend cpu 2>"$tmp/err")
  rc=$? # (stderr: the rank's FAILED line and mpirun's note on the exit status)
  last=$(echo "$out" | tail -1)
  [ "$last" = "# verification: FAILED ($bad; 3 of 4 workloads verified)" ] || { echo "$out"; cat "$tmp/err"; gs_fail "$part planted: last line '$last'"; }
  [ $rc = 1 ] || { echo "$out"; gs_fail "$part planted: exit status $rc, want 1"; }
  IFS=:
  for l in $labels; do
    want=OK
    [ "$l" = "$bad" ] && want=FAILED
    summary_row "$out" "$l" | grep -E "  $want\$" >/dev/null || { echo "$out"; gs_fail "$part planted: $l is not $want"; }
  done
  unset IFS
  echo "ok: $part planted -> $last"
done
echo "PASS"
