#!/usr/bin/env python3
# calib-raw.py - the uncalibrated figures of a calibrated eval run: each
# model's raw scores recovered from an "eval --scores TSV" file by
# inverting the map its settings line prints in the eval text output
# (s = sigmoid((logit(p) - b) / a)); prints the ECE (10 bins) and the
# picks' mean score, raw and calibrated, against their fraction positive.
# Usage: calib-raw.py SCORES.tsv EVAL.txt.  Standard library only.
import sys, math, re, collections
maps={}
for l in open(sys.argv[2]):
    m=re.match(r'\s+(\S+)\s.*calibrated sigmoid\(([-0-9.]+) logit\(s\) ([-+0-9.]+)\)', l)
    if m: maps[m.group(1)]=(float(m.group(2)),float(m.group(3)))
rows=collections.defaultdict(list)
for l in open(sys.argv[1]):
    x=l.rstrip('\n').split('\t')
    if x[0]=='sha': continue
    rows[x[1]].append((float(x[2]),int(x[3]),int(x[4])))
def lg(p):
    p=min(max(p,1e-7),1-1e-7); return math.log(p/(1-p))
def sg(z): return 1/(1+math.exp(-z)) if z>=0 else math.exp(z)/(1+math.exp(z))
def ece(S,Y):
    b=[[0,0.0,0] for _ in range(10)]
    for s,y in zip(S,Y):
        i=min(9,int(s*10)); b[i][0]+=1;b[i][1]+=s;b[i][2]+=y
    return sum(c/len(S)*abs(ss/c-p/c) for c,ss,p in b if c)
for m,r in rows.items():
    a,b=maps[m]
    raw=[sg((lg(p)-b)/a) for p,d,y in r]
    Y=[y for p,d,y in r]
    pk=[i for i,(p,d,y) in enumerate(r) if d]
    print(m,"map",a,b,"raw ECE %.4f cal ECE %.4f"%(ece(raw,Y),ece([p for p,d,y in r],Y)),
      "picks %d raw mean %.3f cal mean %.3f frac %.3f"%(len(pk),sum(raw[i] for i in pk)/len(pk),sum(r[i][0] for i in pk)/len(pk),sum(Y[i] for i in pk)/len(pk)))
