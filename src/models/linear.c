/*
 * linear.c - L2-regularised logistic regression through liblinear.
 *
 * The cost C is chosen from a grid by average precision on the validation
 * slice (the newest training commits), the grid points trained in
 * parallel (each liblinear run is single-threaded, its BLAS calls
 * included, and deterministic, so the result does not depend on the
 * thread count).  With refit (the
 * default) the model is then retrained on all training commits with that
 * C; the validation scores for the threshold come from the model that did
 * not see them.  Scoring does not go through liblinear: the weights are
 * one flat vector w[dim + 1] (bias last) and a score is
 * sigmoid(w . x + bias).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linear.h>

#include "models/impl.h"
#include "nn/nn.h"
#include "util/error.h"
#include "util/grow.h"

struct linear {
	size_t dim;  /* feature space size, without the bias */
	float *w;    /* [dim + 1] */
	ss_near *near; /* the nearest past decisions (m->near_k > 0), or NULL */
};

static const double grid[] = { 0.01, 0.03, 0.1, 0.3, 1.0, 3.0 };
#define NGRID (sizeof(grid) / sizeof(grid[0]))

static void quiet(const char *s)
{
	(void)s;
}

/* liblinear's rows for examples, plus the bias feature. */
struct rows {
	struct feature_node **x;
	struct feature_node *nodes;
	double *y;
	size_t n;
};

/* Empties r: a second call (rows_build's failure, then the caller's) is a no-op. */
static void rows_free(struct rows *r)
{
	free(r->x);
	free(r->nodes);
	free(r->y);
	memset(r, 0, sizeof(*r));
}

static int rows_build(struct rows *r, const ss_model *m, const ss_dataset *d,
		      const size_t *idx, size_t n)
{
	uint32_t *remap = NULL;
	size_t i, k, total = 0, cap = 0, *start = NULL;
	size_t dim = ss_featurizer_dim(&m->feat);
	ss_svec v;
	int rc;

	memset(r, 0, sizeof(*r));
	ss_svec_init(&v);
	if ((rc = ss_dataset_remap(&remap, &m->feat, d)))
		return rc;
	r->x = malloc((n ? n : 1) * sizeof(*r->x));
	r->y = malloc((n ? n : 1) * sizeof(*r->y));
	start = malloc((n ? n : 1) * sizeof(*start));
	if (!r->x || !r->y || !start) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	for (i = 0; i < n; i++) {
		if ((rc = ss_dataset_vector(&v, &m->feat, remap, d, idx[i])))
			goto free_all;
		if (SS_GROW(r->nodes, total + v.n + 2, cap)) {
			rc = SS_ENOMEM;
			goto free_all;
		}
		start[i] = total;
		for (k = 0; k < v.n; k++) {
			/* liblinear never ends on a NaN or an infinity */
			if (!isfinite(v.val[k])) {
				rc = ss_error_code(SS_EINVALID, "cannot train on commit %.12s: a "
						   "feature value is not finite",
						   ss_dataset_example(d, idx[i])->id);
				goto free_all;
			}
			r->nodes[total].index = (int)v.idx[k] + 1;
			r->nodes[total++].value = v.val[k];
		}
		r->nodes[total].index = (int)dim + 1;
		r->nodes[total++].value = 1.0;
		r->nodes[total++].index = -1;
		r->y[i] = ss_dataset_example(d, idx[i])->label ? 1.0 : -1.0;
	}
	/* pointers only now: the node array moved while it grew */
	for (i = 0; i < n; i++)
		r->x[i] = r->nodes + start[i];
	r->n = n;
	rc = 0;

free_all:
	if (rc)
		rows_free(r);
	free(start);
	free(remap);
	ss_svec_release(&v);
	return rc;
}

/* Train on the first n rows with cost C into w[dim + 1]. */
static int fit_rows(float *w, size_t dim, const struct rows *r, size_t n, double C, int balance)
{
	struct problem prob;
	struct parameter param;
	struct model *lm;
	int labels[2] = { 1, -1 };
	double weights[2] = { 1.0, 1.0 };
	const char *err;
	double sign;
	size_t i, npos = 0;

	for (i = 0; i < n; i++)
		npos += r->y[i] > 0;
	if (!npos || npos == n)
		return ss_error_code(SS_EINVALID, "training data holds only %s commits",
				     npos ? "positive" : "negative");
	memset(&prob, 0, sizeof(prob));
	prob.l = (int)n;
	prob.n = (int)dim + 1;
	prob.y = r->y;
	prob.x = r->x;
	prob.bias = 1.0;
	memset(&param, 0, sizeof(param));
	param.solver_type = L2R_LR;
	param.eps = 0.01;
	param.C = C;
	if (balance) {
		weights[0] = (double)n / (2.0 * (double)npos);
		weights[1] = (double)n / (2.0 * (double)(n - npos));
		param.nr_weight = 2;
		param.weight_label = labels;
		param.weight = weights;
	}
	err = check_parameter(&prob, &param);
	if (err)
		return ss_error_set("liblinear refuses its parameters: %s", err);
	lm = train(&prob, &param);
	if (!lm)
		return SS_ENOMEM;
	/* liblinear's w is for the class it met first */
	sign = lm->label[0] == 1 ? 1.0 : -1.0;
	for (i = 0; i <= dim; i++)
		w[i] = (float)(sign * lm->w[i]);
	free_and_destroy_model(&lm);
	return 0;
}

static float dot(const float *w, size_t dim, const struct feature_node *x)
{
	double z = w[dim];

	for (; x->index != -1; x++)
		if ((size_t)x->index <= dim)
			z += (double)w[x->index - 1] * x->value;
	return (float)z;
}

struct grid_job {
	const struct rows *rows;
	size_t nfit, nval, dim;
	int balance, nthreads;
	const uint8_t *vlabel;
	float *w[NGRID];
	float *vscore[NGRID];
	double ap[NGRID];
};

static int grid_worker(void *arg, int t)
{
	struct grid_job *j = arg;
	size_t g, i;
	int rc;

	for (g = (size_t)t; g < NGRID; g += (size_t)j->nthreads) {
		ss_metrics mt;

		if ((rc = fit_rows(j->w[g], j->dim, j->rows, j->nfit, grid[g], j->balance)))
			return rc;
		for (i = 0; i < j->nval; i++)
			j->vscore[g][i] = ss_sigmoid(dot(j->w[g], j->dim, j->rows->x[j->nfit + i]));
		if ((rc = ss_metrics_compute(&mt, j->vscore[g], j->vlabel, j->nval, 0.5f)))
			return rc;
		j->ap[g] = isnan(mt.pr_auc) ? 0.0 : mt.pr_auc;
	}
	return 0;
}

/* ---- adaptation: a prior's weights and the project's own rules ------- */

/* The logits of w on rows x[0..n) into z[n]. */
static void logits(double *z, const float *w, size_t dim, struct feature_node *const *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		z[i] = dot(w, dim, x[i]);
}

/* Average precision of scores z[n] (only their order counts). */
static double ap_of(const double *z, const uint8_t *label, size_t n, float *tmp)
{
	size_t i;

	for (i = 0; i < n; i++)
		tmp[i] = (float)z[i];
	return ss_metrics_avg_precision(tmp, label, n);
}

/* The best F1 over every threshold of z[n]. */
static double best_f1(const double *z, const uint8_t *label, size_t n, float *tmp)
{
	double f1 = 0.0;
	size_t i;
	float t;

	for (i = 0; i < n; i++)
		tmp[i] = ss_sigmoid((float)z[i]);
	if (ss_metrics_threshold(&t, tmp, label, n, SS_THRESH_F1, 0.0, &f1, NULL, NULL))
		ss_error_clear();
	return f1;
}

/* Whether row x has feature f (0-based) set. */
static int has(const struct feature_node *x, size_t f)
{
	for (; x->index != -1; x++)
		if ((size_t)x->index == f + 1)
			return x->value != 0.0;
	return 0;
}

/*
 * The share alpha of the prior's weights (a model trained on other
 * projects, in the same feature space) mixed into the project's:
 * w = alpha * prior + (1 - alpha) * own, alpha from SS_LINEAR_ALPHAS by
 * validation AP (the project's newest commits), ties to the smaller.
 * Shrinking toward a prior this way is what a Gaussian prior centred on
 * it does to a small sample; the validation slice says how far.
 */
static const double alphas[] = { 0.0, 0.25, 0.5, 0.75, 1.0 };
#define NALPHAS (sizeof(alphas) / sizeof(alphas[0]))

static void choose_alpha(ss_linear_adapt *a, const double *zown, const double *zprior,
			 const uint8_t *vlabel, size_t nval, double *z, float *tmp)
{
	size_t k, i;
	double ap, best = -1.0;

	for (k = 0; k < NALPHAS; k++) {
		for (i = 0; i < nval; i++)
			z[i] = alphas[k] * zprior[i] + (1.0 - alphas[k]) * zown[i];
		ap = ap_of(z, vlabel, nval, tmp);
		if (k == 0)
			a->ap_own = ap;
		if (alphas[k] == 1.0)
			a->ap_prior = ap;
		if (ap > best + 1e-9) {
			best = ap;
			a->alpha = alphas[k];
		}
	}
}

/*
 * The rule guard.  A rule of the project's own history is a feature set
 * on at least SS_RULE_MIN_SHARE of the fit commits (and on at most half)
 * whose precision there is at least SS_RULE_MIN_PRECISION and
 * SS_RULE_MIN_LIFT times the fit commits' positive share: a marker the
 * maintainers put on what they backport ("Key: value" lines, link hosts,
 * Fixes:, a word), not any feature that leans positive.  Ranked rule
 * first (the model ordering within either side), each rule's validation
 * AP is compared with the model's; the best rule is raised when it beats
 * the model by SS_RULE_MARGIN_AP in AP, or by SS_RULE_MARGIN_F1 in F1 as
 * a yes/no against the model's best F1, on each half of the validation
 * slice (older, newer): a rule that wins one half only is the slice's
 * noise or a drift of the labels, and raising it cost the held-out part
 * of three corpus projects in the leave-one-project-out table
 * (docs/scores.md).  Its weight is raised by the boost (a share of the
 * logits' spread, or enough to put every commit with it first) with the
 * best validation AP among those not below the rule's own AP and F1:
 * then the ranking is not below the project's best single rule on
 * validation.
 */
#define SS_RULE_MIN_SHARE 0.01
#define SS_RULE_MIN_PRECISION 0.25
#define SS_RULE_MIN_LIFT 2.5
/* How far the model may trail the rule before the rule is raised: a
 * validation slice of a few hundred commits cannot tell closer figures
 * apart (krb5 held out: F1 .986 -> .875 with no margin). */
#define SS_RULE_MARGIN_AP 0.01
#define SS_RULE_MARGIN_F1 0.02

/* Whether rule on[] beats the model zm on the validation rows [from, to). */
static int beats(const double *zm, const uint8_t *on, const uint8_t *vlabel, size_t from,
		 size_t to, double spread, double *z, float *tmp)
{
	size_t i, n = to - from, tp = 0, sel = 0, pos = 0;
	double apm, apr, f1m, f1r;

	for (i = from; i < to; i++) {
		z[i - from] = zm[i] + (on[i] ? spread : 0.0);
		tp += on[i] && vlabel[i];
		sel += on[i];
		pos += vlabel[i];
	}
	if (!pos)
		return 0;
	apr = ap_of(z, vlabel + from, n, tmp);
	apm = ap_of(zm + from, vlabel + from, n, tmp);
	f1r = 2.0 * (double)tp / (double)(sel + pos);
	f1m = best_f1(zm + from, vlabel + from, n, tmp);
	return apr > apm + SS_RULE_MARGIN_AP || f1m < f1r - SS_RULE_MARGIN_F1;
}

static int guard(ss_linear_adapt *a, size_t dim, struct feature_node *const *xfit,
		 const double *yfit, size_t nfit, struct feature_node *const *xval,
		 const uint8_t *vlabel, size_t nval, const double *zm, double *z, float *tmp)
{
	uint32_t *df = calloc(dim, sizeof(*df)), *tpf = calloc(dim, sizeof(*tpf)), *list = NULL;
	uint8_t *on = malloc(nval ? nval : 1);
	double lo = INFINITY, hi = -INFINITY, mean = 0.0, sd = 0.0, apr, best = -1.0, base = 0.0;
	const struct feature_node *x;
	size_t i, f, min = (size_t)ceil(SS_RULE_MIN_SHARE * (double)nfit), pos = 0, *start = NULL;
	int k, rc = 0;

	if (!df || !tpf || !on) {
		free(df);
		free(tpf);
		free(on);
		return SS_ENOMEM;
	}
	if (min < 3)
		min = 3;
	for (i = 0; i < nfit; i++) {
		base += yfit[i] > 0 ? 1.0 / (double)nfit : 0.0;
		for (x = xfit[i]; x->index != -1; x++)
			if ((size_t)x->index <= dim && x->value != 0.0) {
				df[x->index - 1]++;
				tpf[x->index - 1] += yfit[i] > 0;
			}
	}
	for (i = 0; i < nval; i++) {
		lo = fmin(lo, zm[i]);
		hi = fmax(hi, zm[i]);
		mean += zm[i] / (double)nval;
	}
	for (i = 0; i < nval; i++)
		sd += (zm[i] - mean) * (zm[i] - mean) / (double)nval;
	sd = sqrt(sd);
	a->ap_model = ap_of(zm, vlabel, nval, tmp);
	a->f1_model = best_f1(zm, vlabel, nval, tmp);
	a->ap_final = a->ap_model;
	a->boost = 0.0f;
	a->rule = -1;
	/* the validation rows of each candidate, as lists (an inverted
	 * index over the candidates: one pass over the rows, not one per
	 * candidate) */
	for (f = 0; f < dim; f++) {
		double prec = df[f] ? (double)tpf[f] / (double)df[f] : 0.0;

		if (df[f] < min || 2 * (size_t)df[f] > nfit || prec < SS_RULE_MIN_PRECISION ||
		    prec < SS_RULE_MIN_LIFT * base)
			df[f] = 0;
		tpf[f] = 0;
	}
	for (i = 0; i < nval; i++)
		for (x = xval[i]; x->index != -1; x++)
			if ((size_t)x->index <= dim && df[x->index - 1] && x->value != 0.0)
				tpf[x->index - 1]++;
	start = malloc((dim + 1) * sizeof(*start));
	if (!start) {
		rc = SS_ENOMEM;
		goto out;
	}
	for (start[0] = 0, f = 0; f < dim; f++)
		start[f + 1] = start[f] + tpf[f];
	if (!(list = malloc((start[dim] ? start[dim] : 1) * sizeof(*list)))) {
		rc = SS_ENOMEM;
		goto out;
	}
	for (f = 0; f < dim; f++)
		tpf[f] = 0;
	for (i = 0; i < nval; i++)
		for (x = xval[i]; x->index != -1; x++)
			if ((size_t)x->index <= dim && df[x->index - 1] && x->value != 0.0) {
				f = (size_t)x->index - 1;
				list[start[f] + tpf[f]++] = (uint32_t)i;
			}
	for (i = 0; i < nval; i++)
		pos += vlabel[i];
	for (f = 0; f < dim; f++) {
		size_t tp = 0, sel = start[f + 1] - start[f], j;

		if (!sel)
			continue;
		memcpy(z, zm, nval * sizeof(*z));
		for (j = start[f]; j < start[f + 1]; j++) {
			z[list[j]] += hi - lo + 1.0;
			tp += vlabel[list[j]];
		}
		if (!tp)
			continue;
		apr = ap_of(z, vlabel, nval, tmp);
		if (apr > best + 1e-9) {
			best = apr;
			a->rule = (long)f;
			a->ap_rule = apr;
			a->f1_rule = 2.0 * (double)tp / (double)(pos + sel);
		}
	}
	if (a->rule >= 0) {
		for (i = 0; i < nval; i++)
			on[i] = (uint8_t)has(xval[i], (size_t)a->rule);
		if (beats(zm, on, vlabel, 0, nval / 2, hi - lo + 1.0, z, tmp) &&
		    beats(zm, on, vlabel, nval / 2, nval, hi - lo + 1.0, z, tmp)) {
			/* boosts by the logits' spread, the last one rule-first
			 * (never below the rule: cut at the rule's side, it is
			 * the rule) */
			double boosts[5] = { 0.5 * sd, sd, 2.0 * sd, 4.0 * sd, hi - lo + 1.0 };
			double ap, f1;

			best = -1.0;
			for (k = 0; k < 5; k++) {
				for (i = 0; i < nval; i++)
					z[i] = zm[i] + (on[i] ? boosts[k] : 0.0);
				ap = ap_of(z, vlabel, nval, tmp);
				f1 = best_f1(z, vlabel, nval, tmp);
				if ((ap > best + 1e-9 && f1 >= a->f1_rule - 1e-9 &&
				     ap >= a->ap_rule - 1e-9) || (k == 4 && best < 0.0)) {
					best = ap;
					a->boost = (float)boosts[k];
					a->ap_final = ap;
				}
			}
		}
	}
out:
	free(df);
	free(tpf);
	free(on);
	free(start);
	free(list);
	return rc;
}

/* w = alpha * prior + (1 - alpha) * w, then the rule's boost. */
static void adapt_apply(float *w, const float *prior, size_t dim, const ss_linear_adapt *a)
{
	size_t i;

	if (prior && a->alpha > 0.0)
		for (i = 0; i <= dim; i++)
			w[i] = (float)(a->alpha * prior[i] + (1.0 - a->alpha) * w[i]);
	if (a->rule >= 0 && a->boost > 0.0f)
		w[a->rule] += a->boost;
}

/* Choose the adaptation on the validation rows from the fit-only weights
 * w (the prior's wp may be NULL), and leave the adapted validation
 * scores in vscore[nval]. */
static int adapt_choose(ss_linear_adapt *a, const float *w, const float *wp, size_t dim,
			const struct rows *rows, size_t nfit, size_t nval, const uint8_t *vlabel,
			int rule_guard, float *vscore)
{
	double *zown = malloc((nval ? nval : 1) * sizeof(double) * 4), *zprior, *zm, *z;
	float *tmp = malloc((nval ? nval : 1) * sizeof(*tmp));
	size_t i;
	int rc = 0;

	if (!zown || !tmp) {
		free(zown);
		free(tmp);
		return SS_ENOMEM;
	}
	zprior = zown + nval;
	zm = zprior + nval;
	z = zm + nval;
	memset(a, 0, sizeof(*a));
	a->rule = -1;
	logits(zown, w, dim, rows->x + nfit, nval);
	memcpy(zm, zown, nval * sizeof(*zm));
	if (wp) {
		logits(zprior, wp, dim, rows->x + nfit, nval);
		choose_alpha(a, zown, zprior, vlabel, nval, z, tmp);
		for (i = 0; i < nval; i++)
			zm[i] = a->alpha * zprior[i] + (1.0 - a->alpha) * zown[i];
	}
	a->ap_model = a->ap_final = ap_of(zm, vlabel, nval, tmp);
	if (rule_guard && (rc = guard(a, dim, rows->x, rows->y, nfit, rows->x + nfit, vlabel, nval,
				      zm, z, tmp)))
		goto out;
	for (i = 0; i < nval; i++) {
		double zi = zm[i];

		if (a->rule >= 0 && a->boost > 0.0f && has(rows->x[nfit + i], (size_t)a->rule))
			zi += a->boost;
		vscore[i] = ss_sigmoid((float)zi);
	}
out:
	free(zown);
	free(tmp);
	return rc;
}

/* ---- the nearest past decisions (near.c) ----------------------------- */

/* A liblinear row as a vector of the feature space (the bias left out). */
static int node_svec(ss_svec *out, const struct feature_node *x, size_t dim)
{
	out->n = 0;
	for (; x->index != -1; x++)
		if ((size_t)x->index <= dim && ss_svec_push(out, (uint32_t)(x->index - 1),
							    (float)x->value))
			return SS_ENOMEM;
	return 0;
}

/* The memory of m's rows x[0..n) (labels y; oldest first) in the
 * neighbour space of w (borrowed: it must outlive the memory): the
 * newest SS_NEAR_MEMORY of them.  With d, the examples idx[0..n) of d
 * the rows are give their ids and subjects (precedents). */
static int near_build(ss_near **out, const ss_model *m, const float *w, uint32_t k,
		      struct feature_node *const *x, const double *y, size_t n,
		      const ss_dataset *d, const size_t *idx)
{
	uint32_t traces[SS_NEAR_SKIP_MAX];
	size_t ntraces = ss_featurizer_tag_traces(&m->feat, traces, SS_NEAR_SKIP_MAX);
	size_t i, dim = ss_featurizer_dim(&m->feat);
	ss_svec v;
	int rc;

	ss_svec_init(&v);
	if ((rc = ss_near_new(out, dim, k, w, traces, ntraces)))
		return rc;
	for (i = n > SS_NEAR_MEMORY ? n - SS_NEAR_MEMORY : 0; i < n && !rc; i++)
		if (!(rc = node_svec(&v, x[i], dim)))
			rc = ss_near_add(*out, &v, y[i] > 0,
					 d ? ss_dataset_example(d, idx[i])->id : NULL,
					 d ? ss_dataset_subject(d, idx[i]) : NULL);
	ss_svec_release(&v);
	if (rc) {
		ss_near_free(*out);
		*out = NULL;
	}
	return rc;
}

/* Weights of the evidence tried, the smallest winning ties. */
static const float near_betas[] = { 0.0f, 0.25f, 0.5f, 1.0f, 2.0f };
#define NBETAS (sizeof(near_betas) / sizeof(near_betas[0]))

/*
 * The validation rows the choice below queries: at most this many,
 * evenly spaced through the slice.  A query searches the whole memory,
 * so at the kernel's size (45,000 validation rows against 255,000 in
 * memory) the queries were a fifth of a first rank; DPDK's, systemd's
 * and tip's slices are under it and query every row.
 */
#define NEAR_CHOOSE_MAX 20000

/*
 * Whether the nearest past decisions help on validation: the memory is
 * the fit rows (older than every validation row), the weights wa the
 * adapted fit-only ones; the weight with the best validation AP (on the
 * rows NEAR_CHOOSE_MAX leaves) is kept in m->near_beta (0: none helps)
 * and vscore[nval] becomes the scores with it.
 */
static int near_choose(ss_model *m, const float *wa, size_t dim, const struct rows *rows,
		       size_t nfit, size_t nval, const uint8_t *vlabel, uint32_t k,
		       float *vscore, const ss_train_options *o, ss_linear_adapt *a)
{
	size_t step = nval > NEAR_CHOOSE_MAX ? (nval + NEAR_CHOOSE_MAX - 1) / NEAR_CHOOSE_MAX : 1;
	size_t nq = nval ? (nval - 1) / step + 1 : 0, m1 = nval ? nval : 1;
	double *z = malloc(m1 * 2 * sizeof(*z)), *e, *zs = malloc(m1 * 3 * sizeof(*zs)), *es, *zb;
	float *tmp = malloc(m1 * sizeof(*tmp));
	uint8_t *ls = malloc(m1), *asked = calloc(m1, 1);
	ss_near *nr = NULL;
	ss_svec v;
	size_t i, j, b;
	double best;
	int rc;

	ss_svec_init(&v);
	m->near_beta = 0.0f;
	m->near_k = k;
	if (!z || !zs || !tmp || !ls || !asked) {
		rc = SS_ENOMEM;
		goto out;
	}
	e = z + nval;
	es = zs + nq;
	zb = es + nq;
	if ((rc = near_build(&nr, m, wa, k, rows->x, rows->y, nfit, NULL, NULL)))
		goto out;
	logits(z, wa, dim, rows->x + nfit, nval);
	for (i = 0, j = 0; i < nval; i += step, j++) {
		if ((rc = node_svec(&v, rows->x[nfit + i], dim)))
			goto out;
		e[i] = ss_near_logit(nr, &v, NULL, NULL);
		asked[i] = 1;
		zs[j] = z[i];
		es[j] = e[i];
		ls[j] = vlabel[i];
	}
	best = a->ap_near_without = ap_of(zs, ls, nq, tmp);
	ss_model_logf(o, "linear: nearest past decisions weight 0: validation PR-AUC %.4f", best);
	for (b = 1; b < NBETAS; b++) {
		double ap;

		for (j = 0; j < nq; j++)
			zb[j] = zs[j] + near_betas[b] * es[j];
		ap = ap_of(zb, ls, nq, tmp);
		ss_model_logf(o, "linear: nearest past decisions weight %g: validation PR-AUC %.4f",
			      (double)near_betas[b], ap);
		if (ap > best + 1e-9) {
			best = ap;
			m->near_beta = near_betas[b];
		}
	}
	a->near_beta = m->near_beta;
	a->ap_near_with = best;
	if (m->near_beta > 0.0f) {
		for (i = 0; i < nval; i++) {
			if (!asked[i]) {
				if ((rc = node_svec(&v, rows->x[nfit + i], dim)))
					goto out;
				e[i] = ss_near_logit(nr, &v, NULL, NULL);
			}
			vscore[i] = ss_sigmoid((float)(z[i] + m->near_beta * e[i]));
		}
	}
out:
	ss_near_free(nr);
	ss_svec_release(&v);
	free(z);
	free(zs);
	free(tmp);
	free(ls);
	free(asked);
	return rc;
}

static int linear_train(ss_model *m, const ss_dataset *d, const size_t *fit, size_t nfit,
			const size_t *val, size_t nval, const ss_train_options *o,
			float *val_score)
{
	struct linear *lin = calloc(1, sizeof(*lin));
	struct grid_job job;
	struct rows rows = { NULL, NULL, NULL, 0 };
	size_t *all = NULL, i, g, best = 0, dim = ss_featurizer_dim(&m->feat);
	uint8_t *vlabel = NULL;
	const float *wp = NULL;
	ss_linear_adapt ad;
	int refit = o->refit < 0 ? 1 : o->refit, rc, prev_blas;

	if (!lin)
		return SS_ENOMEM;
	memset(&ad, 0, sizeof(ad));
	ad.rule = -1;
	m->priv = lin;
	lin->dim = dim;
	lin->w = calloc(dim + 1, sizeof(*lin->w));
	all = malloc((nfit + nval) * sizeof(*all));
	vlabel = malloc((nval ? nval : 1) * sizeof(*vlabel));
	if (!lin->w || !all || !vlabel) {
		free(all);
		free(vlabel);
		return SS_ENOMEM;
	}
	memcpy(all, fit, nfit * sizeof(*all));
	memcpy(all + nfit, val, nval * sizeof(*all));
	for (i = 0; i < nval; i++)
		vlabel[i] = ss_dataset_example(d, val[i])->label;
	memset(&job, 0, sizeof(job));
	set_print_string_function(quiet);
	/*
	 * liblinear's trust-region solver calls BLAS level 1 (ddot, dnrm2,
	 * daxpy) on vectors of the feature dimension, and Debian links it to
	 * the system BLAS (OpenBLAS).  One BLAS thread for the whole training,
	 * set here and not around each fit, as the grid's fits run in parallel
	 * and would give each other's counts back: OpenBLAS's hand-off to a
	 * second thread costs more than it saves on these vectors (systemd's
	 * first rank 13.3 s -> 10.3-11.2 s, bench/results/first-rank.md), and a
	 * reduction split by the thread count would make the weights depend
	 * on how many CPUs the machine has.
	 */
	prev_blas = ss_nn_set_blas_threads(1);
	if ((rc = rows_build(&rows, m, d, all, nfit + nval)))
		goto free_all;

	job.rows = &rows;
	job.nfit = nfit;
	job.nval = nval;
	job.dim = dim;
	job.balance = o->linear_balance;
	job.vlabel = vlabel;
	job.nthreads = o->threads > 0 ? o->threads : 1;
	if (o->C > 0 || !nval) {
		/* a fixed C: one grid point is enough, stored in slot 0 */
		job.nthreads = 1;
	}
	for (g = 0; g < NGRID; g++) {
		job.w[g] = calloc(dim + 1, sizeof(float));
		job.vscore[g] = calloc(nval ? nval : 1, sizeof(float));
		if (!job.w[g] || !job.vscore[g]) {
			rc = SS_ENOMEM;
			goto free_all;
		}
	}
	if (o->C > 0 || !nval) {
		double C = o->C > 0 ? o->C : 0.1;

		if ((rc = fit_rows(job.w[0], dim, &rows, nfit, C, job.balance)))
			goto free_all;
		for (i = 0; i < nval; i++)
			job.vscore[0][i] = ss_sigmoid(dot(job.w[0], dim, rows.x[nfit + i]));
		snprintf(m->info.params, sizeof(m->info.params), "C=%g", C);
		m->info.cost = C;
		best = 0;
	} else {
		if ((rc = ss_model_parallel(job.nthreads, grid_worker, &job)))
			goto free_all;
		for (g = 0; g < NGRID; g++) {
			ss_model_logf(o, "linear: C=%g validation PR-AUC %.4f", grid[g], job.ap[g]);
			if (job.ap[g] > job.ap[best] + 1e-9)
				best = g;
		}
		snprintf(m->info.params, sizeof(m->info.params), "C=%g", grid[best]);
		m->info.cost = grid[best];
	}
	memcpy(val_score, job.vscore[best], nval * sizeof(*val_score));
	if (o->prior) {
		const struct linear *pl = o->prior->priv;

		if (o->prior->kind != SS_MODEL_LINEAR || !pl || pl->dim != dim) {
			rc = ss_error_code(SS_EINVALID, "the prior model is not a linear model of "
					   "this feature space");
			goto free_all;
		}
		wp = pl->w;
	}
	if ((wp || o->rule_guard) && nval &&
	    (rc = adapt_choose(&ad, job.w[best], wp, dim, &rows, nfit, nval, vlabel, o->rule_guard,
			       val_score)))
		goto free_all;
	if (o->near > 0 && nval && nfit) {
		float *wa = malloc((dim + 1) * sizeof(*wa));

		if (!wa) {
			rc = SS_ENOMEM;
			goto free_all;
		}
		memcpy(wa, job.w[best], (dim + 1) * sizeof(*wa));
		adapt_apply(wa, wp, dim, &ad);
		rc = near_choose(m, wa, dim, &rows, nfit, nval, vlabel,
				 (uint32_t)(o->near < SS_NEAR_K_MAX ? o->near : SS_NEAR_K_MAX),
				 val_score, o, &ad);
		free(wa);
		if (rc)
			goto free_all;
	}
	if (refit && nval) {
		double C = o->C > 0 ? o->C : grid[best];

		if ((rc = fit_rows(lin->w, dim, &rows, nfit + nval, C, job.balance)))
			goto free_all;
		strncat(m->info.params, " refit", sizeof(m->info.params) - strlen(m->info.params) - 1);
	} else {
		memcpy(lin->w, job.w[best], (dim + 1) * sizeof(*lin->w));
	}
	if (job.balance)
		strncat(m->info.params, " balanced", sizeof(m->info.params) - strlen(m->info.params) - 1);
	adapt_apply(lin->w, wp, dim, &ad);
	if (wp || ad.boost > 0.0f) {
		size_t len = strlen(m->info.params);

		snprintf(m->info.params + len, sizeof(m->info.params) - len, " prior=%.2f", ad.alpha);
		len = strlen(m->info.params);
		if (ad.boost > 0.0f)
			snprintf(m->info.params + len, sizeof(m->info.params) - len,
				 " rule=%ld+%.3g", ad.rule, (double)ad.boost);
	}
	if (m->near_k) {
		size_t len = strlen(m->info.params);

		/* what it learnt from is what it remembers: the evidence when
		 * it won on validation, the precedents shown either way */
		if ((rc = near_build(&lin->near, m, lin->w, m->near_k, rows.x, rows.y, nfit + nval,
				     d, all)))
			goto free_all;
		snprintf(m->info.params + len, sizeof(m->info.params) - len, " near=%u*%.2g",
			 m->near_k, (double)m->near_beta);
	}
	if (o->adapt)
		*o->adapt = ad;
	rc = 0;

free_all:
	ss_nn_set_blas_threads(prev_blas);
	for (g = 0; g < NGRID; g++) {
		free(job.w[g]);
		free(job.vscore[g]);
	}
	rows_free(&rows);
	free(all);
	free(vlabel);
	return rc;
}

/* w . v + bias: the weights' own logit, without the neighbours */
static double weights_logit(const struct linear *lin, const ss_svec *v)
{
	double z = lin->w[lin->dim];

	for (size_t k = 0; k < v->n; k++)
		if (v->idx[k] < lin->dim)
			z += (double)lin->w[v->idx[k]] * v->val[k];
	return z;
}

static float score_vec(const ss_model *m, const struct linear *lin, const ss_svec *v)
{
	double z = weights_logit(lin, v);

	if (lin->near && m->near_beta > 0.0f)
		z += m->near_beta * ss_near_logit(lin->near, v, NULL, NULL);
	return ss_sigmoid((float)z);
}

int ss_linear_near_reason(const ss_model *m, const ss_svec *x, float *contrib, size_t *taken,
			  size_t *found)
{
	const struct linear *lin = m->kind == SS_MODEL_LINEAR ? m->priv : NULL;

	*contrib = 0.0f;
	*taken = *found = 0;
	if (!lin || !lin->near || !(m->near_beta > 0.0f))
		return 0;
	*contrib = (float)(m->near_beta * ss_near_logit(lin->near, x, taken, found));
	return *found > 0;
}

size_t ss_model_neighbours(ss_model_neighbour *out, size_t max, const ss_model *m,
			   const ss_svec *x)
{
	const struct linear *lin = m->kind == SS_MODEL_LINEAR ? m->priv : NULL;
	size_t i, n = lin && lin->near ? ss_near_list(lin->near, x, out, max) : 0;

	/* each one's score: its own features (not its neighbours), calibrated */
	for (i = 0; i < n; i++) {
		ss_svec v;

		ss_near_vector(&v, lin->near, out[i].item);
		out[i].score = ss_calib_apply(&m->calib, ss_sigmoid((float)weights_logit(lin, &v)));
	}
	return n;
}

static int linear_score(const ss_model *m, const ss_dataset *d, const size_t *idx, size_t n,
			float *out)
{
	const struct linear *lin = m->priv;
	uint32_t *remap;
	ss_svec v;
	size_t i;
	int rc;

	if ((rc = ss_dataset_remap(&remap, &m->feat, d)))
		return rc;
	ss_svec_init(&v);
	for (i = 0; i < n; i++) {
		if ((rc = ss_dataset_vector(&v, &m->feat, remap, d, idx[i])))
			break;
		out[i] = score_vec(m, lin, &v);
	}
	ss_svec_release(&v);
	free(remap);
	return rc;
}

static int linear_score_commit(const ss_model *m, const ss_commit *c, const ss_history *hist,
                               float *out)
{
	ss_svec v;
	int rc;

	ss_svec_init(&v);
	rc = ss_featurizer_vector(&v, &m->feat, c, hist, NULL);
	if (!rc)
		*out = score_vec(m, m->priv, &v);
	ss_svec_release(&v);
	return rc;
}

static int linear_explain(const ss_model *m, const ss_svec *x, float *contrib)
{
	const struct linear *lin = m->priv;
	size_t k;

	for (k = 0; k < x->n; k++)
		contrib[k] = x->idx[k] < lin->dim ? lin->w[x->idx[k]] * x->val[k] : 0.0f;
	return 0;
}

static void linear_save(const ss_model *m, ss_wbuf *w)
{
	const struct linear *lin = m->priv;

	ss_w_u64(w, lin->dim);
	ss_w_u64(w, lin->dim + 1);
	ss_w_f32s(w, lin->w, lin->dim + 1);
	if (m->near_k)
		ss_near_save(lin->near, w);
}

static int linear_load(ss_model *m, ss_rbuf *r)
{
	struct linear *lin = calloc(1, sizeof(*lin));
	uint64_t dim, n;
	size_t i;

	if (!lin)
		return SS_ENOMEM;
	m->priv = lin;
	dim = ss_r_u64(r);
	n = ss_r_u64(r);
	if (r->err)
		return SS_EINVALID;
	if (dim != ss_featurizer_dim(&m->feat) || n != dim + 1)
		return ss_error_code(SS_EINVALID, "weights do not match the feature space");
	lin->dim = (size_t)dim;
	lin->w = malloc((size_t)n * sizeof(*lin->w));
	if (!lin->w)
		return SS_ENOMEM;
	ss_r_f32s(r, lin->w, (size_t)n);
	if (r->err)
		return r->err;
	if ((i = ss_model_nonfinite(lin->w, (size_t)n)) < n)
		return ss_model_nonfinite_error("linear weight", i, lin->w[i]);
	if (m->near_k) {
		uint32_t traces[SS_NEAR_SKIP_MAX];
		size_t ntraces = ss_featurizer_tag_traces(&m->feat, traces, SS_NEAR_SKIP_MAX);

		return ss_near_load(&lin->near, lin->dim, m->near_k, lin->w, traces, ntraces, r);
	}
	return 0;
}

static size_t linear_nweights(const ss_model *m)
{
	const struct linear *lin = m->priv;

	return lin ? lin->dim + 1 : 0;
}

static void linear_free(ss_model *m)
{
	struct linear *lin = m->priv;

	if (!lin)
		return;
	free(lin->w);
	ss_near_free(lin->near);
	free(lin);
	m->priv = NULL;
}

const ss_model_ops ss_linear_ops = {
	.kind = SS_MODEL_LINEAR,
	.name = "linear",
	.uses_features = 1,
	.train = linear_train,
	.score = linear_score,
	.score_commit = linear_score_commit,
	.explain = linear_explain,
	.save = linear_save,
	.load = linear_load,
	.nweights = linear_nweights,
	.free = linear_free,
};
