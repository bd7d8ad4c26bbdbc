#!/bin/sh
# snapshot_read.sh: snapshots written by gs_io under mpiexec -n 1, 2, 4 ($GS_SNAP_WRITER, built
# from tests/gs_snap_writer.c), read back by readers that share no code with gs_io: h5dump and
# h5py for HDF5, Python's struct and json for the raw format. Every value of every body, the
# GADGET Header attributes, the extent over all ranks and ParticleIDs are checked; also chunk
# boundaries (GS_IO_ROWS=7), ranks without bodies, an empty snapshot, replacing a snapshot, and a
# failure that every rank reports identically instead of hanging. The unit and Parameters attributes that make
# non-cosmological readers see gpusim's units, and, where importable (python3, /usr/bin/python3 or
# $GS_PYTHON), yt and pynbody loading the snapshot with those units: yt through the recipe of
# docs/snapshot-format.md itself, also on a gpusim nbody snapshot with bodies far out (x = 150,
# y = -3000), every one of which all_data() must return. gpusim nbody's snapshot names its --ic
# file. A reader missing here skips its part (a SKIP line says so); the test skips (77) only when
# no independent reader exists at all.
. "$GS_TEST_LIB"
[ -x "${GS_SNAP_WRITER:-}" ] || gs_hard "GS_SNAP_WRITER is not set to the built tests/gs_snap_writer"
[ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher (mpiexec) found by configure"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Readers. Debian's h5py is for /usr/bin/python3, which need not be the python3 on PATH (pyenv).
h5dump=$(command -v h5dump || true)
py_h5py="" py_any="" py_yt="" py_pynbody=""
for py in ${GS_PYTHON:-} python3 /usr/bin/python3; do
  command -v "$py" >/dev/null 2>&1 || continue
  [ -z "$py_any" ] && "$py" -c 'import json, struct' 2>/dev/null && py_any=$py
  [ -z "$py_h5py" ] && "$py" -c 'import h5py, numpy' 2>/dev/null && py_h5py=$py
  [ -z "$py_yt" ] && "$py" -c 'import yt, h5py' 2>/dev/null && py_yt=$py
  [ -z "$py_pynbody" ] && "$py" -c 'import pynbody' 2>/dev/null && py_pynbody=$py
done

# write NP DIR N INDEX TIME: the writer on NP ranks, chunks of 7 rows so every size crosses some.
write() {
  GS_IO_ROWS=7 timeout "${GS_TIMEOUT:-120}" "$MPIEXEC" $GS_MPIFLAGS -n "$1" "$GS_SNAP_WRITER" "$2" "$3" "$4" "$5"
}

# The expected values, as in tests/gs_snap_writer.c (awk computes in IEEE double like C).
GS_AWK_EXPECT='
function want(name, i, c) {
  if (name == "Coordinates") return c == 0 ? i + 0.5 : c == 1 ? -0.25 * i : 0.125 * (i % 7) - 1
  if (name == "Velocities") return c == 0 ? (i % 5) - 2 : c == 1 ? 0.5 * i : 1 / (i + 3)
  if (name == "Masses") return (1 + i % 3) / 1024
  return i
}'

# want_extent N: the extent of the writer's N bodies as the header holds it, least x y z then
# greatest x y z (inf and -inf without bodies).
want_extent() {
  awk -v n="$1" "$GS_AWK_EXPECT"' BEGIN {
    for (c = 0; c < 3; c++) for (i = 0; i < n; i++) {
      v = want("Coordinates", i, c)
      if (i == 0 || v < lo[c]) lo[c] = v
      if (i == 0 || v > hi[c]) hi[c] = v
    }
    for (k = 0; k < 6; k++) printf "%s%s", k ? " " : "", n == 0 ? (k < 3 ? "inf" : "-inf") : sprintf("%.17g", k < 3 ? lo[k] : hi[k - 3])
    print ""
  }'
}
# same_values A B: the same space-separated values, numbers compared as numbers (-0 is 0).
same_values() {
  awk -v a="$1" -v b="$2" "$GS_AWK_NUM"' BEGIN {
    na = split(a, x, " "); nb = split(b, y, " ")
    if (na != nb) exit 1
    for (k = 1; k <= na; k++) if (x[k] != y[k] && !(num(x[k]) && num(y[k]) && x[k] + 0 == y[k] + 0)) exit 1
  }'
}

# h5vals ARGS...: the values of one h5dump object (-d DATASET or -a ATTRIBUTE), one per line
# (its first DATA block: a dataset's attributes follow its data).
h5vals() {
  "$h5dump" -y -w 0 -m '%.17g' "$@" | awk '/^ *DATA \{/ && !done { on = 1; next } on && /^ *\}/ { on = 0; done = 1 }
    on { gsub(/,/, " "); for (k = 1; k <= NF; k++) print $k }'
}

# check_h5dump FILE N TIME
check_h5dump() {
  f=$1 n=$2 t=$3
  for name in Coordinates Velocities Masses ParticleIDs; do
    w=1
    [ $name = Coordinates ] || [ $name = Velocities ] && w=3
    head=$("$h5dump" -H -d /PartType1/$name "$f") || gs_fail "h5dump: no /PartType1/$name in $f"
    type=H5T_IEEE_F64LE
    [ $name = ParticleIDs ] && type=H5T_STD_U64LE
    echo "$head" | grep -q "DATATYPE  *$type" || { echo "$head"; gs_fail "h5dump: $name is not $type"; }
    if [ "$n" -gt 0 ]; then
      shape="( $n )"
      [ $w = 3 ] && shape="( $n, 3 )"
      echo "$head" | grep -qF "SIMPLE { $shape / $shape }" || { echo "$head"; gs_fail "h5dump: $name is not $shape"; }
    fi
    bad=$(h5vals -d /PartType1/$name "$f" | awk -v name=$name -v w=$w -v n="$n" "$GS_AWK_EXPECT"'
      { k = NR - 1; i = int(k / w); if ($1 + 0 != want(name, i, k % w)) { printf "row %d col %d: %s, want %.17g\n", i, k % w, $1, want(name, i, k % w); bad = 1; exit } }
      END { if (!bad && NR != n * w) print NR " values, want " n * w }')
    [ -z "$bad" ] || gs_fail "h5dump: $f $name: $bad"
  done
  # Header attributes: name and the exact values, space separated.
  while read -r attr want; do
    got=$(h5vals -a "/Header/$attr" "$f" | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] || awk -v a="$got" -v b="$want" 'BEGIN { exit !(a + 0 == b + 0 && a !~ / /) }' ||
      gs_fail "h5dump: $f /Header/$attr = '$got', want '$want'"
  done <<EOF
NumPart_ThisFile 0 $n 0 0 0 0
NumPart_Total 0 $n 0 0 0 0
NumPart_Total_HighWord 0 0 0 0 0 0
MassTable 0 0 0 0 0 0
Time $t
Redshift 0
BoxSize 0
NumFilesPerSnapshot 1
Omega0 0
OmegaLambda 0
HubbleParam 1
Flag_Sfr 0
Flag_Cooling 0
Flag_Feedback 0
Flag_StellarAge 0
Flag_Metals 0
Flag_DoublePrecision 1
step 42
G 1
eps 0.01
ic "snaptest"
EOF
  "$h5dump" -a /Units/UnitLength_in_cm "$f" >/dev/null || gs_fail "h5dump: no /Units/UnitLength_in_cm in $f"
  # The extent: every body's least and greatest x, y, z, over all ranks.
  got=$({ h5vals -a /Header/extent_min "$f" && h5vals -a /Header/extent_max "$f"; } | tr '\n' ' ' | sed 's/ $//')
  want=$(want_extent "$n")
  same_values "$got" "$want" || gs_fail "h5dump: $f /Header/extent_min, extent_max = '$got', want '$want'"
}

# check_h5py FILE N TIME
check_h5py() {
  "$py_h5py" - "$@" <<'EOF' || gs_fail "h5py: $1"
import sys
import h5py, numpy as np
path, n, t = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with h5py.File(path, "r") as f:
    h = f["Header"].attrs
    want = {"NumPart_ThisFile": [0, n, 0, 0, 0, 0], "NumPart_Total": [0, n, 0, 0, 0, 0],
            "NumPart_Total_HighWord": [0] * 6, "MassTable": [0.0] * 6, "Time": t, "Redshift": 0.0,
            "BoxSize": 0.0, "NumFilesPerSnapshot": 1, "Omega0": 0.0, "OmegaLambda": 0.0, "HubbleParam": 1.0,
            "Flag_Sfr": 0, "Flag_Cooling": 0, "Flag_Feedback": 0, "Flag_StellarAge": 0, "Flag_Metals": 0,
            "Flag_DoublePrecision": 1, "step": 42, "G": 1.0, "eps": 0.01, "ic": b"snaptest"}
    for k, v in want.items():
        got = h[k]
        assert np.array_equal(np.asarray(got), np.asarray(v)), (k, got, v)
    for k in ("NumPart_ThisFile", "NumPart_Total", "NumPart_Total_HighWord"):
        assert h[k].dtype == np.uint32 and h[k].shape == (6,), (k, h[k].dtype)
    assert h["gpusim_version"], "no gpusim_version"
    # Units: 1 kpc, 1e10 Msun and the velocity that makes G (1 here) exact; time is L / V.
    u = f["Units"].attrs
    L, M, V, T = (u[k] for k in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s", "UnitTime_in_s"))
    assert (L, M) == (3.0856775814913673e21, 1.988409870698051e43) and T == L / V, (L, M, V, T)
    assert abs(6.6743e-8 * M / (L * V * V) - 1) < 1e-12, ("G in these units", 6.6743e-8 * M / (L * V * V))
    # Parameters as GADGET-4 writes them without comoving integration; no HubbleParam there
    # (pynbody would take h^-1 units) and no /Config group (yt would take the file for AREPO).
    p = f["Parameters"].attrs
    want = {"ComovingIntegrationOn": 0, "PeriodicBoundariesOn": 0, "BoxSize": 0.0, "Omega0": 0.0,
            "OmegaLambda": 0.0, "OmegaBaryon": 0.0, "UnitLength_in_cm": L, "UnitMass_in_g": M,
            "UnitVelocity_in_cm_per_s": V, "GravityConstantInternal": 1.0, "Time_GYR": t * T / 3.15576e16}
    assert {k: p[k] for k in want} == want and set(p) == set(want), dict(p)
    assert "Config" not in f, "a /Config group"
    for k, desc, cgs in (("Coordinates", "U_L", L), ("Velocities", "U_V", V), ("Masses", "U_M", M), ("ParticleIDs", "", 1.0)):
        a = f["PartType1/" + k].attrs
        assert (a["CGSConversionFactor"], a["aexp-scale-exponent"], a["h-scale-exponent"]) == (cgs, 0, 0), (k, dict(a))
        assert (desc in a["VarDescription"].decode()) if desc else "U_" not in a["VarDescription"].decode(), (k, dict(a))
    i = np.arange(n, dtype=np.float64)
    iu = np.arange(n, dtype=np.uint64)
    want = {"Coordinates": np.stack([i + 0.5, -0.25 * i, 0.125 * (iu % 7) - 1], axis=1),
            "Velocities": np.stack([(iu % 5).astype(np.float64) - 2, 0.5 * i, 1 / (i + 3)], axis=1),
            "Masses": (1 + iu % 3).astype(np.float64) / 1024, "ParticleIDs": iu}
    for k, v in want.items():
        d = f["PartType1/" + k]
        assert d.dtype == v.dtype and d.shape == v.shape, (k, d.dtype, d.shape, v.shape)
        assert np.array_equal(d[()], v), (k, d[()], v)
    # The extent: least and greatest coordinates of all bodies; inf and -inf without any.
    c = want["Coordinates"]
    lo, hi = (c.min(axis=0), c.max(axis=0)) if n else (np.full(3, np.inf), np.full(3, -np.inf))
    for k, v in (("extent_min", lo), ("extent_max", hi)):
        assert h[k].dtype == np.float64 and h[k].shape == (3,) and np.array_equal(h[k], v), (k, h[k], v)
print("h5py: %s: %d bodies OK" % (path, n))
EOF
}

# check_raw DIR/snapshot_NNN N TIME: the .bin through its own header, checked against the .json.
check_raw() {
  "$py_any" - "$@" <<'EOF' || gs_fail "raw reader: $1"
import json, struct, sys
base, n, t = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
meta = json.load(open(base + ".json"))
data = open(base + ".bin", "rb").read()
magic, version, hbytes, nt, time, step, G, eps, o_pos, o_vel, o_mass, o_ids = struct.unpack_from("<8sIIQdqddQQQQ", data, 0)
ic = data[88:128].rstrip(b"\0").decode()
assert (magic, version, hbytes, nt, time, step, G, eps, ic) == (b"GSSNAP01", 1, 128, n, t, 42, 1.0, 0.01, "snaptest"), \
    (magic, version, hbytes, nt, time, step, G, eps, ic)
assert len(data) == 128 + 64 * n == meta["file_bytes"], (len(data), meta["file_bytes"])
assert (meta["magic"], meta["version"], meta["header_bytes"], meta["n_total"], meta["time"], meta["step"], meta["G"],
        meta["eps"], meta["ic"], meta["byte_order"]) == ("GSSNAP01", 1, 128, n, t, 42, 1.0, 0.01, "snaptest", "little"), meta
assert meta["file"] == base.rsplit("/", 1)[1] + ".bin", meta["file"]
coords = [(i + 0.5, -0.25 * i, 0.125 * (i % 7) - 1) for i in range(n)]
want = ([min(p[c] for p in coords) for c in range(3)], [max(p[c] for p in coords) for c in range(3)]) if n else ([None] * 3,) * 2
assert (meta["extent_min"], meta["extent_max"]) == want, (meta["extent_min"], meta["extent_max"], want)
arrays = meta["arrays"]
for name, off, dtype, shape in (("Coordinates", o_pos, "<f8", [n, 3]), ("Velocities", o_vel, "<f8", [n, 3]),
                                ("Masses", o_mass, "<f8", [n]), ("ParticleIDs", o_ids, "<u8", [n])):
    assert arrays[name] == {"dtype": dtype, "shape": shape, "offset": off}, (name, arrays[name])
for i in range(n):
    pos = struct.unpack_from("<3d", data, o_pos + 24 * i)
    vel = struct.unpack_from("<3d", data, o_vel + 24 * i)
    (m,) = struct.unpack_from("<d", data, o_mass + 8 * i)
    (pid,) = struct.unpack_from("<Q", data, o_ids + 8 * i)
    assert pos == (i + 0.5, -0.25 * i, 0.125 * (i % 7) - 1), (i, pos)
    assert vel == ((i % 5) - 2, 0.5 * i, 1 / (i + 3)), (i, vel)
    assert m == (1 + i % 3) / 1024 and pid == i, (i, m, pid)
print("raw: %s: %d bodies OK" % (base, n))
EOF
}

# yt_recipe: the yt recipe of docs/snapshot-format.md as a user copies it, its file name replaced
# by sys.argv[1].
yt_recipe() {
  awk '/^### Loading it in yt/ { on = 1 } on && /^```python$/ { code = 1; next } code && /^```$/ { exit }
    code && /^fn = / { print "fn = sys.argv[1]"; next } code' "${GS_TEST_LIB%/*}/../docs/snapshot-format.md"
}

# check_yt FILE N TIME: the recipe loads FILE as GADGET HDF5 with the units of /Units and a box
# from the header's extent, and closes what it opened; then the time, the values in code units,
# G = 1 to the precision of yt's constants, not cosmological, not periodic, and all_data() holds
# every body, however far out, with the file's coordinates and masses (read by h5py).
check_yt() {
  recipe=$(yt_recipe)
  case $recipe in *'fn = sys.argv[1]'*'yt.load('*) ;;
  *) gs_fail "no yt recipe (a python block with fn = ... then yt.load) after '### Loading it in yt' in docs/snapshot-format.md" ;;
  esac
  { echo "import sys"; echo "$recipe"; cat <<'EOF'
# --- the test's checks, after the recipe (fn, ds, ad, x are the recipe's)
import os
import numpy as np, unyt
path, n, t = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
if os.path.isdir("/proc/self/fd"):  # Linux: this process's open files
    fds = [d for d in os.listdir("/proc/self/fd") if os.path.realpath("/proc/self/fd/" + d) == os.path.realpath(path)]
    assert not fds, "the recipe left the file open (descriptors %s)" % fds
assert type(ds).__name__ == "GadgetHDF5Dataset" and not ds.cosmological_simulation, type(ds)
assert tuple(ds.periodicity) == (False, False, False), ds.periodicity
with h5py.File(path, "r") as f:
    T = float(f["Units"].attrs["UnitTime_in_s"])
    pos_f, m_f = f["PartType1/Coordinates"][()], f["PartType1/Masses"][()]
assert abs(float(ds.current_time.to("s")) - t * T) <= 1e-12 * t * T, (ds.current_time.to("s"), t * T)
G = float(unyt.G.to(ds.length_unit ** 3 / ds.mass_unit / ds.time_unit ** 2))
assert abs(G - 1) < 1e-4, ("G in yt's code units", G)
ids = ad["PartType1", "ParticleIDs"].d
got = (len(ids), len(x), int(ds.particle_type_counts["PartType1"]))
assert got == (n, n, n), ("all_data(), its coordinates and particle_type_counts; want", n, "got", got)
i = np.argsort(ids)
assert np.array_equal(ids[i], np.arange(n)), ids[i]
pos, m = x.d[i], ad["PartType1", "Masses"].to("code_mass").d[i]
atol = 1e-14 * np.abs(pos_f).max()
assert np.allclose(pos, pos_f, rtol=1e-12, atol=atol) and np.allclose(m, m_f, rtol=1e-12, atol=0), (pos[:3], pos_f[:3])
print("yt %s: %s: all %d bodies, within %s .. %s, t = %s, G = %.6f OK" % (yt.__version__, path, n,
      pos_f.min(axis=0), pos_f.max(axis=0), ds.current_time, G))
EOF
  } >"$tmp/yt_check.py"
  "$py_yt" "$tmp/yt_check.py" "$@" 2>"$tmp/yt_err" || { cat "$tmp/yt_err"; gs_fail "yt: the recipe of docs/snapshot-format.md on $1"; }
}

# check_pynbody FILE N TIME: pynbody loads it with no warning, in the units of /Units (no a, no h),
# the time from Time_GYR, G = 1 in those units.
check_pynbody() {
  "$py_pynbody" - "$@" <<'EOF' || gs_fail "pynbody: $1"
import sys, warnings
import numpy as np, pynbody
path, n, t = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    s = pynbody.load(path)
    pos, vel, m = s["pos"], s["vel"], s["mass"]
assert not w, [str(x.message) for x in w]
L, V, M = pos.units, vel.units, m.units
assert "a" not in str(L) and "h" not in str(M), (L, M)
G = float(pynbody.units.G.ratio(L ** 3 / M / (L / V) ** 2))
assert abs(G - 1) < 1e-4, ("G in the snapshot's units", G)
T = float((L / V).ratio("s"))
assert abs(float(s.properties["time"].ratio("s")) - t * T) <= 1e-4 * t * T, (s.properties["time"], t * T)
iu = np.arange(n, dtype=np.uint64)
assert np.array_equal(np.asarray(pos)[:, 0], iu + 0.5) and np.array_equal(np.asarray(m), (1 + iu % 3) / 1024)
print("pynbody %s: %s: %d bodies, t = %s, G = %.6f OK" % (pynbody.__version__, path, n, s.properties["time"], G))
EOF
}

# check DIR INDEX N TIME: whatever the build wrote, with every reader there is.
readers=0
check() {
  base=$(printf '%s/snapshot_%03d' "$1" "$2")
  if [ -f "$base.hdf5" ]; then
    [ -n "$h5dump$py_h5py" ] || gs_skip "HDF5 snapshots but neither h5dump (Debian: hdf5-tools) nor h5py (python3-h5py) to read them"
    [ -n "$h5dump" ] && check_h5dump "$base.hdf5" "$3" "$4" && readers=$((readers + 1)) && echo "h5dump: $base.hdf5: $3 bodies OK"
    [ -n "$py_h5py" ] && check_h5py "$base.hdf5" "$3" "$4" && readers=$((readers + 1))
  elif [ -f "$base.bin" ]; then
    [ -n "$py_any" ] || gs_skip "raw snapshots but no python3 to read them"
    check_raw "$base" "$3" "$4" && readers=$((readers + 1))
  else
    ls -la "$1"
    gs_fail "no snapshot $base.hdf5 or $base.bin"
  fi
  # Nothing else is left behind: no temporary file.
  left=$(ls -A "$1" | grep -v '^snapshot_[0-9]*\.\(hdf5\|bin\|json\)$' || true)
  [ -z "$left" ] || gs_fail "left in $1: $left"
}

echo "readers: h5dump=${h5dump:-none} h5py=${py_h5py:-none} raw=${py_any:-none}"
for np in 1 2 4; do
  out=$(write $np "$tmp/np$np" 37 $np 1.5 2>&1) || { echo "$out"; gs_fail "np=$np: writer exit status"; }
  echo "np=$np: $out"
  check "$tmp/np$np" $np 37 1.5
done
# yt and pynbody, where installed (CI installs them; see docs/snapshot-format.md).
f2=$tmp/np2/snapshot_002.hdf5
if [ -f "$f2" ]; then
  skip_why="not importable by ${GS_PYTHON:+$GS_PYTHON, }python3 or /usr/bin/python3"
  if [ -n "$py_yt" ]; then check_yt "$f2" 37 1.5 && readers=$((readers + 1)); else echo "SKIP (part): yt $skip_why"; fi
  if [ -n "$py_pynbody" ]; then check_pynbody "$f2" 37 1.5 && readers=$((readers + 1)); else echo "SKIP (part): pynbody $skip_why"; fi
  # The yt recipe on gpusim nbody's snapshot of 200 bodies, two of them far out: x = 150 (body 0,
  # on rank 0) and y = -3000 (body 199, on rank 1), well outside a box of +-100; all_data() must
  # return every one.
  if [ -n "$py_yt" ]; then
    awk 'BEGIN { print "150 0 0 0 0 0 0.005"
      for (i = 0; i < 198; i++) printf "%g %g %g 0 0 0 0.005\n", (i % 6) * 0.3 - 0.75, (int(i / 6) % 6) * 0.3 - 0.75, int(i / 36) * 0.3 - 0.75
      print "0 -3000 0 0 0 0 0.005" }' >"$tmp/far.txt"
    out=$(gs_mpirun 2 nbody --backend cpu --iters 1 --ic "$tmp/far.txt" --steps 1 --snapshot-every 1 --output "$tmp/far" \
      --progress off 2>&1) || { echo "$out"; gs_fail "gpusim nbody --ic far.txt with snapshots"; }
    check_yt "$tmp/far/snapshot_000.hdf5" 200 0 && readers=$((readers + 1))
  fi
fi
# gpusim nbody's own snapshot names the --ic file it started from (read by whichever reader is
# here: h5py or h5dump for HDF5, python3 for the JSON; with none, that part is skipped).
printf '%s\n' '-0.5 0 0 0 -0.5 0 0.5' '0.5 0 0 0 0.5 0 0.5' >"$tmp/two bodies.txt"
out=$(gs_mpirun 2 nbody --backend cpu --iters 1 --ic "$tmp/two bodies.txt" --steps 2 --snapshot-every 1 \
  --output "$tmp/run" --progress off 2>&1) || { echo "$out"; gs_fail "gpusim nbody --ic FILE with snapshots"; }
ic_by=""
if [ -f "$tmp/run/snapshot_001.hdf5" ]; then
  if [ -n "$py_h5py" ]; then
    ic_by=h5py
    ic=$("$py_h5py" -c 'import h5py, sys
with h5py.File(sys.argv[1], "r") as f: print(f["Header"].attrs["ic"].decode())' "$tmp/run/snapshot_001.hdf5")
  elif [ -n "$h5dump" ]; then
    ic_by=h5dump
    ic=$("$h5dump" -y -w 0 -a /Header/ic "$tmp/run/snapshot_001.hdf5" |
      awk '/^ *DATA \{/ { on = 1; next } on { sub(/^ *"/, ""); sub(/"$/, ""); print; exit }')
  fi
elif [ -f "$tmp/run/snapshot_001.json" ]; then
  if [ -n "$py_any" ]; then
    ic_by=json
    ic=$("$py_any" -c 'import json, sys; print(json.load(open(sys.argv[1]))["ic"])' "$tmp/run/snapshot_001.json")
  fi
else
  ls -la "$tmp/run"
  gs_fail "gpusim nbody wrote no snapshot_001.hdf5 or snapshot_001.json"
fi
if [ -z "$ic_by" ]; then
  echo "SKIP (part): the snapshot's ic attribute: no reader here for $(ls "$tmp/run" | grep '^snapshot_001\.' | tr '\n' ' ')"
else
  [ "$ic" = "$tmp/two bodies.txt" ] || gs_fail "snapshot ic attribute ($ic_by) '$ic', want '$tmp/two bodies.txt'"
  echo "ok: the snapshot's ic is the file name ($ic_by)"
fi
# Ranks without bodies (3 bodies on 4 ranks), an empty snapshot, and replacing snapshot 1.
write 4 "$tmp/few" 3 1 2.5 >/dev/null 2>&1 || gs_fail "np=4, N=3: writer exit status"
check "$tmp/few" 1 3 2.5
write 2 "$tmp/few" 0 2 0 >/dev/null 2>&1 || gs_fail "np=2, N=0: writer exit status"
check "$tmp/few" 2 0 0
write 2 "$tmp/few" 11 1 3.25 >/dev/null 2>&1 || gs_fail "np=2: replacing snapshot 1"
check "$tmp/few" 1 11 3.25
# A directory that cannot be made: every rank fails with the same message, nobody hangs.
: >"$tmp/file"
out=$(write 4 "$tmp/file/sub" 37 0 1.5 2>/dev/null)
rc=$?
[ $rc = 1 ] || { echo "$out"; gs_fail "unwritable directory: exit $rc, want 1"; }
[ "$(echo "$out" | grep -c '^rank [0-3]: error: snapshot .*cannot create directory')" = 4 ] || { echo "$out"; gs_fail "want the error on all 4 ranks"; }
[ "$(echo "$out" | sed -n 's/^rank [0-3]: //p' | sort -u | wc -l)" = 1 ] || { echo "$out"; gs_fail "ranks report different messages"; }
echo "error on 4 ranks: $(echo "$out" | head -1)"
[ $readers -gt 0 ] || gs_skip "no reader ran"
echo "PASS ($readers reader checks)"
