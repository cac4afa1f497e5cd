#!/bin/sh
# review-replay.sh - four weeks of a DPDK 21.11 maintainer's review,
# replayed on ../shared/data/dpdk/dpdk-v22.03.git.tar (docs/review.md,
# "The replay").  Everything before v22.03 (2022-03-17): no held-out data.
#
# Each week W (a Monday, 2022-02-14 .. 2022-03-07):
#   1. main and 21.11 reset to their state at W (the last commit committed
#      before W), every other branch removed;
#   2. stablesel index (timed);
#   3. the review: the candidates of v21.11..main undecided for 21.11, as
#      "stablesel review" lists them, answered with scripted keys through a
#      pseudo-terminal (script(1)): y when the real 21.11 branch of
#      2022-03-17 carries the commit, else n with a note (timed);
#   4. a second review start with nothing changed, quit at once (timed):
#      it reuses the first one's ranking (docs/review.md, "A second
#      start") and offers no candidate the first one decided;
#   5. the queue: rank --format mbox --onto 21.11 (timed).
# Checked each week: no rejected commit comes back, the accepted commits
# the branch took since resolve to "backported" by themselves, and the
# queue holds exactly the accepted commits the branch lacks (plus the
# prerequisites their verdicts name).
#
# Usage: bench/review-replay.sh [WORKDIR]   (default /tmp/ss-review-replay;
#        WEEKS="2022-03-07" replays those weeks only)
# Reads ../shared/data; writes only under WORKDIR.  Run it under nice.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
ss=${SS_BIN:-$here/stablesel}
data=$here/../shared/data/dpdk
work=${1:-/tmp/ss-review-replay}
weeks=${WEEKS:-"2022-02-14 2022-02-21 2022-02-28 2022-03-07"}
common="--rev v21.11..main --onto 21.11 --no-progress"

[ -f "$data/dpdk-v22.03.git.tar" ] || { echo "SKIP: ../shared/data not found"; exit 0; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
rm -rf "$work"
mkdir -p "$work/tar"
tar -xf "$data/dpdk-v22.03.git.tar" -C "$work/tar"
src=$(dirname "$(find "$work/tar" -name HEAD -maxdepth 3 | head -1)")
# the oracle: what 21.11 carried on 2022-03-17 (its backport lines)
git -C "$src" log --format=%B v21.11..21.11 |
	sed -n 's/.*upstream commit \([0-9a-f]\{40\}\).*/\1/p; s/.*cherry picked from commit \([0-9a-f]\{40\}\).*/\1/p' |
	sort -u >"$work/oracle"
echo "oracle: 21.11 on 2022-03-17 carries $(wc -l <"$work/oracle") upstream commits by backport line"

git clone -q --bare "$src" "$work/repo.git"
r=$work/repo.git
git -C "$r" config user.name "Replay Maintainer"
git -C "$r" config user.email "replay@example.org"
for b in $(git -C "$r" for-each-ref --format='%(refname:short)' refs/heads/); do
	case $b in main|21.11) ;; *) git -C "$r" branch -D "$b" >/dev/null ;; esac
done

elapsed() { echo "$(( $(date +%s%N) / 1000000 - $1 ))"; }
now_ms() { date +%s%N | cut -c1-13; }

printf '| week | main | 21.11 | index s | undecided shown | y | n | rejected back | accepted taken | backported | queue | accepted in queue | review s | second start s (reused, offered again) | queue s |\n'
printf '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
: >"$work/rejected"
for w in $weeks; do
	m=$(git -C "$src" rev-list -1 --before="$w" main)
	s=$(git -C "$src" rev-list -1 --before="$w" 21.11)
	git -C "$r" update-ref refs/heads/main "$m"
	git -C "$r" update-ref refs/heads/21.11 "$s"
	git -C "$r" symbolic-ref HEAD refs/heads/main
	t=$(now_ms)
	"$ss" index --repo "$r" --branches 21.11 >"$work/index-$w.log" 2>&1 || true
	ti=$(elapsed "$t")
	# the candidates the review will show, in its order
	"$ss" rank --repo "$r" $common --format tsv -o "$work/cand-$w.tsv" 2>"$work/rank-$w.err"
	# the picks, and the rows above the threshold that do not apply as
	# they are (review offers them for a manual backport)
	awk -F'\t' 'NR > 1 && ($3 == 1 || (($8 == "yes" || $8 == "likely") && $9 ~ /^unknown/)) { print $1 }' \
		"$work/cand-$w.tsv" >"$work/cand-$w.ids"
	back=0
	while read -r id; do
		if grep -q "^$id" "$work/rejected"; then back=$((back + 1)); fi
	done <"$work/cand-$w.ids"
	# scripted keys: y for what 21.11 took in the end, else n and a note
	: >"$work/keys-$w"
	ny=0; nn=0
	while read -r id; do
		if grep -q "^$id" "$work/oracle"; then
			echo y >>"$work/keys-$w"; ny=$((ny + 1))
		else
			printf 'n\nnot taken by 21.11\n' >>"$work/keys-$w"; nn=$((nn + 1))
			echo "$id" >>"$work/rejected"
		fi
	done <"$work/cand-$w.ids"
	echo q >>"$work/keys-$w"
	t=$(now_ms)
	script -qec "'$ss' review --repo '$r' $common" /dev/null <"$work/keys-$w" >"$work/review-$w.out" 2>&1 || true
	tr=$(elapsed "$t")
	# the second start: nothing changed, q at once
	t=$(now_ms)
	echo q | script -qec "'$ss' review --repo '$r' $common" /dev/null >"$work/review2-$w.out" 2>&1 || true
	tr2=$(elapsed "$t")
	again=$(grep -c '^\[[0-9]*/[0-9]*\]' "$work/review2-$w.out" || true)
	reused=$(grep -c 'reusing the ranking of' "$work/review2-$w.out" || true)
	# accepted and taken by the branch at W: resolved by the index alone
	db=$r/stablesel/index.db
	taken=$(sqlite3 "$db" "SELECT count(*) FROM decisions d WHERE d.branch = '21.11' AND EXISTS
		(SELECT 1 FROM backports b WHERE b.branch = '21.11' AND b.upstream_id = d.commit_id)")
	bp=$(sqlite3 "$db" "SELECT count(*) FROM decisions WHERE branch = '21.11' AND state = 'backported'")
	t=$(now_ms)
	"$ss" rank --repo "$r" $common --format mbox -o "$work/queue-$w.mbox" 2>"$work/queue-$w.err" || true
	tq=$(elapsed "$t")
	grep '^From [0-9a-f]\{40\} ' "$work/queue-$w.mbox" | cut -d' ' -f2 | sort >"$work/queue-$w.ids" || true
	sqlite3 "$db" "SELECT commit_id FROM decisions WHERE branch = '21.11' AND state = 'accepted'" |
		sort >"$work/accepted-$w.ids"
	inq=$(comm -12 "$work/queue-$w.ids" "$work/accepted-$w.ids" | wc -l)
	printf '| %s | %.12s | %.12s | %s | %s | %s | %s | %s | %s | %s | %s | %s of %s | %s | %s (%s, %s) | %s |\n' \
		"$w" "$m" "$s" "$(echo "scale=1; $ti / 1000" | bc)" "$(wc -l <"$work/cand-$w.ids")" \
		"$ny" "$nn" "$back" "$taken" "$bp" "$(wc -l <"$work/queue-$w.ids")" "$inq" \
		"$(wc -l <"$work/accepted-$w.ids")" "$(echo "scale=1; $tr / 1000" | bc)" \
		"$(echo "scale=2; $tr2 / 1000" | bc)" "$reused" "$again" "$(echo "scale=1; $tq / 1000" | bc)"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
