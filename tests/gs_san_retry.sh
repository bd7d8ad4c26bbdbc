#!/bin/sh
# gs_san_retry.sh PROGRAM [ARGS...]: the test runner of the sanitized build (configure
# --enable-sanitizers). LeakSanitizer's stop-the-world tracer can crash on its own ("Tracer caught
# signal 11", "LeakSanitizer has encountered a fatal error"), a known fault of the runtime and not
# a finding: here it does so in an MPI program whenever another Open MPI job runs beside it (make
# -j2 check). The test then ran, but no leak check did. Such a run is run once more; if the tracer
# crashes again, once more without the leak check (ASan's and UBSan's checks stay on), and the log
# says so. A leak report, or any other failure, stands as it is.
out=$(mktemp) || exit 99
tracer_crashed() {
  [ $rc != 0 ] && grep 'LeakSanitizer has encountered a fatal error' "$out" >/dev/null &&
    ! grep 'LeakSanitizer: detected memory leaks' "$out" >/dev/null
}
"$@" >"$out" 2>&1
rc=$?
for try in again no-leak-check; do
  tracer_crashed || break
  cat "$out"
  echo "gs_san_retry.sh: LeakSanitizer's tracer crashed (not a finding): running the test $try"
  [ $try = no-leak-check ] && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" && export ASAN_OPTIONS
  "$@" >"$out" 2>&1
  rc=$?
done
cat "$out"
rm -f "$out"
exit $rc
