#!/bin/bash
# The installed environment module, GS_INST_MODULEDIR/gpusim/VERSION, made by make with this
# installation's directories: a Tcl modulefile naming the installed bin, man and templates
# directories. Then, with every module system found here (Environment Modules, Lmod), in a login
# shell's clean environment: `module use DIR; module load gpusim` puts the installed gpusim first
# on PATH, its man pages on MANPATH (man finds gpusim-scaling(1), and still the system's pages
# where it found them before)
# and GPUSIM_JOB_TEMPLATES on the templates; `module unload gpusim` takes all of it back. Skips
# (77) after the file's checks where no module system is installed (Debian: environment-modules
# or lmod).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$GS_TEST_LIB"
. "${GS_TEST_LIB%/*}/install/gs_install_lib.sh"
m=$GS_INST_MODULEDIR/gpusim/$GS_INST_VERSION
[ -f "$m" ] || gs_fail "no modulefile $m"
[ "$(head -1 "$m")" = '#%Module1.0' ] || gs_fail "$m: not a Tcl modulefile (first line '$(head -1 "$m")')"
for l in "prepend-path PATH $GS_INST_BINDIR" "prepend-path MANPATH $GS_INST_MANDIR" "setenv GPUSIM_JOB_TEMPLATES $GS_INST_JOBSDIR"; do
  grep -Fx "$l" "$m" >/dev/null || gs_fail "$m: no line '$l'"
done
grep '%[a-z]*%' "$m" && gs_fail "$m: placeholders left (lines above)"
echo "ok: $m names the installed directories"

inits=
for i in /usr/share/modules/init/bash /usr/share/lmod/lmod/init/bash ${MODULESHOME:+$MODULESHOME/init/bash}; do
  [ -f "$i" ] && case " $inits " in *" $i "*) ;; *) inits="$inits $i" ;; esac
done
[ -n "$inits" ] || gs_skip "no module system here (Debian: environment-modules or lmod): the module is not loaded (its file's checks passed)"
for init in $inits; do
  out=$(env -i HOME="$GS_INST_TMP" PATH=/usr/bin:/bin bash -c '
    . "$1" || exit 1
    command -v man >/dev/null && man -w ls >/dev/null 2>&1 && echo "system man pages before: yes"
    module use "$2" && module load gpusim || exit 1
    echo "gpusim=$(command -v gpusim)"
    echo "templates=$GPUSIM_JOB_TEMPLATES"
    command -v man >/dev/null && { echo "man=$(man -w gpusim-scaling)"; man -w ls >/dev/null && echo "system man pages after: yes"; }
    module unload gpusim || exit 1
    echo "after unload: gpusim=$(command -v gpusim) templates=${GPUSIM_JOB_TEMPLATES:-}"
  ' sh "$init" "$GS_INST_MODULEDIR" 2>&1)
  rc=$?
  echo "$out"
  [ $rc = 0 ] || gs_fail "$init: module load gpusim: exit status $rc"
  echo "$out" | grep -Fx "gpusim=$GS_INST_BINDIR/gpusim" >/dev/null || gs_fail "$init: gpusim is not the installed one"
  echo "$out" | grep -Fx "templates=$GS_INST_JOBSDIR" >/dev/null || gs_fail "$init: GPUSIM_JOB_TEMPLATES"
  if echo "$out" | grep '^man=' >/dev/null; then
    echo "$out" | grep -Fx "man=$GS_INST_MANDIR/man1/gpusim-scaling.1" >/dev/null || gs_fail "$init: man does not find the installed gpusim-scaling(1)"
    ! echo "$out" | grep -Fx "system man pages before: yes" >/dev/null || echo "$out" | grep -Fx "system man pages after: yes" >/dev/null ||
      gs_fail "$init: with the module loaded, man no longer finds ls(1)"
  fi
  echo "$out" | grep -Fx "after unload: gpusim= templates=" >/dev/null || gs_fail "$init: module unload gpusim left gpusim or GPUSIM_JOB_TEMPLATES"
  echo "ok: $init: module load gpusim / unload"
done
echo "PASS"
