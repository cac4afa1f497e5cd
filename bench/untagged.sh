#!/bin/sh
# untagged.sh - how well the project model finds stable material nobody
# tagged, per project and validation slice (issue 27).
#
# systemd (no stable tag; its v2NN-stable branches carry cherry picks):
# each validation slice vA..vB is ranked on a copy of the public mirror
# github:systemd/systemd-stable cut at vB (bench/sdcut.sh vB: main at vB,
# the stable branches as they stood then, no later branch or tag), at
# $SYSTEMD_CUTS/sdcut${B#v}.git (default /work/bench; skipped with a
# message when absent), with its index sdcutNNN.db copied to $OUT (the
# copy is written to, never the original; indexed into $OUT when there is
# none).  No --model: the project model learns from the history before vA,
# its labels the backports known at vB's time, never from the ranked
# commits; scored against what vA-stable carries in the copy.  An index
# of the whole mirror is not used: its backports include v255-stable.
# Only releases up to v254: v255 and later, the v254..v255 range, and
# v255-stable are held out (refused).
#
# DPDK: the repository of ../shared/data (dpdk-v22.03.git.tar), ranked
# over v21.02..v22.03 against labels-v16.11-v22.03.tsv (bench/rank-score.py:
# all commits and the untagged subset).
#
# Linux tip (../shared/data/linux-tip, label = the stable tag, masked):
# the built-in model's recipe (scripts/train-default.sh: linear, tags
# masked) trained on the commits before $TIP_SPLIT (2023-07-01) only,
# then the untagged commits from $TIP_SPLIT on (tip's validation part; tip
# from 2024-07-01 is held out and not in the data) ranked; the 20 best are
# listed with the strings that find a backport mail in the stable list
# archive ("<sha> ]", "<sha> upstream"; a rebased copy by its subject).
# The look-ups are made by hand (the archive is not a local file): what
# they found is in bench/results/tip-untagged.md.
#
# With a tag vA.1, the verdicts onto the branch at that point release are
# scored too (bench/verdict-score.py: the picks' precision and recall
# against what vA-stable took later, the score alone at the same count).
#
# Each table: bench/untagged-score.py (precision, recall, F1 at the
# model's threshold, AP, P@50, P@100, ECE, each band's realised rate) and
# a bug/fix keyword baseline.  Figures go to stdout; timings with the
# load average beside them.
#
# Environment: STABLESEL (./stablesel), OUT (a scratch folder, default a
# new temporary one, kept), SLICES ("v252:v253 v253:v254"), SYSTEMD_CUTS
# (/work/bench), DATA (../shared/data).
set -eu
STABLESEL=$(realpath "${STABLESEL:-./stablesel}")
DATA=${DATA:-../shared/data}
SYSTEMD_CUTS=${SYSTEMD_CUTS:-/work/bench}
SLICES=${SLICES:-v252:v253 v253:v254}
TIP_SPLIT=${TIP_SPLIT:-2023-07-01}
OUT=${OUT:-$(mktemp -d /tmp/untagged.XXXXXX)}
HERE=$(dirname "$0")
mkdir -p "$OUT"
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "## systemd (copies cut at each slice's end, $SYSTEMD_CUTS)"
for s in $SLICES; do
	a=${s%:*} b=${s#*:}
	# v255 and later, v255-stable and the v254..v255 range are held out
	case $a:$b in
	v25[5-9]*|v2[6-9]*|*:v25[5-9]*|*:v2[6-9]*) echo "skip $a..$b: held out"; continue;;
	esac
	SD=$SYSTEMD_CUTS/sdcut${b#v}.git
	if [ ! -d "$SD" ]; then
		echo "SKIP $a..$b: no copy cut at $b at $SD (bench/sdcut.sh $b $SD)"
		continue
	fi
	db=$OUT/sdcut${b#v}.db
	if [ ! -f "$db" ]; then
		if [ -f "$SYSTEMD_CUTS/sdcut${b#v}.db" ]; then
			cp "$SYSTEMD_CUTS/sdcut${b#v}.db" "$db"
		else
			"$STABLESEL" index --repo "$SD" --db "$db" --no-progress 2>"$OUT/sd-$b-index.err" >/dev/null
		fi
	fi
	"$STABLESEL" label --db "$db" --no-progress -o "$OUT/sd-$b-labels.tsv" 2>/dev/null
	t0=$(date +%s)
	"$STABLESEL" rank --repo "$SD" --db "$db" --rev "$a..$b" --format tsv \
		--top 1000000 --no-progress --project-model "$OUT/sd-$a.model" -o "$OUT/sd-$a.tsv" \
		2>"$OUT/sd-$a.err" || true
	echo
	echo "### $a..$b against $a-stable (copy cut at $b): first rank $(( $(date +%s) - t0 )) s (load $(load))"
	grep -h "^rank: the features\|^rank: trained\|^rank: learning from" "$OUT/sd-$a.err" || true
	echo
	"$HERE/untagged-score.py" "$OUT/sd-$a.tsv" "$OUT/sd-$b-labels.tsv" "$a-stable" "$SD" "$a..$b"
	# the verdicts onto the branch at its first point release, with the
	# model the first rank kept (what a maintainer of $a-stable runs)
	if git -C "$SD" rev-parse -q --verify "refs/tags/$a.1" >/dev/null; then
		t0=$(date +%s)
		"$STABLESEL" rank --repo "$SD" --db "$db" --rev "$a..$b" --onto "$a.1" \
			--format tsv --top 1000000 --no-progress --project-model "$OUT/sd-$a.model" \
			-o "$OUT/sd-$a-onto.tsv" 2>"$OUT/sd-$a-onto.err" || true
		echo
		echo "verdicts onto $a.1: $(( $(date +%s) - t0 )) s (load $(load))"
		echo
		echo "| | picks | P | R | | |"
		echo "| --- | ---: | ---: | ---: | --- | --- |"
		"$HERE/verdict-score.py" "$OUT/sd-$a-onto.tsv" "$OUT/sd-$b-labels.tsv" "$a-stable"
	fi
done

if [ -f "$DATA/dpdk/dpdk-v22.03.git.tar" ]; then
	echo
	echo "## DPDK (../shared/data, v21.02..v22.03)"
	[ -d "$OUT/dpdk.git" ] || tar -xf "$DATA/dpdk/dpdk-v22.03.git.tar" -C "$OUT"
	"$STABLESEL" index --repo "$OUT/dpdk.git" --db "$OUT/dpdk.db" >/dev/null 2>&1
	t0=$(date +%s)
	"$STABLESEL" rank --repo "$OUT/dpdk.git" --db "$OUT/dpdk.db" --rev v21.02..v22.03 \
		--project-model "$OUT/dpdk.model" --format tsv --top 1000000 -o "$OUT/dpdk.tsv" \
		2>"$OUT/dpdk.err" || true
	echo "first rank $(( $(date +%s) - t0 )) s (load $(load))"
	grep -h "^rank: the features\|^rank: trained\|^rank: learning from" "$OUT/dpdk.err" || true
	"$HERE/rank-score.py" "$OUT/dpdk.tsv" "$DATA/dpdk/labels-v16.11-v22.03.tsv"
else
	echo "SKIP DPDK: $DATA/dpdk not found"
fi

TIP=$DATA/linux-tip
if [ -f "$TIP/tip-before-2024-07-01.mbox.zst" ]; then
	echo
	echo "## Linux tip: the 20 best untagged picks from $TIP_SPLIT (built-in model's recipe, trained before it)"
	"$STABLESEL" train --kind linear --mask-stable-tags "$TIP/tip-before-2024-07-01.mbox.zst" \
		--labels "$TIP/labels-tip-before-2024-07-01.tsv" --label-column stable_tag \
		--before "$TIP_SPLIT" -o "$OUT/tip.model" | grep "^trained\|^threshold"
	"$STABLESEL" rank --model "$OUT/tip.model" --mask-stable-tags --since "$TIP_SPLIT" \
		--untagged-only --labels "$TIP/labels-tip-before-2024-07-01.tsv" \
		--label-column stable_tag --format tsv --top 20 -o "$OUT/tip-top.tsv" \
		"$TIP/tip-before-2024-07-01.mbox.zst" 2>"$OUT/tip.err"
	echo
	echo "| # | score | commit | subject | look up |"
	echo "| ---: | ---: | --- | --- | --- |"
	awk -F'\t' 'NR > 1 { printf "| %d | %.3f | %s | %s | \"%s ]\", \"%s upstream\" |\n", NR - 1, $2, substr($1, 1, 12), $4, $1, $1 }' "$OUT/tip-top.tsv"
else
	echo "SKIP tip: $TIP not found"
fi
echo
echo "scratch: $OUT"
