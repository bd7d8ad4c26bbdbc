# examples_lib.sh: sourced by the job tests (after gs_test_lib.sh). The example commands that
# docs/cluster.md and the job scripts' headers show, and what the tests need to run each of them
# here, at test size, exactly as written:
#   gs_examples            every example, one per line: "WHERE<TAB>KIND<TAB>COMMAND"
#   gs_example_workdir DIR a submit directory: jobs/ of this tree, and ./gpusim, a stand-in that
#                          runs the real gpusim at test size
#   gs_examples_distinct   the same, each command once: a command shown in several places (a
#                          trailing "# comment" aside) is one run, "WHERE,WHERE...<TAB>KIND<TAB>COMMAND"
# The examples are every line of the ```sh blocks of docs/cluster.md (a line ending in "\" joined
# with the next), every "#   " line of a script's header that runs sbatch, qsub or
# jobs/scaling/*.py, and the "  sweep.py ..." / "  plot.py ..." usage lines of jobs/scaling/*.py. KIND says which test runs them: sbatch (tests/jobs/slurm_local.sh, under a
# real SLURM), pbs and tsubame (tests/jobs/job_scripts.sh, with a stand-in qsub), python
# (tests/jobs/scaling_cpu.sh); "unknown" fails tests/jobs/job_scripts.sh, so no example goes
# untested.

gs_examples_top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)

# gs_example_kind COMMAND: sbatch, pbs, tsubame, python or unknown
gs_example_kind() {
  case $1 in
    *" sbatch "* | "sbatch "*) echo sbatch ;;
    *"qsub "*jobs/pbs/*) echo pbs ;;
    *"qsub "*jobs/tsubame/*) echo tsubame ;;
    "python3 jobs/scaling/"*) echo python ;;
    *) echo unknown ;;
  esac
}

gs_examples() {
  local f line where
  {
    awk '/^```sh[ \t]*$/ { inblk = 1; next }
      /^```/ { inblk = 0; next }
      inblk {
        if (cont != "") { line = cont " " $0; sub(/^[ \t]+/, "", $0) } else { line = $0; at = FNR }
        if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); cont = line; next }
        cont = ""
        gsub(/[ \t]+/, " ", line)
        if (line != "" && line !~ /^#/) print "docs/cluster.md:" at "\t" line
      }' "$gs_examples_top/docs/cluster.md"
    for f in "$gs_examples_top"/jobs/slurm/*.sbatch "$gs_examples_top"/jobs/pbs/*.pbs \
      "$gs_examples_top"/jobs/tsubame/*.sh; do
      # the header: the comment lines before the first directive
      awk -v f="${f#"$gs_examples_top"/}" '/^#(SBATCH|PBS|\$) / { exit }
        /^#   / && /(sbatch |qsub |jobs\/scaling\/[a-z]+\.py)/ {
          line = substr($0, 5); gsub(/[ \t]+/, " ", line); print f ":" FNR "\t" line }' "$f"
    done
    # the usage examples of jobs/scaling/*.py, "  sweep.py ..." in their docstrings
    for f in "$gs_examples_top"/jobs/scaling/*.py; do
      awk -v f="${f#"$gs_examples_top"/}" '/^"""/ && NR > 2 { exit }
        /^  (sweep|plot)\.py / { line = substr($0, 3); gsub(/[ \t]+/, " ", line)
          print f ":" FNR "\tpython3 jobs/scaling/" line }' "$f"
    done
  } | while IFS="$(printf '\t')" read -r where line; do
    # A trailing "# comment" is the shell's, and a comment: left as it is.
    printf '%s\t%s\t%s\n' "$where" "$(gs_example_kind "$line")" "$line"
  done
}

gs_examples_distinct() {
  gs_examples | awk -F'\t' -v OFS='\t' '{ c = $3; sub(/[ \t]+# [^"]*$/, "", c); k = $2 "\t" c
      if (k in at) { at[k] = at[k] "," $1; next }
      order[++n] = k; at[k] = $1; kind[k] = $2; cmd[k] = $3 }
    END { for (i = 1; i <= n; i++) print at[order[i]], kind[order[i]], cmd[order[i]] }'
}

# gs_example_workdir DIR: DIR/jobs -> this tree's jobs/, DIR/gpusim -> a stand-in that runs the
# real gpusim ($GPUSIM) at test size on the CPU backend: problem sizes (--n, --total; matmul's
# --m, --k) small, at most 4 nbody steps (the checkpoint fixture's 2 plus 2), 1 to 2 timed runs, and the CPU
# backend's kernel for a list of GPU kernels. Everything else, options and their checking, is
# gpusim's own.
gs_example_workdir() {
  mkdir -p "$1" || return 1
  ln -sfn "$gs_examples_top/jobs" "$1/jobs"
  cat >"$1/gpusim" <<EOF
#!/bin/bash
real="$GPUSIM"
case " \$* " in *" --help "* | *" --version "*) exec "\$real" "\$@" ;; esac
sub=\$1
shift
out=("\$sub")
sized=no
while [ \$# -gt 0 ]; do
  case \$1 in
    --n | --total) out+=("\$1" \$(case \$sub in nbody) echo 256 ;; matmul) echo 48 ;; *) echo 2e4 ;; esac)); sized=yes; shift ;;
    --m | --k) out+=("\$1" 40); shift ;;
    --steps) out+=(--steps \$((\$2 < 4 ? \$2 : 4))); shift ;;
    --kernel) out+=(--kernel omp); shift ;;
    --iters | --warmup | --backend) shift ;;
    *) out+=("\$1") ;;
  esac
  shift
done
# The CPU backend whatever the job asked for: omp is its kernel (on a GPU machine too).
out+=(--backend cpu)
case \$sub in
  reduce) out+=(--iters 2 --warmup 1); [ \$sized = yes ] || out+=(--n 2e4) ;;
  nbody) out+=(--iters 1); [ \$sized = yes ] || out+=(--n 256) ;;
  matmul) out+=(--iters 1 --warmup 0); [ \$sized = yes ] || out+=(--n 48) ;;
esac
exec "\$real" "\${out[@]}"
EOF
  chmod +x "$1/gpusim"
}

# gs_example_run DIR COMMAND: run one example in the submit directory DIR (made by
# gs_example_workdir) with bash, as a user would type it; its output to stdout, its exit status
# returned. An example that resumes (NBODY_RESTART=PATH) first gets the checkpoint it names: a
# 2-step run on 2 ranks of the same options that checkpoints into PATH (made afresh; PATH is in
# the test's own submit directory). It may take GS_EXAMPLE_CAP seconds (300 unless set): a test
# that queues all its examples at once sets it for the whole queue.
gs_example_run() {
  local dir=$1 cmd=$2 ck
  case $cmd in
    *NBODY_RESTART=*)
      ck=$(cd "$dir" && eval "echo $(echo "$cmd" | sed 's/.*NBODY_RESTART=\([^ ]*\).*/\1/')")
      case $ck in /*) ;; *) ck=$dir/$ck ;; esac # relative: to the submit directory
      rm -rf "$ck" && mkdir -p "$(dirname "$ck")" || return 99
      (cd "$dir" && timeout 120 "$MPIEXEC" $GS_MPIFLAGS -n 2 ./gpusim nbody --backend cpu --steps 2 \
        --checkpoint-every 1 --output "$ck" >"$dir/fixture.log" 2>&1 </dev/null) ||
        { cat "$dir/fixture.log"; echo "the checkpoint for the example could not be made"; return 99; }
      ;;
  esac
  (cd "$dir" && timeout "${GS_EXAMPLE_CAP:-300}" bash -c "$cmd" 2>&1 </dev/null)
}
