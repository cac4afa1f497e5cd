#!/bin/sh
# eval.sh - the classic models (keyword, tag, linear, mlp) on time splits.
#
# dpdk: which mainline commits reach an LTS branch.  Labels come from the
#   stable branches themselves (stablesel label on the stable-branches
#   mbox; they reproduce in_stable of labels-*.tsv).  Train before
#   2021-03-01, test after, once with stable tags visible and once with
#   --mask-stable-tags.
# tip: which Linux tip commits carry Cc: stable.  The label is the tag
#   itself (stable_tag of labels-tip-*.tsv), so tags are always masked.
#   Train before 2023-07-01, test after.
# Each table also has the metrics on the test commits without the tag.
# Then linear and mlp are trained alone (training part, and all commits)
# under /usr/bin/time for wall time and peak RSS.
#
# Output: bench/out/eval-<set>-<mode>.txt (and .json), eval-<set>-train.txt,
# everything of a set together in bench/out/eval-<set>.txt.
# Environment: STABLESEL (./stablesel), DATA (../shared/data), SETS
# (dpdk tip), MODELS (keyword,tag,linear,mlp), EXTRA (more eval/train
# options).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
SETS=${SETS:-dpdk tip}
MODELS=${MODELS:-keyword,tag,linear,mlp}
EXTRA=${EXTRA:-}
OUT=bench/out

die() { echo "eval: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for set in $SETS; do
	case $set in
	dpdk)
		split=2021-03-01
		mbox=$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst
		# labels from the stable tree, checked against the published in_stable
		/usr/bin/time -f '%e %M' -o "$TMP/label.t" "$STABLESEL" label \
			--stable "$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst" \
			-o "$TMP/dpdk-labels.tsv"
		labels="--labels $TMP/dpdk-labels.tsv"
		modes="visible masked"
		name="DPDK" ;;
	tip)
		split=2023-07-01
		mbox=$DATA/linux-tip/tip-before-2024-07-01.mbox.zst
		labels="--labels $DATA/linux-tip/labels-tip-before-2024-07-01.tsv --label-column stable_tag"
		modes="masked"
		name="Linux tip, label = stable tag" ;;
	*) die "unknown set $set" ;;
	esac
	files=""
	for mode in $modes; do
		mask=""
		[ $mode = masked ] && mask=--mask-stable-tags
		for fmt in text json; do
			ext=txt
			[ $fmt = json ] && ext=json
			# shellcheck disable=SC2086
			"$STABLESEL" eval $mask --split-date $split "$mbox" $labels \
				--models "$MODELS" --title "$name, tags $mode, split $split" $EXTRA \
				--format $fmt -o "$OUT/eval-$set-$mode.$ext"
		done
		files="$files $OUT/eval-$set-$mode.txt"
	done

	# training cost of each model alone: wall seconds, the training
	# step's seconds (after reading), peak RSS
	{
		printf '%-7s %-18s %8s %9s %8s %8s\n' model data commits read+train train_s rss_MB
		for model in linear mlp; do
			for scope in before-$split all; do
				before=""
				[ $scope = all ] || before="--before $split"
				# shellcheck disable=SC2086
				/usr/bin/time -f '%e %M' -o "$TMP/t" "$STABLESEL" train --kind $model \
					$before --mask-stable-tags "$mbox" $labels $EXTRA \
					-o "$TMP/$model.model" > "$TMP/train.txt"
				n=$(sed -n 's/^trained [a-z-]* on \([0-9]*\) commits.*/\1/p' "$TMP/train.txt")
				secs=$(sed -n 's/.* in \([0-9.]*\)s$/\1/p' "$TMP/train.txt" | head -1)
				read -r wall rss < "$TMP/t"
				printf '%-7s %-18s %8s %9s %8s %8.0f\n' $model $scope "$n" "$wall" "$secs" \
					"$(echo "$rss / 1024" | bc -l)"
			done
		done
		echo "(tags masked)"
		if [ $set = dpdk ]; then
			read -r wall rss < "$TMP/label.t"
			printf '\nlabels: stablesel label on the stable mbox: %ss, %.0f MB peak RSS, %s rows\n' \
				"$wall" "$(echo "$rss / 1024" | bc -l)" "$(($(wc -l < "$TMP/dpdk-labels.tsv") - 1))"
		fi
	} > "$OUT/eval-$set-train.txt"
	# shellcheck disable=SC2086
	cat $files "$OUT/eval-$set-train.txt" | tee "$OUT/eval-$set.txt"
done
