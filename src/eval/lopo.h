/*
 * lopo.h - leave one project out (lopo.c; docs/scores.md, "The general
 * model"): how a model trained on other projects, the project's own
 * model, and the project's model adapted from the general one rank a
 * project's newest commits, beside a bug/fix keyword match and the
 * project's best single rule.
 *
 * For the project held out: its examples (those of the corpus, oldest
 * first by author time) split by time, the newest test_share the test
 * part.  The general model learns from every other project, its
 * threshold its own (chosen on the newest commits of the other projects:
 * how the built-in model picks in a project it has never seen).  The
 * project's model learns from its older part alone; the adapted one from
 * the same part with the general model as prior and the rule guard
 * (models/model.h, ss_linear_adapt).  The best single rule is the
 * feature (or the keyword) with the best F1 on the older part, measured
 * on the test part.  Nothing of the test part chooses anything.
 */
#ifndef SS_LOPO_H
#define SS_LOPO_H

#include <stddef.h>

#include "models/dataset.h"
#include "models/model.h"

typedef struct {
	const char *name;
	const size_t *idx;   /* its examples in the dataset */
	size_t n;
	unsigned weight;     /* times each counts when training another's general model (1) */
} ss_lopo_project;

typedef struct {
	double ap, f1, precision, recall;
} ss_lopo_score;

typedef struct {
	size_t ntrain, ntest, npos_test;
	double base;             /* positive share of the test part */
	double keyword_f1;
	double rule_f1;          /* the best single rule of the older part */
	char rule[128];          /* its name */
	ss_lopo_score general, project, adapted;
	ss_linear_adapt adapt;   /* what the adapted model chose */
	/* the adapted model with the nearest past decisions tried (as the
	 * project model trains), and what it chose */
	ss_lopo_score near;
	ss_linear_adapt near_adapt;
	/* the general model's calibrated scores of the test part and their
	 * labels (owned: ss_lopo_row_release), and the threshold with its
	 * best F1 there: what a threshold for unseen projects is chosen from */
	float *gscore;
	uint8_t *glabel;
	float best_t;
} ss_lopo_row;

void ss_lopo_row_release(ss_lopo_row *r);

/*
 * The threshold for a project none of rows[n] is: the median of their
 * best_t (skip: one row left out, SIZE_MAX none).  0.5 when none is left.
 */
float ss_lopo_threshold(const ss_lopo_row *rows, size_t n, size_t skip);

/*
 * Two other ways to pick in a project never seen, compared with the
 * median threshold in the table ("stablesel corpus --leave-one-out"):
 * ss_lopo_share_threshold(), the score of row i that selects the median
 * of the other rows' shares selected at their best_t (a rank rule: the
 * project's own score scale); ss_lopo_expected_threshold(), the score
 * that selects as many commits as row i's scores sum to (its expected
 * positives, when the scores are calibrated).
 */
float ss_lopo_share_threshold(const ss_lopo_row *rows, size_t n, size_t i);
/* The median of rows' shares selected at their best_t (skip: one row
 * left out, SIZE_MAX none); 0 when none is left. */
float ss_lopo_share(const ss_lopo_row *rows, size_t n, size_t skip);
/* How many of n commits a share proposes: rounded, at least one of a
 * non-empty set.  The one rule of lopo and of rank's built-in model. */
size_t ss_lopo_share_count(float share, size_t n);
float ss_lopo_expected_threshold(const ss_lopo_row *r);

/* F1, precision and recall of row r's general scores at threshold t. */
void ss_lopo_general_at(const ss_lopo_row *r, float t, double *f1, double *precision,
			double *recall);

/*
 * Hold out project which of p[np] from d: the row into *out.  o trains
 * every model (linear; its prior, rule guard and adapt fields are set
 * here).  0 or < 0 with the message set.
 */
int ss_lopo_run(ss_lopo_row *out, const ss_dataset *d, const ss_lopo_project *p, size_t np,
		size_t which, double test_share, const ss_train_options *o);

#endif
