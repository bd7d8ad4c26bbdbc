#!/bin/sh
# gs_rule_names.sh BUILDROOT | OBJ...: every function or variable an object exports is named
# after its file, gs_<file>_*, so any symbol leads to the file that defines it (REBOUND's rule);
# and so is every static the object keeps, under the file's static prefix (below).
#
# A directory argument is a build tree (top_builddir; in a VPATH build not the source tree): its
# src/*.o and cuda/*.o are the program's objects. File arguments are objects themselves (under a
# cuda/ directory: a cuda/ object). Automake's per-target object names (libgs_a-gs_foo.o) are read
# as gs_foo.o.
#
# Exports: the external, strong, defined symbols that nm -P reports: T (text), D (data), B (bss),
# R (read-only), and C, G, S (common and small-data sections, where a compiler uses them). Weak
# symbols (W, V, w, v) are left out: they are inline or template instances a header defines in
# every object that uses it, owned by no one file. Left out as well:
#   - main in gpusim.o, the program's entry point;
#   - names that begin with _ : C++ mangled names (_Z...; the CUDA kernels' host stubs and CUB's
#     instances) and the CUDA runtime's registration symbols (__cudaRegisterLinkedBinary..., ...),
#     which nvcc makes, not we.
# The nvtx* functions and globals that CUB's NVTX v3 headers put into gs_reduce_cub.o need no
# exception: nm shows them weak (W, V; checked with CUDA 13.0), so the type filter drops them.
#
# Statics: the local symbols t, d, b, r, that is what the compiler kept of a file's static
# functions and variables, its kernels (their host stubs) and its anonymous namespace, and the
# symbols of an anonymous namespace whatever their binding (nvcc makes them external, under a
# namespace named after the file): a C name as it is; a C++ name when it is the file's own,
# mangled _ZL<n><name>..., _Z<n><name>... (a template instance) or _ZN<n>_GLOBAL__N_...<n><name>...
# (an anonymous namespace; g++'s and nvcc's). Not: names with a dot (.LC0, a function's static variable x.0, clones f.cold,
# f.part.0: the compiler's), other mangled names (std::, cub::, guard variables, nvcc's device
# stubs and registration), fatbinData (nvcc's embedded device code, the one plain name it makes),
# and device-only code, which a host object does not hold (the rule covers what a profiler or
# debugger shows). The static prefix of a file:
#   - cuda/gs_matmul_*, gs_nbody_*, gs_reduce_*, gs_tree_*: its workload's, shared with that
#     workload's internal header: gs_mm_, gs_nb_, gs_rd_, gs_tr_;
#   - src/gs_backend_<rest>: gs_<rest>_, the file's name without backend_ (gs_cpu_nbody_);
#   - any other file: gs_<file>_, as its exports.
# A header's static inline functions are the header's (named after it): an object that keeps a
# copy of one (no inlining, -O0) may hold it under that name. The headers are those in the
# directories GS_RULE_HEADERS names (names.sh: src/); without it, no such copy is accepted.
# GS_RULE_STATICS_LATER names the modules whose statics predate the rule (issue 31) and are left
# out until they are renamed; exports are checked there too. A new file is checked from its
# first build.
#
# Exit 0 clean, 1 with one line per misnamed symbol, 77 (SKIP) when there is no object or no
# nm to read (never a vacuous pass), 2 on bad usage.
set -u
[ $# -gt 0 ] || { echo "usage: gs_rule_names.sh BUILDROOT | OBJ..." >&2; exit 2; }
NM=${NM:-nm}
command -v "$NM" >/dev/null 2>&1 || { echo "SKIP: no $NM to read the objects"; exit 77; }
GS_RULE_STATICS_LATER=${GS_RULE_STATICS_LATER-gpusim gs_backend gs_io_hdf5 gs_io_raw gs_matmul_ref gs_nbody_tree_report \
gs_options gs_reduce_ref gs_reduce_stream gs_report}

# The static inline functions of the headers in GS_RULE_HEADERS, one name a line.
hdr_statics=""
for d in ${GS_RULE_HEADERS:-}; do
  for h in "$d"/*.h; do
    [ -f "$h" ] || continue
    hdr_statics="$hdr_statics
$(sed -n 's/^static inline [^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$h")"
  done
done

# check OBJ SHOWN: OBJ's misnamed symbols, one line each, under the name SHOWN; status 1 if any.
check() {
  mod=${1##*/}
  mod=${mod%.o}
  case $mod in *-*) mod=${mod#*-} ;; esac
  case /$2 in
  */cuda/gs_matmul_*) pre=gs_mm_ ;;
  */cuda/gs_nbody_*) pre=gs_nb_ ;;
  */cuda/gs_reduce_*) pre=gs_rd_ ;;
  */cuda/gs_tree_*) pre=gs_tr_ ;;
  *) case $mod in gs_backend_?*) pre=gs_${mod#gs_backend_}_ ;; *) pre=${mod}_ ;; esac ;;
  esac
  later=0
  for m in $GS_RULE_STATICS_LATER; do [ "$m" = "$mod" ] && later=1; done
  syms=$("$NM" -P "$1") || { echo "gs_rule_names: $NM -P $1 failed" >&2; exit 2; }
  echo "$syms" | awk -v obj="$2" -v mod="$mod" -v pre="$pre" -v later="$later" -v hdr="$hdr_statics" '
    BEGIN { n = split(hdr, h, "\n"); for (i = 1; i <= n; i++) if (h[i] != "") header[h[i]] = 1 }
    {
      if ($2 ~ /^[TDBRCGS]$/ && $1 !~ /^_ZN[rVK]*[0-9]+_GLOBAL__N/) { # exports
        if ($1 ~ /^_/ || (mod == "gpusim" && $1 == "main") || index($1, mod "_") == 1) next
        print obj ": " $1 " is not named " mod "_*"; bad = 1; next
      }
      # statics: local symbols, and nvcc'"'"'s anonymous namespace (external, but the file'"'"'s own)
      if ($2 !~ /^[TDBRCGStdbr]$/ || later) next
      s = $1
      if (s ~ /\./ || s == "fatbinData") next
      if (s ~ /^_Z/) s = ours(s)
      if (s == "" || s ~ /^_/ || index(s, pre) == 1 || (s in header) || (s in seen)) next
      seen[s] = 1
      print obj ": static " s " is not named " pre "*"; bad = 1
    }
    # The name of a mangled symbol if it is one of the file'"'"'s own (see above), else "".
    function ours(m,   r) {
      if (m ~ /^_ZL?[0-9]/) { sub(/^_ZL?/, "", m); return ident(m) }
      if (m !~ /^_ZN[rVK]*[0-9]/) return ""
      sub(/^_ZN[rVK]*/, "", m)
      r = ident(m)
      if (r !~ /^_GLOBAL__N/) return ""
      m = substr(m, length(r) + length(length(r)) + 1)
      return m ~ /^[0-9]/ ? ident(m) : ""
    }
    function ident(m,   l) {
      match(m, /^[0-9]+/)
      l = substr(m, 1, RLENGTH) + 0
      return substr(m, RLENGTH + 1, l)
    }
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
