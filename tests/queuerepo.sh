#!/bin/sh
# queuerepo.sh - a repository for the verdicts and the queue (test_queue.c).
#
# Usage: tests/queuerepo.sh DIR      (DIR must not exist or be empty)
# Fixed dates: ids are the same on every run (for one git version).
#
# main, oldest first (hours after the base date):
#   0 base         a.c b.c c.c d.c, lines 1..20 each
#   1 introduce    a.c 2 -> two: the old bug       <- stable and stable2 fork here
#   2 feat         b.c 5 -> five (before --since: history only, never a pick)
#   3 fix-feat     Fixes: feat; b.c 5 -> FIVE          no: bug not in branch
#   4 fix-intro    Fixes: introduce; a.c 2 -> TWO      yes
#   5 fix-fix      Fixes: fix-intro; a.c 2 -> Two      yes, needs fix-intro (fix of a fix, one batch)
#   6 prep         c.c 3 -> three                      already (backport line)
#   7 fix-prep     Fixes: prep; c.c 3 -> THREE         yes: prep reached stable as a backport
#   8 helper       c.c 12 -> twelve                    already (backport line)
#   9 other14      c.c 14 -> fourteen                  yes
#  10 use-helper   Fixes: introduce; c.c 13 -> XIII    yes, needs other14 (not helper: stable has it)
#  11 dup          Fixes: introduce; d.c 15 -> fifteen already (cherry-picked, no line: same patch)
#  12 bad          Fixes: introduce; d.c 3 -> three    no: reverted by the revert
#  13 Revert "bad"                                     no: bug not in branch
# stable (from introduce): backports of prep and helper with "[ upstream
#   commit <sha> ]" lines, a cherry-pick of dup without a line, a change of
#   its own to b.c line 20.
# stable2 (from introduce): a backport of prep with "commit <sha> upstream."
# series (from main's tip; ranked as main..series), a 3-patch series
#   sharing a git-send-email Link: prefix (...-N-ann@example.org):
#  14 series-one   1/3 b.c 12 -> twelve            yes; series 1/3
#  15 series-two   2/3 a.c 9 -> nine (a helper)    yes; series 2/3 (1/3 is b.c)
#  16 series-three 3/3 Fixes: introduce; a.c 16    yes, needs series-two (series 3/3):
#                  -> sixteen (uses the helper)    the same file, though it applies alone
# series2 (from main's tip; main..series2), another Link: prefix, a chain:
#  17 chain-one    1/3 d.c 8 -> eight              yes; series 1/3
#  18 chain-two    2/3 d.c 8 -> EIGHT              conflicts alone: needs chain-one
#  19 chain-three  3/3 Fixes: introduce; d.c 10    yes, needs chain-two chain-one (series 3/3):
#                  -> ten (context: line 8)        chain-two passes as a prerequisite
#                                                  because chain-one explains its conflict
set -eu
. "$(dirname "$0")/gitenv.sh"

dir=${1:?usage: queuerepo.sh DIR}
mkdir -p "$dir"
cd "$dir"
GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann@example.org
GIT_COMMITTER_NAME="Ann Author" GIT_COMMITTER_EMAIL=ann@example.org
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

base=1699997400   # feat before 2023-11-15, fix-feat after
# at HOURS: the dates of the next commit
at() {
	GIT_AUTHOR_DATE="$((base + $1 * 3600)) +0000"
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}
# edit FILE LINE TEXT: set line LINE of FILE to TEXT
edit() {
	sed -i "$2s/.*/$3/" "$1"
}
id() {
	git log --format=%H -1 --grep="^$1\$" main
}
short() {
	id "$1" | cut -c1-12
}

git -c init.defaultBranch=main init -q .
git config commit.gpgsign false
for f in a.c b.c c.c d.c; do seq 1 20 > $f; done
git add .
at 0; git commit -qm base
at 1; edit a.c 2 two; git commit -qam introduce
git branch stable
git branch stable2
at 2; edit b.c 5 five; git commit -qam feat
at 3; edit b.c 5 FIVE; git commit -qa -m fix-feat -m "Fixes: $(short feat) (\"feat\")"
at 4; edit a.c 2 TWO; git commit -qa -m fix-intro -m "Fixes: $(short introduce) (\"introduce\")"
at 5; edit a.c 2 Two; git commit -qa -m fix-fix -m "Fixes: $(short fix-intro) (\"fix-intro\")"
at 6; edit c.c 3 three; git commit -qam prep
at 7; edit c.c 3 THREE; git commit -qa -m fix-prep -m "Fixes: $(short prep) (\"prep\")"
at 8; edit c.c 12 twelve; git commit -qam helper
at 9; edit c.c 14 fourteen; git commit -qam other14
at 10; edit c.c 13 XIII; git commit -qa -m use-helper -m "Fixes: $(short introduce) (\"introduce\")"
at 11; edit d.c 15 fifteen; git commit -qa -m dup -m "Fixes: $(short introduce) (\"introduce\")"
at 12; edit d.c 3 three; git commit -qa -m bad -m "Fixes: $(short introduce) (\"introduce\")"
at 13; git revert --no-edit HEAD >/dev/null

git checkout -q stable
at 20; git cherry-pick $(id prep) >/dev/null
git commit -q --amend -m prep -m "[ upstream commit $(id prep) ]"
at 21; git cherry-pick $(id helper) >/dev/null
git commit -q --amend -m helper -m "[ upstream commit $(id helper) ]"
at 22; git cherry-pick $(id dup) >/dev/null
git commit -q --amend -m "d.c: fifteen"
at 23; edit b.c 20 twenty; git commit -qam "stable only"
git checkout -q stable2
at 24; git cherry-pick $(id prep) >/dev/null
git commit -q --amend -m prep -m "commit $(id prep) upstream."
git checkout -q -b series main
link=https://lore.kernel.org/r/20231115080000.4242
at 14; edit b.c 12 twelve; git commit -qa -m "b.c: rename the twelfth line" \
	-m "Link: $link-1-ann@example.org"
at 15; edit a.c 9 nine; git commit -qa -m "a.c: add a helper for the counter" \
	-m "The next patch uses it." -m "Link: $link-2-ann@example.org"
at 16; edit a.c 16 sixteen; git commit -qa -m "a.c: fix a crash when the counter overflows" \
	-m "The counter wraps and the index runs past the end of the array: use the helper to check the bound." \
	-m "Fixes: $(short introduce) (\"introduce\")" -m "Link: $link-3-ann@example.org"
git checkout -q -b series2 main
link=https://lore.kernel.org/r/20231115090000.4343
at 17; edit d.c 8 eight; git commit -qa -m "d.c: rename the eighth line" -m "Link: $link-1-ann@example.org"
at 18; edit d.c 8 EIGHT; git commit -qa -m "d.c: spell the eighth line in capitals" \
	-m "Link: $link-2-ann@example.org"
at 19; edit d.c 10 ten; git commit -qa -m "d.c: fix a crash when the table is empty" \
	-m "The lookup dereferences the first entry of an empty table: check the count first." \
	-m "Fixes: $(short introduce) (\"introduce\")" -m "Link: $link-3-ann@example.org"
git checkout -q main
