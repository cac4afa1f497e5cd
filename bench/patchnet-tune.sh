#!/bin/sh
# patchnet-tune.sh - PatchNet settings compared on the validation slice only.
#
# Each setting trains on the training part of a split (--before the split
# date); the model reports, per epoch, the average precision (PR-AUC) on
# the validation slice, the newest 15% of the training commits.  The test
# part (after the split) is never read here: the settings for
# patchnet-tables.sh are chosen from this file.
#
# Output: bench/out/MODEL-tune.txt (one line per setting and data set:
# best validation PR-AUC, its epoch, epochs run, seconds, peak RSS).
# Environment: STABLESEL (./stablesel), DATA (../shared/data), MODEL
# (patchnet or patchnet-feat), SETTINGS (';'-separated option lists, the
# first one empty = defaults), SETS (dpdk-masked dpdk-visible tip).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
SETTINGS=${SETTINGS:-";--lr 3e-4;--dropout 0.7;--lr 3e-4 --dropout 0.7;--no-class-weights"}
SETS=${SETS:-dpdk-masked}
MODEL=${MODEL:-patchnet}
OUT=bench/out

die() { echo "patchnet-tune: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$STABLESEL" label --stable "$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst" \
	--releases "$DATA/dpdk/releases.tsv" -o "$TMP/dpdk-labels.tsv"

{
	printf '# %s, load before: %s\n' "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-13s %-34s %7s %5s %6s %7s %7s\n' data setting val_AP epoch epochs wall_s rss_MB
} > "$TMP/tune.txt"
for set in $SETS; do
	case $set in
	dpdk-masked) args="--mask-stable-tags --before 2021-03-01 $DATA/dpdk/mainline-v16.11-v22.03.mbox.zst --labels $TMP/dpdk-labels.tsv" ;;
	dpdk-visible) args="--before 2021-03-01 $DATA/dpdk/mainline-v16.11-v22.03.mbox.zst --labels $TMP/dpdk-labels.tsv" ;;
	tip) args="--mask-stable-tags --before 2023-07-01 $DATA/linux-tip/tip-before-2024-07-01.mbox.zst --labels $DATA/linux-tip/labels-tip-before-2024-07-01.tsv --label-column stable_tag" ;;
	*) die "unknown set $set" ;;
	esac
	echo "$SETTINGS" | tr ';' '\n' | while IFS= read -r setting; do
		# shellcheck disable=SC2086
		/usr/bin/time -f '%e %M' -o "$TMP/t" "$STABLESEL" train --kind "$MODEL" -v $args \
			$setting -o "$TMP/p.model" > "$TMP/log" 2>&1 || die "training failed: $(tail -1 "$TMP/log")"
		best=$(sed -n 's/.*epoch \([0-9]*\) loss .* PR-AUC \([0-9.]*\)$/\2 \1/p' "$TMP/log" |
			sort -k1,1gr -k2,2n | head -1)
		epochs=$(grep -c 'patchnet: epoch' "$TMP/log" || true)
		read -r wall rss < "$TMP/t"
		# shellcheck disable=SC2086
		printf '%-13s %-34s %7s %5s %6s %7s %7.0f\n' "$set" "${setting:-defaults}" $best \
			"$epochs" "$wall" "$(echo "$rss / 1024" | bc -l)" >> "$TMP/tune.txt"
		tail -1 "$TMP/tune.txt" >&2
	done
done
cp "$TMP/tune.txt" "$OUT/$MODEL-tune.txt"
cat "$OUT/$MODEL-tune.txt"
