#!/bin/sh
# A preset's bodies in the tree's domains layout are made on each rank for its own slice only,
# centred with sums made in blocks of 4096 ids (src/gs_ic.h): its initial state (snapshot 0,
# double precision, read back by the independent reader) must be bitwise the replicated layout's,
# which makes every body on every rank, for plummer, uniform and disk on 1 and 3 ranks (and 8 for
# plummer: ranks whose slice begins no block). N = 10000 spans three blocks, so ranks' slices
# cross block boundaries. An --ic file in the domains layout is read by rank 0 a block at a time
# and each rank sent its part of each block: the same initial state as the replicated layout's
# (rank 0 reads the file whole and broadcasts it), on 1, 3 and 8 ranks, from a file with comments
# and blank lines.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# state LAYOUT NP IC: snapshot 0 of a verified run as text into $d.
runs=0
state() {
  runs=$((runs + 1))
  dir="$tmp/$runs-$1-$2-$3"
  size="--n 10000"
  [ -f "$3" ] && size=
  out=$(gs_mpirun "$2" nbody --backend cpu --solver tree --tree-layout "$1" --ic "$3" $size --steps 0 \
    --snapshot-every 1 --precision double --iters 1 --progress off --output "$dir" 2>&1)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$1 layout, --ic $3 on $2 rank(s): exit $rc"; }
  gs_verified "$out" "$1 layout, --ic $3 on $2 rank(s)"
  d=$(gs_snap_dump "$dir/snapshot_000")
  rc=$?
  [ $rc = 77 ] && exit 77
  [ $rc = 0 ] || gs_fail "$dir/snapshot_000: the independent reader failed (exit $rc)"
  [ "$(echo "$d" | head -1)" = "time 0 step 0 n 10000" ] || { echo "$d" | head -3; gs_fail "$dir: header"; }
}

# 10000 bodies in a clumpy box, a comment or a blank line every 997 bodies.
awk 'BEGIN { srand(5); for (i = 0; i < 10000; i++) {
  if (i % 997 == 0) print (i % 2 ? "" : "# a comment line");
  c = int(rand() * 4); printf "%.17g %.17g %.17g %.6g %.6g %.6g %.17g\n", c + rand() / 8, rand() / 8 - c, rand(),
    rand() - 0.5, rand() - 0.5, 0, 1e-4 * (1 + rand()) } }' >"$tmp/bodies.txt" || gs_fail "awk"
for ic in plummer uniform disk "$tmp/bodies.txt"; do
  nps="1 3"
  [ "$ic" != uniform ] && [ "$ic" != disk ] && nps="1 3 8"
  state replicated 1 "$ic"
  want=$d
  for np in $nps; do
    for layout in replicated domains; do
      state $layout "$np" "$ic"
      [ "$d" = "$want" ] || {
        printf '%s\n' "$d" >"$tmp/got" && printf '%s\n' "$want" >"$tmp/want"
        diff "$tmp/want" "$tmp/got" | head -5
        gs_fail "--ic $ic: the $layout layout's initial state on $np rank(s) is not the replicated layout's on 1"
      }
    done
  done
  echo "ok: --ic $ic: the same initial state in both layouts on $nps rank(s)"
done
# The file's total mass, summed by rank 0 as it hands the file out, scales the momentum line; a
# restart sums it again from the checkpoint's positions (gs_nbody_setup_mass_of): in double
# precision the same bits, so the same line after 2 steps, run through or restarted at step 1.
mom() {
  out=$(gs_mpirun 3 nbody --backend cpu --solver tree --tree-layout domains --precision double --iters 1 \
    --progress off "$@" 2>&1)
  rc=$?
  [ $rc = 0 ] || { echo "$out"; gs_fail "$*: exit $rc"; }
  m=$(echo "$out" | grep '^# momentum: ')
}
mom --ic "$tmp/bodies.txt" --steps 2 --output "$tmp/m1"
want=$m
mom --ic "$tmp/bodies.txt" --steps 1 --checkpoint-every 1 --output "$tmp/m2"
mom --steps 2 --restart "$tmp/m2" --output "$tmp/m2"
[ -n "$want" ] && [ "$m" = "$want" ] || gs_fail "the file's mass: the run says '$want', its restart '$m'"
echo "ok: the file's total mass: $want"
echo "PASS: the domains layout's slices of plummer, uniform, disk and a file start from the whole model's bits"
