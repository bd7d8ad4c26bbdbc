#!/bin/sh
# gpusim nbody --solver tree on the GPU: the tree's forces verified against the double direct sum
# (its own check at the start and the end) at several theta, both precisions, on a Plummer sphere,
# the clustered disk and an input with 300 coincident bodies; its energy after 10 steps near the
# direct solver's; 2 ranks (on 2 GPUs when there are, else sharing one) verified and bitwise 1 rank;
# 10 steps + checkpoint + restart + 10 steps in exactly the state of 20. Skips without a GPU.
. "$GS_TEST_LIB"
np=$(gs_gpu_ranks) || exit $?
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--backend cuda --iters 1 --progress off --solver tree"
energy_at() { awk -v s="$1" '$1 == s && NF == 8 { print $5 }'; }
# ran NAME ARGS...: gs_mpirun ARGS with its output in $tmp/NAME; a nonzero exit fails the test
# (gpusim piped straight into awk would lose it).
ran() {
  name=$1
  shift
  gs_mpirun "$@" >"$tmp/$name" || { rc=$?; cat "$tmp/$name"; gs_fail "$name: exit $rc"; }
}

for prec in single double; do
  for ic in plummer disk; do
    for theta in 0.3 0.5 0.7; do
      out=$(gs_mpirun 1 nbody $common --n 20000 --steps 3 --precision $prec --ic $ic --theta $theta)
      rc=$?
      [ $rc = 0 ] || { echo "$out"; gs_fail "$prec $ic theta $theta: exit $rc"; }
      gs_verified "$out" "$prec $ic theta $theta"
      echo "ok: $prec $ic theta $theta: $(echo "$out" | grep '^# tree check (start)' | sed 's/.*rms/rms/')"
    done
  done
  out=$(gs_mpirun 1 nbody $common --n 20000 --steps 3 --precision $prec --opening relative)
  gs_verified "$out" "$prec relative opening"
  echo "ok: $prec relative opening"
done

# 300 bodies at one point among 700 others: no hang, no overflow, verified.
awk 'BEGIN { srand(5); for (i = 0; i < 1000; i++) {
  if (i < 300) print 0.25, -0.125, 0.5, 0, 0, 0, 0.001; else print rand() - 0.5, rand() - 0.5, rand() - 0.5, 0, 0, 0, 0.001 } }' >"$tmp/coincident.txt"
out=$(gs_mpirun 1 nbody $common --ic "$tmp/coincident.txt" --steps 2 --precision double) || { echo "$out"; gs_fail "coincident bodies"; }
gs_verified "$out" "coincident bodies"
echo "ok: coincident bodies"

# The tree's energy after 10 steps against the direct solver's.
for prec in single double; do
  ran direct 1 nbody --backend cuda --iters 1 --progress off --n 20000 --steps 10 --precision $prec --kernel 8
  d=$(energy_at 10 <"$tmp/direct")
  ran tree 1 nbody $common --n 20000 --steps 10 --precision $prec
  t=$(energy_at 10 <"$tmp/tree")
  gs_near "$prec: energy at step 10, tree against direct" "$t" "$d" 5e-4
  echo "ok: $prec: E(tree) = $t, E(direct) = $d"
done

# Two ranks (each builds the whole tree and walks its run of the tree's body order) against one:
# bitwise, because the runs end where a group of targets starts, so each group is walked whole by
# one rank and its forces do not depend on which (the balance by walk time moves the boundary, never
# a bit of the result).
many=2
share=""
[ "$(gs_gpus)" -lt 2 ] && share=--gpu-share
ran one 1 nbody $common --n 20000 --steps 10 --precision double
h1=$(gs_hash_of <"$tmp/one")
out=$(gs_mpirun $many nbody $common $share --n 20000 --steps 10 --precision double) || { echo "$out"; gs_fail "2 ranks: exit status"; }
gs_verified "$out" "2 ranks"
h2=$(echo "$out" | gs_hash_of)
[ -n "$h1" ] && [ "$h1" = "$h2" ] || gs_fail "2 ranks end in '$h2', 1 rank in '$h1'"
echo "ok: 2 ranks $share: bitwise the state of 1, $h1"

# Bitwise restart on the GPU.
for prec in single double; do
  ran whole 1 nbody $common --n 20000 --precision $prec --steps 20
  whole=$(gs_hash_of <"$tmp/whole")
  gs_mpirun 1 nbody $common --n 20000 --precision $prec --steps 10 --checkpoint-every 10 --output "$tmp/$prec" >/dev/null ||
    gs_fail "$prec: 10 steps"
  ran resumed 1 nbody --backend cuda --iters 1 --progress off --steps 20 --restart "$tmp/$prec"
  resumed=$(gs_hash_of <"$tmp/resumed")
  [ -n "$whole" ] && [ "$whole" = "$resumed" ] || gs_fail "$prec: 20 steps give '$whole', 10 + restart + 10 give '$resumed'"
  echo "ok: $prec: GPU tree restart bitwise, state $whole"
done
echo "PASS"
