#!/bin/sh
# index-history.sh - what the project index's history is worth to a model:
# DPDK's real repository (../shared/data/dpdk/dpdk-v22.03.git.tar), a
# linear model trained on v16.11..v21.02 (tags masked, labels from the
# index's backports), then the narrow range v21.02..v22.03 ranked with
# the index (history: the whole mainline) and with --no-index (history:
# only the range read), scored against the same labels.  Two more rows
# rank the same range with the index but without that model: "project"
# lets rank train the project model itself (no --model; it learns from the
# index's backports of every mainline commit before the range, not from
# the ranked range, so this row is held out too: docs/scores.md; kept in a
# scratch --project-model file) and "builtin" scores with the built-in
# kernel model (models/default.model).
#
# Prints, per run: commits, positives, picks, precision, recall, F1,
# average precision (PR-AUC), seconds and peak RSS; also into
# bench/out/index-history.txt.  Environment: STABLESEL (./stablesel),
# SS_DATA (../shared/data).  Run from the top of the tree after `make`.
set -eu
cd "$(dirname "$0")/.."

STABLESEL=${STABLESEL:-./stablesel}
DATA=${SS_DATA:-../shared/data}
OUT=bench/out
TAR=$DATA/dpdk/dpdk-v22.03.git.tar

if [ ! -f "$TAR" ]; then
	echo "SKIP: $DATA not found"
	exit 0
fi
[ -x "$STABLESEL" ] || { echo "index-history: $STABLESEL not found (run make first)" >&2; exit 1; }
mkdir -p "$OUT"
STABLESEL=$(realpath "$STABLESEL")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ss-bench-ixh-XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
tar -xf "$TAR" -C "$TMP"
R=$TMP/dpdk.git

# timed RUN...: wall seconds and peak RSS (MB) of one command
timed() {
	/usr/bin/time -f "%e %M" -o "$TMP/time" "$@" || [ $? -eq 1 ]
	# the last line: time writes "Command exited with non-zero status 1" first
	tail -n 1 "$TMP/time" | awk '{ printf "%.1f s, %.0f MB", $1, $2 / 1024 }'
}

{
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "index: $(timed "$STABLESEL" index --no-progress --repo "$R" 2>/dev/null)"
	"$STABLESEL" label --db "$R/stablesel/index.db" -o "$TMP/labels.tsv"
	echo "train v16.11..v21.02: $(timed "$STABLESEL" train --no-progress --repo "$R" \
		--rev v16.11..v21.02 --labels "$TMP/labels.tsv" --mask-stable-tags --kind linear \
		-o "$TMP/m.model" 2>/dev/null)"
	for mode in index no-index project builtin; do
		case $mode in
		index) extra="--model $TMP/m.model" ;;
		no-index) extra="--model $TMP/m.model --no-index" ;;
		project) extra="--project-model $TMP/pm.model" ;;
		builtin) extra="--model models/default.model" ;;
		esac
		t=$(timed "$STABLESEL" rank --no-progress --repo "$R" --rev v21.02..v22.03 \
			--mask-stable-tags $extra --format tsv --top 100000 \
			-o "$TMP/$mode.tsv" 2>/dev/null)
		awk -F'\t' -v mode=$mode -v t="$t" '
			NR == FNR { if (FNR > 1) lab[$1] = ($2 == "1"); next }
			FNR > 1 { n++; s[n] = $2; l[n] = lab[$1] + 0; pos += l[n]
				  if ($3 == 1) { picks++; tp += l[n] } }
			END {
				# rows come best first: average precision in one pass
				for (i = 1; i <= n; i++) if (l[i]) { hit++; ap += hit / i }
				p = picks ? tp / picks : 0; r = pos ? tp / pos : 0
				printf "%-8s %d commits, %d positive, %d picks: P %.3f R %.3f F1 %.3f PR-AUC %.3f (%s)\n",
					mode, n, pos, picks, p, r, p + r ? 2 * p * r / (p + r) : 0,
					pos ? ap / pos : 0, t }' "$TMP/labels.tsv" "$TMP/$mode.tsv"
	done
} | tee "$OUT/index-history.txt"
