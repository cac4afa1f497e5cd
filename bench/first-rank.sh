#!/bin/sh
# first-rank.sh - how long a project's first "rank" waits for the project
# model, before and after the index keeps the features it learns from
# (issue 27 item 3; docs/index.md, "Stored features").
#
# Needs the systemd mirror (github:systemd/systemd-stable, bare, at
# $SYSTEMD, default /work/.mirror/systemd+systemd-stable/repo; skipped with
# a message when absent) and/or ../shared/data/dpdk (the DPDK repository
# up to v22.03).  So that no figure comes from held-out history, systemd
# is read through a scratch repository whose refs stop at v254 (main at
# v254, the v2NN-stable branches and tags up to 254; the mirror's objects
# by alternates): its index times are the history up to v254 only.
#
# Per project:
#   reference  git log -p over the history before the ranked range (what
#              reading every diff of it costs; on systemd without the few
#              files whose blobs the partial mirror lacks)
#   index      a build without stored features (--no-features), then the
#              update that only fills them: the index time they add
#   before     $BEFORE (a stablesel built before this change, optional):
#              the first rank --rev A..B, the project model trained by
#              reading every diff of the history before A
#   after      $STABLESEL on the filled index: trained from the rows
#   after-ro   the same with the index read-only (file and folder without
#              write bits), which reads the rows without writing
# Each: wall seconds, the ratio to the reference, peak RSS; the load
# average before each run.  The rankings of before and after are compared
# (bench/first-rank-compare.py: identical rows, else the largest score
# difference).
#
# Environment: STABLESEL (./stablesel), BEFORE (unset: no before run),
# SKIP_INDEX (set: an index $OUT/NAME.db of an earlier run is used as it is),
# OUT (scratch, default a new temporary folder, kept), SYSTEMD, DATA
# (../shared/data), RANGE_SYSTEMD (v253..v254), RANGE_DPDK
# (v21.02..v22.03).
set -eu
STABLESEL=$(realpath "${STABLESEL:-./stablesel}")
BEFORE=${BEFORE:+$(realpath "$BEFORE")}
DATA=${DATA:-../shared/data}
SYSTEMD=${SYSTEMD:-/work/.mirror/systemd+systemd-stable/repo}
RANGE_SYSTEMD=${RANGE_SYSTEMD:-v253..v254}
RANGE_DPDK=${RANGE_DPDK:-v21.02..v22.03}
OUT=${OUT:-$(mktemp -d /tmp/first-rank.XXXXXX)}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# timed NAME CMD...: runs CMD, stdout to /dev/null, stderr to $OUT/NAME.err;
# sets secs and rss (MB)
timed() {
	run=$1
	shift
	l=$(load)
	/usr/bin/time -f "%e %M" -o "$OUT/$run.time" "$@" >/dev/null 2>"$OUT/$run.err" || {
		echo "$run failed:"; tail -3 "$OUT/$run.err"; exit 1; }
	secs=$(cut -d' ' -f1 "$OUT/$run.time")
	rss=$(( $(cut -d' ' -f2 "$OUT/$run.time") / 1024 ))
	echo "$l" >"$OUT/$run.load"
}

row() { # row WHAT: a table row of the last timed run against $ref
	printf '| %s | %s | %s | %s | %s |\n' "$1" "$secs" \
		"$(awk -v a="$secs" -v b="$ref" 'BEGIN { printf "%.2f", a / b }')" "$rss" "$l"
}

# bench NAME REPO RANGE MAINLINE (MAINLINE "": found by the index)
bench() {
	name=$1 repo=$2 range=$3 mainline=$4
	bottom=${range%%..*}
	echo "| $name $range | s | / reference | peak RSS MB | load before |"
	echo "|---|---|---|---|---|"
	# shellcheck disable=SC2086 # $exclude: pathspecs, no spaces
	if git -C "$repo" log -p --no-renames "$bottom" -- . $exclude >/dev/null 2>&1; then
		timed "$name-ref" git -C "$repo" log -p --no-renames "$bottom" -- . $exclude
		row_ref="reference: git log -p $bottom"
	else
		# objects git log -p cannot do without are missing (DPDK's
		# repository of ../shared has 9 unreadable commits)
		timed "$name-ref" git -C "$repo" log --raw --no-renames "$bottom"
		row_ref="reference: git log --raw $bottom (git log -p stops at a missing object)"
	fi
	ref=$secs
	row "$row_ref"
	if [ -n "${SKIP_INDEX:-}" ] && [ -f "$OUT/$name.db" ]; then
		echo "| index: $OUT/$name.db of an earlier run (SKIP_INDEX) | | | | |"
	else
	timed "$name-index" "$STABLESEL" index --repo "$repo" ${mainline:+--mainline "$mainline"} \
		--db "$OUT/$name.db" --no-features --no-progress
	row "index, no stored features"
	timed "$name-fill" "$STABLESEL" index --repo "$repo" ${mainline:+--mainline "$mainline"} \
		--db "$OUT/$name.db" --no-progress
	row "index update keeping the features (added to the index time)"
	fi
	if [ -n "$BEFORE" ]; then
		rm -f "$OUT/$name-before.model"
		timed "$name-before" "$BEFORE" rank --repo "$repo" --db "$OUT/$name.db" \
			--rev "$range" --format tsv --top 1000000 --no-progress \
			--project-model "$OUT/$name-before.model" -o "$OUT/$name-before.tsv"
		row "first rank, before (training reads every diff)"
	fi
	rm -f "$OUT/$name-after.model"
	timed "$name-after" "$STABLESEL" rank --repo "$repo" --db "$OUT/$name.db" \
		--rev "$range" --format tsv --top 1000000 --no-progress \
		--project-model "$OUT/$name-after.model" -o "$OUT/$name-after.tsv"
	row "first rank, after (training reads the kept rows)"
	mkdir -p "$OUT/$name-ro"
	cp "$OUT/$name.db" "$OUT/$name-ro/i.db"
	chmod a-w "$OUT/$name-ro/i.db" "$OUT/$name-ro"
	rm -f "$OUT/$name-ro.model"
	timed "$name-ro" "$STABLESEL" rank --repo "$repo" --db "$OUT/$name-ro/i.db" \
		--rev "$range" --format tsv --top 1000000 --no-progress \
		--project-model "$OUT/$name-ro.model" -o "$OUT/$name-ro.tsv"
	row "first rank, after, index read-only"
	chmod u+w "$OUT/$name-ro" "$OUT/$name-ro/i.db"
	echo
	grep -h "kept the features of" "$OUT/$name-fill.err" || true
	grep -h "^rank: trained" "$OUT/$name-after.err" "$OUT/$name-ro.err" || true
	[ -z "$BEFORE" ] || grep -h "^rank: trained" "$OUT/$name-before.err" || true
	"$HERE/first-rank-compare.py" "$OUT/$name-after.tsv" "$OUT/$name-ro.tsv"
	[ -z "$BEFORE" ] || "$HERE/first-rank-compare.py" "$OUT/$name-before.tsv" "$OUT/$name-after.tsv"
	echo
}

echo "machine: $(nproc) cores; stablesel $STABLESEL${BEFORE:+, before $BEFORE}"
echo
if [ -d "$SYSTEMD" ]; then
	sd="$OUT/systemd-v254.git"
	if [ ! -d "$sd" ]; then
		# refs up to v254 only: v255 and later, and v255-stable, are held out
		git init -q --bare "$sd"
		echo "$SYSTEMD/objects" >"$sd/objects/info/alternates"
		{
			echo "create refs/heads/main $(git -C "$SYSTEMD" rev-parse 'v254^{commit}')"
			git -C "$SYSTEMD" for-each-ref --format='%(refname) %(objectname)' refs/heads |
				grep -E '^refs/heads/v2([0-4][0-9]|5[0-4])-stable ' | sed 's/^/create /'
			git -C "$SYSTEMD" for-each-ref --format='%(refname) %(objectname)' refs/tags |
				grep -E '^refs/tags/v(1[0-9]{2}|2([0-4][0-9]|5[0-4])|[0-9]{1,2})([^0-9]|$)' |
				sed 's/^/create /'
		} | git -C "$sd" update-ref --stdin
		git -C "$sd" symbolic-ref HEAD refs/heads/main
	fi
	echo "## systemd, refs up to v254 ($(git -C "$sd" rev-list --count "${RANGE_SYSTEMD%%..*}") commits before ${RANGE_SYSTEMD%%..*})"
	echo
	# the blobs the partial mirror lacks (git log -p stops at the first)
	exclude=":(exclude)*ma-large.txt :(exclude)*unifont.hex"
	bench systemd "$sd" "$RANGE_SYSTEMD" main
else
	echo "SKIP systemd: no mirror at $SYSTEMD (fetch github:systemd/systemd-stable)"
fi
if [ -f "$DATA/dpdk/dpdk-v22.03.git.tar" ]; then
	[ -d "$OUT/dpdk.git" ] || tar -xf "$DATA/dpdk/dpdk-v22.03.git.tar" -C "$OUT"
	echo "## DPDK (../shared/data, $(git -C "$OUT/dpdk.git" rev-list --count "${RANGE_DPDK%%..*}") commits before ${RANGE_DPDK%%..*})"
	echo
	exclude=
	bench dpdk "$OUT/dpdk.git" "$RANGE_DPDK" ""
else
	echo "SKIP DPDK: $DATA/dpdk not found"
fi
echo "scratch: $OUT"
