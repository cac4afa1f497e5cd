#!/bin/sh
# driftrepo.sh - a project whose stable policy changed (tests/test_project.c,
# test_window): 8 years of mainline, one commit every 3 days from
# 2012-01-01; every fourth commit "core: fix alpha crash K", the next
# "core: fix beta leak K", the others "core: add feature K".  stable-1.y
# takes the alpha fixes of the first 3 years and the beta fixes after them
# ("commit <sha> upstream.", a week later).  Written with git fast-import;
# fixed dates and authors, so ids are stable; the user's git
# configuration is ignored.
#
# Usage: tests/driftrepo.sh DIR      (makes DIR, a repository)
set -eu
. "$(dirname "$0")/gitenv.sh"

DIR=$1
N=974
T0=1325376000 # 2012-01-01
YEAR=31557600

mkdir -p "$DIR"
git -C "$DIR" init -q -b main
awk -v n=$N -v t0=$T0 'BEGIN {
	for (i = 0; i < n; i++) {
		t = t0 + i * 3 * 86400
		if (i % 4 == 0)
			subj = "core: fix alpha crash " i
		else if (i % 4 == 1)
			subj = "core: fix beta leak " i
		else
			subj = "core: add feature " i
		msg = subj "\n\nSigned-off-by: Ann Author <ann@example.org>\n"
		printf "commit refs/heads/main\nmark :%d\n", i + 1
		printf "author Ann Author <ann@example.org> %d +0000\n", t
		printf "committer Max Maint <max@example.org> %d +0000\n", t
		printf "data %d\n%s\n", length(msg), msg
		if (i > 0)
			printf "from :%d\n", i
		line = "int v" i " = " i ";"
		printf "M 100644 inline src/file%d.c\ndata %d\n%s\n\n", i % 5, length(line) + 1, line
	}
}' | git -C "$DIR" fast-import --quiet
git -C "$DIR" checkout -q main
git -C "$DIR" log --reverse --format='%H %at %s' main |
	awk -v t0=$T0 -v year=$YEAR -v from="$(git -C "$DIR" rev-list --max-parents=0 main)" '
	{
		old = $2 < t0 + 3 * year
		if (!(($5 == "alpha" && old) || ($5 == "beta" && !old)))
			next
		subj = $3; for (i = 4; i <= NF; i++) subj = subj " " $i
		msg = subj "\n\ncommit " $1 " upstream.\n\nSigned-off-by: Greg Stable <greg@example.org>\n"
		printf "commit refs/heads/stable-1.y\n"
		printf "author Ann Author <ann@example.org> %d +0000\n", $2
		printf "committer Greg Stable <greg@example.org> %d +0000\n", $2 + 7 * 86400
		printf "data %d\n%s\n", length(msg), msg
		if (k++ == 0)
			printf "from %s\n", from
		line = "backport " $1
		printf "M 100644 inline stable/%s\ndata %d\n%s\n\n", $1, length(line) + 1, line
	}' | git -C "$DIR" fast-import --quiet
