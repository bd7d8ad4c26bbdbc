#!/bin/sh
# A preset's bodies in the tree's domains layout are made on each rank for its own slice only,
# centred with sums made in blocks of 4096 ids (src/gs_ic.h): its initial state (snapshot 0,
# double precision, read back by the independent reader) must be bitwise the replicated layout's,
# which makes every body on every rank, for plummer, uniform and disk on 1 and 3 ranks (and 8 for
# plummer: ranks whose slice begins no block). N = 10000 spans three blocks, so ranks' slices
# cross block boundaries.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# state LAYOUT NP IC: snapshot 0 of a verified run as text into $d.
runs=0
state() {
  runs=$((runs + 1))
  dir="$tmp/$runs-$1-$2-$3"
  out=$(gs_mpirun "$2" nbody --backend cpu --solver tree --tree-layout "$1" --ic "$3" --n 10000 --steps 0 \
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

for ic in plummer uniform disk; do
  nps="1 3"
  [ $ic = plummer ] && nps="1 3 8"
  state replicated 1 $ic
  want=$d
  for np in $nps; do
    for layout in replicated domains; do
      state $layout "$np" $ic
      [ "$d" = "$want" ] || {
        printf '%s\n' "$d" >"$tmp/got" && printf '%s\n' "$want" >"$tmp/want"
        diff "$tmp/want" "$tmp/got" | head -5
        gs_fail "--ic $ic: the $layout layout's initial state on $np rank(s) is not the replicated layout's on 1"
      }
    done
  done
  echo "ok: --ic $ic: the same initial state in both layouts on $nps rank(s)"
done
echo "PASS: the domains layout's slices of plummer, uniform and disk start from the whole generation's bits"
