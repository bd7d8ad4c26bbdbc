#!/bin/sh
# docs/gpusim.1 against the program's own --help, which the workload table drives: its SUBCOMMANDS
# are the program's, its COMMON OPTIONS section lists exactly what `gpusim --help` lists, and for
# every subcommand with options a section "NAME OPTIONS" lists exactly what `gpusim NAME --help`
# lists; every option it mentions anywhere exists; its ENVIRONMENT names the GPUSIM_ variables
# that `gpusim --help` lists. A new workload, a new or renamed option or variable fails here until
# the man page has it.
. "$GS_TEST_LIB"
man="${GS_TEST_LIB%/*}/../docs/gpusim.1"
[ -f "$man" ] || gs_hard "no man page at $man"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# man_items SECTION: the options (or, for SUBCOMMANDS, the words) on the .TP lines of a section.
man_items() {
  sed 's/\\-/-/g' "$man" | awk -v s="$1" '/^\.SH/ { on = ($0 == ".SH " s); prev = ""; next }
    on && prev == ".TP" { print } { prev = $0 }' | sed 's/^\.[A-Z]* //' |
    if [ "$1" = SUBCOMMANDS ]; then awk '{ print $1 }'; else grep -oE -- '--[a-z][a-z0-9-]*'; fi | sort -u
}
# help_items ARGS HEADING: the items of `gpusim ARGS --help` under the line that starts HEADING.
help_items() {
  "$GPUSIM" $1 --help >"$tmp/help" 2>&1 || { cat "$tmp/help"; gs_fail "gpusim $1 --help: exit status"; }
  awk -v h="$2" 'index($0, h) == 1 { on = 1; next } /^[A-Z]/ { on = 0 } on && /^  [a-z-]/ { print $1 }' "$tmp/help" | sort -u
}
# same WHAT MAN_LIST HELP_LIST: the two lists are equal, else each one's extras are shown.
same() {
  [ -n "$2" ] || gs_fail "$1: nothing found in the man page"
  [ "$2" = "$3" ] && { echo "ok: $1: $(echo $2)"; return; }
  echo "$2" >"$tmp/a"
  echo "$3" >"$tmp/b"
  gs_fail "$1: only in the man page: $(comm -23 "$tmp/a" "$tmp/b" | tr '\n' ' '); only in --help: $(comm -13 "$tmp/a" "$tmp/b" | tr '\n' ' ')"
}
subs=$(help_items "" Subcommands:)
[ -n "$subs" ] || gs_fail "gpusim --help lists no subcommands"
same "subcommands" "$(man_items SUBCOMMANDS)" "$subs"
same "common options" "$(man_items 'COMMON OPTIONS')" "$(help_items "" 'Common options')"
: >"$tmp/all"
for sub in $subs; do
  opts=$(help_items $sub Options:)
  [ -n "$opts" ] || continue # no options of its own (info)
  same "$sub options" "$(man_items "$(echo $sub | tr a-z A-Z) OPTIONS")" "$opts"
  echo "$opts" >>"$tmp/all"
done
# (grep -f: the lists are files, so an option is never taken for one of grep's own.)
man_items 'COMMON OPTIONS' >"$tmp/common"
for sub in $subs; do
  help_items $sub 'Common options' >"$tmp/sub"
  [ -s "$tmp/sub" ] || gs_fail "gpusim $sub --help: no common options found"
  extra=$(grep -vxFf "$tmp/common" "$tmp/sub")
  [ -z "$extra" ] || gs_fail "gpusim $sub --help has common options the man page lacks: $extra"
done
# The environment: the GPUSIM_ variables `gpusim --help` lists are those of the man page's ENVIRONMENT.
"$GPUSIM" --help >"$tmp/help" 2>&1 || gs_fail "gpusim --help: exit status"
help_env=$(awk '/^Environment:/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$tmp/help" | grep -oE 'GPUSIM_[A-Z0-9_]+' | sort -u)
man_env=$(sed 's/\\-/-/g' "$man" | awk '/^\.SH/ { on = ($0 == ".SH ENVIRONMENT"); next } on' | grep -oE 'GPUSIM_[A-Z0-9_]+' | sort -u)
same "environment" "$man_env" "$help_env"
# Every option the man page mentions anywhere is one of the program's.
help_items "" 'Common options' >>"$tmp/all"
sort -u -o "$tmp/all" "$tmp/all"
stale=$(sed 's/\\-/-/g' "$man" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u | grep -vxFf "$tmp/all")
[ -z "$stale" ] || gs_fail "the man page mentions options gpusim does not have: $(echo $stale)"
echo "PASS"
