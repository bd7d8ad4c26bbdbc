#!/bin/sh
# A rank killed mid-run (kill -9) must not leave the other blocked: on the CPU backend, in each
# exchange mode, with Open MPI's default kill grace and with the 25 s the job scripts set, the
# survivor notices its peer gone in the step's polled MPI waits and every rank is gone within 10 s.
. "$GS_TEST_LIB"
common="nbody --backend cpu --n 3000 --steps 100000 --iters 1 --kernel omp --progress off"
for mode in host cuda-mpi; do
  for grace in "" 25; do
    label="--exchange $mode, sigkill timeout ${grace:-default}"
    if [ -n "$grace" ]; then
      OMPI_MCA_odls_base_sigkill_timeout=$grace GPUSIM_CUDA_AWARE_MPI=1 gs_kill_rank "$label" $common --exchange $mode
    else
      GPUSIM_CUDA_AWARE_MPI=1 gs_kill_rank "$label" $common --exchange $mode
    fi
  done
done
