#!/bin/sh
# check.sh - "stablesel check" against "git apply --check", on the
# repository bench/git-ingest.sh generates.
#
# The newest N (1000) commits are checked against the commit N back (the
# "stable branch"): stablesel check once for all of them, and git
# format-patch | git apply --check for each one, in a checkout of that
# commit made with git archive.  Reported: how often the two agree on
# "applies" (a disagreement is listed), seconds and peak RSS of each, the
# ratio, and the same run with --prereqs, with the project index of REPO
# when it has one and with --no-index (the "branch" is a mainline commit,
# which no index records as a stable branch: both read it, and must agree).
#
# Output: bench/out/check.txt.
# Environment: STABLESEL (./stablesel), N (1000), REPO (the git-ingest
# repository; made by bench/git-ingest.sh when absent; DPDK's:
# REPO=/tmp/x/dpdk.git after unpacking ../shared/data/dpdk/dpdk-v22.03.git.tar).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
N=${N:-1000}
REPO=${REPO:-bench/out/git-ingest-repo-20000-3000}
OUT=bench/out

die() { echo "check: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
[ -d "$REPO" ] || bench/git-ingest.sh >/dev/null
[ -d "$REPO" ] || die "no repository at $REPO"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

base=$(git -C "$REPO" rev-parse "HEAD~$N")
load0=$(cut -d' ' -f1-3 /proc/loadavg)
/usr/bin/time -f '%e %M' -o "$TMP/t1" "$STABLESEL" check --onto-repo "$REPO" --onto "$base" \
	--repo "$REPO" --rev "$base..HEAD" > "$TMP/ss.tsv" 2> "$TMP/ss.err"
/usr/bin/time -f '%e %M' -o "$TMP/t2" "$STABLESEL" check --prereqs --onto-repo "$REPO" \
	--onto "$base" --repo "$REPO" --rev "$base..HEAD" > "$TMP/ssp.tsv" 2> "$TMP/ssp.err"
/usr/bin/time -f '%e %M' -o "$TMP/t4" "$STABLESEL" check --prereqs --no-index --onto-repo "$REPO" \
	--onto "$base" --repo "$REPO" --rev "$base..HEAD" > "$TMP/ssn.tsv" 2> "$TMP/ssn.err"

mkdir "$TMP/tree"
git -C "$REPO" archive "$base" | tar -x -C "$TMP/tree"
cat > "$TMP/git.sh" <<EOF
for c in \$(git -C "$REPO" rev-list --no-merges "$base..HEAD"); do
	if git -C "$REPO" format-patch -1 --stdout \$c | (cd "$TMP/tree" && git apply --check - 2>/dev/null); then
		echo "\$(echo \$c | cut -c1-12) applies"
	else
		echo "\$(echo \$c | cut -c1-12) fails"
	fi
done
EOF
/usr/bin/time -f '%e %M' -o "$TMP/t3" sh "$TMP/git.sh" > "$TMP/git.txt"

awk -F'\t' 'NR > 1 { print $1, ($2 == "applies" ? "applies" : "fails"), $2 }' "$TMP/ss.tsv" |
	sort > "$TMP/ss.txt"
sort "$TMP/git.txt" > "$TMP/git.sorted"
read -r s1 m1 < "$TMP/t1"
read -r s2 m2 < "$TMP/t2"
read -r s3 m3 < "$TMP/t3"
read -r s4 m4 < "$TMP/t4"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
{
	printf '# %s, %s commits of %s checked against %s, %s cores\n' "$(date -u +%FT%TZ)" \
		"$(wc -l < "$TMP/ss.txt")" "$REPO" "$(echo "$base" | cut -c1-12)" "$(nproc)"
	printf 'load before: %s, after: %s\n' "$load0" "$load1"
	printf 'stablesel check: %s\n' "$(tail -1 "$TMP/ss.err")"
	printf 'agreement with git apply --check (stablesel rows x git):\n'
	join "$TMP/ss.txt" "$TMP/git.sorted" | awk '{ n[$3 " / git " $4]++ }
		END { for (k in n) printf "  %-28s %6d\n", k, n[k] }' | sort
	printf 'disagreements (id, stablesel, git):\n'
	join "$TMP/ss.txt" "$TMP/git.sorted" | awk '$2 != $4 { print "  " $1, $3, $4 }' | head -20
	printf '%-40s %9s %9s\n' run seconds rss_MB
	printf '%-40s %9s %9.0f\n' "git format-patch | git apply --check" "$s3" "$(echo "$m3 / 1024" | bc -l)"
	printf '%-40s %9s %9.0f   (%.2fx git)\n' "stablesel check" "$s1" "$(echo "$m1 / 1024" | bc -l)" \
		"$(echo "$s1 / $s3" | bc -l)"
	printf '%-40s %9s %9.0f   (%.2fx git)\n' "stablesel check --prereqs" "$s2" \
		"$(echo "$m2 / 1024" | bc -l)" "$(echo "$s2 / $s3" | bc -l)"
	printf '%-40s %9s %9.0f   (%.2fx git)\n' "stablesel check --prereqs --no-index" "$s4" \
		"$(echo "$m4 / 1024" | bc -l)" "$(echo "$s4 / $s3" | bc -l)"
	printf 'the same rows with and without the index: %s\n' \
		"$(cmp -s "$TMP/ssp.tsv" "$TMP/ssn.tsv" && echo yes || echo no)"
	printf 'with --prereqs: %s of %s conflicts name what must come first\n' \
		"$(awk -F'\t' '$2 == "conflict" && $5 != ""' "$TMP/ssp.tsv" | wc -l)" \
		"$(awk -F'\t' '$2 == "conflict"' "$TMP/ssp.tsv" | wc -l)"
} > "$OUT/check.txt"
cat "$OUT/check.txt"
