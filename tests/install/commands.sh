#!/bin/sh
# The installed commands and their man pages: gpusim, gpusim-scaling and gpusim-plot are on the
# installation's PATH and answer --help (exit 0, naming themselves, every option their man page
# has in its OPTIONS section and no other); each man page is installed under man1 with its
# command's name, and renders where man is here (man -l, warnings are failures).
. "$GS_TEST_LIB"
. "${GS_TEST_LIB%/*}/install/gs_install_lib.sh"
for c in gpusim gpusim-scaling gpusim-plot; do
  [ "$(command -v $c)" = "$GS_INST_BINDIR/$c" ] || gs_fail "$c on PATH is '$(command -v $c)', not $GS_INST_BINDIR/$c"
  help=$($c --help 2>&1) || { rc=$?; echo "$help"; gs_fail "$c --help: exit status $rc"; }
  echo "$help" | head -1 | grep -E "^[Uu]sage: (mpirun -np N )?$c( |$)" >/dev/null || { echo "$help"; gs_fail "$c --help: no usage line naming $c"; }
  man=$GS_INST_MANDIR/man1/$c.1
  [ -f "$man" ] || gs_fail "no man page $man"
  grep "^\.TH $(echo $c | tr a-z A-Z) 1 " "$man" >/dev/null || gs_fail "$man: no .TH line for $c"
  if command -v man >/dev/null 2>&1; then
    warn=$(MANWIDTH=100 LC_ALL=C man --warnings -l "$man" 2>&1 >/dev/null) || gs_fail "man -l $man: exit status $?"
    [ -z "$warn" ] || { echo "$warn"; gs_fail "man -l $man: warnings"; }
  fi
  # gpusim's man page and --help are held to each other by tests/mpi/man_page.sh; the two scripts'
  # here: the options of the man page's OPTIONS section (.TP items) against --help's.
  [ $c = gpusim ] && continue
  opts_man=$(sed 's/\\-/-/g' "$man" | awk '/^\.SH/ { on = ($0 == ".SH OPTIONS"); prev = ""; next }
    on && prev == ".TP" { print } { prev = $0 }' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
  opts_help=$(echo "$help" | grep -oE -- '^  (-h, )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
  [ -n "$opts_help" ] && [ "$opts_man" = "$opts_help" ] ||
    gs_fail "$c: man page OPTIONS '$(echo $opts_man)', --help '$(echo $opts_help)'"
  echo "ok: $c: --help and $man ($(echo $opts_help | wc -w) options)"
  # The installed gpusim-scaling runs the installed gpusim, wherever it is run from: its --help
  # above (exit status checked there), not a second run whose status a pipe would hide. (--help
  # wraps a long path at its hyphens: compared without blanks.)
  [ $c = gpusim-scaling ] || continue
  printf '%s\n' "$help" | tr -d ' \n' | grep -F "[\$GPUSIM,$(echo "$GS_INST_BINDIR" | tr -d ' ')/gpusim]" >/dev/null ||
    gs_fail "gpusim-scaling --help: --gpusim's default is not the installed gpusim"
done
echo "PASS"
