#!/bin/sh
# snapshot_read.sh: snapshots written by gs_io under mpiexec -n 1, 2, 4 ($GS_SNAP_WRITER, built
# from tests/gs_snap_writer.c), read back by readers that share no code with gs_io: h5dump and
# h5py for HDF5, Python's struct and json for the raw format. Every value of every body, the
# GADGET Header attributes and ParticleIDs are checked; also chunk boundaries (GS_IO_ROWS=7),
# ranks without bodies, an empty snapshot, replacing a snapshot, and a failure that every rank
# reports identically instead of hanging. The unit and Parameters attributes that make
# non-cosmological readers see gpusim's units, and, where importable (python3, /usr/bin/python3 or
# $GS_PYTHON), yt and pynbody loading the snapshot with those units (docs/snapshot-format.md);
# gpusim nbody's snapshot names its --ic file. A reader missing here skips its part (a SKIP line
# says so); the test skips (77) only when no independent reader exists at all.
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

# check_yt FILE N TIME: yt loads it as GADGET HDF5 with the units of /Units (the lines of
# docs/snapshot-format.md): the time, values in code units, G = 1 to the precision of yt's
# constants, not cosmological, not periodic.
check_yt() {
  "$py_yt" - "$@" <<'EOF' || gs_fail "yt: $1"
import sys
import h5py, numpy as np, unyt, yt
yt.set_log_level(40)
path, n, t = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
u = h5py.File(path, "r")["Units"].attrs
ds = yt.load(path, unit_base={k: float(u[k]) for k in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s")},
             bounding_box=[[-100, 100]] * 3)
assert type(ds).__name__ == "GadgetHDF5Dataset" and not ds.cosmological_simulation, type(ds)
assert tuple(ds.periodicity) == (False, False, False), ds.periodicity
assert abs(float(ds.current_time.to("s")) / (t * u["UnitTime_in_s"]) - 1) < 1e-12, ds.current_time.to("s")
G = float(unyt.G.to(ds.length_unit ** 3 / ds.mass_unit / ds.time_unit ** 2))
assert abs(G - 1) < 1e-4, ("G in yt's code units", G)
ad = ds.all_data()
i = np.argsort(ad["PartType1", "ParticleIDs"].d)
pos, m = ad["PartType1", "Coordinates"].to("code_length").d[i], ad["PartType1", "Masses"].to("code_mass").d[i]
iu = np.arange(n, dtype=np.uint64)
assert np.allclose(pos[:, 0], iu + 0.5, rtol=1e-12) and np.allclose(m, (1 + iu % 3) / 1024, rtol=1e-12), pos[:3]
print("yt %s: %s: %d bodies, t = %s, G = %.6f OK" % (yt.__version__, path, n, ds.current_time, G))
EOF
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
