/*
 * calib.h - calibration maps: a model's raw score to a probability of
 * reaching stable, fitted on the validation slice (model.c).
 *
 * The map is Platt scaling on the raw score's logit,
 *   p = sigmoid(a * logit(s) + b),  a > 0,
 * fitted by maximum likelihood (Newton's method with a backtracking line
 * search, Platt's smoothed targets).  With a > 0 it is strictly increasing
 * on (0, 1): the order of commits, and so every ranking metric and the
 * picks (the threshold is mapped too), stays as it was.  Platt and not
 * isotonic regression because the validation slices are small (about 80
 * positives on tip) and because an isotonic step map ties every commit of
 * a block, which would reorder the ranking (docs/features.md,
 * "Calibration").
 *
 * Logits are taken of the score clamped to [SS_CALIB_EPS, 1 - SS_CALIB_EPS]
 * (a float score of exactly 0 or 1 has no finite logit).
 */
#ifndef SS_MODELS_CALIB_H
#define SS_MODELS_CALIB_H

#include <stddef.h>
#include <stdint.h>

/* Written to model files: values only grow. */
typedef enum {
	SS_CALIB_NONE = 0,   /* identity: scores are used as they are */
	SS_CALIB_PLATT = 1   /* sigmoid(a * logit(s) + b) */
} ss_calib_method;

#define SS_CALIB_EPS 1e-7

typedef struct {
	uint32_t method;   /* ss_calib_method */
	double a, b;       /* Platt's slope (> 0) and intercept */
} ss_calib;

#define SS_CALIB_INIT { SS_CALIB_NONE, 1.0, 0.0 }

/*
 * Fit Platt scaling to score[n]/label[n].  With no positive or no
 * negative, or when the fitted slope is not positive (the scores do not
 * rank the labels), *out is the identity.  0 or SS_ENOMEM.
 */
int ss_calib_fit(ss_calib *out, const float *score, const uint8_t *label, size_t n);

/* The calibrated probability of a raw score (the score itself for
 * SS_CALIB_NONE). */
float ss_calib_apply(const ss_calib *c, float score);

/* 0 when c is usable (known method, finite parameters, a > 0); otherwise
 * SS_EINVALID with the reason set ("calibration slope is nan"). */
int ss_calib_check(const ss_calib *c);

#endif
