#!/bin/sh
# hostile.sh - one hostile commit must cost O(n log n) in its size.
#
# Generates in a temporary directory two mboxes of one commit each:
#     files     a diff touching FILES (200,000) files, one hunk each
#     trailers  a message with TRAILERS (300,000) trailers (Signed-off-by,
#               Reviewed-by, Acked-by, Tested-by, Reported-by, Cc, Link,
#               Fixes in turn)
# and on each times
#     stablesel log FILE                        the reference: reading it
#     stablesel rank FILE                       features, score, output
#     stablesel explain --top-features 1000000 FILE ID   every feature named
# and reports seconds (best of RUNS), the ratio against log, peak RSS
# (/usr/bin/time -v) and the load average (uptime) when each ran, also
# into bench/out/hostile.txt.  Before the fix of issue 14 (insertion sort
# in ss_svec_finish, a name scan per explained feature) rank took minutes
# here; the target is under 3 s each.
#
# Environment: RUNS (3), STABLESEL (./stablesel), FILES (200000),
# TRAILERS (300000).
set -eu

RUNS=${RUNS:-3}
STABLESEL=${STABLESEL:-./stablesel}
FILES=${FILES:-200000}
TRAILERS=${TRAILERS:-300000}
OUT=bench/out
SUMMARY=$OUT/hostile.txt
ID=0123456789abcdef0123456789abcdef01234567

die() { echo "hostile: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# gen KIND N: one commit with N files or N trailers on stdout
gen() {
	awk -v kind="$1" -v n="$2" -v id="$ID" 'BEGIN {
		print "From " id " Mon Sep 17 00:00:00 2001"
		print "From: A Developer <dev@example.com>"
		print "Date: Tue, 14 Feb 2017 16:09:41 -0600"
		print "Subject: [PATCH] net: hostile commit"
		print ""
		print "Fix a NULL pointer dereference."
		print ""
		if (kind == "trailers") {
			split("Signed-off-by Reviewed-by Acked-by Tested-by Reported-by Cc Link Fixes", k, " ")
			for (i = 0; i < n; i++) {
				key = k[i % 8 + 1]
				if (key == "Link")
					printf "Link: https://example.com/%d\n", i
				else if (key == "Fixes")
					printf "Fixes: %06x%06x (\"net: commit %d\")\n", (i * 7919) % 16777216, i, i
				else
					printf "%s: Person %d <p%d@example.com>\n", key, i, i
			}
		} else
			print "Signed-off-by: A Developer <dev@example.com>"
		print "---"
		if (kind == "files") {
			for (i = 0; i < n; i++) {
				p = "d" (i % 97) "/f" i ".c"
				printf "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", p, p, p, p
				printf "@@ -1 +1 @@ int f%d(void)\n-\treturn 0;\n+\tif (!p)\n+\t\treturn -EINVAL;\n", i
			}
		} else
			print "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n+b"
		print ""
	}'
}

# best_of CMD: best wall seconds, the peak RSS (KB) of RUNS runs and the
# 1-minute load average before the best run
best_of() {
	best=""; rss=0; load=""
	i=0
	while [ $i -lt "$RUNS" ]; do
		l=$(uptime | sed 's/.*load average: *//; s/,.*//')
		/usr/bin/time -f '%e %M' -o "$TMP/t" sh -c "$1" >/dev/null 2>"$TMP/err" ||
			{ cat "$TMP/err" >&2; die "failed: $1"; }
		set -- "$1" $(tail -n 1 "$TMP/t")
		s=$2; m=$3
		if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s; load=$l; fi
		[ "$m" -gt "$rss" ] && rss=$m
		i=$((i + 1))
	done
	echo "$best $rss $load"
}

gen files "$FILES" > "$TMP/files.mbox"
gen trailers "$TRAILERS" > "$TMP/trailers.mbox"
{
echo "# stablesel on one hostile commit, $(date -u +%Y-%m-%d), $(nproc) cores, best of $RUNS"
echo "# files: one commit of $FILES files; trailers: one commit of $TRAILERS trailers"
printf '%-9s %-8s %8s %7s %10s %6s\n' input run seconds vs-log peakRSS load
for kind in files trailers; do
	f=$TMP/$kind.mbox
	set -- $(best_of "'$STABLESEL' log '$f'"); ls=$1
	printf '%-9s %-8s %8s %7s %8sMB %6s\n' "$kind" log "$1" 1.00 $(($2 / 1024)) "$3"
	set -- $(best_of "'$STABLESEL' rank '$f'")
	printf '%-9s %-8s %8s %7s %8sMB %6s\n' "$kind" rank "$1" \
		"$(echo "scale=2; $1 / $ls" | bc)" $(($2 / 1024)) "$3"
	set -- $(best_of "'$STABLESEL' explain --top-features 1000000 '$f' $ID")
	printf '%-9s %-8s %8s %7s %8sMB %6s\n' "$kind" explain "$1" \
		"$(echo "scale=2; $1 / $ls" | bc)" $(($2 / 1024)) "$3"
done
} | tee "$SUMMARY"
