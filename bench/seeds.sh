#!/bin/sh
# seeds.sh - how far one seed moves the test figures of the trained models.
#
# The tables of patchnet-tables.sh come from seed 1.  Here mlp, patchnet
# and patchnet-feat (warm start, the default, and cold with
# --no-warm-start) are evaluated on the same splits with SEEDS (1 2 3),
# and each model's F1, ROC-AUC and PR-AUC on the test part are given as
# the values per seed, their mean and sample standard deviation.  This
# reports spread only: no setting is chosen from it (settings come from
# the validation slice, patchnet-tune.sh).
#
# Output: bench/out/seeds.txt.
# Environment: STABLESEL (./stablesel), DATA (../shared/data), SEEDS
# (1 2 3), SETS (tip dpdk-masked).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
SEEDS=${SEEDS:-1 2 3}
SETS=${SETS:-tip dpdk-masked}
OUT=bench/out

die() { echo "seeds: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DPDK=$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst

"$STABLESEL" label --stable "$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst" \
	--releases "$DATA/dpdk/releases.tsv" -o "$TMP/dpdk-labels.tsv"

# The rows of the first table (all test commits) of an eval output, the
# model renamed to $2 when given: model F1 ROC-AUC PR-AUC.
rows() {
	awk -v as="${2:-}" '/^--/ { exit } /^[a-z]/ && $1 !~ /:$/ && $2 ~ /^[0-9]+\.[0-9]+$/ {
		print (as != "" ? as : $1), $5, $7, $8 }' "$1"
}

: > "$TMP/all.txt"
for set in $SETS; do
	case $set in
	dpdk-masked) args="--mask-stable-tags --split-date 2021-03-01 $DPDK --labels $TMP/dpdk-labels.tsv" ;;
	tip) args="--mask-stable-tags --split-date 2023-07-01 $DATA/linux-tip/tip-before-2024-07-01.mbox.zst --labels $DATA/linux-tip/labels-tip-before-2024-07-01.tsv --label-column stable_tag" ;;
	*) die "unknown set $set" ;;
	esac
	for seed in $SEEDS; do
		# shellcheck disable=SC2086
		"$STABLESEL" eval $args --models mlp,patchnet,patchnet-feat --seed "$seed" \
			-o "$TMP/a.txt" 2> "$TMP/log" || die "eval failed: $(tail -1 "$TMP/log")"
		# shellcheck disable=SC2086
		"$STABLESEL" eval $args --models patchnet-feat --no-warm-start --seed "$seed" \
			-o "$TMP/b.txt" 2> "$TMP/log" || die "eval failed: $(tail -1 "$TMP/log")"
		{ rows "$TMP/a.txt"; rows "$TMP/b.txt" patchnet-feat-cold; } |
			sed "s/^/$set $seed /" >> "$TMP/all.txt"
		tail -4 "$TMP/all.txt" >&2
	done
done

{
	printf '# %s, seeds: %s; test part of each split; mean and sample sd over the seeds\n' \
		"$(date -u +%FT%TZ)" "$SEEDS"
	printf '%-12s %-19s %-24s %-15s %-24s %-15s %-24s %-15s\n' data model \
		"F1 per seed" "F1 mean+-sd" "ROC-AUC per seed" "ROC mean+-sd" "PR-AUC per seed" "PR mean+-sd"
	awk '
		{ k = $1 " " $3; if (!(k in n)) order[++m] = k; n[k]++
		  for (c = 0; c < 3; c++) { v[k, c, n[k]] = $(4 + c) } }
		function stat(k, c,   i, s, ss, mean, sd, list) {
			s = 0; list = ""
			for (i = 1; i <= n[k]; i++) { s += v[k, c, i]; list = list v[k, c, i] " " }
			mean = s / n[k]; ss = 0
			for (i = 1; i <= n[k]; i++) ss += (v[k, c, i] - mean) ^ 2
			sd = n[k] > 1 ? sqrt(ss / (n[k] - 1)) : 0
			return sprintf("%-24s %.3f+-%.3f    ", list, mean, sd)
		}
		END { for (i = 1; i <= m; i++) { split(order[i], p, " ")
			printf "%-12s %-19s %s%s%s\n", p[1], p[2], stat(order[i], 0), stat(order[i], 1),
				stat(order[i], 2) } }
	' "$TMP/all.txt"
} > "$OUT/seeds.txt"
cat "$OUT/seeds.txt"
