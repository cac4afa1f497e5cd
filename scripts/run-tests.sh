#!/bin/sh
# run-tests.sh - run each test binary, report, fail if any failed.
# Tests that need ../shared/data say they skipped when it is absent.
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
