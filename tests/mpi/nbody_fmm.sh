#!/bin/sh
# --solver fmm on the CPU backend: verified against the double direct sum at orders 2, 4, 6 and 8,
# its 99th percentile error falling with each; the same final state on 1, 2 and 3 ranks (every
# rank evaluates the same tree: bitwise independent of the rank count), in single and double;
# total momentum at round-off after 100 steps in double, where the tree's drifts; the header,
# table row, per-step line and result rows; a tolerance it cannot meet, and forces reversed, fail
# with exit 1; its options' usage errors (exit 2, one line).
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p99_of() { sed -n 's/^# fmm check (start): .* 99th percentile \([0-9.e+-]*\), .*/\1/p'; }

# Accuracy across orders (theta 0.5, eps 0.05: docs/fmm.md's table): verified, each order more
# accurate than the one before by 2x at least.
last=1
for p in 2 4 6 8; do
  out=$(gs_mpirun 1 nbody --backend cpu --n 2000 --eps 0.05 --precision double --iters 1 --steps 1 --progress off \
    --solver fmm --fmm-order $p --fmm-theta 0.5)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "order $p: exit $rc"; }
  gs_verified "$out" "order $p"
  echo "$out" | grep -q "^# fmm check (start): 1024 bodies, .*: OK$" || { echo "$out"; gs_fail "order $p: no OK check"; }
  e=$(echo "$out" | p99_of)
  gs_below "order $p: 99th percentile" "$e" "$(awk -v l="$last" 'BEGIN { print l / 2 }')"
  echo "ok: order $p: 99th percentile $e, below half of order $((p - 2))'s $last"
  last=$e
done

# The rank count changes no bit.
for variant in "--precision single" "--precision double --fmm-order 4 --fmm-theta 0.6"; do
  first=""
  for np in 1 2 3; do
    out=$(gs_mpirun $np nbody --backend cpu --n 1000 --iters 1 --steps 6 --solver fmm --progress off $variant)
    rc=$?
    [ $rc = 0 ] || { echo "$out"; gs_fail "$variant on $np rank(s): exit $rc"; }
    gs_verified "$out" "$variant on $np rank(s)"
    echo "$out" | grep -q "^# fmm check (end, step 6): 1000 bodies, .*: OK$" || { echo "$out"; gs_fail "$variant, $np: no end check"; }
    h=$(echo "$out" | gs_hash_of)
    [ -n "$h" ] || { echo "$out"; gs_fail "$variant on $np rank(s): no final state"; }
    [ -z "$first" ] && first=$h
    [ "$h" = "$first" ] || gs_fail "$variant: $np ranks end in $h, 1 rank in $first"
  done
  echo "ok: $variant: verified on 1, 2, 3 ranks, the same state $first"
done

# Momentum after 100 steps in double: round-off for the fmm (its verdict OK), drift for the tree.
mom_of() { sed -n 's/^# momentum: |P - P0| \/ (M v_rms) = \([0-9.e+-]*\) at step 100 .*/\1/p'; }
common="--backend cpu --n 1000 --precision double --iters 1 --steps 100 --energy-every 50 --progress off"
out=$(gs_mpirun 2 nbody $common --solver fmm)
rc=$?
[ $rc = 0 ] || { echo "$out"; gs_fail "fmm, 100 steps: exit $rc"; }
echo "$out" | grep -q '^# momentum: .* tolerance 1.0e-12: the fmm solver.s forces cancel pairwise to round-off): OK$' ||
  { echo "$out"; gs_fail "fmm: no momentum verdict"; }
fmm=$(echo "$out" | mom_of)
gs_below "fmm: |P - P0| / (M v_rms) after 100 steps" "$fmm" 1e-12
out=$(gs_mpirun 2 nbody $common --solver tree --tree-layout replicated) || gs_fail "tree, 100 steps: exit $?"
tree=$(echo "$out" | mom_of)
gs_below "tree's drift, above the fmm's" "$(awk -v f="$fmm" 'BEGIN { print 1000 * f }')" "$tree"
echo "ok: momentum after 100 steps: fmm $fmm, tree $tree"

# What a run says: the header, the table row, the per-step line, the result rows.
out=$(gs_mpirun 2 nbody --backend cpu --n 900 --iters 1 --steps 3 --solver fmm --progress off --csv "$tmp/r.csv") ||
  gs_fail "csv run: exit $?"
for want in '^# solver: fmm \(fast multipole, .*\), order 6, theta = 0.7; every rank evaluates all N' '^# fmm method: CPU: ' \
  '^solver +build_ms +up_ms +walk_ms +down_ms +ms +m2l/body +p2p/body +GFLOP/s +p99_err  check$' \
  '^fmm( +[0-9.]+){8} +[0-9.e+-]+  OK$' '^# rates: interactions counted by the walk, cell-cell' \
  '^# per step \(median of 3, slowest rank\): total [0-9.]+ ms, build [0-9.]+ ms, upward [0-9.]+ ms, walk'; do
  echo "$out" | grep -qE "$want" || { echo "$out"; gs_fail "no line matching '$want'"; }
done
grep -q 'phase=forces;solver=fmm;layout=replicated;order=6;theta=0.7;' "$tmp/r.csv" || { cat "$tmp/r.csv"; gs_fail "no fmm row in the CSV"; }
grep -q 'phase=step;solver=fmm;layout=replicated;build_s=' "$tmp/r.csv" || { cat "$tmp/r.csv"; gs_fail "no step row in the CSV"; }
echo "ok: header, table row, per-step line and result rows"

# A tolerance it cannot meet, and forces reversed (the planted fault): FAILED, exit 1.
for case in "--force-tol 1e-12:" "--fmm-order 3:GPUSIM_TEST_CORRUPT_RESULT=1"; do
  args=${case%%:*} env=${case#*:}
  # the case's variable for this run alone: exported in the command substitution's subshell
  out=$([ -z "$env" ] || export "$env"; gs_mpirun 2 nbody --backend cpu --n 900 --iters 1 --steps 2 --solver fmm --progress off $args)
  rc=$?
  [ $rc = 1 ] || { echo "$out"; gs_fail "'$env $args': exit $rc, want 1"; }
  echo "$out" | grep -q '^# fmm check (start): .*: FAILED$' && echo "$out" | grep -q '^# verification: FAILED' ||
    { echo "$out"; gs_fail "'$env $args': no FAILED check"; }
  echo "ok: '$env $args' fails with exit 1"
done

bad() { # bad WANT OPTIONS...: a usage error of nbody's
  local want=$1
  shift
  gs_usage_error "$want" nbody --backend cpu --n 300 --steps 1 "$@"
}
bad '--fmm-order is an option of the fast multipole solver: it needs --solver fmm' --fmm-order 4
bad '--fmm-theta is an option of the fast multipole solver: it needs --solver fmm' --solver tree --fmm-theta 0.5
bad '--fmm-order' --solver fmm --fmm-order 0
bad '--fmm-order' --solver fmm --fmm-order 9
bad '--fmm-theta: must be > 0 and < 1' --solver fmm --fmm-theta 0
bad '--fmm-theta: must be > 0 and < 1' --solver fmm --fmm-theta 1
bad '--theta is an option of the tree: it needs --solver tree' --solver fmm --theta 0.5
bad '--kernel names direct-sum kernels: --solver fmm has none' --solver fmm --kernel omp
bad '--solver fmm: the cutoff force law of --ic disk has no smooth expansion' --solver fmm --ic disk
# The CUDA backend has no fmm (one line from rank 0, exit 2) where it runs at all: a GPU is needed.
if [ "$(gs_gpus)" -gt 0 ]; then
  bad '--solver fmm: the cuda backend has no fast multipole solver' --backend cuda --solver fmm
else
  echo "ok: --backend cuda --solver fmm not tried: no GPU here (on a GPU machine this test checks it)"
fi
