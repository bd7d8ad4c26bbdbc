#!/bin/bash
# device_ab.sh: a change's effect on speed and results, measured in one session on one machine.
# Builds a baseline tree from a tarball (git archive of the commit before the change) beside the
# built current tree, then runs the same commands with both binaries, alternating A B A B so that
# the machine's drift falls on both alike, and prints each run's key lines: reduce's table rows,
# nbody's per-step line and final-state hash (direct and tree), matmul's simt and cuBLAS rows.
# Usage, from a built tree on a GPU node: jobs/bench/device_ab.sh BASELINE.tar [OUTDIR]
#   (make the tarball with: git archive -o base.tar COMMIT)
set -uo pipefail
base_tar=${1:?usage: device_ab.sh BASELINE.tar [OUTDIR]}
out=${2:-${OUT:-$PWD/ab-out}}
mkdir -p "$out"
[ -x ./gpusim ] || { echo "device_ab.sh: run from a built tree (./gpusim missing)" >&2; exit 2; }
base=$(mktemp -d)
tar -xf "$base_tar" -C "$base" || exit 2
(cd "$base" && ./autogen.sh && ./configure --with-cuda-arch="${GS_ARCH:-90}" MPICC="${MPICC:-mpicc}" && make -j16) >"$out/base-build.log" 2>&1 ||
  { tail -30 "$out/base-build.log"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ngpu=$(nvidia-smi -L | wc -l)
# ab NP ARGS...: the command with the baseline (A) and the current (B) binary, twice each.
ab() {
  local np=$1
  shift
  for round in 1 2; do
    for which in A B; do
      local bin=./gpusim
      [ $which = A ] && bin=$base/gpusim
      echo "== $which round $round: mpirun -np $np gpusim $*"
      mpirun --bind-to none -np "$np" "$bin" "$@" 2>&1 | tee -a "$out/ab-$which.log" |
        grep -E '^(1|2|3|4|5|6|7|vec|onepass|cub|multi|jsplit|simt|cublas) |^# (per step|final state|verification|timing: WARN)'
    done
  done
}
ab 1 reduce --n 2^28 --block 256 --iters 30
ab 1 reduce --n 2^30 --kernel vec,onepass,cub --iters 100 --warmup 10
ab 1 nbody --n 2^20 --steps 5 --iters 3 --kernel multi,jsplit --output "$out/nb1"
[ "$ngpu" -ge 2 ] && ab 2 nbody --n 2^20 --steps 5 --iters 3 --kernel multi,jsplit --output "$out/nb2"
ab 1 nbody --solver tree --n 2^24 --steps 5 --progress off --output "$out/tr1"
ab 1 matmul --n 16384 --kernel simt,cublas --iters 5 --warmup 1
rm -rf "$base"
