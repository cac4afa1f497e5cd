#!/bin/sh
# queue.sh - 100 picks against a live DPDK stable branch: the verdicts and
# the queue (rank --onto), check with and without --prereqs, against
# "git format-patch | git apply --check" one commit at a time.
#
# The real DPDK repository (../shared/data/dpdk/dpdk-v22.03.git.tar) is
# unpacked into a temporary folder.  The picks are the oldest N (100)
# commits of v22.03's history after FROM (v21.11) that carry a Fixes:
# line, as format-patch mails (oldest first); the branch is BRANCH (21.11,
# live on 2022-03-17: many picks are backported already).  Reported:
# seconds, peak RSS and the ratio to git for each run, the machine load
# before and after, and the verdicts.
#
# check --prereqs, the verdicts and the queue run twice: reading what the
# branch carries from the branch (--no-index) and from the project index
# of the repository (docs/index.md), which is built first (timed apart)
# or copied from DB, an index of the same tarball (the refs must match).
# The two must write the same rows.  ALL=1 adds one run of rank with
# --onto-repo and no --onto: every stable branch of the index.
#
# Output: bench/out/queue.txt.
# Environment: STABLESEL (./stablesel), N (100), FROM (v21.11), BRANCH
# (21.11), DATA (../shared/data), DB (none: build the index), ALL (0).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
N=${N:-100}
FROM=${FROM:-v21.11}
BRANCH=${BRANCH:-21.11}
DATA=${DATA:-../shared/data}
DB=${DB:-}
ALL=${ALL:-0}
OUT=bench/out

die() { echo "queue: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
[ -f "$DATA/dpdk/dpdk-v22.03.git.tar" ] || die "$DATA/dpdk/dpdk-v22.03.git.tar not found"
STABLESEL=$(cd "$(dirname "$STABLESEL")" && pwd)/$(basename "$STABLESEL")
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)

tar -xf "$DATA/dpdk/dpdk-v22.03.git.tar" -C "$TMP"
REPO=$TMP/dpdk.git
git -C "$REPO" rev-list --reverse --no-merges --grep='^Fixes: ' "$FROM..main" | head -n "$N" > "$TMP/picks"
[ "$(wc -l < "$TMP/picks")" -eq "$N" ] || die "fewer than $N picks after $FROM"
while read -r c; do git -C "$REPO" format-patch -1 --stdout "$c"; done < "$TMP/picks" > "$TMP/picks.mbox"

# the reference: one commit at a time, in a checkout of the branch
mkdir "$TMP/tree"
git -C "$REPO" archive "$BRANCH" | tar -x -C "$TMP/tree"
cat > "$TMP/git.sh" <<EOF2
while read -r c; do
	if git -C "$REPO" format-patch -1 --stdout \$c | (cd "$TMP/tree" && git apply --check - 2>/dev/null); then
		echo "\$(echo \$c | cut -c1-12) applies"
	else
		echo "\$(echo \$c | cut -c1-12) fails"
	fi
done < "$TMP/picks"
EOF2
run() { # NAME CMD...: time one run into $TMP/t.NAME
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$TMP/t.$name" "$@"
}
# the project index of the repository
if [ -n "$DB" ]; then
	mkdir -p "$REPO/stablesel"
	cp "$DB" "$REPO/stablesel/index.db"
	echo "0 0" > "$TMP/t.index"
else
	run index "$STABLESEL" index --no-progress --repo "$REPO" >/dev/null 2>&1 || [ $? -eq 1 ]
fi
run git sh "$TMP/git.sh" > "$TMP/git.txt"
run check "$STABLESEL" check --no-index --onto-repo "$REPO" --onto "$BRANCH" "$TMP/picks.mbox" \
	-o "$TMP/check.tsv" 2>/dev/null
for ix in no ix; do
	opt=--no-index
	[ $ix = ix ] && opt=
	run prereqs.$ix "$STABLESEL" check $opt --prereqs --onto-repo "$REPO" --onto "$BRANCH" \
		"$TMP/picks.mbox" -o "$TMP/prereqs.$ix.tsv" 2>"$TMP/prereqs.$ix.err"
	run verdicts.$ix "$STABLESEL" rank $opt --threshold 0 --onto-repo "$REPO" --onto "$BRANCH" \
		--format tsv "$TMP/picks.mbox" -o "$TMP/verdicts.$ix.tsv" 2>/dev/null
	run queue.$ix "$STABLESEL" rank $opt --threshold 0 --onto-repo "$REPO" --onto "$BRANCH" \
		--format mbox "$TMP/picks.mbox" -o "$TMP/queue.$ix.mbox" 2>/dev/null
done
cp "$TMP/prereqs.no.tsv" "$TMP/prereqs.tsv"
cp "$TMP/verdicts.no.tsv" "$TMP/verdicts.tsv"
cp "$TMP/queue.no.mbox" "$TMP/queue.mbox"
if [ "$ALL" = 1 ]; then
	run all "$STABLESEL" rank --threshold 0 --onto-repo "$REPO" --format tsv "$TMP/picks.mbox" \
		-o "$TMP/all.tsv" 2>"$TMP/all.err"
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg)

read -r sg mg < "$TMP/t.git"
line() { # LABEL NAME
	# the last line: time writes "Command exited with non-zero status 1" first
	s=$(tail -n 1 "$TMP/t.$2" | cut -d' ' -f1)
	m=$(tail -n 1 "$TMP/t.$2" | cut -d' ' -f2)
	printf '%-52s %8s %7.0f   %6.2fx git\n' "$1" "$s" "$(echo "$m / 1024" | bc -l)" \
		"$(echo "$s / $sg" | bc -l)"
}
{
	printf '# %s, %s picks (%s..main with Fixes:, oldest first) onto %s, %s cores\n' \
		"$(date -u +%FT%TZ)" "$N" "$FROM" "$BRANCH" "$(nproc)"
	printf 'load before: %s, after: %s\n' "$load0" "$load1"
	printf '%-52s %8s %7s\n' run seconds rss_MB
	line "git format-patch | git apply --check, one at a time" git
	line "stablesel check" check
	line "stablesel check --prereqs, branch read" prereqs.no
	line "stablesel check --prereqs, from the index" prereqs.ix
	line "stablesel rank --onto (verdicts), branch read" verdicts.no
	line "stablesel rank --onto (verdicts), from the index" verdicts.ix
	line "stablesel rank --onto --format mbox, branch read" queue.no
	line "stablesel rank --onto --format mbox, from the index" queue.ix
	[ "$ALL" = 1 ] && line "stablesel rank --onto-repo (every index branch)" all
	if [ -z "$DB" ]; then
		line "(stablesel index, once, not in the runs)" index
	else
		printf '(index copied from %s)\n' "$DB"
	fi
	same=yes
	for f in prereqs.%s.tsv verdicts.%s.tsv queue.%s.mbox; do
		# shellcheck disable=SC2059
		cmp -s "$TMP/$(printf "$f" no)" "$TMP/$(printf "$f" ix)" || same="no ($(printf "$f" ''))"
	done
	printf 'the same rows read from the branch and from the index: %s\n' "$same"
	grep -h 'stale\|reading' "$TMP/prereqs.ix.err" || true
	if [ "$ALL" = 1 ]; then
		grep -h '^note: stable branches' "$TMP/all.err" || true
		printf 'every index branch: %s rows, verdicts per branch (applies / needs / already / unaffected+reverted / unknown):\n' \
			"$(($(wc -l < "$TMP/all.tsv") - 1))"
		awk -F'\t' 'NR == 1 { for (i = 9; i <= NF; i++) name[i] = $i; nf = NF; next }
			{ for (i = 9; i <= NF; i++) { v = $i; sub(/ [0-9a-f].*/, "", v); sub(/:.*/, "", v); sub(/^reverted by$/, "unaffected", v); n[i, v]++ } }
			END { for (i = 9; i <= nf; i++) printf "  %-6s %3d %3d %3d %3d %3d\n", name[i],
				n[i, "applies"], n[i, "applies, needs"], n[i, "already"], n[i, "unaffected"], n[i, "unknown"] }' \
			"$TMP/all.tsv"
	fi
	printf 'git apply --check: %s of %s apply; stablesel check: %s apply\n' \
		"$(grep -c ' applies$' "$TMP/git.txt")" "$N" \
		"$(awk -F'\t' '$2 == "applies"' "$TMP/check.tsv" | wc -l)"
	printf 'check --prereqs: %s of %s conflicts name a prerequisite\n' \
		"$(awk -F'\t' '$2 == "conflict" && $5 != ""' "$TMP/prereqs.tsv" | wc -l)" \
		"$(awk -F'\t' '$2 == "conflict"' "$TMP/prereqs.tsv" | wc -l)"
	printf 'verdicts onto %s:\n' "$BRANCH"
	awk -F'\t' 'NR > 1 { v = $9; sub(/ [0-9a-f].*/, "", v); n[v]++ }
		END { for (k in n) printf "  %-24s %4d\n", k, n[k] }' "$TMP/verdicts.tsv" | sort
	printf 'queue: %s messages\n' "$(grep -c '^From [0-9a-f]\{40\} ' "$TMP/queue.mbox" || true)"
	# the queue applies in sequence onto the branch
	base=$(git -C "$REPO" rev-parse "$BRANCH^{commit}")
	git clone -q -n "$REPO" "$TMP/am" 2>/dev/null
	git -C "$TMP/am" checkout -q "$base"
	if [ ! -s "$TMP/queue.mbox" ]; then
		printf 'git am of the queue onto %s: nothing to apply\n' "$BRANCH"
	elif git -C "$TMP/am" -c user.name=b -c user.email=b@example.org am -q "$TMP/queue.mbox" \
		>/dev/null 2>&1; then
		printf 'git am of the queue onto %s: every message applies\n' "$BRANCH"
		same=0
		total=0
		for c in $(git -C "$TMP/am" rev-list "$base..HEAD"); do
			u=$(git -C "$TMP/am" log -1 --format=%B "$c" | grep -o '[0-9a-f]\{40\}' | head -1)
			a=$(git -C "$TMP/am" show "$c" | git patch-id --stable | cut -d' ' -f1)
			b=$(git -C "$REPO" show "$u" | git patch-id --stable | cut -d' ' -f1)
			total=$((total + 1))
			[ "$a" = "$b" ] && same=$((same + 1))
		done
		printf 'queued commits with the patch id of their upstream commit: %s of %s\n' "$same" "$total"
	else
		printf 'git am of the queue onto %s: stopped after %s of %s messages\n' "$BRANCH" \
			"$(git -C "$TMP/am" rev-list --count "$base..HEAD")" \
			"$(grep -c '^From [0-9a-f]\{40\} ' "$TMP/queue.mbox")"
	fi
} > "$OUT/queue.txt"
cat "$OUT/queue.txt"
