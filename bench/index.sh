#!/bin/sh
# index.sh - how fast "stablesel index" builds and updates the project
# index of DPDK's real repository (../shared/data/dpdk/dpdk-v22.03.git.tar:
# main and the LTS branches 16.11..21.11), against git itself.
#
# Times, on the same commits (every branch, no merges):
#     git log --no-merges --all --format=%H%x00%s   (ids and subjects only)
#     git log -p --no-merges --all                   (the reference: ratio 1.00;
#                                                     two test tables left out)
#     stablesel index (a fresh build)
#     stablesel index (an update with nothing new)
# and reports seconds, the ratio to git log -p, peak RSS (/usr/bin/time -v)
# and the database's size per commit, also into bench/out/index.txt.
#
# Environment: STABLESEL (./stablesel), SS_DATA (../shared/data).  Run from
# the top of the source tree after `make`.
set -eu
cd "$(dirname "$0")/.."

STABLESEL=${STABLESEL:-./stablesel}
DATA=${SS_DATA:-../shared/data}
OUT=bench/out
SUMMARY=$OUT/index.txt
TAR=$DATA/dpdk/dpdk-v22.03.git.tar

die() { echo "index: $*" >&2; exit 1; }

if [ ! -f "$TAR" ]; then
	echo "SKIP: $DATA not found"
	exit 0
fi
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
STABLESEL=$(realpath "$STABLESEL")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ss-bench-index-XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
tar -xf "$TAR" -C "$TMP"
REPO=$TMP/dpdk.git
DB=$TMP/index.db

GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_GLOBAL=/dev/null
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL

# measure NAME CMD...: wall seconds and peak RSS (KiB) into $secs, $rss
measure() {
	name=$1
	shift
	/usr/bin/time -v -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr" || {
		cat "$TMP/stderr" >&2
		die "$name failed"
	}
	secs=$(awk -F': ' '/Elapsed/ { n = split($2, t, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f", s }' "$TMP/time")
	rss=$(awk -F': ' '/Maximum resident/ { print $2 }' "$TMP/time")
	echo "index: $name: ${secs}s, ${rss} KiB" >&2
}

measure "git log --format" git -C "$REPO" log --no-merges --all '--format=%H%x00%s'
fmt_s=$secs fmt_rss=$rss
# the tarball lacks the blobs of two large test tables, which stops git
# log -p; stablesel skips the 9 commits that touch them (and warns)
measure "git log -p" git -C "$REPO" log -p --no-merges --all -- . \
	':(exclude)app/test/test_lpm6_routes.h' ':(exclude)app/test/test_lpm_routes.h'
git_s=$secs git_rss=$rss
measure "stablesel index (build)" "$STABLESEL" index --no-progress --repo "$REPO" --db "$DB"
build_s=$secs build_rss=$rss
build_line=$(grep '^indexed' "$TMP/stderr")
measure "stablesel index (update, nothing new)" "$STABLESEL" index --no-progress --repo "$REPO" --db "$DB"
upd_s=$secs upd_rss=$rss
ncommits=$(git -C "$REPO" rev-list --no-merges --all --count)
# the WAL is checkpointed when the last connection closes: the file is all
size=$(($(stat -c %s "$DB") + $(stat -c %s "$DB-wal" 2>/dev/null || echo 0)))

report() {
	ratio() { echo "$1 $git_s" | awk '{ printf "%.2f", ($2 > 0) ? $1 / $2 : 0 }'; }
	row() { printf '%-40s %8s %6s %9s\n' "$1" "$2" "$(ratio "$2")" "$(($3 / 1024))"; }
	echo "index: DPDK v22.03 repository, $ncommits non-merge commits on all branches," \
		"$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "index: $build_line"
	printf '%-40s %8s %6s %9s\n' "" "wall s" ratio "RSS MiB"
	row "git log --no-merges --all --format=%H%x00%s" "$fmt_s" "$fmt_rss"
	row "git log -p --no-merges --all (ref)" "$git_s" "$git_rss"
	row "stablesel index (fresh build)" "$build_s" "$build_rss"
	row "stablesel index (update, nothing new)" "$upd_s" "$upd_rss"
	echo "database: $size bytes, $((size / ncommits)) bytes per commit"
}
report | tee "$SUMMARY.tmp"
mv "$SUMMARY.tmp" "$SUMMARY"
