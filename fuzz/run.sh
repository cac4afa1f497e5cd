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
# land in build-fuzz/artifacts/<name>/.  The last stats line of each run is
# appended to build-fuzz/summary.txt.  Exits 1 when a regression input
# fails or a run found a crash.
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-"mbox patch trailer ctok model"}
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
		if ! "$f" -runs=0 fuzz/regressions/$t >build-fuzz/$t.regress.log 2>&1; then
			echo "run.sh: $t: a regression input fails (build-fuzz/$t.regress.log)"
			fail=1
		fi
	fi
	[ "$secs" -gt 0 ] || continue
	echo "run.sh: fuzzing $t for ${secs}s"
	"$f" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=build-fuzz/artifacts/$t/ \
		build-fuzz/corpus/$t fuzz/corpus/$t build-fuzz/seeds/$t \
		>build-fuzz/$t.log 2>&1
	rc=$?
	last=$(grep -E '^#[0-9]+' build-fuzz/$t.log | tail -n 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' build-fuzz/$t.log)
	echo "$(date -u +%FT%TZ) $t ${secs}s execs=$execs rc=$rc $last" | tee -a build-fuzz/summary.txt
	if [ $rc != 0 ]; then
		echo "run.sh: $t found a crash: build-fuzz/$t.log, build-fuzz/artifacts/$t/"
		fail=1
	fi
done
exit $fail
