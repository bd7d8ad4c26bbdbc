#!/bin/sh
# The installed documentation (GS_INST_DOCDIR, $(docdir)): README.md, NEWS, COPYING and every
# file the source tree has under docs/ but the man pages (installed under man1), laid out as in
# the source tree; and every relative link of the installed Markdown files resolves there, but
# those into the source tree's own jobs/ and src/ (jobs/bench: the scripts that measured).
. "$GS_TEST_LIB"
. "${GS_TEST_LIB%/*}/install/gs_install_lib.sh"
d=$GS_INST_DOCDIR
want=$(cd "$GS_INST_SRCDIR" && { ls README.md NEWS COPYING; find docs -type f ! -name '*.1'; } | LC_ALL=C sort)
have=$(cd "$d" 2>/dev/null && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
[ "$have" = "$want" ] || gs_fail "installed documentation differs from the source tree's: only installed: $(echo "$have" | grep -vxF "$want" | tr '\n' ' '); not installed: $(echo "$want" | grep -vxF "$have" | tr '\n' ' ')"
for f in $(cd "$d" && find . -name '*.md' | sed 's|^\./||'); do
  for l in $(grep -oE '\]\([^)#]+' "$d/$f" | sed 's/^](//'); do
    case $l in http:* | https:* | mailto:*) continue ;; esac
    t=$(dirname "$f")/$l
    case $t in ../jobs/* | ../src/* | docs/../jobs/* | docs/../src/*) continue ;; esac
    [ -e "$d/$t" ] || gs_fail "$d/$f links to $l, not installed"
  done
done
echo "ok: $(echo "$have" | wc -l) files in $d, their links resolved"
echo "PASS"
