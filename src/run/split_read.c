/*
 * split_read.c - the labels of a train or eval run and its commits read
 * into one dataset and split by time (split_read.h).
 */
#include "run/split_read.h"

#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/split.h"
#include "run/commits.h"
#include "util/error.h"

int ss_run_labels_load(ss_labels **out, const char *path, const char *column,
		       const char *const *stable, size_t nstable, const ss_run_report *rp)
{
	size_t skipped = 0;
	int rc;

	*out = NULL;
	if (path && (rc = ss_labels_from_tsv(out, path, column)))
		return rc;
	if (nstable) {
		if ((rc = ss_labels_from_stable(out, stable, nstable, &skipped)))
			return rc;
		if (skipped)
			ss_run_say(rp, SS_RUN_WARNING, "%zu malformed stable messages skipped", skipped);
	}
	return 0;
}

/* The commits of specs into the sink as part part; the sink's error
 * first, then the reading's. */
static int read_part(ss_split_sink *sink, uint8_t part, const char *const *specs, size_t n,
		     const ss_run_split_options *o)
{
	size_t read;
	int rc;

	sink->part = part;
	rc = ss_run_read_sources(&read, o->repo, specs, n, o->opts, ss_split_add, sink, NULL, o->rp);
	if (sink->rc)
		return ss_run_fail(sink->rc, "cannot featurize commits");
	return rc;
}

int ss_run_split_read(ss_run_split *out, const ss_run_split_options *o)
{
	ss_split_sink sink;
	double t0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ss_dataset_new(&out->d, o->fo)))
		return rc;
	ss_dataset_set_fold_copies(out->d, o->fold_copies);
	for (size_t k = 0; k < o->nkinds; k++)
		if ((rc = ss_model_prepare_dataset(o->kinds[k], out->d)))
			goto fail;
	/* the dataset owns its history and hands it out read-only; it is
	 * filled here, before any commit, as the past they are featurized
	 * against */
	if ((rc = o->history(ss_dataset_history_mut(out->d), o->history_ud)))
		goto fail;
	memset(&sink, 0, sizeof(sink));
	sink.d = out->d;
	sink.labels = o->labels;
	sink.before = o->before;
	t0 = ss_now();
	if ((rc = read_part(&sink, 0, o->specs, o->nspecs, o)) ||
	    (o->test && (rc = read_part(&sink, 1, o->test, o->ntest, o))))
		goto fail;
	if (!o->test && o->split)
		ss_split_by_date(out->d, o->split);
	out->kept = sink.kept;
	out->unlisted = sink.unlisted;
	if ((rc = ss_split_part(&out->train, &out->ntrain, out->d, 0)) ||
	    ((o->test || o->split) && (rc = ss_split_part(&out->test, &out->ntest, out->d, 1))))
		goto fail;
	out->dropped = ss_split_settle(out->train, &out->ntrain, out->d, o->settle, o->split);
	out->seconds = ss_now() - t0;
	return 0;
fail:
	ss_run_split_free(out);
	return rc;
}

void ss_run_split_free(ss_run_split *s)
{
	ss_dataset_free(s->d);
	free(s->train);
	free(s->test);
	memset(s, 0, sizeof(*s));
}
