#!/bin/sh
# history-tables.sh - what the bug-history features (the "history" group:
# Fixes:/revert targets found or not, their age, released before the fix,
# releases since, fixes of fixes, reverts of released commits, release
# lines, file ages) add, on the time splits of the classic models:
#   - DPDK, labels from the stable branches (stablesel label --stable ...
#     --releases releases.tsv), train before 2021-03-01, test after, with
#     stable tags visible and with --mask-stable-tags; releases from
#     releases.tsv (placed by the mbox's order, or dates);
#   - Linux tip, label = the stable tag (always masked), split 2023-07-01;
#     no releases file, and the tip mails hold no release commits, so only
#     targets, ages and file ages.
# Each split is evaluated twice with the same models and options, with the
# history features and with --no-history-features; nothing is tuned on the
# test part (settings and thresholds come from the validation slice, the
# newest 15% of the training commits).  Runs one at a time.
#
# Output: bench/out/history-tables.txt (every table, then a summary of the
# change in F1, PR-AUC and precision at recall 0.90).
# Environment: STABLESEL (./stablesel), DATA (../shared/data), MODELS
# (tag,linear,mlp), EXTRA (more eval options).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
MODELS=${MODELS:-tag,linear,mlp}
EXTRA=${EXTRA:-}
OUT=bench/out

die() { echo "history-tables: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
DPDK=$DATA/dpdk
TIP=$DATA/linux-tip
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$STABLESEL" label --stable "$DPDK/stable-branches-v16.11-v22.03.mbox.zst" \
	--releases "$DPDK/releases.tsv" -o "$TMP/dpdk-labels.tsv"

# run NAME TITLE EVAL-ARGS...: $TMP/NAME-with.txt and $TMP/NAME-without.txt
run() {
	name=$1 title=$2
	shift 2
	for h in with without; do
		flag=""
		[ $h = without ] && flag=--no-history-features
		echo "history-tables: $name, $h history features" >&2
		# shellcheck disable=SC2086
		"$STABLESEL" eval "$@" --models "$MODELS" $flag $EXTRA \
			--title "$title, $h history features" -o "$TMP/$name-$h.txt"
	done
}

run dpdk-visible "DPDK, tags visible, split 2021-03-01" \
	--split-date 2021-03-01 "$DPDK/mainline-v16.11-v22.03.mbox.zst" \
	--labels "$TMP/dpdk-labels.tsv" --releases "$DPDK/releases.tsv"
run dpdk-masked "DPDK, tags masked, split 2021-03-01" --mask-stable-tags \
	--split-date 2021-03-01 "$DPDK/mainline-v16.11-v22.03.mbox.zst" \
	--labels "$TMP/dpdk-labels.tsv" --releases "$DPDK/releases.tsv"
run tip-masked "Linux tip, label = stable tag (masked), split 2023-07-01" --mask-stable-tags \
	--split-date 2023-07-01 "$TIP/tip-before-2024-07-01.mbox.zst" \
	--labels "$TIP/labels-tip-before-2024-07-01.tsv" --label-column stable_tag

# metric MODEL FILE: "F1 PR-AUC P@R.9" of MODEL on all test commits (the
# first table of an eval text output)
metric() {
	awk -v m="$1" '/^-- test commits without/ { exit } $1 == m { print $5, $8, $9; exit }' "$2"
}

{
	for name in dpdk-visible dpdk-masked tip-masked; do
		cat "$TMP/$name-with.txt"
		echo
		cat "$TMP/$name-without.txt"
		echo
	done
	echo "== summary: all test commits, without -> with the history features"
	printf '%-13s %-7s %17s %8s %17s %8s %17s %8s\n' split model \
		"F1" "dF1" "PR-AUC" "dPR-AUC" "P@R.9" "dP@R.9"
	for name in dpdk-visible dpdk-masked tip-masked; do
		for model in $(echo "$MODELS" | tr , ' '); do
			[ "$model" = tag ] && continue
			# shellcheck disable=SC2046
			set -- $(metric "$model" "$TMP/$name-without.txt") \
				$(metric "$model" "$TMP/$name-with.txt")
			[ $# -eq 6 ] || continue
			awk -v n="$name" -v m="$model" -v a="$1" -v b="$2" -v c="$3" \
				-v d="$4" -v e="$5" -v f="$6" 'BEGIN {
				printf "%-13s %-7s %7s -> %-7s %+8.3f %7s -> %-7s %+8.3f %7s -> %-7s %+8.3f\n",
					n, m, a, d, d - a, b, e, e - b, c, f, f - c }'
		done
		# on tip the label is the stable tag: the tag row is the label
		t=$(metric tag "$TMP/$name-with.txt")
		[ -n "$t" ] && [ "$name" != tip-masked ] &&
			printf '%-13s %-7s (the tag alone, before masking: F1 PR-AUC P@R.9 = %s)\n' \
				"$name" tag "$t"
	done
	echo "(tip: the label is the stable tag, so the tag row there is the label itself)"
} > "$OUT/history-tables.txt"
cat "$OUT/history-tables.txt"
