#!/bin/sh
# The source tree's include graph, src/, cuda/ and tests/ (gs_rule_includes.sh): no include cycle
# between modules; no host file under src/ including a cuda/ header (the CUDA backend's own files
# excepted); cuda/ including of src/ only the shared type headers; no test header included from
# src/ or cuda/, and no cuda/ header from a test outside tests/gpu/.
. "$GS_TEST_LIB"
top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
sh "$top/tests/rules/gs_rule_includes.sh" "$top" || gs_fail "the include rule (lines above)"
echo "PASS"
