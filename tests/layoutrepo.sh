#!/bin/sh
# layoutrepo.sh - build a small repository with one release-tag scheme in
# DIR, laid out as most projects are, for tests/test_layout.c.
#
# Usage: tests/layoutrepo.sh DIR MAIN1 MAIN2 POINT RC
#   main: c1 [MAIN1], c2, c3 [RC], c4 [MAIN2], c5 (a fix), c6, c7
#   stable (from MAIN2): the fix, cherry-picked with -x [POINT]
# so MAIN1 and MAIN2 are mainline releases, POINT a stable release and RC a
# release candidate, whatever their names.  Fixed dates (2023-11-14 on,
# an hour apart); the user's git configuration is ignored.
set -eu
. "$(dirname "$0")/gitenv.sh"

dir=${1:?usage: layoutrepo.sh DIR MAIN1 MAIN2 POINT RC}
m1=$2 m2=$3 point=$4 rc=$5
mkdir -p "$dir"
cd "$dir"
GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann@example.org
GIT_COMMITTER_NAME="Ann Author" GIT_COMMITTER_EMAIL=ann@example.org
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
n=0
# c SUBJECT: a commit changing lib.c, an hour after the last
c() {
	n=$((n + 1))
	GIT_AUTHOR_DATE="$((1700000000 + n * 3600)) +0000"
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
	echo "int v$n;" >>"${2:-lib.c}"
	git add -A
	git commit -q --no-verify -m "$1"
}

git -c init.defaultBranch=main init -q .
git config commit.gpgsign false
c "lib: first"
git tag "$m1"
c "lib: second"
c "lib: third"
git tag "$rc"
c "lib: fourth"
git tag -a -m "release $m2" "$m2"
c "lib: fix the third" fix.c
fix=$(git rev-parse HEAD)
c "lib: sixth"
c "lib: seventh"
git checkout -q -b stable "$m2"
n=$((n + 1))
GIT_AUTHOR_DATE="$((1700000000 + n * 3600)) +0000"
GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
git cherry-pick -x "$fix" >/dev/null
git tag "$point"
git checkout -q main
