/*
 * metrics.c - classification and ranking metrics in O(n log n), by one
 * sort and one walk over score groups (see metrics.h; tests/test_metrics.c
 * checks each against brute force).
 */
#include <math.h>
#include <stdlib.h>

#include "models/metrics.h"
#include "util/error.h"

/* qsort has no context argument; a merge sort keeps this reentrant and
 * stable (ties stay in index order). */
static void merge_sort(size_t *a, size_t *tmp, size_t n, const float *s)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	merge_sort(a, tmp, mid, s);
	merge_sort(a + mid, tmp, n - mid, s);
	while (i < mid && j < n) {
		size_t x = a[i], y = a[j];

		if (s[x] > s[y] || (s[x] == s[y] && x < y))
			tmp[k++] = a[i++];
		else
			tmp[k++] = a[j++];
	}
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	for (i = 0; i < n; i++)
		a[i] = tmp[i];
}

size_t *ss_metrics_order(const float *score, size_t n)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	size_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	size_t i;

	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		return NULL;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	merge_sort(idx, tmp, n, score);
	free(tmp);
	return idx;
}

double ss_metrics_roc_auc(const float *score, const uint8_t *label, size_t n)
{
	size_t *order = ss_metrics_order(score, n);
	size_t i = 0, npos = 0, nneg = 0;
	double pairs = 0.0, neg_below;

	if (!order)
		return NAN;
	for (i = 0; i < n; i++) {
		if (label[i])
			npos++;
		else
			nneg++;
	}
	if (!npos || !nneg) {
		free(order);
		return NAN;
	}
	/* walk groups from the top: a positive beats every negative below */
	neg_below = (double)nneg;
	for (i = 0; i < n;) {
		size_t j = i, gp = 0, gn = 0;

		while (j < n && score[order[j]] == score[order[i]]) {
			if (label[order[j]])
				gp++;
			else
				gn++;
			j++;
		}
		neg_below -= (double)gn;
		pairs += (double)gp * (neg_below + 0.5 * (double)gn);
		i = j;
	}
	free(order);
	return pairs / ((double)npos * (double)nneg);
}

int ss_metrics_compute(ss_metrics *out, const float *score, const uint8_t *label, size_t n,
		       float threshold)
{
	size_t *order, i, tp = 0, k = 0;
	double prev_r = 0.0, ap = 0.0;
	int found90 = 0;

	out->n = n;
	out->npos = out->tp = out->fp = out->tn = out->fn = 0;
	for (i = 0; i < n; i++) {
		int pick = score[i] >= threshold;

		if (label[i]) {
			out->npos++;
			if (pick)
				out->tp++;
			else
				out->fn++;
		} else if (pick) {
			out->fp++;
		} else {
			out->tn++;
		}
	}
	out->precision = out->tp + out->fp ? (double)out->tp / (double)(out->tp + out->fp) : NAN;
	out->recall = out->npos ? (double)out->tp / (double)out->npos : NAN;
	out->f1 = 2 * out->tp + out->fp + out->fn ?
		  2.0 * (double)out->tp / (double)(2 * out->tp + out->fp + out->fn) : NAN;
	out->accuracy = n ? (double)(out->tp + out->tn) / (double)n : NAN;
	out->ece = ss_metrics_ece(score, label, n);
	out->pick_score = 0.0;
	for (i = 0; i < n; i++)
		if (score[i] >= threshold)
			out->pick_score += score[i];
	out->pick_score = out->tp + out->fp ? out->pick_score / (double)(out->tp + out->fp) : NAN;
	out->roc_auc = ss_metrics_roc_auc(score, label, n);
	out->pr_auc = NAN;
	out->p_at_r90 = NAN;
	out->read_at_r90 = 0;
	if (!out->npos)
		return 0;

	order = ss_metrics_order(score, n);
	if (!order)
		return SS_ENOMEM;
	for (i = 0; i < n;) {
		size_t j = i;
		double p, r;

		while (j < n && score[order[j]] == score[order[i]]) {
			tp += label[order[j]];
			j++;
		}
		k = j;
		p = (double)tp / (double)k;
		r = (double)tp / (double)out->npos;
		ap += (r - prev_r) * p;
		prev_r = r;
		/* 1e-12: 9 of 10 positives is recall 0.9 despite rounding */
		if (!found90 && r >= 0.9 - 1e-12) {
			found90 = 1;
			out->p_at_r90 = p;
			out->read_at_r90 = k;
		}
		i = j;
	}
	out->pr_auc = ap;
	free(order);
	return 0;
}

int ss_metrics_threshold(float *out, const float *score, const uint8_t *label, size_t n,
			 ss_thresh_rule rule, double target, double *out_f1, double *out_p,
			 double *out_r)
{
	size_t *order, i, tp = 0, npos = 0;
	double best = -1.0, bf1 = 0, bp = 0, br = 0;
	float bthr = 0.5f;

	for (i = 0; i < n; i++)
		npos += label[i] != 0;
	if (!npos || !n) {
		*out = 0.5f;
		if (out_f1)
			*out_f1 = 0;
		if (out_p)
			*out_p = 0;
		if (out_r)
			*out_r = 0;
		return 0;
	}
	order = ss_metrics_order(score, n);
	if (!order)
		return SS_ENOMEM;
	for (i = 0; i < n;) {
		size_t j = i;
		double p, r, f1, value;
		float here = score[order[i]], thr;
		int ok;

		while (j < n && score[order[j]] == here) {
			tp += label[order[j]] != 0;
			j++;
		}
		p = (double)tp / (double)j;
		r = (double)tp / (double)npos;
		f1 = tp ? 2.0 * p * r / (p + r) : 0.0;
		thr = j < n ? here / 2 + score[order[j]] / 2 : here;
		/* guard against the midpoint rounding onto the lower group */
		if (j < n && !(thr > score[order[j]]))
			thr = here;
		switch (rule) {
		case SS_THRESH_PRECISION:
			ok = p >= target;
			/* among thresholds meeting the target, most recall; else closest */
			value = ok ? 2.0 + r : p;
			break;
		case SS_THRESH_RECALL:
			ok = r >= target;
			value = ok ? 2.0 + p : r;
			break;
		default:
			value = f1;
			break;
		}
		if (value > best) {
			best = value;
			bthr = thr;
			bf1 = f1;
			bp = p;
			br = r;
		}
		i = j;
	}
	free(order);
	*out = bthr;
	if (out_f1)
		*out_f1 = bf1;
	if (out_p)
		*out_p = bp;
	if (out_r)
		*out_r = br;
	return 0;
}

double ss_metrics_avg_precision(const float *score, const uint8_t *label, size_t n)
{
	ss_metrics mt;

	if (ss_metrics_compute(&mt, score, label, n, 0.5f) || isnan(mt.pr_auc))
		return 0.0;
	return mt.pr_auc;
}

void ss_metrics_reliability(ss_reliability *out, const float *score, const uint8_t *label,
			    size_t n)
{
	double sum[SS_CALIB_BINS] = { 0 };
	size_t pos[SS_CALIB_BINS] = { 0 }, i;
	int b;

	out->n = n;
	for (b = 0; b < SS_CALIB_BINS; b++)
		out->count[b] = 0;
	for (i = 0; i < n; i++) {
		double s = score[i];

		/* a NaN score lands in bin 0 (the comparison fails) */
		b = s >= 1.0 ? SS_CALIB_BINS - 1 : s > 0 ? (int)(s * SS_CALIB_BINS) : 0;
		if (b >= SS_CALIB_BINS)  /* rounding just under 1 */
			b = SS_CALIB_BINS - 1;
		out->count[b]++;
		sum[b] += s;
		pos[b] += label[i] != 0;
	}
	out->ece = n ? 0.0 : NAN;
	for (b = 0; b < SS_CALIB_BINS; b++) {
		if (!out->count[b]) {
			out->mean_score[b] = out->frac_pos[b] = NAN;
			continue;
		}
		out->mean_score[b] = sum[b] / (double)out->count[b];
		out->frac_pos[b] = (double)pos[b] / (double)out->count[b];
		out->ece += (double)out->count[b] / (double)n *
			    fabs(out->mean_score[b] - out->frac_pos[b]);
	}
}

double ss_metrics_ece(const float *score, const uint8_t *label, size_t n)
{
	ss_reliability r;

	ss_metrics_reliability(&r, score, label, n);
	return r.ece;
}
