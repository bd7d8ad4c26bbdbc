#!/usr/bin/env python3
"""gpusim's fast multipole solver beside the Flatiron Institute's FMM3D (issue 41's anchor).

  python3 -m venv /opt/fmm-py && /opt/fmm-py/bin/pip install fmm3dpy numpy
  OMP_NUM_THREADS=2 /opt/fmm-py/bin/python jobs/bench/fmm_anchor.py --bench tests/gs_fmm_bench

Both evaluate the same Plummer sphere (made here with numpy, seed fixed, masses 1/N) with the
unsoftened kernel (eps = 0: FMM3D has no softening; gpusim's side is tests/gs_fmm_bench, the
CPU backend's primitives, since `gpusim nbody` softens), on the same cores (OMP_NUM_THREADS for
both). FMM3D's precision parameter is chosen once, at --calibrate bodies: the largest of --eps-list
whose 99th percentile of |a - a_ref| / |a_ref| is at most gpusim's there. At each N both are
timed (median of --repeats; FMM3D's lfmm3d with gradients at the sources, gpusim's build to
unsort) and their 99th percentiles measured against a direct sum over 1024 sample bodies in
numpy (float64). Prints one table; exit 0, 1 if a run fails, 2 on bad usage.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import fmm3dpy
except ImportError as e:  # pragma: no cover
    sys.stderr.write("fmm_anchor.py: needs numpy and fmm3dpy (see the docstring): %s\n" % e)
    sys.exit(2)


def plummer(n, seed):
    """n bodies of a Plummer sphere (Henon units), masses 1/n, as an (n, 4) array."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(1e-10, 0.999, n)
    r = (3 * np.pi / 16) / np.sqrt(x ** (-2.0 / 3.0) - 1)
    u = rng.uniform(-1, 1, n)
    phi = rng.uniform(0, 2 * np.pi, n)
    s = np.sqrt(1 - u * u)
    b = np.empty((n, 4))
    b[:, 0], b[:, 1], b[:, 2], b[:, 3] = r * s * np.cos(phi), r * s * np.sin(phi), r * u, 1.0 / n
    return b


def reference(b, idx):
    """The unsoftened accelerations on bodies idx (G = 1), direct sum over all of b."""
    out = np.zeros((len(idx), 3))
    for k, i in enumerate(idx):
        d = b[:, :3] - b[i, :3]
        r2 = np.einsum("ij,ij->i", d, d)
        r2[i] = 1.0
        w = b[:, 3] / (r2 * np.sqrt(r2))
        w[i] = 0.0
        out[k] = w @ d
    return out


def p99(acc, ref):
    e = np.linalg.norm(acc - ref, axis=1) / np.linalg.norm(ref, axis=1)
    e.sort()
    return e[int(np.ceil(0.99 * len(e))) - 1]


def run_gpusim(bench, b, order, theta, repeats, tmp):
    src, dst = os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.bin")
    b.astype("<f8").tofile(src)
    line = subprocess.run([bench, src, dst, str(order), str(theta), "0", str(repeats)], check=True,
                          capture_output=True, text=True).stdout.split()
    acc = np.fromfile(dst, dtype="<f8").reshape(-1, 4)[:, :3]
    return float(line[line.index("seconds") + 1]), acc


def run_fmm3d(b, eps, repeats):
    src = np.ascontiguousarray(b[:, :3].T)
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fmm3dpy.lfmm3d(eps=eps, sources=src, charges=b[:, 3].copy(), pg=2)
        times.append(time.perf_counter() - t0)
    # its kernel is 1 / (4 pi r): the acceleration is 4 pi times the potential's gradient
    return float(np.median(times)), 4 * np.pi * out.grad.T


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", required=True, help="the built tests/gs_fmm_bench")
    ap.add_argument("--logs", default="16,18,20,22", help="log2 N of the runs")
    ap.add_argument("--calibrate", type=int, default=16, help="log2 N where FMM3D's eps is chosen")
    ap.add_argument("--eps-list", default="0.5,0.2,0.1,5e-2,2e-2,1e-2,5e-3,2e-3,1e-3,5e-4,2e-4,1e-4")
    ap.add_argument("--order", type=int, default=6)
    ap.add_argument("--theta", type=float, default=0.7)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=41)
    a = ap.parse_args()
    threads = os.environ.get("OMP_NUM_THREADS", "(unset: all cores)")
    print("# fmm_anchor: gpusim fmm order %d theta %g vs FMM3D %s lfmm3d; eps = 0; OMP_NUM_THREADS=%s; load %s"
          % (a.order, a.theta, getattr(fmm3dpy, "__version__", "2.x"), threads, open("/proc/loadavg").read().split()[:3]))
    with tempfile.TemporaryDirectory() as tmp:
        b = plummer(1 << a.calibrate, a.seed)
        idx = np.linspace(0, len(b) - 1, 1024).astype(int)
        ref = reference(b, idx)
        _, acc = run_gpusim(a.bench, b, a.order, a.theta, 1, tmp)
        want = p99(acc[idx], ref)
        chosen = None
        for e in sorted((float(x) for x in a.eps_list.split(",")), reverse=True):
            _, f = run_fmm3d(b, e, 1)
            got = p99(f[idx], ref)
            print("# calibrate 2^%d: gpusim p99 %.2e; FMM3D eps %g: p99 %.2e" % (a.calibrate, want, e, got))
            if got <= want:
                chosen = e
                break
        if chosen is None:
            sys.stderr.write("fmm_anchor.py: no eps of the list reaches gpusim's p99\n")
            return 1
        print("%6s %12s %12s %10s %10s %8s" % ("log2N", "gpusim_s", "fmm3d_s", "gs_p99", "f3d_p99", "f3d/gs"))
        for log in (int(x) for x in a.logs.split(",")):
            b = plummer(1 << log, a.seed)
            idx = np.linspace(0, len(b) - 1, 1024).astype(int)
            ref = reference(b, idx)
            tg, acc = run_gpusim(a.bench, b, a.order, a.theta, a.repeats, tmp)
            tf, f = run_fmm3d(b, chosen, a.repeats)
            print("%6d %12.4f %12.4f %10.2e %10.2e %8.2f  (FMM3D eps %g; load %s)"
                  % (log, tg, tf, p99(acc[idx], ref), p99(f[idx], ref), tf / tg, chosen,
                     " ".join(open("/proc/loadavg").read().split()[:3])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
