#!/bin/sh
# projrepo.sh - a project with enough history to train a model on, and a
# stable branch whose backports grow on demand (tests/test_project.c).
#
# Usage: tests/projrepo.sh DIR N      make DIR (a repository) when missing,
#                                     then backport onto stable-1.y every
#                                     fix among the first N mainline commits
#                                     that is not there yet
# main: 240 commits, one every 3 days from 2020-01-01 (fixed dates and
# authors, so ids are stable): even ones "drv: fix crash in path K" (with
# a Fixes: line), odd ones "drv: add feature K".  stable-1.y forks at the
# first commit and carries "commit <sha> upstream." backports.  Written
# with git fast-import: a few hundred commits in well under a second.
# Prints nothing; exits 0 on success.  The user's git configuration is
# ignored.
set -eu
. "$(dirname "$0")/gitenv.sh"

DIR=$1
UPTO=$2
NMAIN=240
T0=1577836800 # 2020-01-01

if [ ! -d "$DIR/.git" ]; then
	mkdir -p "$DIR"
	git -C "$DIR" init -q -b main
	awk -v n=$NMAIN -v t0=$T0 'BEGIN {
		for (i = 0; i < n; i++) {
			t = t0 + i * 3 * 86400
			if (i % 2 == 0) {
				subj = "drv: fix crash in path " i
				body = "The handler dereferenced a null pointer when the queue was empty.\n\nFixes: 0123456789ab (\"drv: add path\")\nSigned-off-by: Ann Author <ann@example.org>\n"
			} else {
				subj = "drv: add feature " i
				body = "Add a new knob to configure the feature.\n\nSigned-off-by: Bob Builder <bob@example.org>\n"
			}
			msg = subj "\n\n" body
			printf "commit refs/heads/main\nmark :%d\n", i + 1
			printf "author %s %d +0000\n", (i % 2 == 0 ? "Ann Author <ann@example.org>" : "Bob Builder <bob@example.org>"), t
			printf "committer Max Maint <max@example.org> %d +0000\n", t
			printf "data %d\n%s\n", length(msg), msg
			if (i > 0)
				printf "from :%d\n", i
			line = (i % 2 == 0 ? "if (!q) return -EINVAL; /* " i " */" : "int feature_" i " = 1;")
			printf "M 100644 inline src/file%d.c\ndata %d\n%s\n\n", i % 7, length(line) + 1, line
		}
	}' | git -C "$DIR" fast-import --quiet --export-marks=.git/main.marks
	git -C "$DIR" checkout -q main
fi

# backport the fixes among the first UPTO mainline commits not yet there
have=$(git -C "$DIR" log --format=%b stable-1.y 2>/dev/null | sed -n 's/^commit \([0-9a-f]\{40\}\) upstream\.$/\1/p' | sort)
from=$(git -C "$DIR" rev-parse -q --verify stable-1.y || git -C "$DIR" rev-list --max-parents=0 main)
git -C "$DIR" log --reverse --format='%H %at %s' main | head -n "$UPTO" |
	awk -v have="$have" -v from="$from" '
	BEGIN { n = split(have, h, "\n"); for (i = 1; i <= n; i++) seen[h[i]] = 1; k = 0 }
	$4 == "fix" && !($1 in seen) {
		subj = $3 " " $4; for (i = 5; i <= NF; i++) subj = subj " " $i
		msg = subj "\n\ncommit " $1 " upstream.\n\nSigned-off-by: Greg Stable <greg@example.org>\n"
		t = $2 + 30 * 86400
		printf "commit refs/heads/stable-1.y\n"
		printf "author Ann Author <ann@example.org> %d +0000\n", $2
		printf "committer Greg Stable <greg@example.org> %d +0000\n", t
		printf "data %d\n%s\n", length(msg), msg
		if (k++ == 0)
			printf "from %s\n", from
		line = "backport " $1
		printf "M 100644 inline stable/%s\ndata %d\n%s\n\n", $1, length(line) + 1, line
	}' | git -C "$DIR" fast-import --quiet
