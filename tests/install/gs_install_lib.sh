# gs_install_lib.sh: sourced by the tests of `make installcheck` (tests/install/), after
# gs_test_lib.sh. installcheck runs them through the test harness with GS_INSTALLCHECK=yes, which
# points GPUSIM at the installed gpusim and GS_INST_* at the installed directories (Makefile.am).
# Each test runs in a directory of its own outside the build tree ($GS_INST_TMP, removed at exit
# by gs_inst_cleanup, which a test may extend), with the installed bin first on PATH: what it
# runs is what a user of the installation runs.
[ "${GS_INSTALLCHECK:-}" = yes ] || gs_hard "a test of make installcheck (GS_INSTALLCHECK=yes and the installed directories), not of make check"
for v in GS_INST_BINDIR GS_INST_MANDIR GS_INST_JOBSDIR GS_INST_DOCDIR GS_INST_MODULEDIR GS_INST_VERSION GS_INST_SRCDIR; do
  eval "[ -n \"\${$v:-}\" ]" || gs_hard "$v is not set"
done
[ "$GPUSIM" = "$GS_INST_BINDIR/gpusim" ] || gs_hard "GPUSIM=$GPUSIM, not the installed $GS_INST_BINDIR/gpusim"
GS_INST_TMP=$(mktemp -d) || gs_hard "mktemp"
gs_inst_cleanup() { rm -rf "$GS_INST_TMP"; }
trap 'gs_inst_cleanup' EXIT
cd "$GS_INST_TMP" || gs_hard "cd $GS_INST_TMP"
PATH=$GS_INST_BINDIR:$PATH
export PATH
unset GPUSIM_JOBS GPUSIM_JOB_TEMPLATES
# GPUSIM stays the tests' (gs_mpirun runs it), but leaves the environment: the templates and
# gpusim-scaling must find the installed gpusim by themselves, as they do for a user.
gs_inst_gpusim=$GPUSIM
unset GPUSIM
GPUSIM=$gs_inst_gpusim
# gs_inst_env ARGS...: env ARGS without the caller's GPUSIM_* variables and CUDA_VISIBLE_DEVICES,
# as a user's login has none of them: a template must find the installation by itself.
gs_inst_env() { env $(env | sed -n 's/^\(GPUSIM[A-Z_]*\)=.*/-u \1/p') -u CUDA_VISIBLE_DEVICES "$@"; }
