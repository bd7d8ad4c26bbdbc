#!/bin/sh
# nbody's diagnostics as --json and --csv rows (docs/results-schema.md, "Diagnostics rows") on 2
# ranks of the CPU backend: one row per quantity and diagnostics step, at full precision (%.17g,
# so each value reads back as the double it was), agreeing with the printed table, with
# E = K + W and |dE/E0| recomputed from the rows, and the same in CSV as in JSON. Then the
# energy verdict, printed apart from the force verification: OK for a Plummer sphere, DRIFT (a
# warning, exit 0) for the seed's disk at its dt.
. "$GS_TEST_LIB"
py=""
for p in python3 /usr/bin/python3; do
  command -v "$p" >/dev/null 2>&1 && "$p" -c 'import csv, json' 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || gs_skip "no python3 to read the JSON and CSV"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(gs_mpirun 2 nbody --backend cpu --iters 1 --n 300 --steps 6 --energy-every 2 --precision double \
  --progress off --json "$tmp/r.json" --csv "$tmp/r.csv") || { echo "$out"; gs_fail "plummer run: exit status"; }
gs_verified "$out" plummer
echo "$out" | awk 'NF == 8 && $1 ~ /^[0-9]+$/' >"$tmp/table"
[ "$(wc -l <"$tmp/table")" = 4 ] || { echo "$out"; gs_fail "want 4 diagnostics lines (steps 0, 2, 4, 6)"; }
"$py" - "$tmp/r.json" "$tmp/r.csv" "$tmp/table" <<'EOF' || gs_fail "diagnostics rows"
import csv, json, re, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if "phase=diag" in r["params"]]
names = ["kinetic", "potential", "energy", "energy_error", "momentum", "mass_moment"]
table = [l.split() for l in open(sys.argv[3])]
assert len(rows) == 6 * len(table), ("rows", len(rows), "table lines", len(table))
by = {}
for r in rows:
    p = dict(kv.split("=", 1) for kv in r["params"].split(";"))
    assert r["workload"] == "nbody" and r["rank"] == -1 and r["unit"] == "code" and r["problem_size"] == 300, r
    by[(int(p["step"]), r["metric"])] = r["value"]
    assert float(p["time"]) == int(p["step"]) * 0.001, p
e0 = by[(0, "energy")]
for line in table:
    s = int(line[0])
    v = [by[(s, m)] for m in names]
    # The printed table (8, 8, 9 decimals; 3 significant digits) is the rows rounded.
    for k, (val, printed) in enumerate(zip(v, line[2:])):
        tol = 0.6 * 10.0 ** -(8, 8, 9)[k] if k < 3 else 0.006 * abs(float(printed)) + 1e-300
        assert abs(val - float(printed)) <= tol, (s, names[k], val, printed)
    assert abs(v[2] - (v[0] + v[1])) <= 4e-16 * abs(v[2]), ("E != K + W", s, v)
    assert abs(v[3] - abs(v[2] - e0) / abs(e0)) <= 1e-12 * v[3] + 1e-300, ("|dE/E0|", s, v[3], e0)
# Full precision: written with 17 significant digits, so the text round-trips to the same double.
text = open(sys.argv[1]).read()
vals = re.findall(r'"metric": "(?:kinetic|potential|energy)", "value": (-?[0-9.e+-]+)', text)
assert vals and all(len(re.sub(r"[-.]|e.*", "", t).lstrip("0")) >= 15 for t in vals), ("not full precision", vals[:3])
# The CSV holds the same rows, value for value.
crows = [r for r in csv.DictReader(open(sys.argv[2])) if "phase=diag" in r["params"]]
assert [(r["metric"], r["params"], float(r["value"])) for r in crows] == \
       [(r["metric"], r["params"], r["value"]) for r in rows], "CSV and JSON differ"
print("ok: %d diagnostics rows, E0 = %r" % (len(rows), e0))
EOF
echo "$out" | grep -q '^# energy: |dE/E0| = [0-9.e+-]* at step 6 (tolerance 1e-03): OK$' ||
  { echo "$out"; gs_fail "plummer: no energy verdict OK"; }
# The seed's disk at its dt: energy drifts, said apart from the (OK) force verification, exit 0.
out=$(gs_mpirun 2 nbody --backend cpu --iters 1 --ic disk --n 256 --steps 10 --progress off) ||
  { echo "$out"; gs_fail "disk: exit status (DRIFT is a warning)"; }
gs_verified "$out" disk
echo "$out" | grep -q '^# energy: |dE/E0| = [0-9.e+-]* at step 10 (tolerance 1e-03): DRIFT' ||
  { echo "$out"; gs_fail "disk: no energy verdict DRIFT"; }
echo "$out" | grep '^# energy'
echo "PASS"
