#!/bin/sh
# layout.sh - the README's index command, unchanged, on mirrors of public
# stable repositories laid out unlike ours (HEAD on a stable branch or on
# a 2-commit branch, staging branches, remote-tracking copies, end-of-life
# branches, other release-tag schemes), and what the index found by
# itself: the mainline, the release tags by kind, the branches by role,
# and the time it took (docs/index.md, "What the index finds by itself").
#
# Usage: bench/layout.sh [MIRROR...]   (default: the systemd and DPDK
# stable mirrors under /work/.mirror; one that is absent is skipped with a
# message).  The mirrors are read only: the index goes to --db in $TMPDIR
# (default /tmp), kept as /tmp/layout-<name>.db unless KEEP=0.
# Environment: STABLESEL (./stablesel).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
TMP=${TMPDIR:-/tmp}
[ -x "$STABLESEL" ] || { echo "layout: $STABLESEL not found (run make first)" >&2; exit 1; }
[ $# -gt 0 ] || set -- /work/.mirror/systemd+systemd-stable/repo /work/.mirror/DPDK+dpdk-stable/repo

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u '+%Y-%m-%d %H:%M UTC')"
for repo in "$@"; do
	name=$(basename "$(dirname "$repo")")
	if [ ! -d "$repo" ]; then
		echo "== $name: SKIP: $repo not found"
		continue
	fi
	db=$TMP/layout-$name.db
	rm -f "$db" "$db-wal" "$db-shm"
	echo "== $name ($repo, HEAD $(git --git-dir="$repo" symbolic-ref -q --short HEAD || echo detached))"
	start=$(date +%s.%N)
	# the README's command, the database outside the read-only mirror
	"$STABLESEL" index --no-progress --repo "$repo" --db "$db" 2>"$TMP/layout-$name.err" || {
		cat "$TMP/layout-$name.err"; echo "index failed"; continue; }
	end=$(date +%s.%N)
	sed 's/^/  /' "$TMP/layout-$name.err"
	echo "  time: $(echo "$end - $start" | bc) s, load $(cut -d' ' -f1-3 /proc/loadavg) at end"
	echo "  mainline: $(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'mainline'")" \
	     "($(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'mainline_how'"))," \
	     "$(sqlite3 "$db" "SELECT count(*) FROM commits WHERE mainline = 1") mainline commits"
	echo "  releases recorded by kind: $(sqlite3 "$db" "SELECT group_concat(k || ' ' || n, ', ') FROM
		(SELECT kind k, count(*) n FROM releases GROUP BY kind)")"
	echo "  refs by kind: $(sqlite3 "$db" "SELECT group_concat(k || ' ' || n, ', ') FROM
		(SELECT kind k, count(*) n FROM refs GROUP BY kind)")"
	echo "  default targets (stable refs without another role):" \
	     "$(sqlite3 "$db" "SELECT group_concat(name, ' ') FROM refs WHERE kind = 'stable' AND
		NOT EXISTS (SELECT 1 FROM meta WHERE key = 'role:' || refs.name)")"
	echo "  other roles: $(sqlite3 "$db" "SELECT group_concat(substr(key, 6) || '=' || value, ' ')
		FROM meta WHERE key LIKE 'role:%'")"
	echo "  backports: $(sqlite3 "$db" "SELECT count(*) FROM backports")"
	[ "${KEEP:-1}" = 1 ] || rm -f "$db" "$db-wal" "$db-shm"
done
