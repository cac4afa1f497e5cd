#!/bin/sh
# run-tests.sh - run each test binary, report, fail if any failed.
# Tests that need ../shared/data say they skipped when it is absent.
# test_hostile's known_bug_* tests reproduce fuzz findings not fixed yet
# (listed in fuzz/README.md); they run with SS_RUN_KNOWN_BUGS=1.
[ "${SS_RUN_KNOWN_BUGS:-0}" = 1 ] || { SS_SKIP_KNOWN_BUGS=1; export SS_SKIP_KNOWN_BUGS; }
fail=0
for t in "$@"; do
	echo "== $t"
	if ! "$t"; then
		echo "FAILED: $t"
		fail=1
	fi
done
[ $fail = 0 ] && echo "all tests passed"
exit $fail
