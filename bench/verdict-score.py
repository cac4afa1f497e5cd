#!/usr/bin/env python3
# verdict-score.py - how good the verdicts' picks onto one stable branch
# are, against what that branch took later.
#
# Usage: bench/verdict-score.py RANK.tsv LABELS.tsv BRANCH
# RANK.tsv: "stablesel rank --onto REF --format tsv --top 1000000" (sha
# score decision ... band, then the verdict column of REF); LABELS.tsv:
# "stablesel label --db" (sha in_stable stable_branches); BRANCH: the
# branch whose backports are the label.  The commits already on the branch
# (verdict "already") are left out of recall: there is nothing to pick.
# Prints the picks (decision 1: the score at the threshold and a yes
# verdict) with precision and recall, the score alone at the same number
# of picks, and each verdict's rows and how many the branch took.
# Standard library only.
import collections, sys
from branchlabels import taken_by, tsv_rows
rank, labf, branch = sys.argv[1:4]
pos = taken_by(labf, branch)
# "reverted by 1234", "applies, needs 5678", "unaffected: bug not in
# branch": the verdict's word
rows = [(float(x[1]), x[2] == '1', x[0] in pos, x[-1].split(',')[0].split(':')[0].split(' by ')[0])
        for x in tsv_rows(rank)]
open_rows = [r for r in rows if r[3] != 'already']
taken = sum(r[2] for r in open_rows)
picks = [r for r in open_rows if r[1]]
tp = sum(r[2] for r in picks)
best = sorted(open_rows, key=lambda r: -r[0])[:len(picks)]
tp2 = sum(r[2] for r in best)
if not picks or not taken:
    sys.exit("verdict-score: no picks or nothing taken")
print(f"| verdict picks | {len(picks)} | {tp / len(picks):.3f} | {tp / taken:.3f} "
      f"| score alone, same count: {tp2 / len(picks):.3f} / {tp2 / taken:.3f} | {taken} taken, not already there |")
n = collections.Counter(r[3] for r in rows)
t = collections.Counter(r[3] for r in rows if r[2])
print("verdicts (taken/rows): " + ", ".join(f"{w} {t[w]}/{n[w]}" for w in sorted(n)))
