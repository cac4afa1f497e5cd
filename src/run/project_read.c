/*
 * project_read.c - the project model's training reading a run's sources
 * and index (project_read.h): the walks of the history and the ranked
 * commits (run/commits.h), the history primed (run/history_load.h), the
 * stored features opened (run/feature_store.h) and the review's
 * rejections (run/decisions.h), the index borrowed from the run.
 */
#include <stdlib.h>

#include "run/commits.h"
#include "run/decisions.h"
#include "run/history_load.h"
#include "run/project_read.h"
#include "util/error.h"

/* The index of s for repo, NULL (and 0) with --no-index or without one. */
static int index_read(ss_index **ix, char **path, const ss_run_project_sources *s)
{
	*ix = NULL;
	*path = NULL;
	if (s->no_index)
		return 0;
	return ss_run_index_read(ix, path, s->run, s->db, s->repo, s->as_of, s->rp);
}

/* Every commit of specs (the repository without specs) to fn; the
 * history's skipped commits counted into skips and said (NULL: each an
 * error).  No source at all is the user's mistake. */
static int walk(ss_run_project_sources *s, const char *const *specs, size_t nspecs,
		const ss_source_options *opts, ss_run_skips *skips, ss_run_commit_fn fn,
		void *data, const ss_run_report *rp)
{
	size_t n;
	int rc;

	if (!nspecs && !s->repo) {
		s->usage = 1;
		return ss_error_code(SS_EINVALID, SS_RUN_NO_COMMITS);
	}
	if ((rc = ss_run_read_sources(&n, s->repo, specs, nspecs, opts, fn, data, skips, rp)))
		return rc;
	if (skips)
		ss_run_skips_say(skips, rp);
	return 0;
}

static int walk_history(ss_run_commit_fn fn, void *data, void *ud)
{
	ss_run_project_sources *s = ud;
	ss_run_skips skips = SS_RUN_SKIPS_INIT;

	return walk(s, s->nhspecs ? s->hspecs : NULL, s->nhspecs, s->hopts, &skips, fn, data,
		    s->rp);
}

static int walk_ranked(ss_run_commit_fn fn, void *data, const ss_run_report *rp, void *ud)
{
	ss_run_project_sources *s = ud;

	return walk(s, s->specs, s->nspecs, s->opts, NULL, fn, data, rp ? rp : s->rp);
}

/* The ranked commits' read of the repository (no SOURCE: --repo and its
 * --rev) opens its own git source and writes nothing of s (the usage flag
 * only without any source).  Sources named (mboxes, standard input, git:)
 * are read after the history, as always: the mail reader's setup is one
 * thread's. */
static int ranked_apart(void *ud)
{
	ss_run_project_sources *s = ud;

	return !s->nspecs && s->repo;
}

/* Primed as the ranking's history is (run/history_load.h). */
static int prime(ss_history *h, void *ud)
{
	ss_run_project_sources *s = ud;
	ss_run_history_options ho = SS_RUN_HISTORY_OPTIONS_INIT;
	int usage;

	ho.releases = s->releases;
	ho.release_tags = s->release_tags;
	ho.repo = s->repo;
	ho.db = s->db;
	ho.no_index = s->no_index;
	ho.as_of = s->as_of;
	ho.run = s->run;
	ho.rp = s->rp;
	return ss_run_history_index_load(h, &usage, &ho);
}

static int store(ss_run_feature_store **out, const ss_feat_options *fo, void *ud)
{
	ss_run_project_sources *s = ud;
	ss_index *ix;
	char *path;
	int rc;

	*out = NULL;
	/* the rows were extracted with the index's releases and full diffs */
	if (s->no_index || s->releases || s->release_tags || !s->hopts->with_diff || !s->repo)
		return 0;
	if ((rc = index_read(&ix, &path, s)) || !ix)
		return rc;
	if ((rc = ss_run_feature_store_open(out, ix, path, fo, s->hopts)))
		return rc;
	/* the run's repository, not one more open of it */
	ss_run_feature_store_use_repo(*out, s->repo, ss_run_repo(s->run, s->repo));
	return 0;
}

static int rejected(ss_strmap **out, void *ud)
{
	ss_run_project_sources *s = ud;
	ss_index *ix;
	char *path;
	int rc;

	*out = NULL;
	if ((rc = index_read(&ix, &path, s)) || !ix)
		return rc;
	rc = ss_run_decisions_rejected(out, ix, path);
	ss_index_free(ix);
	free(path);
	return rc;
}

void ss_run_project_reader_init(ss_run_project_reader *out, ss_run_project_sources *s)
{
	out->walk_history = walk_history;
	out->walk_ranked = walk_ranked;
	out->ranked_apart = ranked_apart;
	out->prime = prime;
	out->store = store;
	out->rejected = rejected;
	out->ud = s;
}
