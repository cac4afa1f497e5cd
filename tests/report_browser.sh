#!/bin/sh
# report_browser.sh - open a stablesel report in headless Chromium, open one
# commit through "report.html#open=<sha>" (the page's script clicks its
# summary), check what the DOM then shows, and keep a screenshot as a test
# artefact in $SS_BUILD/report.png (SS_BUILD: the build folder, build by
# default; make test sets it, so that the sanitizer build's run writes
# build-asan/report.png).
#
# Usage: tests/report_browser.sh      (from the project root, after make)
# Exit: 0 passed, 77 skipped (no Chromium, and apt-get impossible), 1 failed.
# Chromium is Debian's package; it is installed with apt-get when missing
# and we are root (or have password-less sudo).
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
bin=${SS_BIN:-./stablesel}  # the sanitizer build sets SS_BIN
png=${SS_BUILD:-build}/report.png
case $png in /*) ;; *) png=$root/$png ;; esac

find_chromium() {
	for c in chromium chromium-browser google-chrome; do
		command -v "$c" 2>/dev/null && return 0
	done
	return 1
}

if ! chrome=$(find_chromium); then
	if [ "$(id -u)" = 0 ]; then
		as_root=
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		as_root="sudo -n"
	else
		echo "SKIP: chromium missing and apt-get impossible (not root, no sudo)"
		exit 77
	fi
	if command -v apt-get >/dev/null 2>&1; then
		echo "installing chromium with apt-get" >&2
		DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 ||
		{ $as_root apt-get update >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y --no-install-recommends chromium >/dev/null 2>&1; }
	fi
	chrome=$(find_chromium) || { echo "SKIP: chromium missing and apt-get could not install it"; exit 77; }
fi

tmp=$(mktemp -d /tmp/stablesel-browser-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

sh tests/gitrepo.sh "$tmp/repo" >/dev/null 2>&1 || fail "cannot build the test repository"
# labels settle the commits (the curve is drawn over settled ones only)
{ printf 'sha\tin_stable\n'; git -C "$tmp/repo" log --format='%H %s' main |
	awk '{ print $1 "\t" ($0 ~ / fix / ? 1 : 0) }'; } >"$tmp/labels.tsv"
"$bin" report --repo "$tmp/repo" --labels "$tmp/labels.tsv" --threshold 0 -o "$tmp/report.html" ||
	fail "stablesel report failed"
sha=$("$bin" rank --repo "$tmp/repo" --threshold 0 --format tsv |
	awk -F'\t' '$4 == "net: foo: fix null dereference" { print $1 }')
[ -n "$sha" ] || fail "the fix is not in the ranking"
short=$(printf '%.12s' "$sha")

flags="--headless --no-sandbox --disable-gpu --disable-background-networking \
--disable-component-update --disable-sync --no-first-run --user-data-dir=$tmp/profile"
url="file://$tmp/report.html#open=$short"

# shellcheck disable=SC2086
timeout 120 "$chrome" $flags --virtual-time-budget=3000 --dump-dom "$url" \
	>"$tmp/dom.html" 2>"$tmp/chrome.err" || { cat "$tmp/chrome.err" >&2; fail "chromium --dump-dom failed"; }
grep -q "data-opened=\"$sha\"" "$tmp/dom.html" || fail "the script did not open $short"
grep -q "id=\"c-$sha\" open=\"\"" "$tmp/dom.html" || fail "the entry of $short is not open"
# the opened entry: its message, its reasons, its diff coloured by the script
entry=$(sed -n "/id=\"c-$sha\"/,/<\/details>/p" "$tmp/dom.html")
echo "$entry" | grep -q "foo_open() used the buffer without checking the allocation" || fail "message not shown"
echo "$entry" | grep -q "raised the score most" || fail "reasons not shown"
echo "$entry" | grep -q '<span class="a">+	if (!priv-&gt;buf)' || fail "diff not shown (or not coloured)"
# other entries stay closed
[ "$(grep -c ' open=""' "$tmp/dom.html")" = 1 ] || fail "more than one entry open"
grep -q '<polyline' "$tmp/dom.html" || fail "no precision-recall curve"

# the last run's screenshot must not pass for this one's
if ! mkdir -p "$(dirname "$png")" || ! rm -f "$png"; then
	fail "cannot write $png"
fi
# shellcheck disable=SC2086
timeout 120 "$chrome" $flags --virtual-time-budget=3000 --hide-scrollbars --window-size=1200,1400 \
	--screenshot="$png" "$url&noscroll" >/dev/null 2>"$tmp/chrome.err" ||
	{ cat "$tmp/chrome.err" >&2; fail "chromium --screenshot failed"; }
[ -s "$png" ] || fail "no screenshot"
echo "ok: $short opened; screenshot in $png"
exit 0
