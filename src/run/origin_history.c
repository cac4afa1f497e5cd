/*
 * origin_history.c - the history "origin" explains commits against, and a
 * commit read from the repository for it, the releases and the commits
 * asked for (origin_history.h), and all of it read in its order for a run
 * (ss_run_origin_load).  Moved from cmd/origin.c, which keeps the
 * options and the printing.
 */
#include "run/origin_history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/commits.h"
#include "util/error.h"

static int known_commit(const ss_histidx_commit *c, void *ud)
{
	return ss_histidx_add_known(ud, c);
}

int ss_run_origin_history(ss_histidx **out, const char *repo, ss_repo *rh)
{
	ss_histidx *h = NULL;
	int rc;

	*out = NULL;
	if ((rc = ss_histidx_new(&h)))
		return rc;
	if (repo && (rc = rh ? ss_histidx_use_repo(h, rh) : ss_histidx_open_repo(h, repo))) {
		ss_histidx_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

int ss_run_origin_known(ss_histidx *h, ss_index *ix, const char *path)
{
	int rc = ss_index_for_each_commit(ix, known_commit, h);

	return rc ? ss_run_fail(rc, "cannot read the history from '%s'", path) : 0;
}

int ss_run_origin_commit(ss_commit **out, ss_histidx *h, const char *repo,
			 const ss_source_options *opts, const char *rev, const ss_run_report *rp)
{
	ss_source_options so = *opts;
	char sha[41], range[100];
	const char *revs[1];
	ss_source *src;
	size_t nparents;
	int rc;

	*out = NULL;
	if (ss_histidx_rev_parse(sha, &nparents, h, rev))
		return SS_ESKIP;   /* its message names rev */
	if (nparents > 1)
		return ss_error_code(SS_ESKIP, "%s is a merge commit: it fixes nothing itself", rev);
	snprintf(range, sizeof(range), nparents ? "%s^..%s" : "%s", sha, sha);
	revs[0] = range;
	so.revs = revs;
	so.nrevs = 1;
	if ((rc = ss_source_open(&src, repo, &so)))
		return rc;
	while ((rc = ss_source_next(out, src)) == SS_ESKIP)
		ss_run_say(rp, SS_RUN_ERROR, "%s", ss_error_last());
	ss_source_free(src);
	if (rc == SS_ITEROVER)
		return ss_error_code(SS_ESKIP, "cannot read commit %s", sha);
	return rc;
}

int ss_run_origin_is_source(const char *arg)
{
	struct stat st;

	return !strcmp(arg, "-") || !strncmp(arg, "git:", 4) || !stat(arg, &st);
}

int ss_run_origin_releases(ss_releases **out, ss_histidx *h, ss_index *ix, const char *path,
			   const ss_releases_ask *ask, const ss_run_report *rp)
{
	ss_releases_from from;
	int rc;

	*out = NULL;
	if (ix && (rc = ss_run_origin_known(h, ix, path)))
		return rc;
	if ((rc = ss_releases_choose(out, &from, ask, ix)))
		return from == SS_RELEASES_INDEX
			? ss_run_fail(rc, "cannot read the releases from '%s'", path) : rc;
	if (from == SS_RELEASES_NONE)
		ss_run_say(rp, SS_RUN_WARNING, "no releases known: give --releases FILE or --repo PATH");
	else if (from != SS_RELEASES_INDEX && !ask->file && !ss_releases_count(*out))
		ss_run_say(rp, SS_RUN_WARNING, "no release tags in '%s'%s%s", ask->repo,
			   ask->tags ? " match " : "", ask->tags ? ask->tags : "");
	return 0;
}

/* What the reading of the sources hands each commit. */
struct reading {
	ss_histidx *h;
	ss_run_origin_wanted *w;
	size_t nw;
	int rc;               /* the history's error, which stopped the reading */
};

static int index_commit(ss_commit *c, void *data)
{
	struct reading *r = data;
	int kept = 0;

	if ((r->rc = ss_histidx_add_commit(r->h, c)))
		return 1;
	for (size_t i = 0; i < r->nw; i++) {
		ss_run_origin_wanted *w = &r->w[i];

		if (strncasecmp(c->id, w->prefix, strlen(w->prefix)))
			continue;
		if (w->nmatch++)
			continue;  /* reported as ambiguous */
		w->commit = c;
		kept = 1;
	}
	if (!kept)
		ss_commit_free(c);
	return 0;
}

int ss_run_origin_read(ss_histidx *h, ss_run_origin_wanted *w, size_t nw,
		       const char *const *specs, size_t n, const ss_source_options *opts,
		       const ss_run_report *rp)
{
	struct reading r = { h, w, nw, 0 };
	size_t one;
	int rc;

	for (size_t i = 0; i < nw; i++)
		snprintf(w[i].prefix, sizeof(w[i].prefix), "%s", w[i].arg);
	for (size_t i = 0; i < n; i++) {
		if ((rc = ss_run_read_commits(&one, specs[i], opts, index_commit, &r, NULL, rp)))
			return rc;
		if (r.rc)
			return r.rc;
	}
	return 0;
}

int ss_run_origin_read_history(ss_histidx *h, const char *const *specs, size_t n, int mask,
			       const ss_run_report *rp)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	const char *revs[1] = { NULL };
	int rc;

	so.revs = revs;
	so.with_diff = 0;
	so.mask_stable_tags = mask;
	/* one source at a time, as the commands read a --history source */
	for (size_t i = 0; i < n; i++)
		if ((rc = ss_run_origin_read(h, NULL, 0, &specs[i], 1, &so, rp)))
			return rc;
	return 0;
}

int ss_run_origin_pick(ss_commit **out, ss_run_origin_wanted *w, int from_sources, ss_histidx *h,
		       const char *repo, const ss_source_options *opts, const ss_run_report *rp)
{
	int rc;

	*out = NULL;
	if (from_sources && !w->nmatch)
		return ss_error_code(SS_ESKIP, "no commit '%s' in the sources", w->arg);
	if (from_sources && w->nmatch > 1)
		return ss_error_code(SS_ESKIP, "commit id '%s' is ambiguous: %d commits match", w->arg,
				     w->nmatch);
	if (!from_sources && (rc = ss_run_origin_commit(&w->commit, h, repo, opts, w->arg, rp)))
		return rc;
	*out = w->commit;
	return 0;
}

void ss_run_origin_wanted_release(ss_run_origin_wanted *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int shared = 0;

		for (size_t j = 0; j < i; j++)
			shared |= w[j].commit == w[i].commit;
		if (!shared)
			ss_commit_free(w[i].commit);
	}
}

int ss_run_origin_load(ss_histidx **out, ss_releases **rel, ss_run_origin_wanted *w, size_t nw,
		       const ss_run_origin_options *o)
{
	/* the releases as every command chooses them (run/releases.h), with
	 * the repository's tags when nothing else has any */
	ss_releases_ask ask = { o->releases, o->release_tags, o->repo, 1 };
	ss_histidx *h;
	ss_index *ix = NULL;
	char *path = NULL;
	int rc;

	*out = NULL;
	*rel = NULL;
	if ((rc = ss_run_origin_history(&h, o->repo, ss_run_repo(o->run, o->repo))))
		return rc;
	/* the project index: every mainline commit as a target */
	if (!o->no_index &&
	    (rc = ss_run_index_read(&ix, &path, o->run, o->db, o->repo, o->as_of, o->rp)))
		goto free_history;
	rc = ss_run_origin_releases(rel, h, ix, path, &ask, o->rp);
	ss_index_free(ix);
	free(path);
	if (rc)
		goto free_history;
	if ((rc = ss_run_origin_read_history(h, o->history, o->nhistory, o->opts->mask_stable_tags,
					     o->rp)))
		goto free_history;
	if (o->nspecs && (rc = ss_run_origin_read(h, w, nw, o->specs, o->nspecs, o->opts, o->rp)))
		goto free_history;
	*out = h;
	return 0;

free_history:
	ss_releases_free(*rel);
	*rel = NULL;
	ss_histidx_free(h);
	return rc;
}
