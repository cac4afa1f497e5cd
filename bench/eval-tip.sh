#!/bin/sh
# eval-tip.sh - Linux tip: which commits carry Cc: stable.
#
# The label is the stable tag itself (stable_tag of labels-tip-*.tsv), so
# tags are always masked: a model must find stable material without
# seeing any trace of the tag.  Models train on commits authored before
# 2023-07-01 and are tested on the rest.  Then linear and mlp are trained
# alone (training part, all 14,568 commits) under /usr/bin/time.
#
# Output: bench/out/eval-tip-masked.txt (and .json), eval-tip-train.txt,
# everything together in bench/out/eval-tip.txt.
# Environment: STABLESEL (./stablesel), DATA (../shared/data), MODELS
# (keyword,tag,linear,mlp), EXTRA (more eval/train options).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
MODELS=${MODELS:-keyword,tag,linear,mlp}
EXTRA=${EXTRA:-}
OUT=bench/out
SPLIT=2023-07-01

die() { echo "eval-tip: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
MBOX=$DATA/linux-tip/tip-before-2024-07-01.mbox.zst
LABELS=$DATA/linux-tip/labels-tip-before-2024-07-01.tsv
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck disable=SC2086
"$STABLESEL" eval --mask-stable-tags --split-date $SPLIT "$MBOX" --labels "$LABELS" \
	--label-column stable_tag --models "$MODELS" \
	--title "Linux tip, label = stable tag (masked), split $SPLIT" $EXTRA \
	-o "$OUT/eval-tip-masked.txt"
# shellcheck disable=SC2086
"$STABLESEL" eval --mask-stable-tags --split-date $SPLIT "$MBOX" --labels "$LABELS" \
	--label-column stable_tag --models "$MODELS" \
	--title "Linux tip, label = stable tag (masked), split $SPLIT" $EXTRA \
	--format json -o "$OUT/eval-tip-masked.json"

{
	printf '%-7s %-10s %8s %9s %8s %8s\n' model data commits read+train train_s rss_MB
	for model in linear mlp; do
		for scope in before-$SPLIT all; do
			before=""
			[ $scope = all ] || before="--before $SPLIT"
			# shellcheck disable=SC2086
			/usr/bin/time -f '%e %M' -o "$TMP/t" "$STABLESEL" train --model $model $before \
				--mask-stable-tags "$MBOX" --labels "$LABELS" --label-column stable_tag \
				$EXTRA -o "$TMP/$model.model" > "$TMP/train.txt"
			n=$(sed -n 's/^trained [a-z]* on \([0-9]*\) commits.*/\1/p' "$TMP/train.txt")
			secs=$(sed -n 's/.* in \([0-9.]*\)s$/\1/p' "$TMP/train.txt" | head -1)
			read -r wall rss < "$TMP/t"
			printf '%-7s %-10s %8s %9s %8s %8.0f\n' $model $scope "$n" "$wall" "$secs" \
				"$(echo "$rss / 1024" | bc -l)"
		done
	done
} > "$OUT/eval-tip-train.txt"

cat "$OUT/eval-tip-masked.txt" "$OUT/eval-tip-train.txt" | tee "$OUT/eval-tip.txt"
