#!/bin/sh
# train.sh - how long `stablesel train` takes on all of DPDK, against
# reading the same mail.
#
# On the DPDK mainline mbox of ../shared/data (25,959 commits, labels
# in_stable of labels-v16.11-v22.03.tsv, stable tags masked) times
#     stablesel log FILE > /dev/null                  the reference: reading
#                                                     and parsing, no training
#     stablesel train --kind M FILE --labels ... -o  for each M in MODELS
# and reports wall seconds, CPU seconds (user + sys), the training step's
# seconds (the "in Xs" of train's summary, after reading), the epoch the
# early stopping kept, the ratios of wall and CPU time to the reference,
# peak RSS, and the one-minute load average before and after each run
# (this is a shared 2-core machine: the load says how far the wall times
# can be trusted; CPU seconds are the figure that does not move with it).
#
# BEFORE=PATH also times another binary (an older build, say) the same
# way, so that one output holds both; BEFORE_MODELS (default MODELS)
# limits it to some models.  HOGS=N (default 0) runs every
# train of STABLESEL a second time beside N busy loops of its own and
# reports the slowdown against the run without them, next to what the
# extra load explains: with H hogs on C cores and T busy threads of ours
# (T = 2 when training, 1 while reading), each of our threads gets about
# C / (H + T) of a core, so the wall time may grow by (H + T) / C at most
# and the CPU time should not grow at all.
#
# Output: bench/out/train.txt (SUMMARY).
# Environment: STABLESEL (./stablesel), BEFORE (none), BEFORE_MODELS, DATA
# (../shared/data), MODELS (linear mlp patchnet-feat), HOGS (0), EXTRA
# (more train options).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
BEFORE=${BEFORE:-}
DATA=${DATA:-../shared/data}
MODELS=${MODELS:-linear mlp patchnet-feat}
BEFORE_MODELS=${BEFORE_MODELS:-$MODELS}
HOGS=${HOGS:-0}
EXTRA=${EXTRA:-}
OUT=bench/out
SUMMARY=${SUMMARY:-$OUT/train.txt}

die() { echo "train: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || die "$BEFORE not found"
[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
TMP=$(mktemp -d)
HOG_PIDS=""
stop_hogs() {
	for p in $HOG_PIDS; do kill "$p" 2>/dev/null || :; done
	for p in $HOG_PIDS; do wait "$p" 2>/dev/null || :; done
	HOG_PIDS=""
}
trap 'stop_hogs; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

MBOX=$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst
LABELS=$DATA/dpdk/labels-v16.11-v22.03.tsv
CORES=$(nproc)
load() { cut -d' ' -f1 /proc/loadavg; }

# timed NAME CMD...: runs CMD under /usr/bin/time; sets wall cpu rss_mb
# l0 l1 (loads before and after); the command's stdout is in $TMP/NAME.out
timed() {
	name=$1; shift
	l0=$(load)
	/usr/bin/time -f '%e %U %S %M' -o "$TMP/$name.t" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
		{ cat "$TMP/$name.err" >&2; die "failed: $*"; }
	l1=$(load)
	read -r wall u s rss < "$TMP/$name.t"
	cpu=$(echo "$u + $s" | bc -l)
	rss_mb=$(echo "$rss / 1024" | bc)
}

# the reference, best of 3 by wall time
ref_wall=""; ref_cpu=""
for i in 1 2 3; do
	timed log "$STABLESEL" log "$MBOX"
	if [ -z "$ref_wall" ] || [ "$(echo "$wall < $ref_wall" | bc)" = 1 ]; then
		ref_wall=$wall; ref_cpu=$cpu; ref_rss=$rss_mb; ref_l0=$l0; ref_l1=$l1
	fi
done
commits=$(wc -l < "$TMP/log.out")

# train_row BIN TAG MODEL: one timed train, one row of the table
train_row() {
	bin=$1; tag=$2; model=$3
	# shellcheck disable=SC2086
	timed "train-$tag-$model" "$bin" train --kind "$model" --mask-stable-tags "$MBOX" \
		--labels "$LABELS" $EXTRA -o "$TMP/$model.model"
	o=$TMP/train-$tag-$model.out
	train_s=$(sed -n 's/^trained .* in \([0-9.]*\)s$/\1/p' "$o")
	epochs=$(sed -n 's/^settings:.* epochs=\([0-9]*\).*/\1/p' "$o")
	printf '%-8s %-14s %8s %8s %8s %6s %8.2f %8.2f %7s %5s %5s\n' "$tag" "$model" "$wall" \
		"$cpu" "${train_s:--}" "${epochs:--}" "$(echo "$wall / $ref_wall" | bc -l)" \
		"$(echo "$cpu / $ref_cpu" | bc -l)" "$rss_mb" "$l0" "$l1"
	last_wall=$wall; last_cpu=$cpu
}

{
trap stop_hogs EXIT
echo "# stablesel train on all of DPDK ($commits commits, tags masked), $(date -u '+%Y-%m-%d %H:%M UTC'), $CORES cores"
echo "# reference: stablesel log of the same mbox, best of 3: ${ref_wall} s wall, ${ref_cpu} s CPU, ${ref_rss} MB, load ${ref_l0} -> ${ref_l1}"
printf '%-8s %-14s %8s %8s %8s %6s %8s %8s %7s %5s %5s\n' binary model wall_s cpu_s train_s epochs wall/log cpu/log rss_MB load0 load1
for model in $MODELS; do
	if [ -n "$BEFORE" ] && echo " $BEFORE_MODELS " | grep -q " $model "; then
		train_row "$BEFORE" before "$model"
	fi
	train_row "$STABLESEL" after "$model"
	echo "$last_wall $last_cpu" > "$TMP/quiet-$model"
done
if [ "$HOGS" -gt 0 ]; then
	echo
	echo "# beside $HOGS busy loops (each train again; bound: wall may grow by (HOGS + 2) / $CORES = $(echo "($HOGS + 2) / $CORES" | bc -l | cut -c1-4), CPU not at all)"
	printf '%-8s %-14s %8s %8s %8s %6s %8s %8s %7s %5s %5s %9s %9s\n' binary model wall_s cpu_s train_s epochs wall/log cpu/log rss_MB load0 load1 wall/quiet cpu/quiet
	i=0
	while [ $i -lt "$HOGS" ]; do
		# ends by itself should this script be killed
		timeout 3600 sh -c 'while :; do :; done' &
		HOG_PIDS="$HOG_PIDS $!"
		i=$((i + 1))
	done
	for model in $MODELS; do
		row=$(train_row "$STABLESEL" loaded "$model")
		read -r qw qc < "$TMP/quiet-$model"
		w=$(echo "$row" | awk '{print $3}'); c=$(echo "$row" | awk '{print $4}')
		printf '%s %9.2f %9.2f\n' "$row" "$(echo "$w / $qw" | bc -l)" "$(echo "$c / $qc" | bc -l)"
	done
	stop_hogs
fi
echo "(wall/log, cpu/log: against the reference; load: one-minute load average before and after the run)"
} | tee "$SUMMARY"
