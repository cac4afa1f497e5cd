/*
 * rank_stream.c - the ranking of a rank, report or review run: the files
 * it reads first, --as-of, the --onto branches, the honest replay's cut,
 * the index's stable tree, the --history and source commits streamed
 * through the ranking and the branches, the built-in model's pick share,
 * the rows an output lists (rank_stream.h).
 */
#include "run/rank_stream.h"

#include <stdlib.h>

#include "eval/eval.h"
#include "run/commits.h"
#include "run/feed.h"
#include "run/index_open.h"
#include "run/replay_cut.h"
#include "util/error.h"

int ss_run_rank_load(ss_model **model, ss_policy **policy, ss_labels **labels,
		     ss_backports **stable, const char *model_file, const char *policy_file,
		     const char *labels_file, const char *label_column, const char *stable_src,
		     const ss_run_report *rp)
{
	ss_backports_options lo = SS_BACKPORTS_OPTIONS_INIT;
	size_t skipped = 0;
	int rc;

	if ((model_file && (rc = ss_model_load(model, model_file))) ||
	    (policy_file && (rc = ss_policy_load(policy, policy_file))) ||
	    (labels_file && (rc = ss_labels_from_tsv(labels, labels_file, label_column))))
		return rc;
	if (!stable_src)
		return 0;
	if ((rc = ss_backports_new(stable, &lo)) ||
	    (rc = ss_backports_read(*stable, stable_src, &skipped)))
		return ss_run_fail(rc, "cannot read stable tree '%s'", stable_src);
	if (skipped)
		ss_run_say(rp, SS_RUN_WARNING, "%zu malformed mails skipped in '%s'", skipped, stable_src);
	return 0;
}

void ss_run_rank_as_of(int64_t as_of, ss_source_options *opts, int64_t *now,
		       const ss_run_report *rp)
{
	char date[16];

	if (!as_of)
		return;
	opts->until = as_of;
	if (!*now)
		*now = as_of;
	ss_format_date(date, as_of);
	ss_run_say(rp, SS_RUN_NOTE, "as of %s: the index is read as it was then (the backports "
		   "committed, the releases tagged, the review decisions made by then) and the "
		   "commits committed later are passed over", date);
}

int ss_run_rank_stable(ss_backports **out, char **path, ss_run *run, const char *db,
		       const char *repo, int64_t as_of)
{
	ss_backports_options lo = SS_BACKPORTS_OPTIONS_INIT;
	int read, rc;

	*out = NULL;
	*path = NULL;
	if (ss_backports_new(out, &lo))
		return ss_error_code(SS_ENOMEM, "out of memory");
	if ((rc = ss_run_backports_index(&read, path, *out, run, db, repo, as_of)) || !read ||
	    !ss_backports_count(*out)) {
		ss_backports_free(*out);
		*out = NULL;
	}
	return rc;
}

int ss_run_rank_onto(ss_run_branches **out, int *usage, const char **onto, size_t *n,
		     char **owned, char **at, const char **asked, const char *verdicts,
		     int64_t as_of, const ss_run_branches_options *bo)
{
	int rc;

	*out = NULL;
	*usage = 0;
	if (!*n && bo->ix &&
	    (rc = ss_run_onto_from_index(owned, onto, n, SS_RANK_MAX_BRANCHES, bo->ix, bo->ixpath,
					 bo->report)))
		return rc;
	if ((rc = ss_run_onto_check(*n, bo->repo, verdicts))) {
		*usage = 1;
		return rc;
	}
	if (as_of && bo->repo && (rc = ss_run_onto_as_of(at, asked, onto, n, bo->repo, as_of, bo->report)))
		return rc;
	return *n ? ss_run_branches_open(out, onto, *n, bo) : 0;
}

int ss_run_rank_replay_cut(ss_backports **stable, ss_index *ix, const char *path,
			   const char *repo, ss_repo *rh, const char *const *onto, size_t n,
			   const ss_run_report *rp)
{
	ss_backports *cut;
	int rc;

	if ((rc = ss_run_replay_cut(&cut, ix, path, repo, rh, onto, n, rp)))
		return rc;
	if (cut) {
		ss_backports_free(*stable);
		*stable = cut;
	}
	return 0;
}

/* One stream's commits into the ranking: the first failure kept. */
struct feed {
	ss_ranking *r;
	ss_history *hist;
	ss_run_branches *br;
	int64_t since;      /* commits authored before it are history only */
	const char *what;   /* progress label */
	const ss_run_report *rp;
	size_t n;
	int rc;
};

static int feed_one(ss_commit *c, void *data)
{
	struct feed *f = data;

	if ((f->rc = ss_run_feed(f->r, f->hist, f->br, c, f->since)))
		return 1;  /* stops the reading; the caller returns f->rc */
	ss_commit_free(c);
	ss_run_progress(f->rp, f->what, ++f->n, 0);
	return 0;
}

/* The --history sources, every commit history only, whatever its date. */
static int feed_history(struct feed *f, const ss_run_rank_stream_options *o)
{
	ss_run_skips skips = SS_RUN_SKIPS_INIT;
	ss_source_options ho = *o->opts;
	const char *revs[64];
	char bottom[64][256];
	size_t n;
	int rc;

	n = ss_run_history_revs(revs, bottom, 64, o->hrevs, o->nhrevs, o->opts->revs,
				o->opts->nrevs);
	if (n) {
		ho.revs = revs;
		ho.nrevs = n;
	}
	rc = ss_run_read_sources(&n, o->repo, o->history, o->nhistory, &ho, feed_one, f, &skips,
				 o->rp);
	if (rc || (rc = f->rc))
		return rc;
	ss_run_skips_say(&skips, o->rp);
	return 0;
}

/* The ranked commits: the replay's when the training kept them, else the
 * sources'. */
static int feed_ranked(struct feed *f, ss_replay **replay, const ss_run_rank_stream_options *o)
{
	ss_commit *c;
	size_t n;
	int rc;

	if (!*replay) {
		rc = ss_run_read_sources(&n, o->repo, o->specs, o->nspecs, o->opts, feed_one, f, NULL,
					 o->rp);
		return rc ? rc : f->rc;
	}
	while (!(rc = ss_replay_next(&c, *replay)))
		if (feed_one(c, f))
			return f->rc;
	if (rc != SS_ITEROVER)
		return rc;
	ss_replay_free(*replay);
	*replay = NULL;
	return 0;
}

int ss_run_rank_stream(ss_ranking **out, ss_history *hist, const ss_model *m,
		       ss_ranker_options *ko, ss_replay **replay,
		       const ss_run_rank_stream_options *o)
{
	struct feed f = { NULL, hist, o->br, INT64_MAX, "reading history", o->rp, 0, 0 };
	float share = o->builtin && ko->threshold < 0 ? ss_model_pick_share(m) : 0.0f;
	int rc;

	*out = NULL;
	if (share > 0.0f) {
		/* the threshold moves once every score is known: every row
		 * explained, a queue's text kept */
		ko->explain_all = 1;
		if (ko->keep == SS_RANK_KEEP_PATCH)
			ko->keep = SS_RANK_KEEP_ALL;
	}
	if (ss_ranking_new(out, m, ko))
		return ss_error_code(SS_ENOMEM, "out of memory");
	f.r = *out;
	if (o->nhistory && (rc = feed_history(&f, o)))
		return rc;
	f = (struct feed){ *out, hist, o->br, o->since,
			   o->br ? "ranking and placing commits" : "ranking commits", o->rp, 0, 0 };
	if ((rc = feed_ranked(&f, replay, o)))
		return rc;
	ss_run_progress_done(o->rp);
	if (share > 0.0f) {
		size_t picked;
		double t;

		if (ss_ranking_pick_share(*out, share, &picked, &t))
			return ss_error_code(SS_ENOMEM, "out of memory");
		ss_run_say(o->rp, SS_RUN_NOTE, "the built-in model proposes its share of a project it "
			   "has never seen, the best %.0f%% of the commits ranked: %zu of %zu, scoring "
			   "at least %.3f (--threshold sets one)", share * 100.0, picked,
			   ss_ranking_count(*out), t);
	}
	return 0;
}

size_t ss_run_rank_rows(const ss_ranking *r, int picks_only)
{
	size_t n = 0;

	for (size_t i = 0; i < ss_ranking_count(r); i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		n += picks_only ? w.pick != 0 : w.shown != 0;
	}
	return n;
}
