#!/bin/sh
# gs_rule_names.sh BUILDROOT | OBJ...: every function or variable an object exports is named
# after its file, gs_<file>_*, so any symbol leads to the file that defines it (REBOUND's rule).
#
# A directory argument is a build tree (top_builddir; in a VPATH build not the source tree): its
# src/*.o and cuda/*.o are the program's objects. File arguments are objects themselves. Checked
# are the external, strong, defined symbols that nm -P reports: T (text), D (data), B (bss), R
# (read-only), and C, G, S (common and small-data sections, where a compiler uses them). Weak
# symbols (W, V, w, v) are left out: they are inline or template instances a header defines in
# every object that uses it, owned by no one file. Left out as well:
#   - main in gpusim.o, the program's entry point;
#   - names that begin with _ : C++ mangled names (_Z...; the CUDA kernels' host stubs and CUB's
#     instances) and the CUDA runtime's registration symbols (__cudaRegisterLinkedBinary..., ...),
#     which nvcc makes, not we.
# The nvtx* functions and globals that CUB's NVTX v3 headers put into gs_reduce_cub.o need no
# exception: nm shows them weak (W, V; checked with CUDA 13.0), so the type filter drops them.
# Automake's per-target object names (libgs_a-gs_foo.o) are read as gs_foo.o.
#
# Exit 0 clean, 1 with one line per misnamed symbol, 77 (SKIP) when there is no object or no
# nm to read (never a vacuous pass), 2 on bad usage.
set -u
[ $# -gt 0 ] || { echo "usage: gs_rule_names.sh BUILDROOT | OBJ..." >&2; exit 2; }
NM=${NM:-nm}
command -v "$NM" >/dev/null 2>&1 || { echo "SKIP: no $NM to read the objects"; exit 77; }

# check OBJ SHOWN: OBJ's misnamed symbols, one line each, under the name SHOWN; status 1 if any.
check() {
  mod=${1##*/}
  mod=${mod%.o}
  case $mod in *-*) mod=${mod#*-} ;; esac
  syms=$("$NM" -P -g "$1") || { echo "gs_rule_names: $NM -P -g $1 failed" >&2; exit 2; }
  echo "$syms" | awk -v obj="$2" -v mod="$mod" '
    $2 !~ /^[TDBRCGS]$/ { next }                   # undefined, weak, local, debug
    $1 ~ /^_/ { next }                               # the compiler'"'"'s, see above
    mod == "gpusim" && $1 == "main" { next }
    index($1, mod "_") == 1 { next }
    { print obj ": " $1 " is not named " mod "_*"; bad = 1 }
    END { exit bad }'
}

found=0 bad=0
for a in "$@"; do
  if [ -d "$a" ]; then
    for o in "$a"/src/*.o "$a"/cuda/*.o; do
      [ -f "$o" ] || continue
      found=$((found + 1))
      check "$o" "${o#"$a"/}" || bad=1 # named relative to the build tree
    done
  elif [ -f "$a" ]; then
    found=$((found + 1))
    check "$a" "$a" || bad=1
  else
    echo "gs_rule_names: $a: no such object or build tree" >&2
    exit 2
  fi
done
[ $found -gt 0 ] || { echo "SKIP: no src/*.o or cuda/*.o under $* (build the program first)"; exit 77; }
exit $bad
