#!/bin/sh
# deps.sh - install (default) or check (--check) the Debian packages
# stablesel builds and tests against.  Fails with one clear line naming
# what is missing and how to get it.
set -u
PKGS="build-essential pkg-config git zstd libgit2-dev libgmime-3.0-dev zlib1g-dev libzstd-dev libcmocka-dev liblinear-dev libopenblas-dev libsqlite3-dev"

missing() {
	m=""
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || m="$m $p"
	done
	echo "$m"
}

m=$(missing)
if [ "${1:-}" = "--check" ]; then
	if [ -n "$m" ]; then
		echo "stablesel: missing packages:$m (run 'make deps' or 'apt-get install$m')" >&2
		exit 1
	fi
	exit 0
fi
[ -z "$m" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
	echo "stablesel: cannot install$m: apt-get not found (not a Debian system?)" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "stablesel: cannot install$m: not root and no sudo" >&2; exit 1
	fi
fi
echo "stablesel: installing$m" >&2
$SUDO apt-get update -qq || { echo "stablesel: apt-get update failed" >&2; exit 1; }
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $m >/dev/null ||
	{ echo "stablesel: apt-get install$m failed" >&2; exit 1; }
m=$(missing)
[ -z "$m" ] || { echo "stablesel: still missing after install:$m" >&2; exit 1; }
