/*
 * bands.h - verdict bands: a calibrated probability of reaching stable
 * read as a word a maintainer acts on.
 *
 *   yes     p >= yes      take it: the validation slice's commits this
 *                         high reached stable at least SS_BANDS_YES_PRECISION
 *                         of the time, with a margin for the slice's size
 *   likely  p >= likely   a pick: likely is the model's threshold, so the
 *                         picks of a ranking are exactly its yes and likely rows
 *   unsure  p >= unsure   read it if there is time: the commits below unsure
 *                         held at most 1 - SS_BANDS_UNSURE_RECALL of the
 *                         validation slice's stable commits, with a margin
 *                         for the slice's size
 *   no      below unsure
 *   wait    (rank/rank.h) a yes, likely or unsure commit that may not go
 *           yet: younger than the soak time (--min-age) or its Cc: stable
 *           line says "# after -rcN" / "# after N weeks"
 *
 * The cut points are chosen on the validation slice after calibration
 * (model.c) and written in the model file (format version 3); older files
 * get them from their threshold (ss_bands_from_threshold).  Invariant of a
 * usable set: 0 <= unsure <= likely <= yes <= 1, all finite, except that
 * yes may be SS_BANDS_NEVER: no score is yes (an uncalibrated model,
 * keyword or tag, that never reached the precision target on validation).
 */
#ifndef SS_MODELS_BANDS_H
#define SS_MODELS_BANDS_H

#include <stddef.h>
#include <stdint.h>

/* Ordered: a higher band is a stronger verdict; WAIT is apart. */
typedef enum {
	SS_BAND_NO = 0,
	SS_BAND_UNSURE = 1,
	SS_BAND_LIKELY = 2,
	SS_BAND_YES = 3,
	SS_BAND_WAIT = 4
} ss_band;

#define SS_BANDS_YES_PRECISION 0.90  /* precision target of yes on validation */
#define SS_BANDS_YES_Z 1.64          /* ... by the Wilson lower bound at z (one-sided 95%) */
#define SS_BANDS_UNSURE_RECALL 0.95  /* recall target of unsure and above */
#define SS_BANDS_MIN_YES 5           /* commits a yes cut must hold on validation */
#define SS_BANDS_NEVER 2.0           /* a yes cut no probability reaches */

typedef struct {
	double yes, likely, unsure;  /* lower bounds on the calibrated probability */
} ss_bands;

/*
 * Choose the cut points on calibrated validation scores score[n] with
 * labels label[n], the model's threshold being threshold (the likely cut):
 *   yes: the lowest score s >= threshold such that at least
 *        SS_BANDS_MIN_YES commits score >= s and the Wilson lower bound
 *        (z = SS_BANDS_YES_Z) of the share of them that is positive
 *        reaches SS_BANDS_YES_PRECISION; when no such s exists, max(threshold,
 *        SS_BANDS_YES_PRECISION) if the scores are calibrated (a calibrated
 *        p says as much by itself), else SS_BANDS_NEVER;
 *   unsure: the highest score s <= threshold such that the Wilson lower
 *        bound (z = SS_BANDS_YES_Z) of the share of the positives scoring
 *        >= s reaches SS_BANDS_UNSURE_RECALL; 0 (no "no" band) when no
 *        score reaches it (too few positives to promise it); with no
 *        positive, threshold / 2.
 * 0 or SS_ENOMEM.
 */
int ss_bands_choose(ss_bands *out, const float *score, const uint8_t *label, size_t n,
		    float threshold, int calibrated);

/* The cut points of a model file without bands (versions 1 and 2):
 * likely = threshold, yes = max(threshold, SS_BANDS_YES_PRECISION),
 * unsure = threshold / 2, the threshold taken into [0, 1] first. */
void ss_bands_from_threshold(ss_bands *out, float threshold);

/* Move the likely cut to t (--threshold T), keeping the order: yes and
 * unsure are pushed when t passes them. */
void ss_bands_set_likely(ss_bands *b, double t);

/* 0 when usable (see above); otherwise SS_EINVALID with the reason set. */
int ss_bands_check(const ss_bands *b);

/* The band of probability p: SS_BAND_NO .. SS_BAND_YES. */
ss_band ss_bands_classify(const ss_bands *b, float p);

/* "yes", "likely", "unsure", "no", "wait". */
const char *ss_band_name(ss_band band);

#endif
