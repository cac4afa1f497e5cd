#!/bin/sh
# general.sh - the general model (issue 36) on ../shared's validation
# slices, against the kernel-only built-in model it replaced.
#
# 1. DPDK v21.02..v22.03 (the repository of ../shared, labels
#    labels-v16.11-v22.03.tsv; bench/rank-score.py), as a project with no
#    stable history of its own would meet it: the built-in model alone
#    (--model), the stable tags masked (DPDK's tag is its label): the old
#    kernel model (OLD_MODEL, default: models/default.model as of
#    7b1f8ac) and the new one (MODEL, default models/default.model).
# 2. DPDK again with the project model (tags visible, what bench/untagged.sh
#    measures): the binary's own, whose prior is its built-in model.
# 3. Linux tip's validation half-year (2023-07-01..2024-06-30, label the
#    masked stable tag; tip from 2024-07-01 is held out and not in the
#    data): a general model trained on the corpus with tip's commits only
#    before 2023-07-01 (CORPUS_DIR needed; skipped without it), against
#    the kernel recipe's figures on the same split (models/default.txt of
#    7b1f8ac: linear, PR-AUC 0.438, F1 0.536); tip's commits weighted as
#    scripts/train-default.sh weights them (TIP_WEIGHT, 6).
#
# Usage: bench/general.sh [WORKDIR]   (default /tmp/ss-general; kept)
# Environment: STABLESEL (./stablesel), DATA (../shared/data), MODEL,
# OLD_MODEL, CORPUS_DIR.  Figures to stdout, the load beside timings.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
STABLESEL=${STABLESEL:-$ROOT/stablesel}
DATA=${DATA:-$ROOT/../shared/data}
OUT=${1:-/tmp/ss-general}
MODEL=${MODEL:-$ROOT/models/default.model}
mkdir -p "$OUT"
if [ -z "${OLD_MODEL:-}" ]; then
	OLD_MODEL=$OUT/kernel.model
	git -C "$ROOT" show 7b1f8ac:models/default.model > "$OLD_MODEL"
fi
load() { cut -d' ' -f1-3 /proc/loadavg; }

if [ ! -f "$DATA/dpdk/dpdk-v22.03.git.tar" ]; then
	echo "SKIP: $DATA/dpdk not found"
else
	[ -d "$OUT/dpdk.git" ] || tar -xf "$DATA/dpdk/dpdk-v22.03.git.tar" -C "$OUT"
	# first build, or an update (nothing new: a schema upgrade at most)
	"$STABLESEL" index --no-progress --repo "$OUT/dpdk.git" --db "$OUT/dpdk.db" >/dev/null 2>&1
	echo "## DPDK v21.02..v22.03, the built-in model alone, stable tags masked"
	for m in old:"$OLD_MODEL" new:"$MODEL"; do
		name=${m%%:*}
		"$STABLESEL" rank --no-progress --model "${m#*:}" --mask-stable-tags --repo "$OUT/dpdk.git" \
			--db "$OUT/dpdk.db" --rev v21.02..v22.03 --format tsv --top 1000000 \
			-o "$OUT/dpdk-$name.tsv" 2>/dev/null
		echo "### $name"
		"$HERE/rank-score.py" "$OUT/dpdk-$name.tsv" "$DATA/dpdk/labels-v16.11-v22.03.tsv"
	done
	echo
	echo "## DPDK v21.02..v22.03, the project model (tags visible)"
	rm -f "$OUT/dpdk-project.model"
	t0=$(date +%s)
	"$STABLESEL" rank --no-progress --repo "$OUT/dpdk.git" --db "$OUT/dpdk.db" --rev v21.02..v22.03 \
		--project-model "$OUT/dpdk-project.model" --format tsv --top 1000000 \
		-o "$OUT/dpdk-project.tsv" 2>"$OUT/dpdk-project.err"
	echo "first rank $(( $(date +%s) - t0 )) s (load $(load))"
	grep "^rank: " "$OUT/dpdk-project.err" | grep -v "^rank: kept" || true
	"$HERE/rank-score.py" "$OUT/dpdk-project.tsv" "$DATA/dpdk/labels-v16.11-v22.03.tsv"
fi

echo
if [ -z "${CORPUS_DIR:-}" ] || [ ! -d "$DATA/linux-tip" ]; then
	echo "SKIP tip: CORPUS_DIR not set or $DATA/linux-tip not found"
	exit 0
fi
echo "## Linux tip 2023-07-01..2024-06-30, a general model trained with tip before 2023-07-01"
awk -F'\t' 'BEGIN { OFS = "\t" } $1 == "linux-tip" { $6 = "2023-07-01" } { print }' \
	"$ROOT/scripts/corpus.tsv" > "$OUT/corpus-tipsplit.tsv"
"$STABLESEL" corpus --list "$OUT/corpus-tipsplit.tsv" --dir "$CORPUS_DIR" --data "$DATA" \
	--weight linux-tip="${TIP_WEIGHT:-6}" -o "$OUT/tipsplit.model" 2>/dev/null | grep -v "^wrote"
"$STABLESEL" rank --no-progress --model "$OUT/tipsplit.model" --mask-stable-tags \
	--since 2023-07-01 "$DATA/linux-tip/tip-before-2024-07-01.mbox.zst" --format tsv \
	--top 1000000 -o "$OUT/tip.tsv" 2>/dev/null
python3 - "$OUT/tip.tsv" "$DATA/linux-tip/labels-tip-before-2024-07-01.tsv" <<'EOF'
import sys
lab = {}
for l in open(sys.argv[2]):
    x = l.rstrip('\n').split('\t')
    if x[0] != 'sha':
        lab[x[0]] = int(x[3])
rows = []
for l in open(sys.argv[1]):
    x = l.rstrip('\n').split('\t')
    if x[0] != 'sha' and x[0] in lab:
        rows.append((float(x[1]), x[2] == '1', lab[x[0]]))
rows.sort(key=lambda r: -r[0])
pos = sum(r[2] for r in rows)
tp = sum(1 for r in rows if r[1] and r[2])
sel = sum(1 for r in rows if r[1])
ap, t = 0.0, 0
for i, r in enumerate(rows):
    if r[2]:
        t += 1
        ap += t / (i + 1)
ap /= max(pos, 1)
p = tp / sel if sel else 0
rc = tp / pos if pos else 0
f1 = 2 * p * rc / (p + rc) if p + rc else 0
print(f"tip: {len(rows)} commits, {pos} tagged; picks {sel}: P {p:.3f} R {rc:.3f} F1 {f1:.3f}; "
      f"AP {ap:.3f}; P@20 {sum(r[2] for r in rows[:20]) / 20:.2f}")
EOF
