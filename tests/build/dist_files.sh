#!/bin/sh
# dist_files.sh: every source file git tracks under src/, cuda/ and jobs/ is named in
# Makefile.am, so the tarball (make dist, distcheck, every build from a release) has it. A header
# only #included is not seen by a build in this tree, which finds it beside the .c anyway: the
# tarball alone lacks it. So is every file under docs/, so that make install installs it (the
# tarball has the whole directory; the installed documentation only what Makefile.am names).
# Skips outside a git checkout (a tarball has nothing to compare with).
. "$GS_TEST_LIB"
src=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
command -v git >/dev/null || gs_skip "no git"
files=$(git -C "$src" ls-files src cuda jobs docs 2>/dev/null) || gs_skip "$src is not a git checkout"
[ -n "$files" ] || gs_skip "$src is not a git checkout"
missing=
for f in $files; do
  grep -qF "$f" "$src/Makefile.am" || missing="$missing $f"
done
[ -z "$missing" ] || gs_fail "tracked by git but not in Makefile.am (so not in the tarball, or under docs/ not installed):$missing"
echo "ok: $(echo "$files" | wc -l) files under src/, cuda/, jobs/ and docs/ are named in Makefile.am"
