#!/bin/sh
# Where no GPU is visible (CI): every kind of GPU test skips (77) with gs_gpu_count's reason (a
# CPU-only build, the CUDA runtime's error, no device), and with GPUSIM_REQUIRE_GPU=1 fails (1)
# with it instead: a shell test (gs_gpu_ranks) and both C tests (gs_gpu_skip.h). Skips where a GPU
# is visible, since the GPU tests then run for real.
. "$GS_TEST_LIB"
[ "$(gs_gpus)" = 0 ] || gs_skip "a GPU is visible: the GPU tests run for real here"
why=$("$GS_GPU_COUNT" | sed -n 2p)
[ -n "$why" ] || gs_fail "gs_gpu_count gives no reason for 0 GPUs"
why=${why%% (CUDA_VISIBLE_DEVICES=*}
echo "gs_gpu_count: 0 GPUs: $why"
bin=${GS_GPU_COUNT%/*}/gpu
for t in "sh ${GS_TEST_LIB%/*}/gpu/reduce_gpu.sh" "$bin/test_gpu_reduce" "$bin/test_gpu_nbody"; do
  out=$(GPUSIM_REQUIRE_GPU= $t 2>&1)
  rc=$?
  [ $rc = 77 ] && echo "$out" | grep -qF "SKIP: no GPU: $why" || { echo "$out"; gs_fail "$t: exit $rc, want 77 and the reason"; }
  out=$(GPUSIM_REQUIRE_GPU=1 $t 2>&1)
  rc=$?
  [ $rc = 1 ] && echo "$out" | grep -qF "FAIL: GPUSIM_REQUIRE_GPU=1 but no GPU: $why" ||
    { echo "$out"; gs_fail "$t with GPUSIM_REQUIRE_GPU=1: exit $rc, want 1 and the reason"; }
  echo "ok: ${t##*/}: SKIP, or FAIL with GPUSIM_REQUIRE_GPU=1, saying '$why'"
done
echo "PASS"
