#!/usr/bin/env python3
"""Figures from gpusim result CSVs (python3 + matplotlib, headless).

  plot.py results/scaling-XXXX                 # every *.csv in the directory
  plot.py reduce-strong.csv reduce-weak.csv --out figs --kernel 7,onepass,cub

Reads gpusim's own CSV (docs/results-schema.md): the job rows (rank = -1), the median of the
repeats at each GPU count. The sweep kind comes from the file name (sweep.py writes
<sweep>-strong.csv and <sweep>-weak.csv) or from --kind. Writes PNGs:

  <name>.png for a strong CSV  speedup and parallel efficiency against GPUs, with the ideal lines;
                               speedup S(P) = P0 * T(P0) / T(P) over the smallest count P0 run
  <name>.png for a weak CSV    parallel efficiency T(P0) / T(P) against GPUs (ideal 1), and the time
  <sweep>-scaling.png          the workload's figure: both of the above, strong above weak, for the
                               CSVs of one sweep (reduce, nbody, nbody-tree, matmul: sweep.py's
                               names without -strong/-weak)
  <sweep>-scaling.txt          its caption: device, gpusim version and git revision, the medians
                               (also printed with --table) and the runs' commands, from the
                               <csv name>.commands files sweep.py writes beside its CSVs
  reduce-ladder.png            reduce only: GB/s per GPU of each kernel as bars, against the
                               theoretical peak (value / efficiency, where the backend has one) and
                               the measured device-copy ceiling (params copy_ceiling_GBps)

Times are time_median_s (the slowest rank's median); error bars span the repeats' min and max.
--kernel picks the kernels of the scaling figures; the ladder always shows every kernel, from
the runs on --ladder-gpus GPUs (1, else the fewest) at the largest problem size among them.
Runs on CPU-backend results as well (no theoretical peak there: the ladder shows the copy
ceiling only). Exit status: 0 figures written, 1 nothing to plot or a sweep's figure not drawn (--kernel
matched none of its kernels: said on stderr), 2 bad input or no matplotlib.
"""
import argparse
import csv
import glob
import os
import statistics
import sys

KERNEL_ORDER = ["1", "2", "3", "4", "5", "6", "7", "vec", "onepass", "cub", "omp"]


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def params(s):
    out = {}
    for kv in (s or "").split(";"):
        if "=" in kv:
            k, v = kv.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        have = set(reader.fieldnames or [])
        need = {"workload", "kernel", "rank", "ranks", "problem_size", "time_median_s", "value"}
        if not need <= have:
            raise ValueError("%s: not a gpusim results CSV (no %s)" % (path, ", ".join(sorted(need - have))))
        rows = list(reader)
    out = []
    for r in rows:
        if r.get("rank") != "-1":
            continue  # the job rows only; per-rank rows are for load-balance studies
        r["_ranks"] = int(r["ranks"])
        r["_t"] = fnum(r["time_median_s"])
        r["_tmin"] = fnum(r.get("time_min_s")) or r["_t"]
        r["_tmax"] = fnum(r.get("time_max_s")) or r["_t"]
        r["_value"] = fnum(r["value"])
        r["_eff"] = fnum(r.get("efficiency"))
        r["_p"] = params(r.get("params"))
        if r["_t"] is None or r["_t"] <= 0:
            continue
        out.append(r)
    return out


def series_label(r):
    p = r["_p"]
    label = r["kernel"] if r["kernel"] != "-" else r["workload"]
    if p.get("source") == "host":
        label += " [" + p.get("path", "host") + "]"
    if p.get("layout"):  # the tree: domains or replicated (--tree-layout), two designs to compare
        label += " (" + p["layout"] + ")"
    if p.get("phase"):  # nbody: a force evaluation, or a whole time step
        label += " [" + p["phase"] + "]"
    return label


def kernel_key(k):
    return (KERNEL_ORDER.index(k), "") if k in KERNEL_ORDER else (len(KERNEL_ORDER), k)


def group_series(rows, kernels):
    """{label: {P: [rows]}} for the job rows of the wanted kernels."""
    sizes = {r["problem_size"] for r in rows}
    out = {}
    for r in rows:
        if kernels and r["kernel"] not in kernels:
            continue
        label = series_label(r)
        out.setdefault(label, {}).setdefault(r["_ranks"], []).append(r)
    return out, sizes


def by_repeats(rs):
    """Median time of the repeats, and the fastest and slowest run."""
    return (statistics.median(r["_t"] for r in rs), min(r["_t"] for r in rs),
            max(r["_t"] for r in rs))


def styled(ax, gpus, ylabel, title):
    ax.set_xscale("log", base=2)
    ax.set_xticks(gpus)
    ax.set_xticklabels([str(g) for g in gpus])
    ax.set_xlabel("GPUs (MPI ranks)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)


def describe(rows):
    r = rows[0]
    return "%s, %s backend, %s" % (r["workload"], r["backend"], r.get("gpu_model") or "?")


def draw_scaling(axes, rows, kind, kernels):
    """Draw one sweep on two axes: strong (speedup, efficiency) or weak (efficiency, time).
    Returns a line on its problem sizes, or None where --kernel left nothing to draw."""
    series, sizes = group_series(rows, kernels)
    if not series:
        return None
    gpus = sorted({p for s in series.values() for p in s})
    ax1, ax2 = axes if kind == "strong" else axes[::-1]
    for label in sorted(series, key=lambda l: kernel_key(l.split(" ")[0])):
        pts = series[label]
        ps = sorted(pts)
        p0 = ps[0]
        t0 = by_repeats(pts[p0])[0]
        med, lo, hi = zip(*(by_repeats(pts[p]) for p in ps))
        if kind == "strong":
            s = [p0 * t0 / t for t in med]
            s_err = [[si - p0 * t0 / h for si, h in zip(s, hi)], [p0 * t0 / l - si for si, l in zip(s, lo)]]
            ax1.errorbar(ps, s, yerr=s_err, marker="o", capsize=3, label=label)
            ax2.plot(ps, [si / p for si, p in zip(s, ps)], marker="o", label=label)
        else:
            e = [t0 / t for t in med]
            ax2.errorbar(ps, e, yerr=[[ei - t0 / h for ei, h in zip(e, hi)], [t0 / l - ei for ei, l in zip(e, lo)]],
                         marker="o", capsize=3, label=label)
            ax1.errorbar(ps, [t * 1e3 for t in med],
                         yerr=[[(m - l) * 1e3 for m, l in zip(med, lo)], [(h - m) * 1e3 for m, h in zip(med, hi)]],
                         marker="o", capsize=3, label=label)
    if kind == "strong":
        from matplotlib.ticker import FuncFormatter, LogLocator
        ax1.plot(gpus, gpus, "k--", lw=1, label="ideal")
        ax1.set_yscale("log", base=2)
        styled(ax1, gpus, "speedup", "strong scaling: speedup")
        ax1.yaxis.set_major_locator(LogLocator(base=2))
        ax1.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
        ax2.axhline(1.0, color="k", ls="--", lw=1, label="ideal")
        styled(ax2, gpus, "parallel efficiency  S(P) / P", "strong scaling: parallel efficiency")
        size = "problem size %s in all" % ", ".join(sorted(sizes, key=int))
    else:
        ax2.axhline(1.0, color="k", ls="--", lw=1, label="ideal")
        styled(ax2, gpus, "parallel efficiency  T(P0) / T(P)", "weak scaling: parallel efficiency")
        styled(ax1, gpus, "time per run, median (ms)", "weak scaling: time")
        ax1.set_ylim(0, ax1.get_ylim()[1] * 1.08)
        by_p = sorted({(r["_ranks"], int(r["problem_size"])) for r in rows})
        size = "problem size in all: " + ", ".join("%d at P=%d" % (n, p) for p, n in by_p[:6]) + (
            " ..." if len(by_p) > 6 else "")
    ax2.set_ylim(bottom=0)
    top = ax2.get_ylim()[1]
    ax2.set_ylim(0, max(1.15, top))
    for ax in (ax1, ax2):
        ax.legend(fontsize=8)
    return size


def plot_scaling(plt, rows, kind, kernels, path):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    size = draw_scaling(axes, rows, kind, kernels)
    if size is None:
        plt.close(fig)
        return False
    fig.suptitle("gpusim %s scaling: %s\n%s; repeats: median, bars min-max" % (kind, describe(rows), size),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def plot_sweep(plt, name, by_kind, kernels, path):
    """One figure of a workload: a row of panels per sweep kind (strong, then weak)."""
    kinds = [k for k in ("strong", "weak") if k in by_kind]
    fig, axes = plt.subplots(len(kinds), 2, figsize=(11, 4.5 * len(kinds)), squeeze=False)
    lines = []
    for row, kind in zip(axes, kinds):
        size = draw_scaling(row, by_kind[kind], kind, kernels)
        if size is None:
            plt.close(fig)
            return False
        lines.append("%s: %s" % (kind, size))
    rows = [r for k in kinds for r in by_kind[k]]
    fig.suptitle("gpusim %s scaling (%s): %s\n%s\nrepeats: median, bars min-max; commands in %s"
                 % (name, " and ".join(kinds), describe(rows), "; ".join(lines),
                    os.path.splitext(os.path.basename(path))[0] + ".txt"), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def scaling_table(by_kind, kernels):
    """Lines of text: per kind and series, the median time, speedup or efficiency per GPU count."""
    out = []
    kinds = [k for k in ("strong", "weak") if k in by_kind]
    width = max([22] + [len(l) for k in kinds for l in group_series(by_kind[k], kernels)[0]])  # one column
    for kind in kinds:
        series, _ = group_series(by_kind[kind], kernels)
        for label in sorted(series, key=lambda l: kernel_key(l.split(" ")[0])):
            pts = series[label]
            ps = sorted(pts)
            t0 = by_repeats(pts[ps[0]])[0]
            cells = []
            for p in ps:
                t = by_repeats(pts[p])[0]
                if kind == "strong":
                    sp = ps[0] * t0 / t
                    cells.append("P=%d %.4g ms %.2fx (%.1f%%)" % (p, t * 1e3, sp, 100 * sp / p))
                else:
                    cells.append("P=%d %.4g ms (%.1f%%)" % (p, t * 1e3, 100 * t0 / t))
            out.append("%-6s %-*s %s" % (kind, width, label, "; ".join(cells)))
    return out


def write_sidecar(path, name, by_kind, files, kernels):
    """The figure's caption: device, build, problem sizes, the runs' commands, the medians."""
    rows = [r for k in by_kind.values() for r in k]
    text = ["gpusim %s scaling: %s" % (name, describe(rows)),
            "gpusim %s, git %s, %s" % (rows[0].get("gpusim_version") or "?", rows[0].get("git_revision") or "?",
                                      rows[0].get("mpi_library") or "?"),
            "devices: " + ", ".join(sorted({r.get("gpu_model") or "?" for r in rows})),
            "run ids: %s to %s" % (min(r["run_id"] for r in rows), max(r["run_id"] for r in rows)),
            "", "median per GPU count (strong: speedup and efficiency over the fewest GPUs; weak: efficiency):"]
    text += scaling_table(by_kind, kernels)
    text += ["", "commands (from the sweep's .commands files beside the CSVs):"]
    for f in files:
        cmds = os.path.splitext(f)[0] + ".commands"
        if os.path.isfile(cmds):
            with open(cmds) as c:
                text += list(dict.fromkeys(l.rstrip("\n") for l in c if l.strip()))
        else:
            text.append("(none for %s: it was not written by sweep.py)" % f)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(text) + "\n")
    os.replace(tmp, path)


def plot_ladder(plt, rows, gpus_wanted, path):
    rows = [r for r in rows if r["workload"] == "reduce" and r["_p"].get("source", "device") == "device"
            and r["metric"] == "bandwidth" and r["_value"] is not None and r["kernel"] != "-"]
    if not rows:
        return False
    counts = sorted({r["_ranks"] for r in rows})
    g = gpus_wanted if gpus_wanted in counts else counts[0]
    rows = [r for r in rows if r["_ranks"] == g]
    size = max({int(r["problem_size"]) for r in rows})
    rows = [r for r in rows if int(r["problem_size"]) == size]
    ks = sorted({r["kernel"] for r in rows}, key=kernel_key)
    per_gpu = {k: [r["_value"] / g for r in rows if r["kernel"] == k] for k in ks}
    med = [statistics.median(per_gpu[k]) for k in ks]
    peaks = [r["_value"] / r["_eff"] / g for r in rows if r["_eff"] and r["_eff"] > 0]
    peak = statistics.median(peaks) if peaks else None
    copies = [fnum(r["_p"].get("copy_ceiling_GBps")) for r in rows]
    copies = [c for c in copies if c]
    copy = statistics.median(copies) if copies else None

    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(ks) + 3), 4.5))
    x = list(range(len(ks)))
    bars = ax.bar(x, med, color="tab:blue", label="GB/s per GPU (median of %d+ runs)" % min(len(v) for v in per_gpu.values()))
    err_lo = [m - min(per_gpu[k]) for m, k in zip(med, ks)]
    err_hi = [max(per_gpu[k]) - m for m, k in zip(med, ks)]
    ax.errorbar(x, med, yerr=[err_lo, err_hi], fmt="none", ecolor="k", capsize=3)
    ref = peak or copy
    for b, m in zip(bars, med):
        if ref:
            ax.annotate("%.0f%%" % (100 * m / ref), (b.get_x() + b.get_width() / 2, m),
                        ha="center", va="bottom", fontsize=8, xytext=(0, 3), textcoords="offset points")
    if peak:
        ax.axhline(peak, color="tab:red", lw=1.5, label="theoretical peak %.0f GB/s" % peak)
    if copy:
        ax.axhline(copy, color="tab:green", ls="--", lw=1.5, label="device copy (measured) %.0f GB/s" % copy)
    ax.set_xticks(x)
    ax.set_xticklabels(ks)
    ax.set_xlabel("kernel")
    ax.set_ylabel("GB/s per GPU")
    ax.set_ylim(0, max(med + [peak or 0, copy or 0]) * 1.35)  # room for the legend
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("gpusim reduce ladder: %s\n%d GPU(s), %d elements in all; labels: %% of %s"
                 % (describe(rows), g, size, "peak" if peak else "copy"), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="gpusim CSV files, or directories of them")
    ap.add_argument("--out", help="directory for the PNGs [that of the first CSV]")
    ap.add_argument("--kind", choices=["auto", "strong", "weak", "none"], default="auto",
                    help="sweep kind of every input: auto takes it from the file name [auto]")
    ap.add_argument("--kernel", help="only these kernels in the scaling figures, e.g. 7,onepass,cub "
                                     "(the ladder always shows every kernel) [all]")
    ap.add_argument("--ladder-gpus", type=int, default=1,
                    help="GPU count whose runs make the ladder chart [1, else the smallest]")
    ap.add_argument("--table", action="store_true",
                    help="print each workload's medians (speedup, efficiency) after the file names")
    a = ap.parse_args(argv)

    files = []
    for i in a.inputs:
        if os.path.isdir(i):
            files += sorted(glob.glob(os.path.join(i, "*.csv")))
        elif os.path.isfile(i):
            files.append(i)
        else:
            print("plot: error: %s: no such file or directory" % i, file=sys.stderr)
            return 2
    if not files:
        print("plot: error: no CSV files in %s" % " ".join(a.inputs), file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")  # headless: no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot: error: matplotlib is missing (Debian: apt-get install python3-matplotlib; "
              "else pip install matplotlib)", file=sys.stderr)
        return 2
    out = a.out or os.path.dirname(os.path.abspath(files[0]))
    os.makedirs(out, exist_ok=True)
    kernels = set(a.kernel.split(",")) if a.kernel else None

    written, all_rows, skipped, sweeps = [], [], [], {}
    for f in files:
        try:
            rows = read_rows(f)
        except (ValueError, KeyError, OSError) as e:
            print("plot: error: %s" % e, file=sys.stderr)
            return 2
        all_rows += rows
        base = os.path.splitext(os.path.basename(f))[0]
        kind = a.kind
        if kind == "auto":
            kind = "strong" if "strong" in base else "weak" if "weak" in base else "none"
        if kind == "none" or not rows:
            continue
        for wl in sorted({r["workload"] for r in rows}):
            wrows = [r for r in rows if r["workload"] == wl]
            name = base if base.startswith(wl) else "%s-%s" % (wl, base)
            png = os.path.join(out, name + ".png")
            if plot_scaling(plt, wrows, kind, kernels, png):
                written.append(png)
            else:  # only --kernel can leave a sweep's job rows with nothing to draw
                skipped.append("plot: %s not drawn: %s has no job rows of kernel(s) %s (it has: %s)" % (
                    png, f, a.kernel, ",".join(sorted({r["kernel"] for r in wrows}, key=kernel_key))))
                continue
            # the workload's figure: its strong and weak sweeps, found by name (reduce-strong.csv
            # and reduce-weak.csv, nbody-tree-strong.csv and nbody-tree-weak.csv, ...)
            sweep = name.replace("-" + kind, "", 1)
            g = sweeps.setdefault(sweep, ({}, []))
            g[0].setdefault(kind, []).extend(wrows)
            g[1].append(f)
    tables = []
    for sweep, (by_kind, sfiles) in sorted(sweeps.items()):
        png = os.path.join(out, sweep + "-scaling.png")
        if plot_sweep(plt, sweep, by_kind, kernels, png):
            write_sidecar(os.path.join(out, sweep + "-scaling.txt"), sweep, by_kind, sfiles, kernels)
            written += [png, os.path.join(out, sweep + "-scaling.txt")]
            tables += ["", "%s: %s" % (sweep, describe([r for k in by_kind.values() for r in k]))]
            tables += scaling_table(by_kind, kernels)
    png = os.path.join(out, "reduce-ladder.png")
    if plot_ladder(plt, all_rows, a.ladder_gpus, png):
        written.append(png)
    for w in written:
        print(w)
    if a.table:
        print("\n".join(tables[1:]))
    for s in skipped:
        print(s, file=sys.stderr)
    if skipped:  # a figure the sweep's CSV was given for is missing: not a success
        return 1
    if not written:
        print("plot: nothing to plot in %s (no job rows of a strong or weak sweep%s, no reduce rows)"
              % (" ".join(files), " for kernels " + a.kernel if kernels else ""), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
