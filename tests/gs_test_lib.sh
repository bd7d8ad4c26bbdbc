# gs_test_lib.sh: sourced by the shell tests. Runs gpusim under the MPI launcher found by
# configure, with the flags a CI container needs (root, more ranks than cores).
set -u
gs_skip() { echo "SKIP: $*"; exit 77; }
gs_fail() { echo "FAIL: $*"; exit 1; }
gs_hard() { echo "ERROR: $*"; exit 99; }

[ -x "${GPUSIM:-}" ] || gs_hard "GPUSIM is not set to the built program"
GS_MPIFLAGS=""
if [ -n "${MPIEXEC:-}" ] && "$MPIEXEC" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  GS_MPIFLAGS="--oversubscribe --bind-to none"
  [ "$(id -u)" = 0 ] && GS_MPIFLAGS="$GS_MPIFLAGS --allow-run-as-root"
  # Containers often forbid the cross-memory attach Open MPI's shared memory uses.
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  export OMPI_MCA_rmaps_base_oversubscribe=1
fi

# gs_mpirun NP ARGS...: run gpusim on NP ranks, never longer than GS_TIMEOUT seconds.
gs_mpirun() {
  np=$1
  shift
  [ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher (mpiexec) found by configure"
  timeout "${GS_TIMEOUT:-300}" "$MPIEXEC" $GS_MPIFLAGS -n "$np" "$GPUSIM" "$@"
}

# gs_verified OUTPUT WHAT [ROWS]: a gpusim run's OUTPUT says "verification: OK" (and, with ROWS,
# has that many kernel rows checked OK); else it is shown and the test fails.
gs_verified() {
  echo "$1" | grep -q '^# verification: OK' || { echo "$1"; gs_fail "$2: not verified"; }
  [ -z "${3:-}" ] && return 0
  rows=$(echo "$1" | grep -v '^#' | grep -cE ' OK$')
  [ "$rows" = "$3" ] || { echo "$1"; gs_fail "$2: $rows verified kernel rows, want $3"; }
}

# gs_gpus: GPUs this machine shows (0 without a driver or in a CPU-only build).
gs_gpus() { "${GS_GPU_COUNT:?}" 2>/dev/null || echo 0; }

# gs_gpu_ranks: ranks for a GPU test, one per GPU up to 4; exits 77 without a GPU (the reason
# goes to stderr, since callers capture stdout: np=$(gs_gpu_ranks) || exit 77).
gs_gpu_ranks() {
  n=$(gs_gpus)
  [ "$n" -gt 0 ] || { echo "SKIP: no GPU visible" >&2; exit 77; }
  [ "$n" -gt 4 ] && n=4
  echo "$n"
}

# gs_fake_gpusim FILE: write a stand-in gpusim for the USR1 tests. Each rank notes that it
# started ($GS_FAKE_DIR/started.RANK), waits up to 60 s for $GS_FAKE_DIR/go, noting any USR1
# that comes (usr1.RANK), then runs the real gpusim; --help goes straight to it.
gs_fake_gpusim() {
  cat >"$1" <<EOF
#!/bin/sh
case "\$*" in *--help*) exec "$GPUSIM" "\$@" ;; esac
d=\$GS_FAKE_DIR
r=\${OMPI_COMM_WORLD_RANK:-\${PMIX_RANK:-\${SLURM_PROCID:-x}}}
trap 'touch "\$d/usr1.\$r"' USR1
touch "\$d/started.\$r"
i=0
while [ ! -e "\$d/go" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
exec "$GPUSIM" "\$@"
EOF
  chmod +x "$1"
}
