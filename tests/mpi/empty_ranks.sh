#!/bin/sh
# More ranks than work, every workload and solver on the CPU backend: ranks that own no body
# (N below the rank count: an N-body rank owns whole 128-body tiles), no block and no panel of a
# matmul (sides below the process grid), and reduce's smallest shares. Every collective must run
# on every rank, with work or none, on every path: the start, the diagnostics (the tree's
# potential is a collective evaluation), the end check, snapshots, checkpoints, a restart and a
# stop (the wall-clock budget). Each run must end, within a generous limit (a hang fails with
# its own message, not the harness's), verified.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
limit=120 # seconds per run: each takes a few on a loaded 2-core machine

run() {
  np=$1
  shift
  out=$(GS_TIMEOUT=$limit gs_mpirun "$np" "$@" 2>&1)
  rc=$?
  [ $rc = 124 ] && { echo "$out"; gs_fail "hung (no end within ${limit}s) on $np ranks: $*"; }
  [ $rc = 0 ] || { echo "$out"; gs_fail "exit $rc on $np ranks: $*"; }
  gs_verified "$out" "$np ranks: $*"
  echo "ok: $np ranks: $*"
}

# The tree in both layouts: domains (ranks holding no cell take part in every exchange) and
# replicated; a restart takes the CPU's default layout (domains), so the replicated checkpoint
# resumes in the other layout.
for solver in direct "tree --tree-layout domains" "tree --tree-layout replicated"; do
  nb="nbody --backend cpu --solver $solver --iters 1 --progress off"
  dir=$(echo "$solver" | tr -c 'a-z\n' '_')
  run 3 $nb --n 1 --steps 2
  run 2 $nb --n 2 --steps 2
  run 3 $nb --n 2 --steps 3 --energy-every 1 --snapshot-every 1 --checkpoint-every 2 --output "$tmp/$dir"
  ls "$tmp/$dir"/checkpoint_*.gsck >/dev/null 2>&1 || gs_fail "$solver: no checkpoint in $tmp/$dir"
  run 3 nbody --backend cpu --iters 1 --progress off --steps 5 --energy-every 2 --snapshot-every 2 \
    --restart "$tmp/$dir" --output "$tmp/$dir"
  echo "$out" | grep "^# final state: step 5," >/dev/null || { echo "$out"; gs_fail "$solver: the restart did not reach step 5"; }
  # a stop: the wall-clock budget, then the checkpoint of the last step, on every rank
  run 3 $nb --n 2 --steps 100000000 --walltime 00:00:02 --output "$tmp/$dir-stop"
  echo "$out" | grep '^# stopped after step [0-9]* of 100000000 (wall-clock budget nearly spent)' >/dev/null ||
    { echo "$out"; gs_fail "$solver: no stop on the wall-clock budget"; }
done
# The issue's tree cases: N = 256 on 3 ranks (2 tiles: rank 2 owns none), and the relative
# opening test (a_old gathered from every rank) through a restart.
run 3 nbody --backend cpu --solver tree --iters 1 --progress off --n 256 --steps 2
run 3 nbody --backend cpu --solver tree --tree-layout replicated --iters 1 --progress off --n 256 --steps 2
run 3 nbody --backend cpu --solver tree --iters 1 --progress off --n 2 --steps 2 --opening relative --energy-every 1 \
  --checkpoint-every 2 --output "$tmp/relative"
run 3 nbody --backend cpu --iters 1 --progress off --steps 3 --restart "$tmp/relative"
# An --ic file of 2 bodies in the domains layout: rank 0 hands out the slices, ranks 1 and 2 get none;
# in the direct sum: rank 0 reads it and broadcasts it to ranks that own no tile.
printf '0 0 0 0 0.1 0 1\n1 0 0 0 -0.1 0 1\n' >"$tmp/two.txt"
run 3 nbody --backend cpu --solver tree --iters 1 --progress off --ic "$tmp/two.txt" --steps 2
run 3 nbody --backend cpu --iters 1 --progress off --ic "$tmp/two.txt" --steps 2

# reduce: --n is per rank (every rank has some); --total spreads N, one element each at least.
run 3 reduce --backend cpu --iters 1 --warmup 0 --n 1
run 3 reduce --backend cpu --iters 1 --warmup 0 --total 4 --source host
out=$(GS_TIMEOUT=$limit gs_mpirun 3 reduce --backend cpu --total 2 2>&1)
rc=$?
[ $rc = 2 ] && echo "$out" | grep '^gpusim: error: --total 2 is smaller than the 3 ranks' >/dev/null ||
  { echo "$out"; gs_fail "reduce --total 2 on 3 ranks: exit $rc, want the usage error (exit 2)"; }
echo "ok: reduce --total 2 on 3 ranks: $(echo "$out" | grep '^gpusim: error')"

# matmul: C's blocks and the K panels on a 1 x 3 and a 2 x 2 grid, most ranks owning nothing.
run 3 matmul --backend cpu --iters 1 --warmup 0 --n 1
run 4 matmul --backend cpu --iters 1 --warmup 0 --n 1
run 4 matmul --backend cpu --iters 1 --warmup 0 --m 1 --n 3 --k 2 --ic random
echo "PASS"
