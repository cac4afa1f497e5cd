#!/bin/sh
# newuser.sh - a new user's first weeks with stablesel, on
# ../shared/data/dpdk/dpdk-v22.03.git.tar (issue 35, "What it must show",
# second bullet).  Everything up to v22.03 (2022-03-17): no held-out data.
#
#   1. branch 21.11 set back to an older point, as a tag: v21.11.1 when
#      21.11 has it, else a lightweight tag ($TAG) at the last 21.11
#      commit before $ONTO_DATE; the real tip kept in refs/real/21.11
#      (not a branch: the index never sees it), the answers' oracle;
#      every branch but main and 21.11 removed;
#   2. stablesel index; stablesel rank --rev v21.11..v22.03 --onto TAG
#      --branch 21.11 (text; both timed);
#   3. stablesel review with those options under a pseudo-terminal
#      (script(1)), driven line by line through a FIFO: each candidate
#      is read off the screen, y when refs/real/21.11 carries it (by
#      backport line), else n with a note; 15 candidates, then q (timed);
#   4. review started again and quit at once: how many of the 15 decided
#      candidates it offers again (must be 0), its time;
#   5. a git clone of the repository (only origin/21.11 there): index,
#      mark one commit without --branch and one with --branch
#      origin/21.11; status must list both under 21.11, and the queue
#      of rank --onto origin/21.11 hold the accepted one, not the rejected;
#   6. the queue: rank ... --format mbox -o queue.mbox, git am -3 onto a
#      worktree at TAG; how many patches applied.
# A markdown report on stdout; the load beside each time.
#
# Usage: bench/newuser.sh [WORKDIR]   (default /tmp/ss-newuser;
#        ONTO_DATE=2022-03-01 the older point, NANSWER=15)
# Reads ../shared/data; writes only under WORKDIR.  Run it under nice.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
ss=${SS_BIN:-$here/stablesel}
data=$here/../shared/data/dpdk
work=${1:-/tmp/ss-newuser}
onto_date=${ONTO_DATE:-2022-03-01}
nanswer=${NANSWER:-15}

[ -f "$data/dpdk-v22.03.git.tar" ] || { echo "SKIP: ../shared/data not found"; exit 0; }
case $work in
"$here"|"$here"/*) echo "newuser.sh: WORKDIR must be outside the project" >&2; exit 2 ;;
esac

now_ms() { date +%s%N | cut -c1-13; }
secs() { echo "scale=2; ($(now_ms) - $1) / 1000" | bc | sed 's/^\./0./'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

rm -rf "$work"
mkdir -p "$work/tar"
tar -xf "$data/dpdk-v22.03.git.tar" -C "$work/tar"
src=$(dirname "$(find "$work/tar" -maxdepth 3 -name HEAD | head -1)")
git clone -q --bare "$src" "$work/repo.git"
r=$work/repo.git
git -C "$r" config user.name "New User"
git -C "$r" config user.email "newuser@example.org"
git -C "$r" update-ref refs/heads/main "v22.03^{commit}"
git -C "$r" symbolic-ref HEAD refs/heads/main
for b in $(git -C "$r" for-each-ref --format='%(refname:short)' refs/heads/); do
	case $b in main|21.11) ;; *) git -C "$r" branch -D "$b" >/dev/null ;; esac
done

echo "# A new user's first weeks (bench/newuser.sh)"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), stablesel $(git -C "$here" rev-parse --short HEAD), $(nproc) CPUs;"
echo "../shared/data/dpdk/dpdk-v22.03.git.tar, main at v22.03, branches main and 21.11 only."
echo "Times are wall seconds; load is /proc/loadavg (1, 5, 15 min) when each step ended."
echo

# 1. the older point
echo "## 1. 21.11 set back to an older point"
echo
real=$(git -C "$r" rev-parse 21.11)
git -C "$r" update-ref refs/real/21.11 "$real"
if git -C "$r" tag --merged 21.11 | grep -qx 'v21.11.1'; then
	tag=v21.11.1
	how="the release tag v21.11.1"
else
	tag=${TAG:-base-21.11}
	base=$(git -C "$r" rev-list -1 --before="$onto_date" 21.11)
	git -C "$r" tag "$tag" "$base"
	how="no v21.11.1 on 21.11 before v22.03: a lightweight tag at the last 21.11 commit before $onto_date"
fi
base=$(git -C "$r" rev-parse "$tag^{commit}")
git -C "$r" update-ref refs/heads/21.11 "$base"
# the oracle: upstream commits the real 21.11 carries by backport line
git -C "$r" log --format=%B v21.11..refs/real/21.11 |
	sed -n 's/.*upstream commit \([0-9a-f]\{40\}\).*/\1/p; s/.*cherry picked from commit \([0-9a-f]\{40\}\).*/\1/p' |
	sort -u >"$work/oracle"
git -C "$r" log --format=%B v21.11.."$tag" |
	sed -n 's/.*upstream commit \([0-9a-f]\{40\}\).*/\1/p; s/.*cherry picked from commit \([0-9a-f]\{40\}\).*/\1/p' |
	sort -u >"$work/oracle-at-tag"
echo "- tag \`$tag\` = $(git -C "$r" log -1 --format='%h (%cs)' "$base"): $how."
echo "- 21.11 at the tag: $(git -C "$r" rev-list --count v21.11.."$base") commits after v21.11, $(wc -l <"$work/oracle-at-tag") by backport line;"
echo "  refs/real/21.11 = $(git -C "$r" log -1 --format='%h (%cs)' "$real"): $(git -C "$r" rev-list --count v21.11.."$real") commits, $(wc -l <"$work/oracle") upstream commits by backport line (the answers)."
echo

opts="--repo $r --rev v21.11..v22.03 --onto $tag --branch 21.11 --no-progress"

# 2. index, rank
echo "## 2. index and rank"
echo
t=$(now_ms)
rc=0; "$ss" index --repo "$r" --no-progress >"$work/index.log" 2>&1 || rc=$?
echo "- \`stablesel index\`: exit $rc, $(secs "$t") s (load $(load)); $(grep -v '^$' "$work/index.log" | tail -1)"
t=$(now_ms)
rc=0; "$ss" rank $opts >"$work/rank.txt" 2>"$work/rank.err" || rc=$?
echo "- \`stablesel rank --rev v21.11..v22.03 --onto $tag --branch 21.11\`: exit $rc, $(secs "$t") s (load $(load)); $(grep -c . "$work/rank.txt" || true) lines of text"
echo "- its head: \`$(sed -n 3p "$work/rank.txt")\`"
# the proposed rows (marked *): how many refs/real/21.11 took by v22.03
np=0; nt=0
for s in $(sed -n 's/^ *[0-9][0-9]* *[0-9.]* [a-z]* *\* \([0-9a-f]\{12\}\) .*/\1/p' "$work/rank.txt"); do
	np=$((np + 1))
	if grep -qx "$(git -C "$r" rev-parse "$s^{commit}")" "$work/oracle"; then nt=$((nt + 1)); fi
done
echo "- proposed (\`*\`, verdict applies onto $tag): $np; taken by refs/real/21.11 by v22.03: $nt"
sed 's/^/  - stderr: /' "$work/rank.err" | head -5
echo

# 3. the review, driven through a FIFO: read each candidate off the screen
echo "## 3. review: $nanswer answers, then q"
echo
# wait_for FILE PATTERN COUNT: until PATTERN occurs COUNT times in FILE,
# or the review ended (0 when seen, 1 when not)
wait_for() {
	n=0
	while :; do
		c=$(tr -d '\r' <"$1" | grep -c "$2" || true)
		[ "$c" -ge "$3" ] && return 0
		kill -0 "$rpid" 2>/dev/null || return 1
		n=$((n + 1))
		[ "$n" -lt 6000 ] || return 1  # 10 minutes
		sleep 0.1
	done
}
prompt='Accept for .*\[y,'
cand='^\[[0-9]*/[0-9]*\] [0-9a-f]'
rm -f "$work/in"; mkfifo "$work/in"
: >"$work/review.out"
t=$(now_ms)
script -qec "'$ss' review $opts" /dev/null <"$work/in" >"$work/review.out" 2>&1 &
rpid=$!
exec 3>"$work/in"
k=0; ny=0; nn=0; offered=0; : >"$work/decided"
first=""
while [ "$k" -lt "$nanswer" ]; do
	wait_for "$work/review.out" "$prompt" $((k + 1)) || break
	[ -n "$first" ] || first=$(secs "$t")
	short=$(tr -d '\r' <"$work/review.out" | grep "$cand" | sed -n "$((k + 1))p" | sed 's/^\[[0-9]*\/\([0-9]*\)\] \([0-9a-f]*\).*/\2 \1/')
	id=$(git -C "$r" rev-parse "${short% *}^{commit}")
	offered=${short#* }
	if grep -qx "$id" "$work/oracle"; then
		echo y >&3; ny=$((ny + 1)); echo "$id y" >>"$work/decided"
	else
		printf 'n\nnot taken by 21.11 up to v22.03\n' >&3; nn=$((nn + 1)); echo "$id n" >>"$work/decided"
	fi
	k=$((k + 1))
done
echo q >&3
exec 3>&-
rc=0; wait "$rpid" || rc=$?
tr3=$(secs "$t")
echo "- offered $offered candidates; answered $k: $ny y (refs/real/21.11 carries it), $nn n (with a note); exit $rc"
echo "- first candidate on screen after ${first:-?} s; whole session $tr3 s (load $(load)), the driver polling the screen every 0.1 s"
echo "- the session's last line: \`$(tr -d '\r' <"$work/review.out" | grep -E 'accepted, .* rejected' | tail -1 | sed 's/.*? //')\`"
db=$r/stablesel/index.db
echo "- the index's decisions for 21.11: $(sqlite3 "$db" "SELECT group_concat(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM decisions WHERE branch = '21.11' GROUP BY state)");" \
	"under other branch names: $(sqlite3 "$db" "SELECT count(*) FROM decisions WHERE branch <> '21.11'")"
echo

# 4. the second start, quit at once
echo "## 4. review again, quit at once"
echo
t=$(now_ms)
rc=0; echo q | script -qec "'$ss' review $opts" /dev/null >"$work/review2.out" 2>&1 || rc=$?
tr4=$(secs "$t")
tr -d '\r' <"$work/review2.out" | grep "$cand" | sed 's/^\[[0-9]*\/\([0-9]*\)\] \([0-9a-f]*\).*/\2 \1/' >"$work/review2.cand" || true
again=0
while read -r s n; do
	full=$(git -C "$r" rev-parse "$s^{commit}")
	if grep -q "^$full " "$work/decided"; then again=$((again + 1)); fi
done <"$work/review2.cand"
offered2=$(sed -n '1s/.* //p' "$work/review2.cand")
echo "- exit $rc, $tr4 s (load $(load)), against $tr3 s for the first session"
echo "- offered ${offered2:-0} candidates (the first offered $offered, $k decided since); decided candidates offered again: **$again**"
echo "- $(tr -d '\r' <"$work/review2.out" | grep -o 'reusing the ranking[^)]*)' | head -1 || true)"
[ "$again" -eq 0 ] || echo "- FAIL: a decided candidate was offered again"
echo

# 5. a clone: only origin/21.11
echo "## 5. a clone with only origin/21.11: mark and status"
echo
c=$work/clone
git clone -q "$r" "$c"
git -C "$c" config user.name "New User"
git -C "$c" config user.email "newuser@example.org"
echo "- branches in the clone: $(git -C "$c" branch -a --format='%(refname:short)' | tr '\n' ' ')"
t=$(now_ms)
rc=0; "$ss" index --repo "$c" --no-progress >"$work/index-clone.log" 2>&1 || rc=$?
echo "- \`stablesel index\` in the clone: exit $rc, $(secs "$t") s (load $(load))"
# two undecided candidates of the first review's list: one marked without
# --branch, one with --branch origin/21.11
m1=$(git -C "$r" rev-parse "$(sed -n '1s/ .*//p' "$work/review2.cand")^{commit}" 2>/dev/null || true)
m2=$(awk '{ print $1 }' "$work/decided" | head -1)
[ -n "$m1" ] || m1=$(awk '{ print $1 }' "$work/decided" | sed -n 2p)
rc1=0; (cd "$c" && "$ss" mark reject "$m1" --note "new user: not for 21.11") >"$work/mark1.out" 2>&1 || rc1=$?
rc2=0; (cd "$c" && "$ss" mark accept "$m2" --branch origin/21.11) >"$work/mark2.out" 2>&1 || rc2=$?
echo "- \`mark reject $(echo "$m1" | cut -c1-12)\` (no --branch): exit $rc1: $(tr '\n' ' ' <"$work/mark1.out")"
echo "- \`mark accept $(echo "$m2" | cut -c1-12) --branch origin/21.11\`: exit $rc2: $(tr '\n' ' ' <"$work/mark2.out")"
rc=0; (cd "$c" && "$ss" status) >"$work/status.out" 2>&1 || rc=$?
cdb=$c/.git/stablesel/index.db
names=$(sqlite3 "$cdb" "SELECT group_concat(branch || ':' || state, ', ') FROM decisions")
echo "- \`status\`: exit $rc; the index keeps the decisions as: $names"
s21=$(grep -c '21\.11' "$work/status.out" || true)
sorig=$(grep -c 'origin/21\.11' "$work/status.out" || true)
case $names in "21.11:rejected, 21.11:accepted"|"21.11:accepted, 21.11:rejected") okn=1 ;; *) okn=0 ;; esac
if [ "$sorig" -eq 0 ] && [ "$okn" -eq 1 ] && grep -q "$(echo "$m1" | cut -c1-12)" "$work/status.out" &&
	grep -q "$(echo "$m2" | cut -c1-12)" "$work/status.out"; then
	echo "- both under 21.11, never origin/21.11: OK"
else
	echo "- FAIL: status lines naming 21.11: $s21, naming origin/21.11: $sorig"
fi
echo
echo '```'
sed 's/\x1b/\\x1b/g' "$work/status.out"
echo '```'
echo
# the same decisions seen by rank --onto origin/21.11 (issue 35, case 2:
# the queue held the rejected picks)
t=$(now_ms)
rc=0; "$ss" rank --repo "$c" --rev v21.11..v22.03 --onto origin/21.11 --no-progress --format mbox \
	-o "$work/queue-clone.mbox" 2>"$work/queue-clone.err" || rc=$?
grep '^From [0-9a-f]\{40\} ' "$work/queue-clone.mbox" | cut -d' ' -f2 >"$work/queue-clone.ids" || true
q1=no; grep -qx "$m1" "$work/queue-clone.ids" && q1=yes
q2=no; grep -qx "$m2" "$work/queue-clone.ids" && q2=yes
echo "- \`rank --onto origin/21.11 --format mbox\` in the clone: exit $rc, $(secs "$t") s (load $(load)); $(wc -l <"$work/queue-clone.ids") patches; the accepted one in it: $q2; the rejected one in it: $q1"
grep '^note: the queue' "$work/queue-clone.err" | sed 's/^/  - stderr: /' || true
if [ "$q1" = no ] && [ "$q2" = yes ]; then echo "- rank and the queue agree with mark: OK"; else echo "- FAIL: the queue does not follow the decisions marked"; fi
echo

# 6. the queue, applied onto the tag
echo "## 6. the queue, git am -3 onto $tag"
echo
t=$(now_ms)
rc=0; "$ss" rank $opts --format mbox -o "$work/queue.mbox" 2>"$work/queue.err" || rc=$?
nq=$(grep -c '^From [0-9a-f]\{40\} ' "$work/queue.mbox" 2>/dev/null || true)
echo "- \`rank ... --format mbox -o queue.mbox\`: exit $rc, $(secs "$t") s (load $(load)); $nq patches"
sed 's/^/  - stderr: /' "$work/queue.err" | head -5
grep '^From [0-9a-f]\{40\} ' "$work/queue.mbox" | cut -d' ' -f2 >"$work/queue.ids" || true
acc=$(awk '$2 == "y" { print $1 }' "$work/decided" | sort)
inq=0; for a in $acc; do grep -qx "$a" "$work/queue.ids" && inq=$((inq + 1)); done
echo "- accepted in the review: $ny; of them in the queue: $inq; other patches (prerequisites): $((nq - inq))"
for a in $acc; do
	grep -qx "$a" "$work/queue.ids" && continue
	a12=$(echo "$a" | cut -c1-12)
	echo "  - accepted, not in the queue: $a12 $(git -C "$r" log -1 --format=%s "$a"): \`$(tr -d '\r' <"$work/review.out" |
		sed -n "/^\[[0-9]*\/[0-9]*\] $a12/,/^Accept/p" | grep "^  $tag: " | head -1 | sed 's/^ *//' | cut -c1-160)\`"
done
git -C "$r" worktree add -q --detach "$work/wt" "$tag"
applied=0; failed=""
if [ "$nq" -gt 0 ]; then
	if ! git -C "$work/wt" am -3 -q "$work/queue.mbox" >"$work/am.log" 2>&1; then
		while [ -d "$(git -C "$work/wt" rev-parse --git-path rebase-apply)" ]; do
			failed="$failed $(git -C "$work/wt" am --show-current-patch=raw 2>/dev/null | sed -n 's/^From \([0-9a-f]\{12\}\).*/\1/p' | head -1)"
			git -C "$work/wt" am --skip >>"$work/am.log" 2>&1 || true
		done
	fi
	applied=$(git -C "$work/wt" rev-list --count "$tag"..HEAD)
fi
echo "- \`git am -3\`: $applied of $nq applied${failed:+; failed (skipped):$failed}"
echo
echo "load at the end: $(load)"
