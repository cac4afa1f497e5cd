#!/bin/sh
# index.sh - how fast "stablesel index" builds and updates the project
# index, and how fast the repository reader it shares with "log --repo"
# is, against git itself; then what that means for the Linux kernel.
#
# Seven parts (PARTS, default "read dpdk rank mail gen"; noop and e2e on
# request):
#
# read: DPDK's real repository (../shared/data/dpdk/dpdk-v22.03.git.tar),
#     v16.11..v22.03 (25,959 non-merge commits):
#         git log -p --no-merges v16.11..v22.03          (the reference)
#         stablesel log --repo R --rev v16.11..v22.03
#     (two readers, one, and one with every commit through libgit2's
#     tree diff: SS_GIT_DIFF=libgit2, the cost of its diff layer);
#     wall and CPU (user + system) seconds, their ratios, peak RSS.
#     Goals (issue 12): <= 0.6x git's wall time, <= 1.0x its CPU, <= 250 MB.
#
# dpdk: the same repository, every branch (main and the LTS branches
#     16.11..21.11), on the same commits (no merges):
#         git log --no-merges --all --format=%H%x00%s   (ids and subjects only)
#         git log -p --no-merges --all                   (the reference: ratio 1.00;
#                                                         two test tables left out)
#         stablesel index (a fresh build), (an update with nothing new)
#
# rank: v19.02..v22.03 of the same repository (RANK_RANGE; 15,534 commits)
#     ranked with the index (goal: < 60 s), against git log -p over the
#     range: the built-in model; no --model (the first run trains the
#     project model from the index: reading the range twice as before,
#     SS_REPLAY_KIB=0, and once, as now; the next run reuses it);
#     --no-index.
#
# mail: DPDK's mainline mbox into an index of mail: a fresh build, an
#     update with nothing new, an update after half the messages were
#     appended to the other half.
#
# gen: a generated repository (bench/gen-stable-repo.py, made once and
#     cached in GEN_CACHE): GEN_COMMITS mainline commits over GEN_FILES
#     files, a release every 15,000, GEN_BRANCHES stable branches with
#     about GEN_BACKPORTS backports each ("commit <id> upstream."), then
#     one more release (GEN_EXTRA commits and the backports made
#     meanwhile).  On the state before that release: the two git logs,
#     a fresh build and an update with nothing new; then the refs move on
#     to the next release and the index is updated.
#
# e2e: after gen, in the same run, on its repository and index (the
#     refs at the full state): the reading commands at that size.  The
#     newest release's commits (RANGE, default the last two release tags)
#         git log -p --no-merges RANGE                 (the reference)
#         stablesel rank --rev RANGE (the first: trains the project
#             model from the index's stored rows, keeps it)
#         stablesel rank --rev RANGE (again: the model kept)
#         stablesel rank --rev <a week: the newest 1,500> --onto the
#             newest stable branch (the kept model; verdicts; the
#             branch's ancestry built and kept in the repository), the
#             same again (the next week: the ancestry read back), and the
#             same with --model models/default.model (no training
#             attempt: what a week costs with a model kept)
#         stablesel where <a backported mainline commit>
#         stablesel review --rev <the week> --onto <branch>, started and
#             quit at once, twice (the second reuses the first's ranking)
#     each with its peak RSS, and the index file's size.  E2E_REPO and
#     E2E_DB (an index of E2E_REPO, copied first, left as it is) run the
#     part alone on an earlier run's repository (PARTS=e2e).  Goals (issue
#     38): first rank < 3 min and < 1.5 GB; weekly rank < 20 s; review
#     start after the first < 2 s.
#
# noop: an update with nothing new of an index that exists (NOOP_DB,
#     default the one part dpdk built; with its -wal), of NOOP_REPO
#     (default the DPDK repository), on a copy: one run to settle (the
#     first run of a new binary keeps the layout), then NOOP_RUNS (5)
#     runs, each with its wall and CPU seconds, peak RSS and the load
#     before it, and their medians.  With NOOP_BEFORE=BINARY, that binary
#     too, on a copy of its own, the runs alternating (issue 38: was 0.16 s,
#     then 1.37 s: bench/results/index-noop.md).
#
# Every part reports seconds, ratios, peak RSS (/usr/bin/time -v) and the
# machine's load; the index parts the database's size per commit.  Then
# an extrapolation to the kernel (KERNEL_MAIN mainline commits, KERNEL_BRANCHES
# branches of KERNEL_BRANCH_COMMITS commits) against the goals: built in
# < 30 min on 2 cores, < 500 MB peak RSS, database < 2 GB, an update of
# 15,000 commits < 30 s.  All of it into bench/out/index.txt.
#
# Environment: STABLESEL (./stablesel), SS_DATA (../shared/data), OUT
# (bench/out), PARTS,
# GEN_CACHE (build/tmp: never kept in git), GEN_COMMITS (300000),
# FORK_EVERY (1: see gen-stable-repo.py), GEN_NO_REF (set: no git log
# references in part gen, an earlier run's stand),
# GEN_EXTRA (15000), GEN_FILES (4000), GEN_BRANCHES (5), GEN_BACKPORTS
# (6000).  Run from the top of the source tree after `make`; use nice.
set -eu
cd "$(dirname "$0")/.."

STABLESEL=${STABLESEL:-./stablesel}
DATA=${SS_DATA:-../shared/data}
PARTS=${PARTS:-read dpdk rank mail gen}
GEN_CACHE=${GEN_CACHE:-build/tmp}
GEN_COMMITS=${GEN_COMMITS:-300000}
GEN_EXTRA=${GEN_EXTRA:-15000}
GEN_FILES=${GEN_FILES:-4000}
GEN_BRANCHES=${GEN_BRANCHES:-5}
GEN_BACKPORTS=${GEN_BACKPORTS:-6000}
KERNEL_MAIN=1300000
KERNEL_BRANCHES=10
KERNEL_BRANCH_COMMITS=30000
OUT=${OUT:-bench/out}
SUMMARY=$OUT/index.txt
TAR=$DATA/dpdk/dpdk-v22.03.git.tar

die() { echo "index: $*" >&2; exit 1; }

[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
STABLESEL=$(realpath "$STABLESEL")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ss-bench-index-XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
: >"$SUMMARY.tmp"

GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_GLOBAL=/dev/null
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL

load() { cut -d' ' -f1-3 /proc/loadavg; }

# measure NAME CMD...: wall and CPU seconds, peak RSS (KiB) into $secs,
# $cpu, $rss; the load before the run into $ld
measure() {
	name=$1
	shift
	ld=$(load)
	/usr/bin/time -v -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr" || {
		cat "$TMP/stderr" >&2
		die "$name failed"
	}
	secs=$(awk -F': ' '/Elapsed/ { n = split($2, t, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f", s }' "$TMP/time")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$TMP/time")
	rss=$(awk -F': ' '/Maximum resident/ { print $2 }' "$TMP/time")
	echo "index: $name: ${secs}s wall, ${cpu}s CPU, ${rss} KiB, load $ld" >&2
}

ratio() { echo "$1 $2" | awk '{ printf "%.2f", ($2 > 0) ? $1 / $2 : 0 }'; }
say() { echo "$*" | tee -a "$SUMMARY.tmp"; }
# row LABEL WALL CPU RSS_KIB REF_WALL REF_CPU
row() {
	printf '%-46s %8s %6s %8s %6s %8s  %s\n' "$1" "$2" "$(ratio "$2" "$5")" "$3" \
		"$(ratio "$3" "$6")" "$(($4 / 1024))" "$ld" | tee -a "$SUMMARY.tmp"
}
header() {
	printf '%-46s %8s %6s %8s %6s %8s  %s\n' "" "wall s" ratio "CPU s" ratio "RSS MiB" \
		"load before" | tee -a "$SUMMARY.tmp"
}
dbsize() {
	# the WAL is checkpointed when the last connection closes: the file is all
	echo $(($(stat -c %s "$1") + $(stat -c %s "$1-wal" 2>/dev/null || echo 0)))
}

dpdk_repo() {
	[ -d "$TMP/dpdk/dpdk.git" ] && return 0
	mkdir -p "$TMP/dpdk"
	tar -xf "$TAR" -C "$TMP/dpdk"
}

part_read() {
	if [ ! -f "$TAR" ]; then
		say "read: SKIP: $DATA not found"
		return 0
	fi
	dpdk_repo
	repo=$TMP/dpdk/dpdk.git
	say ""
	say "read: DPDK v16.11..v22.03, $(git -C "$repo" rev-list --count --no-merges v16.11..v22.03) non-merge commits, $(nproc) CPUs"
	header
	measure "git log -p" git -C "$repo" log -p --no-merges v16.11..v22.03
	g_s=$secs g_c=$cpu
	row "git log -p --no-merges (ref)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	measure "stablesel log" "$STABLESEL" log --repo "$repo" --rev v16.11..v22.03
	row "stablesel log --repo" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	measure "stablesel log (1 thread)" env SS_GIT_THREADS=0 "$STABLESEL" log --repo "$repo" \
		--rev v16.11..v22.03
	row "stablesel log --repo (SS_GIT_THREADS=0)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	measure "stablesel log (1 thread, libgit2 diff)" env SS_GIT_THREADS=0 SS_GIT_DIFF=libgit2 \
		"$STABLESEL" log --repo "$repo" --rev v16.11..v22.03
	row "  ... and SS_GIT_DIFF=libgit2" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	say "goals: wall <= 0.60, CPU <= 1.00, RSS <= 250 MB"
}

part_dpdk() {
	if [ ! -f "$TAR" ]; then
		say "dpdk: SKIP: $DATA not found"
		return 0
	fi
	dpdk_repo
	repo=$TMP/dpdk/dpdk.git
	db=$TMP/dpdk.db
	n=$(git -C "$repo" rev-list --no-merges --all --count)
	say ""
	say "dpdk: DPDK v22.03 repository, $n non-merge commits on all branches, $(nproc) CPUs"
	header
	measure "git log --format" git -C "$repo" log --no-merges --all '--format=%H%x00%s'
	f_s=$secs f_c=$cpu f_r=$rss f_l=$ld
	# the tarball lacks the blobs of two large test tables, which stops git
	# log -p; stablesel skips the 9 commits that touch them (and warns)
	measure "git log -p" git -C "$repo" log -p --no-merges --all -- . \
		':(exclude)app/test/test_lpm6_routes.h' ':(exclude)app/test/test_lpm_routes.h'
	g_s=$secs g_c=$cpu
	ld=$f_l row "git log --no-merges --all --format=%H%x00%s" "$f_s" "$f_c" "$f_r" "$g_s" "$g_c"
	row "git log -p --no-merges --all (ref)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	# exit 1: the tarball's 9 unreadable commits are reported, the rest indexed
	measure "stablesel index (build)" sh -c '"$@"; [ $? -le 1 ]' index "$STABLESEL" index \
		--no-progress --repo "$repo" --db "$db"
	row "stablesel index (fresh build)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	dpdk_build_s=$secs dpdk_build_c=$cpu dpdk_build_rss=$rss dpdk_n=$n
	say "  $(grep '^indexed' "$TMP/stderr")"
	measure "stablesel index (update, nothing new)" "$STABLESEL" index --no-progress \
		--repo "$repo" --db "$db"
	row "stablesel index (update, nothing new)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	size=$(dbsize "$db")
	dpdk_bpc=$((size / n))
	say "database: $size bytes, $dpdk_bpc bytes per commit"
}

# rank: ranking a range of about 15,000 commits with the index (issue 12's
# goal: under 60 s), v19.02..v22.03 of DPDK's repository, against git log -p
# over the same range; with the built-in model, with the project model the
# first rank trains from the index's backports (and keeps): as before, the
# ranked commits read twice (for the training, then for the ranking:
# SS_REPLAY_KIB=0), and as now, read once (kept in memory for the
# ranking); with that model kept; and without the index.  The index is
# built here as a user would (in the gitdir, with DPDK's releases.tsv).
# The three rankings with the project model must list the same rows.
part_rank() {
	if [ ! -f "$TAR" ]; then
		say "rank: SKIP: $DATA not found"
		return 0
	fi
	dpdk_repo
	repo=$TMP/dpdk/dpdk.git
	range=${RANK_RANGE:-v19.02..v22.03}
	[ -f "$repo/stablesel/index.db" ] ||
		"$STABLESEL" index --no-progress --repo "$repo" --releases "$DATA/dpdk/releases.tsv" \
			2>/dev/null || [ $? -eq 1 ] || die "cannot index $repo"
	rm -f "$repo/stablesel/project.model"
	say ""
	say "rank: DPDK $range, $(git -C "$repo" rev-list --count --no-merges "$range") non-merge commits, the index of every branch (--releases releases.tsv), $(nproc) CPUs"
	header
	measure "git log -p" git -C "$repo" log -p --no-merges "$range"
	g_s=$secs g_c=$cpu
	row "git log -p --no-merges (ref)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	# exit 1: the tarball's 9 unreadable commits are errors of the history read
	measure "rank (built-in model)" sh -c '"$@"; [ $? -le 1 ]' rank "$STABLESEL" rank \
		--no-progress --repo "$repo" --rev "$range" --model models/default.model \
		--format tsv --top 100000 -o "$TMP/rank.tsv"
	row "stablesel rank --model default" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	say "  $(($(wc -l <"$TMP/rank.tsv") - 1)) rows"
	measure "rank (project model trained, range read twice)" sh -c '"$@"; [ $? -le 1 ]' rank \
		env SS_REPLAY_KIB=0 "$STABLESEL" rank --no-progress --repo "$repo" --rev "$range" \
		--format tsv --top 100000 -o "$TMP/twice.tsv"
	row "rank, trains (range read twice, as before)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	say "  $(grep 'trained a' "$TMP/stderr" | sed 's/^rank: //')"
	rm -f "$repo/stablesel/project.model"
	measure "rank (project model trained)" sh -c '"$@"; [ $? -le 1 ]' rank "$STABLESEL" rank \
		--no-progress --repo "$repo" --rev "$range" --format tsv --top 100000 \
		-o "$TMP/once.tsv"
	row "stablesel rank (trains the project model)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	say "  $(grep 'trained a' "$TMP/stderr" | sed 's/^rank: //')"
	measure "rank (project model kept)" sh -c '"$@"; [ $? -le 1 ]' rank "$STABLESEL" rank \
		--no-progress --repo "$repo" --rev "$range" --format tsv --top 100000 \
		-o "$TMP/kept.tsv"
	row "stablesel rank (the project model kept)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	if cmp -s "$TMP/twice.tsv" "$TMP/once.tsv" && cmp -s "$TMP/once.tsv" "$TMP/kept.tsv"; then
		say "  the three rankings with the project model: identical ($(($(wc -l <"$TMP/once.tsv") - 1)) rows)"
	else
		say "  the three rankings with the project model DIFFER"
	fi
	measure "rank (no index)" sh -c '"$@"; [ $? -le 1 ]' rank "$STABLESEL" rank \
		--no-progress --repo "$repo" --no-index --rev "$range" --model models/default.model \
		--format tsv --top 100000 -o "$TMP/rank.tsv"
	row "stablesel rank --model default --no-index" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	say "goal: rank of a 15,000-commit range with the index < 60 s"
}

# mail: DPDK's mainline mbox (.zst) into an index of mail: a fresh build,
# an update with nothing new (decodes, does not parse), and an update after
# the second half of the messages was appended to the first.
part_mail() {
	mbox=$DATA/dpdk/mainline-v16.11-v22.03.mbox.zst
	if [ ! -f "$mbox" ]; then
		say "mail: SKIP: $DATA not found"
		return 0
	fi
	zstd -dcq "$mbox" >"$TMP/full.mbox"
	# the first half: up to the first message after the middle
	half=$(($(stat -c %s "$TMP/full.mbox") / 2))
	cut=$(tail -c +"$half" "$TMP/full.mbox" | grep -b -m 1 '^From [0-9a-f]\{40\} ' | cut -d: -f1)
	head -c $((half - 1 + cut)) "$TMP/full.mbox" >"$TMP/grow.mbox"
	say ""
	say "mail: DPDK's mainline mbox, $(zstd -lv "$mbox" 2>/dev/null | awk '/Decompressed Size/ { print $3, $4 }') decoded, $(nproc) CPUs"
	header
	measure "index (mail, build)" "$STABLESEL" index --no-progress --db "$TMP/mail.db" "$mbox"
	b_s=$secs b_c=$cpu
	row "stablesel index MBOX (fresh build, ref)" "$secs" "$cpu" "$rss" "$b_s" "$b_c"
	say "  $(grep '^indexed' "$TMP/stderr")"
	measure "index (mail, nothing new)" "$STABLESEL" index --no-progress --db "$TMP/mail.db" "$mbox"
	row "stablesel index MBOX (update, nothing new)" "$secs" "$cpu" "$rss" "$b_s" "$b_c"
	"$STABLESEL" index --no-progress --db "$TMP/grow.db" "$TMP/grow.mbox" 2>/dev/null
	cp "$TMP/full.mbox" "$TMP/grow.mbox"
	measure "index (mail, appended)" "$STABLESEL" index --no-progress --db "$TMP/grow.db" "$TMP/grow.mbox"
	row "stablesel index MBOX (update, half appended)" "$secs" "$cpu" "$rss" "$b_s" "$b_c"
	say "  $(grep '^indexed' "$TMP/stderr")"
	rm -f "$TMP/full.mbox" "$TMP/grow.mbox"
}

# set_refs REPO FILE: the refs of REPO become exactly FILE's "<id> <ref>" lines
set_refs() {
	git -C "$1" for-each-ref --format='%(refname)' | while read -r ref; do
		grep -q " $ref\$" "$2" || git -C "$1" update-ref -d "$ref"
	done
	while read -r id ref; do
		git -C "$1" update-ref "$ref" "$id"
	done <"$2"
}

part_gen() {
	command -v python3 >/dev/null || die "python3 not found (needed to generate the repository)"
	gen=$GEN_CACHE/stable-repo-$GEN_COMMITS-$GEN_EXTRA-$GEN_FILES-$GEN_BRANCHES-$GEN_BACKPORTS${FORK_EVERY:+-every$FORK_EVERY}
	if [ ! -f "$gen/base-refs" ]; then
		echo "index: generating $gen (once; minutes)" >&2
		mkdir -p "$GEN_CACHE"
		rm -rf "$gen.partial"
		t0=$(date +%s)
		nice python3 bench/gen-stable-repo.py "$gen.partial" "$GEN_COMMITS" "$GEN_EXTRA" \
			"$GEN_FILES" "$GEN_BRANCHES" "$GEN_BACKPORTS" || die "cannot generate $gen"
		mv "$gen.partial" "$gen"
		echo "index: generated in $(($(date +%s) - t0)) s" >&2
	fi
	# a working copy: the packs are read-only, so hard links will do
	repo=$TMP/gen.git
	cp -al "$gen" "$repo"
	git -C "$repo" for-each-ref --format='%(objectname) %(refname)' >"$TMP/full-refs"
	set_refs "$repo" "$gen/base-refs"
	db=$TMP/gen.db
	n=$(git -C "$repo" rev-list --no-merges --all --count)
	nb=$(git -C "$repo" branch | wc -l)
	say ""
	say "gen: generated repository, $n non-merge commits on $nb branches ($GEN_FILES files," \
		"$GEN_BRANCHES stable branches, $(du -sm "$gen" | cut -f1) MB), $(nproc) CPUs"
	header
	if [ -n "${GEN_NO_REF:-}" ]; then
		# the references of an earlier run of the same size (ratios 0)
		g_s=0 g_c=0
	else
		measure "git log --format" git -C "$repo" log --no-merges --all '--format=%H%x00%s'
		f_s=$secs f_c=$cpu f_r=$rss f_l=$ld
		measure "git log -p" git -C "$repo" log -p --no-merges --all
		g_s=$secs g_c=$cpu
		ld=$f_l row "git log --no-merges --all --format=%H%x00%s" "$f_s" "$f_c" "$f_r" "$g_s" "$g_c"
		row "git log -p --no-merges --all (ref)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	fi
	measure "stablesel index (build)" "$STABLESEL" index --no-progress --repo "$repo" --db "$db"
	row "stablesel index (fresh build)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	gen_build_s=$secs gen_build_c=$cpu gen_build_rss=$rss gen_n=$n
	say "  $(grep '^indexed' "$TMP/stderr")"
	size=$(dbsize "$db")
	gen_bpc=$((size / n))
	measure "stablesel index (update, nothing new)" "$STABLESEL" index --no-progress \
		--repo "$repo" --db "$db"
	row "stablesel index (update, nothing new)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	set_refs "$repo" "$TMP/full-refs"
	n2=$(git -C "$repo" rev-list --no-merges --all --count)
	measure "stablesel index (update, one release)" "$STABLESEL" index --no-progress \
		--repo "$repo" --db "$db"
	row "stablesel index (update, $((n2 - n)) commits)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	gen_upd_s=$secs gen_upd_c=$cpu gen_upd_n=$((n2 - n))
	say "  $(grep '^indexed' "$TMP/stderr")"
	say "database: $size bytes, $gen_bpc bytes per commit (before the update)"
}

part_e2e() {
	repo=$TMP/gen.git
	db=$TMP/gen.db
	if [ -n "${E2E_DB:-}" ]; then
		repo=${E2E_REPO:?E2E_REPO: the repository E2E_DB indexes}
		cp "$E2E_DB" "$db" || die "cannot copy $E2E_DB"
	fi
	if [ ! -f "$db" ]; then
		say "e2e: SKIP: no generated index (part gen before it, in the same run)"
		return 0
	fi
	set -- $(git -C "$repo" tag --list 'v*.0' --sort=-v:refname | head -2)
	range=${E2E_RANGE:-$2..$1}
	top=$(git -C "$repo" rev-parse "refs/heads/master")
	week="$top~1500..$top"
	branch=$(git -C "$repo" branch --list '*.y' --sort=-v:refname --format='%(refname:short)' | head -1)
	bp=$(git -C "$repo" log -1 --format=%B "$branch" | sed -n 's/^commit \([0-9a-f]\{40\}\) upstream\./\1/p')
	n=$(git -C "$repo" rev-list --no-merges --count "$range")
	say ""
	say "e2e: the generated repository's index ($(dbsize "$db") bytes); rank $range ($n commits)," \
		"a week $week --onto $branch, $(nproc) CPUs"
	header
	measure "git log -p (range)" git -C "$repo" log -p --no-merges "$range"
	g_s=$secs g_c=$cpu
	row "git log -p --no-merges $range (ref)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	rm -f "$repo/stablesel/project.model"
	measure "rank (first)" "$STABLESEL" rank --no-progress --repo "$repo" --db "$db" --rev "$range" \
		--format tsv --top 1000000 -o "$TMP/rank1.tsv"
	row "stablesel rank (trains the project model)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	# the project model trained, or why not (a generated history whose
	# backports are all of its newest commits has nothing to learn from)
	say "  $(grep -E 'trained a linear model|nothing to learn|too few settled' "$TMP/stderr" |
		head -1 | cut -c1-240)"
	measure "rank (kept)" "$STABLESEL" rank --no-progress --repo "$repo" --db "$db" --rev "$range" \
		--format tsv --top 1000000 -o "$TMP/rank2.tsv"
	row "stablesel rank (the project model kept)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	cmp -s "$TMP/rank1.tsv" "$TMP/rank2.tsv" && say "  the two rankings: identical ($(($(wc -l <"$TMP/rank1.tsv") - 1)) rows)" ||
		say "  the two rankings DIFFER"
	# the branch's ancestry kept by an earlier run of this repository
	# (check/check_ancestry.c) is dropped: the first week builds it
	rm -rf "$(git -C "$repo" rev-parse --absolute-git-dir)/stablesel/ancestry"
	measure "rank (a week, --onto)" "$STABLESEL" rank --no-progress --repo "$repo" --db "$db" \
		--rev "$week" --onto "$branch" --format tsv --top 1000000 -o "$TMP/rank3.tsv"
	row "stablesel rank (a week, kept, --onto $branch)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	say "  $(($(wc -l <"$TMP/rank3.tsv") - 1)) rows; $(grep -c 'applies' "$TMP/rank3.tsv" || true) that apply"
	measure "rank (the next week, --onto)" "$STABLESEL" rank --no-progress --repo "$repo" --db "$db" \
		--rev "$week" --onto "$branch" --format tsv --top 1000000 -o "$TMP/rank5.tsv"
	row "stablesel rank (again, the ancestry kept)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	cmp -s "$TMP/rank3.tsv" "$TMP/rank5.tsv" && say "  the two weeks' rankings: identical" ||
		say "  the two weeks' rankings DIFFER"
	measure "rank (a week, built-in, --onto)" "$STABLESEL" rank --no-progress --repo "$repo" \
		--db "$db" --rev "$week" --onto "$branch" --model models/default.model --format tsv \
		--top 1000000 -o "$TMP/rank4.tsv"
	row "stablesel rank (a week, --model default, --onto)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	if [ -n "$bp" ]; then
		measure "where" "$STABLESEL" where --repo "$repo" --db "$db" "$bp"
		row "stablesel where $(echo "$bp" | cut -c1-12)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
	fi
	if command -v script >/dev/null; then
		for which in first second; do
			ld=$(load)
			t0=$(date +%s.%N)
			echo q | /usr/bin/time -v -o "$TMP/time" script -qec "'$STABLESEL' review --repo '$repo' \
				--db '$db' --rev '$week' --onto '$branch'" /dev/null >"$TMP/review-$which.out" 2>&1 || true
			secs=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.2f", $2 - $1 }')
			cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$TMP/time")
			rss=$(awk -F': ' '/Maximum resident/ { print $2 }' "$TMP/time")
			row "stablesel review (start, $which)" "$secs" "$cpu" "$rss" "$g_s" "$g_c"
		done
		say "  second start: $(grep -c 'reusing the ranking of' "$TMP/review-second.out" || true) reuse line(s)"
	fi
	say "index file after the runs: $(dbsize "$db") bytes"
}

# noop_one LABEL BINARY DB WHICH: one update with nothing new of DB, its
# row, its figures kept for WHICH's medians
noop_one() {
	measure "$1" "$2" index --no-progress --repo "$NOOP_REPO_USED" --db "$3"
	printf '%-46s %8s %8s %8s  %s\n' "  $1" "$secs" "$cpu" "$((rss / 1024))" "$ld" |
		tee -a "$SUMMARY.tmp"
	echo "$secs $cpu $rss" >>"$TMP/noop-$4"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

part_noop() {
	db=${NOOP_DB:-$TMP/dpdk.db}
	NOOP_REPO_USED=${NOOP_REPO:-$TMP/dpdk/dpdk.git}
	runs=${NOOP_RUNS:-5}
	if [ ! -f "$db" ] || [ ! -d "$NOOP_REPO_USED" ]; then
		say "noop: SKIP: no index (NOOP_DB, or part dpdk before it) or no repository (NOOP_REPO)"
		return 0
	fi
	say ""
	say "noop: an update with nothing new of $db ($NOOP_REPO_USED), median of $runs, $(nproc) CPUs"
	for which in after before; do
		[ "$which" = before ] && [ -z "${NOOP_BEFORE:-}" ] && continue
		cp "$db" "$TMP/noop-$which.db"
		[ -f "$db-wal" ] && cp "$db-wal" "$TMP/noop-$which.db-wal"
		: >"$TMP/noop-$which"
	done
	printf '%-46s %8s %8s %8s  %s\n' "" "wall s" "CPU s" "RSS MiB" "load before" |
		tee -a "$SUMMARY.tmp"
	"$STABLESEL" index --no-progress --repo "$NOOP_REPO_USED" --db "$TMP/noop-after.db" 2>/dev/null ||
		die "noop: the update to settle failed"
	[ -n "${NOOP_BEFORE:-}" ] && { "$NOOP_BEFORE" index --no-progress --repo "$NOOP_REPO_USED" \
		--db "$TMP/noop-before.db" 2>/dev/null || die "noop: $NOOP_BEFORE failed"; }
	i=0
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		[ -n "${NOOP_BEFORE:-}" ] && noop_one "before #$i" "$NOOP_BEFORE" "$TMP/noop-before.db" before
		noop_one "stablesel #$i" "$STABLESEL" "$TMP/noop-after.db" after
	done
	for which in before after; do
		[ -s "$TMP/noop-$which" ] || continue
		say "  median ($which): $(cut -d' ' -f1 "$TMP/noop-$which" | median) s wall," \
			"$(cut -d' ' -f2 "$TMP/noop-$which" | median) s CPU," \
			"$(($(cut -d' ' -f3 "$TMP/noop-$which" | median | cut -d. -f1) / 1024)) MiB"
	done
}

# The kernel from the figures above: time and size grow with the commits
# read, memory by what grows with the repository (the fit of two sizes).
# Wall times depend on the machine's load; CPU seconds much less, and on
# 2 idle cores the wall time of a build is at most its CPU time.
part_kernel() {
	k=$((KERNEL_MAIN + KERNEL_BRANCHES * KERNEL_BRANCH_COMMITS))
	say ""
	say "kernel: $KERNEL_MAIN mainline + $KERNEL_BRANCHES x $KERNEL_BRANCH_COMMITS stable = $k commits"
	if [ -n "${gen_n:-}" ]; then
		say "$(echo "$k $gen_n $gen_build_s $gen_build_c $gen_upd_s $gen_upd_c $gen_upd_n $gen_bpc $gen_build_rss" | awk '{
			printf "  at the generated rate: build %.0f min wall, %.0f min CPU (goal < 30);", $1 * $3 / $2 / 60, $1 * $4 / $2 / 60
			printf " update of 15,000 %.0f s wall, %.0f s CPU (goal < 30);", 15000 * $5 / $7, 15000 * $6 / $7
			printf " database %.2f GB (goal < 2); peak RSS %d MB measured at %d commits\n", $1 * $8 / 1e9, $9 / 1024, $2 }')"
	fi
	if [ -n "${dpdk_n:-}" ]; then
		say "$(echo "$k $dpdk_n $dpdk_build_s $dpdk_build_c $dpdk_bpc $dpdk_build_rss" | awk '{
			printf "  at the DPDK rate (real diffs): build %.0f min wall, %.0f min CPU (goal < 30);", $1 * $3 / $2 / 60, $1 * $4 / $2 / 60
			printf " database %.2f GB (goal < 2); peak RSS %d MB measured at %d commits\n", $1 * $5 / 1e9, $6 / 1024, $2 }')"
	fi
	if [ -n "${gen_n:-}" ] && [ -n "${dpdk_n:-}" ]; then
		say "$(echo "$k $dpdk_n $dpdk_build_rss $gen_n $gen_build_rss" | awk '{
			slope = ($5 - $3) / ($4 - $2)
			if (slope >= 0)
				printf "  peak RSS, the line through both: %.0f KiB per 1,000 commits, %d MB for the kernel (goal < 500)\n", 1000 * slope, ($3 + slope * ($1 - $2)) / 1024
			else
				printf "  peak RSS, the line through both: no growth (%.0f KiB per 1,000 commits: run-to-run noise); the larger peak, %d MB, for the kernel (goal < 500)\n", 1000 * slope, ($3 > $5 ? $3 : $5) / 1024 }')"
	fi
}

say "index: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(load), $(nproc) CPUs"
for part in $PARTS; do
	"part_$part"
done
part_kernel
mv "$SUMMARY.tmp" "$SUMMARY"
