#!/usr/bin/env python3
"""The fast multipole solver against the CPU tree: time per body against N (python3 + matplotlib,
headless; docs/performance.md, "Fast multipole method (CPU)").

  jobs/bench/fmm_plot.py bench-out/fmm-scaling.csv [--out docs/figures/fmm-scaling.png]
  jobs/bench/fmm_plot.py bench-out/fmm-cputime.txt [--out ...]

Reads gpusim's CSV (docs/results-schema.md) as jobs/bench/fmm_scaling.sh writes it: the job rows
(rank = -1) of phase=forces for solver=fmm and solver=tree, time_median_s over problem_size per
N, the span of the timed runs (time_min_s .. time_max_s) as error bars; or the table of
jobs/bench/fmm_cputime.sh (a .txt: one evaluation's CPU seconds on one thread, no error bars). Prints the table it draws
(N, microseconds per body, p99 error, each solver) and writes one PNG: time per body (log N axis),
the FMM's ratio to its smallest N's as a second panel with the 1.5x band of issue 41. Exit status:
0 written, 1 nothing to plot, 2 bad input or no matplotlib.
"""
import argparse
import csv
import sys


def params(s):
    return dict(kv.split("=", 1) for kv in (s or "").split(";") if "=" in kv)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", default="docs/figures/fmm-scaling.png")
    a = ap.parse_args()
    data = {}  # solver -> {n: (us/body, min, max, p99)}
    unit = "wall"
    try:
        for path in a.csv:
            if path.endswith(".txt"):
                unit = "cpu"
                for line in open(path):
                    w = line.split()
                    if len(w) == 4 and w[0].isdigit() and w[1] in ("fmm", "tree"):
                        us = float(w[3])
                        data.setdefault(w[1], {})[1 << int(w[0])] = (us, us, us, float("nan"))
                continue
            with open(path, newline="") as f:
                for r in csv.DictReader(f):
                    p = params(r.get("params"))
                    if r.get("rank") != "-1" or p.get("phase") != "forces" or p.get("solver") not in ("fmm", "tree"):
                        continue
                    n = int(r["problem_size"])
                    us = [float(r[k]) / n * 1e6 for k in ("time_median_s", "time_min_s", "time_max_s")]
                    data.setdefault(p["solver"], {})[n] = (us[0], us[1], us[2], float(p.get("p99_err", "nan")))
    except (OSError, KeyError, ValueError) as e:
        print("fmm_plot: error: %s" % e, file=sys.stderr)
        return 2
    if not data.get("fmm"):
        print("fmm_plot: nothing to plot (no solver=fmm forces rows)", file=sys.stderr)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")  # headless: no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        print("fmm_plot: error: matplotlib is missing (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
        return 2
    ns = sorted(set(data["fmm"]) | set(data.get("tree", {})))
    print("%10s %14s %10s %14s %10s %8s" % ("N", "fmm_us/body", "fmm_p99", "tree_us/body", "tree_p99", "tree/fmm"))
    for n in ns:
        f, t = data["fmm"].get(n), data.get("tree", {}).get(n)
        print("%10d %14s %10s %14s %10s %8s" % (n, "%.3f" % f[0] if f else "-", "%.2e" % f[3] if f and f[3] == f[3] else "-",
                                               "%.3f" % t[0] if t else "-", "%.2e" % t[3] if t and t[3] == t[3] else "-",
                                               "%.2f" % (t[0] / f[0]) if f and t else "-"))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for solver, colour, label in (("fmm", "tab:blue", "fmm (order 6, theta 0.7)"), ("tree", "tab:orange", "tree (theta 0.5)")):
        pts = sorted(data.get(solver, {}).items())
        if not pts:
            continue
        x = [n for n, _ in pts]
        y = [v[0] for _, v in pts]
        err = [[v[0] - v[1] for _, v in pts], [v[2] - v[0] for _, v in pts]]
        ax1.errorbar(x, y, yerr=err, marker="o", color=colour, label=label, capsize=3)
    ax1.set_xscale("log", base=2)
    ax1.set_yscale("log")
    ax1.set_xlabel("N (Plummer, eps 0.05, double)")
    ax1.set_ylabel("time per body, one evaluation (us)" if unit == "wall" else
                   "CPU time per body, one evaluation, 1 thread (us)")
    ax1.set_title("time per body: O(N) against O(N log N)")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend()
    pts = sorted(data["fmm"].items())
    base = pts[0][1][0]
    ax2.plot([n for n, _ in pts], [v[0] / base for _, v in pts], marker="o", color="tab:blue", label="fmm")
    tpts = sorted(data.get("tree", {}).items())
    if tpts:
        ax2.plot([n for n, _ in tpts], [v[0] / tpts[0][1][0] for _, v in tpts], marker="o", color="tab:orange",
                 label="tree")
    ax2.axhspan(1 / 1.5, 1.5, color="tab:blue", alpha=0.1, label="within 1.5x (issue 41)")
    ax2.set_xscale("log", base=2)
    ax2.set_xlabel("N")
    ax2.set_ylabel("time per body / at the smallest N")
    ax2.set_title("growth of the time per body")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print("fmm_plot: wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
