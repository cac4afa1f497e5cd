#!/bin/sh
# gitrepo.sh - build a small kernel-like test repository in DIR.
#
# Usage: tests/gitrepo.sh DIR     (DIR must not exist or be empty)
# Prints nothing; exits 0 on success.  Every commit has a fixed author and
# committer date, so ids are the same on every run and every machine (for
# one git version).  The user's git configuration is ignored.
#
# main (mainline), oldest first; "[tag]" marks a lightweight tag:
#   net: foo: add driver                 root: foo.c, README, scripts/check.sh
#   net: foo: fix null dereference       Fixes:, Cc: stable@vger.kernel.org
#   firmware: add foo blob               binary fw/blob.bin                [v1.0]
#   net: foo: split into foo_main.c      rename foo.c -> foo_main.c + edit
#   feature: bar helper (branch feature) side branch, dates interleaved
#   scripts: make check.sh executable    mode change 100644 -> 100755
#   feature: bar user (branch feature)
#   docs: remove README                  deleted file
#   ci: trigger rebuild                  empty commit (--allow-empty)
#   Merge branch 'feature'               a merge (--no-ff)
#   net: foo: fix leak on error path     Cc: stable@vger.kernel.org       [leak-fix]
#   firmware: update foo blob            binary modification, no-EOL text file
#   net: foo: latin-1 fix                message and author in ISO-8859-1
#   net: foo: fix use after free         no stable tag                     [v2.0]
# stable-1.y (from "net: foo: add driver"):
#   net: foo: fix null dereference       git cherry-pick -x of the mainline fix
#   net: foo: fix leak on error path     "commit <sha> upstream." backport
#   net: foo: stable-only workaround     no upstream commit
# stable-2.y (from "net: foo: fix leak on error path"):
#   net: foo: fix use after free         git cherry-pick -x
set -eu
. "$(dirname "$0")/gitenv.sh"

dir=${1:?usage: gitrepo.sh DIR}
mkdir -p "$dir"
cd "$dir"


base=1700000000
# who NAME EMAIL: author (and committer) of the next commits
who() {
	GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2
	GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
}
# at HOURS [TZ [COMMIT_HOURS]]: dates of the next commit
at() {
	GIT_AUTHOR_DATE="$((base + $1 * 3600)) ${2:-+0000}"
	GIT_COMMITTER_DATE="$((base + ${3:-$1} * 3600)) ${2:-+0000}"
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}
commit() {
	git commit -q --no-verify "$@"
}

git -c init.defaultBranch=main init -q .
git config commit.gpgsign false
git config core.autocrlf false

who "Ann Author" "ann@example.org"
mkdir -p drivers/net scripts fw
cat >drivers/net/foo.c <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/netdevice.h>

struct foo_priv {
	struct net_device *dev;
	void *buf;
	int len;
};

static int foo_open(struct net_device *dev)
{
	struct foo_priv *priv = netdev_priv(dev);

	priv->buf = kmalloc(priv->len, GFP_KERNEL);
	return 0;
}

static int foo_stop(struct net_device *dev)
{
	struct foo_priv *priv = netdev_priv(dev);

	kfree(priv->buf);
	return 0;
}

static int foo_probe(struct foo_priv *priv)
{
	priv->len = 2048;
	return foo_open(priv->dev);
}

MODULE_LICENSE("GPL");
EOF
printf 'Foo driver\n==========\n\nA driver for foo cards.\n' >README
printf '#!/bin/sh\nexec make -s check\n' >scripts/check.sh
git add -A
at 0 +0100
commit -m "net: foo: add driver" -m "Add a driver for foo cards.

Signed-off-by: Ann Author <ann@example.org>"
git branch stable-1.y

sed -i 's/^\tpriv->buf = kmalloc(priv->len, GFP_KERNEL);$/\tpriv->buf = kmalloc(priv->len, GFP_KERNEL);\n\tif (!priv->buf)\n\t\treturn -ENOMEM;/' drivers/net/foo.c
git add -A
at 2 -0700 3
commit -m "net: foo: fix null dereference" -m "foo_open() used the buffer without checking the allocation.

Fixes: 0123456789ab (\"net: foo: add driver\")
Cc: stable@vger.kernel.org
Signed-off-by: Ann Author <ann@example.org>"
fix1=$(git rev-parse HEAD)

printf 'FOO\000\001\002\003binary\377\376\000tail' >fw/blob.bin
git add -A
at 4
commit -m "firmware: add foo blob" -m "Signed-off-by: Ann Author <ann@example.org>"
git tag v1.0

git mv drivers/net/foo.c drivers/net/foo_main.c
sed -i 's/^MODULE_LICENSE("GPL");$/MODULE_DESCRIPTION("foo driver");\nMODULE_LICENSE("GPL");/' drivers/net/foo_main.c
git add -A
at 6 +0530
commit -m "net: foo: split into foo_main.c" -m "Signed-off-by: Ann Author <ann@example.org>"
split=$(git rev-parse HEAD)

# a side branch whose commits fall between mainline commits in time
git checkout -q -b feature
who "Bob Builder" "bob@example.com"
printf 'int bar_helper(int x)\n{\n\treturn x * 2;\n}\n' >drivers/net/bar.c
git add -A
at 7
commit -m "feature: bar helper" -m "Signed-off-by: Bob Builder <bob@example.com>"
git checkout -q main

who "Ann Author" "ann@example.org"
chmod +x scripts/check.sh
git update-index --chmod=+x scripts/check.sh
at 8
commit -m "scripts: make check.sh executable" -m "Signed-off-by: Ann Author <ann@example.org>"

git checkout -q feature
who "Bob Builder" "bob@example.com"
printf 'int bar_helper(int x);\n\nint bar_user(void)\n{\n\treturn bar_helper(21);\n}\n' >drivers/net/bar_user.c
git add -A
at 9
commit -m "feature: bar user" -m "Signed-off-by: Bob Builder <bob@example.com>"
git checkout -q main

who "Ann Author" "ann@example.org"
git rm -q README
at 10
commit -m "docs: remove README" -m "Signed-off-by: Ann Author <ann@example.org>"

at 11
commit --allow-empty -m "ci: trigger rebuild"

at 12
git merge -q --no-ff --no-edit feature

sed -i 's/^\t\treturn -ENOMEM;$/\t\treturn -ENOMEM;\n\tpriv->dev = dev;/' drivers/net/foo_main.c
sed -i 's/^\tkfree(priv->buf);$/\tkfree(priv->buf);\n\tpriv->buf = NULL;/' drivers/net/foo_main.c
git add -A
at 13 +0200
commit -m "net: foo: fix leak on error path" -m "Cc: stable@vger.kernel.org # 6.1+
Signed-off-by: Ann Author <ann@example.org>"
leak=$(git rev-parse HEAD)
git tag leak-fix
git branch stable-2.y

printf 'FOO\000\001\002\003binary v2\377\376\000tail' >fw/blob.bin
printf 'version 2' >fw/VERSION
git add -A
at 14
commit -m "firmware: update foo blob" -m "Signed-off-by: Ann Author <ann@example.org>"

# ISO-8859-1 name and message, as old kernel commits have them
GIT_AUTHOR_NAME=$(printf 'Jos\351 Mu\361oz')
export GIT_AUTHOR_NAME
sed -i 's/^\tpriv->len = 2048;$/\tpriv->len = 4096;/' drivers/net/foo_main.c
git add -A
at 15
printf 'net: foo: latin-1 fix \351t\351\n\nCaf\351 size.\n' >../.gitrepo-msg.$$
git -c i18n.commitEncoding=ISO-8859-1 commit -q --no-verify -F ../.gitrepo-msg.$$
rm -f ../.gitrepo-msg.$$
who "Ann Author" "ann@example.org"

sed -i 's/^\tkfree(priv->buf);$/\tif (priv->buf)\n\t\tkfree(priv->buf);/' drivers/net/foo_main.c
git add -A
at 16
commit -m "net: foo: fix use after free" -m "Signed-off-by: Ann Author <ann@example.org>"
uaf=$(git rev-parse HEAD)
git tag v2.0

# stable-1.y: a cherry-pick -x, a "commit <sha> upstream." backport and a
# stable-only commit
git checkout -q stable-1.y
who "Greg Stable" "greg@example.org"
at 20
git cherry-pick -x "$fix1" >/dev/null

sed -i 's/^\t\treturn -ENOMEM;$/\t\treturn -ENOMEM;\n\tpriv->dev = dev;/' drivers/net/foo.c
sed -i 's/^\tkfree(priv->buf);$/\tkfree(priv->buf);\n\tpriv->buf = NULL;/' drivers/net/foo.c
git add -A
at 21
commit -m "net: foo: fix leak on error path" -m "commit $leak upstream.

Cc: stable@vger.kernel.org # 6.1+
Signed-off-by: Ann Author <ann@example.org>
Signed-off-by: Greg Stable <greg@example.org>"

sed -i 's/^\tpriv->len = 2048;$/\tpriv->len = 1024;/' drivers/net/foo.c
git add -A
at 22
commit -m "net: foo: stable-only workaround" -m "Signed-off-by: Greg Stable <greg@example.org>"

git checkout -q stable-2.y
at 23
git cherry-pick -x "$uaf" >/dev/null

git checkout -q main
: "$split"
exit 0
