/*
 * calib.c - Platt scaling of raw scores on the validation slice (see
 * calib.h).  Written by hand: none of the libraries this project
 * uses (HACKING.md) offers a calibration fit, and no Debian C library
 * does as a library call (libsvm's Platt fit is internal to its SVM
 * training).
 */
#include <math.h>
#include <stdlib.h>

#include "models/calib.h"
#include "util/error.h"

static double logit(float s)
{
	double p = s;

	if (!(p >= SS_CALIB_EPS))  /* NaN too */
		p = SS_CALIB_EPS;
	if (p > 1.0 - SS_CALIB_EPS)
		p = 1.0 - SS_CALIB_EPS;
	return log(p / (1.0 - p));
}

/* log(1 + e^f) without overflow */
static double log1pexp(double f)
{
	return f > 0 ? f + log1p(exp(-f)) : log1p(exp(f));
}

static double sigm(double f)
{
	return f >= 0 ? 1.0 / (1.0 + exp(-f)) : exp(f) / (1.0 + exp(f));
}

/* Negative log-likelihood of targets t[n] under sigmoid(a z + b). */
static double nll(const double *z, const double *t, size_t n, double a, double b)
{
	double s = 0.0;
	size_t i;

	for (i = 0; i < n; i++) {
		double f = a * z[i] + b;

		s += log1pexp(f) - t[i] * f;
	}
	return s;
}

int ss_calib_fit(ss_calib *out, const float *score, const uint8_t *label, size_t n)
{
	double *z, *t, a = 0.0, b, f0, np = 0, nn;
	size_t i;
	int it;

	*out = (ss_calib)SS_CALIB_INIT;
	for (i = 0; i < n; i++)
		np += label[i] != 0;
	nn = (double)n - np;
	if (!np || !nn)
		return 0;
	z = malloc(n * sizeof(*z));
	t = malloc(n * sizeof(*t));
	if (!z || !t) {
		free(z);
		free(t);
		return SS_ENOMEM;
	}
	/* Platt's targets: a prior of one example each way keeps a small
	 * slice from fitting 0 and 1 exactly (Platt 1999; Lin et al. 2007) */
	for (i = 0; i < n; i++) {
		z[i] = logit(score[i]);
		t[i] = label[i] ? (np + 1.0) / (np + 2.0) : 1.0 / (nn + 2.0);
	}
	b = log((np + 1.0) / (nn + 1.0));
	f0 = nll(z, t, n, a, b);
	for (it = 0; it < 100; it++) {
		double ga = 0, gb = 0, haa = 1e-12, hab = 0, hbb = 1e-12, det, da, db, step;

		for (i = 0; i < n; i++) {
			double p = sigm(a * z[i] + b), w = p * (1.0 - p), r = p - t[i];

			ga += z[i] * r;
			gb += r;
			haa += z[i] * z[i] * w;
			hab += z[i] * w;
			hbb += w;
		}
		if (fabs(ga) < 1e-9 * (double)n && fabs(gb) < 1e-9 * (double)n)
			break;
		det = haa * hbb - hab * hab;
		if (!(det > 0))
			break;
		da = -(hbb * ga - hab * gb) / det;
		db = -(haa * gb - hab * ga) / det;
		/* backtracking: Newton's step halved until the loss falls enough */
		for (step = 1.0; step >= 1e-10; step /= 2) {
			double f1 = nll(z, t, n, a + step * da, b + step * db);

			if (f1 <= f0 + 1e-4 * step * (ga * da + gb * db)) {
				a += step * da;
				b += step * db;
				f0 = f1;
				break;
			}
		}
		if (step < 1e-10)
			break;
	}
	free(z);
	free(t);
	if (a > 0 && isfinite(a) && isfinite(b))
		*out = (ss_calib){ SS_CALIB_PLATT, a, b };
	return 0;
}

float ss_calib_apply(const ss_calib *c, float score)
{
	if (c->method != SS_CALIB_PLATT)
		return score;
	return (float)sigm(c->a * logit(score) + c->b);
}

int ss_calib_check(const ss_calib *c)
{
	if (c->method > SS_CALIB_PLATT)
		return ss_error_code(SS_EINVALID, "calibration method %u is unknown", c->method);
	if (!isfinite(c->a) || !isfinite(c->b))
		return ss_error_code(SS_EINVALID, "calibration %s is %s", isfinite(c->a) ? "intercept" : "slope",
				     isnan(isfinite(c->a) ? c->b : c->a) ? "nan" : "infinite");
	if (c->method == SS_CALIB_PLATT && !(c->a > 0))
		return ss_error_code(SS_EINVALID, "calibration slope %g is not positive (the map would not "
				     "be increasing)", c->a);
	return 0;
}
