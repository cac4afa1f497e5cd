#!/bin/sh
# kernel-levers.sh - issue 16 item 5: the levers for the kernel, chosen on
# validation slices of the training part only, then the test part once.
#
# Validation: the tip commits authored before 2023-07-01 (the training part
# of bench/eval.sh's split) are cut into their own mbox (python3), and
# eval splits them again at 2022-03-01 and at 2022-09-01; DPDK's commits
# before 2021-03-01 are split at 2020-06-01.  Each configuration of
# CONFIGS ("name:options", options comma-free or with commas as
# --features lists) runs on both, linear and mlp, tags masked.
# Test: tip split 2023-07-01 and DPDK split 2021-03-01 (bench/eval.sh's),
# linear and mlp with seeds 1 2 3, for STABLESEL (and BASE, an older
# binary to compare with, when set).
#
# Output: bench/out/kernel-levers.txt.  Environment: STABLESEL (./stablesel),
# BASE (none), DATA (../shared/data), CONFIGS, STEPS (val test).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
STEPS=${STEPS:-val test}
CONFIGS=${CONFIGS:-"default: effects:--features=default,effects timing:--features=default,timing series:--features=default,series all:--features=all"}
OUT=bench/out
[ -x "$STABLESEL" ] || { echo "kernel-levers: $STABLESEL not found" >&2; exit 1; }
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TIP=$DATA/linux-tip/tip-before-2024-07-01.mbox.zst
TIPL=$DATA/linux-tip/labels-tip-before-2024-07-01.tsv
DPDK=$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst

# one line per model: F1, PR-AUC, P@R0.9, ECE, and the untagged PR-AUC
summary() {
	awk -v n="$1" '/^-- test commits without/ { u = 1 }
		/^(linear|mlp) / { if (!u) { f1[$1] = $5; pr[$1] = $8; p9[$1] = $9; ece[$1] = $11 }
				   else if (!(($1) in up)) up[$1] = $8 }
		END { for (m in f1) printf "%-34s %-7s F1 %s PR-AUC %s P@R.9 %s ECE %s untagged PR-AUC %s\n",
		      n, m, f1[m], pr[m], p9[m], ece[m], up[m] }' "$2" | sort
}

"$STABLESEL" label --stable "$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst" -o "$TMP/dpdk.tsv"
{
echo "load: $(uptime)"
case " $STEPS " in *" val "*)
	# the training parts, cut by the labels' author times
	awk -F'\t' 'NR == 1 || $2 < 1688169600' "$TIPL" > "$TMP/tip-train.tsv"
	awk -F'\t' 'NR > 1 && $2 < 1614556800 { print $1 }' \
		"$DATA/dpdk/labels-v16.11-v22.03.tsv" > "$TMP/dpdk-train.ids"
	zstdcat "$TIP" | python3 -c '
import re, sys
ids = {l.split("\t")[0] for l in open(sys.argv[1]).readlines()[1:]}
out, msg = sys.stdout.buffer, []
def flush():
    m = re.search(rb"^Commit-ID:\s*([0-9a-f]{40})", b"".join(msg), re.M)
    if m and m.group(1).decode() in ids:
        out.write(b"".join(msg))
for line in sys.stdin.buffer:
    if line.startswith(b"From mboxrd@z "):
        flush(); msg = []
    msg.append(line)
flush()' "$TMP/tip-train.tsv" > "$TMP/tip-train.mbox"
	zstdcat "$DPDK" | python3 -c '
import re, sys
ids = set(open(sys.argv[1]).read().split())
keep = False
for line in sys.stdin.buffer:
    m = re.match(rb"From ([0-9a-f]{40}) Mon Sep 17 00:00:00 2001$", line.rstrip(b"\n"))
    if m:
        keep = m.group(1).decode() in ids
    if keep:
        sys.stdout.buffer.write(line)' "$TMP/dpdk-train.ids" > "$TMP/dpdk-train.mbox"
	for cfg in $CONFIGS; do
		name=${cfg%%:*}
		opts=$(echo "${cfg#*:}" | tr '=' ' ')
		for split in 2022-03-01 2022-09-01; do
			# shellcheck disable=SC2086
			"$STABLESEL" eval --mask-stable-tags --split-date $split "$TMP/tip-train.mbox" \
				--labels "$TMP/tip-train.tsv" --label-column stable_tag \
				--models linear,mlp $opts -o "$TMP/e.txt" 2>/dev/null
			summary "val tip $split $name" "$TMP/e.txt"
		done
		# shellcheck disable=SC2086
		"$STABLESEL" eval --mask-stable-tags --split-date 2020-06-01 "$TMP/dpdk-train.mbox" \
			--labels "$TMP/dpdk.tsv" --models linear,mlp $opts -o "$TMP/e.txt" 2>/dev/null
		summary "val dpdk 2020-06-01 $name" "$TMP/e.txt"
	done ;;
esac
case " $STEPS " in *" test "*)
	for bin in ${BASE:-} "$STABLESEL"; do
		for seed in 1 2 3; do
			"$bin" eval --mask-stable-tags --split-date 2023-07-01 "$TIP" --labels "$TIPL" \
				--label-column stable_tag --models linear,mlp --seed $seed \
				-o "$TMP/e.txt" 2>/dev/null
			summary "test tip $(basename "$bin") seed $seed" "$TMP/e.txt"
			"$bin" eval --mask-stable-tags --split-date 2021-03-01 "$DPDK" \
				--labels "$TMP/dpdk.tsv" --models linear,mlp --seed $seed \
				-o "$TMP/e.txt" 2>/dev/null
			summary "test dpdk $(basename "$bin") seed $seed" "$TMP/e.txt"
		done
	done ;;
esac
echo "load: $(uptime)"
} | tee "$OUT/kernel-levers.txt"
