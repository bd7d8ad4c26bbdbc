#!/bin/sh
# No function in src/, cuda/ or tests/ longer than GS_MAX_FUNCTION_LINES (80) lines
# (gs_rule_length.sh).
. "$GS_TEST_LIB"
top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
sh "$top/tests/rules/gs_rule_length.sh" "$top" || gs_fail "the function length rule (lines above)"
echo "PASS"
