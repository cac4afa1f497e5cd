#!/bin/sh
# identity.sh - the same outputs on DPDK, before and after a change.
#
#   scripts/identity.sh            run the commands below with ./stablesel
#                                  and compare their outputs with the
#                                  checksums in scripts/identity.sums
#                                  (what `make test` runs)
#   scripts/identity.sh REF        build REF (any commit, e.g. main or
#                                  $(git merge-base HEAD main)) in a temporary
#                                  folder, run both binaries and compare
#                                  the outputs byte for byte, with a diff
#                                  of the first that differs
#   scripts/identity.sh --record   write scripts/identity.sums from
#                                  ./stablesel: for a change of behaviour
#                                  that is meant, committed with it
#
# The input: ../shared/data/dpdk/dpdk-v22.03.git.tar unpacked into a
# temporary folder, and a shallow copy of its branches main and 21.11 from
# 2021-11-20 (v21.11 .. v22.03, 1,412 commits, the LTS branch 21.11 as it
# stood on 2022-03-17), which each binary indexes for itself.  The commands
# (see run_all): rank of v22.03-rc1..main onto 21.11 as text, TSV, JSON and
# mbox (from the index and, for TSV, from the branch with --no-index), rank
# --verdicts, check --prereqs (index and --no-index), origin and where of
# a fixed set of commits, and report.  Each command runs in its own folder
# with the repository at the relative path "repo", so no temporary path
# reaches an output but the index's absolute path in the model's
# description, which is replaced by WORK/; the exit code of each is
# compared too.  stderr is not
# compared (it holds timings).
#
# Environment: SS_BIN (./stablesel), DATA (../shared/data), KEEP=1 keeps
# the temporary folder and says where it is.  Without the data it prints
# "SKIP: ../shared/data not found" and succeeds.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${DATA:-$ROOT/../shared/data}
SS_BIN=${SS_BIN:-$ROOT/stablesel}
SUMS=$ROOT/scripts/identity.sums
TAR=$DATA/dpdk/dpdk-v22.03.git.tar

die() { echo "identity: $*" >&2; exit 1; }
if [ ! -f "$TAR" ]; then
	echo "SKIP: ../shared/data not found"
	exit 0
fi
case "$SS_BIN" in /*) ;; *) SS_BIN=$(pwd)/$SS_BIN ;; esac
[ -x "$SS_BIN" ] || die "$SS_BIN not found (run make first)"
mode=check
ref=
case "${1:-}" in
'') ;;
--record) mode=record ;;
-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
-*) die "unknown option '$1' (REF, --record or nothing)" ;;
*) mode=ref; ref=$1 ;;
esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ss-identity-XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
	trap 'echo "identity: kept $TMP" >&2' EXIT
else
	trap 'rm -rf "$TMP"' EXIT
fi

# the input repository: main and 21.11 from 2021-11-20 on (the tarball's
# older branches reach objects the partial clone lacks)
tar -xf "$TAR" -C "$TMP"
git init -q --bare "$TMP/small.git"
git -C "$TMP/small.git" fetch -q --shallow-since=2021-11-20 "file://$TMP/dpdk.git" \
	main:main 21.11:21.11 || die "cannot copy main and 21.11 out of $TAR"
git -C "$TMP/small.git" symbolic-ref HEAD refs/heads/main
rm -rf "$TMP/dpdk.git"
G="git -C $TMP/small.git"
# origin and where: the first 12 commits after v22.03-rc2 with a Fixes: line
# and the first 4 without one; where also takes two release tags
picks=$($G rev-list --reverse --no-merges --grep='^Fixes: ' v22.03-rc2..main | head -n 12 | tr '\n' ' ')
plain=$($G rev-list --reverse --no-merges --grep='^Fixes: ' --invert-grep v22.03-rc2..main | head -n 4 | tr '\n' ' ')
[ -n "$picks" ] && [ -n "$plain" ] || die "no commits found after v22.03-rc2"

# run_all BIN DIR: each command's output into DIR/NAME, its exit code into
# DIR/NAME.rc
run_all() {
	bin=$1
	out=$2
	mkdir -p "$out/work"
	cp -r "$TMP/small.git" "$out/work/repo"
	cd "$out/work"
	one() { # NAME CMD...: the command writes -o NAME or to stdout
		name=$1
		shift
		rc=0
		"$@" >"$out/$name.stdout" 2>"$out/$name.stderr" || rc=$?
		echo "$rc" >"$out/$name.rc"
		if [ -f "$name" ]; then
			mv "$name" "$out/$name"
		else
			mv "$out/$name.stdout" "$out/$name"
		fi
		rm -f "$out/$name.stdout"
	}
	one index "$bin" index --no-progress --repo repo
	rm -f "$out/index" # it names the database's absolute path
	set -- --no-progress --repo repo --rev v22.03-rc1..main --onto 21.11 --threshold 0.1
	one rank.txt "$bin" rank "$@" --no-color --reasons 2 --precedents 1 -o rank.txt
	one rank.tsv "$bin" rank "$@" --format tsv -o rank.tsv
	one rank.json "$bin" rank "$@" --format json -o rank.json
	one rank.mbox "$bin" rank "$@" --format mbox -o rank.mbox
	one rank-noindex.tsv "$bin" rank "$@" --no-index --format tsv -o rank-noindex.tsv
	one rank-verdicts.txt "$bin" rank "$@" --no-color --verdicts yes,needs -o rank-verdicts.txt
	one report.html "$bin" report "$@" --diffs 5 --title identity -o report.html
	set -- --no-progress --repo repo --rev v22.03-rc2..main --onto-repo repo --onto 21.11 --prereqs
	one check.tsv "$bin" check "$@" -o check.tsv
	one check-noindex.tsv "$bin" check "$@" --no-index -o check-noindex.tsv
	# shellcheck disable=SC2086
	one origin.txt "$bin" origin --no-progress --repo repo $picks $plain
	# shellcheck disable=SC2086
	one origin-noindex.txt "$bin" origin --no-progress --no-index --repo repo $picks
	# shellcheck disable=SC2086
	one where.txt "$bin" where --no-progress --repo repo $picks $plain v22.03 v21.11
	# the model's description names the index by its absolute path
	for f in "$out"/*; do
		[ -f "$f" ] || continue
		case $f in *.rc | *.stderr) continue ;; esac
		sed "s|$out/work/|WORK/|g" "$f" >"$f.n" && mv "$f.n" "$f"
	done
	cd "$TMP"
	rm -rf "$out/work"
}

# sums DIR: one "sha256 name" line per output and exit code, sorted
sums() {
	(cd "$1" && for f in $(ls | grep -v '\.stderr$' | sort); do
		printf '%s %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$f"
	done)
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
case $mode in
record)
	run_all "$SS_BIN" "$TMP/new"
	{
		echo "# scripts/identity.sh --record: sha256 of each output on DPDK (see the script)"
		sums "$TMP/new"
	} >"$SUMS.tmp"
	mv "$SUMS.tmp" "$SUMS"
	echo "identity: recorded $(grep -vc '^#' "$SUMS") outputs into scripts/identity.sums"
	exit 0
	;;
check)
	[ -f "$SUMS" ] || die "scripts/identity.sums not found (scripts/identity.sh --record)"
	run_all "$SS_BIN" "$TMP/new"
	sums "$TMP/new" >"$TMP/new.sums"
	grep -v '^#' "$SUMS" >"$TMP/ref.sums"
	;;
ref)
	commit=$(git -C "$ROOT" rev-parse --verify -q "$ref^{commit}") || die "'$ref' is no commit"
	mkdir "$TMP/src"
	git -C "$ROOT" archive "$commit" | tar -x -C "$TMP/src"
	echo "identity: building $ref ($(echo "$commit" | cut -c1-12)) in $TMP/src" >&2
	make -C "$TMP/src" -j2 stablesel >"$TMP/build.log" 2>&1 ||
		{ tail -n 20 "$TMP/build.log" >&2; die "cannot build $ref"; }
	run_all "$TMP/src/stablesel" "$TMP/ref"
	run_all "$SS_BIN" "$TMP/new"
	sums "$TMP/ref" >"$TMP/ref.sums"
	sums "$TMP/new" >"$TMP/new.sums"
	;;
esac

# the verdict: each output the same, or the names that differ
n=$(wc -l <"$TMP/ref.sums")
echo "identity: $n outputs on DPDK v22.03-rc1..main onto 21.11 (load $load)"
if cmp -s "$TMP/ref.sums" "$TMP/new.sums"; then
	awk '{ printf "  same  %s  %s\n", substr($1, 1, 16), $2 }' "$TMP/new.sums"
	echo "identity: all $n outputs byte-identical"
	exit 0
fi
join -j 2 -a 1 -a 2 -e missing -o 0,1.1,2.1 "$TMP/ref.sums" "$TMP/new.sums" |
	awk '{ printf "  %s  %s  %s\n", ($2 == $3 ? "same" : "DIFF"), substr($3, 1, 16), $1 }'
if [ "$mode" = ref ]; then
	first=$(join -j 2 -o 0,1.1,2.1 "$TMP/ref.sums" "$TMP/new.sums" | awk '$2 != $3 { print $1; exit }')
	if [ -n "$first" ] && [ -f "$TMP/ref/$first" ]; then
		echo "identity: the first difference, in $first ($ref, then this binary):"
		diff "$TMP/ref/$first" "$TMP/new/$first" | head -n 40 || true
	fi
	echo "identity: outputs differ from $ref"
else
	echo "identity: outputs differ from scripts/identity.sums: compare with a build of the"
	echo "  commit before the change (scripts/identity.sh REF); when the change is meant,"
	echo "  scripts/identity.sh --record and commit scripts/identity.sums with it"
fi
exit 1
