#!/bin/sh
# bands.sh - the verdict bands (docs/scores.md) on DPDK's time split: train
# before 2021-03-01, score the commits after, stable tags masked, labels
# from the stable branches (as bench/eval.sh does), the releases table as
# history.  For each model: its cut points (chosen on its validation slice,
# the newest 15% of the training commits) and, per band, how many test
# commits fell in it and the fraction of them that reached stable, on all
# test commits and on those without the stable tag.  The tip split (train
# before 2023-07-01) follows with SETS="dpdk tip".
#
# Output: bench/out/bands-<set>.txt (the eval table) and the band tables
# with the machine's load in bench/out/bands.txt.
# Environment: STABLESEL (./stablesel), DATA (../shared/data), MODELS
# (linear,mlp), SETS (dpdk).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
MODELS=${MODELS:-linear,mlp}
SETS=${SETS:-dpdk}
OUT=bench/out
die() { echo "bands: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
mkdir -p $OUT
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

: > $OUT/bands.txt
for set in $SETS; do
	case $set in
	dpdk)
		split=2021-03-01
		"$STABLESEL" label --stable "$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst" \
			-o "$TMP/dpdk-labels.tsv"
		args="$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst --labels $TMP/dpdk-labels.tsv
			--releases $DATA/dpdk/releases.tsv"
		name="DPDK, label = reached an LTS branch" ;;
	tip)
		split=2023-07-01
		args="$DATA/linux-tip/tip-before-2024-07-01.mbox.zst
			--labels $DATA/linux-tip/labels-tip-before-2024-07-01.tsv --label-column stable_tag"
		name="Linux tip, label = stable tag" ;;
	*) die "unknown set $set" ;;
	esac
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	# shellcheck disable=SC2086
	"$STABLESEL" eval --mask-stable-tags --split-date $split $args --models "$MODELS" \
		--title "$name, tags masked, split $split" -o "$OUT/bands-$set.txt"
	load1=$(cut -d' ' -f1-3 /proc/loadavg)
	{
		sed -n '1,3p' "$OUT/bands-$set.txt"
		sed -n '/^-- bands of /,/^no /p' "$OUT/bands-$set.txt"
		echo "(load average before/after: $load0 / $load1; $(nproc) cores; $("$STABLESEL" --version | head -1))"
		echo
	} >> $OUT/bands.txt
done
cat $OUT/bands.txt
