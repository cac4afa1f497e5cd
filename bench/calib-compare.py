#!/usr/bin/env python3
# calib-compare.py - Platt scaling against isotonic regression, on
# validation evidence only (docs/features.md, "Calibration").
#
# Input: a "stablesel eval --scores TSV" file of uncalibrated scores from
# an inner split inside the training part (bench/calib.sh), the real split
# date as seconds (commits from it on are left out: they are the test
# part), and a name.  The commits before it are ordered by time; each map
# is fitted on the older half and judged on the newer half: ECE (10
# bins), log loss, the picks' mean score against their fraction positive,
# and how many distinct scores remain.  Standard library only; the Platt
# fit is the one of src/models/calib.c, isotonic is pool-adjacent-
# violators with linear interpolation between block means.
import sys, math, collections
def load(f, tmax):
    rows=collections.defaultdict(list)
    for l in open(f):
        x=l.rstrip('\n').split('\t')
        if x[0]=='sha': continue
        t=int(x[6])
        if t>=tmax: continue
        rows[x[1]].append((t,float(x[2]),int(x[3]),int(x[4])))
    return rows
def logit(s):
    s=min(max(s,1e-7),1-1e-7); return math.log(s/(1-s))
def sig(f): return 1/(1+math.exp(-f)) if f>=0 else math.exp(f)/(1+math.exp(f))
def platt(S,Y):
    np_=sum(Y); nn=len(Y)-np_
    T=[(np_+1)/(np_+2) if y else 1/(nn+2) for y in Y]
    Z=[logit(s) for s in S]; a=0; b=math.log((np_+1)/(nn+1))
    def nll(a,b): return sum((f if f>0 else 0)+math.log1p(math.exp(-abs(f)))-t*f for f,t in ((a*z+b,t) for z,t in zip(Z,T)))
    f0=nll(a,b)
    for it in range(100):
        ga=gb=0;haa=hbb=1e-12;hab=0
        for z,t in zip(Z,T):
            p=sig(a*z+b);w=p*(1-p);r=p-t
            ga+=z*r;gb+=r;haa+=z*z*w;hab+=z*w;hbb+=w
        det=haa*hbb-hab*hab
        da=-(hbb*ga-hab*gb)/det; db=-(haa*gb-hab*ga)/det
        st=1
        while st>1e-10:
            f1=nll(a+st*da,b+st*db)
            if f1<=f0+1e-4*st*(ga*da+gb*db): a+=st*da;b+=st*db;f0=f1;break
            st/=2
        if abs(ga)<1e-9*len(S) and abs(gb)<1e-9*len(S): break
    return lambda s: sig(a*logit(s)+b)
def isotonic(S,Y,minb=1):
    d=sorted(zip(S,Y))
    # blocks: [sum_s, sum_y, n]
    bl=[]
    for s,y in d:
        bl.append([s,y,1])
        while len(bl)>1 and (bl[-2][1]/bl[-2][2] >= bl[-1][1]/bl[-1][2] or bl[-1][2]<minb and False):
            a=bl.pop(); bl[-1]=[bl[-1][0]+a[0],bl[-1][1]+a[1],bl[-1][2]+a[2]]
    # enforce minimum block size by merging small blocks into neighbour then re-PAV
    if minb>1:
        changed=True
        while changed:
            changed=False
            for i,b in enumerate(bl):
                if b[2]<minb and len(bl)>1:
                    j=i+1 if i+1<len(bl) else i-1
                    lo,hi=min(i,j),max(i,j)
                    bl[lo]=[bl[lo][0]+bl[hi][0],bl[lo][1]+bl[hi][1],bl[lo][2]+bl[hi][2]]; del bl[hi]; changed=True; break
    kn=[(b[0]/b[2],b[1]/b[2]) for b in bl]
    def f(s):
        if s<=kn[0][0]: return kn[0][1]
        if s>=kn[-1][0]: return kn[-1][1]
        for (x0,y0),(x1,y1) in zip(kn,kn[1:]):
            if x0<=s<=x1: return y0+(y1-y0)*(s-x0)/(x1-x0) if x1>x0 else y1
    return f
def ece(S,Y):
    b=[[0,0.0,0] for _ in range(10)]
    for s,y in zip(S,Y):
        i=min(9,int(s*10)); b[i][0]+=1;b[i][1]+=s;b[i][2]+=y
    return sum(c/len(S)*abs(ss/c-p/c) for c,ss,p in b if c)
def ll(S,Y): return -sum(math.log(max(min(s,1-1e-9),1e-9)) if y else math.log(max(min(1-s,1-1e-9),1e-9)) for s,y in zip(S,Y))/len(S)
rows=load(sys.argv[1], int(sys.argv[2]))
for m,r in rows.items():
    r.sort(); h=len(r)//2
    A=r[:h]; B=r[h:]
    SA=[x[1] for x in A]; YA=[x[3] for x in A]; SB=[x[1] for x in B]; YB=[x[3] for x in B]; DB=[x[2] for x in B]
    print(f"{sys.argv[3]} {m}: fit half {len(A)} ({sum(YA)} pos), evaluation half {len(B)} ({sum(YB)} pos)")
    for name,f in (('identity',lambda s:s),('platt',platt(SA,YA)),('isotonic',isotonic(SA,YA)),('isotonic min 20',isotonic(SA,YA,20))):
        C=[f(s) for s in SB]
        pk=[(c,y) for c,y,d in zip(C,YB,DB) if d]
        distinct=len(set(round(c,12) for c in C))
        print(f"  {name:16s} ECE {ece(C,YB):.4f} logloss {ll(C,YB):.4f} picks mean {sum(c for c,y in pk)/len(pk):.3f} frac {sum(y for c,y in pk)/len(pk):.3f} distinct scores {distinct}/{len(C)}")
