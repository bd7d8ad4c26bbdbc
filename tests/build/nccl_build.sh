#!/bin/sh
# nccl_build.sh: the NCCL path (src/gs_backend_cuda_coll.c) compiles cleanly wherever the CUDA
# headers and nccl.h are found (CI has both, and no GPU), whatever this build was configured
# with; and a CUDA build of this tree configured where NCCL is found has it (GS_HAVE_NCCL, the
# collectives in the program). Skips where there is no CUDA or no NCCL to compile against.
. "$GS_TEST_LIB"
src=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
build=$(cd "$(dirname "$GPUSIM")" && pwd)
cc=$(command -v mpicc) || gs_skip "no mpicc"
cuda=
for d in "${CUDA_HOME:-}" /usr/local/cuda /usr; do
  [ -n "$d" ] && [ -f "$d/include/cuda_runtime_api.h" ] && { cuda=$d; break; }
done
[ -n "$cuda" ] || gs_skip "no CUDA headers (cuda_runtime_api.h)"
nccl=
for d in "$cuda" /usr/local /usr; do
  [ -f "$d/include/nccl.h" ] && { nccl=$d; break; }
done
[ -n "$nccl" ] || gs_skip "no nccl.h beside CUDA or in the system"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '#define GS_HAVE_NCCL 1' >"$tmp/config.h"
out=$("$cc" -std=c11 -Wall -Wextra -Werror -I"$tmp" -I"$src/src" -I"$src/cuda" -I"$cuda/include" -I"$nccl/include" \
  -c "$src/src/gs_backend_cuda_coll.c" -o "$tmp/coll.o" 2>&1) || { echo "$out"; gs_fail "gs_backend_cuda_coll.c does not compile against $nccl/include/nccl.h"; }
nm "$tmp/coll.o" | grep -q ' D gs_backend_cuda_coll_ops$' || gs_fail "gs_backend_cuda_coll.o does not define gs_backend_cuda_coll_ops"
echo "ok: src/gs_backend_cuda_coll.c compiles with -Wall -Wextra -Werror against $nccl/include/nccl.h"
# This build: a CUDA build must have found NCCL here (the same search as configure's).
if grep -q '^#define GS_HAVE_CUDA 1' "$build/config.h" 2>/dev/null; then
  grep -q '^#define GS_HAVE_NCCL 1' "$build/config.h" ||
    { grep -i nccl "$build/config.log" | tail -5; gs_fail "a CUDA build where $nccl/include/nccl.h exists, without GS_HAVE_NCCL"; }
  nm "$GPUSIM" | grep -q ' gs_backend_cuda_coll_ops$' || gs_fail "gpusim lacks the NCCL collectives"
  echo "ok: this CUDA build has NCCL (GS_HAVE_NCCL, gs_backend_cuda_coll_ops in gpusim)"
else
  echo "note: a CPU-only build: only the compile above checked"
fi
