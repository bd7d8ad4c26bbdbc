#!/bin/sh
# A rank killed (kill -9) mid-run with --exchange nccl: the survivor, waiting for an all-gather
# that will never finish, must notice, abort its NCCL communicator and end, so no rank is left
# 10 s after the kill, with Open MPI's default kill grace and with the job scripts' 25 s (see
# gs_kill_rank). Skips with fewer than 2 GPUs or without NCCL.
. "$GS_TEST_LIB"
np=$(gs_gpu_ranks) || exit $?
[ "$np" -ge 2 ] || gs_skip "fewer than 2 GPUs ($np)"
out=$(gs_mpirun 2 nbody --backend cuda --n 1000 --steps 1 --kernel jsplit --iters 1 --exchange nccl 2>&1)
[ $? = 2 ] && echo "$out" | grep -q 'built without NCCL' && gs_skip "this gpusim was built without NCCL"
common="nbody --backend cuda --n 262144 --steps 1000000 --iters 1 --kernel jsplit --progress off --exchange nccl"
gs_kill_rank "--exchange nccl, sigkill timeout default" $common
OMPI_MCA_odls_base_sigkill_timeout=25 gs_kill_rank "--exchange nccl, sigkill timeout 25" $common
