#!/bin/sh
# mbox.sh - how fast stablesel reads mail, against the tools it replaces.
#
# On the DPDK mainline mbox (251 MB, 25,959 commits) and the tip mbox
# (119 MB, 14,568 commits) of ../shared/data, times
#     zstd -dc FILE > /dev/null                 decompression alone (floor)
#     zstd -dc FILE | git mailsplit -o DIR      git's own mbox splitter
#     stablesel log --no-diff FILE              messages only
#     stablesel log FILE                        messages and diffs
# and reports seconds (best of RUNS), MB/s and commits/s of the
# uncompressed mbox, the ratios against git mailsplit, and peak RSS
# (/usr/bin/time -v), also into bench/out/mbox.txt.
#
# Environment: RUNS (3), STABLESEL (./stablesel), DATA (../shared/data).
set -eu

RUNS=${RUNS:-3}
STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
OUT=bench/out
SUMMARY=$OUT/mbox.txt

die() { echo "mbox: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# best_of CMD: best wall seconds and the peak RSS (KB) of RUNS runs
best_of() {
	best=""; rss=0
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f '%e %M' -o "$TMP/t" sh -c "$1" >/dev/null 2>"$TMP/err" ||
			{ cat "$TMP/err" >&2; die "failed: $1"; }
		set -- "$1" $(cat "$TMP/t")
		s=$2; m=$3
		if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s; fi
		[ "$m" -gt "$rss" ] && rss=$m
		i=$((i + 1))
	done
	echo "$best $rss"
}

{
echo "# stablesel mbox ingestion, $(date -u +%Y-%m-%d), $(nproc) cores, best of $RUNS"
printf '%-10s %-22s %8s %9s %10s %9s %10s\n' data run seconds MB/s commits/s vs-split peakRSS
for f in dpdk/mainline-v16.11-v22.03.mbox.zst linux-tip/tip-before-2024-07-01.mbox.zst; do
	path=$DATA/$f
	name=${f%%/*}
	mb=$(zstd -dc "$path" | wc -c | awk '{printf "%.1f", $1 / 1048576}')
	commits=$("$STABLESEL" log --no-diff "$path" | wc -l)
	set -- $(best_of "zstd -dc '$path'"); zs=$1; zr=$2
	set -- $(best_of "rm -rf '$TMP/split'; mkdir '$TMP/split'; zstd -dc '$path' | git mailsplit -o'$TMP/split'"); sp=$1; spr=$2
	set -- $(best_of "'$STABLESEL' log --no-diff '$path'"); nd=$1; ndr=$2
	set -- $(best_of "'$STABLESEL' log '$path'"); fu=$1; fur=$2
	for row in "zstd-dc $zs $zr" "git-mailsplit $sp $spr" "log-no-diff $nd $ndr" "log $fu $fur"; do
		set -- $row
		printf '%-10s %-22s %8.2f %9.1f %10.0f %9.2f %8dMB\n' "$name" "$1" "$2" \
			"$(echo "$mb / $2" | bc -l)" "$(echo "$commits / $2" | bc -l)" \
			"$(echo "$2 / $sp" | bc -l)" $(($3 / 1024))
	done
	echo "$name: $commits commits, $mb MB uncompressed"
done
} | tee "$SUMMARY"
