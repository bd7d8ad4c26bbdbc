#!/bin/bash
# gpu_check.sh DIR [PART...]: what one call on a GPU machine runs, within 10 minutes on one H100
# or H200, its logs and a summary (DIR/summary.txt, printed last) into DIR. The parts, in order
# (default: build suite tree):
#   build    ./autogen.sh && ./configure --with-cuda-arch=$GS_ARCH (90) && make -j (the machine's cores)
#   suite    the GPU suite with GPUs required: GPUSIM_REQUIRE_GPU=1 make check TESTS=<tests/gpu/*>
#            (GS_CHECK_TESTS: other tests instead; "all": the whole suite)
#   tree     the tree's benchmarks on one GPU: 2^24 Plummer, theta 0.5, eps 0.05, float; the
#            domains layout beside the replicated one on 1 rank, then 2 and 4 ranks sharing the GPU
#            (--gpu-share: the same final state, each rank's memory)
#   large    the largest N of one GPU in the domains layout (GS_LARGE_N, default 2^28), one step
#   scaling  on a machine of 2 or 4 GPUs: strong (2^24) and weak (2^24 a GPU) scaling of both
#            layouts, and over the network stand-in (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)
# DIR gets at most six files: summary.txt (one row a benchmark run), build.log, check.log, tests.log
# (every test's own log), bench.log (every benchmark's whole output, one after another).
set -uo pipefail
dir=${1:?usage: gpu_check.sh DIR [build|suite|tree|large|scaling ...]}
shift
parts=${*:-build suite tree}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cd "$(dirname "$0")/../.." || exit 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
sum=$dir/summary.txt
: >"$sum"
note() { echo "$*" | tee -a "$sum"; }
t0=$SECONDS
rc=0
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
note "# gpu_check $(date -u +%FT%TZ) git $(git rev-parse --short=12 HEAD 2>/dev/null || cat .gitrev 2>/dev/null) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) x $ngpu"

if [[ " $parts " == *" build "* ]]; then
  (./autogen.sh && ./configure --with-cuda-arch="${GS_ARCH:-90}" MPICC="${MPICC:-mpicc}" && make -j"$(nproc)") \
    >"$dir/build.log" 2>&1 || { tail -40 "$dir/build.log"; note "build: FAILED"; exit 1; }
  grep -E '^  (CUDA|NCCL|MPI library) ' "$dir/build.log" | tee -a "$sum"
  note "build: $((SECONDS - t0)) s"
fi
[ -x ./gpusim ] || { note "no ./gpusim: run the build part first"; exit 1; }
mpirun=$(sed -n 's/^MPIEXEC = //p' Makefile)
mpirun=${mpirun:-mpirun}

if [[ " $parts " == *" suite "* ]]; then
  t1=$SECONDS
  export GS_TIMEOUT=${GS_TIMEOUT:-150} # a hung run fails its test in minutes, not the call's whole time
  tests=${GS_CHECK_TESTS:-$(ls tests/gpu/*.sh tests/gpu/test_gpu_*.c | sed 's/\.c$//' | grep -v gpu_check.sh | tr '\n' ' ')}
  if [ "$tests" = all ]; then
    GPUSIM_REQUIRE_GPU=1 make -j8 check >"$dir/check.log" 2>&1
  else
    GPUSIM_REQUIRE_GPU=1 make -j8 check TESTS="$tests" >"$dir/check.log" 2>&1
  fi
  src=$?
  grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS):' "$dir/check.log" | tee -a "$sum"
  for l in $(ls -tr tests/*/*.log 2>/dev/null); do printf '\n===== %s\n' "$l"; cat "$l"; done >"$dir/tests.log"
  note "suite: exit $src, $((SECONDS - t1)) s"
  [ $src = 0 ] || rc=1
fi

# bench NAME NP [ENV=...] -- ARGS...: gpusim nbody ARGS on NP ranks; one summary row from its lines.
bench() {
  local name=$1 np=$2 envs=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local t=$SECONDS
  local log=$dir/bench.tmp
  env "${envs[@]}" timeout 590 "$mpirun" --oversubscribe --bind-to none -n "$np" ./gpusim nbody "$@" >"$log" 2>&1
  local r=$?
  { printf '\n===== %s: %s ranks: %s %s\n' "$name" "$np" "${envs[*]}" "$*"; cat "$log"; } >>"$dir/bench.log"
  local step parts mem hash p99
  step=$(sed -n 's/^# per step (median of [0-9]*, slowest rank): total \([0-9.]*\) ms.*/\1/p' "$log" | head -1)
  parts=$(sed -n 's/^# per step .*domain update \([0-9.]*\) ms, build \([0-9.]*\) ms, LET exchange \([0-9.]*\) ms (\([0-9.e+]*\) bytes.*walk \([0-9.]*\) ms.*imbalance \([0-9.]*\).*/dom \1 build \2 let \3 (\4 B) walk \5 imb \6/p' "$log" | head -1)
  [ -z "$parts" ] && parts=$(sed -n 's/^# per step .*total [0-9.]* ms, build \([0-9.]*\) ms, walk \([0-9.]*\) ms, exchange \([0-9.]*\) ms.*/build \1 walk \2 exch \3/p' "$log" | head -1)
  mem=$(sed -n 's/^# memory per rank (the largest): \([0-9.e+-]*\) GB.*, \([0-9]*\) bytes a body over the ranks.*grew by \([0-9.e+-]*\) GB.*/mem \1 GB, \2 B\/body, device +\3 GB/p' "$log" | head -1)
  hash=$(sed -n 's/^# final state: .* = \([0-9a-f]*\)$/\1/p' "$log")
  p99=$(sed -n 's/^# tree check (start): .*99th percentile \([0-9.e+-]*\).*/\1/p' "$log" | head -1)
  note "$(printf '%-22s np %-2s exit %-3s step %-9s ms | %s | p99 %s | %s | %s | %ds' "$name" "$np" "$r" "${step:-?}" \
    "${parts:-?}" "${p99:-?}" "${mem:-}" "${hash:-?}" $((SECONDS - t)))"
  [ $r = 0 ] || { tail -5 "$log"; rc=1; }
}
n24=16777216
plum="--ic plummer --theta 0.5 --eps 0.05 --precision single --progress off"

if [[ " $parts " == *" tree "* ]]; then
  note "# tree, one GPU: 2^24 Plummer, theta 0.5, eps 0.05, float (ms a step: the median of the steps, the slowest rank)"
  one=CUDA_VISIBLE_DEVICES=0 # one GPU, whatever the machine has
  bench d1 1 $one -- --backend cuda --solver tree --tree-layout domains --n $n24 $plum --steps 5 --iters 3
  bench r1 1 $one -- --backend cuda --solver tree --tree-layout replicated --n $n24 $plum --steps 5 --iters 3
  bench d1b 1 $one -- --backend cuda --solver tree --tree-layout domains --n $n24 $plum --steps 5 --iters 3
  bench d2s 2 $one -- --backend cuda --gpu-share --solver tree --tree-layout domains --n $n24 $plum --steps 5 --iters 1
  bench d4s 4 $one -- --backend cuda --gpu-share --solver tree --tree-layout domains --n $n24 $plum --steps 5 --iters 1
fi

if [[ " $parts " == *" large "* ]]; then
  nl=${GS_LARGE_N:-268435456}
  bench large 1 CUDA_VISIBLE_DEVICES=0 -- --backend cuda --solver tree --tree-layout domains --n "$nl" $plum --steps 1 --iters 1
fi

if [[ " $parts " == *" scaling "* ]] && [ "$ngpu" -ge 2 ]; then
  net=(NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)
  note "# scaling over $ngpu GPUs: strong 2^24, weak 2^24 a GPU; the network stand-in: ${net[*]}"
  for p in 1 2 4; do
    [ "$p" -gt "$ngpu" ] && continue
    bench "strong-d$p" "$p" -- --backend cuda --solver tree --tree-layout domains --n $n24 $plum --steps 5 --iters 1
    bench "strong-r$p" "$p" -- --backend cuda --solver tree --tree-layout replicated --n $n24 $plum --steps 5 --iters 1
    [ "$p" -gt 1 ] || continue
    bench "weak-d$p" "$p" -- --backend cuda --solver tree --tree-layout domains --n $((n24 * p)) $plum --steps 5 --iters 1
    bench "net-d$p" "$p" "${net[@]}" -- --backend cuda --solver tree --tree-layout domains --n $n24 $plum --steps 5 \
      --iters 1 --exchange nccl
  done
fi
rm -f "$dir/bench.tmp"
note "total: $((SECONDS - t0)) s, exit $rc"
exit $rc
