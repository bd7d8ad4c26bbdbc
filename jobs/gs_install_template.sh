#!/bin/sh
# gs_install_template.sh BINDIR JOBSDIR VERSION SRC DEST: the batch script SRC (jobs/slurm, pbs or
# tsubame) as the template `make install` puts at DEST, under JOBSDIR ($(pkgdatadir)/jobs).
#
# In the source tree a script finds gpusim on PATH or as ./gpusim in the submit directory, and
# the TSUBAME scripts and scaling.sbatch find their helpers in the submit directory's jobs/. A
# template must run as it is from a copy in any directory of a user's, so it takes instead:
#   - gpusim:      BINDIR/gpusim, the installed one (GPUSIM still overrides it);
#   - TSUBAME:     the shared part JOBSDIR/tsubame/gs_tsubame.sh where neither GPUSIM_JOBS nor
#                  the script's own directory has it (Grid Engine runs a copy from its spool);
#   - the sweep:   BINDIR/gpusim-scaling, the installed sweep driver, in scaling.sbatch.
# A comment after the #! line says that it is a template and where the defaults point. Each edit
# must find its line in the scripts that have one (a script changed without this file would
# otherwise install a template that still looks for ./gpusim): exit 1, naming the edit, if not.
set -u
[ $# = 5 ] || { echo "usage: gs_install_template.sh BINDIR JOBSDIR VERSION SRC DEST" >&2; exit 2; }
bindir=$1 jobsdir=$2 version=$3 src=$4 dest=$5
fail() { echo "gs_install_template.sh: $src: $*" >&2; exit 1; }
# sed replacements: a "|" or "\" or "&" in the directories would be read by sed, not copied
case "$bindir$jobsdir" in *'|'* | *'\'* | *'&'*) fail "a directory with |, \\ or & in its name: $bindir $jobsdir" ;; esac
[ -f "$src" ] || fail "no such file"

# The lines edited, as the scripts have them (fixed strings, each on a line of its own).
gpusim_line=': "${GPUSIM:=$(command -v gpusim || echo "'
tsubame_line='  gs_lib=${SGE_O_WORKDIR:-$PWD}/jobs/tsubame/gs_tsubame.sh'
sweep_line='sweep_py=$GPUSIM_JOBS/scaling/sweep.py'
has() { grep -F -x -e "$1" "$src" >/dev/null; }
case $src in
  */tsubame/gs_tsubame.sh | */slurm/* | */pbs/*) grep -F -e "$gpusim_line" "$src" >/dev/null || fail "no GPUSIM default to edit" ;;
  */tsubame/*) has "$tsubame_line" || fail "no gs_tsubame.sh fallback to edit" ;;
  *) fail "not a SLURM, PBS or TSUBAME script" ;;
esac
case $src in */slurm/scaling.sbatch) has "$sweep_line" || fail "no sweep.py line to edit" ;; esac

note="# Installed template of gpusim $version: copy it into a directory of yours, edit, submit the copy
# from there. gpusim is $bindir/gpusim unless GPUSIM says otherwise; the commands below show the
# source tree's paths (jobs/...): submit your copy instead."
case $src in */gs_tsubame.sh) note="# Installed with the TSUBAME templates of gpusim $version, which source it from here
# unless GPUSIM_JOBS names another jobs/ directory. gpusim is $bindir/gpusim unless GPUSIM says
# otherwise." ;;
esac
sed -e "1a\\
$(echo "$note" | sed '$!s/$/\\/')
" \
  -e "s|^: \"\${GPUSIM:=\$(command -v gpusim .* echo \"[^\"]*\")}\"\$|: \"\${GPUSIM:=$bindir/gpusim}\"|" \
  -e "s|^  gs_lib=\${SGE_O_WORKDIR:-\$PWD}/jobs/tsubame/gs_tsubame.sh\$|  gs_lib=$jobsdir/tsubame/gs_tsubame.sh|" \
  -e "s|^sweep_py=\$GPUSIM_JOBS/scaling/sweep.py\$|sweep_py=$bindir/gpusim-scaling|" \
  -e "s|\[gpusim on PATH, else ./gpusim in the submit directory\]|[$bindir/gpusim]|" \
  "$src" >"$dest" || fail "sed"
# What must have changed did: no edited line is left as it was.
for l in "$tsubame_line" "$sweep_line"; do
  grep -F -x -e "$l" "$dest" >/dev/null && fail "'$l' left unedited"
done
grep -F -e "$gpusim_line" "$dest" >/dev/null && fail "the GPUSIM default left unedited"
exit 0
