#!/usr/bin/env python3
# weekly-score.py - scores bench/weekly.sh's ranks.
#
# Usage: bench/weekly-score.py OUT LABELS.tsv MONDAY...
# OUT holds w-MONDAY.tsv (rank --format tsv as of MONDAY) and times ("sha
# committer_time" of the cycle).  A week's new commits are those committed
# in the 7 days before its Monday; each is scored as that Monday's rank
# scored it.  Prints per week: new commits, reached stable, AP, P@20 (all
# commits; and AP for the untagged ones), then the pooled figures.
# Standard library only.
import calendar, sys, time

out, labels, weeks = sys.argv[1], sys.argv[2], sys.argv[3:]
# a labels file of ../shared/data (sha author_time in_stable
# stable_branches stable_tag ...: every commit), or what "stablesel label"
# writes (sha in_stable stable_branches: the commits stable took; the
# others are 0, and no commit carries a tag)
lab = {}
head = None
for l in open(labels):
    x = l.rstrip('\n').split('\t')
    if x[0] == 'sha':
        head = x
        continue
    tag = int(x[head.index('stable_tag')]) if 'stable_tag' in head else 0
    lab[x[0]] = (int(x[head.index('in_stable')]), tag)
every = 'author_time' in head
ct = {}
for l in open(out + '/times'):
    s, t = l.split()
    ct[s] = int(t)
    if not every and s not in lab:
        lab[s] = (0, 0)

def ap(rows):
    rows = sorted(rows, key=lambda r: -r[0])
    p = sum(r[1] for r in rows)
    tp, s = 0, 0.0
    for i, r in enumerate(rows):
        if r[1]:
            tp += 1
            s += tp / (i + 1)
    return s / p if p else float('nan')

def p_at(rows, k):
    rows = sorted(rows, key=lambda r: -r[0])[:k]
    return sum(r[1] for r in rows) / len(rows) if rows else float('nan')

pool, pool_u = [], []
print("| week (Monday) | new | reached stable | AP | P@20 | untagged: new, stable, AP |")
print("| --- | --- | --- | --- | --- | --- |")
for w in weeks:
    t = calendar.timegm(time.strptime(w, '%Y-%m-%d'))
    rows, urows = [], []
    for l in open('%s/w-%s.tsv' % (out, w)):
        x = l.rstrip('\n').split('\t')
        if x[0] == 'sha' or x[0] not in lab or x[0] not in ct:
            continue
        if not (t - 7 * 86400 <= ct[x[0]] < t):
            continue
        r = (float(x[1]), lab[x[0]][0])
        rows.append(r)
        if not lab[x[0]][1]:
            urows.append(r)
    pool += rows
    pool_u += urows
    if not rows:
        continue
    print("| %s | %d | %d | %.3f | %.2f | %d, %d, %.3f |" % (
        w, len(rows), sum(r[1] for r in rows), ap(rows), p_at(rows, 20),
        len(urows), sum(r[1] for r in urows), ap(urows)))
print("| pooled | %d | %d | %.3f | %.2f | %d, %d, %.3f |" % (
    len(pool), sum(r[1] for r in pool), ap(pool), p_at(pool, 20),
    len(pool_u), sum(r[1] for r in pool_u), ap(pool_u)))
