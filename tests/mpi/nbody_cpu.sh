#!/bin/sh
# gpusim nbody on the CPU backend, 1, 2 and 4 ranks: verified forces, the same final energy
# within round-off whatever the rank count and with the exchange overlapped or not, the seed's
# disk preset, a two-body orbit from a file, and bad input.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cpu --iters 1 --n 700 --steps 20 --energy-every 10 --precision double"
final_energy() { awk '$1 == "20" && NF == 8 { print $5 }'; }
e1=""
for np in 1 2 4; do
  for ov in on off; do
    out=$(gs_mpirun $np nbody $common --overlap $ov) || { echo "$out"; gs_fail "np=$np overlap $ov: exit $?"; }
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
