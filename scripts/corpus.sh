#!/bin/sh
# corpus.sh - rebuild the multi-project corpus the built-in model learns
# from (scripts/corpus.tsv; docs/scores.md, "The general model").
#
# For each project of the list: DIR/<name>.git, a bare mirror of its
# public repository (cloned from MIRRORS/<owner>+<repo>/repo when such a
# snapshot is at hand, else from its url), with its branches set back to
# the tips pinned in scripts/corpus.refs (what they were on the snapshot
# date: a stable branch that moved on since would label more commits),
# checked to hold the pinned snapshot commit; then "stablesel index" of
# it into DIR/<name>.db (commits, releases, backports, the feature rows
# the model learns from).  A project already indexed is brought up to
# date (nothing to do when unchanged).  Then, unless --no-train:
#   stablesel corpus --list scripts/corpus.tsv --dir DIR --leave-one-out
# which prints the leave-one-project-out table.
#
# --pin rewrites scripts/corpus.refs from the mirrors in DIR instead (the
# maintainer's step when the corpus is refreshed; then update the
# snapshot commits and dates in scripts/corpus.tsv).
#
# Usage: scripts/corpus.sh [--pin] [--no-train] DIR [MIRRORS]
# Environment: STABLESEL (./stablesel), LIST (scripts/corpus.tsv), DATA
# (../shared/data: the data: projects' files).
# Never add a project here that an issue does not name: every other
# project is held out for measurement.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
ss=${STABLESEL:-$here/stablesel}
list=${LIST:-$here/scripts/corpus.tsv}
refs=$here/scripts/corpus.refs
pin=0 train=1
while [ $# -gt 0 ]; do
	case $1 in
	--pin) pin=1; shift ;;
	--no-train) train=0; shift ;;
	-*) echo "corpus.sh: unknown option $1" >&2; exit 129 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: scripts/corpus.sh [--pin] [--no-train] DIR [MIRRORS]" >&2; exit 129; }
dir=$1
mirrors=${2:-}
die() { echo "corpus.sh: $*" >&2; exit 1; }
[ -x "$ss" ] || die "$ss not found (run make first)"
mkdir -p "$dir"

if [ $pin = 1 ]; then
	tmp=$(mktemp "$refs.XXXXXX")
	grep -v '^#' "$list" | while IFS='	' read -r name url commit date since until opts; do
		[ -n "$name" ] || continue
		case $url in data:*) continue ;; esac
		git -C "$dir/$name.git" for-each-ref --format='%(objectname)	%(refname)' refs/heads |
			sed "s|^|$name	|"
	done > "$tmp"
	mv "$tmp" "$refs"
	echo "corpus.sh: pinned $(wc -l < "$refs") branch tips in $refs"
	exit 0
fi

# the index options are words, never file patterns (--release-tags 'krb5-*')
set -f
grep -v '^#' "$list" | while IFS='	' read -r name url commit date since until opts; do
	[ -n "$name" ] || continue
	case $url in data:*) continue ;; esac   # mail of ../shared: read as it is
	repo=$dir/$name.git
	if [ ! -e "$repo" ]; then
		slug=$(echo "$url" | sed 's|^https://github.com/||; s|/|+|')
		if [ -n "$mirrors" ] && [ -d "$mirrors/$slug/repo" ]; then
			git clone -q --mirror "$mirrors/$slug/repo" "$repo"
		else
			git clone -q --mirror "$url" "$repo"
		fi
		# the branches as they stood on the snapshot date
		git -C "$repo" for-each-ref --format='delete %(refname)' refs/heads refs/remotes |
			git -C "$repo" update-ref --stdin
		awk -F'\t' -v n="$name" '$1 == n { print "create " $3 " " $2 }' "$refs" |
			git -C "$repo" update-ref --stdin
	fi
	git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null ||
		die "$name: the snapshot commit $commit is not in $repo"
	echo "== $name ($date, $(git -C "$repo" for-each-ref refs/heads | wc -l) branches)" >&2
	# shellcheck disable=SC2086 # the options are words
	/usr/bin/time -f "$name: index %e s wall, %M KiB peak" \
		"$ss" index --no-progress --repo "$repo" --db "$dir/$name.db" ${opts:-} >&2
done

if [ $train = 1 ]; then
	"$ss" corpus --list "$list" --dir "$dir" --data "${DATA:-$here/../shared/data}" --leave-one-out
fi
