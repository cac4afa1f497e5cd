#!/bin/sh
# run.sh - replay the regression inputs, then fuzz each target for N seconds.
#
#   fuzz/run.sh [SECONDS] [TARGET...]      (make fuzz FUZZ_SECONDS=N)
#
# Targets are build-fuzz/fuzz/fuzz_<name> (make fuzz-build).  Each runs as
# one libFuzzer process (one core: other work needs the other one), reading
# its hand-made seeds (fuzz/corpus/<name>), the real seeds cut from
# ../shared/data (fuzz/seeds.sh -> build-fuzz/seeds/<name>) and the corpus
# it grew before (build-fuzz/corpus/<name>, where new inputs go).  Crashes
# and hangs land in build-fuzz/artifacts/<name>/ and the run goes on.  The
# last stats line of each run (execs, cov, ft, oom/timeout/crash counts) is
# appended to build-fuzz/summary.txt.  Exits 1 when a regression input
# fails or a run found a new crash or hang.
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-"mbox patch trailer ctok model index graph"}
bin=build-fuzz/fuzz
fail=0

[ -d build-fuzz/seeds ] || fuzz/seeds.sh build-fuzz/seeds

for t in $targets; do
	f=$bin/fuzz_$t
	if [ ! -x "$f" ]; then
		echo "run.sh: $f missing (make fuzz-build)" >&2
		fail=1
		continue
	fi
	mkdir -p build-fuzz/corpus/$t build-fuzz/artifacts/$t build-fuzz/seeds/$t
	# every regression input must now pass
	if [ -d fuzz/regressions/$t ] && [ -n "$(ls fuzz/regressions/$t)" ]; then
		if ! "$f" -runs=0 -timeout=10 -artifact_prefix=build-fuzz/$t.regress- fuzz/regressions/$t \
		    >build-fuzz/$t.regress.log 2>&1; then
			echo "run.sh: $t: a regression input fails (build-fuzz/$t.regress.log)"
			fail=1
		fi
	fi
	[ "$secs" -gt 0 ] || continue
	echo "run.sh: fuzzing $t for ${secs}s"
	# fork mode with one worker: a crash or hang is saved and the run goes
	# on, so that one finding does not end it
	before=$(ls build-fuzz/artifacts/$t | wc -l)
	"$f" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix=build-fuzz/artifacts/$t/ \
		build-fuzz/corpus/$t fuzz/corpus/$t build-fuzz/seeds/$t \
		>build-fuzz/$t.log 2>&1
	last=$(grep -E '^#[0-9]+:' build-fuzz/$t.log | tail -n 1)
	new=$(( $(ls build-fuzz/artifacts/$t | wc -l) - before ))
	echo "$(date -u +%FT%TZ) $t ${secs}s new-artifacts=$new $last" | tee -a build-fuzz/summary.txt
	if [ $new != 0 ]; then
		echo "run.sh: $t: $new new crash/timeout inputs in build-fuzz/artifacts/$t/ (build-fuzz/$t.log)"
		fail=1
	fi
done
exit $fail
