#!/bin/sh
# gs_rule_includes.sh SRCROOT: the module include graph of SRCROOT's src/, cuda/ and tests/ has no
# cycle, and each directory includes only what its layer may see.
#
# A module is a file's base name: src/gs_foo.c, src/gs_foo.h, cuda/gs_foo.cu, cuda/gs_foo.cuh
# are all module gs_foo, and so is a test's own header tests/unit/gs_foo.h. Module A depends on
# module B when a file of A includes gs_B.h or gs_B.cuh (directories stripped); A including its own
# header is no edge. A cycle means two files cannot be understood (or reused) one without the
# other: each printed cycle names its modules in include order. Cycles are found per strongly
# connected component (Tarjan); for each module in a component, its shortest cycle is printed once.
#
# Layering, the arrows that may not run back up:
#   - host code does not reach into cuda/: a file under src/ may include a header that lives in
#     cuda/ only when it is one of the CUDA backend's own files (src/gs_backend_cuda*.c and its
#     private src/gs_backend_cuda*.h), so the host code builds and reads without cuda/;
#   - cuda/ sees of src/ only the shared type headers listed in GS_RULE_TYPE_HEADERS below (plain
#     C types both sides share), never a driver's or a job's header; and those headers include
#     no src/ header but each other, so nothing else comes in through them;
#   - tests/ may include src/, cuda/ and tests/ headers, but tests are host code where the host
#     code is: outside tests/gpu/ (the GPU tests, which call the launchers) a test includes no
#     cuda/ header; and src/ and cuda/ never include a tests/ header.
# Tests are in the include graph too, so a test header's cycle is a cycle.
# An include is resolved as the compiler does: "..." from the including file's directory, then
# src/, then cuda/ (Makefile.am's -I order); <...> from src/ and cuda/ only, and one found in
# neither is a system header and no edge.
#
# Exit 0 clean, 1 with one line per offence, 2 on bad usage.
set -u
root=${1:?usage: gs_rule_includes.sh SRCROOT}
cd "$root" || exit 2
[ -d src ] || { echo "gs_rule_includes: no src/ under $root" >&2; exit 2; }

# The src/ headers that cuda/ may include: the C types host and device code share (element types
# and operators, the accumulator and its algebra, one force evaluation's and one tree
# evaluation's arguments). Each is plain C with no CUDA type in it.
GS_RULE_TYPE_HEADERS="gs_types.h gs_acc.h gs_nbody_force.h gs_tree.h gs_dtree.h"

tests=
[ -d tests ] && tests=$(find tests -path tests/rules/fixtures -prune -o -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print | LC_ALL=C sort)
files=$(LC_ALL=C ls src/*.c src/*.h cuda/*.c cuda/*.cu cuda/*.cuh cuda/*.h 2>/dev/null)
files=$(printf '%s\n%s\n' "$files" "$tests" | sed '/^$/d')
[ -n "$files" ] || { echo "gs_rule_includes: no sources under $root" >&2; exit 2; }

# One line per include: FILE RESOLVED-PATH (the path as found, or the bare name of a quoted one).
edges=$(for f in $files; do
  d=${f%/*}
  sed -n -e 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/q \1/p' \
    -e 's/^[ 	]*#[ 	]*include[ 	]*<\([^>]*\)>.*/a \1/p' "$f" | while read -r how inc; do
    if [ "$how" = q ] && [ -f "$d/$inc" ]; then
      r=$d/$inc
    elif [ -f "src/$inc" ]; then
      r=src/$inc
    elif [ -f "cuda/$inc" ]; then
      r=cuda/$inc
    elif [ "$how" = q ]; then
      r=$inc
    else
      continue
    fi
    echo "$f $r"
  done
done) || exit 2

GS_RULE_FILES=$files
export GS_RULE_FILES GS_RULE_TYPE_HEADERS
echo "$edges" | awk '
function base(p) { sub(/.*\//, "", p); sub(/\.[^.]*$/, "", p); return p }
# normalise a resolved path: "src/../cuda/gs_cuda.h" -> "cuda/gs_cuda.h"
function norm(p,   n, i, k, part, res, parts) {
  n = split(p, part, "/"); k = 0
  for (i = 1; i <= n; i++) {
    if (part[i] == "." || part[i] == "") continue
    if (part[i] == ".." && k > 0) { k--; continue }
    parts[++k] = part[i]
  }
  res = parts[1]
  for (i = 2; i <= k; i++) res = res "/" parts[i]
  return res
}
function strong(v,   w, i) {
  idx[v] = low[v] = ++counter; stack[++sp] = v; onstack[v] = 1
  for (i = 1; i <= nout[v]; i++) {
    w = out[v, i]
    if (!(w in idx)) { strong(w); if (low[w] < low[v]) low[v] = low[w] }
    else if (onstack[w] && idx[w] < low[v]) low[v] = idx[w]
  }
  if (low[v] == idx[v]) {
    ncomp++
    do { w = stack[sp--]; onstack[w] = 0; comp[w] = ncomp; size[ncomp]++ } while (w != v)
  }
}
# cycle(s): the shortest cycle from s back to s inside its component (breadth first), written
# from its alphabetically first module so the same cycle found from two modules reads the same.
function cycle(s,   head, tail, q, prev, seen, v, w, i, k, n, back, ring, first, path) {
  head = 1; tail = 0; q[++tail] = s
  while (head <= tail) {
    v = q[head++]
    for (i = 1; i <= nout[v]; i++) {
      w = out[v, i]
      if (comp[w] != comp[s]) continue
      if (w == s) {
        n = 0
        for (; v != s; v = prev[v]) back[++n] = v
        ring[1] = s
        for (k = 1; k <= n; k++) ring[k + 1] = back[n + 1 - k]
        n++
        first = 1
        for (k = 2; k <= n; k++) if (ring[k] < ring[first]) first = k
        path = ring[first]
        for (k = 1; k < n; k++) path = path " -> " ring[(first - 1 + k) % n + 1]
        return path " -> " ring[first]
      }
      if (!(w in seen)) { seen[w] = 1; prev[w] = v; q[++tail] = w }
    }
  }
  return ""
}
BEGIN {
  n = split(ENVIRON["GS_RULE_TYPE_HEADERS"], tl, " ")
  for (i = 1; i <= n; i++) typeh["src/" tl[i]] = 1
  n = split(ENVIRON["GS_RULE_FILES"], fl, "\n")
  for (i = 1; i <= n; i++) if (fl[i] != "") { m = base(fl[i]); if (!(m in known)) { known[m] = 1; mods[++nm] = m } }
}
{
  f = $1; r = norm($2); a = base(f); b = base(r)
  if (f ~ /^src\// && r ~ /^cuda\// && f !~ /^src\/gs_backend_cuda[^\/]*\.[ch]$/) {
    print "layering: " f " includes " r; bad = 1
  }
  if (f ~ /^cuda\// && r ~ /^src\// && !(r in typeh)) {
    print "layering: " f " includes " r ", not a shared type header"; bad = 1
  }
  if ((f in typeh) && r ~ /^src\// && !(r in typeh)) {
    print "layering: " f ", a shared type header, includes " r; bad = 1
  }
  if (f ~ /^(src|cuda)\// && r ~ /^tests\//) {
    print "layering: " f " includes " r ", a test header"; bad = 1
  }
  if (f ~ /^tests\// && f !~ /^tests\/gpu\// && r ~ /^cuda\//) {
    print "layering: " f " includes " r " outside tests/gpu/"; bad = 1
  }
  if (b !~ /^gs_/ || r !~ /\.(h|cuh)$/ || a == b || !(b in known)) next
  if ((a, b) in edge) next
  edge[a, b] = 1; out[a, ++nout[a]] = b
}
END {
  # sort modules and adjacency lists so the output does not depend on file order
  for (i = 2; i <= nm; i++) for (j = i; j > 1 && mods[j - 1] > mods[j]; j--) { t = mods[j]; mods[j] = mods[j - 1]; mods[j - 1] = t }
  for (i = 1; i <= nm; i++) {
    v = mods[i]
    for (k = 2; k <= nout[v]; k++) for (j = k; j > 1 && out[v, j - 1] > out[v, j]; j--) { t = out[v, j]; out[v, j] = out[v, j - 1]; out[v, j - 1] = t }
  }
  for (i = 1; i <= nm; i++) if (!(mods[i] in idx)) strong(mods[i])
  for (i = 1; i <= nm; i++) {
    v = mods[i]
    if (size[comp[v]] < 2) continue
    c = cycle(v)
    if (c in printed) continue
    printed[c] = 1; print "include cycle: " c; bad = 1
  }
  exit bad
}'
