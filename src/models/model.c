/*
 * model.c - the kind-independent half of every model: time-ordered
 * validation slice, vocabulary, threshold, training summary, scoring
 * dispatch, calibration, explanations and the model file envelope (see
 * model.h).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <zlib.h>

#include "models/impl.h"
#include "util/atomic.h"
#include "util/error.h"
#include "util/grow.h"

static const char magic[8] = { 'S', 'S', 'M', 'O', 'D', 'E', 'L', 0x1a };
#define HEADER_SIZE 20 /* magic, version, payload length */
#define MAX_MODEL_BYTES ((size_t)1 << 31)

const ss_model_ops *ss_model_ops_of(ss_model_kind kind)
{
	switch (kind) {
	case SS_MODEL_KEYWORD:
		return &ss_keyword_ops;
	case SS_MODEL_TAG:
		return &ss_tag_ops;
	case SS_MODEL_LINEAR:
		return &ss_linear_ops;
	case SS_MODEL_MLP:
		return &ss_mlp_ops;
	case SS_MODEL_PATCHNET:
		return &ss_patchnet_ops;
	case SS_MODEL_PATCHNET_FEAT:
		return &ss_patchnet_feat_ops;
	}
	return NULL;
}

const char *ss_model_kind_name(ss_model_kind kind)
{
	static const char *const names[] = {
		[SS_MODEL_KEYWORD] = "keyword", [SS_MODEL_LINEAR] = "linear",
		[SS_MODEL_MLP] = "mlp", [SS_MODEL_PATCHNET] = "patchnet",
		[SS_MODEL_TAG] = "tag", [SS_MODEL_PATCHNET_FEAT] = "patchnet-feat",
	};

	if ((int)kind < 1 || kind > SS_MODEL_KIND_MAX)
		return "unknown";
	return names[kind];
}

int ss_model_kind_parse(ss_model_kind *out, const char *name)
{
	int k;

	for (k = 1; k <= SS_MODEL_KIND_MAX; k++)
		if (!strcmp(name, ss_model_kind_name((ss_model_kind)k))) {
			if (!ss_model_ops_of((ss_model_kind)k))
				return ss_error_code(SS_ENOTFOUND,
						     "model kind '%s' is not built into this stablesel", name);
			*out = (ss_model_kind)k;
			return 0;
		}
	return ss_error_code(SS_ENOTFOUND, "unknown model kind '%s' (keyword, linear, mlp, patchnet, "
			     "patchnet-feat, tag)",
			     name);
}

int ss_model_kinds_parse(ss_model_kind *out, size_t max, size_t *n, const char *list)
{
	char name[64];
	const char *p = list;

	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len >= sizeof(name))
			return ss_error_code(SS_EINVALID, "unknown model '%.*s'", (int)len, p);
		memcpy(name, p, len);
		name[len] = '\0';
		if (*n == max)
			return ss_error_code(SS_EINVALID, "too many models");
		if (ss_model_kind_parse(&out[*n], name))
			return SS_EINVALID;
		++*n;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!*n)
		return ss_error_code(SS_EINVALID, "--models names no model");
	return 0;
}

float ss_sigmoid(float z)
{
	if (z >= 0)
		return 1.0f / (1.0f + expf(-z));
	return expf(z) / (1.0f + expf(z));
}

size_t ss_model_nonfinite(const float *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return i;
	return n;
}

int ss_model_nonfinite_error(const char *what, size_t i, float v)
{
	return ss_error_code(SS_EINVALID, "%s %zu is %s", what, i, isnan(v) ? "nan" : "infinite");
}

void ss_model_logf(const ss_train_options *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!o || !o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	o->log(o->log_ud, buf);
}

struct par {
	int (*fn)(void *arg, int t);
	void *arg;
	int t, rc;
};

static void *par_main(void *p)
{
	struct par *w = p;

	w->rc = w->fn(w->arg, w->t);
	return NULL;
}

int ss_model_parallel(int nthreads, int (*fn)(void *arg, int t), void *arg)
{
	struct par w[64];
	pthread_t th[64];
	int started[64] = { 0 };
	int t, rc = 0;

	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > 64)
		nthreads = 64;
	for (t = 1; t < nthreads; t++) {
		w[t] = (struct par){ fn, arg, t, 0 };
		started[t] = !pthread_create(&th[t], NULL, par_main, &w[t]);
		/* a thread that cannot start runs its share here */
		if (!started[t])
			w[t].rc = fn(arg, t);
	}
	rc = fn(arg, 0);
	for (t = 1; t < nthreads; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		if (!rc)
			rc = w[t].rc;
	}
	return rc;
}

/* ---- training -------------------------------------------------------- */

size_t ss_model_val_count(size_t n, double val_share)
{
	size_t nval = (size_t)floor((double)n * val_share + 0.5);

	return n && nval >= n ? n - 1 : nval;
}

/* idx[0..n) of d copied into a malloc'd array, oldest first (ties by
 * index): the order training sees; NULL when out of memory. */
static size_t *order_by_time(const ss_dataset *d, const size_t *idx, size_t n)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));

	if (!order)
		return NULL;
	memcpy(order, idx, n * sizeof(*order));
	ss_dataset_sort_by_time(order, n, d);
	return order;
}

static int new_model(ss_model **out, ss_model_kind kind)
{
	const ss_model_ops *ops = ss_model_ops_of(kind);
	ss_model *m;

	*out = NULL;
	if (!ops)
		return ss_error_code(SS_ENOTFOUND, "model kind %d is unknown to this stablesel", (int)kind);
	m = calloc(1, sizeof(*m));
	if (!m)
		return ss_error_code(SS_ENOMEM, "out of memory for a %s model", ss_model_kind_name(kind));
	m->kind = kind;
	m->ops = ops;
	m->threshold = 0.5f;
	m->calib = (ss_calib)SS_CALIB_INIT;
	ss_bands_from_threshold(&m->bands, m->threshold);
	*out = m;
	return 0;
}

int ss_model_train(ss_model **out, ss_model_kind kind, const ss_dataset *d,
		   const size_t *idx, size_t n, const ss_train_options *o)
{
	size_t *order = NULL, nval, nfit, i;
	uint8_t *vlabel = NULL;
	float *vscore = NULL;
	ss_model *m;
	int rc;

	*out = NULL;
	if ((rc = new_model(&m, kind)))
		return rc;
	if (!n) {
		rc = ss_error_code(SS_EINVALID, "no training commits");
		goto free_all;
	}
	order = order_by_time(d, idx, n);
	if (!order) {
		rc = SS_ENOMEM;
		goto free_all;
	}

	nval = ss_model_val_count(n, o->val_share);
	nfit = n - nval;
	if (m->ops->uses_features) {
		if (o->prior && o->prior->ops->uses_features) {
			/* the prior's feature space, so that weights mix */
			if ((rc = ss_featurizer_copy(&m->feat, &o->prior->feat)))
				goto free_all;
			m->feat.opts.groups &= ~o->groups_off;
		} else {
			if ((rc = ss_featurizer_init(&m->feat, ss_dataset_options(d))))
				goto free_all;
			m->feat.opts.groups &= ~o->groups_off;
			/* the vocabulary comes from training commits only (fit and val) */
			if ((rc = ss_dataset_vocab(&m->feat, d, order, n)))
				goto free_all;
		}
	}
	vscore = calloc(nval ? nval : 1, sizeof(*vscore));
	vlabel = calloc(nval ? nval : 1, sizeof(*vlabel));
	if (!vscore || !vlabel) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	{
		/* evidence newer than the validation slice (the ranked
		 * cycle's settled commits): learnt from with the fit part,
		 * never validated on */
		size_t *fit = order, nf = nfit + o->nextra;

		if (o->nextra) {
			if (!(fit = malloc(nf * sizeof(*fit)))) {
				rc = SS_ENOMEM;
				goto free_all;
			}
			memcpy(fit, order, nfit * sizeof(*fit));
			memcpy(fit + nfit, o->extra, o->nextra * sizeof(*fit));
		}
		rc = m->ops->train(m, d, fit, nf, order + nfit, nval, o, vscore);
		if (fit != order)
			free(fit);
		if (rc)
			goto free_all;
	}

	m->info.n = n + o->nextra;
	for (i = 0; i < o->nextra; i++)
		m->info.npos += ss_dataset_example(d, o->extra[i])->label;
	m->info.first = ss_dataset_example(d, order[0])->time;
	m->info.last = ss_dataset_example(d, order[n - 1])->time;
	for (i = 0; i < n; i++)
		m->info.npos += ss_dataset_example(d, order[i])->label;
	m->info.nval = nval;
	for (i = 0; i < nval; i++) {
		vlabel[i] = ss_dataset_example(d, order[nfit + i])->label;
		m->info.nval_pos += vlabel[i];
	}
	m->info.trained_at = (int64_t)time(NULL);
	m->info.rule = o->rule;
	m->info.target = o->target;
	if (m->kind == SS_MODEL_KEYWORD || m->kind == SS_MODEL_TAG) {
		m->threshold = 0.5f;
	} else {
		double raw_ece;

		/* the threshold is chosen on raw scores and mapped: a strictly
		 * increasing map keeps every pick (calib.h) */
		if ((rc = ss_metrics_threshold(&m->threshold, vscore, vlabel, nval, o->rule,
					       o->target, NULL, NULL, NULL)) ||
		    (rc = ss_calib_fit(&m->calib, vscore, vlabel, nval)))
			goto free_all;
		raw_ece = ss_metrics_ece(vscore, vlabel, nval);
		m->threshold = ss_calib_apply(&m->calib, m->threshold);
		for (i = 0; i < nval; i++)
			vscore[i] = ss_calib_apply(&m->calib, vscore[i]);
		if (m->calib.method == SS_CALIB_PLATT)
			ss_model_logf(o, "%s: calibration sigmoid(%.4f logit(s) %+.4f); validation "
				      "ECE %.4f raw, %.4f calibrated", ss_model_kind_name(kind),
				      m->calib.a, m->calib.b, raw_ece,
				      ss_metrics_ece(vscore, vlabel, nval));
	}
	/* on the calibrated validation scores, as they will be read */
	if ((rc = ss_bands_choose(&m->bands, vscore, vlabel, nval, m->threshold,
				  m->calib.method != SS_CALIB_NONE)))
		goto free_all;
	ss_model_logf(o, "%s: bands yes >= %.4f, likely >= %.4f, unsure >= %.4f", ss_model_kind_name(kind),
		      m->bands.yes, m->bands.likely, m->bands.unsure);
	if (nval) {
		ss_metrics vm;

		if ((rc = ss_metrics_compute(&vm, vscore, vlabel, nval, m->threshold)))
			goto free_all;
		m->info.val_f1 = vm.f1;
		m->info.val_precision = vm.precision;
		m->info.val_recall = vm.recall;
		m->info.val_pr_auc = vm.pr_auc;
		m->info.val_roc_auc = vm.roc_auc;
	}
	ss_model_logf(o, "%s: threshold %.4f (validation F1 %.3f, P %.3f, R %.3f, PR-AUC %.3f)",
		      ss_model_kind_name(kind), (double)m->threshold, m->info.val_f1,
		      m->info.val_precision, m->info.val_recall, m->info.val_pr_auc);
	*out = m;
	m = NULL;

free_all:
	free(vscore);
	free(vlabel);
	free(order);
	ss_model_free(m);
	return rc;
}

/*
 * The rows a feature model trains on, for an experiment outside the
 * project (bench/gbdt-trial): the vocabulary from the training part only,
 * as ss_model_train() builds it, then each example's vector.
 */
int ss_model_write_rows(const ss_dataset *d, const size_t *tr, size_t ntr, const size_t *te,
			size_t nte, FILE *svm, FILE *meta, FILE *dense)
{
	ss_featurizer f;
	uint32_t *remap = NULL;
	size_t *order[2] = { NULL, NULL }, i, k, p;
	ss_svec v;
	int rc;

	ss_svec_init(&v);
	if ((rc = ss_featurizer_init(&f, ss_dataset_options(d))))
		return rc;
	order[0] = order_by_time(d, tr, ntr);
	order[1] = order_by_time(d, te, nte);
	if (!order[0] || !order[1]) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for the rows");
		goto done;
	}
	if ((rc = ss_dataset_vocab(&f, d, order[0], ntr)) || (rc = ss_dataset_remap(&remap, &f, d)))
		goto done;
	for (i = 0; i < SS_NDENSE; i++)
		fprintf(dense, "%zu\t%s\t%u\n", i, ss_dense_features[i].name,
			(unsigned)ss_dense_features[i].group);
	fprintf(meta, "sha\tpart\tlabel\ttagged\ttime\n");
	for (p = 0; p < 2; p++) {
		size_t n = p ? nte : ntr;

		for (i = 0; i < n; i++) {
			const ss_example *e = ss_dataset_example(d, order[p][i]);

			if ((rc = ss_dataset_vector(&v, &f, remap, d, order[p][i])))
				goto done;
			fprintf(svm, "%d", e->label);
			for (k = 0; k < v.n; k++)
				fprintf(svm, " %u:%.7g", v.idx[k], (double)v.val[k]);
			fputc('\n', svm);
			fprintf(meta, "%s\t%zu\t%d\t%d\t%lld\n", e->id, p, e->label, e->tagged,
				(long long)e->time);
		}
	}
done:
	ss_svec_release(&v);
	free(remap);
	free(order[0]);
	free(order[1]);
	ss_featurizer_release(&f);
	return rc;
}

void ss_model_free(ss_model *m)
{
	if (!m)
		return;
	if (m->ops && m->ops->free)
		m->ops->free(m);
	if (m->ops && m->ops->uses_features)
		ss_featurizer_release(&m->feat);
	free(m);
}

ss_model_kind ss_model_get_kind(const ss_model *m)
{
	return m->kind;
}

float ss_model_threshold(const ss_model *m)
{
	return m->threshold;
}

void ss_model_set_threshold(ss_model *m, float t)
{
	m->threshold = t;
	ss_bands_set_likely(&m->bands, t);
}

float ss_model_pick_share(const ss_model *m)
{
	return m->pick_share;
}

void ss_model_set_pick_share(ss_model *m, float share)
{
	m->pick_share = share;
}

const ss_bands *ss_model_bands(const ss_model *m)
{
	return &m->bands;
}

void ss_model_set_bands(ss_model *m, const ss_bands *b)
{
	m->bands = *b;
}

ss_model_info *ss_model_get_info(ss_model *m)
{
	return &m->info;
}

const ss_calib *ss_model_calibration(const ss_model *m)
{
	return &m->calib;
}

void ss_model_set_calibration(ss_model *m, const ss_calib *c)
{
	m->calib = *c;
}

const ss_model_info *ss_model_info_of(const ss_model *m)
{
	return &m->info;
}

const ss_featurizer *ss_model_featurizer(const ss_model *m)
{
	return m->ops->uses_features ? &m->feat : NULL;
}

size_t ss_model_nweights(const ss_model *m)
{
	return m->ops->nweights ? m->ops->nweights(m) : 0;
}

int ss_model_prepare_dataset(ss_model_kind kind, ss_dataset *d)
{
	const ss_model_ops *ops = ss_model_ops_of(kind);

	if (!ops)
		return ss_error_code(SS_ENOTFOUND, "model kind %d is unknown to this stablesel", (int)kind);
	return ops->prepare_dataset ? ops->prepare_dataset(d) : 0;
}

int ss_model_score(float *out, const ss_model *m, const ss_dataset *d, const size_t *idx,
		   size_t n)
{
	size_t i;
	int rc = m->ops->score(m, d, idx, n, out);

	for (i = 0; !rc && m->calib.method != SS_CALIB_NONE && i < n; i++)
		out[i] = ss_calib_apply(&m->calib, out[i]);
	return rc;
}

int ss_model_score_commit(float *out, const ss_model *m, const ss_commit *c,
			  const ss_history *hist)
{
	int rc = m->ops->score_commit(m, c, hist, out);

	if (!rc)
		*out = ss_calib_apply(&m->calib, *out);
	return rc;
}

/* ---- explanations ---------------------------------------------------- */

static int cmp_contrib(const void *a, const void *b)
{
	const ss_contrib *x = a, *y = b;
	float ax = fabsf(x->contrib), ay = fabsf(y->contrib);

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_contrib_pos(const void *a, const void *b)
{
	const ss_contrib *x = a, *y = b;

	if (x->contrib != y->contrib)
		return x->contrib > y->contrib ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int ss_model_explain(ss_contrib *out, size_t max, size_t *n, const ss_model *m,
		     const ss_commit *c, const ss_history *hist, int positive_only)
{
	ss_strbuf names = SS_STRBUF_INIT, name = SS_STRBUF_INIT;
	ss_feat_names *ix = NULL;
	ss_contrib *all = NULL;
	float *contrib = NULL;
	ss_svec x;
	size_t i, k = 0;
	int rc = 0;

	*n = 0;
	if (!m->ops->uses_features || !m->ops->explain)
		return 0;
	ss_svec_init(&x);
	if ((rc = ss_featurizer_vector(&x, &m->feat, c, hist, &names)))
		goto free_all;
	contrib = malloc((x.n ? x.n : 1) * sizeof(*contrib));
	all = malloc((x.n + 1) * sizeof(*all));  /* the features, the neighbours */
	if (!contrib || !all) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	if ((rc = m->ops->explain(m, &x, contrib)))
		goto free_all;
	for (i = 0; i < x.n; i++) {
		if (positive_only && !(contrib[i] > 0))
			continue;
		all[k].index = x.idx[i];
		all[k].value = x.val[i];
		all[k].contrib = contrib[i];
		all[k].name[0] = '\0';
		k++;
	}
	{
		/* the nearest past decisions: one reason more, named "n:T/F"
		 * (T of the F nearest taken), its index past the features */
		size_t taken, found;
		float cn;

		if (ss_linear_near_reason(m, &x, &cn, &taken, &found) &&
		    !(positive_only && !(cn > 0))) {
			all[k].index = (uint32_t)ss_featurizer_dim(&m->feat);
			all[k].value = (float)taken;
			all[k].contrib = cn;
			snprintf(all[k].name, sizeof(all[k].name), "n:%zu/%zu", taken, found);
			k++;
		}
	}
	qsort(all, k, sizeof(*all), positive_only ? cmp_contrib_pos : cmp_contrib);
	if (k > max)
		k = max;
	if (k && (rc = ss_feat_names_new(&ix, &m->feat, names.buf)))
		goto free_all;
	for (i = 0; i < k; i++) {
		out[i] = all[i];
		if (all[i].index >= ss_featurizer_dim(&m->feat))
			continue;  /* named already: the neighbours */
		ss_strbuf_reset(&name);
		if ((rc = ss_featurizer_name_ix(&m->feat, all[i].index, ix, &name)))
			goto free_all;
		snprintf(out[i].name, sizeof(out[i].name), "%s", name.buf);
	}
	*n = k;

free_all:
	ss_feat_names_free(ix);
	free(all);
	free(contrib);
	ss_svec_release(&x);
	ss_strbuf_release(&names);
	ss_strbuf_release(&name);
	return rc;
}

/* ---- files ----------------------------------------------------------- */

static void save_info(ss_wbuf *w, const ss_model_info *in)
{
	ss_w_str(w, in->source);
	ss_w_str(w, in->labels);
	ss_w_i64(w, in->first);
	ss_w_i64(w, in->last);
	ss_w_u64(w, in->n);
	ss_w_u64(w, in->npos);
	ss_w_u64(w, in->nval);
	ss_w_u64(w, in->nval_pos);
	ss_w_i64(w, in->trained_at);
	ss_w_u32(w, in->masked);
	ss_w_u32(w, in->rule);
	ss_w_f64(w, in->target);
	ss_w_f64(w, in->val_f1);
	ss_w_f64(w, in->val_precision);
	ss_w_f64(w, in->val_recall);
	ss_w_f64(w, in->val_pr_auc);
	ss_w_f64(w, in->val_roc_auc);
	ss_w_str(w, in->params);
}

static void load_info(ss_rbuf *r, ss_model_info *in)
{
	ss_r_str(r, in->source, sizeof(in->source), 1 << 16);
	ss_r_str(r, in->labels, sizeof(in->labels), 1 << 16);
	in->first = ss_r_i64(r);
	in->last = ss_r_i64(r);
	in->n = ss_r_u64(r);
	in->npos = ss_r_u64(r);
	in->nval = ss_r_u64(r);
	in->nval_pos = ss_r_u64(r);
	in->trained_at = ss_r_i64(r);
	in->masked = ss_r_u32(r);
	in->rule = ss_r_u32(r);
	in->target = ss_r_f64(r);
	in->val_f1 = ss_r_f64(r);
	in->val_precision = ss_r_f64(r);
	in->val_recall = ss_r_f64(r);
	in->val_pr_auc = ss_r_f64(r);
	in->val_roc_auc = ss_r_f64(r);
	ss_r_str(r, in->params, sizeof(in->params), 1 << 16);
}

static int encode(ss_strbuf *sb, const ss_model *m)
{
	ss_wbuf w = { sb, 0 };
	size_t i, plen;
	uint32_t crc;

	ss_strbuf_add(sb, magic, sizeof(magic));
	ss_w_u32(&w, SS_MODEL_FORMAT_VERSION);
	ss_w_u64(&w, 0); /* payload length, patched below */
	ss_w_u32(&w, (uint32_t)m->kind);
	ss_w_u32(&w, (uint32_t)m->ops->uses_features);
	if (m->ops->uses_features) {
		const ss_feat_options *fo = &m->feat.opts;
		size_t nv = ss_strmap_count(m->feat.vocab);

		ss_w_u32(&w, fo->vocab_size);
		ss_w_u32(&w, fo->min_df);
		ss_w_u32(&w, fo->hash_bits);
		ss_w_u32(&w, fo->groups);
		ss_w_u32(&w, SS_NDENSE);
		ss_w_u32(&w, (uint32_t)nv);
		for (i = 0; i < nv; i++)
			ss_w_str(&w, ss_strmap_str(m->feat.vocab, (uint32_t)i));
	}
	save_info(&w, &m->info);
	ss_w_f32(&w, m->threshold);
	ss_w_u32(&w, m->calib.method);
	ss_w_f64(&w, m->calib.a);
	ss_w_f64(&w, m->calib.b);
	ss_w_f64(&w, m->bands.yes);
	ss_w_f64(&w, m->bands.likely);
	ss_w_f64(&w, m->bands.unsure);
	ss_w_u64(&w, m->info.nlabelled);
	ss_w_f32(&w, m->pick_share);
	ss_w_f32(&w, m->near_beta);
	ss_w_u32(&w, m->near_k);
	ss_w_f64(&w, m->info.cost);
	ss_w_i64(&w, m->info.cut_since);
	ss_w_u32(&w, m->info.ncut);
	for (i = 0; i < m->info.ncut && i < SS_MODEL_CUT_MAX; i++)
		ss_w_str(&w, m->info.cut[i]);
	m->ops->save(m, &w);
	if (w.err || sb->len < HEADER_SIZE)
		return SS_ENOMEM;
	plen = sb->len - HEADER_SIZE;
	for (i = 0; i < 8; i++)
		sb->buf[12 + i] = (char)((uint64_t)plen >> (8 * i));
	crc = (uint32_t)crc32(0L, (const Bytef *)sb->buf, (uInt)sb->len);
	ss_w_u32(&w, crc);
	return w.err;
}

int ss_model_write(const ss_model *m, FILE *f, const char *name)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	int rc;

	if ((rc = encode(&sb, m)))
		goto free_sb;
	if (fwrite(sb.buf, 1, sb.len, f) != sb.len)
		rc = ss_error_set("cannot write model '%s': %s", name, strerror(errno));

free_sb:
	ss_strbuf_release(&sb);
	return rc;
}

int ss_model_save(const ss_model *m, const char *path)
{
	ss_atomic *a = NULL;
	int rc;

	if ((rc = ss_atomic_open(&a, path)))
		return rc;
	if ((rc = ss_model_write(m, ss_atomic_file(a), path))) {
		ss_atomic_abort(a);
		return rc;
	}
	return ss_atomic_commit(a);
}

static int corrupt(const char *name, const char *why)
{
	return ss_error_code(SS_EINVALID, "model '%s' is corrupt: %s", name, why);
}

/* Whether id is 40 lower-case hex digits. */
static int is_hex_id(const char *id)
{
	size_t i;

	for (i = 0; i < 40; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return 0;
	return id[40] == '\0';
}

/*
 * A format 1-5 file's training cut, read from the text its source
 * carried: " authored before <seconds>", else each " before <id>".  Text
 * that does not parse is no cut (as those versions read it).
 */
static void legacy_cut(ss_model_info *in)
{
	const char *at = strstr(in->source, SS_MODEL_CUT_TEXT_SINCE), *c;

	in->cut_since = 0;
	in->ncut = 0;
	if (at) {
		long long t = strtoll(at + strlen(SS_MODEL_CUT_TEXT_SINCE), NULL, 10);

		in->cut_since = t > 0 ? (int64_t)t : 0;
		return;
	}
	for (c = strstr(in->source, SS_MODEL_CUT_TEXT_ID); c && in->ncut < SS_MODEL_CUT_MAX;
	     c = strstr(c + 1, SS_MODEL_CUT_TEXT_ID)) {
		char *id = in->cut[in->ncut];

		snprintf(id, 41, "%.40s", c + strlen(SS_MODEL_CUT_TEXT_ID));
		if (is_hex_id(id))
			in->ncut++;
	}
}

int ss_model_load_buffer(ss_model **out, const void *buf, size_t len, const char *name)
{
	const unsigned char *p = buf;
	ss_rbuf r;
	uint32_t version, kind, uses, crc, stored;
	uint64_t plen;
	ss_model *m = NULL;
	int rc;

	*out = NULL;
	if (len < sizeof(magic) || memcmp(p, magic, sizeof(magic)))
		return ss_error_code(SS_EINVALID, "model '%s' is not a stablesel model", name);
	if (len < HEADER_SIZE)
		return ss_error_code(SS_EINVALID, "model '%s' is truncated", name);
	r = (ss_rbuf){ p + 8, p + len, 0, 0 };
	version = ss_r_u32(&r);
	plen = ss_r_u64(&r);
	if (version > SS_MODEL_FORMAT_VERSION || version == 0)
		return ss_error_code(SS_EINVALID,
				     "model '%s' has format version %u; this stablesel reads up to %u",
				     name, version, SS_MODEL_FORMAT_VERSION);
	if (len < HEADER_SIZE + 4 || plen > len - HEADER_SIZE - 4)
		return ss_error_code(SS_EINVALID, "model '%s' is truncated", name);
	if (len != HEADER_SIZE + plen + 4)
		return corrupt(name, "data after its end");
	stored = (uint32_t)p[len - 4] | (uint32_t)p[len - 3] << 8 | (uint32_t)p[len - 2] << 16 |
		 (uint32_t)p[len - 1] << 24;
	crc = (uint32_t)crc32(0L, p, (uInt)(len - 4));
	if (crc != stored)
		return corrupt(name, "checksum mismatch");

	r = (ss_rbuf){ p + HEADER_SIZE, p + len - 4, 0, 0 };
	kind = ss_r_u32(&r);
	if (!ss_model_ops_of((ss_model_kind)kind))
		return ss_error_code(SS_EINVALID,
				     "model '%s' is of kind %u, which this stablesel does not know",
				     name, kind);
	if (kind == SS_MODEL_TAG)
		return ss_error_code(SS_EINVALID, "model '%s' is of kind tag, an evaluation baseline "
				     "that is never saved, not a model to load", name);
	if ((rc = new_model(&m, (ss_model_kind)kind)))
		return rc;
	uses = ss_r_u32(&r);
	if (uses != (uint32_t)m->ops->uses_features) {
		rc = corrupt(name, "feature settings do not match its kind");
		goto free_model;
	}
	if (uses) {
		ss_feat_options fo;
		uint32_t ndense, nv, i;
		char word[64];

		fo.vocab_size = ss_r_u32(&r);
		fo.min_df = ss_r_u32(&r);
		fo.hash_bits = ss_r_u32(&r);
		fo.groups = ss_r_u32(&r);
		ndense = ss_r_u32(&r);
		nv = ss_r_u32(&r);
		if (r.err || ndense != SS_NDENSE || nv > fo.vocab_size || fo.hash_bits < 8 ||
		    fo.hash_bits > 24) {
			rc = corrupt(name, "bad feature settings");
			goto free_model;
		}
		if ((rc = ss_featurizer_init(&m->feat, &fo))) {
			rc = corrupt(name, "out of memory for its vocabulary");
			goto free_model;
		}
		for (i = 0; i < nv && !r.err; i++) {
			uint32_t id;

			ss_r_str(&r, word, sizeof(word), 32);
			if (!r.err && (rc = ss_strmap_intern(m->feat.vocab, word, strlen(word), &id))) {
				rc = corrupt(name, "out of memory for its vocabulary");
				goto free_model;
			}
			if (!r.err && id != i) {
				rc = corrupt(name, "repeated vocabulary word");
				goto free_model;
			}
		}
	}
	load_info(&r, &m->info);
	m->threshold = ss_r_f32(&r);
	if (r.err) {
		rc = corrupt(name, r.truncated ? "truncated header" : "bad header");
		goto free_model;
	}
	if (!isfinite(m->threshold)) {
		rc = corrupt(name, isnan(m->threshold) ? "threshold is nan" : "threshold is infinite");
		goto free_model;
	}
	if (version >= 2) {
		m->calib.method = ss_r_u32(&r);
		m->calib.a = ss_r_f64(&r);
		m->calib.b = ss_r_f64(&r);
		if (r.err) {
			rc = corrupt(name, r.truncated ? "truncated header" : "bad header");
			goto free_model;
		}
		if (ss_calib_check(&m->calib)) {
			char why[512];

			snprintf(why, sizeof(why), "%s", ss_error_last());
			rc = corrupt(name, why);
			goto free_model;
		}
	}
	if (version >= 3) {
		m->bands.yes = ss_r_f64(&r);
		m->bands.likely = ss_r_f64(&r);
		m->bands.unsure = ss_r_f64(&r);
		m->info.nlabelled = ss_r_u64(&r);
		if (r.err) {
			rc = corrupt(name, r.truncated ? "truncated header" : "bad header");
			goto free_model;
		}
		if (ss_bands_check(&m->bands)) {
			char why[512];

			snprintf(why, sizeof(why), "%s", ss_error_last());
			rc = corrupt(name, why);
			goto free_model;
		}
		if (version >= 4) {
			m->pick_share = ss_r_f32(&r);
			if (r.err) {
				rc = corrupt(name, r.truncated ? "truncated header" : "bad header");
				goto free_model;
			}
			if (!(m->pick_share >= 0.0f && m->pick_share <= 1.0f)) {
				rc = corrupt(name, "its pick share is not in [0, 1]");
				goto free_model;
			}
		}
		if (version >= 5) {
			m->near_beta = ss_r_f32(&r);
			m->near_k = ss_r_u32(&r);
			m->info.cost = ss_r_f64(&r);
			if (r.err) {
				rc = corrupt(name, r.truncated ? "truncated header" : "bad header");
				goto free_model;
			}
			if (!(m->near_beta >= 0.0f && m->near_beta <= 100.0f) ||
			    m->near_k > SS_NEAR_K_MAX || (m->near_beta > 0.0f && !m->near_k) ||
			    (m->near_k && m->kind != SS_MODEL_LINEAR)) {
				rc = corrupt(name, "its nearest past decisions' weight or count is "
					     "out of range");
				goto free_model;
			}
			if (!(m->info.cost >= 0.0 && m->info.cost <= 1e6)) {
				rc = corrupt(name, "its cost is not in [0, 1e6]");
				goto free_model;
			}
		}
		if (version >= 6) {
			uint32_t i;

			m->info.cut_since = ss_r_i64(&r);
			m->info.ncut = ss_r_u32(&r);
			if (!r.err && (m->info.cut_since < 0 || m->info.ncut > SS_MODEL_CUT_MAX)) {
				rc = corrupt(name, "its training cut is out of range");
				goto free_model;
			}
			for (i = 0; i < m->info.ncut && !r.err; i++) {
				ss_r_str(&r, m->info.cut[i], sizeof(m->info.cut[i]), 40);
				if (!r.err && !is_hex_id(m->info.cut[i])) {
					rc = corrupt(name, "its training cut names a commit id that is "
						     "not 40 hex digits");
					goto free_model;
				}
			}
			if (r.err) {
				rc = corrupt(name, r.truncated ? "truncated header" : "bad header");
				goto free_model;
			}
		}
	} else {
		ss_bands_from_threshold(&m->bands, m->threshold);
	}
	if (version < 6)
		legacy_cut(&m->info);
	/* a kind's loader may fail without a message of its own (a short
	 * read, no memory): the reason then says which */
	ss_error_clear();
	if ((rc = m->ops->load(m, &r)) || r.err) {
		char why[512];

		if (rc && ss_error_last()[0])
			snprintf(why, sizeof(why), "%s", ss_error_last());
		else if (rc == SS_ENOMEM)
			snprintf(why, sizeof(why), "out of memory for its %s weights",
				 ss_model_kind_name(m->kind));
		else
			snprintf(why, sizeof(why), "%s %s weights", r.truncated ? "truncated" : "bad",
				 ss_model_kind_name(m->kind));
		rc = corrupt(name, why);
		goto free_model;
	}
	if (r.p != r.end) {
		rc = corrupt(name, "unexpected data after the weights");
		goto free_model;
	}
	*out = m;
	return 0;

free_model:
	ss_model_free(m);
	return rc;
}

/*
 * Read up to max bytes of f into buf[max] (0 or the number read); a short
 * count is the end of the file.
 */
static size_t read_some(unsigned char *buf, size_t max, FILE *f)
{
	size_t len = 0, got;

	while (len < max && (got = fread(buf + len, 1, max - len, f)) > 0)
		len += got;
	return len;
}

int ss_model_load(ss_model **out, const char *path)
{
	FILE *f;
	int rc;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return ss_error_code(errno == ENOENT ? SS_ENOTFOUND : SS_ERROR,
				     "cannot open model '%s': %s", path, strerror(errno));
	rc = ss_model_load_stream(out, f, path);
	fclose(f);
	return rc;
}

int ss_model_load_stream(ss_model **out, FILE *f, const char *path)
{
	unsigned char *buf = NULL;
	size_t len, cap, want;
	struct stat st;
	int rc;

	*out = NULL;
	/* the magic first: a big file of anything else (an mbox, /dev/zero)
	 * is refused after 8 bytes, not after reading it */
	buf = malloc(HEADER_SIZE);
	if (!buf) {
		rc = ss_error_code(SS_ENOMEM, "out of memory reading model '%s'", path);
		goto close_file;
	}
	len = read_some(buf, sizeof(magic), f);
	if (ferror(f)) {
		rc = ss_error_set("cannot read model '%s': %s", path, strerror(errno));
		goto close_file;
	}
	if (len < sizeof(magic) || memcmp(buf, magic, sizeof(magic))) {
		rc = ss_error_code(SS_EINVALID, "model '%s' is not a stablesel model", path);
		goto close_file;
	}
	/* a regular file's size is known: too large is said before reading,
	 * and the buffer is allocated once; anything else (a pipe, a device)
	 * is read in doubling steps up to one byte past the limit (not
	 * SS_GROW: the sizes are exact or capped, so only the resize is shared) */
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode)) {
		if ((uint64_t)st.st_size > MAX_MODEL_BYTES) {
			rc = ss_error_code(SS_EINVALID, "model '%s' is too large (%llu bytes; at most %zu)",
					   path, (unsigned long long)st.st_size, MAX_MODEL_BYTES);
			goto close_file;
		}
		cap = (size_t)st.st_size + 1;  /* + 1: a file that grew is seen to */
	} else {
		cap = (size_t)1 << 20;
	}
	for (;;) {
		if (cap < sizeof(magic) + 1)
			cap = sizeof(magic) + 1;
		if (ss_grow_to(&buf, cap, 1)) {
			rc = ss_error_code(SS_ENOMEM, "out of memory reading model '%s'", path);
			goto close_file;
		}
		want = cap - len;
		len += read_some(buf + len, want, f);
		if (ferror(f)) {
			rc = ss_error_set("cannot read model '%s': %s", path, strerror(errno));
			goto close_file;
		}
		if (len > MAX_MODEL_BYTES) {
			rc = ss_error_code(SS_EINVALID, "model '%s' is too large (more than %zu bytes)",
					   path, MAX_MODEL_BYTES);
			goto close_file;
		}
		if (len < cap)
			break;
		cap = cap > MAX_MODEL_BYTES / 2 ? MAX_MODEL_BYTES + 1 : cap * 2;
	}
	rc = ss_model_load_buffer(out, buf, len, path);

close_file:
	free(buf);
	return rc;
}
