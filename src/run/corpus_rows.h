/*
 * corpus_rows.h - the multi-project corpus the built-in model learns from
 * (corpus_rows.c; docs/scores.md, "The general model").
 *
 * A corpus file (scripts/corpus.tsv) pins each project: one line of
 * tab-separated fields
 *
 *   name  url  snapshot-commit  snapshot-date  since  until  [index-options]
 *
 * ('#' starts a comment line; dates YYYY-MM-DD; the index options are
 * scripts/corpus.sh's, e.g. --release-tags for tags of another shape).  The project's repository is
 * DIR/<name>.git and its project index DIR/<name>.db, DIR the corpus
 * folder scripts/corpus.sh builds ("stablesel index" of each mirror,
 * which keeps the feature rows and finds the backports).  What a project
 * gives the corpus: the commits the snapshot commit (its mainline's tip
 * when fetched) reaches, authored from since to before until, each
 * labelled 1 when a stable branch of the index carries it, its features
 * the rows the index keeps (no diff is read).  until lies a year or more
 * before the snapshot, so that the fate of every commit kept is settled.
 *
 * A project of mail (the Linux tip tree's archive in ../shared/data, whose
 * label is the Cc: stable tag) has url "data:<file under the data
 * folder>", snapshot "-", and the options "--labels FILE --label-column
 * NAME" (FILE under the data folder): its commits are read from the mbox
 * with the tag masked, their features extracted with their own history
 * (the commits before them, the built-in Linux releases).
 *
 * Examples are appended to one dataset project after project; each
 * project's examples are the index range [first, first + n).
 */
#ifndef SS_RUN_CORPUS_ROWS_H
#define SS_RUN_CORPUS_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "models/dataset.h"
#include "run/feature_store.h"
#include "run/commits.h"
#include "run/run.h"

#define SS_CORPUS_MAX 64

typedef struct {
	char name[64];
	char url[256];
	char commit[41];
	char date[16];
	int64_t since;      /* first author time kept */
	int64_t until;      /* the author times kept are before it */
	int mail;           /* a "data:" mbox, labelled from a file */
	unsigned weight;    /* each example counts this many times in training (1) */
	char labels[256];   /* mail: the labels file (under the data folder) */
	char column[64];    /* mail: its column */
	/* filled by ss_corpus_read */
	size_t first, n;    /* examples of the dataset */
	size_t npos;
} ss_corpus_project;

typedef struct {
	ss_corpus_project p[SS_CORPUS_MAX];
	size_t n;
} ss_corpus;

/* Parse the corpus file at path into out.  A malformed line: SS_EINVALID
 * with "path:line: problem" set. */
int ss_corpus_load(ss_corpus *out, const char *path);

/* The project named name, or NULL. */
ss_corpus_project *ss_corpus_find(ss_corpus *c, const char *name);

/*
 * Append project p's examples (dir as above) to d, which was made with
 * the project model's feature options (SS_FEAT_OPTIONS_INIT): the rows
 * its index keeps, the stable tag's feature cleared (the corpus labels
 * come from backports; a tag must not teach a model that meets projects
 * without one).  hr walks the repository (NULL: as a run reads it,
 * run/history_load.h's ss_run_history_walk()).  Sets
 * p->first, p->n, p->npos.  An index without the rows reaching p->rev:
 * SS_ENOTFOUND with the message saying to run "stablesel index".
 */
int ss_corpus_read(ss_dataset *d, ss_corpus_project *p, const char *dir,
		   const ss_run_history_reader *hr, const ss_run_report *rp);

/* The same for a project of mail (p->mail), data the data folder
 * (../shared/data); its features are extracted, not read from rows. */
int ss_corpus_read_mail(ss_dataset *d, ss_corpus_project *p, const char *data,
			const ss_run_report *rp);

/* The examples of d the projects of c read, authored on or after each
 * one's since, except those of the project named skip (NULL: none), into
 * *out (malloc'd), *n their number; weighted: each example p->weight
 * times (a training set), else once.  0 or SS_ENOMEM. */
int ss_corpus_examples(size_t **out, size_t *n, const ss_corpus *c, const char *skip,
		       const ss_dataset *d, int weighted);

/*
 * The rows of every project of c, in c's order, into a new dataset *out
 * (the project model's feature options, SS_FEAT_OPTIONS_INIT, prepared
 * for the linear model): a project of mail extracted from the data
 * folder data (ss_corpus_read_mail()), the others read from their
 * indexes in dir (ss_corpus_read(), walking as a run reads); each one's
 * first, n and npos set.  read (NULL: none) is called with ud once a
 * project's rows are in, before the next one is read (the front end
 * says how many it gave).  0, or < 0 with the message set and *out NULL.
 */
int ss_run_corpus_read(ss_dataset **out, ss_corpus *c, const char *dir, const char *data,
		       void (*read)(const ss_corpus_project *p, void *ud), void *ud,
		       const ss_run_report *rp);

/* Set the weight of the project named by "NAME=N" (N 1..100); SS_EINVALID
 * with the message set for another form or an unknown name. */
int ss_corpus_set_weight(ss_corpus *c, const char *spec);

#endif
