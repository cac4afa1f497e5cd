#!/usr/bin/env python3
# rank-score.py - how good a ranking is, against the labels of a data set.
#
# Usage: bench/rank-score.py RANK.tsv LABELS.tsv
# RANK.tsv: "stablesel rank --format tsv --top 100000" (sha score decision
# ...); LABELS.tsv: a labels file of ../shared/data (sha author_time
# in_stable stable_branches stable_tag ...).  Rows of the ranking without a
# label are left out.  Prints, for all rows and for the untagged ones
# (stable_tag 0: what AUTOSEL exists for): rows, positives, F1, precision
# and recall at the model's own decision, PR-AUC as average precision over
# the score order, and precision at 90% recall.  Standard library only.
import sys
lab={}
for l in open(sys.argv[2]):
    x=l.rstrip('\n').split('\t')
    if x[0]=='sha': continue
    lab[x[0]]=(int(x[2]),int(x[4]))
rows=[]
for l in open(sys.argv[1]):
    x=l.rstrip('\n').split('\t')
    if x[0]=='sha': continue
    if x[0] not in lab: continue
    rows.append((float(x[1]),int(x[2]),lab[x[0]][0],lab[x[0]][1]))
def stats(rows,name):
    rows=sorted(rows,key=lambda r:-r[0]); P=sum(r[2] for r in rows)
    tp=sum(1 for r in rows if r[1] and r[2]); fp=sum(1 for r in rows if r[1] and not r[2])
    prec=tp/(tp+fp) if tp+fp else 0; rec=tp/P if P else 0
    f1=2*prec*rec/(prec+rec) if prec+rec else 0
    ap=0;tp2=0
    for i,r in enumerate(rows):
        if r[2]: tp2+=1; ap+=tp2/(i+1)
    ap=ap/P if P else 0
    # precision at recall .9
    tp2=0;p9=0
    for i,r in enumerate(rows):
        if r[2]: tp2+=1
        if P and tp2>=0.9*P: p9=tp2/(i+1); break
    print(f"{name}: n={len(rows)} pos={P} F1={f1:.3f} P={prec:.3f} R={rec:.3f} PR-AUC(AP)={ap:.3f} P@R.9={p9:.3f}")
stats(rows,"all")
stats([r for r in rows if not r[3]],"untagged")
