#!/bin/sh
# --csv appends rows under one header across runs; --json is valid JSON with the schema's
# fields; both are written by rank 0 only.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args="reduce --backend cpu --iters 2 --warmup 1 --n 5000"
gs_mpirun 2 $args --csv "$tmp/r.csv" >/dev/null || gs_fail "first csv run"
gs_mpirun 2 $args --csv "$tmp/r.csv" --json "$tmp/r.json" >/dev/null || gs_fail "second csv run"
cat "$tmp/r.csv"
[ "$(grep -c '^schema_version,' "$tmp/r.csv")" = 1 ] || gs_fail "csv header not exactly once"
# Per run: one job row and one row per rank for the omp kernel.
[ "$(grep -c ',reduce,omp,' "$tmp/r.csv")" = 6 ] || gs_fail "csv row count"
ncol=$(head -1 "$tmp/r.csv" | awk -F, '{print NF}')
awk -F, -v n="$ncol" 'NR > 1 && NF != n { exit 1 }' "$tmp/r.csv" || gs_fail "csv rows with another column count"
ls "$tmp" | grep -q tmp && gs_fail "temporary file left behind"
if command -v python3 >/dev/null 2>&1; then
  python3 - "$tmp/r.json" <<'PY' || gs_fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1
rows = d["rows"]
assert len(rows) == 3, len(rows)
for k in ("run_id", "workload", "kernel", "ranks", "problem_size", "time_median_s", "metric", "value", "unit"):
    assert k in rows[0], k
assert rows[0]["problem_size"] == 10000 and rows[0]["ranks"] == 2
PY
fi
# A CSV of another schema is refused, not silently mixed: found when the rows are written, after
# the run, so exit 1 (not a crash, not a timeout), the one message saying why, the file untouched.
echo "a,b,c" >"$tmp/other.csv"
out=$(gs_mpirun 1 $args --csv "$tmp/other.csv" 2>&1 >/dev/null)
rc=$?
[ $rc = 1 ] || { echo "$out"; gs_fail "foreign csv: exit $rc, want 1"; }
[ "$(echo "$out" | grep -c "^gpusim: error: --csv $tmp/other.csv: the file has other columns")" = 1 ] ||
  { echo "$out"; gs_fail "foreign csv: not the one 'other columns' message"; }
[ "$(cat "$tmp/other.csv")" = "a,b,c" ] || gs_fail "foreign csv: the file was changed"
# A symlinked CSV: the target gets the rows, the link stays a link.
ln -s r.csv "$tmp/link.csv"
gs_mpirun 1 $args --csv "$tmp/link.csv" >/dev/null || gs_fail "csv through a symlink"
[ -L "$tmp/link.csv" ] || gs_fail "the symlinked csv was replaced by a file"
[ "$(grep -c ',reduce,omp,' "$tmp/r.csv")" = 7 ] || gs_fail "csv through a symlink: the target did not get the row"
# Nothing else is left in the directory: no lock file, no temporary.
left=$(ls -A "$tmp" | tr '\n' ' ')
[ "$left" = "link.csv other.csv r.csv r.json " ] || gs_fail "files left: $left"
echo "PASS"
