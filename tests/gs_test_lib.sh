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
  # The documented commands the tests run as written (scripts, examples) call mpirun without
  # the flag: as root they need Open MPI's two variables (README: the tests set both themselves).
  [ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
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

# gs_hash_of [FILE...]: the FNV-1a hash of a run's "# final state:" line (stdin, or the FILEs).
gs_hash_of() { sed -n 's/^# final state: .* = \([0-9a-f]*\)$/\1/p' "$@"; }

# gs_below WHAT VALUE LIMIT / gs_near WHAT A B TOL: VALUE < LIMIT / |A - B| <= TOL, where every
# value must be a number: an empty or missing one ("" < 1e-5 is true in awk) or a nan fails.
# gs_usage_error WANT ARGS...: gpusim ARGS on 2 ranks must refuse them as bad input: exit status 2,
# exactly one "gpusim: error:" line (rank 0's), matching the extended regex WANT after it.
gs_usage_error() {
  local want=$1 out rc
  shift
  out=$(gs_mpirun 2 "$@" 2>&1)
  rc=$?
  [ $rc = 2 ] || { echo "$out"; gs_fail "'$*': exit $rc, want 2"; }
  [ "$(echo "$out" | grep -c '^gpusim: error: ')" = 1 ] || { echo "$out"; gs_fail "'$*': not exactly one error line"; }
  echo "$out" | grep -E "^gpusim: error: $want" >/dev/null || { echo "$out"; gs_fail "'$*': want the message '$want'"; }
  echo "ok: $* -> $(echo "$out" | grep '^gpusim: error')"
}
GS_AWK_NUM='function num(v) { return v ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }'
gs_below() {
  awk -v v="$2" -v l="$3" "$GS_AWK_NUM"' BEGIN { exit !(num(v) && v + 0 < l + 0) }' ||
    gs_fail "$1 = '$2', want a number below $3"
}
gs_near() {
  awk -v a="$2" -v b="$3" -v t="$4" "$GS_AWK_NUM"' BEGIN { d = a - b; if (d < 0) d = -d; exit !(num(a) && num(b) && d <= t + 0) }' ||
    gs_fail "$1: '$2' vs '$3', want numbers within $4"
}

# gs_snap_dump BASE: snapshot BASE (.hdf5 or .bin + .json) as text, by tests/gs_snap_dump.py
# (h5py or struct: no code shared with gs_io). Exits 77 with the reason on stderr when no Python
# here can read it (callers capture stdout: d=$(gs_snap_dump BASE) || exit $?).
gs_snap_dump() {
  for p in python3 /usr/bin/python3; do
    command -v "$p" >/dev/null 2>&1 || continue
    [ -f "$1.hdf5" ] && ! "$p" -c 'import h5py' 2>/dev/null && continue
    "$p" "${GS_TEST_LIB%/*}/gs_snap_dump.py" "$1"
    return $?
  done
  echo "SKIP: no Python here reads $1 (HDF5: python3-h5py; raw: python3)" >&2
  exit 77
}

# gs_gpus: GPUs this machine shows (0 without a driver or in a CPU-only build).
gs_gpus() {
  n=$("${GS_GPU_COUNT:?}" 2>/dev/null | head -1)
  case $n in '' | *[!0-9]*) n=0 ;; esac
  echo "$n"
}

# gs_gpu_ranks: ranks for a GPU test, one per GPU up to 4. Without a GPU it exits 77 with the
# reason (gs_gpu_count's: CPU-only build, the CUDA error, or no device), or 1 when
# GPUSIM_REQUIRE_GPU=1 (a GPU machine's check: a broken driver must fail, not skip). The reason
# goes to stderr, since callers capture stdout: np=$(gs_gpu_ranks) || exit $?.
gs_gpu_ranks() {
  out=$("${GS_GPU_COUNT:?}" 2>&1)
  n=$(echo "$out" | head -1)
  case $n in '' | *[!0-9]*) n=0 why=$(echo "$out" | tr '\n' ' ') ;; *) why=$(echo "$out" | sed 1d | tr '\n' ' ') ;; esac
  if [ "$n" = 0 ]; then
    [ "${GPUSIM_REQUIRE_GPU:-0}" = 1 ] && { echo "FAIL: GPUSIM_REQUIRE_GPU=1 but no GPU: $why" >&2; exit 1; }
    echo "SKIP: no GPU: $why" >&2
    exit 77
  fi
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

# gs_kill_rank LABEL ARGS...: start gpusim ARGS on 2 ranks, kill -9 rank 1 once the simulation
# runs, and require that no rank process is left 10 s after the kill. With Open MPI's default kill
# grace (1 s) mpirun must end within 10 s too, and the survivor must have noticed the loss itself
# ("is gone": mpirun's own SIGKILL would come 2 s after the loss). With a longer grace
# (OMPI_MCA_odls_base_sigkill_timeout=25, as the job scripts set) Open MPI 4.1's mpirun sends
# SIGCONT, sleeps 25 s, sends SIGTERM, sleeps 25 s, sends SIGKILL, whatever its ranks do, and
# forwards no output meanwhile: ranks gone within 10 s then prove the survivor ended itself, and
# the test ends mpirun.
gs_kill_rank() {
  label=$1
  shift
  [ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher (mpiexec) found by configure"
  kdir=$(mktemp -d)
  "$MPIEXEC" $GS_MPIFLAGS -n 2 "$GPUSIM" "$@" >"$kdir/out" 2>&1 &
  mp=$!
  i=0
  until grep -q '^# simulation with kernel' "$kdir/out"; do
    i=$((i + 1))
    [ $i -gt 600 ] && { kill -9 $mp; cat "$kdir/out"; rm -rf "$kdir"; gs_fail "$label: the run did not start"; }
    sleep 0.1
  done
  sleep 1
  ranks=$(pgrep -P $mp | tr '\n' ' ')
  set -- $ranks
  [ $# = 2 ] || { kill -9 $mp; rm -rf "$kdir"; gs_fail "$label: mpirun has children '$ranks', want 2 ranks"; }
  kill -9 "$2"
  t0=$(date +%s)
  left=x
  while [ $(($(date +%s) - t0)) -le 10 ]; do
    left=$(for p in $ranks; do s=$(ps -o stat= -p "$p" 2>/dev/null); case $s in '' | Z*) ;; *) echo "$p" ;; esac; done)
    [ -z "$left" ] && break
    sleep 0.2
  done
  took=$(($(date +%s) - t0))
  ended=no
  while [ $(($(date +%s) - t0)) -le 10 ]; do
    kill -0 $mp 2>/dev/null || { ended=yes; break; }
    sleep 0.2
  done
  [ $ended = no ] && kill -9 $mp
  [ -n "$left" ] && kill -9 $left 2>/dev/null # the ranks this test started, left behind
  wait $mp
  rc=$?
  cat "$kdir/out" >"${GS_KILL_LOG:-/dev/null}"
  if [ -n "$left" ]; then cat "$kdir/out"; rm -rf "$kdir"; gs_fail "$label: rank process(es) $left still there 10 s after the kill"; fi
  if [ "${OMPI_MCA_odls_base_sigkill_timeout:-1}" -le 1 ]; then
    [ $ended = yes ] || { cat "$kdir/out"; rm -rf "$kdir"; gs_fail "$label: mpirun still running 10 s after the kill"; }
    grep -q '^gpusim: fatal: rank 0 .* is gone' "$kdir/out" ||
      { cat "$kdir/out"; rm -rf "$kdir"; gs_fail "$label: rank 0 did not notice its peer gone"; }
  fi
  [ $ended = yes ] && [ $rc = 0 ] && { cat "$kdir/out"; rm -rf "$kdir"; gs_fail "$label: the job exited 0 after losing a rank"; }
  echo "ok: $label: ranks gone ${took}s after the kill, mpirun $( [ $ended = yes ] && echo "ended (exit $rc)" || echo "still in its ${OMPI_MCA_odls_base_sigkill_timeout}s kill sleeps: ended by the test") $(grep '^gpusim: fatal' "$kdir/out")"
  rm -rf "$kdir"
}
