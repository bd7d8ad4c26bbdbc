#!/bin/sh
# gs_rule_length.sh SRCROOT: no function in SRCROOT's src/, cuda/ or tests/ (*.c *.cu *.cuh *.h,
# tests/ recursively but not tests/rules/fixtures) is longer than GS_MAX_FUNCTION_LINES (80).
#
# The sources are clang-formatted (.clang-format: LLVM, attached braces), which makes the shape
# of a definition plain text: it starts at column 0 (a `template <...>` or `extern "C"` line of
# its own counts as its first line), its last signature line ends with `{`, and its body ends at
# the next `}` in column 0. Lines are counted from the first signature line to that brace. Only
# a top-level `{` right after a `)` opens a function (and no `=` comes before the first `(`); a
# struct, enum or union (`... name {`) or an initialiser table (`... = {`) is no function, and an
# `extern "C" {` block is a wrapper whose functions are counted one by one. A blank line, a preprocessor line or a `;` ends a
# declaration that was not a definition.
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
awk -v limit="$limit" '
FNR == 1 { start = 0; body = 0; cont = 0; comment = 0 }
# the name defined: the identifier before the parameter list, attributes taken out first
function name(h) {
  gsub(/__(launch_bounds|attribute|align)__ *\(\([^)]*\)\)|__(launch_bounds|align)__ *\([^)]*\)/, " ", h)
  sub(/\(.*/, "", h)
  sub(/[ \t*&]+$/, "", h)
  sub(/.*[^A-Za-z0-9_:~]/, "", h)
  return h
}
{ line = $0 }
cont { cont = (line ~ /\\$/); next }                  # continuation of a preprocessor line
body {                                                # inside a top-level { block
  if (line !~ /^}/) next
  n = FNR - start + 1
  if (fn != "" && n > limit) { printf "%s:%d: %s is %d lines (limit %d)\n", FILENAME, start, fn, n, limit; bad = 1 }
  body = 0; start = 0; next
}
/^[ \t]*#/ { cont = (line ~ /\\$/); start = 0; next }  # preprocessor: no definition spans one
/^[ \t]*$/ { start = 0; next }
comment { comment = (line !~ /\*\//); next }          # inside a block comment
/^[ \t]*\/\*/ { comment = (line !~ /\*\//); next }
/^[ \t]*\/\// { next }
/^}/ { start = 0; next }                               # end of an extern "C" block
/^[^ \t]/ && !start { start = FNR; head = "" }
!start { next }
{
  sub(/[ \t]*\/\/.*$/, "", line)
  head = head " " line
  if (head ~ /^[ \t]*extern[ \t]+"C"[ \t]*\{[ \t]*$/) { start = 0; next }
  if (line ~ /;[ \t]*$/ || line ~ /}[ \t]*;?[ \t]*$/) { start = 0; next } # declaration, one-line body
  if (line !~ /\{[ \t]*$/) next
  pre = head; sub(/\(.*/, "", pre)
  fn = (head ~ /\)[ \t]*\{[ \t]*$/ && pre !~ /=/) ? name(head) : ""
  body = 1
}
END { exit bad }' $files
