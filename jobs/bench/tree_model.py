#!/usr/bin/env python3
"""Step-time model of the domain-decomposed Barnes-Hut tree (--tree-layout domains) on 4-GPU nodes
with one 25 GB/s InfiniBand port per GPU, for docs/tree.md ("Step-time model") and
docs/performance.md. It prints the tables there; every input is a named constant below, with where
it comes from.

Calibrated on the CUDA domains layout's own runs (H200, 2026-11-28, docs/performance.md: one GPU,
two GPUs strong and weak, and NCCL kept to its network transport as a stand-in for a network): the
walk, build and domain-update rates, the LET's bytes and the rate the device builds them at. The LET
volume for more than 2 ranks scales the CPU backend's measured law (docs/tree.md) by the GPU's
wire format's ratio to it at 2 ranks. Network and latency beyond one host are stated assumptions.
With --measured it prints the measured points beside the model's prediction of each.

  python3 jobs/bench/tree_model.py [--alpha-us 3] [--mig 0.01] [--let-law max|fit|2/3] [--ib-gbs 25]
                                   [--nodes-of 4] [--measured]
"""
import argparse
import math

# --- compute: one H200, float, theta 0.5, plummer, 2^24 bodies, the CUDA domains layout ----------
N1 = 2 ** 24
WALK1_S = 121.0e-3        # walk of 2^24 bodies (120.6-121.3 ms in 4 runs)
BUILD1_S = 4.8e-3         # the cells' subtrees and their records (4.7-4.9 ms)
DOMAIN1_S = 7.6e-3        # domain update at one rank: box, keys and sort, cell rounds, cut (7.64, 7.67 ms)
STEP1_S = 134.0e-3        # a step, 134.0-134.5 ms (the replicated layout: 135.2)
REST_S = 0.3e-3           # kicks, drift, host: the rest of a step (0.3 ms at 2 GPUs, ~0.1 at one)
REST_FIXED_S = REST_S     # all of it fixed (launches, host)
INTER1 = 2229             # interactions per body at 2^24 (the replicated layout's count; the same tree rules)
INTER_PER_DOUBLING = 47   # +47 per doubling of N (2041 at 2^20: docs/distributed-tree-design.md 5.1)
RATE = N1 * INTER1 / WALK1_S          # walk rate, interactions/s
# domain update of a rank of several: its sort, the cell rounds' allreduces, the migration (pack,
# exchange, unpack, a second sort). Measured 17.4 ms at n = 2^23 (2 GPUs) and 30.4 ms at n = 2^24
# (2 GPUs, weak) with the cut's Hilbert indices made every step (4.7 ms at 14k cells, measured at one
# rank as the difference of two builds; about 9.5 at 28k cells): without them 12.7 and 20.9 ms,
# 1.51 and 1.24 ns a body.
DOMAIN_S_PER_BODY = 1.4e-9
PERMUTE_S_PER_BODY = DOMAIN1_S / N1   # one rank's domain update, per body (no migration)

# --- LET, measured on the CPU backend (docs/tree.md, "The LET's volume, measured"): bytes received
# per rank in one step, compact wire format, float, theta 0.5, plummer, --tree-cell default (4096),
# count-balanced cut (the first evaluation). P -> [(n per rank, mean over ranks, busiest rank)].
LET = {
    2: [(2 ** 13, 134260, 138939), (2 ** 14, 260087, 266906), (2 ** 15, 449627, 449834), (2 ** 16, 787663, 797137),
        (2 ** 17, 1250365, 1291049)],
    4: [(2 ** 13, 305286, 357056), (2 ** 14, 549862, 693038), (2 ** 15, 847517, 1073084), (2 ** 16, 1453484, 1844176),
        (2 ** 17, 2266427, 2620702)],
    8: [(2 ** 13, 499074, 609823), (2 ** 14, 763044, 979161), (2 ** 15, 1238986, 1578118), (2 ** 16, 1837159, 2067164),
        (2 ** 17, 2897909, 3590138)],
}
LET_P_GROWTH = 1.2        # P >= 16: c(8) x 1.2 (the design's LET model, 2.01 -> 2.37 MB from P = 8 to 64)
# The GPU's LET, measured (busiest rank, one step, 2 ranks, default --tree-cell): 25.07 MB at n = 2^23
# and 36.28 MB at n = 2^24. Its wire format sends a 64-byte record for every entry; the law for more
# ranks is the CPU's times the ratio of the two at 2 ranks (the 2/3 laws).
LET_GPU_2 = [(2 ** 23, 25.07e6), (2 ** 24, 36.28e6)]

# --- the cell table: C = max(4096, N / 16384) bodies a cell at most, about CELLS_PER_C N / C cells
CELLS_PER_C = 6.0         # measured: 35..1036 cells for N = 2^14..2^20 at C = 4096 (4.0-8.8 N / C,
                          # falling with N: 6 is high for the table, low for the cut's granularity)
CELL_RECORD_B = 208       # struct gs_dtree_cell: the node record (184 B), amin, key, level, owner
CELL_ROUNDS_EXTRA = 3     # counting rounds: levels down to the cells, log8(N / C) + this

# --- network and latency (assumptions) ----------------------------------------------------------
BW_IB = 25e9              # one InfiniBand NDR200 port per GPU, bytes/s each way
BW_NVLINK = 100e9         # GPU to GPU inside a node (conservative for H100 NVLink)
GPUS_PER_NODE = 4
PEER_US = 0.3             # per peer and MPI_Alltoallv: posting a (mostly empty) send and receive
LET_BUILD_BW = 10e9       # bytes of LET a GPU extracts per second: 2.8 ms for 25 MB, 3.8 ms for 36 MB over
                          # NVLink (about 0.3 ms of it the transfer)
BW_STANDIN = 2.07e9       # NCCL kept to its network transport: 14.7 ms for 25.2 MB, 2.5 of it the build
F_IMB = 1.002             # slowest walk / mean walk on 2 GPUs, measured 1.001-1.002 (cut by measured
                          # work), plus the cut's granularity: 0.5 / (cells per rank)
MIG_BYTES = 64            # a migrating body: pos, vel, acc (16 B each in float), id, work
MIG_ALLTOALLV = 5         # one MPI_Alltoallv per migrated array


def fit(points):
    """Least squares of log bytes on log n: (c, a) with bytes = c n^a."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(b) for _, b in points]
    k = len(xs)
    sx, sy = sum(xs), sum(ys)
    a = (k * sum(x * y for x, y in zip(xs, ys)) - sx * sy) / (k * sum(x * x for x in xs) - sx * sx)
    return math.exp((sy - a * sx) / k), a


def fit23(points):
    """The surface law with its exponent fixed at 2/3: c with bytes = c n^(2/3)."""
    return math.exp(sum(math.log(b) - 2 / 3 * math.log(n) for n, b in points) / len(points))


def let_law(law):
    """P -> [((c, a) busiest, (c, a) mean)] for the law(s) asked: bytes received = c n^a, the CPU's
    measured laws scaled to the GPU's wire format by its measured bytes at 2 ranks (2/3 laws)."""
    out = {}
    gpu = fit23(LET_GPU_2) / fit23([(n, mx) for n, _, mx in LET[2]])
    for P, rows in LET.items():
        busiest = [(n, mx * gpu) for n, _, mx in rows]
        mean = [(n, me * gpu) for n, me, _ in rows]
        if P == 2:  # measured on the GPU itself (two ranks: the busiest is the mean)
            busiest = mean = LET_GPU_2
        free = (fit(busiest), fit(mean))
        surface = ((fit23(busiest), 2 / 3), (fit23(mean), 2 / 3))
        out[P] = [free] if law == "fit" else [surface] if law == "2/3" else [free, surface]
    return out


def let_bytes(laws, n, P, which=0):
    """The busiest (which 0) or mean (1) rank's LET bytes: the larger of the laws asked."""
    if P == 1:
        return 0.0
    grow = 1.0 if P in laws else LET_P_GROWTH
    return grow * max(c * n ** a for c, a in (law[which] for law in laws[min(P, 8)]))


def lg(P):
    return math.ceil(math.log2(P)) if P > 1 else 0


def step(n, P, laws, alpha, mig):
    """Per-step times (seconds) of the slowest rank for n bodies per GPU on P GPUs."""
    N = n * P
    inter = INTER1 + INTER_PER_DOUBLING * math.log2(N / N1)
    C = max(4096, N / 16384)
    cells = CELLS_PER_C * N / C
    imb = F_IMB + 0.5 * P / cells if P > 1 else 1.0
    t = {"walk": imb * n * inter / RATE, "build": BUILD1_S * n / N1,
         "rest": REST_FIXED_S + (REST_S - REST_FIXED_S) * n / N1}
    if P == 1:
        t.update(domain=PERMUTE_S_PER_BODY * n, table=0, let=0, latency=0)
        return t, inter, 0.0, 0.0
    bw = BW_NVLINK if P <= GPUS_PER_NODE else BW_IB
    rounds = math.ceil(math.log(max(N / C, 8), 8)) + CELL_ROUNDS_EXTRA
    # latency: allreduces (cube, counting rounds, work, the walk's counters) 2 lg P alpha each,
    # all-to-alls of counts (migration, LET) lg P alpha each (Bruck), allgatherv lg P alpha,
    # alltoallv (migration arrays, LET) alpha + (P - 1) peers each
    n_allreduce = 1 + rounds + 1 + 1
    lat = n_allreduce * 2 * lg(P) * alpha + 2 * lg(P) * alpha + lg(P) * alpha
    lat += (MIG_ALLTOALLV + 1) * (alpha + (P - 1) * PEER_US * 1e-6)
    t["latency"] = lat
    moved = mig * n * MIG_BYTES
    t["domain"] = DOMAIN_S_PER_BODY * n + moved / bw + (rounds + 1) * 2 * 8 * cells / bw
    table_b = cells * CELL_RECORD_B * (P - 1) / P
    t["table"] = table_b / bw
    lb = let_bytes(laws, n, P)
    t["let"] = lb / LET_BUILD_BW + lb / bw
    return t, inter, lb, table_b


def total(t):
    return sum(t.values())


def weak(laws, alpha, mig):
    n = N1
    t1, i1, _, _ = step(n, 1, laws, alpha, mig)
    rate1 = n * i1 / total(t1)
    print("Weak scaling, 2^24 bodies per GPU (N = 2^24 P); ms per step of the slowest rank")
    print("| GPUs | N | walk | build + domain | table MB / ms | LET MB / ms | latency | step | interactions/s per GPU | efficiency |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for P in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384):
        t, inter, lb, tb = step(n, P, laws, alpha, mig)
        s = total(t)
        r = n * inter / s
        print(f"| {P} | 2^{int(math.log2(n * P))} | {t['walk'] * 1e3:.1f} | {(t['build'] + t['domain']) * 1e3:.1f} | "
              f"{tb / 1e6:.1f} / {t['table'] * 1e3:.2f} | {lb / 1e6:.1f} / {t['let'] * 1e3:.2f} | "
              f"{t['latency'] * 1e3:.2f} | {s * 1e3:.1f} | {r:.3g} | {r / rate1:.3f} |")


def strong(laws, alpha, mig, N):
    t1, _, _, _ = step(N, 1, laws, alpha, mig)
    s1 = total(t1)
    print(f"\nStrong scaling, N = 2^{int(math.log2(N))}; ms per step")
    print("| GPUs | n per GPU | walk | LET MB / ms | build + table + domain | latency | rest | step | speedup | efficiency |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    P = 1
    while P <= 1024:
        n = N / P
        t, _, lb, _ = step(n, P, laws, alpha, mig)
        s = total(t)
        print(f"| {P} | 2^{math.log2(n):.0f} | {t['walk'] * 1e3:.2f} | {lb / 1e6:.2f} / {t['let'] * 1e3:.2f} | "
              f"{(t['table'] + t['domain'] + t['build']) * 1e3:.2f} | {t['latency'] * 1e3:.2f} | {t['rest'] * 1e3:.2f} | "
              f"{s * 1e3:.2f} | "
              f"{s1 / s:.1f} | {s1 / s / P:.2f} |")
        P *= 2


# The measured steps (ms, slowest rank's median; docs/performance.md, 2026-11-28), each with the
# model's configuration: (what, n per GPU, GPUs, GB/s between them, measured ms, the domain update
# measured, ms, where it still made the cut's Hilbert indices every step: the model has it without).
MEASURED = [
    ("1 GPU, 2^24", 2 ** 24, 1, BW_NVLINK, 134.0, 7.6),
    ("2 GPUs, strong, 2^24", 2 ** 23, 2, BW_NVLINK, 83.08, 17.43),
    ("2 GPUs, weak, 2^25", 2 ** 24, 2, BW_NVLINK, 162.22, 30.37),
    ("2 GPUs, network stand-in, 2^24", 2 ** 23, 2, BW_STANDIN, 94.80, 17.23),
]


def measured(laws, alpha, mig):
    print("\nMeasured against the model (ms a step; the 2-GPU runs' domain update still made the cut's Hilbert"
          " indices, 4.7-9.5 ms, which the model leaves out)")
    print("| run | measured | its domain update | model | model's domain update | model's LET |")
    print("|---|---|---|---|---|---|")
    keep = globals()["BW_NVLINK"]
    for what, n, P, bw, ms, dom in MEASURED:
        globals()["BW_NVLINK"] = bw
        t, _, lb, _ = step(n, P, laws, alpha, mig)
        print(f"| {what} | {ms:.1f} | {dom:.1f} | {total(t) * 1e3:.1f} | {t['domain'] * 1e3:.1f} | "
              f"{lb / 1e6:.1f} MB, {t['let'] * 1e3:.1f} ms |")
    globals()["BW_NVLINK"] = keep


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--alpha-us", type=float, default=3.0, help="latency of one MPI message round, us (default 3)")
    ap.add_argument("--mig", type=float, default=0.01, help="fraction of a rank's bodies migrating a step (default 0.01)")
    ap.add_argument("--let-law", choices=("max", "fit", "2/3"), default="max",
                    help="LET bytes: c(P) n^a fitted per P (fit), the exponent fixed at 2/3 (2/3), or the larger "
                         "of the two at each n and P (max, the default)")
    ap.add_argument("--ib-gbs", type=float, default=BW_IB / 1e9,
                    help="GB/s into a GPU between nodes (default 25; 2.8 is issue 33's NCCL-network stand-in)")
    ap.add_argument("--nodes-of", type=int, default=GPUS_PER_NODE,
                    help="GPUs a node: up to this many talk over NVLink (default 4; 1 puts every byte on --ib-gbs)")
    ap.add_argument("--measured", action="store_true",
                    help="also the measured points (docs/performance.md) beside the model's prediction of each")
    o = ap.parse_args()
    globals()["BW_IB"], globals()["GPUS_PER_NODE"] = o.ib_gbs * 1e9, o.nodes_of
    laws = let_law(o.let_law)
    print("LET received per rank per step, fitted on the CPU backend's runs (bytes = c n^a):")
    for P, both in sorted(laws.items()):
        for (c, a), (cm, am) in both:
            print(f"  P = {P}: busiest {c:.4g} n^{a:.3f} ({c * N1 ** a / 1e6:.1f} MB at n = 2^24, an extrapolation); "
                  f"mean {cm:.4g} n^{am:.3f} ({cm * N1 ** am / 1e6:.1f} MB)")
    print(f"  the model takes {o.let_law}; P >= 16: P = 8's law x {LET_P_GROWTH}")
    print(f"walk rate {RATE:.3g} interactions/s; alpha {o.alpha_us} us; migration {o.mig:.2%} of a rank's bodies a "
          f"step; {o.ib_gbs:g} GB/s between nodes of {o.nodes_of} GPUs\n")
    alpha = o.alpha_us * 1e-6
    weak(laws, alpha, o.mig)
    strong(laws, alpha, o.mig, N1)
    if o.measured:
        measured(laws, alpha, o.mig)


if __name__ == "__main__":
    main()
