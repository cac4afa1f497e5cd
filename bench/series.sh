#!/bin/sh
# series.sh - how many commits of the real data carry a series identity
# (commit/series.h: a numbered Link:, or a mail's thread and [PATCH n/m]),
# how many series that makes, and on tip how many of a model's picks are a
# later patch of a series that needs earlier ones (the rule of
# check/verdict.h, the branch left out: tip has no repository).
#
# Reads `stablesel log` (its "series" field) of the tip and DPDK mboxes;
# trains the linear tip model of docs/review.md ("Figures") and ranks the
# commits from 2023-07-01.  Prints counts, seconds and peak RSS of each
# log, and the machine load before and after.
#
# Output: bench/out/series.txt.
# Environment: STABLESEL (./stablesel), DATA (../shared/data).
set -eu

STABLESEL=${STABLESEL:-./stablesel}
DATA=${DATA:-../shared/data}
OUT=bench/out
T=$DATA/linux-tip
D=$DATA/dpdk

die() { echo "series: $*" >&2; exit 1; }
[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
[ -f "$T/tip-before-2024-07-01.mbox.zst" ] || die "$T/tip-before-2024-07-01.mbox.zst not found"
command -v python3 >/dev/null || die "python3 not found"
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
echo "load before: $(uptime)"
for src in "$T/tip-before-2024-07-01.mbox.zst" "$D/mainline-v16.11-v22.03.mbox.zst"; do
	name=$(basename "$src" .mbox.zst)
	/usr/bin/time -f "$name: log %e s, peak RSS %M KB" \
		"$STABLESEL" log --no-progress "$src" > "$tmp/$name.jsonl"
	python3 - "$tmp/$name.jsonl" <<'EOF'
import collections, json, sys
n = links = ident = 0
nums = collections.defaultdict(set)
for line in open(sys.argv[1]):
    o = json.loads(line)
    n += 1
    links += any(k.lower() == "link" for k, v in o["trailers"])
    s = o.get("series")
    if s:
        ident += 1
        nums[s["key"]].add(s["n"])
multi = [v for v in nums.values() if len(v) >= 2]
print(f"  {n} commits, {links} with a Link:, {ident} with a series identity; "
      f"{len(nums)} keys, {len(multi)} series of 2+ patches read "
      f"({sum(len(v) for v in multi)} patches)")
EOF
done
"$STABLESEL" train --kind linear "$T/tip-before-2024-07-01.mbox.zst" --mask-stable-tags \
	--labels "$T/labels-tip-before-2024-07-01.tsv" --label-column stable_tag \
	--before 2023-07-01 -o "$tmp/tip.model" --no-progress 2>/dev/null
"$STABLESEL" rank --model "$tmp/tip.model" "$T/tip-before-2024-07-01.mbox.zst" --mask-stable-tags \
	--since 2023-07-01 --format json --no-progress -o "$tmp/rank.json" 2>/dev/null
python3 - "$tmp/tip-before-2024-07-01.jsonl" "$tmp/rank.json" <<'EOF'
import collections, datetime, json, sys
since = int(datetime.datetime(2023, 7, 1, tzinfo=datetime.timezone.utc).timestamp())
log, batch = {}, []
for line in open(sys.argv[1]):
    o = json.loads(line)
    log[o["id"]] = o
    if o["author"]["time"] >= since:
        batch.append(o["id"])
members = collections.defaultdict(list)
for i in batch:
    s = log[i].get("series")
    if s:
        members[s["key"]].append((s["n"], i))
def files(i):
    return {f["path"] for f in log[i]["files"]} | {f["old_path"] for f in log[i]["files"] if "old_path" in f}
picks = [r["sha"] for r in map(json.loads, open(sys.argv[2])) if r.get("pick")]
pickset = set(picks)
inseries = later = needing = alone = 0
for i in picks:
    s = log[i].get("series")
    if not s or len({n for n, _ in members[s["key"]]}) < 2:
        continue
    inseries += 1
    earlier = sorted((m for m in members[s["key"]] if m[0] < s["n"]), reverse=True)
    later += bool(earlier)
    fs, seen, need = files(i), set(), []
    for n, j in earlier:
        if n in seen:
            continue
        seen.add(n)
        if files(j) & fs:
            need.append(j)
            fs |= files(j)
    needing += bool(need)
    alone += bool(need) and not all(j in pickset for j in need)
print(f"tip from 2023-07-01: {len(batch)} commits, {len(picks)} picks; {inseries} picks in a series "
      f"of 2+ patches read, {later} of them not its first, {needing} needing earlier patches "
      f"(the same files), {alone} of those whose earlier patches were not all picks")
EOF
echo "load after: $(uptime)"
} 2>&1 | tee "$OUT/series.txt"
