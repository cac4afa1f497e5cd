#!/usr/bin/env python3
# untagged-score.py - how good a ranking is against what one stable
# branch of a repository took, for a project whose fixes are not tagged.
#
# Usage: bench/untagged-score.py RANK.tsv LABELS.tsv BRANCH [REPO REV]
# RANK.tsv: "stablesel rank --format tsv --top 1000000" (sha score decision
# subject author flags reasons band); LABELS.tsv: "stablesel label --db"
# (sha in_stable stable_branches); BRANCH: the branch whose backports are
# the label (a ranked commit is positive when BRANCH carries it).  With
# REPO and REV, also the baseline of a bug/fix keyword match on the
# commit's message (git log REV).  Prints one markdown row per model:
# rows, positives, picks, P/R/F1 at the model's decision, AP, P@50, P@100,
# ECE (10 equal-width bins) and each band's realised rate.  Standard
# library only.
import re, subprocess, sys
from branchlabels import taken_by, tsv_rows
rank, labf, branch = sys.argv[1:4]
pos = taken_by(labf, branch)
rows = [(float(x[1]), int(x[2]), 1 if x[0] in pos else 0, x[-1], x[0]) for x in tsv_rows(rank)]

def stats(name, rows, calibrated=True):
    # ties (the keyword's 0/1 scores) in a neutral order, by id: never in
    # the order of another ranking
    rows = sorted(rows, key=lambda r: (-r[0], r[4]))
    P = sum(r[2] for r in rows)
    picks = [r for r in rows if r[1]]
    tp = sum(r[2] for r in picks)
    p = tp / len(picks) if picks else 0
    rc = tp / P if P else 0
    f1 = 2 * p * rc / (p + rc) if p + rc else 0
    ap = 0; t = 0
    for i, r in enumerate(rows):
        if r[2]:
            t += 1; ap += t / (i + 1)
    ap = ap / P if P else 0
    p50 = sum(r[2] for r in rows[:50]) / min(50, len(rows))
    p100 = sum(r[2] for r in rows[:100]) / min(100, len(rows))
    ece = 0
    if calibrated:
        for b in range(10):
            bin_ = [r for r in rows if min(int(r[0] * 10), 9) == b]
            if bin_:
                ece += len(bin_) / len(rows) * abs(sum(r[0] for r in bin_) / len(bin_) - sum(r[2] for r in bin_) / len(bin_))
    bands = {}
    for r in rows:
        bands.setdefault(r[3], [0, 0]); bands[r[3]][0] += 1; bands[r[3]][1] += r[2]
    bs = ' '.join(f"{b} {bands[b][1]}/{bands[b][0]}" for b in ('yes', 'likely', 'unsure', 'no', 'wait') if b in bands)
    print(f"| {name} | {len(rows)} | {P} | {len(picks)} | {p:.3f} | {rc:.3f} | {f1:.3f} | {ap:.3f} | {p50:.2f} | {p100:.2f} | "
          + (f"{ece:.3f}" if calibrated else "-") + f" | {bs} |")

print("| model | rows | pos. | picks | P | R | F1 | AP | P@50 | P@100 | ECE | bands (taken/rows) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
stats("stablesel", rows)
if len(sys.argv) > 5:
    out = subprocess.run(['git', '-C', sys.argv[4], 'log', '--no-merges', '-z', '--format=%H%n%B', sys.argv[5]],
                         capture_output=True, check=True).stdout.decode('utf-8', 'replace')
    kw = {}
    for rec in out.split('\0'):
        rec = rec.strip('\n')
        if rec:
            sha, _, msg = rec.partition('\n')
            kw[sha] = 1 if re.search(r'\b(bug|fix|fixe[sd]|fixing)\b', msg, re.I) else 0
    stats("keyword bug/fix", [(kw.get(r[4], 0), kw.get(r[4], 0), r[2], '-', r[4]) for r in rows], False)
