#!/bin/sh
# eval-dpdk.sh - DPDK: which mainline commits reach an LTS branch.
#
# Labels come from the stable branches themselves (stablesel label on the
# stable-branches mbox; they reproduce in_stable of labels-*.tsv).  Models
# train on commits authored before 2021-03-01 and are tested on the rest,
# once with stable tags visible and once with --mask-stable-tags; each
# table also has the metrics on the test commits without the tag.  Then
# linear and mlp are trained alone (on the training part, and on all
# 25,959 commits) under /usr/bin/time for wall time and peak RSS.
#
# Output: bench/out/eval-dpdk-visible.txt, eval-dpdk-masked.txt (and .json),
# eval-dpdk-train.txt, and everything together in bench/out/eval-dpdk.txt.
# Environment: STABLESEL (./stablesel), DATA (../shared/data), MODELS
# (keyword,tag,linear,mlp), EXTRA (more eval/train options).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
MODELS=${MODELS:-keyword,tag,linear,mlp}
EXTRA=${EXTRA:-}
OUT=bench/out
SPLIT=2021-03-01

die() { echo "eval-dpdk: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
MBOX=$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst
STABLE=$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# labels from the stable tree, checked against the published in_stable
/usr/bin/time -f '%e %M' -o "$TMP/label.t" "$STABLESEL" label --stable "$STABLE" -o "$TMP/dpdk-labels.tsv"
LABELS=$TMP/dpdk-labels.tsv

for mode in visible masked; do
	mask=""
	[ $mode = masked ] && mask=--mask-stable-tags
	# shellcheck disable=SC2086
	"$STABLESEL" eval $mask --split-date $SPLIT "$MBOX" --labels "$LABELS" \
		--models "$MODELS" --title "DPDK, tags $mode, split $SPLIT" $EXTRA \
		-o "$OUT/eval-dpdk-$mode.txt"
	# shellcheck disable=SC2086
	"$STABLESEL" eval $mask --split-date $SPLIT "$MBOX" --labels "$LABELS" \
		--models "$MODELS" --title "DPDK, tags $mode, split $SPLIT" $EXTRA \
		--format json -o "$OUT/eval-dpdk-$mode.json"
done

# training cost of each model alone: wall seconds, the training step's
# seconds (after reading), peak RSS
{
	printf '%-7s %-10s %8s %9s %8s %8s\n' model data commits read+train train_s rss_MB
	for model in linear mlp; do
		for scope in before-$SPLIT all; do
			before=""
			[ $scope = all ] || before="--before $SPLIT"
			# shellcheck disable=SC2086
			/usr/bin/time -f '%e %M' -o "$TMP/t" "$STABLESEL" train --model $model $before \
				"$MBOX" --labels "$LABELS" $EXTRA -o "$TMP/$model.model" > "$TMP/train.txt"
			n=$(sed -n 's/^trained [a-z]* on \([0-9]*\) commits.*/\1/p' "$TMP/train.txt")
			secs=$(sed -n 's/.* in \([0-9.]*\)s$/\1/p' "$TMP/train.txt" | head -1)
			read -r wall rss < "$TMP/t"
			printf '%-7s %-10s %8s %9s %8s %8.0f\n' $model $scope "$n" "$wall" "$secs" \
				"$(echo "$rss / 1024" | bc -l)"
		done
	done
	read -r wall rss < "$TMP/label.t"
	printf '\nlabels: stablesel label on the stable mbox: %ss, %.0f MB peak RSS, %s rows\n' \
		"$wall" "$(echo "$rss / 1024" | bc -l)" "$(($(wc -l < "$LABELS") - 1))"
} > "$OUT/eval-dpdk-train.txt"

cat "$OUT/eval-dpdk-visible.txt" "$OUT/eval-dpdk-masked.txt" "$OUT/eval-dpdk-train.txt" \
	| tee "$OUT/eval-dpdk.txt"
