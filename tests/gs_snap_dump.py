"""gs_snap_dump.py BASE: print gpusim snapshot BASE (BASE.hdf5 through h5py, or BASE.bin with its
BASE.json through struct and json: readers that share no code with src/gs_io.c) as text, for the
shell tests to compare with awk: a line "time T step S n N", then one line per body, in file order,
"id x y z vx vy vz m", every number with 17 significant digits. Exit 1 if the file is inconsistent
(a .bin whose size or header disagrees with its .json), 2 if there is no snapshot BASE."""
import json
import os
import struct
import sys


def hdf5(path):
    import h5py  # Debian: python3-h5py, for /usr/bin/python3

    with h5py.File(path, "r") as f:
        h = f["Header"].attrs
        p = f["PartType1"]
        n = int(h["NumPart_Total"][1])
        cols = [p["Coordinates"][()], p["Velocities"][()], p["Masses"][()], p["ParticleIDs"][()]]
        rows = [(int(cols[3][i]), *map(float, cols[0][i]), *map(float, cols[1][i]), float(cols[2][i])) for i in range(n)]
        return float(h["Time"]), int(h["step"]), rows


def raw(base):
    meta = json.load(open(base + ".json"))
    data = open(base + ".bin", "rb").read()
    magic, _, hbytes, n, time, step = struct.unpack_from("<8sIIQdq", data, 0)
    assert magic == b"GSSNAP01" and hbytes == meta["header_bytes"] and n == meta["n_total"], (magic, hbytes, n)
    assert len(data) == meta["file_bytes"] and time == meta["time"] and step == meta["step"], meta
    a = meta["arrays"]
    rows = []
    for i in range(n):
        pos = struct.unpack_from("<3d", data, a["Coordinates"]["offset"] + 24 * i)
        vel = struct.unpack_from("<3d", data, a["Velocities"]["offset"] + 24 * i)
        (m,) = struct.unpack_from("<d", data, a["Masses"]["offset"] + 8 * i)
        (pid,) = struct.unpack_from("<Q", data, a["ParticleIDs"]["offset"] + 8 * i)
        rows.append((pid, *pos, *vel, m))
    return time, step, rows


def main():
    base = sys.argv[1]
    if os.path.exists(base + ".hdf5"):
        time, step, rows = hdf5(base + ".hdf5")
    elif os.path.exists(base + ".bin"):
        time, step, rows = raw(base)
    else:
        print("no snapshot %s.hdf5 or %s.bin" % (base, base), file=sys.stderr)
        return 2
    print("time %.17g step %d n %d" % (time, step, len(rows)))
    for r in rows:
        print("%d " % r[0] + " ".join("%.17g" % v for v in r[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
