#!/bin/sh
# --solver tree --tree-layout domains on the CPU backend: the final state is bitwise the same on
# 1, 2, 3, 4 and 8 ranks (the merged tree is the same tree whoever holds which cell), for smooth,
# clustered, coincident and migrating bodies, whatever --tree-cell and --exchange; both
# precisions, both opening tests and the cutoff law; every run verified against the double direct
# sum, a planted wrong force FAILS; checkpoint on 3 ranks, restart on 2 and 1 (bitwise) and in the
# replicated layout (verified); its lines and rows; its usage errors. Small --tree-cell, so that
# these N make many cells and every rank holds some. Double precision but where single is the
# point: a force's last bits then reach the state (single rounds small differences away).
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cpu --solver tree --tree-layout domains --iters 1 --progress off"
prec="--precision double"
migrated() { sed -n 's/^# per step .* \([0-9]*\) bodies migrated over the run;.*/\1/p'; }

# run NP ARGS...: a verified run, checked at the start and the end; its output in $out.
run() {
  np=$1
  shift
  out=$(gs_mpirun "$np" nbody $common $prec "$@" 2>&1)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$* on $np rank(s): exit $rc"; }
  gs_verified "$out" "$* on $np rank(s)"
  [ "$(echo "$out" | grep -c '^# tree check (.*: OK$')" = 2 ] || { echo "$out"; gs_fail "$* on $np: checks not OK"; }
}

# same NPS ARGS...: the same final state on each rank count of NPS, and the same check lines (the
# forces are the same bits; the reference's parts, summed per rank and reduced, differ by
# round-off only, which the printed digits do not show); more than 1 rank: the run's LET exchange
# sent bytes (many cells, every rank some). Sets $first.
same() {
  nps=$1
  shift
  first=""
  for np in $nps; do
    run "$np" "$@"
    h=$(echo "$out" | gs_hash_of)
    [ -n "$h" ] || { echo "$out"; gs_fail "$* on $np rank(s): no final state"; }
    checks=$(echo "$out" | grep -E '^# (tree check \(|diagnostics: )')
    [ -z "$first" ] && first=$h && first_checks=$checks
    [ "$h" = "$first" ] || gs_fail "$*: $np ranks end in $h, the first run in $first"
    [ "$checks" = "$first_checks" ] || { echo "$checks"; gs_fail "$*: $np ranks check otherwise than the first run:
$first_checks"; }
    if [ "$np" -gt 1 ]; then
      echo "$out" | grep -E '^# per step .*LET exchange [0-9.]+ ms \([1-9][0-9.e+]* bytes sent by the busiest rank\)' \
        >/dev/null || { echo "$out"; gs_fail "$* on $np ranks: no LET bytes"; }
    fi
  done
}

# Clustered: a dense clump of 600 in a sphere of radius 0.02 inside a halo of 424 of radius 1;
# coincident: 300 bodies at one point among 500 others (one key, a bucket larger than any cell).
awk 'BEGIN { srand(7); for (i = 0; i < 1024; i++) { r = i < 600 ? 0.02 : 1; do { x = 2 * rand() - 1; y = 2 * rand() - 1
  z = 2 * rand() - 1 } while (x * x + y * y + z * z > 1); printf "%.7f %.7f %.7f 0 0 0 %.6f\n", 0.3 + r * x, r * y, r * z, 1 / 1024 } }' \
  >"$tmp/clump.txt"
awk 'BEGIN { srand(11); for (i = 0; i < 800; i++) { if (i < 300) { x = 0.25; y = -0.125; z = 0.5 } else { x = 2 * rand() - 1
  y = 2 * rand() - 1; z = 2 * rand() - 1 } printf "%.7f %.7f %.7f 0 0 0 %.6f\n", x, y, z, 1 / 800 } }' >"$tmp/same.txt"

for variant in "--n 1024 --steps 3 --tree-cell 32" "--ic $tmp/clump.txt --steps 3 --tree-cell 32" \
  "--ic $tmp/same.txt --steps 2 --tree-cell 16"; do
  same "1 2 3 4 8" $variant
  echo "ok: $variant: the same state $first on 1, 2, 3, 4 and 8 ranks"
done

# Migrating: a cold uniform sphere collapsing (dt large): bodies cross cells and change ranks.
same "1 3" --ic uniform --n 1024 --steps 6 --dt 0.05 --tree-cell 32
n=$(echo "$out" | migrated)
[ -n "$n" ] && [ "$n" -gt 0 ] || { echo "$out"; gs_fail "the collapse migrated '$n' bodies on 3 ranks, want some"; }
echo "ok: a collapse migrating $n bodies on 3 ranks ends in the 1-rank state $first"

# --tree-cell and --exchange change no bit; nor the domains against 1 rank's single cell.
same "1" --n 1024 --steps 3 --tree-cell 32
base=$first
for args in "--tree-cell 16" "" "--tree-cell 64 --exchange host"; do
  run 3 --n 1024 --steps 3 $args
  [ "$(echo "$out" | gs_hash_of)" = "$base" ] || gs_fail "'$args' on 3 ranks: $(echo "$out" | gs_hash_of), want $base"
done
echo "ok: --tree-cell 16, 32, 64 or the default, --exchange host: the same state $base"

# Each cell one leaf bucket of about 500 bodies, opened across ranks: more bodies than the LET's
# kind byte counts (the count then follows it on the wire).
same "1 3" --n 4096 --steps 1 --tree-cell 1024 --leaf 1024
echo "ok: --leaf 1024: the same state $first on 1 and 3 ranks"

for variant in "--precision single" "--opening relative --alpha 0.01" "--ic disk --opening relative"; do
  case $variant in --precision*) prec="" ;; *) prec="--precision double" ;; esac
  same "1 3" --n 1024 --steps 3 --tree-cell 32 $variant
  echo "ok: $variant: the same state $first on 1 and 3 ranks"
done
prec="--precision double"

# A planted fault (the walk's G negated): FAILED, exit 1 on every rank.
out=$(GPUSIM_TEST_CORRUPT_RESULT=1 gs_mpirun 3 nbody $common --n 1024 --steps 1 --tree-cell 32 2>&1)
rc=$?
[ $rc = 1 ] || { echo "$out"; gs_fail "forces reversed: exit $rc, want 1"; }
echo "$out" | grep '^# tree check (start): .*: FAILED$' >/dev/null && echo "$out" | grep '^# verification: FAILED' >/dev/null ||
  { echo "$out"; gs_fail "forces reversed: not FAILED"; }
echo "ok: forces reversed: FAILED (exit 1)"

# Checkpoint on 3 ranks at step 4, restart on 2 and 1: the uninterrupted run's state; in the
# replicated layout: verified (its tree differs: the same state only within its force error).
ck="--n 1024 --tree-cell 32 --opening relative --energy-every 2"
run 3 $ck --steps 8
whole=$(echo "$out" | gs_hash_of)
[ -n "$whole" ] || { echo "$out"; gs_fail "8 steps on 3 rank(s): no final state"; }
run 3 $ck --steps 4 --checkpoint-every 4 --output "$tmp/ck"
for np in 2 1; do
  cp -r "$tmp/ck" "$tmp/ck$np"
  run $np --steps 8 --restart "$tmp/ck$np" --output "$tmp/ck$np"
  [ "$(echo "$out" | gs_hash_of)" = "$whole" ] || gs_fail "restart on $np rank(s): $(echo "$out" | gs_hash_of), want $whole"
  echo "$out" | grep "^# restart: from .* (written by 3 rank(s); this solver's forces do not depend on the rank count" \
    >/dev/null || { echo "$out"; gs_fail "restart on $np rank(s): no note that the rank count changes no bit"; }
  echo "$out" | grep 'only within round-off' >/dev/null && { echo "$out"; gs_fail "restart on $np rank(s): a round-off note"; }
  echo "$out" | grep '^# tree layout: domains: cells of at most 32 bodies' >/dev/null ||
    { echo "$out"; gs_fail "restart on $np rank(s): not the checkpoint's --tree-cell 32"; }
done
cp -r "$tmp/ck" "$tmp/ckr"
out=$(gs_mpirun 2 nbody --backend cpu --progress off --iters 1 --steps 8 --tree-layout replicated --restart "$tmp/ckr" \
  --output "$tmp/ckr" 2>&1) || { rc=$?; echo "$out"; gs_fail "replicated restart: exit $rc"; }
gs_verified "$out" "replicated restart"
echo "$out" | grep '^# solver: tree .*every rank builds the whole tree' >/dev/null || { echo "$out"; gs_fail "not replicated"; }
echo "ok: checkpoint on 3 ranks, restart on 2 and 1 rank(s): the state $whole of 8 steps; replicated restart verified"

# What a run says: the layout, the table row, the per-step line, the result rows.
out=$(gs_mpirun 2 nbody $common --n 1024 --steps 3 --tree-cell 32 --csv "$tmp/r.csv" 2>&1) || gs_fail "csv run: exit $?"
for want in '^# tree layout: domains: cells of at most 32 bodies' '^# tree method: CPU: Morton keys' \
  '^tree +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.e+-]+  OK$' \
  '^# per step \(median of 3, slowest rank\): total [0-9.]+ ms, domain update [0-9.]+ ms, build [0-9.]+ ms, LET exchange [0-9.]+ ms \([0-9.e+]+ bytes sent by the busiest rank\), walk [0-9.]+ ms, .*load imbalance [0-9.]+ \(slowest walk / mean walk\); [0-9]+ bodies migrated'; do
  echo "$out" | grep -E "$want" >/dev/null || { echo "$out"; gs_fail "no line matching '$want'"; }
done
grep 'phase=forces;solver=tree;layout=domains;theta=[0-9.]*;opening=geometric;domain_s=[^;]*;build_s=[^;]*;let_s=[^;]*;walk_s=[^;]*;p99_err=[^;]*;check=OK' "$tmp/r.csv" >/dev/null || { cat "$tmp/r.csv"; gs_fail "no forces row"; }
grep 'phase=step;solver=tree;layout=domains;domain_s=.*let_bytes=.*imbalance=' "$tmp/r.csv" >/dev/null ||
  { cat "$tmp/r.csv"; gs_fail "no step row"; }
# The table over the measurement harness (gs_bench.h): the forces row holds --iters timed
# evaluations, min <= median <= max of the slowest rank, the median the table's ms and the rate
# the table's interactions per body times N over it.
three="${common%--iters 1*}--iters 3 --progress off"
out=$(gs_mpirun 3 nbody $three --n 1024 --steps 1 --tree-cell 32 --csv "$tmp/f.csv" 2>&1)
rc=$?
[ $rc = 0 ] || { echo "$out"; gs_fail "--iters 3 run: exit $rc"; }
line=$(echo "$out" | grep -E '^tree +[0-9]') || { echo "$out"; gs_fail "--iters 3: no table row"; }
grep 'phase=forces;' "$tmp/f.csv" | awk -F, -v ms="$(echo "$line" | awk '{ print $6 }')" \
  -v ib="$(echo "$line" | awk '{ print $7 }')" '
  { n++; r = ib * $12 / $15; d = ms - $15 * 1e3 }
  $13 != 3 || !($14 <= $15 && $15 <= $16) || d > 0.0006 || d < -0.0006 || $18 < 0.999 * r || $18 > 1.001 * r { bad = 1 }
  END { exit !(n == 1 && !bad) }' || { echo "$line"; cat "$tmp/f.csv"; gs_fail "--iters 3: the forces row is not the table's"; }
echo "ok: header, table row, per-step line and result rows"

bad() { # bad WANT OPTIONS...: a usage error of nbody's
  local want=$1
  shift
  gs_usage_error "$want" nbody --backend cpu --n 300 --steps 1 "$@"
}
bad '--tree-layout is an option of the tree: it needs --solver tree' --tree-layout domains
bad '--tree-cell is an option of the tree' --solver direct --tree-cell 64
bad '--tree-cell: 0 is out of range' --solver tree --tree-cell 0
bad "--tree-layout: 'flat' is not one of domains\|replicated" --solver tree --tree-layout flat
bad '--tree-cell is an option of --tree-layout domains' --solver tree --tree-layout replicated --tree-cell 64
echo "PASS"
