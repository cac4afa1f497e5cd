#!/bin/sh
# near.sh - the nearest past decisions as evidence (issue 36, item 5;
# docs/scores.md, "Nearest past decisions"): eval's linear model with
# --near 10 against --near 0 on the validation splits, AP and F1 on all
# test commits and on the untagged ones.
#
#   dpdk:    ../shared's mainline mbox v16.11..v22.03, tags masked, split
#            2021-03-01, labels from its stable mbox ("stablesel label")
#   tip:     ../shared's tip mail before 2024-07-01, tags masked (the
#            label is the tag), split 2023-07-01
#   systemd: a copy of the public mirror cut at v254 ($SYSTEMD, default
#            /work/bench/sdcut254.git: bench/sdcut.sh) indexed into $SD_DB,
#            v249..v254 split at v253's date (2023-02-15), labelled by what
#            its stable branches had taken by v254 (v255 and later, their
#            branches and the v254..v255 cycle are held out); skipped
#            without it
#
# Environment: STABLESEL (./stablesel; give a copy when you build
# meanwhile), DATA (../shared/data), SYSTEMD, SD_DB, OUT (a scratch
# folder, default a new temporary one).  The table on stdout, the load
# beside it.
set -eu
STABLESEL=$(realpath "${STABLESEL:-./stablesel}")
DATA=${DATA:-../shared/data}
SYSTEMD=${SYSTEMD:-/work/bench/sdcut254.git}
SD_DB=${SD_DB:-}
OUT=${OUT:-$(mktemp -d /tmp/near.XXXXXX)}
mkdir -p "$OUT"
load() { cut -d' ' -f1-3 /proc/loadavg; }
# "AP F1 untaggedAP untaggedF1" of eval's text output
figures() {
	awk '/^model / {t++; take = 1; next}
	     take && $1 == "linear" && t == 1 {a = $8; f = $5; take = 0}
	     take && $1 == "linear" && t == 2 {ua = $8; uf = $5; take = 0}
	     END {print a, f, ua, uf}' "$1"
}
run() {  # name, eval arguments...
	name=$1
	shift
	for k in 0 10; do
		"$STABLESEL" eval "$@" --models linear --near $k -o "$OUT/$name-$k.txt" \
			2>"$OUT/$name-$k.err"
	done
	echo "| $name | $(figures "$OUT/$name-0.txt") | $(figures "$OUT/$name-10.txt") | $(load) |"
}
echo "| set | AP F1 untagged-AP untagged-F1 (--near 0) | the same (--near 10) | load |"
echo "| --- | --- | --- | --- |"
if [ -f "$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst" ]; then
	"$STABLESEL" label --stable "$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst" \
		-o "$OUT/dpdk-labels.tsv" 2>/dev/null
	run dpdk --mask-stable-tags --split-date 2021-03-01 \
		"$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst" --labels "$OUT/dpdk-labels.tsv"
else
	echo "SKIP dpdk: no $DATA/dpdk"
fi
if [ -f "$DATA/linux-tip/tip-before-2024-07-01.mbox.zst" ]; then
	run tip --mask-stable-tags --split-date 2023-07-01 \
		"$DATA/linux-tip/tip-before-2024-07-01.mbox.zst" \
		--labels "$DATA/linux-tip/labels-tip-before-2024-07-01.tsv" --label-column stable_tag
else
	echo "SKIP tip: no $DATA/linux-tip"
fi
if [ -d "$SYSTEMD" ] && [ -n "$SD_DB" ] && [ -f "$SD_DB" ]; then
	# the stable branches before v255 only: v255-stable and later are held out
	"$STABLESEL" label --db "$SD_DB" -o "$OUT/sd-all.tsv" 2>/dev/null
	awk -F'\t' 'NR == 1 {print "sha\tin_stable"; next}
	     {n = split($3, b, ","); ok = 0
	      for (i = 1; i <= n; i++) { v = substr(b[i], 2) + 0; if (v > 0 && v < 255) ok = 1 }
	      print $1 "\t" ok}' "$OUT/sd-all.tsv" >"$OUT/sd-labels.tsv"
	run systemd --repo "$SYSTEMD" --rev v249..v254 --db "$SD_DB" --mask-stable-tags \
		--split-date 2023-02-15 --labels "$OUT/sd-labels.tsv"
else
	echo "SKIP systemd: no mirror at $SYSTEMD or no SD_DB"
fi
