#!/bin/sh
# gpusim nbody's own snapshots, in whatever format this build writes (parallel or serial HDF5, or
# raw binary + JSON), read back by an independent reader (tests/gs_snap_dump.py: h5py or struct):
# bodies from a file on 2 ranks, so every value at step 0 is known; ids are the global indices;
# time and step in the header; one snapshot per --snapshot-every and nothing else left behind.
# Skips (77) only when no reader for the format exists here.
. "$GS_TEST_LIB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' '1 0 0 0 0.5 0 0.25' '-1 0 0 0 -0.5 0 0.25' '0 1 0 -0.5 0 0 0.25' '0 -1 0 0.5 0 0 0.25' >"$tmp/four.txt"
out=$(gs_mpirun 2 nbody --backend cpu --ic "$tmp/four.txt" --steps 2 --snapshot-every 1 --iters 1 --precision double \
  --output "$tmp/snap" 2>&1)
rc=$?
[ $rc = 0 ] || { echo "$out"; gs_fail "snapshot run: exit $rc"; }
echo "$out" | grep '^# output:'
ls -A "$tmp/snap"
# dump BASE: the snapshot as text into $d; SKIP (77) without a reader, FAIL if the reader fails.
dump() {
  d=$(gs_snap_dump "$1")
  rc=$?
  [ $rc = 77 ] && exit 77
  [ $rc = 0 ] || gs_fail "$1: the independent reader failed (exit $rc)"
}
dump "$tmp/snap/snapshot_000"
d0=$d
want=$(printf '%s\n' 'time 0 step 0 n 4' '0 1 0 0 0 0.5 0 0.25' '1 -1 0 0 0 -0.5 0 0.25' '2 0 1 0 -0.5 0 0 0.25' \
  '3 0 -1 0 0.5 0 0 0.25')
[ "$d0" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$d0" "$want"; gs_fail "snapshot_000: not the bodies of the file"; }
for i in 1 2; do
  dump "$tmp/snap/snapshot_00$i"
  echo "$d" | head -1 | grep -qx "time 0.00$i step $i n 4" || { echo "$d"; gs_fail "snapshot_00$i: header"; }
  [ "$(echo "$d" | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" = "0 1 2 3 " ] || gs_fail "snapshot_00$i: ids"
done
# Exactly the three snapshots (with their JSON sidecars in the raw format), no temporary file.
left=$(ls -A "$tmp/snap" | grep -v '^snapshot_00[012]\.\(hdf5\|bin\|json\)$')
[ -z "$left" ] || gs_fail "also in the output directory: $left"
[ "$(ls "$tmp/snap" | grep -c '^snapshot_00[012]\.\(hdf5\|bin\)$')" = 3 ] || gs_fail "want 3 snapshots"
echo "PASS: snapshots of gpusim nbody read back ($(echo "$out" | sed -n 's/^# output: .*(snapshots: \(.*\))$/\1/p'))"
