#!/bin/sh
# gs_rule_length.sh SRCROOT: no function in SRCROOT's src/, cuda/ or tests/ (*.c *.cu *.cuh *.h,
# tests/ recursively but not tests/rules/fixtures) is longer than GS_MAX_FUNCTION_LINES (80).
#
# A function is counted from the first line of its signature (a `template <...>` line of its own
# included) to the line of the brace that closes its body. The rule reads braces, not layout, so
# it holds however the code is formatted: comments and string and character literals are taken
# out first, then every { and } is matched. Scopes that hold definitions are walked into: the file,
# `namespace` and `extern "C"` blocks (their functions counted one by one) and struct, class and
# union bodies (member functions defined inside count as functions). A { opens a function body
# when what precedes it (since the last ;, { or }, a blank line or a preprocessor line) ends in a
# parameter list, with template headers (default arguments included) and attributes
# (__attribute__, __launch_bounds__, alignas, [[...]]) taken out first, or is a lambda assigned
# to a name; a bare = before it makes it an initialiser (a table of function pointers is no
# function), and an enum body is none either. Whatever lies inside a function (lambdas, local
# structs) counts toward that function.
#
# Preprocessor lines are no code. The branches of an #if are read as alternatives: each #elif and
# #else starts again from the braces as they stood at the #if, so a signature written twice under
# #ifdef does not unbalance them; an #if 0 branch is not read. A file whose braces still do not
# balance is an offence of its own: the rule says it cannot read it rather than pass it.
#
# Exit 0 clean, 1 with one line per offender, 2 on bad usage.
set -u
root=${1:?usage: gs_rule_length.sh SRCROOT}
limit=${GS_MAX_FUNCTION_LINES:-80}
case $limit in '' | *[!0-9]*) echo "gs_rule_length: GS_MAX_FUNCTION_LINES='$limit' is not a number" >&2; exit 2 ;; esac
cd "$root" || exit 2
dirs=
for d in src cuda tests; do [ -d "$d" ] && dirs="$dirs $d"; done
[ -n "$dirs" ] || { echo "gs_rule_length: no src/, cuda/ or tests/ under $root" >&2; exit 2; }
# shellcheck disable=SC2086 # $dirs is a list of plain directory names
files=$(find $dirs -path tests/rules/fixtures -prune -o -type f \
  \( -name '*.c' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) -print | LC_ALL=C sort)
[ -n "$files" ] || { echo "gs_rule_length: no sources under $root" >&2; exit 2; }

# shellcheck disable=SC2086 # one argument per file name (no blanks in source names)
awk -v limit="$limit" -v q="'" '
BEGIN { special = "[/\"" q "]" }
# Per file: d scopes open (kind[1..d]: top, wrap, type, func, blk, skip, init), the head (the
# text since the last ;, { or } of a scope that holds definitions) and its first line hstart.
function start_file() {
  d = 0; kind[0] = "top"; over = 0; comment = 0; cont = 0; pl = 0; dead = 0; head = ""; hstart = 0
}
function end_file() {
  if (file != "" && (d || over)) {
    printf "%s: braces do not balance (%d open at the end, %d closed too many): " \
      "the length rule cannot read it\n", file, d, over
    bad = 1
  }
}
FNR == 1 { end_file(); file = FILENAME; start_file() }
function member() { return kind[d] == "top" || kind[d] == "wrap" || kind[d] == "type" }
function forget() { if (member()) { head = ""; hstart = 0 } }

# clean(s): s with comments blanked, a string read as "" and a character as 0; a block comment
# left open carries to the next line in `comment`.
function clean(s,   out, j, c, k, n) {
  out = ""
  while (s != "") {
    if (comment) {
      j = index(s, "*/")
      if (!j) return out
      comment = 0; s = substr(s, j + 2); out = out " "; continue
    }
    j = match(s, special)
    if (!j) return out s
    out = out substr(s, 1, j - 1); c = substr(s, j, 1); s = substr(s, j + 1)
    if (c == "/") {
      if (substr(s, 1, 1) == "/") return out
      if (substr(s, 1, 1) == "*") { comment = 1; s = substr(s, 2); continue }
      out = out c; continue
    }
    if (c == q && out ~ /[0-9]$/ && s ~ /^[0-9A-Fa-f]/) { out = out c; continue } # a digit separator
    n = length(s)
    for (k = 1; k <= n; k++) { j = substr(s, k, 1); if (j == "\\") k++; else if (j == c) break }
    s = substr(s, k + 1); out = out (c == q ? "0" : "\"\"")
  }
  return out
}

# The branches of an #if start from the scopes as they stood at the #if.
function save(p,   i) {
  sd[p] = d; sh[p] = head; shs[p] = hstart
  for (i = 1; i <= d; i++) { sk[p, i] = kind[i]; ss[p, i] = fstart[i]; sn[p, i] = fname[i] }
}
function restore(p,   i) {
  d = sd[p]; head = sh[p]; hstart = shs[p]
  for (i = 1; i <= d; i++) { kind[i] = sk[p, i]; fstart[i] = ss[p, i]; fname[i] = sn[p, i] }
}
function directive(s,   w) {
  w = s; sub(/^[ \t]*#[ \t]*/, "", w); sub(/[^a-z].*/, "", w)
  if (w ~ /^if/) {
    pl++; save(pl)
    if (!dead && s ~ /^[ \t]*#[ \t]*if[ \t]+0[ \t]*$/) dead = pl
  } else if (w ~ /^el/ && pl > 0) {
    if (dead == pl) dead = 0
    if (!dead) restore(pl)
  } else if (w == "endif" && pl > 0) {
    if (dead == pl) dead = 0
    pl--
  }
  if (!dead) forget()
}

# Reading a head. unwrap(h, pos): what follows the <...> or (...) that opens at pos.
function unwrap(h, pos,   n, k, c, a, p) {
  n = length(h); a = 0; p = 0
  for (k = pos; k <= n; k++) {
    c = substr(h, k, 1)
    if (c == "(") p++
    else if (c == ")") p--
    else if (c == "<" && p == 0) a++
    else if (c == ">" && p == 0) a--
    if (a == 0 && p == 0) break
  }
  return substr(h, k + 1)
}
function drop(h, kw,   i, rest) {
  while ((i = index(h, kw)) > 0) {
    rest = substr(h, i + length(kw)); sub(/^[ \t]*/, "", rest)
    if (substr(rest, 1, 1) == "(") rest = unwrap(rest, 1)
    h = substr(h, 1, i - 1) " " rest
  }
  return h
}
# strip(h): h without template headers, attributes and an access label
function strip(h) {
  while (match(h, /^[ \t]*template[ \t]*</)) h = unwrap(h, RLENGTH)
  gsub(/\[\[[^\]]*\]\]/, " ", h)
  h = drop(h, "__attribute__"); h = drop(h, "__launch_bounds__"); h = drop(h, "__align__")
  h = drop(h, "__declspec"); h = drop(h, "_Alignas"); h = drop(h, "alignas")
  sub(/^[ \t]*(public|private|protected)[ \t]*:/, "", h)
  return h
}
# a bare = outside parentheses: an initialiser (operator= and comparisons are no =)
function assigns(h) {
  gsub(/operator[ \t]*\([ \t]*\)/, "operator", h)
  gsub(/operator[ \t]*[^ \tA-Za-z0-9_(]+/, "operator", h)
  while (gsub(/\([^()]*\)/, "", h)) {}
  gsub(/[=!<>]=/, "", h)
  return h ~ /=/
}
# the name defined: the identifier before the parameter list
function name(h) {
  sub(/\(.*/, "", h); sub(/[ \t*&]+$/, "", h); sub(/.*[^A-Za-z0-9_:~]/, "", h); sub(/^:+/, "", h)
  return h == "" ? "a function" : h
}
function open(   h, k, fn) {
  if (!member()) { kind[++d] = "blk"; return }
  h = strip(head)
  # a brace initialiser in the member list of a constructor (X() : a{0} {): the signature goes on
  if (h ~ /\)[ \t]*:[^:]/ && h ~ /[A-Za-z0-9_>][ \t]*$/ && !assigns(h)) { kind[++d] = "init"; return }
  if (h ~ /^[ \t]*(inline[ \t]+)?namespace([ \t]+[A-Za-z_][A-Za-z0-9_:]*)?[ \t]*$/) k = "wrap"
  else if (h ~ /^[ \t]*extern[ \t]*""[ \t]*$/) k = "wrap"
  else if (h ~ /=[ \t]*\[[^\]]*\][^=]*$/) { # a lambda given a name
    k = "func"; fn = h; sub(/[ \t]*=[ \t]*\[.*/, "", fn); fn = name(fn)
  }
  else if (assigns(h)) k = "skip"
  else if (h ~ /\)[ \t]*(const|volatile|noexcept|override|final|mutable|&|[ \t])*$/) { k = "func"; fn = name(h) }
  else if (h ~ /\)[^()]*->[^()]*$/ || h ~ /\)[ \t]*:[^:]/) { k = "func"; fn = name(h) } # -> type, X() : a(0)
  else if (h ~ /(^|[^A-Za-z0-9_])enum([^A-Za-z0-9_]|$)/) k = "skip"
  else if (h ~ /(^|[^A-Za-z0-9_])(struct|class|union)([^A-Za-z0-9_]|$)/) k = "type"
  else if (h ~ /\(/) { k = "func"; fn = name(h) } # a signature followed by a macro
  else k = "skip"
  kind[++d] = k
  if (k == "func") { fstart[d] = hstart ? hstart : FNR; fname[d] = fn }
  head = ""; hstart = 0
}
function shut(   k, n) {
  if (d == 0) { over++; return } # a } too many: reported at the end of the file
  k = kind[d]
  if (k == "func" && (n = FNR - fstart[d] + 1) > limit) {
    printf "%s:%d: %s is %d lines (limit %d)\n", FILENAME, fstart[d], fname[d], n, limit; bad = 1
  }
  d--
  if (k == "init") head = head "{}"
  else forget()
}
function code(s,   j, seg, c) {
  while (s != "") {
    j = match(s, /[{};]/)
    if (j) { seg = substr(s, 1, j - 1); c = substr(s, j, 1); s = substr(s, j + 1) } else { seg = s; s = "" }
    if (member() && seg ~ /[^ \t]/) {
      if (hstart || seg !~ /^[ \t]*(public|private|protected)[ \t]*:[ \t]*$/) { # an access label starts none
        if (!hstart) hstart = FNR
        head = head " " seg
      }
    }
    if (!j) break
    if (c == "{") open()
    else if (c == "}") shut()
    else forget()
  }
}
{ line = $0 }
cont { cont = (line ~ /\\$/); clean(line); next }               # a directive continued
!comment && line ~ /^[ \t]*#/ { cont = (line ~ /\\$/); directive(line); clean(line); next }
dead { clean(line); next }
{ s = clean(line) }
line ~ /^[ \t]*$/ { forget(); next }
{ code(s) }
END { end_file(); exit bad }' $files
