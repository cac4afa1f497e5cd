/*
 * test_metrics.c - every metric of models/metrics.c against a brute-force
 * computation on random scores with many ties: ROC-AUC by counting pairs,
 * average precision and precision at recall 0.9 by trying every distinct
 * threshold, confusion counts one commit at a time, the threshold
 * rules by exhaustive search, the reliability table and expected
 * calibration error bin by bin; Platt scaling (models/calib.c) against
 * the map that drew the labels.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/calib.h"
#include "models/impl.h"
#include "models/metrics.h"

static uint64_t state = 88172645463325252ULL;

static uint32_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (uint32_t)(state >> 16);
}

/* Scores from a few levels (ties) loosely correlated with the labels. */
static void make(float *s, uint8_t *l, size_t n, int levels)
{
	size_t i;

	for (i = 0; i < n; i++) {
		l[i] = rnd() % 4 == 0;
		s[i] = (float)((rnd() % (unsigned)levels) + (l[i] ? levels / 3 : 0)) / (float)levels;
	}
}

static double brute_auc(const float *s, const uint8_t *l, size_t n)
{
	double pairs = 0, np = 0, nn = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (!l[i])
			continue;
		np++;
		for (j = 0; j < n; j++) {
			if (l[j])
				continue;
			pairs += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
		}
	}
	for (j = 0; j < n; j++)
		nn += !l[j];
	return pairs / (np * nn);
}

static int cmp_fdesc(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x > y ? -1 : x < y;
}

/* Distinct scores, highest first; returns how many. */
static size_t levels_of(const float *s, size_t n, float *out)
{
	size_t i, k = 0;

	memcpy(out, s, n * sizeof(*s));
	qsort(out, n, sizeof(*out), cmp_fdesc);
	for (i = 0; i < n; i++)
		if (!k || out[k - 1] != out[i])
			out[k++] = out[i];
	return k;
}

static void counts(const float *s, const uint8_t *l, size_t n, float t, size_t *tp, size_t *fp,
		   size_t *fn, size_t *tn)
{
	size_t i;

	*tp = *fp = *fn = *tn = 0;
	for (i = 0; i < n; i++) {
		if (s[i] >= t)
			l[i] ? (*tp)++ : (*fp)++;
		else
			l[i] ? (*fn)++ : (*tn)++;
	}
}

static void test_against_brute_force(void **st)
{
	enum { N = 300 };
	float s[N], lv[N];
	uint8_t l[N];
	int round;

	(void)st;
	for (round = 0; round < 40; round++) {
		size_t n = 20 + rnd() % (N - 20), nl, k, tp, fp, fn, tn, npos = 0;
		int levels = 2 + (int)(rnd() % 30);
		double ap = 0, prev_r = 0, p90 = NAN;
		size_t read90 = 0;
		float thr = (float)(rnd() % 100) / 100.0f;
		ss_metrics m;

		make(s, l, n, levels);
		for (k = 0; k < n; k++)
			npos += l[k];
		if (!npos || npos == n)
			continue;
		assert_int_equal(ss_metrics_compute(&m, s, l, n, thr), 0);

		counts(s, l, n, thr, &tp, &fp, &fn, &tn);
		assert_int_equal(m.tp, tp);
		assert_int_equal(m.fp, fp);
		assert_int_equal(m.fn, fn);
		assert_int_equal(m.tn, tn);
		if (tp + fp)
			assert_true(fabs(m.precision - (double)tp / (double)(tp + fp)) < 1e-12);
		assert_true(fabs(m.recall - (double)tp / (double)npos) < 1e-12);
		assert_true(fabs(m.accuracy - (double)(tp + tn) / (double)n) < 1e-12);
		if (tp)
			assert_true(fabs(m.f1 - 2.0 * m.precision * m.recall /
						(m.precision + m.recall)) < 1e-12);

		assert_true(fabs(m.roc_auc - brute_auc(s, l, n)) < 1e-12);

		nl = levels_of(s, n, lv);
		for (k = 0; k < nl; k++) {
			double p, r;

			counts(s, l, n, lv[k], &tp, &fp, &fn, &tn);
			p = (double)tp / (double)(tp + fp);
			r = (double)tp / (double)npos;
			ap += (r - prev_r) * p;
			prev_r = r;
			if (isnan(p90) && r >= 0.9 - 1e-12) {
				p90 = p;
				read90 = tp + fp;
			}
		}
		assert_true(fabs(m.pr_auc - ap) < 1e-12);
		assert_true(fabs(m.p_at_r90 - p90) < 1e-12);
		assert_int_equal(m.read_at_r90, read90);
	}
}

static void test_threshold_rules(void **st)
{
	enum { N = 200 };
	float s[N], lv[N];
	uint8_t l[N];
	int round;

	(void)st;
	for (round = 0; round < 40; round++) {
		size_t n = 30 + rnd() % (N - 30), nl, k, tp, fp, fn, tn, npos = 0;
		double best_f1 = 0, f1, p, r, target = 0.3 + 0.6 * (rnd() % 100) / 100.0;
		double best_rp = -1, best_pr = -1;
		float t;
		ss_metrics m;

		make(s, l, n, 2 + (int)(rnd() % 20));
		for (k = 0; k < n; k++)
			npos += l[k];
		if (!npos || npos == n)
			continue;
		nl = levels_of(s, n, lv);
		for (k = 0; k < nl; k++) {
			counts(s, l, n, lv[k], &tp, &fp, &fn, &tn);
			p = (double)tp / (double)(tp + fp);
			r = (double)tp / (double)npos;
			f1 = tp ? 2 * p * r / (p + r) : 0;
			if (f1 > best_f1)
				best_f1 = f1;
			if (p >= target && r > best_rp)
				best_rp = r;
			if (r >= target && p > best_pr)
				best_pr = p;
		}

		/* best F1: the chosen threshold reaches the best F1 there is */
		assert_int_equal(ss_metrics_threshold(&t, s, l, n, SS_THRESH_F1, 0, &f1, NULL, NULL), 0);
		assert_int_equal(ss_metrics_compute(&m, s, l, n, t), 0);
		assert_true(fabs(f1 - best_f1) < 1e-12);
		assert_true(fabs(m.f1 - best_f1) < 1e-12);

		/* target precision: the most recall among thresholds meeting it */
		assert_int_equal(ss_metrics_threshold(&t, s, l, n, SS_THRESH_PRECISION, target,
						      NULL, &p, &r), 0);
		assert_int_equal(ss_metrics_compute(&m, s, l, n, t), 0);
		if (best_rp >= 0) {
			assert_true(m.precision >= target - 1e-12);
			assert_true(fabs(m.recall - best_rp) < 1e-12);
		}

		/* target recall: the most precision among thresholds meeting it */
		assert_int_equal(ss_metrics_threshold(&t, s, l, n, SS_THRESH_RECALL, target,
						      NULL, &p, &r), 0);
		assert_int_equal(ss_metrics_compute(&m, s, l, n, t), 0);
		assert_true(best_pr >= 0);
		assert_true(m.recall >= target - 1e-12);
		assert_true(fabs(m.precision - best_pr) < 1e-12);
	}
}

static void test_edge_cases(void **st)
{
	float s[4] = { 0.9f, 0.8f, 0.7f, 0.1f };
	uint8_t none[4] = { 0, 0, 0, 0 }, perfect[4] = { 1, 1, 0, 0 };
	ss_metrics m;
	float t;

	(void)st;
	assert_int_equal(ss_metrics_compute(&m, s, none, 4, 0.5f), 0);
	assert_true(isnan(m.roc_auc));
	assert_true(isnan(m.pr_auc));
	assert_true(isnan(m.recall));
	assert_int_equal(ss_metrics_threshold(&t, s, none, 4, SS_THRESH_F1, 0, NULL, NULL, NULL), 0);
	assert_true(t == 0.5f);

	assert_int_equal(ss_metrics_compute(&m, s, perfect, 4, 0.75f), 0);
	assert_true(m.roc_auc == 1.0);
	assert_true(m.pr_auc == 1.0);
	assert_true(m.f1 == 1.0);
	assert_int_equal(m.read_at_r90, 2);
	/* the threshold lies between the groups it separates */
	assert_int_equal(ss_metrics_threshold(&t, s, perfect, 4, SS_THRESH_F1, 0, NULL, NULL, NULL), 0);
	assert_true(t > 0.7f && t < 0.8f);
}

/* Early stopping: a new best needs more than 1e-6 over the old one; patience
 * epochs without one stop; the average precision is the metric's. */
static void test_early_stop(void **state)
{
	const float good[4] = { 0.9f, 0.8f, 0.2f, 0.1f }, bad[4] = { 0.1f, 0.2f, 0.8f, 0.9f };
	const uint8_t label[4] = { 1, 1, 0, 0 };
	ss_early_stop es = SS_EARLY_STOP_INIT(2);
	double ap;

	(void)state;
	assert_int_equal(ss_early_stop_epoch(&es, 1, bad, label, 4, &ap), SS_EARLY_STOP_BEST);
	assert_true(fabs(ap - ss_metrics_avg_precision(bad, label, 4)) < 1e-12);
	assert_true(ap < 1.0);
	assert_int_equal(ss_early_stop_epoch(&es, 2, good, label, 4, &ap), SS_EARLY_STOP_BEST);
	assert_true(fabs(ap - 1.0) < 1e-12);
	assert_int_equal(es.best_epoch, 2);
	/* equal is no improvement; the second epoch without one stops */
	assert_int_equal(ss_early_stop_epoch(&es, 3, good, label, 4, &ap), SS_EARLY_STOP_WORSE);
	assert_int_equal(ss_early_stop_epoch(&es, 4, bad, label, 4, &ap), SS_EARLY_STOP_STOP);
	assert_int_equal(es.best_epoch, 2);
	/* no positive: average precision 0, never a best over a real one */
	assert_true(ss_metrics_avg_precision(good, (const uint8_t[4]){ 0, 0, 0, 0 }, 4) == 0.0);
}

/*
 * The reliability table by its definition: for each bin, the scores in
 * [lo, hi) (the last bin closed at 1) counted one by one.  The scores
 * include the bin edges (0.1f is just above 0.1, 0.3f just below 0.3: the
 * float decides), 0 and 1.
 */
static void test_reliability_brute_force(void **st)
{
	enum { N = 997 };
	static float s[N];
	static uint8_t l[N];
	ss_reliability r;
	ss_metrics m;
	double ece = 0, pick = 0;
	size_t i, npick = 0;
	int b, rep;

	(void)st;
	for (rep = 0; rep < 5; rep++) {
		for (i = 0; i < N; i++) {
			s[i] = rep == 4 ? (float)(rnd() % 11) / 10.0f : (float)(rnd() % 100001) / 100000.0f;
			l[i] = (double)(rnd() % 1000) / 1000.0 < s[i] * (rep == 1 ? 0.5 : 1.0);
		}
		ss_metrics_reliability(&r, s, l, N);
		ece = 0;
		for (b = 0; b < SS_CALIB_BINS; b++) {
			double lo = b / 10.0, hi = (b + 1) / 10.0, sum = 0;
			size_t cnt = 0, pos = 0;

			for (i = 0; i < N; i++) {
				double x = s[i];

				if (x >= lo && (x < hi || (b == SS_CALIB_BINS - 1 && x <= 1.0))) {
					cnt++;
					sum += x;
					pos += l[i];
				}
			}
			assert_int_equal(r.count[b], cnt);
			if (!cnt) {
				assert_true(isnan(r.mean_score[b]) && isnan(r.frac_pos[b]));
				continue;
			}
			assert_true(fabs(r.mean_score[b] - sum / (double)cnt) < 1e-12);
			assert_true(fabs(r.frac_pos[b] - (double)pos / (double)cnt) < 1e-12);
			ece += (double)cnt / N * fabs(sum / (double)cnt - (double)pos / (double)cnt);
		}
		assert_true(fabs(r.ece - ece) < 1e-12);
		assert_true(fabs(ss_metrics_ece(s, l, N) - ece) < 1e-12);
		/* labels drawn at half the score: far from calibrated */
		if (rep == 1)
			assert_true(r.ece > 0.15);
		else if (rep != 4)
			assert_true(r.ece < 0.05);
		assert_int_equal(ss_metrics_compute(&m, s, l, N, 0.6f), 0);
		assert_true(fabs(m.ece - ece) < 1e-12);
		pick = 0;
		npick = 0;
		for (i = 0; i < N; i++)
			if (s[i] >= 0.6f) {
				pick += s[i];
				npick++;
			}
		assert_true(fabs(m.pick_score - pick / (double)npick) < 1e-12);
	}
	/* edges: 1.0 goes to the last bin, out-of-range scores to the ends,
	 * no commit at all is NaN */
	{
		const float e[4] = { 1.0f, 0.0f, 1.5f, -0.5f };
		const uint8_t el[4] = { 1, 0, 1, 0 };

		ss_metrics_reliability(&r, e, el, 4);
		assert_int_equal(r.count[0], 2);
		assert_int_equal(r.count[SS_CALIB_BINS - 1], 2);
		ss_metrics_reliability(&r, e, el, 0);
		assert_true(isnan(r.ece));
		assert_int_equal(ss_metrics_compute(&m, e, el, 2, 2.0f), 0);
		assert_true(isnan(m.pick_score));
	}
}

static double sigmoid_d(double z)
{
	return 1.0 / (1.0 + exp(-z));
}

/*
 * Platt scaling: labels drawn from sigmoid(0.5 logit(s) - 1) for raw
 * scores s; the fit recovers the slope and intercept (standard error
 * about 0.01 and 0.02 at this size), maps monotonically, and makes the
 * scores calibrated.  Degenerate slices give the identity.
 */
static void test_platt(void **st)
{
	enum { N = 20000 };
	static float s[N], c[N];
	static uint8_t l[N];
	ss_calib cal, bad;
	size_t i;
	float prev = 0;

	(void)st;
	for (i = 0; i < N; i++) {
		double z = ((double)(rnd() % 80001) / 10000.0) - 4.0;

		s[i] = (float)sigmoid_d(z);
		l[i] = (double)(rnd() % 1000000) / 1e6 < sigmoid_d(0.5 * z - 1.0);
	}
	assert_true(ss_metrics_ece(s, l, N) > 0.1);
	assert_int_equal(ss_calib_fit(&cal, s, l, N), 0);
	assert_int_equal(cal.method, SS_CALIB_PLATT);
	assert_int_equal(ss_calib_check(&cal), 0);
	print_message("platt: a %.4f (0.5), b %.4f (-1)\n", cal.a, cal.b);
	assert_true(fabs(cal.a - 0.5) < 0.05);
	assert_true(fabs(cal.b + 1.0) < 0.08);
	for (i = 0; i < N; i++)
		c[i] = ss_calib_apply(&cal, s[i]);
	assert_true(ss_metrics_ece(c, l, N) < 0.02);
	/* monotone on a fine grid, 0 and 1 included */
	for (i = 0; i <= 10000; i++) {
		float p = ss_calib_apply(&cal, (float)i / 10000.0f);

		assert_true(isfinite(p) && p > 0 && p < 1);
		assert_true(p >= prev);
		prev = p;
	}
	/* one class only, no data, or reversed scores: the identity */
	memset(l, 0, sizeof(l));
	assert_int_equal(ss_calib_fit(&cal, s, l, N), 0);
	assert_int_equal(cal.method, SS_CALIB_NONE);
	assert_true(ss_calib_apply(&cal, 0.3f) == 0.3f);
	assert_int_equal(ss_calib_fit(&cal, s, l, 0), 0);
	assert_int_equal(cal.method, SS_CALIB_NONE);
	for (i = 0; i < N; i++)
		l[i] = s[i] < 0.5f;
	assert_int_equal(ss_calib_fit(&cal, s, l, N), 0);
	assert_int_equal(cal.method, SS_CALIB_NONE);
	/* what a loader refuses */
	bad = (ss_calib){ SS_CALIB_PLATT, -1.0, 0.0 };
	assert_true(ss_calib_check(&bad) < 0);
	bad = (ss_calib){ SS_CALIB_PLATT, 1.0, NAN };
	assert_true(ss_calib_check(&bad) < 0);
	bad = (ss_calib){ 2, 1.0, 0.0 };
	assert_true(ss_calib_check(&bad) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_early_stop),
		cmocka_unit_test(test_against_brute_force),
		cmocka_unit_test(test_threshold_rules),
		cmocka_unit_test(test_edge_cases),
		cmocka_unit_test(test_reliability_brute_force),
		cmocka_unit_test(test_platt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
