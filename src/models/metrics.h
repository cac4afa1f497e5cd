/*
 * metrics.h - how well scores separate stable material from the rest.
 *
 * Scores are ranked best first; equal scores form one group that is taken
 * or left as a whole (a reviewer cannot read half of a tie), so every
 * ranking metric is defined on the distinct thresholds of the scores.
 * A commit is picked when score >= threshold.
 *
 *   roc_auc      P(score of a random positive > score of a random
 *                negative), ties counting one half (Mann-Whitney)
 *   pr_auc       average precision: sum over distinct thresholds t, best
 *                first, of (recall(t) - recall(previous t)) * precision(t)
 *   p_at_r90     precision at the first threshold whose recall >= 0.90
 *   read_at_r90  commits picked at that threshold: what a reviewer reads,
 *                best first, to find 90% of the stable material
 *   ece          expected calibration error: scores in SS_CALIB_BINS
 *                equal-width bins of [0, 1] (the last one closed, scores
 *                outside [0, 1] clamped into the end bins), the mean over
 *                bins, weighted by their share of commits, of
 *                |mean score - fraction positive|
 *   pick_score   mean score of the picked commits (to set against
 *                precision, their fraction positive)
 * Undefined values (no positive, or no negative for roc_auc) are NaN.
 */
#ifndef SS_METRICS_H
#define SS_METRICS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	size_t n, npos;
	size_t tp, fp, tn, fn;
	double precision, recall, f1, accuracy;
	double roc_auc, pr_auc;
	double p_at_r90;
	size_t read_at_r90;
	double ece, pick_score;
} ss_metrics;

#define SS_CALIB_BINS 10

/* The reliability table behind ece: per bin [i/10, (i+1)/10). */
typedef struct {
	size_t n;
	size_t count[SS_CALIB_BINS];
	double mean_score[SS_CALIB_BINS];  /* NaN for an empty bin */
	double frac_pos[SS_CALIB_BINS];    /* NaN for an empty bin */
	double ece;                        /* NaN when n == 0 */
} ss_reliability;

void ss_metrics_reliability(ss_reliability *out, const float *score, const uint8_t *label,
			    size_t n);
/* ece of ss_metrics_reliability (NaN when n == 0) */
double ss_metrics_ece(const float *score, const uint8_t *label, size_t n);

/* All metrics of scores score[n] against labels label[n] (0/1) at
 * threshold.  0 or SS_ENOMEM. */
int ss_metrics_compute(ss_metrics *out, const float *score, const uint8_t *label, size_t n,
		       float threshold);

double ss_metrics_roc_auc(const float *score, const uint8_t *label, size_t n);

/* Average precision (pr_auc above) of the scores; 0 when it is undefined
 * (no positive, n == 0) or cannot be computed. */
double ss_metrics_avg_precision(const float *score, const uint8_t *label, size_t n);

/* Rules for choosing a decision threshold on validation scores. */
typedef enum {
	SS_THRESH_F1 = 0,        /* the best F1 */
	SS_THRESH_PRECISION = 1, /* the most recall with precision >= target */
	SS_THRESH_RECALL = 2     /* the most precision with recall >= target */
} ss_thresh_rule;

/*
 * Choose a threshold on score[n]/label[n] by rule.  The threshold lies
 * half-way between the chosen score group and the next lower one, so that
 * a refitted model's slightly different scores fall on the same side.
 * When no threshold meets the target, the one closest to it is used.
 * *out_f1/_p/_r (may be NULL) get the F1, precision and recall at it.
 * With no positive at all, the threshold is 0.5.  0 or SS_ENOMEM.
 */
int ss_metrics_threshold(float *out, const float *score, const uint8_t *label, size_t n,
			 ss_thresh_rule rule, double target, double *out_f1, double *out_p,
			 double *out_r);

/* Indices 0..n-1 ordered by score, highest first, ties by index.
 * Caller frees; NULL on ENOMEM. */
size_t *ss_metrics_order(const float *score, size_t n);

#endif
