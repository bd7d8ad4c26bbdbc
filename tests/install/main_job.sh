#!/bin/sh
# The installed gpusim's main job (no subcommand) on 2 ranks of the CPU backend, run from a
# directory outside the build tree: every workload verified, one summary, exit 0, its --csv
# rows written, and nothing left behind but the CSV (its nbody part's directory removed).
. "$GS_TEST_LIB"
. "${GS_TEST_LIB%/*}/install/gs_install_lib.sh"
out=$(gs_mpirun 2 --backend cpu --csv "$GS_INST_TMP/main.csv" 2>&1)
rc=$?
echo "$out" | grep '^#' | tail -12
[ $rc = 0 ] || { echo "$out"; gs_fail "mpirun -np 2 gpusim --backend cpu: exit status $rc"; }
echo "$out" | grep '^# verification: OK (4 of 4 workloads verified)$' >/dev/null || { echo "$out"; gs_fail "not 4 of 4 verified"; }
echo "$out" | grep "^# job: 2 rank(s) on 1 node(s)" >/dev/null || gs_fail "not a 2-rank job"
echo "$out" | grep '^# backend: cpu (--backend cpu)' >/dev/null || gs_fail "not the CPU backend"
[ "$(awk -F, 'NR > 1 && $6 == -1 { print $4 }' main.csv | sort -u | tr '\n' ' ')" = "matmul nbody reduce " ] ||
  gs_fail "main.csv: want job rows of matmul, nbody and reduce"
[ "$(ls -A)" = main.csv ] || gs_fail "left in the run's directory: $(ls -A | tr '\n' ' ')"
echo "ok: the installed gpusim's main job on 2 ranks, from $GS_INST_TMP"
echo "PASS"
