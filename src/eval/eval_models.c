/*
 * eval_models.c - models trained and scored side by side, and the result
 * tables (see eval.h; "stablesel eval" is cmd/eval.c).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "eval/eval.h"
#include "util/error.h"

double ss_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long ss_peak_rss_kb(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_maxrss;
}

int ss_parse_date(int64_t *out, const char *s)
{
	struct tm tm, back;
	time_t t;
	int y, m, d, i;

	int hh = 0, mm = 0;

	/* exactly YYYY-MM-DD or YYYY-MM-DDTHH:MM: sscanf alone would take
	 * " 2019-+2-1x" */
	for (i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			break;
	if (i == 10 && s[10] == 'T') {
		for (i = 11; i < 16; i++)
			if (i == 13 ? s[i] != ':' : !isdigit((unsigned char)s[i]))
				break;
		hh = atoi(s + 11);
		mm = atoi(s + 14);
		if (i < 16 || s[16] || hh > 23 || mm > 59)
			return ss_error_code(SS_EINVALID, "'%s' is not a date (YYYY-MM-DD, or "
					     "YYYY-MM-DDTHH:MM in UTC)", s);
	} else if (i < 10 || s[10]) {
		return ss_error_code(SS_EINVALID, "'%s' is not a date (YYYY-MM-DD)", s);
	}
	y = atoi(s);
	m = atoi(s + 5);
	d = atoi(s + 8);
	if (y < 1970)
		return ss_error_code(SS_EINVALID, "'%s' is before 1970", s);
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	t = timegm(&tm);
	/* timegm normalises 2019-02-30 to March 2nd: a real day comes back */
	if (!gmtime_r(&t, &back) || back.tm_year != y - 1900 || back.tm_mon != m - 1 ||
	    back.tm_mday != d)
		return ss_error_code(SS_EINVALID, "'%s' is not a day of the calendar", s);
	*out = (int64_t)t + hh * 3600 + mm * 60;
	return 0;
}

void ss_format_date(char buf[16], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm)) {
		snprintf(buf, 16, "?");
		return;
	}
	strftime(buf, 16, "%Y-%m-%d", &tm);
}

static void range(const ss_dataset *d, const size_t *idx, size_t n, int64_t *first,
		  int64_t *last, size_t *npos)
{
	size_t i;

	*first = INT64_MAX;
	*last = INT64_MIN;
	*npos = 0;
	for (i = 0; i < n; i++) {
		const ss_example *e = ss_dataset_example(d, idx[i]);

		if (e->time < *first)
			*first = e->time;
		if (e->time > *last)
			*last = e->time;
		*npos += e->label;
	}
	if (!n)
		*first = *last = 0;
}

int ss_eval_run(ss_eval_result *out, const ss_dataset *d, const size_t *train, size_t ntrain,
		const size_t *test, size_t ntest, const ss_model_kind *kinds, size_t nkinds,
		const ss_train_options *opts, ss_eval_score_fn sink, void *sink_ud)
{
	float *score = NULL, *uscore = NULL;
	uint8_t *label = NULL, *ulabel = NULL;
	size_t i, k;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (nkinds > SS_EVAL_MAX_MODELS)
		return ss_error_code(SS_EINVALID, "too many models (at most %d)", SS_EVAL_MAX_MODELS);
	if (!ntest)
		return ss_error_code(SS_EINVALID, "no test commits");
	out->ntrain = ntrain;
	out->ntest = ntest;
	range(d, train, ntrain, &out->train_first, &out->train_last, &out->ntrain_pos);
	range(d, test, ntest, &out->test_first, &out->test_last, &out->ntest_pos);
	score = malloc(ntest * sizeof(*score));
	uscore = malloc(ntest * sizeof(*uscore));
	label = malloc(ntest * sizeof(*label));
	ulabel = malloc(ntest * sizeof(*ulabel));
	if (!score || !uscore || !label || !ulabel) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	for (i = 0; i < ntest; i++) {
		const ss_example *e = ss_dataset_example(d, test[i]);

		label[i] = e->label;
		if (e->tagged) {
			out->ntest_tagged++;
		} else {
			out->nuntagged++;
			out->nuntagged_pos += e->label;
		}
	}
	for (k = 0; k < nkinds; k++) {
		ss_eval_row *row = &out->rows[out->nrows];
		ss_model *m;
		double t0 = ss_now();
		size_t nu = 0;

		memset(row, 0, sizeof(*row));
		row->kind = kinds[k];
		ss_model_logf(opts, "training %s on %zu commits", ss_model_kind_name(kinds[k]), ntrain);
		if ((rc = ss_model_train(&m, kinds[k], d, train, ntrain, opts)))
			goto free_all;
		row->train_seconds = ss_now() - t0;
		t0 = ss_now();
		rc = ss_model_score(score, m, d, test, ntest);
		row->predict_seconds = ss_now() - t0;
		row->rss_kb = ss_peak_rss_kb();
		row->threshold = ss_model_threshold(m);
		row->nweights = ss_model_nweights(m);
		row->val_f1 = ss_model_info_of(m)->val_f1;
		row->calib = *ss_model_calibration(m);
		row->bands = *ss_model_bands(m);
		snprintf(row->params, sizeof(row->params), "%s", ss_model_info_of(m)->params);
		ss_model_free(m);
		if (rc)
			goto free_all;
		for (i = 0; sink && i < ntest; i++)
			sink(sink_ud, ss_dataset_example(d, test[i]), kinds[k], score[i],
				   score[i] >= row->threshold);
		for (i = 0; i < ntest; i++) {
			ss_band v = ss_bands_classify(&row->bands, score[i]);

			row->band_n[v]++;
			row->band_pos[v] += label[i];
			if (!ss_dataset_example(d, test[i])->tagged) {
				row->uband_n[v]++;
				row->uband_pos[v] += label[i];
				uscore[nu] = score[i];
				ulabel[nu++] = label[i];
			}
		}
		if ((rc = ss_metrics_compute(&row->all, score, label, ntest, row->threshold)) ||
		    (rc = ss_metrics_compute(&row->untagged, uscore, ulabel, nu, row->threshold)))
			goto free_all;
		ss_metrics_reliability(&row->rel, score, label, ntest);
		out->nrows++;
	}

free_all:
	free(score);
	free(uscore);
	free(label);
	free(ulabel);
	return rc;
}

/* ---- tables ---------------------------------------------------------- */

static void fmt3(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.3f", v);
}

static int table(ss_strbuf *sb, const ss_eval_result *r, int untagged)
{
	size_t k;
	int rc = ss_strbuf_addf(sb, "%-13s %9s %6s %6s %6s %6s %7s %6s %6s %8s %6s %6s %8s %7s %7s\n",
				"model", "threshold", "P", "R", "F1", "Acc", "ROC-AUC", "PR-AUC",
				"P@R.9", "read@R.9", "ECE", "pick_s", "train_s", "pred_s", "rss_MB");

	for (k = 0; k < r->nrows && !rc; k++) {
		const ss_eval_row *row = &r->rows[k];
		const ss_metrics *m = untagged ? &row->untagged : &row->all;
		char p[16], rr[16], f1[16], acc[16], auc[16], ap[16], p90[16], read[24], ece[16];
		char ps[16];

		fmt3(p, sizeof(p), m->precision);
		fmt3(rr, sizeof(rr), m->recall);
		fmt3(f1, sizeof(f1), m->f1);
		fmt3(acc, sizeof(acc), m->accuracy);
		fmt3(auc, sizeof(auc), m->roc_auc);
		fmt3(ap, sizeof(ap), m->pr_auc);
		fmt3(p90, sizeof(p90), m->p_at_r90);
		fmt3(ece, sizeof(ece), m->ece);
		fmt3(ps, sizeof(ps), m->pick_score);
		if (isnan(m->p_at_r90))
			snprintf(read, sizeof(read), "-");
		else
			snprintf(read, sizeof(read), "%zu", m->read_at_r90);
		rc = ss_strbuf_addf(sb, "%-13s %9.4f %6s %6s %6s %6s %7s %6s %6s %8s %6s %6s %8.2f %7.3f %7.0f\n",
				    ss_model_kind_name(row->kind), (double)row->threshold, p, rr, f1,
				    acc, auc, ap, p90, read, ece, ps, row->train_seconds, row->predict_seconds,
				    (double)row->rss_kb / 1024.0);
	}
	return rc;
}

static int calib_text(ss_strbuf *sb, const ss_calib *c)
{
	if (c->method == SS_CALIB_PLATT)
		return ss_strbuf_addf(sb, "calibrated sigmoid(%.4f logit(s) %+.4f)", c->a, c->b);
	return ss_strbuf_adds(sb, "not calibrated");
}

/* One reliability table per model: bins side by side would not fit. */
static int reliability_text(ss_strbuf *sb, const ss_eval_row *row)
{
	const ss_reliability *rel = &row->rel;
	int b, rc;

	rc = ss_strbuf_addf(sb, "\n-- calibration of %s on all test commits (ECE %.3f; picks: mean "
			    "score %.3f, fraction positive %.3f)\n%-11s %6s %10s %9s\n",
			    ss_model_kind_name(row->kind), rel->ece, row->all.pick_score,
			    row->all.precision, "score", "n", "mean_score", "positive");
	for (b = 0; b < SS_CALIB_BINS && !rc; b++) {
		char ms[16], fp[16];

		fmt3(ms, sizeof(ms), rel->mean_score[b]);
		fmt3(fp, sizeof(fp), rel->frac_pos[b]);
		rc = ss_strbuf_addf(sb, "[%.1f, %.1f%c %6zu %10s %9s\n", (double)b / SS_CALIB_BINS,
				    (double)(b + 1) / SS_CALIB_BINS, b == SS_CALIB_BINS - 1 ? ']' : ')',
				    rel->count[b], ms, fp);
	}
	return rc;
}

/* The test commits per verdict band, all and untagged. */
static int bands_text(ss_strbuf *sb, const ss_eval_row *row)
{
	const ss_bands *b = &row->bands;
	size_t all = 0;
	char yes[32];
	int v, rc;

	for (v = SS_BAND_NO; v <= SS_BAND_YES; v++)
		all += row->band_n[v];

	if (b->yes > 1)
		snprintf(yes, sizeof(yes), "yes none");
	else
		snprintf(yes, sizeof(yes), "yes >= %.3f", b->yes);
	rc = ss_strbuf_addf(sb, "\n-- bands of %s on the test commits (%s, likely >= %.3f, "
			    "unsure >= %.3f)\n%-7s %6s %9s %9s %9s %9s\n", ss_model_kind_name(row->kind),
			    yes, b->likely, b->unsure, "band", "n", "share", "positive", "untagged",
			    "u_positive");
	for (v = SS_BAND_YES; v >= SS_BAND_NO && !rc; v--) {
		char fp[16], ufp[16], sh[16];

		fmt3(sh, sizeof(sh), all ? (double)row->band_n[v] / (double)all : NAN);
		fmt3(fp, sizeof(fp), row->band_n[v] ? (double)row->band_pos[v] / (double)row->band_n[v] : NAN);
		fmt3(ufp, sizeof(ufp),
		     row->uband_n[v] ? (double)row->uband_pos[v] / (double)row->uband_n[v] : NAN);
		rc = ss_strbuf_addf(sb, "%-7s %6zu %9s %9s %9zu %9s\n", ss_band_name((ss_band)v),
				    row->band_n[v], sh, fp, row->uband_n[v], ufp);
	}
	return rc;
}

int ss_eval_format_text(ss_strbuf *sb, const ss_eval_result *r, const char *title)
{
	char a[16], b[16], c[16], d[16];
	size_t k;
	int rc;

	ss_format_date(a, r->train_first);
	ss_format_date(b, r->train_last);
	ss_format_date(c, r->test_first);
	ss_format_date(d, r->test_last);
	rc = ss_strbuf_addf(sb,
			    "== %s\n"
			    "train: %zu commits %s..%s, %zu positive (%.1f%%); stable tags %s\n"
			    "test:  %zu commits %s..%s, %zu positive (%.1f%%), %zu carry the tag\n\n",
			    title ? title : "evaluation", r->ntrain, a, b, r->ntrain_pos,
			    r->ntrain ? 100.0 * (double)r->ntrain_pos / (double)r->ntrain : 0.0,
			    r->masked ? "masked" : "visible", r->ntest, c, d, r->ntest_pos,
			    r->ntest ? 100.0 * (double)r->ntest_pos / (double)r->ntest : 0.0,
			    r->ntest_tagged);
	if (!rc)
		rc = table(sb, r, 0);
	if (!rc)
		rc = ss_strbuf_addf(sb, "\n-- test commits without the stable tag: %zu, %zu positive (%.1f%%)\n",
				    r->nuntagged, r->nuntagged_pos,
				    r->nuntagged ? 100.0 * (double)r->nuntagged_pos / (double)r->nuntagged : 0.0);
	if (!rc)
		rc = table(sb, r, 1);
	if (!rc)
		rc = ss_strbuf_addf(sb, "\nsettings:\n");
	for (k = 0; k < r->nrows && !rc; k++) {
		rc = ss_strbuf_addf(sb, "  %-13s %s; %zu weights; validation F1 %.3f; ",
				    ss_model_kind_name(r->rows[k].kind), r->rows[k].params,
				    r->rows[k].nweights, r->rows[k].val_f1);
		rc = rc ? rc : calib_text(sb, &r->rows[k].calib);
		rc = rc ? rc : ss_strbuf_addch(sb, '\n');
	}
	for (k = 0; k < r->nrows && !rc; k++)
		rc = reliability_text(sb, &r->rows[k]);
	for (k = 0; k < r->nrows && !rc; k++)
		rc = bands_text(sb, &r->rows[k]);
	return rc;
}

static int jnum(ss_strbuf *sb, const char *key, double v, int comma)
{
	if (isnan(v) || isinf(v))
		return ss_strbuf_addf(sb, "\"%s\":null%s", key, comma ? "," : "");
	return ss_strbuf_addf(sb, "\"%s\":%.6g%s", key, v, comma ? "," : "");
}

static int jmetrics(ss_strbuf *sb, const char *key, const ss_metrics *m)
{
	int rc = ss_strbuf_addf(sb, "\"%s\":{\"n\":%zu,\"positive\":%zu,\"tp\":%zu,\"fp\":%zu,"
				"\"fn\":%zu,\"tn\":%zu,", key, m->n, m->npos, m->tp, m->fp, m->fn, m->tn);

	rc = rc ? rc : jnum(sb, "precision", m->precision, 1);
	rc = rc ? rc : jnum(sb, "recall", m->recall, 1);
	rc = rc ? rc : jnum(sb, "f1", m->f1, 1);
	rc = rc ? rc : jnum(sb, "accuracy", m->accuracy, 1);
	rc = rc ? rc : jnum(sb, "roc_auc", m->roc_auc, 1);
	rc = rc ? rc : jnum(sb, "pr_auc", m->pr_auc, 1);
	rc = rc ? rc : jnum(sb, "precision_at_recall_0_9", m->p_at_r90, 1);
	rc = rc ? rc : jnum(sb, "ece", m->ece, 1);
	rc = rc ? rc : jnum(sb, "pick_mean_score", m->pick_score, 1);
	if (!rc && isnan(m->p_at_r90))
		rc = ss_strbuf_addf(sb, "\"read_at_recall_0_9\":null}");
	else if (!rc)
		rc = ss_strbuf_addf(sb, "\"read_at_recall_0_9\":%zu}", m->read_at_r90);
	return rc;
}

/* ,"calibration":{...},"reliability":[{bin}, ...] */
static int jcalib(ss_strbuf *sb, const ss_eval_row *row)
{
	const ss_calib *c = &row->calib;
	int b, rc;

	if (c->method == SS_CALIB_PLATT)
		rc = ss_strbuf_addf(sb, ",\"calibration\":{\"method\":\"platt\",\"a\":%.9g,\"b\":%.9g}",
				    c->a, c->b);
	else
		rc = ss_strbuf_adds(sb, ",\"calibration\":{\"method\":\"none\"}");
	rc = rc ? rc : ss_strbuf_adds(sb, ",\"reliability\":[");
	for (b = 0; b < SS_CALIB_BINS && !rc; b++) {
		rc = ss_strbuf_addf(sb, "%s{\"lo\":%.1f,\"hi\":%.1f,\"n\":%zu,", b ? "," : "",
				    (double)b / SS_CALIB_BINS, (double)(b + 1) / SS_CALIB_BINS,
				    row->rel.count[b]);
		rc = rc ? rc : jnum(sb, "mean_score", row->rel.mean_score[b], 1);
		rc = rc ? rc : jnum(sb, "fraction_positive", row->rel.frac_pos[b], 0);
		rc = rc ? rc : ss_strbuf_addch(sb, '}');
	}
	rc = rc ? rc : ss_strbuf_addch(sb, ']');
	rc = rc ? rc : ss_strbuf_addf(sb, ",\"bands\":{\"yes\":%.6g,\"likely\":%.6g,\"unsure\":%.6g,"
				      "\"test\":[", row->bands.yes, row->bands.likely, row->bands.unsure);
	for (b = SS_BAND_YES; b >= SS_BAND_NO && !rc; b--)
		rc = ss_strbuf_addf(sb, "%s{\"band\":\"%s\",\"n\":%zu,\"positive\":%zu,\"untagged\":%zu,"
				    "\"untagged_positive\":%zu}", b == SS_BAND_YES ? "" : ",",
				    ss_band_name((ss_band)b), row->band_n[b], row->band_pos[b],
				    row->uband_n[b], row->uband_pos[b]);
	return rc ? rc : ss_strbuf_adds(sb, "]}");
}

int ss_eval_format_json(ss_strbuf *sb, const ss_eval_result *r, const char *title)
{
	char a[16], b[16], c[16], d[16];
	size_t k;
	int rc;

	ss_format_date(a, r->train_first);
	ss_format_date(b, r->train_last);
	ss_format_date(c, r->test_first);
	ss_format_date(d, r->test_last);
	rc = ss_strbuf_adds(sb, "{\"title\":");
	rc = rc ? rc : ss_strbuf_add_json(sb, title ? title : "evaluation");
	rc = rc ? rc : ss_strbuf_addf(sb, ",\"masked\":%s,\"train\":{\"n\":%zu,\"positive\":%zu,"
				      "\"first\":\"%s\",\"last\":\"%s\"},\"test\":{\"n\":%zu,"
				      "\"positive\":%zu,\"tagged\":%zu,\"first\":\"%s\",\"last\":\"%s\","
				      "\"untagged\":%zu,\"untagged_positive\":%zu},\"models\":[",
				      r->masked ? "true" : "false", r->ntrain, r->ntrain_pos, a, b,
				      r->ntest, r->ntest_pos, r->ntest_tagged, c, d, r->nuntagged,
				      r->nuntagged_pos);
	for (k = 0; k < r->nrows && !rc; k++) {
		const ss_eval_row *row = &r->rows[k];

		rc = ss_strbuf_addf(sb, "%s{\"model\":\"%s\",\"params\":", k ? "," : "",
				    ss_model_kind_name(row->kind));
		rc = rc ? rc : ss_strbuf_add_json(sb, row->params);
		rc = rc ? rc : ss_strbuf_addf(sb, ",\"weights\":%zu,", row->nweights);
		rc = rc ? rc : jnum(sb, "threshold", row->threshold, 1);
		rc = rc ? rc : jnum(sb, "validation_f1", row->val_f1, 1);
		rc = rc ? rc : jnum(sb, "train_seconds", row->train_seconds, 1);
		rc = rc ? rc : jnum(sb, "predict_seconds", row->predict_seconds, 1);
		rc = rc ? rc : ss_strbuf_addf(sb, "\"peak_rss_kb\":%ld,", row->rss_kb);
		rc = rc ? rc : jmetrics(sb, "all", &row->all);
		rc = rc ? rc : ss_strbuf_addch(sb, ',');
		rc = rc ? rc : jmetrics(sb, "untagged", &row->untagged);
		rc = rc ? rc : jcalib(sb, row);
		rc = rc ? rc : ss_strbuf_addch(sb, '}');
	}
	return rc ? rc : ss_strbuf_adds(sb, "]}\n");
}
