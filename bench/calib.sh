#!/bin/sh
# calib.sh - calibration on the time splits of docs/features.md
# ("Calibration"): linear and mlp on tip and DPDK with the ECE, the picks'
# mean score and the reliability tables (the test part), then the inner
# splits inside the training parts (train before 2022-07-01 on tip,
# 2020-03-01 on DPDK) whose scores bench/calib-compare.py uses to compare
# Platt and isotonic maps without touching the test part.  For the inner
# comparison STABLESEL must be a build without calibration (before
# format version 2), or the maps are compared on calibrated scores.
#
# Output: bench/out/calib-*.txt and .tsv.
# Environment: STABLESEL (./stablesel), RAW (an uncalibrated stablesel for
# the inner splits; default STABLESEL), DATA (../shared/data).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
RAW=${RAW:-$STABLESEL}
DATA=${DATA:-../shared/data}
OUT=bench/out
mkdir -p $OUT

TIP="$DATA/linux-tip/tip-before-2024-07-01.mbox.zst --mask-stable-tags
	--labels $DATA/linux-tip/labels-tip-before-2024-07-01.tsv --label-column stable_tag"
"$STABLESEL" label --stable "$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst" -o $OUT/calib-dpdk-labels.tsv
DPDK="$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst --mask-stable-tags --labels $OUT/calib-dpdk-labels.tsv"

# shellcheck disable=SC2086
{
	"$STABLESEL" eval --split-date 2023-07-01 $TIP --models linear,mlp -o $OUT/calib-tip.txt
	"$STABLESEL" eval --split-date 2021-03-01 $DPDK --models linear,mlp -o $OUT/calib-dpdk.txt
	"$RAW" eval --split-date 2022-07-01 $TIP --models linear,mlp --scores $OUT/calib-tip-inner.tsv -o /dev/null
	"$RAW" eval --split-date 2020-03-01 $DPDK --models linear --scores $OUT/calib-dpdk-inner.tsv -o /dev/null
}
{
	python3 bench/calib-compare.py $OUT/calib-tip-inner.tsv "$(date -u -d 2023-07-01 +%s)" tip
	python3 bench/calib-compare.py $OUT/calib-dpdk-inner.tsv "$(date -u -d 2021-03-01 +%s)" dpdk
} | tee $OUT/calib-compare.txt
