#!/bin/sh
# gpusim nbody on the CPU backend, 1, 2 and 4 ranks: verified forces, the same final energy
# within round-off whatever the rank count and with the exchange overlapped or not, the seed's
# disk preset, the cold uniform sphere (with --json), a two-body orbit from a file, and bad input.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cpu --iters 1 --n 700 --steps 20 --energy-every 10 --precision double"
final_energy() { awk '$1 == "20" && NF == 8 { print $5 }'; }
e1=""
for np in 1 2 4; do
  for ov in on off; do
    out=$(gs_mpirun $np nbody $common --overlap $ov) || { rc=$?; echo "$out"; gs_fail "np=$np overlap $ov: exit $rc"; }
    gs_verified "$out" "np=$np overlap $ov"
    e=$(echo "$out" | final_energy)
    [ -n "$e" ] || { echo "$out"; gs_fail "np=$np: no final energy line"; }
    [ -z "$e1" ] && e1=$e
    gs_near "np=$np overlap $ov: final energy against np=1's" "$e" "$e1" 1e-8
    echo "ok: np=$np overlap $ov: E(t=0.02) = $e"
  done
done
# Energy error of the default (single precision) Plummer run stays small.
out=$(gs_mpirun 2 nbody --backend cpu --iters 1 --n 1000 --steps 20) || gs_fail "single precision run"
echo "$out" | tail -4
err=$(echo "$out" | awk '$1 == "20" && NF == 8 { print $6 }')
gs_below "single precision |dE/E0| at step 20" "$err" 1e-5
# The seed 003 disk preset (2D, cutoff 0.01, G m = 10).
out=$(gs_mpirun 2 nbody --backend cpu --ic disk --n 1024 --steps 3 --iters 1) || gs_fail "disk: exit $?"
echo "$out" | grep -q 'the seed 003 model' || gs_fail "disk: no preset line"
gs_verified "$out" disk
# --ic uniform, a cold uniform sphere of radius 1: at rest at step 0, potential energy near the
# continuum's -3/5 G M^2 / R (N = 500, seed 1 gives -0.5904; 0.03 is 5%), falling in after.
# --json: the schema's rows for the force check and the steps, with the run's parameters.
out=$(gs_mpirun 2 nbody --backend cpu --ic uniform --n 500 --steps 4 --iters 1 --precision double --json "$tmp/u.json")
rc=$?
[ $rc = 0 ] || { echo "$out"; gs_fail "uniform: exit $rc"; }
gs_verified "$out" uniform 1
echo "$out" | grep -q '^# nbody: uniform, N = 500 ' || gs_fail "uniform: no nbody line for it"
row0=$(echo "$out" | awk '$1 == "0" && NF == 8')
row4=$(echo "$out" | awk '$1 == "4" && NF == 8')
gs_near "uniform: kinetic energy at step 0" "$(echo $row0 | cut -d' ' -f3)" 0 0
gs_near "uniform: potential energy at step 0" "$(echo $row0 | cut -d' ' -f4)" -0.6 0.03
gs_below "uniform: minus the kinetic energy at step 4 (falling in)" "-$(echo $row4 | cut -d' ' -f3)" 0
command -v python3 >/dev/null 2>&1 || gs_skip "no python3 to read the --json file (the checks above passed)"
python3 - "$tmp/u.json" <<'PY' || gs_fail "nbody --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1, d["schema_version"]
# The diagnostics rows (phase=diag: steps 0 and 4, six quantities each) apart from the kernel rows.
diag = [r for r in d["rows"] if r["params"].startswith("phase=diag;")]
rows = [r for r in d["rows"] if r not in diag]
assert sorted(r["params"].split(";")[1] for r in diag) == ["step=0"] * 6 + ["step=4"] * 6, [r["params"] for r in diag]
assert [r["params"].split(";phase=")[1].split(";")[0] for r in rows] == ["forces", "step"], [r["params"] for r in rows]
for r in rows:
    assert (r["workload"], r["kernel"], r["ranks"], r["problem_size"], r["backend"]) == ("nbody", "omp", 2, 500, "cpu"), r
    assert r["params"].startswith("ic=uniform;precision=double;overlap=on;steps=4;dt=0.001;eps=0.01;"), r["params"]
    assert r["metric"] == "interactions" and r["unit"] == "1/s" and r["value"] > 0, r
assert "check=OK" in rows[0]["params"] and rows[1]["iterations"] == 4, rows
PY
echo "ok: --ic uniform and --json"
# A two-body circular orbit from a file, one period (2 pi / omega with omega = 1 / (1 + eps^2)^0.75).
printf '%s\n' '# x y z vx vy vz m' '-0.5 0 0 0 -0.499999625 0 0.5' '0.5 0 0 0 0.499999625 0 0.5' >"$tmp/two.txt"
out=$(gs_mpirun 1 nbody --backend cpu --ic "$tmp/two.txt" --eps 0.001 --dt 0.003141595 --steps 2000 --iters 1 --precision double) ||
  gs_fail "two-body: exit $?"
echo "$out" | tail -3
err=$(echo "$out" | awk '$1 == "2000" && NF == 8 { print $6 }')
gs_below "two-body |dE/E0| after one period" "$err" 1e-8
# Bad input: one line from rank 0, exit 2.
printf '1 2 3\n' >"$tmp/bad.txt"
out=$(gs_mpirun 2 nbody --backend cpu --ic "$tmp/bad.txt" 2>&1)
[ $? = 2 ] || gs_fail "malformed --ic file: want exit 2"
[ "$(echo "$out" | grep -c '^gpusim: error: --ic .*bad.txt:1: want 7 numbers')" = 1 ] || { echo "$out"; gs_fail "malformed file message"; }
out=$(gs_mpirun 2 nbody --backend cpu --kernel multi 2>&1)
[ $? = 2 ] || gs_fail "--kernel multi on cpu: want exit 2"
out=$(gs_mpirun 2 nbody --backend cpu --eps 0 2>&1)
[ $? = 2 ] || gs_fail "--eps 0: want exit 2"
echo "PASS"
