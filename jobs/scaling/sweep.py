#!/usr/bin/env python3
"""Strong- and weak-scaling sweeps of gpusim (python3, standard library only).

Runs gpusim on 1, 2, 4, ... ranks (one GPU each), several times per rank count, locally with
mpirun or inside a SLURM allocation with srun (or mpirun), and lets gpusim itself append the rows
to one CSV per sweep through its own --csv (the schema is gpusim's, docs/results-schema.md):

  OUT/<workload>-strong.csv   fixed total problem: reduce --total SIZE, nbody --n SIZE,
                              matmul --n SIZE (square)
  OUT/<workload>-weak.csv     fixed work per GPU:  reduce --n SIZE (elements per rank),
                              nbody --n SIZE*sqrt(P) (all-pairs work grows as n^2: n^2/P fixed),
                              matmul --n SIZE*cbrt(P) (the work grows as n^3: n^3/P fixed)
  OUT/logs/<workload>-<kind>-<P>gpu-r<k>.log   each run's output

The sweep kind is in the file name; the rows are gpusim's, untouched. Plot them with plot.py.

Examples:
  sweep.py --gpus 1,2,4,8 --repeats 3                        # reduce, both sweeps, mpirun
  sweep.py --workload nbody --kind strong --strong-size 2^20  # inside sbatch/salloc: srun
  sweep.py --backend cpu --gpus 1,2 --mpirun-args "--oversubscribe" -- --iters 2 --kernel omp
  sweep.py --workload nbody --strong-size 2^24 --weak-size 2^22 --nbody-weak linear -- --solver tree
                                                             # Barnes-Hut: O(N log N), bodies per GPU fixed

Everything after "--" goes to every gpusim run. Exit status: 0 every run succeeded, 1 a run
failed (the others still ran), 2 bad input, 77 the workload is not in this gpusim build.
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

DEFAULT_SIZES = {  # (strong: total, weak: per GPU)
    "reduce": ("2^30", "2^28"),
    "nbody": ("2^18", "2^16"),
    "matmul": ("16384", "8192"),
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


def main(argv):
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    else:
        extra = []
    argv = join_launcher_args(argv)
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Everything after -- is passed to every gpusim run.")
    ap.add_argument("--workload", choices=["reduce", "nbody", "matmul"], default="reduce")
    ap.add_argument("--kind", choices=["strong", "weak", "both"], default="both")
    ap.add_argument("--gpus", type=gpu_list,
                    help="GPU (rank) counts, e.g. 1,2,4,8 [1, 2, 4, ... up to SLURM_NTASKS in an "
                         "allocation, else 1,2]")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each configuration [3]")
    ap.add_argument("--strong-size", type=size_arg,
                    help="total problem of the strong sweep [reduce 2^30, nbody 2^18, matmul 16384]")
    ap.add_argument("--weak-size", type=size_arg,
                    help="problem per GPU of the weak sweep [reduce 2^28, nbody 2^16, matmul 8192 at one GPU]")
    ap.add_argument("--nbody-weak", choices=["sqrt", "linear"], default="sqrt",
                    help="nbody weak scaling: n = SIZE*sqrt(P) (all-pairs work per GPU fixed) or "
                         "n = SIZE*P (bodies per GPU fixed) [sqrt]")
    ap.add_argument("--out", help="output directory [results/scaling-<UTC time>]")
    ap.add_argument("--gpusim", default=os.environ.get("GPUSIM") or shutil.which("gpusim") or "./gpusim",
                    help="the gpusim binary [$GPUSIM, gpusim on PATH, ./gpusim]")
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
    try:
        ok = subprocess.run([a.gpusim, a.workload, "--help"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok:
        print("sweep: gpusim %s is not in this build (%s %s --help failed): skipping the %s sweep"
              % (a.workload, a.gpusim, a.workload, a.workload))
        return 77

    strong_size = a.strong_size or DEFAULT_SIZES[a.workload][0]
    weak_size = a.weak_size or DEFAULT_SIZES[a.workload][1]
    kinds = ["strong", "weak"] if a.kind == "both" else [a.kind]
    out = a.out or os.path.join("results", "scaling-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
    logs = os.path.join(out, "logs")
    if not a.dry_run:
        os.makedirs(logs, exist_ok=True)
    out_abs = os.path.abspath(out)

    def size_opts(kind, p):
        if a.workload == "reduce":
            return ["--total", strong_size] if kind == "strong" else ["--n", weak_size]
        if kind == "strong":
            return ["--n", strong_size]
        n1 = parse_size(weak_size)
        if a.workload == "matmul":
            return ["--n", str(int(round(n1 * p ** (1.0 / 3))))]
        n = n1 * p if a.nbody_weak == "linear" else int(round(n1 * math.sqrt(p)))
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
    runs = [(kind, r, p) for kind in kinds for r in range(1, a.repeats + 1) for p in gpus]
    print("# sweep: %s %s, GPUs %s, %d repeat(s), %s, out %s"
          % (a.workload, "+".join(kinds), ",".join(map(str, gpus)), a.repeats, launcher, out))
    failed = 0
    for i, (kind, r, p) in enumerate(runs, 1):
        csv_path = os.path.join(out_abs, "%s-%s.csv" % (a.workload, kind))
        cmd = (launch(p) + [a.gpusim, a.workload, "--backend", a.backend] + size_opts(kind, p)
               + ["--csv", csv_path] + extra)
        line = " ".join(shlex.quote(c) for c in cmd)
        if a.dry_run:
            print(line)
            continue
        log = os.path.join(logs, "%s-%s-%dgpu-r%d.log" % (a.workload, kind, p, r))
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
        print("[%d/%d] %s P=%d repeat %d: %s (%.1f s)" % (i, len(runs), kind, p, r, status,
                                                           time.time() - t0), flush=True)
    if not a.dry_run:
        print("# sweep: %d run(s), %d failed; CSV: %s" % (
            len(runs), failed, ", ".join(os.path.join(out, "%s-%s.csv" % (a.workload, k)) for k in kinds)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
