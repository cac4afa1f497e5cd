#!/usr/bin/python3
# xgb-trial.py - a throw-away for issue 16, item 5: gradient-boosted trees
# (XGBoost, Debian's python3-xgboost 1.7.4) against linear on the rows
# `stablesel eval --dump-features PREFIX` wrote for one validation split.
# Not run by make; the commands and results: bench/results/kernel-levers.md, "Gradient-boosted
# trees".
#
# Usage: /usr/bin/python3 xgb-trial.py PREFIX LINEAR_SCORES_TSV [VARIANT,...]
#   PREFIX             eval --dump-features' output (PREFIX.svm, .meta, .dense)
#   LINEAR_SCORES_TSV  "stablesel eval --models linear --scores" of the same split
#   VARIANT            all: trees on every feature; dense: on the named
#                      features only; stack: the named features plus the
#                      linear margin (out of fold); all+lin: every feature
#                      plus that margin; boost-lin, boost-lin-dense: trees
#                      boosted from the linear margin (base_margin) on
#                      every / the named features; oracle: fixed settings
#                      scored on the test part (an upper bound, chosen in
#                      hindsight)
#                      (with a boost-lin variant in the list every variant
#                      uses the boost-lin settings below)
#   SEEDS (environment)  XGBoost seeds (default "1 2 3")
#   SAVE (environment)   also save each run's test scores, SAVE-NAME-sSEED.npy
#
# As ss_model_train: the newest 15% of the training part validate (the
# inner split): settings and the number of rounds (early stopping on its
# average precision) are chosen there, the F1 threshold on its scores;
# then the trees are refitted on the whole training part with the rounds
# scaled by 1/0.85.  Linear's C is chosen the same way from linear.c's
# grid (liblinear through scikit-learn agrees with stablesel's linear on
# these rows: same PR-AUC to 0.001).  Metrics as models/metrics.h.
import sys, time
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
import xgboost as xgb

prefix, linsc = sys.argv[1], sys.argv[2]
variants = sys.argv[3].split(',') if len(sys.argv) > 3 else ['all', 'dense', 'stack', 'all+lin']
import os
seeds = [int(x) for x in os.environ.get("SEEDS", "1 2 3").split()]
dense = [l.split('\t') for l in open(prefix + '.dense').read().split('\n') if l]
NDENSE = len(dense)
meta = [l.split('\t') for l in open(prefix + '.meta').read().split('\n')[1:] if l]
X, y = load_svmlight_file(prefix + '.svm', zero_based=True)
X = X.tocsr().astype(np.float32)
y = y.astype(int)
part = np.array([int(m[1]) for m in meta])
tagged = np.array([int(m[3]) for m in meta])
sha = [m[0] for m in meta]
tr = np.where(part == 0)[0]
te = np.where(part == 1)[0]
ntr = len(tr)
nval = int(np.floor(ntr * 0.15 + 0.5))
fit, val = tr[:ntr - nval], tr[ntr - nval:]
print(f'{prefix}: train {ntr} ({y[tr].sum()} pos), inner fit {len(fit)} val {len(val)} ({y[val].sum()} pos), test {len(te)} ({y[te].sum()} pos), dim {X.shape[1]} nnz/row {X[tr].nnz / ntr:.0f}', flush=True)
# the masked tag must not be there
cc = [i for i, d in enumerate(dense) if d[1] == 'cc_stable']
assert not cc or X[:, int(dense[cc[0]][0])].nnz == 0, 'cc_stable leaks'


def metrics(s, lab, thr):
    ap = average_precision_score(lab, s)
    pick = s >= thr
    tp = (pick & (lab == 1)).sum()
    fp = (pick & (lab == 0)).sum()
    fn = (~pick & (lab == 1)).sum()
    f1 = 2 * tp / (2 * tp + fp + fn)
    # P@R0.9 over distinct thresholds
    o = np.argsort(-s, kind='stable')
    ss, ll = s[o], lab[o]
    npos = lab.sum()
    tpc = 0
    i = 0
    p9 = float('nan')
    while i < len(ss):
        j = i
        while j < len(ss) and ss[j] == ss[i]:
            tpc += ll[j]
            j += 1
        if tpc / npos >= 0.9 - 1e-12:
            p9 = tpc / j
            break
        i = j
    return ap, f1, p9


def best_thr(s, lab):
    # best F1 threshold among the distinct scores (rule F1)
    o = np.argsort(-s, kind='stable')
    ss, ll = s[o], lab[o]
    npos = lab.sum()
    tp = 0
    best, bt = -1, 0.5
    i = 0
    while i < len(ss):
        j = i
        while j < len(ss) and ss[j] == ss[i]:
            tp += ll[j]
            j += 1
        f1 = 2 * tp / (j + npos)
        if f1 > best:
            best, bt = f1, ss[i]
        i = j
    return bt


def linear_fit(Xa, ya, C):
    m = LogisticRegression(solver='liblinear', C=C, tol=0.01, intercept_scaling=1.0)
    m.fit(Xa, ya)
    return m


GRID = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0]


def linear_choose(Xf, yf, Xv, yv):
    best = (-1, None)
    for C in GRID:
        s = linear_fit(Xf, yf, C).decision_function(Xv)
        ap = average_precision_score(yv, s)
        if ap > best[0]:
            best = (ap, C)
    return best[1]


def oof_linear(rows, C, k=5):
    """out-of-fold linear margins for rows (contiguous time blocks)."""
    out = np.zeros(len(rows))
    folds = np.array_split(np.arange(len(rows)), k)
    for f in folds:
        mask = np.ones(len(rows), bool)
        mask[f] = False
        m = linear_fit(X[rows[mask]], y[rows[mask]], C)
        out[f] = m.decision_function(X[rows[f]])
    return out


BM = None  # (fit, val, train, test) base margins or None


def xgb_run(Xf, yf, Xv, yv, Xall, yall, Xt, params, seed):
    """choose rounds on (fit, val), threshold on val scores of that model, refit on all with those rounds."""
    p = dict(params)
    p.update(objective='binary:logistic', tree_method='hist', eval_metric='aucpr', nthread=2, seed=seed)
    df = xgb.DMatrix(Xf, label=yf)
    dv = xgb.DMatrix(Xv, label=yv)
    if BM is not None:
        df.set_base_margin(BM[0]); dv.set_base_margin(BM[1])
    b = xgb.train(p, df, num_boost_round=1500, evals=[(dv, 'val')], early_stopping_rounds=60, verbose_eval=False)
    nr = b.best_iteration + 1
    vs = b.predict(dv, iteration_range=(0, nr))
    vap = average_precision_score(yv, vs)
    return b, nr, vs, vap


PARAMS = []
for depth in ((3, 6) if 'dpdk' in prefix else (3, 5, 7)):
    for eta in (0.03, 0.1):
        PARAMS.append(dict(max_depth=depth, eta=eta, subsample=0.8, colsample_bytree=0.5,
                           min_child_weight=2, reg_lambda=1.0))
if 'boost-lin' in ','.join(variants):
    PARAMS = [dict(max_depth=d, eta=0.02, subsample=0.8, colsample_bytree=0.3, min_child_weight=5,
                   reg_lambda=5.0) for d in (2, 4, 6)]

# linear as stablesel ran it (the eval's --scores)
lin = {}
for l in open(linsc).read().split('\n')[1:]:
    if l:
        f = l.split('\t')
        lin[f[0]] = (float(f[2]), int(f[3]))
ls = np.array([lin[sha[i]][0] for i in te])
ldec = np.array([lin[sha[i]][1] for i in te])
ap = average_precision_score(y[te], ls)
_, f1, p9 = metrics(ls, y[te], min(ls[ldec == 1]))
u = tagged[te] == 0
print(f'RESULT {prefix} stablesel-linear untagged AP {average_precision_score(y[te][u], ls[u]):.3f}')
print(f'RESULT {prefix} stablesel-linear seed - AP {ap:.3f} F1 {f1:.3f} P@R.9 {p9:.3f}', flush=True)

# sklearn linear on the same matrix (check it agrees with stablesel's)
t0 = time.time()
C = linear_choose(X[fit], y[fit], X[val], y[val])
mv = linear_fit(X[fit], y[fit], C)
lthr = best_thr(mv.decision_function(X[val]), y[val])
ml = linear_fit(X[tr], y[tr], C)
lte = ml.decision_function(X[te])
ap, f1, p9 = metrics(lte, y[te], lthr)
print(f'RESULT {prefix} sk-linear C={C} - AP {ap:.3f} F1 {f1:.3f} P@R.9 {p9:.3f} ({time.time() - t0:.1f}s)', flush=True)

dcols = np.arange(NDENSE)
Xd = X[:, dcols]
if set(variants) & {'stack', 'all+lin', 'boost-lin', 'boost-lin-dense', 'oracle'}:
    # out-of-fold linear margin: on fit rows by folds of fit; val rows from a model on fit;
    # train rows (for the refit) by folds of all training rows; test from all training.
    lin_fit = oof_linear(fit, C)
    lin_val = linear_fit(X[fit], y[fit], C).decision_function(X[val])
    lin_tr = oof_linear(tr, C)
    lin_te = lte


def run_variant(name, Xf, Xv, Xall, Xt):
    for seed in seeds:
        t0 = time.time()
        best = None
        for p in PARAMS:
            b, nr, vs, vap = xgb_run(Xf, y[fit], Xv, y[val], Xall, y[tr], Xt, p, seed)
            if best is None or vap > best[0]:
                best = (vap, p, nr, vs)
        vap, p, nr, vs = best
        thr = best_thr(vs, y[val])
        pp = dict(p)
        pp.update(objective='binary:logistic', tree_method='hist', nthread=2, seed=seed)
        nr_all = int(round(nr / 0.85))
        da, dt = xgb.DMatrix(Xall, label=y[tr]), xgb.DMatrix(Xt)
        if BM is not None:
            da.set_base_margin(BM[2]); dt.set_base_margin(BM[3])
        b = xgb.train(pp, da, num_boost_round=nr_all)
        ts = b.predict(dt)
        ap, f1, p9 = metrics(ts, y[te], thr)
        if os.environ.get('SAVE'):
            np.save(f"{os.environ['SAVE']}-{name}-s{seed}.npy", ts)
        u = tagged[te] == 0
        uap = average_precision_score(y[te][u], ts[u])
        # also the val-model (no refit) on test
        print(f'RESULT {prefix} xgb-{name} seed {seed} AP {ap:.3f} F1 {f1:.3f} P@R.9 {p9:.3f} untagged AP {uap:.3f} '
              f'(inner val AP {vap:.3f}; depth {p["max_depth"]} eta {p["eta"]} rounds {nr}->{nr_all}; {time.time() - t0:.0f}s)', flush=True)


from scipy.sparse import hstack, csr_matrix
for v in variants:
    if v == 'all':
        run_variant('all', X[fit], X[val], X[tr], X[te])
    elif v == 'dense':
        run_variant('dense', Xd[fit], Xd[val], Xd[tr], Xd[te])
    elif v == 'stack':
        run_variant('dense+linOOF', hstack([Xd[fit], csr_matrix(lin_fit[:, None])]).tocsr(),
                    hstack([Xd[val], csr_matrix(lin_val[:, None])]).tocsr(),
                    hstack([Xd[tr], csr_matrix(lin_tr[:, None])]).tocsr(),
                    hstack([Xd[te], csr_matrix(lin_te[:, None])]).tocsr())
    elif v in ('boost-lin', 'boost-lin-dense'):
        BM = (lin_fit, lin_val, lin_tr, lin_te)
        XX = X if v == 'boost-lin' else Xd
        run_variant(v, XX[fit], XX[val], XX[tr], XX[te])
        BM = None
    elif v == 'all+lin':
        run_variant('all+linOOF', hstack([X[fit], csr_matrix(lin_fit[:, None])]).tocsr(),
                    hstack([X[val], csr_matrix(lin_val[:, None])]).tocsr(),
                    hstack([X[tr], csr_matrix(lin_tr[:, None])]).tocsr(),
                    hstack([X[te], csr_matrix(lin_te[:, None])]).tocsr())
    elif v == 'oracle':
        from scipy.special import expit
        lin_te_p = expit(lte)
        grid = []
        for depth in (2, 4, 6):
            for eta, rounds in ((0.02, 600), (0.05, 300)):
                for mcw in (1, 5):
                    grid.append(dict(max_depth=depth, eta=eta, min_child_weight=mcw, subsample=0.8,
                                     colsample_bytree=0.3, reg_lambda=5.0, rounds=rounds))
        for name, bm_tr, bm_te in (('all', None, None), ('all|base=linOOF', lin_tr, lin_te)):
            for g in grid:
                p = dict(g)
                r = p.pop('rounds')
                p.update(objective='binary:logistic', tree_method='hist', nthread=2, seed=1)
                dtr = xgb.DMatrix(X[tr], label=y[tr])
                dte = xgb.DMatrix(X[te])
                if bm_tr is not None:
                    dtr.set_base_margin(bm_tr)
                    dte.set_base_margin(bm_te)
                b = xgb.train(p, dtr, num_boost_round=r)
                aps = []
                for k in (r // 4, r // 2, r):
                    ts = b.predict(dte, iteration_range=(0, k))
                    aps.append(average_precision_score(y[te], ts))
                bl = average_precision_score(y[te], 0.5 * ts + 0.5 * lin_te_p)
                print(f'ORACLE {prefix} xgb-{name} depth {g["max_depth"]} eta {g["eta"]} mcw {g["min_child_weight"]} '
                      f'AP@{r//4},{r//2},{r} rounds ' + ' '.join(f'{a:.3f}' for a in aps) +
                      f' blend(lin) {bl:.3f}', flush=True)
