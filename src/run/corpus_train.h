/*
 * corpus_train.h - what "stablesel corpus" computes from the rows of a
 * corpus (run/corpus_rows.h), for any front end (cmd/corpus.c prints):
 * the general model trained on every project, with the threshold and
 * pick share of a project it has never seen, and the
 * leave-one-project-out rows (eval/lopo.h).  Nothing here prints or
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
