#!/bin/sh
# run-tests.sh - run the tests given (test binaries, or scripts such as
# scripts/identity.sh), JOBS at a time, and fail if any failed.
#
#   scripts/run-tests.sh build/tests/test_index scripts/identity.sh ...
#
# Each test runs with its standard output and error in LOGS/NAME.log;
# when it ends the log is printed whole ("== NAME (N s)" first, then
# "FAILED: NAME (exit N)" when it did not exit 0), so the outputs of the
# tests that run together never interleave.  The end is a summary: the
# number of tests, the wall time and every test that failed; the exit
# status is 1 when any failed.
#
# The longest tests start first: the order is the time each took when it
# last ran (LOGS/durations, "NAME<TAB>SECONDS" lines, updated by every run
# that completes), or, for a test without one, its place in the list SLOW
# below; the other tests follow in the order given.
#
# Tests running at once share nothing they write: each makes its files in
# a temporary directory of its own (mkdtemp, under $TMPDIR or /tmp), and
# test_report writes $SS_BUILD/report.png, the only file of the tree a
# test writes.  A test runs in a session of its own (setsid), stdin
# /dev/null, SIGINT and SIGQUIT at their defaults; an interrupted run
# (INT, TERM, HUP) stops the tests still running and everything they
# started.
#
# Environment:
#   JOBS   tests run at once (default: the number of CPUs; JOBS=1 runs
#          them one after another)
#   LOGS   where the logs and the durations go (default: a temporary
#          directory, removed at the end)
#   SS_BIN and the rest of the environment reach the tests unchanged.
# Tests that need ../shared/data say they skipped when it is absent.
set -u

# the slowest tests, slowest first (on a 2-core machine; HACKING.md), for
# a run with no times recorded
SLOW="test_index test_layout identity.sh test_decisions test_queue test_mbox test_hostile
test_realdata test_review test_project"

jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
case $jobs in '' | *[!0-9]* | 0) echo "run-tests: JOBS must be a positive number" >&2; exit 2 ;; esac
if [ -n "${LOGS:-}" ]; then
	logs=$LOGS
	mkdir -p "$logs" || exit 2
	keep=1
else
	logs=$(mktemp -d "${TMPDIR:-/tmp}/ss-tests-XXXXXX") || exit 2
	keep=0
fi
fifo=$logs/.done.$$
rm -f "$fifo"
mkfifo "$fifo" || exit 2
# shellcheck disable=SC2317  # (called by the traps)
cleanup() {
	rm -f "$fifo" "$logs/.order.$$" "$logs"/*.pid "$logs/durations.new" "$logs/durations.tmp"
	[ "$keep" = 1 ] || rm -rf "$logs"
}
# an interrupted run stops the tests still running, with what they
# started, and names them: each runs in a session of its own (setsid;
# its process group is its pid, in LOGS/NAME.pid while it runs)
# shellcheck disable=SC2317
stop_all() {
	for f in "$logs"/*.pid; do
		[ -f "$f" ] || continue
		n=${f##*/}
		echo "run-tests: interrupted: ${n%.pid} stopped" >&2
		kill -TERM "-$(cat "$f")" 2>/dev/null
	done
}
trap 'stop_all; cleanup; exit 130' INT TERM HUP
trap cleanup EXIT
# and with SIGINT and SIGQUIT as a test run in the foreground has them (sh
# ignores them in what it starts with "&"), where env can say so
wrap=
command -v setsid >/dev/null 2>&1 && wrap="setsid -w"
env --default-signal=INT,QUIT true 2>/dev/null && wrap="$wrap env --default-signal=INT,QUIT"

# the order: recorded seconds, else the rank in SLOW, longest first
{
	for t in "$@"; do
		n=${t##*/}
		s=
		[ -f "$logs/durations" ] && s=$(awk -v n="$n" '$1 == n { print $2; exit }' "$logs/durations")
		if [ -z "$s" ]; then
			s=0
			i=10000
			for w in $SLOW; do
				i=$((i - 1))
				[ "$w" = "$n" ] && s=$i
			done
		fi
		printf '%s\t%s\n' "$s" "$t"
	done
} | sort -t "$(printf '\t')" -k1,1nr -s | cut -f2- >"$logs/.order.$$"

# the tests tell their end through the FIFO, one line each ("NAME RC
# SECONDS", shorter than PIPE_BUF, so written whole); it is opened for
# reading and writing so that it never reads an end of file
exec 3<>"$fifo"
running=0
failed=
ntests=0
start=$(date +%s)

start_one() {
	t=$1
	n=${t##*/}
	(
		s=$(date +%s)
		# sh -c writes its pid, then becomes setsid (no fork: it is no
		# process group's leader), env and the test
		# shellcheck disable=SC2086
		sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$logs/$n.pid" $wrap "$t" \
			</dev/null >"$logs/$n.log" 2>&1 3>&-
		rc=$?
		rm -f "$logs/$n.pid"
		echo "$n $rc $(($(date +%s) - s))" >&3
	) &
	running=$((running + 1))
	ntests=$((ntests + 1))
}

# wait for one test to end, print its log, note its time and status
reap_one() {
	read -r n rc secs <&3 || exit 2
	running=$((running - 1))
	echo "== $n ($secs s)"
	cat "$logs/$n.log"
	printf '%s\t%s\n' "$n" "$secs" >>"$logs/durations.new"
	if [ "$rc" != 0 ]; then
		echo "FAILED: $n (exit $rc)"
		failed="$failed $n"
	fi
}

: >"$logs/durations.new"
while IFS= read -r t; do
	while [ "$running" -ge "$jobs" ]; do
		reap_one
	done
	start_one "$t"
done <"$logs/.order.$$"
while [ "$running" -gt 0 ]; do
	reap_one
done
exec 3<&-
# this run's times, and the earlier times of the tests it did not run
touch "$logs/durations"
awk -F '\t' 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' \
	"$logs/durations.new" "$logs/durations" >"$logs/durations.tmp" &&
	mv "$logs/durations.tmp" "$logs/durations"

wall=$(($(date +%s) - start))
if [ -z "$failed" ]; then
	echo "all $ntests tests passed ($wall s, $jobs at a time)"
	exit 0
fi
# shellcheck disable=SC2086  # (the names, one word each)
set -- $failed
echo "$# of $ntests tests FAILED ($wall s, $jobs at a time):"
for n in $failed; do
	if [ "$keep" = 1 ]; then echo "  $n (log: $logs/$n.log)"; else echo "  $n"; fi
done
exit 1
