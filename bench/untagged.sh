#!/bin/sh
# untagged.sh - how well the project model finds stable material nobody
# tagged, per project and validation slice (issue 27).
#
# systemd (no stable tag; its v2NN-stable branches carry cherry picks):
# the public mirror github:systemd/systemd-stable, bare, at $SYSTEMD
# (default /work/.mirror/systemd+systemd-stable/repo; skipped with a
# message when absent).  Indexed once into $OUT with --mainline main, then
# each validation slice vA..vB is ranked with no --model (the project
# model learns from the history before vA, never from the ranked commits)
# and scored against what vA-stable carries.  Only releases before v255:
# v255 and later, and v255-stable, are held out.
#
# DPDK: the repository of ../shared/data (dpdk-v22.03.git.tar), ranked
# over v21.02..v22.03 against labels-v16.11-v22.03.tsv (bench/rank-score.py:
# all commits and the untagged subset).
#
# Each table: bench/untagged-score.py (precision, recall, F1 at the
# model's threshold, AP, P@50, P@100, ECE, each band's realised rate) and
# a bug/fix keyword baseline.  Figures go to stdout; timings with the
# load average beside them.
#
# Environment: STABLESEL (./stablesel), OUT (a scratch folder, default a
# new temporary one, kept), SLICES ("v253:v254 v254:v255"), DATA
# (../shared/data).
set -eu
STABLESEL=$(realpath "${STABLESEL:-./stablesel}")
DATA=${DATA:-../shared/data}
SYSTEMD=${SYSTEMD:-/work/.mirror/systemd+systemd-stable/repo}
SLICES=${SLICES:-v253:v254 v254:v255}
OUT=${OUT:-$(mktemp -d /tmp/untagged.XXXXXX)}
HERE=$(dirname "$0")
mkdir -p "$OUT"
load() { cut -d' ' -f1-3 /proc/loadavg; }

if [ -d "$SYSTEMD" ]; then
	echo "## systemd ($SYSTEMD)"
	# the whole mirror, held-out history included: not timed nor counted
	"$STABLESEL" index --repo "$SYSTEMD" --db "$OUT/sd.db" --mainline main 2>"$OUT/sd-index.err" >/dev/null
	"$STABLESEL" label --db "$OUT/sd.db" -o "$OUT/sd-labels.tsv" 2>/dev/null
	for s in $SLICES; do
		a=${s%:*} b=${s#*:}
		# v255 and later, and v255-stable, are held out: no slice starts there
		case $a in v25[5-9]*|v2[6-9]*) echo "skip $a..$b: held out"; continue;; esac
		t0=$(date +%s)
		"$STABLESEL" rank --repo "$SYSTEMD" --db "$OUT/sd.db" --rev "$a..$b" --format tsv \
			--top 1000000 --project-model "$OUT/sd-$a.model" -o "$OUT/sd-$a.tsv" \
			2>"$OUT/sd-$a.err" || true
		echo
		echo "### $a..$b against $a-stable: first rank $(( $(date +%s) - t0 )) s (load $(load))"
		grep -h "^rank: the features\|^rank: trained\|^rank: learning from" "$OUT/sd-$a.err" || true
		echo
		"$HERE/untagged-score.py" "$OUT/sd-$a.tsv" "$OUT/sd-labels.tsv" "$a-stable" "$SYSTEMD" "$a..$b"
	done
else
	echo "SKIP systemd: no mirror at $SYSTEMD (fetch github:systemd/systemd-stable)"
fi

if [ -f "$DATA/dpdk/dpdk-v22.03.git.tar" ]; then
	echo
	echo "## DPDK (../shared/data, v21.02..v22.03)"
	[ -d "$OUT/dpdk.git" ] || tar -xf "$DATA/dpdk/dpdk-v22.03.git.tar" -C "$OUT"
	"$STABLESEL" index --repo "$OUT/dpdk.git" --db "$OUT/dpdk.db" >/dev/null 2>&1
	t0=$(date +%s)
	"$STABLESEL" rank --repo "$OUT/dpdk.git" --db "$OUT/dpdk.db" --rev v21.02..v22.03 \
		--project-model "$OUT/dpdk.model" --format tsv --top 1000000 -o "$OUT/dpdk.tsv" \
		2>"$OUT/dpdk.err" || true
	echo "first rank $(( $(date +%s) - t0 )) s (load $(load))"
	grep -h "^rank: the features\|^rank: trained\|^rank: learning from" "$OUT/dpdk.err" || true
	"$HERE/rank-score.py" "$OUT/dpdk.tsv" "$DATA/dpdk/labels-v16.11-v22.03.tsv"
else
	echo "SKIP DPDK: $DATA/dpdk not found"
fi
echo
echo "scratch: $OUT"
