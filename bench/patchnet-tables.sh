#!/bin/sh
# patchnet-tables.sh - PatchNet beside keyword, linear and mlp, on the
# splits of eval.sh.
#
# DPDK: labels from the stable branches (stablesel label), train before
# 2021-03-01, test after, stable tags visible and masked.  Linux tip:
# label = the stable tag (stable_tag), always masked, split 2023-07-01.
# keyword, linear and mlp run with their defaults; patchnet with PN_EXTRA
# and patchnet-feat (PatchNet with a branch for the features of linear and
# mlp) with PF_EXTRA (their settings, chosen on the validation slice by
# patchnet-tune.sh: the shared --lr/--dropout options would otherwise
# change mlp too).  The three runs see the same commits, split and test
# part; their rows are merged into one table per data set.  Then patchnet is trained alone (training
# part, and all commits) under /usr/bin/time: wall seconds, training
# seconds, epochs, peak RSS, and the load average beside them (the CPU is
# shared).
#
# Output: bench/out/patchnet-tables.txt (and the pieces
# bench/out/patchnet-{dpdk-visible,dpdk-masked,tip}.txt).
# Environment: STABLESEL (./stablesel), DATA (../shared/data), PN_EXTRA
# (patchnet options; PN_EXTRA_DPDK and PN_EXTRA_TIP per data set, default
# PN_EXTRA, and for DPDK --dropout 0.7 without it), SETS (dpdk-visible
# dpdk-masked tip), TRAIN (1: the
# training-cost table too).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
PN_EXTRA=${PN_EXTRA:-}
# DPDK's --dropout 0.7 was chosen on its validation slice (patchnet-tune.sh)
PN_EXTRA_DPDK=${PN_EXTRA_DPDK:-${PN_EXTRA:---dropout 0.7}}
PN_EXTRA_TIP=${PN_EXTRA_TIP:-$PN_EXTRA}
PF_EXTRA=${PF_EXTRA:-}
SETS=${SETS:-dpdk-visible dpdk-masked tip}
TRAIN=${TRAIN:-1}
OUT=bench/out

die() { echo "patchnet-tables: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DPDK=$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst
TIP=$DATA/linux-tip/tip-before-2024-07-01.mbox.zst
TIPLABELS=$DATA/linux-tip/labels-tip-before-2024-07-01.tsv

"$STABLESEL" label --stable "$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst" \
	--releases "$DATA/dpdk/releases.tsv" -o "$OUT/dpdk-labels.tsv"
DPDKLABELS=$OUT/dpdk-labels.tsv

load() { cut -d' ' -f1-3 /proc/loadavg; }

# Table a's rows with the patchnet rows of tables b and c after each mlp
# row, and their settings lines after a's mlp settings line.
merge() {
	awk -v b="$2" -v c="$3" '
		function take(f,   l, k) { k = 0; while ((getline l < f) > 0) {
			if (l ~ /^patchnet/) rows[++k, f] = l
			else if (l ~ /^  patchnet/) set[f] = l } }
		BEGIN { take(b); take(c) }
		{ print }
		/^mlp / { ++k; if ((k, b) in rows) print rows[k, b]; if ((k, c) in rows) print rows[k, c] }
		/^  mlp / { if (b in set) print set[b]; if (c in set) print set[c] }
	' "$1"
}

for set in $SETS; do
	case $set in
	dpdk-visible)
		args="--split-date 2021-03-01 $DPDK --labels $DPDKLABELS"
		pn=$PN_EXTRA_DPDK
		title="DPDK, tags visible, split 2021-03-01" ;;
	dpdk-masked)
		args="--mask-stable-tags --split-date 2021-03-01 $DPDK --labels $DPDKLABELS"
		pn=$PN_EXTRA_DPDK
		title="DPDK, tags masked, split 2021-03-01" ;;
	tip)
		args="--mask-stable-tags --split-date 2023-07-01 $TIP --labels $TIPLABELS --label-column stable_tag"
		pn=$PN_EXTRA_TIP
		title="Linux tip, label = stable tag (masked), split 2023-07-01" ;;
	*) die "unknown set $set" ;;
	esac
	l0=$(load)
	# shellcheck disable=SC2086
	"$STABLESEL" eval $args --models keyword,linear,mlp --title "$title" -o "$TMP/a.txt"
	l1=$(load)
	# shellcheck disable=SC2086
	"$STABLESEL" eval $args --models patchnet --title "$title" $pn -o "$TMP/b.txt"
	l2=$(load)
	# shellcheck disable=SC2086
	"$STABLESEL" eval $args --models patchnet-feat --title "$title" $PF_EXTRA -o "$TMP/c.txt"
	{
		merge "$TMP/a.txt" "$TMP/b.txt" "$TMP/c.txt"
		printf '  (load average before the three runs: %s / %s / %s; patchnet options: %s; patchnet-feat options: %s)\n\n' \
			"$l0" "$l1" "$l2" "${pn:-defaults}" "${PF_EXTRA:-defaults}"
	} > "$OUT/patchnet-$set.txt"
	cat "$OUT/patchnet-$set.txt" >&2
done

if [ "$TRAIN" = 1 ]; then
	{
		printf '%-14s %-8s %-18s %8s %9s %8s %6s %8s  %s\n' model data scope commits \
			read+train train_s epochs rss_MB "load before"
		for run in dpdk:before-2021-03-01 dpdk:all tip:before-2023-07-01 tip:all; do
		for model in patchnet patchnet-feat; do
			data=${run%%:*}
			scope=${run#*:}
			before=""
			[ "$scope" = all ] || before="--before ${scope#before-}"
			if [ "$data" = dpdk ]; then
				src="--mask-stable-tags $DPDK --labels $DPDKLABELS"
				pn=$PN_EXTRA_DPDK
			else
				src="--mask-stable-tags $TIP --labels $TIPLABELS --label-column stable_tag"
				pn=$PN_EXTRA_TIP
			fi
			[ "$model" = patchnet ] || pn=$PF_EXTRA
			l0=$(load)
			# shellcheck disable=SC2086
			/usr/bin/time -f '%e %M' -o "$TMP/t" "$STABLESEL" train --kind $model \
				$before $src $pn -o "$TMP/p.model" > "$TMP/train.txt"
			n=$(sed -n 's/^trained [a-z-]* on \([0-9]*\) commits.*/\1/p' "$TMP/train.txt")
			secs=$(sed -n 's/.* in \([0-9.]*\)s$/\1/p' "$TMP/train.txt" | head -1)
			ep=$(sed -n 's/.* epochs=\([0-9]*\).*/\1/p' "$TMP/train.txt" | head -1)
			read -r wall rss < "$TMP/t"
			printf '%-14s %-8s %-18s %8s %9s %8s %6s %8.0f  %s\n' "$model" "$data" "$scope" \
				"$n" "$wall" "$secs" "$ep" "$(echo "$rss / 1024" | bc -l)" "$l0"
		done
		done
		echo "(tags masked; epochs = the kept epoch of early stopping on the validation slice)"
	} > "$OUT/patchnet-train.txt"
fi

for set in $SETS; do cat "$OUT/patchnet-$set.txt"; done > "$OUT/patchnet-tables.txt"
[ "$TRAIN" = 1 ] && cat "$OUT/patchnet-train.txt" >> "$OUT/patchnet-tables.txt"
cat "$OUT/patchnet-tables.txt"
