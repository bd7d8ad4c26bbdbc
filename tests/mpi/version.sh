#!/bin/sh
# gpusim --version says what this gpusim is (version, git revision, configure line, backends
# built, MPI library, CUDA) and says it as every run does: each of its lines is a line of a run's
# `#` header (whose first line adds the run's timestamp), and the run's rows carry the same values
# in their version columns (gpusim_version, git_revision, mpi_library, cuda_version: "none" on the
# CPU backend). The version and revision are configure's (config.h beside the program, or
# GS_INST_CONFIG_H when make installcheck runs this on the installed gpusim).
. "$GS_TEST_LIB"
config=$(dirname "$GPUSIM")/config.h
[ -f "$config" ] || config=${GS_INST_CONFIG_H:-}
[ -f "$config" ] || gs_hard "no config.h beside $GPUSIM (nor GS_INST_CONFIG_H) to take the version from"
want_v=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$config")
want_git=$(sed -n 's/^#define GS_GIT_REVISION "\(.*\)"$/\1/p' "$config")
[ -n "$want_v" ] && [ -n "$want_git" ] || gs_hard "$config has no PACKAGE_VERSION or GS_GIT_REVISION"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || gs_hard "cd $tmp"

v=$("$GPUSIM" --version) || gs_fail "gpusim --version: exit status $?"
echo "$v"
first="gpusim $want_v"
[ "$want_git" = unknown ] || first="$first (git $want_git)"
[ "$(echo "$v" | head -1)" = "$first" ] || gs_fail "first line '$(echo "$v" | head -1)', want '$first'"
for l in '^configure: ' '^backends built: (.* )?cpu( |$)' '^MPI: .' '^CUDA: (runtime [0-9]+\.[0-9]+, driver|not built into this gpusim)'; do
  [ "$(echo "$v" | grep -cE "$l")" = 1 ] || gs_fail "--version: want one line matching '$l'"
done
[ "$(echo "$v" | wc -l)" = 5 ] || gs_fail "--version: $(echo "$v" | wc -l) lines, want 5"
# A --version that rank 0 alone prints, once, on 2 ranks too.
out=$(gs_mpirun 2 --version) || gs_fail "gpusim --version on 2 ranks: exit status $?"
[ "$out" = "$v" ] || { echo "$out"; gs_fail "--version on 2 ranks differs from a singleton's"; }

out=$(gs_mpirun 2 info --backend cpu --json "$tmp/r.json") || { rc=$?; echo "$out"; gs_fail "gpusim info: exit status $rc"; }
echo "$v" | sed 1d | while IFS= read -r l; do
  echo "$out" | grep -qxF "# $l" || { echo "$out"; gs_fail "--version's '$l' is not in the run's header"; }
done || exit 1
echo "$out" | head -1 | grep -qE "^# $(echo "$first" | sed 's/[().]/\\&/g') [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$" ||
  gs_fail "header's first line '$(echo "$out" | head -1)', want '# $first TIMESTAMP'"
# The rows' columns (the first row's; every row of a run has the same).
col() { sed -n "s/.*\"$1\": \"\([^\"]*\)\".*/\1/p" "$tmp/r.json" | head -1; }
mpi=$(echo "$v" | sed -n 's/^MPI: //p' | sed 's/ (built with .*)$//')
[ "$(col gpusim_version)" = "$want_v" ] || gs_fail "rows' gpusim_version '$(col gpusim_version)', want $want_v"
[ "$(col git_revision)" = "$want_git" ] || gs_fail "rows' git_revision '$(col git_revision)', want $want_git"
[ "$(col mpi_library)" = "$mpi" ] || gs_fail "rows' mpi_library '$(col mpi_library)', --version's MPI '$mpi'"
[ "$(col cuda_version)" = none ] || gs_fail "rows' cuda_version '$(col cuda_version)' on the CPU backend, want none"
echo "ok: --version, the run header and the rows agree: $want_v, git $want_git, $mpi"
echo "PASS"
