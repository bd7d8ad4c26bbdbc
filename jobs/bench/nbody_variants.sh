#!/bin/bash
# nbody_variants.sh: rebuild the force kernels with other tile shapes (compile-time macros of
# cuda/gs_nbody_kernels.cu) and time kernel 7 at N = 2^20 with each. Run from a configured, built
# tree on a GPU node: jobs/bench/nbody_variants.sh [OUTDIR] "NAME:FLAGS" ...
set -uo pipefail
out=${1:-${OUT:-$PWD/bench-out}}
shift
mkdir -p "$out"
for v in "$@"; do
  name=${v%%:*} flags=${v#*:}
  rm -f cuda/gs_nbody_kernels.o
  if ! make -s gpusim NVCCFLAGS="$flags" >"$out/build-$name.log" 2>&1; then
    echo "$name ($flags): build failed"; tail -5 "$out/build-$name.log"; continue
  fi
  grep -A4 "multi_kernelIfLi0ELb0" "$out/build-$name.log" | grep -o "Used [0-9]* registers.*" | head -1
  echo "== $name: NVCCFLAGS=$flags"
  mpirun --allow-run-as-root -np 1 ./gpusim nbody --n 2^20 --steps 1 --iters 3 --kernel multi 2>&1 | grep -E '^multi|verification'
done | tee "$out/variants.txt"
rm -f cuda/gs_nbody_kernels.o && make -s gpusim >/dev/null 2>&1
