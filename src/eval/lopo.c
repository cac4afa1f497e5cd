/*
 * lopo.c - leave one project out (lopo.h).
 */
#include "eval/lopo.h"

#include <stdlib.h>
#include <string.h>

#include "models/metrics.h"
#include "util/error.h"
#include "util/strbuf.h"

static double f1_of(size_t tp, size_t sel, size_t pos)
{
	return sel + pos ? 2.0 * (double)tp / (double)(sel + pos) : 0.0;
}

/* Scores of m on idx[n] against their labels; keep: the scores and
 * labels are kept in *ks, *ky (else freed). */
static int score(ss_lopo_score *out, const ss_model *m, const ss_dataset *d, const size_t *idx,
		 size_t n, float **ks, uint8_t **ky)
{
	float *s = malloc((n ? n : 1) * sizeof(*s));
	uint8_t *y = malloc(n ? n : 1);
	ss_metrics mt;
	size_t i;
	int rc;

	if (!s || !y) {
		rc = SS_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		y[i] = ss_dataset_example(d, idx[i])->label;
	if ((rc = ss_model_score(s, m, d, idx, n)) ||
	    (rc = ss_metrics_compute(&mt, s, y, n, ss_model_threshold(m))))
		goto out;
	out->ap = mt.pr_auc;
	out->f1 = mt.f1;
	out->precision = mt.precision;
	out->recall = mt.recall;
	if (ks) {
		*ks = s;
		*ky = y;
		s = NULL;
		y = NULL;
	}
out:
	free(s);
	free(y);
	return rc;
}

void ss_lopo_row_release(ss_lopo_row *r)
{
	free(r->gscore);
	free(r->glabel);
	r->gscore = NULL;
	r->glabel = NULL;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

float ss_lopo_threshold(const ss_lopo_row *rows, size_t n, size_t skip)
{
	float t[256];
	size_t i, m = 0;

	for (i = 0; i < n && m < sizeof(t) / sizeof(*t); i++)
		if (i != skip && rows[i].gscore)
			t[m++] = rows[i].best_t;
	if (!m)
		return 0.5f;
	qsort(t, m, sizeof(*t), cmp_float);
	return m % 2 ? t[m / 2] : 0.5f * (t[m / 2 - 1] + t[m / 2]);
}

/* The score of r selecting k commits (the k-th highest), k >= 1. */
static float kth_score(const ss_lopo_row *r, size_t k)
{
	float *s, t;

	if (!r->gscore || !r->ntest || !(s = malloc(r->ntest * sizeof(*s))))
		return 0.5f;
	memcpy(s, r->gscore, r->ntest * sizeof(*s));
	qsort(s, r->ntest, sizeof(*s), cmp_float);
	if (k < 1)
		k = 1;
	if (k > r->ntest)
		k = r->ntest;
	t = s[r->ntest - k];
	free(s);
	return t;
}

float ss_lopo_share(const ss_lopo_row *rows, size_t n, size_t skip)
{
	float q[256];
	size_t j, k, m = 0, sel;

	for (j = 0; j < n && m < sizeof(q) / sizeof(*q); j++) {
		if (j == skip || !rows[j].gscore || !rows[j].ntest)
			continue;
		for (k = 0, sel = 0; k < rows[j].ntest; k++)
			sel += rows[j].gscore[k] >= rows[j].best_t;
		q[m++] = (float)sel / (float)rows[j].ntest;
	}
	if (!m)
		return 0.0f;
	qsort(q, m, sizeof(*q), cmp_float);
	return m % 2 ? q[m / 2] : 0.5f * (q[m / 2 - 1] + q[m / 2]);
}

size_t ss_lopo_share_count(float share, size_t n)
{
	size_t k = (size_t)(share * (float)n + 0.5f);

	return n && !k ? 1 : k > n ? n : k;
}

float ss_lopo_share_threshold(const ss_lopo_row *rows, size_t n, size_t i)
{
	return kth_score(&rows[i], ss_lopo_share_count(ss_lopo_share(rows, n, i), rows[i].ntest));
}

float ss_lopo_expected_threshold(const ss_lopo_row *r)
{
	double sum = 0.0;

	for (size_t k = 0; r->gscore && k < r->ntest; k++)
		sum += r->gscore[k];
	return kth_score(r, (size_t)(sum + 0.5));
}

void ss_lopo_general_at(const ss_lopo_row *r, float t, double *f1, double *precision,
			double *recall)
{
	size_t i, tp = 0, sel = 0;

	for (i = 0; r->gscore && i < r->ntest; i++) {
		sel += r->gscore[i] >= t;
		tp += r->gscore[i] >= t && r->glabel[i];
	}
	*f1 = f1_of(tp, sel, r->npos_test);
	*precision = sel ? (double)tp / (double)sel : 0.0;
	*recall = r->npos_test ? (double)tp / (double)r->npos_test : 0.0;
}


/*
 * The best single rule of tr[ntr] (a feature of f set, or the keyword:
 * f1 on tr), its F1 on te[nte] into row.  A rule must hold on at least 1%
 * of tr, as the guard's do.
 */
static int best_rule(ss_lopo_row *row, const ss_featurizer *f, const ss_dataset *d,
		     const size_t *tr, size_t ntr, const size_t *te, size_t nte)
{
	size_t dim = ss_featurizer_dim(f), i, k, pos = 0, best = SIZE_MAX, tp, sel, tpos;
	uint32_t *ntp = calloc(dim + 1, sizeof(*ntp)), *nsel = calloc(dim + 1, sizeof(*nsel));
	uint32_t *remap = NULL;
	double bf1 = -1.0, f1;
	ss_strbuf sb = SS_STRBUF_INIT;
	ss_svec v;
	int rc = 0, hit;

	ss_svec_init(&v);
	if (!ntp || !nsel || (rc = ss_dataset_remap(&remap, f, d))) {
		rc = rc ? rc : SS_ENOMEM;
		goto out;
	}
	/* slot dim: the keyword */
	for (i = 0; i < ntr; i++) {
		const ss_example *e = ss_dataset_example(d, tr[i]);

		if ((rc = ss_dataset_vector(&v, f, remap, d, tr[i])))
			goto out;
		pos += e->label;
		for (k = 0; k < v.n; k++)
			if (v.val[k] != 0.0f) {
				nsel[v.idx[k]]++;
				ntp[v.idx[k]] += e->label;
			}
		nsel[dim] += e->keyword;
		ntp[dim] += e->keyword && e->label;
	}
	for (k = 0; k <= dim; k++) {
		if ((double)nsel[k] < 0.01 * (double)ntr)
			continue;
		f1 = f1_of(ntp[k], nsel[k], pos);
		if (f1 > bf1 + 1e-12) {
			bf1 = f1;
			best = k;
		}
	}
	tp = sel = tpos = 0;
	for (i = 0; i < nte; i++) {
		const ss_example *e = ss_dataset_example(d, te[i]);

		if (best == dim) {
			hit = e->keyword;
		} else {
			if ((rc = ss_dataset_vector(&v, f, remap, d, te[i])))
				goto out;
			for (hit = 0, k = 0; k < v.n; k++)
				if (v.idx[k] == best && v.val[k] != 0.0f)
					hit = 1;
		}
		sel += hit;
		tp += hit && e->label;
		tpos += e->label;
	}
	row->rule_f1 = f1_of(tp, sel, tpos);
	if (best == dim)
		snprintf(row->rule, sizeof(row->rule), "says bug/fix");
	else if (best != SIZE_MAX && !(rc = ss_featurizer_name_ix(f, (uint32_t)best, NULL, &sb)))
		snprintf(row->rule, sizeof(row->rule), "%s", sb.len ? sb.buf : "a hashed name");
out:
	ss_strbuf_release(&sb);
	ss_svec_release(&v);
	free(remap);
	free(ntp);
	free(nsel);
	return rc;
}

/* qsort_r's comparison: by author time, then id (reproducible). */
static int cmp_time(const void *a, const void *b, void *data)
{
	const ss_example *x = ss_dataset_example(data, *(const size_t *)a);
	const ss_example *y = ss_dataset_example(data, *(const size_t *)b);

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return strcmp(x->id, y->id);
}

int ss_lopo_run(ss_lopo_row *out, const ss_dataset *d, const ss_lopo_project *p, size_t np,
		size_t which, double test_share, const ss_train_options *o)
{
	ss_train_options to = *o;
	ss_model *general = NULL, *own = NULL, *adapted = NULL, *near = NULL;
	size_t *others = NULL, *mine = NULL, nothers = 0, n = p[which].n, ntr, nte, i, j;
	unsigned k;
	int rc;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < np; i++)
		nothers += i == which ? 0 : p[i].n * (p[i].weight ? p[i].weight : 1);
	others = malloc((nothers ? nothers : 1) * sizeof(*others));
	mine = malloc((n ? n : 1) * sizeof(*mine));
	if (!others || !mine) {
		rc = SS_ENOMEM;
		goto out;
	}
	for (nothers = 0, i = 0; i < np; i++)
		for (j = 0; i != which && j < p[i].n; j++)
			for (k = 0; k < (p[i].weight ? p[i].weight : 1); k++)
				others[nothers++] = p[i].idx[j];
	memcpy(mine, p[which].idx, n * sizeof(*mine));
	qsort_r(mine, n, sizeof(*mine), cmp_time, (void *)d);
	nte = (size_t)((double)n * test_share + 0.5);
	ntr = n - nte;
	out->ntrain = ntr;
	out->ntest = nte;
	for (i = ntr; i < n; i++)
		out->npos_test += ss_dataset_example(d, mine[i])->label;
	out->base = nte ? (double)out->npos_test / (double)nte : 0.0;
	if (!ntr || !nte || !out->npos_test) {
		rc = ss_error_code(SS_EINVALID, "project '%s': too few commits or no positive one "
				   "to hold out", p[which].name);
		goto out;
	}
	{
		size_t tp = 0, sel = 0;

		for (i = ntr; i < n; i++) {
			const ss_example *e = ss_dataset_example(d, mine[i]);

			sel += e->keyword;
			tp += e->keyword && e->label;
		}
		out->keyword_f1 = f1_of(tp, sel, out->npos_test);
	}
	to.prior = NULL;
	to.rule_guard = 0;
	to.adapt = NULL;
	if ((rc = ss_model_train(&general, SS_MODEL_LINEAR, d, others, nothers, &to)) ||
	    (rc = score(&out->general, general, d, mine + ntr, nte, &out->gscore, &out->glabel)) ||
	    (rc = ss_metrics_threshold(&out->best_t, out->gscore, out->glabel, nte, SS_THRESH_F1,
				       0.0, NULL, NULL, NULL)) ||
	    (rc = ss_model_train(&own, SS_MODEL_LINEAR, d, mine, ntr, &to)) ||
	    (rc = score(&out->project, own, d, mine + ntr, nte, NULL, NULL)) ||
	    (rc = best_rule(out, ss_model_featurizer(own), d, mine, ntr, mine + ntr, nte)))
		goto out;
	to.prior = general;
	to.rule_guard = 1;
	to.adapt = &out->adapt;
	if ((rc = ss_model_train(&adapted, SS_MODEL_LINEAR, d, mine, ntr, &to)) ||
	    (rc = score(&out->adapted, adapted, d, mine + ntr, nte, NULL, NULL)))
		goto out;
	to.near = SS_NEAR_K;
	to.adapt = &out->near_adapt;
	if ((rc = ss_model_train(&near, SS_MODEL_LINEAR, d, mine, ntr, &to)) ||
	    (rc = score(&out->near, near, d, mine + ntr, nte, NULL, NULL)))
		goto out;
out:
	if (rc)
		ss_lopo_row_release(out);
	ss_model_free(general);
	ss_model_free(own);
	ss_model_free(adapted);
	ss_model_free(near);
	free(others);
	free(mine);
	return rc;
}
