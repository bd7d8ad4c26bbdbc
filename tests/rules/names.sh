#!/bin/sh
# Every symbol the program's objects export is named gs_<file>_* after its file, and every static
# they keep after its file's static prefix (gs_rule_names.sh). The objects are in the build tree
# (where gpusim is), which in a VPATH build is not the source tree; without them the rule exits
# 77 (SKIP), and so does this test. The headers whose static inline functions an object may keep
# a copy of are src/'s.
. "$GS_TEST_LIB"
top=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
build=$(cd "$(dirname "$GPUSIM")" && pwd) || gs_hard "no build tree at $(dirname "$GPUSIM")"
GS_RULE_HEADERS="$top/src" sh "$top/tests/rules/gs_rule_names.sh" "$build"
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || gs_fail "the naming rule (lines above), exit status $rc"
echo "PASS"
