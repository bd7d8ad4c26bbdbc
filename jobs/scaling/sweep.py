#!/usr/bin/env python3
"""Strong- and weak-scaling sweeps of gpusim (python3, standard library only).

Runs gpusim on 1, 2, 4, ... ranks (one GPU each), several times per rank count, locally with
mpirun or inside a SLURM allocation with srun (or mpirun), and lets gpusim itself append the rows
to one CSV per sweep through its own --csv (the schema is gpusim's, docs/results-schema.md).
Four sweeps, one per workload and solver (--workload; "all" runs the four in this order), each
named in its files:

  sweep (--workload)  files          strong: total problem  weak: problem per GPU (P GPUs)
  reduce              reduce-*       --total 2^30           --n 2^28 elements per rank
  nbody (direct sum)  nbody-*        --n 2^20               --n 2^18*sqrt(P): n^2/P fixed
  tree (Barnes-Hut)   nbody-tree-*   --n 2^24               --n 2^24*P: bodies per GPU fixed
  matmul (SUMMA)      matmul-*       --n 16384 (square)     --n 16384*cbrt(P): n^3/P fixed

  OUT/<sweep>-strong.csv, OUT/<sweep>-weak.csv          gpusim's rows, untouched
  OUT/<sweep>-strong.commands, OUT/<sweep>-weak.commands each run's command line, appended
  OUT/logs/<sweep>-<kind>-<P>gpu-r<k>.log                each run's output

matmul's weak N is rounded to a multiple of 128 when SIZE is one (whole 128-wide tiles on one
GPU; the work per GPU then stays within 3*64/N of SIZE^3: 0.9% at 16384 on 2 GPUs), else to the
nearest whole number. The tree's weak sweep keeps bodies per GPU fixed: its work, N log N, grows
by log(N P) / log(N) per GPU (4% at 2^24 on 2 GPUs), which the efficiency includes.
--workload nbody with --solver tree among the run options is the tree sweep.

The runs' own options: --args SWEEP=OPTIONS for that sweep, else everything after "--" (every
sweep), else the sweep's defaults (DEFAULT_ARGS below: short runs; with --backend cuda also the
kernels the figures show). gpusim refuses an option given twice, so these replace, not add.

Examples:
  sweep.py --gpus 1,2,4,8 --repeats 3                        # reduce, both sweeps, mpirun
  sweep.py --workload all --backend cuda --gpus 1,2,4        # every workload and solver
  sweep.py --workload nbody --kind strong --strong-size 2^20  # inside sbatch/salloc: srun
  sweep.py --backend cpu --gpus 1,2 --mpirun-args "--oversubscribe" -- --iters 2 --kernel omp
  sweep.py --workload tree --strong-size 2^24 --weak-size 2^22 -- --eps 0.05 --steps 3
                                                             # Barnes-Hut: O(N log N), bodies per GPU fixed

--sizes SWEEP=STRONG,WEAK sets both sizes of one sweep where several run (--strong-size and
--weak-size are for one sweep alone).

Exit status: 0 every run succeeded, 1 a run failed (the others still ran), 2 bad input, 77 no
workload asked for is in this gpusim build (with several, one missing is skipped with a message).
"""
import argparse
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

# The installed command (gpusim-scaling, made from this file by make) has the installed gpusim
# here, the one it runs unless --gpusim or $GPUSIM names another; None in the source tree.
INSTALLED_GPUSIM = None
SWEEPS = ["reduce", "nbody", "tree", "matmul"]  # the order of --workload all
SUBCOMMAND = {"reduce": "reduce", "nbody": "nbody", "tree": "nbody", "matmul": "matmul"}
FILE_NAME = {"reduce": "reduce", "nbody": "nbody", "tree": "nbody-tree", "matmul": "matmul"}
DEFAULT_SIZES = {  # (strong: total, weak: per GPU), what one GPU of 80 GB runs in seconds
    "reduce": ("2^30", "2^28"),
    "nbody": ("2^20", "2^18"),
    "tree": ("2^24", "2^24"),
    "matmul": ("16384", "16384"),
}
NBODY_WEAK = {"nbody": "sqrt", "tree": "linear"}
# (any backend, --backend cuda only): few steps and timed runs, so that a sweep of every workload
# on 1, 2 and 4 GPUs takes minutes; on the GPU, the kernels of the figures in docs/performance.md.
DEFAULT_ARGS = {
    "reduce": ("--iters 20", "--kernel 7,onepass,cub"),
    "nbody": ("--steps 3 --iters 1", "--kernel jsplit"),
    "tree": ("--eps 0.05 --steps 3 --iters 1", ""),
    "matmul": ("--iters 3 --warmup 1", "--kernel simt,cublas"),
}


def parse_size(text):
    """A problem size as gpusim writes it: 1000, 1e6, 2^28, 256M (K/M/G are powers of 2^10)."""
    t = text.strip()
    m = re.fullmatch(r"(\d+)\^(\d+)", t)
    if m:
        return int(m.group(1)) ** int(m.group(2))
    m = re.fullmatch(r"(\d+)([KMG])", t, re.IGNORECASE)
    if m:
        return int(m.group(1)) << {"K": 10, "M": 20, "G": 30}[m.group(2).upper()]
    try:
        v = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError("not a size: %r (want 1000, 1e6, 2^28 or 256M)" % text)
    if v < 1 or v != int(v):
        raise argparse.ArgumentTypeError("not a positive whole size: %r" % text)
    return int(v)


def size_arg(text):
    parse_size(text)  # validate, keep gpusim's own spelling
    return text


def gpu_list(text):
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("not a list of GPU counts: %r" % text)
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError("GPU counts must be >= 1: %r" % text)
    return sorted(set(out))


def slurm_tasks_per_node():
    """The first count in SLURM_NTASKS_PER_NODE / SLURM_TASKS_PER_NODE ("4", "4(x2)", "4,2")."""
    for var in ("SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"):
        m = re.match(r"\d+", os.environ.get(var, ""))
        if m:
            return int(m.group(0))
    return 0


def default_gpus(total):
    out, p = [], 1
    while p < total:
        out.append(p)
        p *= 2
    out.append(total)
    return out


def join_launcher_args(argv):
    """--srun-args/--mpirun-args VALUE as --srun-args=VALUE: argparse would take a VALUE that
    starts with "--" (--oversubscribe, --gpus-per-task=1) for an option of its own."""
    out = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--srun-args", "--mpirun-args") and i + 1 < len(argv):
            out.append(argv[i] + "=" + argv[i + 1])
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def has_tree(opts):
    """--solver tree (or --solver=tree) among gpusim options."""
    return any(o == "--solver=tree" or (o == "--solver" and n == "tree") for o, n in zip(opts, opts[1:] + [""]))


def sweep_args(text):
    """--args SWEEP=OPTIONS"""
    name, sep, opts = text.partition("=")
    if not sep or name not in SWEEPS:
        raise argparse.ArgumentTypeError("want SWEEP=OPTIONS with SWEEP one of %s: %r" % (", ".join(SWEEPS), text))
    return name, opts


def sweep_sizes(text):
    """--sizes SWEEP=STRONG,WEAK"""
    name, sep, sizes = text.partition("=")
    parts = sizes.split(",")
    if not sep or name not in SWEEPS or len(parts) != 2:
        raise argparse.ArgumentTypeError("want SWEEP=STRONG,WEAK with SWEEP one of %s: %r" % (", ".join(SWEEPS), text))
    return name, tuple(size_arg(x) for x in parts)


def matmul_weak_n(n1, p):
    """N = n1 cbrt(P), to a multiple of 128 where n1 is one (whole tiles), else to a whole number."""
    n = n1 * p ** (1.0 / 3)
    if n1 % 128 == 0:
        return int(round(n / 128)) * 128
    return int(round(n))


def parse_args(argv):
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    else:
        extra = None
    argv = join_launcher_args(argv)
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Everything after -- is passed to every gpusim run (see --args).")
    ap.add_argument("--workload", default="reduce",
                    help="sweeps to run: reduce, nbody (the direct sum), tree (nbody --solver tree), "
                         "matmul, a comma list of these, or all [reduce]")
    ap.add_argument("--kind", choices=["strong", "weak", "both"], default="both")
    ap.add_argument("--gpus", type=gpu_list,
                    help="GPU (rank) counts, e.g. 1,2,4,8 [1, 2, 4, ... up to SLURM_NTASKS in an "
                         "allocation, else 1,2]")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each configuration [3]")
    ap.add_argument("--strong-size", type=size_arg,
                    help="total problem of the strong sweep, one sweep only [reduce 2^30, nbody 2^20, "
                         "tree 2^24, matmul 16384]")
    ap.add_argument("--weak-size", type=size_arg,
                    help="problem per GPU of the weak sweep, one sweep only [reduce 2^28, nbody 2^18, "
                         "tree 2^24, matmul 16384, at one GPU]")
    ap.add_argument("--sizes", type=sweep_sizes, action="append", default=[], metavar="SWEEP=STRONG,WEAK",
                    help="both sizes of one sweep, e.g. tree=2^22,2^20, for runs of several "
                         "sweeps; may be repeated")
    ap.add_argument("--nbody-weak", choices=["sqrt", "linear"],
                    help="nbody weak scaling: n = SIZE*sqrt(P) (all-pairs work per GPU fixed) or "
                         "n = SIZE*P (bodies per GPU fixed) [sqrt for nbody, linear for tree]")
    ap.add_argument("--args", type=sweep_args, action="append", default=[], metavar="SWEEP=OPTIONS",
                    help='the gpusim options of one sweep\'s runs, instead of those after -- or the '
                         'defaults, e.g. --args "matmul=--kernel simt --iters 5"; may be repeated')
    ap.add_argument("--out", help="output directory [results/scaling-<UTC time>]")
    ap.add_argument("--gpusim", default=os.environ.get("GPUSIM") or INSTALLED_GPUSIM or shutil.which("gpusim")
                    or "./gpusim",
                    help="the gpusim binary [$GPUSIM, %s]" % (INSTALLED_GPUSIM or "gpusim on PATH, ./gpusim"))
    ap.add_argument("--backend", default=os.environ.get("GPUSIM_BACKEND", "auto"),
                    choices=["auto", "cuda", "cpu"], help="[$GPUSIM_BACKEND or auto]")
    ap.add_argument("--launcher", choices=["auto", "srun", "mpirun"], default="auto",
                    help="auto: srun inside a SLURM allocation, else mpirun [auto]")
    ap.add_argument("--mpirun", default=os.environ.get("MPIEXEC") or "mpirun",
                    help="the mpirun/mpiexec to use [$MPIEXEC or mpirun]")
    ap.add_argument("--mpirun-args", default="",
                    help='more mpirun options, e.g. "--oversubscribe --bind-to none"')
    ap.add_argument("--srun-mpi", default="pmix", help="srun's --mpi plugin [pmix]")
    ap.add_argument("--srun-args", default="", help='more srun options, e.g. "--gpus-per-task=1"')
    ap.add_argument("--gpus-per-node", type=int, default=0,
                    help="ranks per node, to spread a run over nodes [SLURM_NTASKS_PER_NODE]")
    ap.add_argument("--timeout", type=float, default=0, help="seconds per run, 0 for none [0]")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    a = ap.parse_args(argv)
    if a.repeats < 1:
        ap.error("--repeats must be >= 1")
    names = SWEEPS if a.workload == "all" else [w.strip() for w in a.workload.split(",") if w.strip()]
    bad = [w for w in names if w not in SWEEPS]
    if bad or not names:
        ap.error("--workload %s: want reduce, nbody, tree, matmul, a comma list of them, or all" % a.workload)
    # nbody with --solver tree in its options is the tree sweep (its files are the tree's)
    args = dict(a.args)
    if "nbody" in names and has_tree(shlex.split(args["nbody"]) if "nbody" in args else extra or []):
        names = ["tree" if w == "nbody" else w for w in names]
        if "nbody" in args:
            args["tree"] = args.pop("nbody")
    names = list(dict.fromkeys(names))
    if len(names) > 1 and (a.strong_size or a.weak_size):
        ap.error("--strong-size and --weak-size need a single sweep (--workload %s has %d)" % (a.workload, len(names)))
    given = dict(a.sizes)
    if "nbody" in given and "tree" in names and "nbody" not in names:
        given["tree"] = given.pop("nbody")  # nbody with --solver tree: the tree sweep
    a.names, a.extra, a.sweep_opts, a.sizes = names, extra, args, dict(DEFAULT_SIZES, **given)
    return a


def run_options(a, name):
    """The gpusim options of one sweep's runs: --args, else those after --, else the defaults."""
    if name in a.sweep_opts:
        opts = shlex.split(a.sweep_opts[name])
    elif a.extra:
        opts = list(a.extra)
    else:
        common, gpu = DEFAULT_ARGS[name]
        opts = shlex.split(common) + (shlex.split(gpu) if a.backend == "cuda" else [])
    if name == "tree" and not has_tree(opts):
        opts = ["--solver", "tree"] + opts
    return opts


def main(argv):
    a = parse_args(argv)
    in_slurm = bool(os.environ.get("SLURM_JOB_ID"))
    launcher = a.launcher
    if launcher == "auto":
        launcher = "srun" if in_slurm and shutil.which("srun") else "mpirun"
    per_node = a.gpus_per_node or (slurm_tasks_per_node() if in_slurm else 0)
    alloc = int(os.environ.get("SLURM_NTASKS", "0") or 0) if in_slurm else 0
    gpus = a.gpus or (default_gpus(alloc) if alloc else [1, 2])
    if alloc and max(gpus) > alloc:
        print("sweep: error: --gpus asks for %d ranks, the allocation has %d tasks"
              % (max(gpus), alloc), file=sys.stderr)
        return 2

    if not (os.path.isfile(a.gpusim) and os.access(a.gpusim, os.X_OK)):
        print("sweep: error: --gpusim %s is not an executable gpusim" % a.gpusim, file=sys.stderr)
        return 2
    names = []
    for name in a.names:
        sub = SUBCOMMAND[name]
        try:
            ok = subprocess.run([a.gpusim, sub, "--help"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, timeout=60).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if ok:
            names.append(name)
        else:
            print("sweep: gpusim %s is not in this build (%s %s --help failed): skipping the %s sweep"
                  % (sub, a.gpusim, sub, name))
    if not names:
        return 77

    kinds = ["strong", "weak"] if a.kind == "both" else [a.kind]
    out = a.out or os.path.join("results", "scaling-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
    logs = os.path.join(out, "logs")
    if not a.dry_run:
        os.makedirs(logs, exist_ok=True)
    out_abs = os.path.abspath(out)

    def size_opts(name, kind, p):
        strong_size = a.strong_size or a.sizes[name][0]
        weak_size = a.weak_size or a.sizes[name][1]
        if name == "reduce":
            return ["--total", strong_size] if kind == "strong" else ["--n", weak_size]
        if kind == "strong":
            return ["--n", strong_size]
        n1 = parse_size(weak_size)
        if name == "matmul":
            return ["--n", str(matmul_weak_n(n1, p))]
        rule = a.nbody_weak or NBODY_WEAK[name]
        n = n1 * p if rule == "linear" else int(round(n1 * math.sqrt(p)))
        return ["--n", str(n)]

    def launch(p):
        if launcher == "srun":
            cmd = ["srun", "--mpi=" + a.srun_mpi, "-n", str(p)]
            if per_node:
                cmd += ["-N", str((p + per_node - 1) // per_node)]
            if os.environ.get("SLURM_CPUS_PER_TASK"):
                cmd += ["--cpus-per-task=" + os.environ["SLURM_CPUS_PER_TASK"]]
            return cmd + shlex.split(a.srun_args)
        return [a.mpirun, "-np", str(p)] + shlex.split(a.mpirun_args)

    # Repeats outermost and rank counts inside, so that slow drifts of the machine spread over
    # every rank count instead of landing on one.
    runs = [(name, kind, r, p) for name in names for kind in kinds
            for r in range(1, a.repeats + 1) for p in gpus]
    print("# sweep: %s %s, GPUs %s, %d repeat(s), %s, out %s"
          % (",".join(names), "+".join(kinds), ",".join(map(str, gpus)), a.repeats, launcher, out))
    failed = 0
    for i, (name, kind, r, p) in enumerate(runs, 1):
        base = "%s-%s" % (FILE_NAME[name], kind)
        csv_path = os.path.join(out_abs, base + ".csv")
        cmd = (launch(p) + [a.gpusim, SUBCOMMAND[name], "--backend", a.backend] + size_opts(name, kind, p)
               + ["--csv", csv_path] + run_options(a, name))
        line = " ".join(shlex.quote(c) for c in cmd)
        if a.dry_run:
            print(line)
            continue
        with open(os.path.join(out_abs, base + ".commands"), "a") as f:
            f.write(line + "\n")  # plot.py puts these beside the figure
        log = os.path.join(logs, "%s-%dgpu-r%d.log" % (base, p, r))
        t0 = time.time()
        with open(log, "w") as f:
            f.write("# " + line + "\n")
            f.flush()
            try:
                rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                    timeout=a.timeout or None).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            except OSError as e:
                rc = "cannot start: %s" % e
        status = "ok" if rc == 0 else "FAILED (%s), see %s" % (rc, log)
        failed += rc != 0
        print("[%d/%d] %s %s P=%d repeat %d: %s (%.1f s)" % (i, len(runs), name, kind, p, r, status,
                                                              time.time() - t0), flush=True)
    if not a.dry_run:
        print("# sweep: %d run(s), %d failed; CSV: %s" % (
            len(runs), failed, ", ".join(os.path.join(out, "%s-%s.csv" % (FILE_NAME[n], k))
                                         for n in names for k in kinds)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
