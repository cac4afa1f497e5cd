#!/bin/sh
# train-default.sh - rebuild models/default.model, the model built into
# stablesel (what "rank" and "explain" use without --model).
#
# A kernel model from ../shared/data/linux-tip, label = the stable tag,
# tags masked.  linear and mlp are first compared on the time split
# (train before 2023-07-01, test after) and reported; the one with the
# better F1 on its validation slice (the newest part of the training
# commits: the test part never chooses) is then trained on all commits and written to models/default.model,
# with the comparison and the training summary in models/default.txt.
# The file must stay small (< 5 MB).  Run by "make default-model".
#
# Environment: STABLESEL (./stablesel), DATA (../shared/data), KIND (skip
# the comparison and train this kind).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
SPLIT=2023-07-01
MAX_BYTES=5000000

die() { echo "train-default: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA/linux-tip" ] || die "$DATA/linux-tip not found"
MBOX=$DATA/linux-tip/tip-before-2024-07-01.mbox.zst
LABELS=$DATA/linux-tip/labels-tip-before-2024-07-01.tsv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$STABLESEL" eval --mask-stable-tags --split-date $SPLIT "$MBOX" --labels "$LABELS" \
	--label-column stable_tag --models keyword,linear,mlp \
	--title "Linux tip, label = stable tag (masked), split $SPLIT" > "$TMP/split.txt"
if [ -z "${KIND:-}" ]; then
	# "validation F1 x" of the settings lines: chosen on training data only
	KIND=$(awk '/^settings:/ { s++ } s == 1 && ($1 == "linear" || $1 == "mlp") {
		for (i = 1; i < NF; i++) if ($i == "F1") print $(i + 1), $1 }' \
		"$TMP/split.txt" | sort -rn | head -1 | cut -d' ' -f2)
fi
[ -n "$KIND" ] || die "cannot read the comparison"

"$STABLESEL" train --model "$KIND" --mask-stable-tags "$MBOX" --labels "$LABELS" \
	--label-column stable_tag -o "$TMP/default.model" > "$TMP/train.txt"
size=$(wc -c < "$TMP/default.model")
[ "$size" -lt $MAX_BYTES ] || die "the $KIND model has $size bytes, over $MAX_BYTES"

mkdir -p models
{
	echo "models/default.model: the built-in model of stablesel"
	echo "rebuilt by scripts/train-default.sh (make default-model) on $(date -u +%Y-%m-%d)"
	echo "$("$STABLESEL" --version)"
	echo
	echo "data: linux-tip/tip-before-2024-07-01.mbox.zst, label stable_tag, stable tags masked"
	echo "kind: $KIND (the better validation F1 of linear and mlp, training part only), $size bytes"
	echo
	echo "== training on all commits"
	sed "s|^wrote .* (|wrote models/default.model (|" "$TMP/train.txt"
	echo
	cat "$TMP/split.txt"
} > "$TMP/default.txt"
mv "$TMP/default.model" models/default.model
chmod 644 models/default.model
mv "$TMP/default.txt" models/default.txt
# .incbin is not a make dependency: make the object rebuild
touch src/models/default_model.c
cat models/default.txt
