#!/bin/sh
# weekly.sh - a maintainer's cycle replayed week by week (issue 36, item 6).
#
# A maintainer ranks every Monday; what the branch took so far, the
# releases tagged and the decisions made are what is known then.  Each
# Monday of the cycle vA..vB, "stablesel rank --as-of MONDAY" ranks the
# cycle's commits as they were known that day (no --model: the project
# model is trained on what was settled then), and the commits committed
# in the week before it (the week's new ones) are scored against what
# reached stable in the end (the labels of ../shared/data): AP and P@20
# a week, and over every week's new commits pooled (each scored as of its
# Monday), for all commits and the untagged ones (bench/weekly-score.py).
#
# Validation only: DPDK v21.11..v22.03 (the repository of ../shared/data;
# DPDK after v22.03 is held out).  Run twice to compare a lever:
# EXTRA="--option" adds options to every rank.
#
# Environment: STABLESEL (./stablesel), DATA (../shared/data), OUT (a
# scratch folder, default a new temporary one, kept), CYCLE (v21.11:v22.03),
# EXTRA (options for rank).  Figures on stdout with the load beside them.
set -eu
STABLESEL=$(realpath "${STABLESEL:-./stablesel}")
DATA=${DATA:-../shared/data}
CYCLE=${CYCLE:-v21.11:v22.03}
EXTRA=${EXTRA:-}
OUT=${OUT:-$(mktemp -d /tmp/weekly.XXXXXX)}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
load() { cut -d' ' -f1-3 /proc/loadavg; }

if [ ! -f "$DATA/dpdk/dpdk-v22.03.git.tar" ]; then
	echo "SKIP: $DATA/dpdk/dpdk-v22.03.git.tar not found"
	exit 0
fi
[ -d "$OUT/dpdk.git" ] || tar -xf "$DATA/dpdk/dpdk-v22.03.git.tar" -C "$OUT"
[ -f "$OUT/dpdk.db" ] || "$STABLESEL" index --repo "$OUT/dpdk.git" --db "$OUT/dpdk.db" >/dev/null 2>&1
a=${CYCLE%:*} b=${CYCLE#*:}
case $b in v22.0[4-9]*|v22.[1-9]*|v2[3-9]*) echo "refused: $b is held out"; exit 1;; esac
start=$(git -C "$OUT/dpdk.git" log -1 --format=%ct "$a")
end=$(git -C "$OUT/dpdk.git" log -1 --format=%ct "$b")
git -C "$OUT/dpdk.git" log --format='%H %ct' "$a..$b" >"$OUT/times"
# the first Monday after vA, then every 7 days up to the Monday after vB
day=$(( (start / 86400 + 7 - (start / 86400 + 3) % 7) * 86400 ))
echo "## DPDK $a..$b, a rank as of each Monday ${EXTRA:+($EXTRA)}"
weeks=""
t0=$(date +%s)
while [ "$day" -le $((end + 7 * 86400)) ]; do
	d=$(date -u -d "@$day" +%Y-%m-%d)
	# shellcheck disable=SC2086
	"$STABLESEL" rank --repo "$OUT/dpdk.git" --db "$OUT/dpdk.db" --rev "$a..$b" --as-of "$d" \
		--format tsv --top 1000000 --no-progress $EXTRA -o "$OUT/w-$d.tsv" 2>"$OUT/w-$d.err"
	weeks="$weeks $d"
	day=$((day + 7 * 86400))
done
echo "ranks: $(( $(date +%s) - t0 )) s for $(echo $weeks | wc -w) weeks (load $(load))"
# shellcheck disable=SC2086
"$HERE/weekly-score.py" "$OUT" "$DATA/dpdk/labels-v16.11-v22.03.tsv" $weeks
