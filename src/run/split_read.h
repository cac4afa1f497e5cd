/*
 * split_read.h - the commits of a train or eval run read into one
 * dataset and split by time (split_read.c): their labels read, the
 * dataset made for the
 * models it feeds, its history filled by the front end before any commit,
 * the sources featurized with their labels, then the training and test
 * parts, the unsettled training commits left out.  Moved from
 * cmd/eval.c and cmd/train.c, which keep the options, the notes and the
 * exits.
 *
 * Like the rest of src/run/ nothing prints or exits: 0 or a negative
 * SS_E* code with the message set; progress through an ss_run_report
 * (NULL: none).
 */
#ifndef SS_RUN_SPLIT_READ_H
#define SS_RUN_SPLIT_READ_H

#include <stddef.h>
#include <stdint.h>

#include "features/history.h"
#include "labels/labels.h"
#include "models/dataset.h"
#include "models/model.h"
#include "models/options.h"
#include "run/run.h"
#include "source/source.h"

/*
 * The labels train and eval learn from: the TSV at path (its column,
 * NULL: the first), else the --stable sources stable[0..nstable), whose
 * malformed mails are a warning through rp.  *out new, the caller's.
 * 0 or < 0 with the message set.
 */
int ss_run_labels_load(ss_labels **out, const char *path, const char *column,
		       const char *const *stable, size_t nstable, const ss_run_report *rp);

typedef struct {
	const ss_feat_options *fo;       /* the features (required) */
	int fold_copies;                 /* copies of a patch folded into one example (0) */
	const ss_model_kind *kinds;      /* the models the rows are prepared for (required) */
	size_t nkinds;                   /* 0 */
	const ss_labels *labels;         /* NULL: every commit negative */
	/* fill the history the commits are featurized against, before the
	 * first (required; 0 or < 0 with the message set) */
	int (*history)(ss_history *h, void *ud);
	void *history_ud;                /* NULL */
	const char *repo;                /* the repository read without specs (NULL) */
	const ss_source_options *opts;   /* how the sources are read (required) */
	const char *const *specs;        /* the sources, the training part with test (NULL) */
	size_t nspecs;                   /* 0 */
	const char *const *test;         /* the test part's sources (NULL: split by date) */
	size_t ntest;                    /* 0 */
	int64_t split;                   /* commits authored before it train (0: all do) */
	int64_t before;                  /* only the commits authored before it are read (0: all) */
	int settle;                      /* days at the end of the training part left out (0) */
	const ss_run_report *rp;         /* progress (NULL: none) */
} ss_run_split_options;

#define SS_RUN_SPLIT_OPTIONS_INIT \
	{ NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, NULL }

/* What ss_run_split_read() made: the caller's (ss_run_split_free). */
typedef struct {
	ss_dataset *d;
	size_t *train, ntrain;           /* the training part's examples, oldest first */
	size_t *test, ntest;             /* the test part's (none without split or test) */
	size_t kept;                     /* commits added */
	size_t unlisted;                 /* of them, the ones the labels do not list */
	size_t dropped;                  /* training commits left out as unsettled */
	double seconds;                  /* how long the reading took */
} ss_run_split;

/*
 * Read o's sources into out as said above; with o->test, o->specs are
 * the training part and o->test the test part, else o->split cuts them
 * by date (0: every commit trains).  0 or < 0 with the message set
 * ("cannot featurize commits: ..." when a commit cannot be); out is
 * then empty.
 */
int ss_run_split_read(ss_run_split *out, const ss_run_split_options *o);
void ss_run_split_free(ss_run_split *s);

#endif
