/*
 * history_load.c - the past a run's history starts with
 * (history_load.h): the releases named first (run/releases.h: they come
 * before the index's, and a bad file fails before anything is opened),
 * the repository for the code a commit changes, the project index's
 * commits, paths and releases (run/index_open.c), then the --history
 * sources' commits; the stored features' history walked and primed
 * as a run reads it (ss_run_history_walk, ss_run_history_index_prime);
 * the whole past a training, an evaluation or an explanation starts
 * with, the index's and the --history sources' (ss_run_history_fill).
 */
#include <stdlib.h>

#include "run/history_load.h"
#include "run/index_open.h"
#include "run/releases.h"
#include "util/error.h"

int ss_run_history_load(ss_history *h, const char *file, const char *tags, const char *repo,
			ss_run *run, const ss_run_history_source *src, const ss_run_report *rp)
{
	ss_releases_ask ask = { file, tags, repo, 0 };
	ss_repo *rh;
	char *path = NULL;
	ss_index *ix;
	int rc;

	if (ss_releases_given(&ask)) {
		ss_releases_from from;
		ss_releases *rel;

		if ((rc = ss_releases_choose(&rel, &from, &ask, NULL)))
			return rc;
		ss_history_take_releases(h, rel);
	}
	/* the code a commit changes is looked up in the last release (in
	 * the run's repository when there is one) */
	rh = ss_run_repo(run, repo);
	if (repo && (rc = rh ? ss_history_use_repo(h, rh) : ss_history_open_repo(h, repo)))
		return rc;
	if (!(ix = src->index(&path, src->ud)))
		return 0;
	rc = ss_run_history_from_index(h, ix, path, &ask, repo, rh, rp);
	ss_index_free(ix);
	free(path);
	return rc;
}

struct prime {
	ss_history *hist;
	int rc;
};

static int prime_one(ss_commit *c, void *data)
{
	struct prime *p = data;

	p->rc = ss_history_add(p->hist, c);
	ss_commit_free(c);
	return p->rc;
}

int ss_run_history_prime(ss_history *h, const char *const *specs, size_t n,
			 const ss_run_history_source *src, const ss_run_report *rp)
{
	size_t i, got;
	int rc;

	for (i = 0; i < n; i++) {
		struct prime p = { h, 0 };
		ss_run_skips skips = SS_RUN_SKIPS_INIT;

		if (src->walk) {
			got = src->walk(specs[i], prime_one, &p, src->ud);
		} else {
			if ((rc = ss_run_read_commits(&got, specs[i], src->opts, prime_one, &p, &skips,
						      rp)))
				return rc;
			ss_run_skips_say(&skips, rp);
		}
		if (got == 0)
			ss_run_say(rp, SS_RUN_WARNING, "--history %s holds no commits", specs[i]);
		if (p.rc)
			return ss_run_fail(p.rc, "cannot read --history %s", specs[i]);
	}
	return 0;
}

int ss_run_history_check(const char *tags, const char *repo)
{
	if (tags && !repo)
		return ss_error_code(SS_EINVALID, "--release-tags needs --repo PATH");
	return 0;
}

struct index_reading {
	const ss_run_history_options *o;
	int rc;
};

/* ss_run_history_source.index: the options' index, its error kept. */
static ss_index *options_index(char **path, void *ud)
{
	struct index_reading *r = ud;
	ss_index *ix = NULL;

	if (!r->o->no_index && (r->rc = ss_run_index_read(&ix, path, r->o->run, r->o->db,
							   r->o->repo, r->o->as_of, r->o->rp)))
		return NULL;
	return ix;
}

int ss_run_history_index_load(ss_history *h, int *usage, const ss_run_history_options *o)
{
	struct index_reading r = { o, 0 };
	ss_run_history_source hs = { options_index, NULL, &r, NULL };
	int rc;

	*usage = 0;
	if ((rc = ss_run_history_check(o->release_tags, o->repo))) {
		*usage = 1;
		return rc;
	}
	if ((rc = ss_run_history_load(h, o->releases, o->release_tags, o->repo, o->run, &hs, o->rp)))
		return rc;
	return r.rc;
}

int ss_run_history_fill(ss_history *h, int *usage, const ss_run_history_fill_options *o)
{
	/* the --history sources' revisions: what ss_run_history_revs()
	 * points into lives here, for the priming only */
	const char *revs[64];
	char bottom[64][256];
	static const ss_source_options none = SS_SOURCE_OPTIONS_INIT;
	ss_source_options so = o->opts ? *o->opts : none;
	ss_run_history_source hs = { NULL, NULL, NULL, &so };
	size_t n;
	int rc;

	if ((rc = ss_run_history_index_load(h, usage, &o->load)))
		return rc;
	n = ss_run_history_revs(revs, bottom, 64, o->hrevs, o->nhrevs, so.revs, so.nrevs);
	if (n) {
		so.revs = revs;
		so.nrevs = n;
	}
	return ss_run_history_prime(h, o->specs, o->nspecs, &hs, o->load.rp);
}

int ss_run_history_fill_cb(ss_history *h, void *ud)
{
	int usage;

	return ss_run_history_fill(h, &usage, ud);
}

int ss_run_history_walk(const char *repo, const ss_source_options *so, ss_run_commit_fn fn,
			void *data, const ss_run_report *rp)
{
	ss_run_skips skips = SS_RUN_SKIPS_INIT;
	size_t n;
	int rc;

	if (!repo)
		return ss_error_code(SS_EINVALID, SS_RUN_NO_COMMITS);
	if ((rc = ss_run_read_sources(&n, repo, NULL, 0, so, fn, data, &skips, rp)))
		return rc;
	ss_run_skips_say(&skips, rp);
	return 0;
}

int ss_run_history_index_prime(ss_history *h, const char *db, const char *repo,
			       const ss_run_report *rp)
{
	ss_run_history_options o = SS_RUN_HISTORY_OPTIONS_INIT;
	int usage;

	o.db = db;
	o.repo = repo;
	o.rp = rp;
	return ss_run_history_index_load(h, &usage, &o);
}
