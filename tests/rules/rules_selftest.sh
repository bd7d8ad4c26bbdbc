#!/bin/sh
# The three code-shape rules can fail: each runs on small trees under tests/rules/fixtures that
# break it (include cycles of two and three modules and of two test headers; a host file including
# a cuda/ header; cuda/ including a src/ header that is no shared type header, by "..." and by
# <...>; a shared type header including a driver's header; src/ and cuda/ including a test header;
# a host test including a cuda/ header; an 81-line function; 85-line functions in the shapes a
# line-based reading missed: a template with a default argument, a member function inside a
# struct, the first function after namespace {; 81-line functions in further shapes (a lambda
# given a name, a constructor with a brace initialiser, a member after an access label with its
# brace on its own line, a signature ended by a macro, a signature written twice under #ifdef);
# braces that do not balance; objects exporting misnamed symbols; objects keeping misnamed
# statics: a backend file's, and a cuda/ file's in C++'s mangled forms (a C++ compiler needed for
# that one); a header's static inline copy without the header named), and must exit 1 naming
# exactly the offenders; on a clean tree (and for the limit itself: 80-line functions in those
# shapes, braces in strings, characters, comments and #if 0) each must pass silently. The
# real-tree runs never read the fixtures: includes and length skip tests/rules/fixtures, names
# reads objects.
. "$GS_TEST_LIB"
rules=$(cd "$(dirname "$GS_TEST_LIB")/rules" && pwd)
fx=$rules/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect RC LINES CMD...: CMD exits RC and prints exactly LINES (newline-separated; "" for none).
expect() {
  want_rc=$1 want=$2
  shift 2
  "$@" >"$tmp/out" 2>&1
  rc=$?
  [ "$rc" = "$want_rc" ] || { cat "$tmp/out"; gs_fail "${*##*/}: exit status $rc, want $want_rc"; }
  if [ -n "$want" ]; then printf '%s\n' "$want" >"$tmp/want"; else : >"$tmp/want"; fi
  cmp -s "$tmp/want" "$tmp/out" || { diff "$tmp/want" "$tmp/out"; gs_fail "${*##*/}: output differs (want <, got >)"; }
  echo "ok: exit $rc${want:+: $want}"
}

inc=$rules/gs_rule_includes.sh
expect 1 "include cycle: gs_a -> gs_b -> gs_a
include cycle: gs_p -> gs_q -> gs_r -> gs_p" sh "$inc" "$fx/cycle"
expect 1 "layering: cuda/gs_angle.cu includes src/gs_nbody_job.h, not a shared type header
layering: cuda/gs_gate.cu includes src/gs_nbody_job.h, not a shared type header
layering: src/gs_host.c includes cuda/gs_dev.h
layering: src/gs_tree.h, a shared type header, includes src/gs_nbody_job.h" sh "$inc" "$fx/layering"
expect 1 "layering: cuda/gs_c.cu includes tests/gpu/gs_g.h, a test header
layering: src/gs_s.c includes tests/unit/gs_t.h, a test header
layering: tests/unit/test_u.c includes cuda/gs_c.h outside tests/gpu/
include cycle: gs_t -> gs_u -> gs_t" sh "$inc" "$fx/tests_inc"
expect 0 "" sh "$inc" "$fx/clean"

len=$rules/gs_rule_length.sh
expect 1 "src/gs_long.c:2: gs_long_run is 81 lines (limit 80)
tests/unit/test_long.c:3: main is 81 lines (limit 80)" sh "$len" "$fx/long"
expect 0 "" env GS_MAX_FUNCTION_LINES=81 sh "$len" "$fx/long"
expect 1 "cuda/gs_anon.cu:4: gs_anon_run is 85 lines (limit 80)
cuda/gs_forms.cu:6: gs_forms_lambda is 81 lines (limit 80)
cuda/gs_forms.cu:90: gs_forms_box is 81 lines (limit 80)
cuda/gs_forms.cu:173: get is 81 lines (limit 80)
cuda/gs_forms.cu:257: gs_forms_safe is 81 lines (limit 80)
cuda/gs_member.cu:6: run is 85 lines (limit 80)
cuda/gs_tmpl.cu:3: gs_tmpl_kernel is 85 lines (limit 80)
src/gs_forms.c:6: gs_forms_pick is 81 lines (limit 80)" sh "$len" "$fx/shapes"
expect 0 "" env GS_MAX_FUNCTION_LINES=85 sh "$len" "$fx/shapes"
expect 1 "src/gs_open.c: braces do not balance (1 open at the end, 0 closed too many): the length rule cannot read it
src/gs_shut.c: braces do not balance (0 open at the end, 1 closed too many): the length rule cannot read it" \
  sh "$len" "$fx/unbalanced"
expect 0 "" sh "$len" "$fx/clean"
expect 1 "cuda/gs_shapes.cu:3: gs_shapes_kernel is 80 lines (limit 79)
cuda/gs_shapes.cu:86: run is 80 lines (limit 79)
cuda/gs_shapes.cu:169: gs_shapes_run is 80 lines (limit 79)
src/gs_y.c:183: gs_y_fits is 80 lines (limit 79)" env GS_MAX_FUNCTION_LINES=79 sh "$len" "$fx/clean"

names=$rules/gs_rule_names.sh
expect 77 "SKIP: no src/*.o or cuda/*.o under $tmp (build the program first)" sh "$names" "$tmp"
cc=${CC:-cc}
command -v "${cc%% *}" >/dev/null 2>&1 || gs_skip "no C compiler ($cc) for the naming rule's fixture objects"
mkdir "$tmp/bad" "$tmp/bad/src" "$tmp/good" "$tmp/good/src"
$cc -c -o "$tmp/bad/src/gs_named.o" "$fx/names/gs_named.c" || gs_hard "$cc cannot compile gs_named.c"
$cc -c -o "$tmp/good/src/gs_clean.o" "$fx/names/gs_clean.c" || gs_hard "$cc cannot compile gs_clean.c"
$cc -c -o "$tmp/good/src/gpusim.o" "$fx/names/gpusim.c" || gs_hard "$cc cannot compile gpusim.c"
$cc -c -o "$tmp/good/src/gs_backend_toy.o" "$fx/names/gs_backend_toy.c" || gs_hard "$cc cannot compile gs_backend_toy.c"
expect 1 "src/gs_named.o: gs_other_scale is not named gs_named_*
src/gs_named.o: gs_other_sum is not named gs_named_*" sh "$names" "$tmp/bad"
# statics: a backend file's prefix drops backend_; a header's static inline copy passes only
# with the header's directory named; a module named in GS_RULE_STATICS_LATER is left out.
expect 1 "src/gs_backend_toy.o: static gs_backend_toy_close is not named gs_toy_*
src/gs_backend_toy.o: static gs_cpu_alloc is not named gs_toy_*
src/gs_clean.o: static gs_hdr_twice is not named gs_clean_*" sh "$names" "$tmp/good"
expect 1 "src/gs_backend_toy.o: static gs_backend_toy_close is not named gs_toy_*
src/gs_backend_toy.o: static gs_cpu_alloc is not named gs_toy_*" env GS_RULE_HEADERS="$fx/names" sh "$names" "$tmp/good"
expect 0 "" env GS_RULE_HEADERS="$fx/names" GS_RULE_STATICS_LATER=gs_backend_toy sh "$names" "$tmp/good"
cxx=${CXX:-c++}
if command -v "${cxx%% *}" >/dev/null 2>&1; then
  mkdir "$tmp/cu" "$tmp/cu/cuda"
  $cxx -c -o "$tmp/cu/cuda/gs_tree_toy.o" "$fx/names/gs_tree_toy.cc" || gs_hard "$cxx cannot compile gs_tree_toy.cc"
  expect 1 "cuda/gs_tree_toy.o: static gs_twice_bad is not named gs_tr_*
cuda/gs_tree_toy.o: static gs_walk_bad is not named gs_tr_*
cuda/gs_tree_toy.o: static gs_anon_bad is not named gs_tr_*" sh "$names" "$tmp/cu"
else
  echo "note: no C++ compiler ($cxx): the mangled statics of a cuda/ object were not tried"
fi
# objects named one by one, and automake's per-target names (libgs_a-gs_named.o read as gs_named)
cp "$tmp/bad/src/gs_named.o" "$tmp/libgs_a-gs_named.o"
expect 1 "$tmp/libgs_a-gs_named.o: gs_other_scale is not named gs_named_*
$tmp/libgs_a-gs_named.o: gs_other_sum is not named gs_named_*" sh "$names" "$tmp/libgs_a-gs_named.o"
echo "PASS"
