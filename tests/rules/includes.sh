#!/bin/sh
# The source tree's include graph (gs_rule_includes.sh): no include cycle between modules, and
# no host file under src/ including a cuda/ header (the CUDA backend's own files excepted).
. "$GS_TEST_LIB"
top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
sh "$top/tests/rules/gs_rule_includes.sh" "$top" || gs_fail "the include rule (lines above)"
echo "PASS"
