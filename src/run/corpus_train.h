/*
 * corpus_train.h - what "stablesel corpus" computes from the rows of a
 * corpus (run/corpus_rows.h), for any front end (cmd/corpus.c prints):
 * the general model trained on every project, with the threshold and
 * pick share of a project it has never seen, the
 * leave-one-project-out rows (eval/lopo.h) and how the general model
 * picks in a project it has never seen.  Nothing here prints or
 * exits: 0 or a negative SS_E* code with the message set.
 */
#ifndef SS_RUN_CORPUS_TRAIN_H
#define SS_RUN_CORPUS_TRAIN_H

#include <stddef.h>

#include "eval/lopo.h"
#include "models/model.h"
#include "run/corpus_rows.h"

/* The projects of a corpus as the table holds them out: each one's
 * examples of the dataset. */
typedef struct ss_run_corpus_lopo ss_run_corpus_lopo;

/* c's projects' examples of d (both must outlive the handle). */
int ss_run_corpus_lopo_new(ss_run_corpus_lopo **out, const ss_dataset *d, const ss_corpus *c);
void ss_run_corpus_lopo_free(ss_run_corpus_lopo *l); /* NULL is a no-op */

/* Project i held out (ss_lopo_run(): the newest test_share of it tested,
 * the others trained on with o): its row into *out. */
int ss_run_corpus_lopo_one(ss_lopo_row *out, const ss_run_corpus_lopo *l, size_t i,
			   double test_share, const ss_train_options *o);

/* r's scores added into sum (the table's means). */
void ss_run_corpus_lopo_add(ss_lopo_row *sum, const ss_lopo_row *r);

/* How the general model picks in one project held out, at the median
 * of the other projects' best thresholds. */
typedef struct {
	int shown;          /* the row has the general model's scores (gscore) */
	float threshold;    /* the median of the others' best thresholds */
	double precision, recall, f1;  /* at it */
	double ap;          /* the general model's AP */
	double ap_base;     /* ap over the test part's positive share */
} ss_run_corpus_unseen_row;

/* How the general model picks in a project it has never seen, every
 * project of the table in turn. */
typedef struct {
	ss_run_corpus_unseen_row p[SS_CORPUS_MAX];  /* c's order */
	size_t done;        /* the rows shown */
	/* their means (0 when done is 0) */
	double recall, f1, ap_base;
	/* the other ways to pick (lopo.h), as means of the rows shown:
	 * [0] the median share the others pick (ss_lopo_share_threshold),
	 * [1] the row's expected positives (ss_lopo_expected_threshold) */
	struct {
		double precision, recall, f1;
	} rule[2];
} ss_run_corpus_unseen;

/* The unseen figures of rows[c->n] (the leave-one-out table's, a row
 * without gscore not shown) into *out.  Cannot fail. */
void ss_run_corpus_unseen_score(ss_run_corpus_unseen *out, const ss_corpus *c,
				const ss_lopo_row *rows);

/* What the general model was trained on. */
typedef struct {
	size_t n;           /* commits, weights counted */
	size_t npos;        /* of those, the ones that reached a stable branch */
	float pooled;       /* the threshold on the pooled validation slice */
} ss_run_corpus_general;

/*
 * The linear model of every project of c (its rows in d) trained with o
 * into *out, its source naming the corpus file list; rows (NULL: none,
 * else c->n, the leave-one-out table's) set its threshold to the median
 * of the projects' best ones when held out and its pick share to the
 * median share they pick (lopo.h): what rank uses on a project the model
 * never saw.
 */
int ss_run_corpus_train(ss_model **out, ss_run_corpus_general *g, const ss_dataset *d,
			const ss_corpus *c, const ss_train_options *o, const char *list,
			const ss_lopo_row *rows);

#endif
