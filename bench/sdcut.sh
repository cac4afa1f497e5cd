#!/bin/sh
# sdcut.sh - a copy of the public systemd-stable mirror cut at one release,
# so that an index of it, its backports (the project model's labels) and
# its branches hold nothing known after that release.
#
# Usage: bench/sdcut.sh RELEASE DEST.git [MIRROR]
# RELEASE: a mainline release tag, v254 or earlier (v255 and later, and
# v255-stable, are held out: refused).  MIRROR: the bare mirror of
# github:systemd/systemd-stable (default
# /work/.mirror/systemd+systemd-stable/repo).  DEST.git is a new bare
# repository whose objects come from MIRROR's through
# objects/info/alternates (nothing copied), with
#   - main at RELEASE's commit;
#   - each vNNN-stable branch with NNN <= the release's number, at the
#     newest commit it reached by RELEASE's commit time
#     (git rev-list -1 --before=<that time> <branch>); vRELEASE-stable
#     therefore at RELEASE itself, later branches left out;
#   - the tags whose commit is dated no later than RELEASE's commit, as
#     lightweight tags of that commit (an annotated tag's object, with its
#     own date and message, is not kept).
# It then lists every ref dated after the cut (there must be none) and
# fails if one is found.  Index it with
#   stablesel index --repo DEST.git --db DEST.db
# (/work/bench/sdcut254.git and sdcut253.git were made this way.)
set -eu
rel=$1 dest=$2
M=${3:-/work/.mirror/systemd+systemd-stable/repo}
n=${rel#v}
case $n in
	''|*[!0-9]*) echo "sdcut.sh: $rel: not a vNNN release" >&2; exit 2;;
esac
if [ "$n" -ge 255 ]; then
	echo "sdcut.sh: $rel: v255 and later are held out" >&2; exit 2
fi
[ ! -e "$dest" ] || { echo "sdcut.sh: $dest exists" >&2; exit 2; }
M=$(realpath "$M")
commit=$(git --git-dir="$M" rev-parse "refs/tags/$rel^{commit}")
t=$(git --git-dir="$M" log -1 --format=%ct "$commit")
git init -q --bare "$dest"
echo "$M/objects" >"$dest/objects/info/alternates"
git --git-dir="$dest" update-ref refs/heads/main "$commit"
for b in $(git --git-dir="$M" for-each-ref refs/heads --format='%(refname:short)' | grep -E '^v[0-9]+-stable$'); do
	bn=${b#v}; bn=${bn%-stable}
	[ "$bn" -le "$n" ] || continue
	c=$(git --git-dir="$M" rev-list -1 --before="$t" "refs/heads/$b")
	[ -z "$c" ] || git --git-dir="$dest" update-ref "refs/heads/$b" "$c"
done
git --git-dir="$M" for-each-ref refs/tags \
	--format='%(refname) %(*objectname)%(objectname) %(*committerdate:unix)%(committerdate:unix)' |
	awk -v t="$t" '$3 + 0 <= t { print "update " $1 " " substr($2, 1, 40) }' |
	git --git-dir="$dest" update-ref --stdin
git --git-dir="$dest" symbolic-ref HEAD refs/heads/main
late=$(git --git-dir="$dest" for-each-ref \
	--format='%(refname) %(*committerdate:unix)%(committerdate:unix)' |
	awk -v t="$t" '$2 + 0 > t')
if [ -n "$late" ]; then
	echo "sdcut.sh: refs dated after the cut:" >&2; echo "$late" >&2; exit 1
fi
echo "$dest: main at $rel ($commit, $(date -u -d "@$t" '+%F %T') UTC)," \
	"$(git --git-dir="$dest" for-each-ref refs/heads | wc -l) branches," \
	"$(git --git-dir="$dest" for-each-ref refs/tags | wc -l) tags"
