#!/bin/bash
# The batch scripts under jobs/ without a batch system: every script parses (bash -n), its
# directives are well formed and consistent (one rank per GPU), its header says how to submit it
# and what to edit, the shared job block is the same in every script of a directory, and no
# user path is hard-coded. Then the PBS and TSUBAME scripts run for real on this machine, with
# the environment their batch systems would give them (a PBS_NODEFILE; NHOSTS and a stand-in
# `module`), on 2 ranks of the CPU backend, including USR1 handling.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$GS_TEST_LIB"
. "$(dirname "$0")/examples_lib.sh"
top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
jobs=$top/jobs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

slurm=$(ls "$jobs"/slurm/*.sbatch)
pbs=$(ls "$jobs"/pbs/*.pbs)
# The TSUBAME scripts share jobs/tsubame/gs_tsubame.sh (sourced, not a job script of its own).
tslib=$jobs/tsubame/gs_tsubame.sh
[ -f "$tslib" ] || gs_fail "no $tslib"
tsubame=$(ls "$jobs"/tsubame/*.sh | grep -v '/gs_tsubame\.sh$')
[ "$(echo $slurm | wc -w)" = 7 ] || gs_fail "want 7 SLURM scripts, found: $slurm"
[ "$(echo $pbs | wc -w)" = 3 ] || gs_fail "want 3 PBS scripts, found: $pbs"
[ "$(echo $tsubame | wc -w)" = 3 ] || gs_fail "want 3 TSUBAME scripts, found: $tsubame"

bench=$(ls "$jobs"/bench/*.sh)
[ "$(echo $bench | wc -w)" -ge 5 ] || gs_fail "want 5 or more benchmark scripts, found: $bench"
for f in $slurm $pbs $tsubame "$tslib" $bench; do
  bash -n "$f" || gs_fail "$f: bash -n"
done
# The benchmark scripts (jobs/bench, run by hand on a GPU node) use only options that gpusim has,
# besides mpirun's and configure's own, and those of the scaling driver and plots where they call them.
"$GPUSIM" reduce --help >"$tmp/help" && "$GPUSIM" nbody --help >>"$tmp/help" || gs_fail "gpusim --help"
"$GPUSIM" matmul --help >>"$tmp/help" || gs_fail "gpusim matmul --help"
if command -v python3 >/dev/null 2>&1; then
  python3 "$jobs/scaling/sweep.py" --help >>"$tmp/help" || gs_fail "sweep.py --help"
  python3 "$jobs/scaling/plot.py" --help >>"$tmp/help" 2>/dev/null || true # without matplotlib too
fi
for o in $(grep -ohE -- '--[a-z][a-z0-9-]*' $bench | sort -u); do
  case $o in --allow-run-as-root | --bind-to | --oversubscribe | --with-cuda-arch) continue ;; esac
  grep -qE -- "^  $o( |$)" "$tmp/help" || gs_fail "jobs/bench uses $o, which gpusim reduce/nbody/matmul (or jobs/scaling's scripts) does not have"
done
if command -v python3 >/dev/null 2>&1; then
  for f in "$jobs"/scaling/*.py; do
    python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" || gs_fail "$f: syntax"
  done
fi
echo "ok: every script parses"

# directives FILE PREFIX: the directive lines, after checking that none comes after the first
# command (the batch systems stop reading them there).
directives() {
  awk -v p="$2" -v f="$1" '
    /^[ \t]*$/ || /^#/ {
      if (index($0, p " ") == 1) { if (cmd) { print f ": directive after the first command: " $0 > "/dev/stderr"; exit 1 } print }
      next }
    { cmd = 1 }' "$1"
}
# value FILE PREFIX NAME: the value of one option among the directives
sb() { directives "$1" "#SBATCH" | sed -n "s/^#SBATCH --$2=//p" | head -1; }

for f in $slurm; do
  b=$(basename "$f")
  d=$(directives "$f" "#SBATCH") || gs_fail "$b: directive order"
  echo "$d" | while read -r tag opt; do
    echo "$opt" | grep -Eq '^--[a-z][a-z-]*=[^ ]+$' || { echo "$b: malformed: $tag $opt"; exit 1; }
    name=${opt%%=*}
    val=${opt#*=}
    case $name in
      --job-name) echo "$val" | grep -Eq '^[A-Za-z][A-Za-z0-9_.-]*$' ;;
      --nodes | --ntasks-per-node | --gpus-per-node | --cpus-per-task) echo "$val" | grep -Eq '^[1-9][0-9]*$' ;;
      --time) echo "$val" | grep -Eq '^([0-9]+-)?[0-9]{1,2}:[0-5][0-9]:[0-5][0-9]$' ;;
      --signal) echo "$val" | grep -Eq '^(B:)?(USR1|USR2|TERM)@[0-9]+$' ;;
      # The log in the submit directory is <job name>-<job id>.out (issue 17, item 7: not gpusim-gpusim-...)
      --output) echo "$val" | grep -Eq '^%x-(%j|%A_%a)\.out$' ;;
      --array) echo "$val" | grep -Eq '^[0-9]+-[0-9]+(%[0-9]+)?$' ;;
      *) false ;;
    esac || { echo "$b: bad or unknown directive: $opt"; exit 1; }
  done || gs_fail "$b: directives"
  for need in job-name nodes ntasks-per-node gpus-per-node cpus-per-task time output; do
    [ -n "$(sb "$f" $need)" ] || gs_fail "$b: no --$need"
  done
  [ "$(sb "$f" ntasks-per-node)" = "$(sb "$f" gpus-per-node)" ] || gs_fail "$b: ntasks-per-node != gpus-per-node"
  case $b in
    *_1node.sbatch | sweep_array.sbatch) [ "$(sb "$f" nodes)" = 1 ] || gs_fail "$b: want --nodes=1" ;;
    *) [ "$(sb "$f" nodes)" -ge 2 ] || gs_fail "$b: want --nodes >= 2" ;;
  esac
  case $b in
    scaling.sbatch) ;;
    *) [ "$(sb "$f" signal)" = "B:USR1@120" ] || gs_fail "$b: want --signal=B:USR1@120" ;;
  esac
  grep -q "^#   .*sbatch .*jobs/slurm/$b" "$f" || gs_fail "$b: header has no sbatch command for it"
done
echo "ok: SLURM directives"

for f in $pbs; do
  b=$(basename "$f")
  d=$(directives "$f" "#PBS") || gs_fail "$b: directive order"
  echo "$d" | while read -r tag opt val extra; do
    [ -z "$extra" ] || { echo "$b: malformed: $tag $opt $val $extra"; exit 1; }
    case "$opt $val" in
      "-N "*) echo "$val" | grep -Eq '^[A-Za-z][A-Za-z0-9_.-]{0,14}$' ;;
      "-l select="*) echo "$val" | grep -Eq '^select=[1-9][0-9]*(:(ncpus|ngpus|mpiprocs|ompthreads)=[1-9][0-9]*)+$' ;;
      "-l place="*) echo "$val" | grep -Eq '^place=(free|pack|scatter|vscatter)(:(excl|shared|exclhost))?$' ;;
      "-l walltime="*) echo "$val" | grep -Eq '^walltime=[0-9]+:[0-5][0-9]:[0-5][0-9]$' ;;
      "-j oe" | "-j eo" | "-j n") true ;;
      *) false ;;
    esac || { echo "$b: bad or unknown directive: $opt $val"; exit 1; }
  done || gs_fail "$b: directives"
  sel=$(echo "$d" | sed -n 's/^#PBS -l select=//p')
  get() { echo "$sel" | tr ':' '\n' | sed -n "s/^$1=//p"; }
  [ -n "$(get ncpus)" ] && [ -n "$(get ngpus)" ] && [ -n "$(get mpiprocs)" ] || gs_fail "$b: select needs ncpus, ngpus, mpiprocs"
  [ "$(get mpiprocs)" = "$(get ngpus)" ] || gs_fail "$b: mpiprocs != ngpus (one rank per GPU)"
  omp=$(get ompthreads)
  [ $(($(get mpiprocs) * ${omp:-1})) -le "$(get ncpus)" ] || gs_fail "$b: mpiprocs x ompthreads > ncpus"
  echo "$d" | grep -q '^#PBS -l walltime=' || gs_fail "$b: no walltime"
  grep -q 'mpiexec' "$f" && grep -q 'PBS_NODEFILE' "$f" || gs_fail "$b: not launched by mpiexec on \$PBS_NODEFILE"
  grep -q "^#   .*qsub .*jobs/pbs/$b" "$f" || gs_fail "$b: header has no qsub command for it"
done
echo "ok: PBS directives"

for f in $tsubame; do
  b=$(basename "$f")
  d=$(directives "$f" '#$') || gs_fail "$b: directive order"
  echo "$d" | while read -r tag opt val extra; do
    [ -z "$extra" ] || { echo "$b: malformed: $tag $opt $val $extra"; exit 1; }
    case "$opt $val" in
      "-cwd ") true ;;
      "-N "*) echo "$val" | grep -Eq '^[A-Za-z][A-Za-z0-9_.-]*$' ;;
      "-l node_f="*) echo "$val" | grep -Eq '^node_f=[1-9][0-9]*$' ;;
      "-l h_rt="*) echo "$val" | grep -Eq '^h_rt=[0-9]+:[0-5][0-9]:[0-5][0-9]$' ;;
      "-j y" | "-j n" | "-notify ") true ;;
      *) false ;;
    esac || { echo "$b: bad or unknown directive: $opt $val"; exit 1; }
  done || gs_fail "$b: directives"
  # -notify: USR2 before qdel's or h_rt's SIGKILL, which the scripts trap (issue 32)
  for need in '-cwd' '-l node_f=' '-l h_rt=' '-notify'; do
    echo "$d" | grep -q -- "^#\\\$ $need" || gs_fail "$b: no '#\$ $need'"
  done
  # The script with the shared part it sources.
  grep -q '^\. "$gs_lib"$' "$f" || gs_fail "$b: does not source gs_tsubame.sh"
  cat "$f" "$tslib" >"$tmp/whole"
  grep -q 'GPUSIM_MODULES=cuda openmpi' "$tmp/whole" && grep -q 'module load' "$tmp/whole" || gs_fail "$b: no module load cuda openmpi"
  grep -q -- '-npernode "$GPUSIM_NPERNODE"' "$tmp/whole" && grep -q 'GPUSIM_NPERNODE:=$(gs_node_gpus)' "$tmp/whole" ||
    gs_fail "$b: not mpirun -npernode <GPUs per node>"
  grep -q 'Open MPI is 5' "$tmp/whole" || gs_fail "$b: no note on the site's Open MPI 5"
  grep -q "^#   .*qsub -g GROUP .*jobs/tsubame/$b" "$f" || gs_fail "$b: header has no qsub -g GROUP command for it"
done
echo "ok: TSUBAME (Grid Engine) directives"

# Headers, the shared block, the parameters, and no user's paths.
for f in $slurm $pbs $tsubame; do
  b=${f#"$top"/}
  head -40 "$f" | grep -q '^# Submit' || gs_fail "$b: header does not say how to submit"
  head -40 "$f" | grep -q '^# Edit' || gs_fail "$b: header does not say what to edit"
  shared=
  case $f in "$jobs"/tsubame/*) shared=$tslib ;; esac
  for v in GPUSIM GPUSIM_ARGS GPUSIM_BACKEND GPUSIM_RESULTS; do
    cat "$f" $shared | grep -q "\${$v[:=]" || gs_fail "$b: no default for \$$v"
  done
  grep -nE '/home/|/Users/|/work/|/scratch/|/gs/|~/' "$f" $shared && gs_fail "$b: a hard-coded user path"
done
block() { sed -n '/^# ---- gpusim job block/,/^# ---- end of the gpusim job block/p' "$1"; }
for set in "$slurm" "$pbs" "$tsubame"; do
  first=$(echo $set | cut -d' ' -f1)
  [ -n "$(block "$first")" ] || gs_fail "$first: no job block"
  for f in $set; do
    block "$f" | cmp -s - <(block "$first") || gs_fail "$f: its job block differs from $(basename "$first")'s"
  done
done
echo "ok: headers, shared blocks, parameters, no user paths"
# Every nbody script gives the ranks time to checkpoint after SIGTERM, in one marked place.
for f in "$jobs"/slurm/nbody* "$jobs"/pbs/nbody* "$jobs"/tsubame/nbody* "$jobs"/slurm/sweep_array.sbatch; do
  [ "$(grep -c '^export OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-25}$' "$f")" = 1 ] &&
    grep -q '^# ---- Open MPI: time for the ranks to checkpoint after SIGTERM' "$f" ||
    gs_fail "$f: no (or more than one) marked OMPI_MCA_odls_base_sigkill_timeout setting"
done
echo "ok: nbody scripts set OMPI_MCA_odls_base_sigkill_timeout"

# Every example command of docs/cluster.md and the headers is one a test runs (issue 17): each is
# of a kind some test runs in full, and none hides in the prose outside a ```sh block.
ex=$(gs_examples) || gs_fail "gs_examples"
[ "$(echo "$ex" | wc -l)" -ge 40 ] || { echo "$ex"; gs_fail "fewer than 40 examples found"; }
echo "$ex" | awk -F'\t' '$2 == "unknown"' | grep . && gs_fail "examples above: no test runs them (not sbatch, qsub or python3 jobs/scaling/...)"
awk '/^```/ { inblk = !inblk; next } !inblk' "$top/docs/cluster.md" | grep -nE '`[^`]*(sbatch|qsub|python3) [^`]*jobs/[a-z]+/[a-z0-9_]+\.(sbatch|pbs|sh|py)[^`]*`' &&
  gs_fail "docs/cluster.md: an example command in the prose above, not in a \`\`\`sh block (where the tests find it)"
# The tests run each distinct command once (gs_examples_distinct): none lost, none changed.
cmds() { cut -f2,3 | sed 's/[ 	]*# [^"]*$//' | LC_ALL=C sort -u; }
[ "$(echo "$ex" | cmds)" = "$(gs_examples_distinct | cmds)" ] || gs_fail "gs_examples_distinct: not the commands of gs_examples"
echo "ok: $(echo "$ex" | wc -l) examples ($(gs_examples_distinct | wc -l) distinct commands), each run by a test: $(echo "$ex" | cut -f2 | sort | uniq -c | tr -s ' \n' ' ')"

# ---- PBS and TSUBAME scripts, run here as their batch systems would run them ----
# Without a launcher, or with one the scripts cannot be stood in for here, that part cannot run:
# SKIP (77), not a pass, though every check above passed.
[ -n "${MPIEXEC:-}" ] || gs_skip "no MPI launcher: the PBS and TSUBAME scripts are not run (the static checks passed)"
"$MPIEXEC" --version 2>&1 | grep -q 'Open MPI\|OpenRTE' ||
  gs_skip "$MPIEXEC is not Open MPI: the PBS and TSUBAME scripts are not run (the static checks passed)"
export OMP_NUM_THREADS=1 GPUSIM_BACKEND=cpu GPUSIM_ARGS="--n 1e5 --iters 2 --warmup 1"
hostname >"$tmp/nodefile"
hostname >>"$tmp/nodefile"
mkdir -p "$tmp/pbs" "$tmp/tsubame" "$tmp/bin"
# pbsvars JOB / sgevars JOB: into V, the environment PBS Pro / Grid Engine would give the job.
pbsvars() { V=(PBS_NODEFILE="$tmp/nodefile" PBS_JOBID="$1.pbs.example" PBS_JOBNAME=gpusim-test PATH="$tmp/bin:$PATH"
  PBS_O_WORKDIR="$tmp/pbs" GPUSIM_MPIEXEC="$MPIEXEC" GPUSIM_MPIEXEC_ARGS="$GS_MPIFLAGS"); }
# A stand-in for the site's `module` (an environment-modules shell function there).
printf '#!/bin/sh\necho "module $*" >>"%s"\n' "$tmp/module.log" >"$tmp/bin/module"
# A stand-in qstat, for the scripts' time limit (gs_walltime): Grid Engine's qstat -j ID and PBS's
# qstat -f ID answer with GS_FAKE_HRT / GS_FAKE_WALLTIME where set, else "no such job".
cat >"$tmp/bin/qstat" <<'EOF2'
#!/bin/sh
case "$1" in
  -j) [ -n "${GS_FAKE_HRT:-}" ] && { echo "hard resource_list:         h_rt=$GS_FAKE_HRT,node_f=2"; exit 0; } ;;
  -f) [ -n "${GS_FAKE_WALLTIME:-}" ] && { printf '    Resource_List.walltime = %s\n' "$GS_FAKE_WALLTIME"; exit 0; } ;;
esac
echo "stand-in qstat: no such job" >&2
exit 1
EOF2
chmod +x "$tmp/bin/module" "$tmp/bin/qstat"
sgevars() { V=(JOB_ID="$1" JOB_NAME=gpusim-test NHOSTS=1 SGE_O_WORKDIR="$tmp/tsubame" PATH="$tmp/bin:$PATH"
  GPUSIM_NPERNODE=2 GPUSIM_MPIRUN="$MPIEXEC" GPUSIM_MPIRUN_ARGS="$GS_MPIFLAGS"); }
check_run() { # check_run NAME RC OUTDIR JOBID [WORKLOAD]
  [ "$2" = 0 ] || gs_fail "$1: exit status $2"
  grep -q '^# verification: OK' "$3/${5:-reduce}.out" || gs_fail "$1: not verified"
  grep -q "^# job: 2 rank(s) on 1 node(s), job $4" "$3/${5:-reduce}.out" || gs_fail "$1: want 2 ranks, job $4"
  [ "${5:-reduce}" != matmul ] || grep -q '^# SUMMA: 1 x 2 process grid' "$3/matmul.out" || gs_fail "$1: not a SUMMA run on 2 ranks"
  awk -F, -v j="$4" 'NR > 1 && $6 == -1 && $8 == 2 && $3 == j {n++} END {exit !n}' "$3/results.csv" ||
    gs_fail "$1: no CSV job row for 2 ranks, job $4"
  echo "ok: $1"
}
pbsvars 101
out=$(env "${V[@]}" timeout 120 bash "$jobs/pbs/reduce.pbs" 2>&1)
rc=$?
echo "$out"
check_run "pbs/reduce.pbs" $rc "$tmp/pbs/results/gpusim-test-101" 101.pbs.example
sgevars 102
out=$(env "${V[@]}" timeout 120 bash "$jobs/tsubame/reduce.sh" 2>&1)
rc=$?
echo "$out"
check_run "tsubame/reduce.sh" $rc "$tmp/tsubame/results/gpusim-test-102" 102
# matmul: SUMMA on the 2 ranks' 1 x 2 grid, rows and results like reduce's.
pbsvars 111
out=$(env "${V[@]}" GPUSIM_ARGS="--n 96 --iters 1" timeout 120 bash "$jobs/pbs/matmul.pbs" 2>&1)
rc=$?
echo "$out"
check_run "pbs/matmul.pbs" $rc "$tmp/pbs/results/gpusim-test-111" 111.pbs.example matmul
sgevars 112
out=$(env "${V[@]}" GPUSIM_ARGS="--n 96 --iters 1" timeout 120 bash "$jobs/tsubame/matmul.sh" 2>&1)
rc=$?
echo "$out"
check_run "tsubame/matmul.sh" $rc "$tmp/tsubame/results/gpusim-test-112" 112 matmul
grep -q '^module load cuda openmpi$' "$tmp/module.log" || gs_fail "tsubame: no 'module load cuda openmpi'"
echo "$out" | grep -q -- "-npernode 2 -np 2 " || gs_fail "tsubame: not mpirun -npernode 2 -np 2"

# Launch lines, with a stand-in launcher that shows its arguments and answers --version as
# $FAKE_VERSION says. TSUBAME: ranks per node = the GPUs the job sees (issue 17, item 4); PBS:
# each launcher's own flags (item 8).
cat >"$tmp/bin/fake-launcher" <<'EOF2'
#!/bin/sh
case "$1" in --version | -version | -V) echo "$FAKE_VERSION"; exit 0 ;; esac
echo "fake-launcher: $*"
EOF2
chmod +x "$tmp/bin/fake-launcher"
cp "$tmp/bin/fake-launcher" "$tmp/bin/aprun"
launch() { # launch SCRIPT VAR=VALUE...: the script's launch line
  local s=$1
  shift
  case $s in pbs/*) pbsvars 105 ;; *) sgevars 105 ;; esac
  env "${V[@]}" GPUSIM_MPIRUN="$tmp/bin/fake-launcher" GPUSIM_MPIEXEC="$tmp/bin/fake-launcher" GPUSIM_MPIRUN_ARGS= \
    GPUSIM_MPIEXEC_ARGS= "$@" timeout 60 bash "$jobs/$s" 2>&1 | grep '^fake-launcher: '
}
want_launch() { # want_launch WHAT PATTERN SCRIPT VAR=VALUE...
  local what=$1 pat=$2 got
  shift 2
  got=$(launch "$@")
  echo "$got" | grep -q -- "$pat" || gs_fail "$what: launch line '$got', want '$pat'"
  echo "ok: $what: $got" | cut -c1-150
}
for s in reduce.sh nbody.sh; do
  want_launch "tsubame/$s, 2 GPUs visible" "^fake-launcher: -npernode 2 -np 4 " tsubame/$s GPUSIM_NPERNODE= \
    NHOSTS=2 CUDA_VISIBLE_DEVICES=0,1
  want_launch "tsubame/$s, 1 GPU visible (node_q)" "^fake-launcher: -npernode 1 -np 3 " tsubame/$s GPUSIM_NPERNODE= \
    NHOSTS=3 CUDA_VISIBLE_DEVICES=GPU-1234
  want_launch "tsubame/$s, GPUSIM_NPERNODE=3" "^fake-launcher: -npernode 3 -np 6 " tsubame/$s GPUSIM_NPERNODE=3 \
    NHOSTS=2 CUDA_VISIBLE_DEVICES=0
done
for s in reduce.pbs nbody.pbs; do
  want_launch "pbs/$s, Open MPI" "^fake-launcher: -hostfile $tmp/nodefile -np 2 -x PATH" pbs/$s FAKE_VERSION="mpiexec (OpenRTE) 4.1.4"
  want_launch "pbs/$s, MPICH hydra" "^fake-launcher: -f $tmp/nodefile -n 2 -ppn 2 $GPUSIM " pbs/$s \
    FAKE_VERSION="HYDRA build details:"
  want_launch "pbs/$s, Intel MPI" "^fake-launcher: -f $tmp/nodefile -n 2 -ppn 2 " pbs/$s \
    FAKE_VERSION="Intel(R) MPI Library for Linux* OS, Version 2021.10"
  want_launch "pbs/$s, Cray PALS" "^fake-launcher: --hostfile $tmp/nodefile -n 2 --ppn 2 " pbs/$s \
    GPUSIM_MPIEXEC_KIND=pals
  want_launch "pbs/$s, aprun" "^fake-launcher: -n 2 -N 2 -d 1 " pbs/$s GPUSIM_MPIEXEC="$tmp/bin/aprun"
  want_launch "pbs/$s, none" "^fake-launcher: $GPUSIM " pbs/$s GPUSIM_MPIEXEC_KIND=none
done
# The documented qsub examples, as written, through a stand-in qsub that runs the job at once on
# this host with the environment PBS Pro (2 ranks on a PBS_NODEFILE) or Grid Engine (NHOSTS=1,
# 2 ranks) would give it; -V is required (without it the job would not see GPUSIM and the other
# variables), and so is -g GROUP on TSUBAME.
cat >"$tmp/bin/qsub" <<EOF2
#!/bin/bash
v=no group= script=
while [ \$# -gt 0 ]; do
  case \$1 in
    -V) v=yes ;;
    -q | -A | -P | -l | -N) shift ;;
    -g) group=\$2; shift ;;
    -*) echo "stand-in qsub: unknown option \$1" >&2; exit 2 ;;
    *) script=\$1 ;;
  esac
  shift
done
[ \$v = yes ] || { echo "stand-in qsub: no -V: the job would not see GPUSIM and the other variables" >&2; exit 2; }
[ -f "\$script" ] || { echo "stand-in qsub: no job script '\$script'" >&2; exit 2; }
n=\$(cat "$tmp/qsub.n" 2>/dev/null || echo 2000); echo \$((n + 1)) >"$tmp/qsub.n"
# Like PBS and Grid Engine, run a copy of the script from a spool directory: nothing next to it.
mkdir -p "$tmp/spool/\$n" && cp "\$script" "$tmp/spool/\$n/job" || exit 2
case \$script in
  *.pbs) exec env PBS_NODEFILE="$tmp/nodefile" PBS_JOBID=\$n.stand-in PBS_O_WORKDIR="\$PWD" \\
      PBS_JOBNAME="\$(sed -n 's/^#PBS -N //p' "\$script")" GPUSIM_MPIEXEC="$MPIEXEC" GPUSIM_MPIEXEC_ARGS="$GS_MPIFLAGS" bash "$tmp/spool/\$n/job" ;;
  *) [ -n "\$group" ] || { echo "stand-in qsub: TSUBAME wants -g GROUP" >&2; exit 2; }
    exec env JOB_ID=\$n JOB_NAME="\$(sed -n 's/^#\\\$ -N //p' "\$script")" NHOSTS=1 SGE_O_WORKDIR="\$PWD" GPUSIM_NPERNODE=2 \\
      GPUSIM_MPIRUN="$MPIEXEC" GPUSIM_MPIRUN_ARGS="$GS_MPIFLAGS" bash "$tmp/spool/\$n/job" ;;
esac
EOF2
chmod +x "$tmp/bin/qsub"
gs_example_workdir "$tmp/ex"
gs_examples_distinct | awk -F'\t' '$2 == "pbs" || $2 == "tsubame"' >"$tmp/ex.list"
while IFS="$(printf '\t')" read -r where kind cmd; do
  out=$(unset GPUSIM GPUSIM_ARGS GPUSIM_BACKEND GPUSIM_NPERNODE GPUSIM_MPIRUN GPUSIM_MPIRUN_ARGS
    PATH="$tmp/bin:$PATH" gs_example_run "$tmp/ex" "$cmd" </dev/null)
  rc=$?
  [ $rc = 0 ] && echo "$out" | grep -q '^# verification: OK' || { echo "$out"; gs_fail "$where: '$cmd': exit status $rc"; }
  case $cmd in *NBODY_RESTART=*) echo "$out" | grep -q '^# restart: from .* at step 2 ' || { echo "$out"; gs_fail "$where: not resumed"; } ;; esac
  echo "ok: $where: $cmd"
  echo "$where" >>"$tmp/ex.done"
done <"$tmp/ex.list"
[ -s "$tmp/ex.list" ] && [ "$(wc -l <"$tmp/ex.done")" = "$(wc -l <"$tmp/ex.list")" ] ||
  gs_fail "$(wc -l <"$tmp/ex.done") of $(wc -l <"$tmp/ex.list") qsub examples run"

# Without a module command: an error, unless GPUSIM_MODULES is empty. Where this machine has
# Environment Modules (/etc/profile.d/modules.sh, which the scripts source as a login shell
# would), there is a module command: then a module it cannot load is that error instead.
sgevars 103
if [ -f /etc/profile.d/modules.sh ]; then
  out=$(env "${V[@]}" PATH=/usr/bin:/bin GPUSIM_MODULES=gs-no-such-module timeout 120 bash "$jobs/tsubame/reduce.sh" 2>&1)
  rc=$? want='module load gs-no-such-module failed'
else
  out=$(env "${V[@]}" PATH=/usr/bin:/bin timeout 120 bash "$jobs/tsubame/reduce.sh" 2>&1)
  rc=$? want='no module command'
fi
[ $rc = 2 ] && echo "$out" | grep -q "^gpusim-job: error: $want" || { echo "$out"; gs_fail "tsubame: want exit 2 and '$want'"; }
out=$(env "${V[@]}" PATH=/usr/bin:/bin GPUSIM_MODULES= timeout 120 bash "$jobs/tsubame/reduce.sh" 2>&1)
[ $? = 0 ] || { echo "$out"; gs_fail "tsubame with GPUSIM_MODULES= and no module command"; }
out=$(env -u PBS_NODEFILE bash "$jobs/pbs/reduce.pbs" 2>&1)
[ $? = 2 ] && echo "$out" | grep -q 'not inside a PBS job' || gs_fail "pbs outside a job: want exit 2 and a message"
echo "ok: module handling, and PBS outside a job"
# Where a TSUBAME script finds gs_tsubame.sh when Grid Engine runs a copy of it from a spool
# directory: the submit directory's jobs/, or GPUSIM_JOBS; else a clear error, before anything runs.
mkdir -p "$tmp/spool/t" "$tmp/tsubame-src" && cp "$jobs/tsubame/reduce.sh" "$tmp/spool/t/reduce.sh"
ln -sfn "$jobs" "$tmp/tsubame-src/jobs"
sgevars 109
out=$(env "${V[@]}" timeout 120 bash "$tmp/spool/t/reduce.sh" 2>&1)
[ $? = 2 ] && echo "$out" | grep -q "^gpusim-job: error: $tmp/tsubame/jobs/tsubame/gs_tsubame.sh not found: submit from the gpusim source tree or set GPUSIM_JOBS" ||
  { echo "$out"; gs_fail "tsubame from a spool directory, no jobs/ in the submit directory: want exit 2 and 'not found'"; }
out=$(env "${V[@]}" SGE_O_WORKDIR="$tmp/tsubame-src" timeout 120 bash "$tmp/spool/t/reduce.sh" 2>&1)
rc=$?
check_run "tsubame/reduce.sh from a spool directory, jobs/ in the submit directory" $rc "$tmp/tsubame-src/results/gpusim-test-109" 109
sgevars 110
out=$(env "${V[@]}" GPUSIM_JOBS="$jobs" timeout 120 bash "$tmp/spool/t/reduce.sh" 2>&1)
rc=$?
check_run "tsubame/reduce.sh from a spool directory, GPUSIM_JOBS" $rc "$tmp/tsubame/results/gpusim-test-110" 110
out=$(env "${V[@]}" GPUSIM_JOBS="$tmp/nowhere" timeout 120 bash "$jobs/tsubame/reduce.sh" 2>&1)
[ $? = 2 ] && echo "$out" | grep -q "^gpusim-job: error: $tmp/nowhere/tsubame/gs_tsubame.sh not found" ||
  { echo "$out"; gs_fail "tsubame with a wrong GPUSIM_JOBS: want exit 2 and 'not found'"; }
for s in pbs/nbody.pbs tsubame/nbody.sh; do
  case $s in pbs/*) pbsvars 104 ;; *) sgevars 104 ;; esac
  if "$GPUSIM" nbody --help >/dev/null 2>&1; then
    out=$(env "${V[@]}" GPUSIM_ARGS= NBODY_N=256 NBODY_STEPS=2 timeout 120 bash "$jobs/$s" 2>&1)
    rc=$?
    echo "$out" | tail -5
    [ $rc = 0 ] || gs_fail "$s: exit status $rc"
    gs_verified "$out" "$s"
    echo "$out" | grep -q -- '--n 256 --steps 2' || gs_fail "$s: NBODY_N/NBODY_STEPS not passed on"
    help=$("$GPUSIM" nbody --help 2>&1) || gs_fail "gpusim nbody --help: exit status $?"
    if case $help in *--tree-layout*) true ;; *) false ;; esac; then
      # The tree's layout and cell size, options with a dash: NBODY_TREE_LAYOUT, NBODY_TREE_CELL.
      # Replicated, the layout every backend has (a GPU build where GPUs are runs it there); with a
      # cell size too, gpusim's usage error says both came through.
      case $s in pbs/*) pbsvars 130 ;; *) sgevars 130 ;; esac
      tree=(GPUSIM_ARGS= NBODY_N=256 NBODY_STEPS=1 NBODY_SOLVER=tree NBODY_TREE_LAYOUT=replicated)
      out=$(env "${V[@]}" "${tree[@]}" timeout 120 bash "$jobs/$s" 2>&1)
      rc=$?
      [ $rc = 0 ] && echo "$out" | grep -q -- '--solver tree --tree-layout replicated' &&
        echo "$out" | grep -q '^# solver: tree .*every rank builds the whole tree' ||
        { echo "$out"; gs_fail "$s: NBODY_SOLVER=tree NBODY_TREE_LAYOUT=replicated: not passed on"; }
      gs_verified "$out" "$s (tree)"
      # gpusim's usage error ends the job at once; but mpirun, told by the script to give its ranks
      # 25 s to checkpoint (checked above), sleeps that twice before it exits, whatever the ranks
      # did (gs_kill_rank in gs_test_lib.sh): 50 s of nothing, so 1 s here.
      out=$(env "${V[@]}" "${tree[@]}" NBODY_TREE_CELL=64 OMPI_MCA_odls_base_sigkill_timeout=1 timeout 120 bash "$jobs/$s" 2>&1)
      rc=$?
      [ $rc = 2 ] && echo "$out" | grep -q -- '--tree-layout replicated --tree-cell 64' &&
        echo "$out" | grep -q '^gpusim: error: --tree-cell is an option of --tree-layout domains' ||
        { echo "$out"; gs_fail "$s: NBODY_TREE_CELL=64 with replicated: want gpusim's usage error (exit 2)"; }
      echo "ok: $s: NBODY_SOLVER, NBODY_TREE_LAYOUT and NBODY_TREE_CELL passed on"
    fi
    if case $help in *--restart*) true ;; *) false ;; esac; then
      # Checkpoints in the job's own directory, and NBODY_RESTART resumes (issue 17, item 5): two
      # jobs from one submit directory never share a checkpoint directory.
      wd=${s%%/*}
      for j in 106 107; do
        case $s in pbs/*) pbsvars $j ;; *) sgevars $j ;; esac
        out=$(env "${V[@]}" GPUSIM_ARGS="--checkpoint-every 1" NBODY_N=256 NBODY_STEPS=2 timeout 120 bash "$jobs/$s" 2>&1)
        rc=$?
        ck=$tmp/$wd/results/gpusim-test-$j/nbody-out
        [ $rc = 0 ] && [ -s "$ck/checkpoint.json" ] || { echo "$out"; ls -R "$tmp/$wd"; gs_fail "$s: job $j: no checkpoint in $ck"; }
      done
      [ ! -e "$tmp/$wd/nbody-out" ] || gs_fail "$s: checkpoints in the shared submit directory's nbody-out"
      case $s in pbs/*) pbsvars 108 ;; *) sgevars 108 ;; esac
      out=$(env "${V[@]}" GPUSIM_ARGS= NBODY_N=256 NBODY_STEPS=4 NBODY_RESTART="$ck" timeout 120 bash "$jobs/$s" 2>&1)
      rc=$?
      echo "$out" | grep -q "^# restart: from $ck at step 2 " && echo "$out" | grep -q '^# final state: step 4, ' &&
        [ $rc = 0 ] || { echo "$out"; gs_fail "$s: NBODY_RESTART=$ck NBODY_STEPS=4: not resumed from step 2 to 4"; }
      echo "ok: $s: checkpoints in each job's directory, NBODY_RESTART resumes"
    fi
  else
    out=$(env "${V[@]}" timeout 120 bash "$jobs/$s" 2>&1)
    rc=$?
    [ $rc = 77 ] && echo "$out" | grep -q 'gpusim nbody is not in this build' ||
      { echo "$out"; gs_fail "$s without gpusim nbody: exit status $rc, want 77 and a message"; }
  fi
  echo "ok: $s"
done

# ---- PBS at its walltime (issue 32), its side stood in: no PBS here. PBS sends no warning before
# the walltime; then (and on qdel) it sends SIGTERM to every process of the job and SIGKILL after
# the server's kill_delay. nbody.pbs gives gpusim a --walltime budget from the job's walltime
# (here from the stand-in qstat -f), so the run stops by itself first, exit 0; a SIGTERM all the
# same (sent here to every process of the job's session, as PBS's MoM does) leaves a checkpoint,
# the job shell waiting (trapped) for the ranks to write it.
help=$("$GPUSIM" nbody --help 2>&1) || gs_fail "gpusim nbody --help: exit status $?"
if echo "$help" | grep -- --restart >/dev/null; then
  pbsvars 120
  out=$(env "${V[@]}" GS_FAKE_WALLTIME=00:00:10 GPUSIM_ARGS="--progress lines" NBODY_N=2048 NBODY_STEPS=100000000 \
    timeout 120 bash "$jobs/pbs/nbody.pbs" 2>&1)
  rc=$?
  echo "$out" | grep -v '^ *[0-9]' | tail -12
  [ $rc = 0 ] || gs_fail "pbs/nbody.pbs, walltime 10 s: exit status $rc, want 0"
  echo "$out" | grep "time limit: walltime 10 s (from qstat -f 120.pbs.example); gpusim --walltime [0-9]* s (1 s margin" >/dev/null ||
    gs_fail "pbs/nbody.pbs: no --walltime budget from the job's walltime"
  echo "$out" | grep '^# stopped after step [0-9]* of 100000000 (wall-clock budget nearly spent): resume with' >/dev/null ||
    gs_fail "pbs/nbody.pbs, walltime 10 s: gpusim did not stop by its budget"
  echo "ok: pbs/nbody.pbs: --walltime budget from the job's walltime, stopped by itself, exit 0"
  pbsvars 121
  d=$tmp/pbs/results/gpusim-test-121
  env "${V[@]}" GPUSIM_ARGS="--progress lines --energy-every 5" NBODY_N=2048 NBODY_STEPS=100000000 \
    setsid bash -c 'echo $$ >"$0"; exec bash "$1"' "$tmp/term.sid" "$jobs/pbs/nbody.pbs" >"$tmp/term.log" 2>&1 &
  job=$!
  for i in $(seq 600); do grep '^ *5 ' "$d/nbody.out" >/dev/null 2>&1 && break; sleep 0.1; done
  sid=$(cat "$tmp/term.sid")
  for p in $(ps -eo pid=,sid= | awk -v s="$sid" '$2 == s { print $1 }'); do kill -TERM "$p" 2>/dev/null; done
  # Then PBS's SIGKILL to whatever is left: after kill_delay, or at once when the job shell ends
  # (the job is over then). Here once the ranks' checkpoint is there and the job shell's trap has
  # logged (or the job shell is gone): on a loaded machine the ranks may checkpoint before the shell
  # runs its trap, which kill_delay's seconds would leave it time for. Open MPI's mpirun, signalled
  # too, would linger for two odls_base_sigkill_timeout periods (25 s each), forwarding none of the
  # ranks' output meanwhile, so the stop line is not awaited.
  for i in $(seq 600); do
    [ -s "$d/nbody-out/checkpoint.json" ] && grep -q 'TERM: PBS ends this job' "$tmp/term.log" && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  alive=no
  kill -0 "$job" 2>/dev/null && alive=yes
  for p in $(ps -eo pid=,sid= | awk -v s="$sid" '$2 == s { print $1 }'); do kill -KILL "$p" 2>/dev/null; done
  wait "$job"
  grep -v '^ *[0-9]' "$tmp/term.log" | tail -12
  [ $alive = yes ] || gs_fail "pbs/nbody.pbs, SIGTERM: the job shell ended before the ranks' checkpoint (PBS then kills them)"
  ck=$(sed -n 's/.*"file": "\(checkpoint_[0-9]*\.gsck\)".*/\1/p' "$d/nbody-out/checkpoint.json" 2>/dev/null)
  [ -n "$ck" ] && [ -s "$d/nbody-out/$ck" ] || gs_fail "pbs/nbody.pbs, SIGTERM: no checkpoint in $d/nbody-out"
  st=$(echo "$ck" | sed 's/^checkpoint_0*\([0-9][0-9]*\)\.gsck$/\1/')
  grep 'TERM: PBS ends this job' "$tmp/term.log" >/dev/null || gs_fail "pbs/nbody.pbs, SIGTERM: not trapped"
  out=$(gs_mpirun 2 nbody --backend cpu --n 2048 --iters 1 --steps $((st + 1)) --restart "$d/nbody-out" --output "$tmp/term-resume") ||
    { echo "$out"; gs_fail "pbs/nbody.pbs, SIGTERM: its checkpoint of step $st does not resume"; }
  echo "$out" | grep "^# restart: from $d/nbody-out at step $st " >/dev/null || gs_fail "pbs/nbody.pbs, SIGTERM: not resumed at step $st"
  echo "ok: pbs/nbody.pbs: SIGTERM to the job's processes (walltime, qdel): checkpoint of step $st (it resumes), the job shell waited for it"
fi

# USR1 (qsig -s USR1 on PBS; s_rt or -notify on Grid Engine) while the ranks run: forwarded to
# mpiexec and on to the ranks when asked, else logged only. A stand-in gpusim waits for "go".
gs_fake_gpusim "$tmp/fake-gpusim"
# Does this mpiexec pass USR1 on to its ranks? Open MPI's does by default (4.1.4 on Debian), but
# on the lent GPU machine (Debian's 4.1.6 in a container) it did not, for no reason we found:
# there only the scripts' side of the signal is checked.
cat >"$tmp/usr1-probe" <<EOF
#!/bin/sh
r=\$OMPI_COMM_WORLD_RANK
trap 'touch "$tmp/probe.\$r"' USR1
touch "$tmp/probe-up.\$r"
i=0
while [ ! -e "$tmp/probe.\$r" ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
EOF
chmod +x "$tmp/usr1-probe"
"$MPIEXEC" $GS_MPIFLAGS -n 2 "$tmp/usr1-probe" &
probe=$!
for i in $(seq 300); do [ -e "$tmp/probe-up.0" ] && [ -e "$tmp/probe-up.1" ] && break; sleep 0.1; done
kill -USR1 $probe
wait $probe
if [ -e "$tmp/probe.0" ] && [ -e "$tmp/probe.1" ]; then passes_usr1=yes; else
  passes_usr1=no
  echo "note: $MPIEXEC does not pass USR1 on to its ranks here: only the scripts' side is checked"
fi
usr1() { # usr1 NAME FORWARD VARS SCRIPT
  local d=$tmp/$1 i
  mkdir -p "$d"
  $3 20$RANDOM
  # env execs bash: $! is the job shell itself, which the batch system would signal.
  env "${V[@]}" GPUSIM="$tmp/fake-gpusim" GS_FAKE_DIR="$d" GPUSIM_FORWARD_USR1=$2 \
    bash "$jobs/$4" >"$d/log" 2>&1 &
  local pid=$!
  for i in $(seq 300); do [ -e "$d/started.0" ] && [ -e "$d/started.1" ] && break; sleep 0.1; done
  kill -USR1 $pid
  for i in $(seq 100); do
    if [ "$2" = yes ]; then
      if [ $passes_usr1 = yes ]; then [ -e "$d/usr1.0" ] && [ -e "$d/usr1.1" ] && break
      else grep -q 'USR1: forwarded to' "$d/log" && break; fi
    else grep -q 'USR1: not forwarded' "$d/log" && break; fi
    sleep 0.1
  done
  touch "$d/go"
  wait $pid
  local rc=$?
  cat "$d/log"
  [ $rc = 0 ] || gs_fail "$1: exit status $rc after USR1"
  if [ "$2" = yes ]; then
    grep -q 'USR1: forwarded to' "$d/log" || gs_fail "$1: no 'forwarded' line"
    if [ $passes_usr1 = no ]; then
      echo "ok: $1: USR1 forwarded to mpiexec (which does not pass it on here)"
      return
    fi
    [ -e "$d/usr1.0" ] && [ -e "$d/usr1.1" ] || gs_fail "$1: USR1 did not reach both ranks"
  else
    ls "$d"/usr1.* >/dev/null 2>&1 && gs_fail "$1: USR1 reached a rank"
    grep -q 'USR1: not forwarded' "$d/log" || gs_fail "$1: no 'not forwarded' line"
  fi
  echo "ok: $1: USR1 $([ "$2" = yes ] && echo forwarded to both ranks || echo logged, not forwarded)"
}
usr1 pbs-usr1-yes yes pbsvars pbs/reduce.pbs
usr1 tsubame-usr1-auto auto sgevars tsubame/reduce.sh
echo "PASS"
