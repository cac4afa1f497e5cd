/*
 * bands.c - choosing and applying the verdict bands' cut points (see
 * bands.h).
 */
#include <math.h>
#include <stdlib.h>

#include "models/bands.h"
#include "models/metrics.h"
#include "util/error.h"

/*
 * The Wilson score interval's lower bound on a precision of tp in n at
 * z standard deviations.  The yes cut is the lowest score whose commits
 * reach the precision target, and the lowest of many candidate cuts is
 * an optimistic pick on a slice of a few dozen commits: on systemd's
 * validation releases a yes cut of raw precision 0.9 held 82% on the
 * next release.  Asking the bound, not the raw share, to reach the
 * target keeps a margin that shrinks as the slice grows.  The unsure cut
 * takes the same margin on its recall (the no band held 6.3% and 5.1%
 * of the next release's stable commits against its 5%).
 */
static double wilson_lower(size_t tp, size_t n, double z)
{
	double p = (double)tp / (double)n, z2n = z * z / (double)n;

	return (p + z2n / 2 - z * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n))) / (1 + z2n);
}

int ss_bands_choose(ss_bands *out, const float *score, const uint8_t *label, size_t n,
		    float threshold, int calibrated)
{
	size_t *ord, i, npos = 0, tp = 0;
	double yes = -1, unsure = -1;

	out->likely = threshold;
	for (i = 0; i < n; i++)
		npos += label[i] != 0;
	if (!n || !npos) {
		ss_bands_from_threshold(out, threshold);
		return 0;
	}
	if (!(ord = ss_metrics_order(score, n)))
		return SS_ENOMEM;
	/* walk down the scores; a cut is a score where the next one is lower */
	for (i = 0; i < n; i++) {
		float s = score[ord[i]];

		tp += label[ord[i]] != 0;
		if (i + 1 < n && score[ord[i + 1]] == s)
			continue;
		if (s >= threshold && i + 1 >= SS_BANDS_MIN_YES &&
		    wilson_lower(tp, i + 1, SS_BANDS_YES_Z) >= SS_BANDS_YES_PRECISION)
			yes = s;  /* lower ones overwrite: the lowest that reaches it */
		/* the same margin: the positives above the cut, as a share of
		 * all, reach the recall target by their Wilson lower bound */
		if (unsure < 0 && wilson_lower(tp, npos, SS_BANDS_YES_Z) >= SS_BANDS_UNSURE_RECALL)
			unsure = s;
	}
	free(ord);
	out->yes = yes >= 0 ? yes : calibrated ? fmax(threshold, SS_BANDS_YES_PRECISION) : SS_BANDS_NEVER;
	/* too few stable commits to promise the no band anything: none */
	if (unsure < 0)
		unsure = 0;
	out->unsure = unsure <= threshold ? unsure : threshold;
	if (out->yes < out->likely)
		out->yes = out->likely;
	if (out->yes > 1 && out->yes != SS_BANDS_NEVER)
		out->yes = 1;
	return 0;
}

void ss_bands_from_threshold(ss_bands *out, float threshold)
{
	/* a file's threshold is only known to be finite */
	double t = threshold > 1 ? 1.0 : threshold < 0 ? 0.0 : threshold;

	out->likely = t;
	out->yes = fmax(t, SS_BANDS_YES_PRECISION);
	out->unsure = t / 2.0;
}

void ss_bands_set_likely(ss_bands *b, double t)
{
	b->likely = t;
	if (b->yes < t)
		b->yes = t;
	if (b->unsure > t)
		b->unsure = t;
}

int ss_bands_check(const ss_bands *b)
{
	if (!isfinite(b->yes) || !isfinite(b->likely) || !isfinite(b->unsure))
		return ss_error_code(SS_EINVALID, "band cut points are not finite");
	if (b->unsure < 0 || (b->yes > 1 && b->yes != SS_BANDS_NEVER))
		return ss_error_code(SS_EINVALID, "band cut points are outside [0, 1]");
	if (!(b->unsure <= b->likely && b->likely <= b->yes))
		return ss_error_code(SS_EINVALID, "band cut points are out of order "
				     "(unsure %.4g, likely %.4g, yes %.4g)", b->unsure, b->likely, b->yes);
	return 0;
}

ss_band ss_bands_classify(const ss_bands *b, float p)
{
	if (p >= b->yes)
		return SS_BAND_YES;
	if (p >= b->likely)
		return SS_BAND_LIKELY;
	if (p >= b->unsure)
		return SS_BAND_UNSURE;
	return SS_BAND_NO;
}

const char *ss_band_name(ss_band band)
{
	static const char *const names[] = { "no", "unsure", "likely", "yes", "wait" };

	return (unsigned)band <= SS_BAND_WAIT ? names[band] : "unknown";
}
