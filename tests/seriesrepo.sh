#!/bin/sh
# seriesrepo.sh - build in DIR a repository laid out with two branches per
# release series, for tests/test_layout.c: vX-Y-test takes the backports
# (cherry-picks with -x) and vX-Y-stable holds the releases, moved up to
# -test at release time.  Each series forks from master at its first
# release candidate, so its .0 release is not on master.
#
# Usage: tests/seriesrepo.sh DIR
#   master: c1, c1b, c2, c3 [name-4.19.0rc1], c4, c5 (fix of c2), c6
#           [name-4.20.0rc1], c7, c8 (fix of c1b), c9 .. c15
#   v4-19-test: c3, "VERSION 4.19.0" [name-4.19.0], c5 -x, "VERSION
#           4.19.1" [name-4.19.1], c8 -x
#   v4-19-stable: name-4.19.1 (one backport behind -test)
#   v4-20-test: c6, "VERSION 4.20.0rc2" [name-4.20.0rc2], "VERSION 4.20.0"
#           [name-4.20.0], c8 -x
#   v4-20-stable: name-4.20.0 (one backport behind -test)
# Fixed dates (2023-11-14 on, an hour apart, in the order of the steps);
# the user's git configuration is ignored.
set -eu
. "$(dirname "$0")/gitenv.sh"

dir=${1:?usage: seriesrepo.sh DIR}
mkdir -p "$dir"
cd "$dir"
GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann@example.org
GIT_COMMITTER_NAME="Ann Author" GIT_COMMITTER_EMAIL=ann@example.org
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
n=0
# tick: the next hour
tick() {
	n=$((n + 1))
	GIT_AUTHOR_DATE="$((1700000000 + n * 3600)) +0000"
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}
# c SUBJECT [FILE]: a commit adding a line to FILE (lib.c)
c() {
	tick
	echo "int v$n;" >>"${2:-lib.c}"
	git add -A
	git commit -q --no-verify -m "$1"
}
# pick SHA: cherry-pick -x onto the branch checked out
pick() {
	tick
	git cherry-pick -x "$1" >/dev/null
}
# release VERSION: a version commit and its annotated tag
release() {
	tick
	echo "$1" >VERSION
	git add VERSION
	git commit -q --no-verify -m "VERSION: $1"
	git tag -a -m "release $1" "name-$1"
}

git -c init.defaultBranch=master init -q .
git config commit.gpgsign false
c "lib: first"
c "drv: first" drv.c
c "lib: second" core.c
c "lib: third"
git tag name-4.19.0rc1
git branch v4-19-test
c "lib: fourth" net.c
c "core: fix the second" core.c
fix1=$(git rev-parse HEAD)
c "lib: sixth"
git tag name-4.20.0rc1
git branch v4-20-test
c "lib: seventh"
c "drv: fix the first" drv.c
fix2=$(git rev-parse HEAD)
c "lib: ninth"
for i in 10 11 12 13 14 15; do
	c "lib: commit $i"
done
git checkout -q v4-19-test
release 4.19.0
pick "$fix1"
release 4.19.1
git branch v4-19-stable
pick "$fix2"
git checkout -q v4-20-test
tick
echo rc2 >VERSION
git add VERSION
git commit -q --no-verify -m "VERSION: 4.20.0rc2"
git tag name-4.20.0rc2
release 4.20.0
git branch v4-20-stable
pick "$fix2"
git checkout -q master
