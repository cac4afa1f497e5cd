#!/bin/sh
# valgrind.sh - the main commands under valgrind (memcheck) over a few
# hundred real commits: no invalid read or write, no use of uninitialised
# values, no definite or indirect leak.  (make valgrind)
#
# Input: the first N (300) commits of the DPDK mainline mbox in
# ../shared/data, labelled by labels-v16.11-v22.03.tsv; without the data
# it says SKIP.  Runs log, label, train (linear, mlp, patchnet-feat), rank
# and explain with the trained models, and check --prereqs and rank
# --onto on a small repository made with git, each as one valgrind
# process;
# "possibly lost" blocks (GLib's type system keeps its tables for the
# life of the process) are not errors.  Exit 1 naming the first command
# valgrind complained about; its log is in build/valgrind/.
set -u
cd "$(dirname "$0")/.."
DATA=${DATA:-../shared/data}
N=${N:-300}
out=build/valgrind

[ -d "$DATA" ] || { echo "SKIP: $DATA not found"; exit 0; }
if ! command -v valgrind >/dev/null 2>&1; then
	# a test tool, not a build dependency: installed here when missing
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo -n"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >/dev/null 2>&1 ||
		{ $sudo apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >/dev/null 2>&1; }
	command -v valgrind >/dev/null 2>&1 ||
		{ echo "valgrind.sh: valgrind not found and apt-get could not install it" >&2; exit 1; }
fi
[ -x ./stablesel ] || { echo "valgrind.sh: ./stablesel not built (make)" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the first N messages: cut before the separator of message N + 1
zstdcat "$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst" |
	awk -v n="$N" '/^From [0-9a-f][0-9a-f]* / { if (++k > n) exit } { print }' > "$tmp/in.mbox"
labels="--labels $DATA/dpdk/labels-v16.11-v22.03.tsv"
stable=$DATA/dpdk/stable-branches-v16.11-v22.03.mbox.zst
first=$(sed -n 's/^From \([0-9a-f]\{12\}\).*/\1/p' "$tmp/in.mbox" | sed -n 10p)

fail=0
run() {
	name=$1
	shift
	start=$(date +%s)
	# one thread for BLAS: its idle workers only slow valgrind down
	OPENBLAS_NUM_THREADS=1 valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		--log-file="$out/$name.log" ./stablesel "$@" > "$out/$name.out" 2>&1
	rc=$?
	printf '%-22s exit %3d  %4ss\n' "$name" "$rc" "$(( $(date +%s) - start ))"
	if [ $rc = 99 ] || [ -s "$out/$name.log" ]; then
		echo "valgrind.sh: valgrind reports errors for '$name' ($out/$name.log)" >&2
		fail=1
	fi
}

echo "valgrind over the first $N DPDK commits ($(wc -c < "$tmp/in.mbox") bytes)"
run log log "$tmp/in.mbox"
run label label --stable "$stable" -o "$tmp/labels.tsv"
for kind in linear mlp patchnet-feat; do
	run "train-$kind" train --kind $kind "$tmp/in.mbox" $labels --epochs 3 -o "$tmp/$kind.model"
done
run rank rank --model "$tmp/mlp.model" "$tmp/in.mbox" --top 20
# without --model: the project model's training keeps the commits it reads
# (source/replay.c) and the ranking reads them back
run rank-project rank "$tmp/in.mbox" --stable "$stable" --project-model "$tmp/pm.model" --top 20
run explain-patchnet-feat explain --model "$tmp/patchnet-feat.model" "$tmp/in.mbox" "$first"
# check needs a repository: a small one, a conflict with a prerequisite
repo=$tmp/repo
mkdir "$repo"
(cd "$repo" && git init -q -b main . && git config user.name T &&
	git config user.email t@example.org && seq 1 10 > a.c && git add a.c &&
	git commit -qm base && git branch stable && sed -i 's/^5$/five/' a.c &&
	git commit -qam prep && sed -i 's/^five$/FIVE/' a.c && git commit -qam dep &&
	seq 1 3 > c.c && git add c.c && git commit -qm new) > /dev/null
run check check --prereqs --onto-repo "$repo" --onto stable --repo "$repo" --rev stable..main
# the verdicts' prerequisites from one walk of the batch (check_lines.c)
run rank-onto rank --repo "$repo" --rev stable..main --onto stable --threshold 0 --format tsv \
	--no-index
exit $fail
