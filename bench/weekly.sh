#!/bin/sh
# weekly.sh - a maintainer's cycle replayed week by week (issue 36, item 6).
#
# A maintainer ranks every Monday; what the branch took so far, the
# releases tagged and the decisions made are what is known then.  Each
# Monday of the cycle vA..vB, "stablesel rank --as-of MONDAY" ranks the
# cycle's commits as they were known that day (no --model: the project
# model is trained on what was settled then), and the commits committed
# in the week before it (the week's new ones) are scored against what
# reached stable in the end: AP and P@20 a week, and over every week's
# new commits pooled (each scored as of its Monday), for all commits and
# the untagged ones (bench/weekly-score.py).
#
# Validation slices only.  PROJECT=dpdk (default): the repository of
# ../shared/data, CYCLE v21.11:v22.03, labels-v16.11-v22.03.tsv (DPDK after
# v22.03 is held out).  PROJECT=systemd: a copy of the public mirror
# github:systemd/systemd-stable cut at the cycle's end (bench/sdcut.sh;
# $SYSTEMD, default /work/bench/sdcut254.git), indexed (--mainline main;
# not timed nor scored), CYCLE v253:v254, labels = "stablesel label" of
# that index (what the stable branches had taken by the cut); no cycle
# reaching v255 (v255 and later, and the v254..v255 cycle, are held out;
# the whole mirror's branches hold v255-stable's backports).
# Run twice to compare a lever: EXTRA="--option" adds options to every
# rank.
#
# Environment: STABLESEL (./stablesel), DATA (../shared/data), SYSTEMD
# (/work/bench/sdcut254.git: bench/sdcut.sh v254), OUT (a scratch folder,
# default a new temporary one, kept; its repository and index are reused),
# PROJECT, CYCLE, EXTRA, FRESH (rank again the weeks OUT holds).  Figures
# on stdout with the load beside them.  Give STABLESEL a copy of the
# binary when you build while it runs.
set -eu
STABLESEL=$(realpath "${STABLESEL:-./stablesel}")
DATA=${DATA:-../shared/data}
SYSTEMD=${SYSTEMD:-/work/bench/sdcut254.git}
PROJECT=${PROJECT:-dpdk}
EXTRA=${EXTRA:-}
OUT=${OUT:-$(mktemp -d /tmp/weekly.XXXXXX)}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
load() { cut -d' ' -f1-3 /proc/loadavg; }

case $PROJECT in
dpdk)
	CYCLE=${CYCLE:-v21.11:v22.03}
	if [ ! -f "$DATA/dpdk/dpdk-v22.03.git.tar" ]; then
		echo "SKIP: $DATA/dpdk/dpdk-v22.03.git.tar not found"
		exit 0
	fi
	REPO=$OUT/dpdk.git DB=$OUT/dpdk.db LABELS=$DATA/dpdk/labels-v16.11-v22.03.tsv
	[ -d "$REPO" ] || tar -xf "$DATA/dpdk/dpdk-v22.03.git.tar" -C "$OUT"
	[ -f "$DB" ] || "$STABLESEL" index --repo "$REPO" --db "$DB" >/dev/null 2>&1
	case ${CYCLE#*:} in v22.0[4-9]*|v22.[1-9]*|v2[3-9]*) echo "refused: held out"; exit 1;; esac
	;;
systemd)
	CYCLE=${CYCLE:-v253:v254}
	if [ ! -d "$SYSTEMD" ]; then
		echo "SKIP: no systemd mirror at $SYSTEMD"
		exit 0
	fi
	# v255 and later, v255-stable and the v254..v255 cycle are held out
	case ${CYCLE#*:} in v25[5-9]*|v2[6-9]*) echo "refused: held out"; exit 1;; esac
	REPO=$SYSTEMD DB=$OUT/sd.db LABELS=$OUT/sd-labels.tsv
	[ -f "$DB" ] || "$STABLESEL" index --repo "$REPO" --db "$DB" --mainline main >/dev/null 2>&1
	[ -f "$LABELS" ] || "$STABLESEL" label --db "$DB" -o "$LABELS" 2>/dev/null
	;;
*)
	echo "PROJECT is dpdk or systemd"; exit 1;;
esac
a=${CYCLE%:*} b=${CYCLE#*:}
start=$(git -C "$REPO" log -1 --format=%ct "$a")
end=$(git -C "$REPO" log -1 --format=%ct "$b")
git -C "$REPO" log --format='%H %ct' "$a..$b" >"$OUT/times"
# the first Monday after vA, then every 7 days up to the Monday after vB
day=$(( (start / 86400 + 7 - (start / 86400 + 3) % 7) * 86400 ))
echo "## $PROJECT $a..$b, a rank as of each Monday ${EXTRA:+($EXTRA)}"
weeks=""
t0=$(date +%s)
while [ "$day" -le $((end + 7 * 86400)) ]; do
	d=$(date -u -d "@$day" +%Y-%m-%d)
	weeks="$weeks $d"
	day=$((day + 7 * 86400))
	# a week ranked before in OUT is kept (FRESH=1 ranks it again)
	[ -s "$OUT/w-$d.tsv" ] && [ -z "${FRESH:-}" ] && continue
	# shellcheck disable=SC2086
	"$STABLESEL" rank --repo "$REPO" --db "$DB" --rev "$a..$b" --as-of "$d" \
		--format tsv --top 1000000 --no-progress $EXTRA -o "$OUT/w-$d.tsv" 2>"$OUT/w-$d.err"
done
echo "ranks: $(( $(date +%s) - t0 )) s for $(echo $weeks | wc -w) weeks (load $(load))"
# shellcheck disable=SC2086
"$HERE/weekly-score.py" "$OUT" "$LABELS" $weeks
