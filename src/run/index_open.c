/*
 * index_open.c - the project index as a run opens and reads it
 * (index_open.h).  Moved from cmd/common.c (open_index, index_freshness,
 * history_from_index, cli_backports_from_index), which keeps the note on
 * a missing index and the exits.
 */
#include "run/index_open.h"

#include "run/run.h"

#include <stdlib.h>
#include <string.h>

#include "source/git.h"
#include "util/error.h"
#include "util/strbuf.h"

int ss_run_index_open(ss_index **out, char **path, int *missing, const char *db, const char *repo,
		      ss_repo *rh)
{
	ss_index *ix = NULL;
	int rc;

	*out = NULL;
	*path = NULL;
	*missing = 0;
	if (db ? !(*path = strdup(db))
	       : !repo || (rh ? ss_index_default_path_repo(path, rh) : ss_index_default_path(path, repo)))
		return 0;
	rc = ss_index_open(&ix, *path, SS_INDEX_READ);
	if (rc == SS_ENOTFOUND && !db) {
		free(*path);
		*path = NULL;
		*missing = 1;
		return 0;
	}
	/* another repository's index would score against the wrong history */
	if (!rc && repo &&
	    (rc = rh ? ss_index_check_repository_repo(ix, rh) : ss_index_check_repository(ix, repo)))
		ss_index_free(ix);
	if (rc) {
		free(*path);
		*path = NULL;
		return rc;
	}
	*out = ix;
	return 0;
}

void ss_run_index_missing_say(const char *repo, const ss_run_report *rp)
{
	ss_strbuf sb = SS_STRBUF_INIT;

	/* whole: the repository's path, twice, may outgrow ss_run_say's buffer */
	if (!rp || !rp->say)
		return;
	if (!ss_strbuf_addf(&sb, "no project index for '%s': history features see only the "
			    "commits read, stable branches are read from git (build it with "
			    "'stablesel index --repo %s')", repo, repo))
		rp->say(SS_RUN_NOTE, sb.buf, rp->ud);
	ss_strbuf_release(&sb);
}

void ss_run_index_freshness(ss_index *ix, const char *path, const char *repo, ss_repo *rh,
			    const ss_run_report *rp)
{
	char tip[41], now[41], name[256], *def = NULL;
	int own;

	if (ss_index_ref_tip(tip, ix, "mainline", name, sizeof(name)) ||
	    (rh ? ss_repo_resolve(now, rh, name) : ss_git_resolve(now, repo, name)) ||
	    !strcmp(tip, now))
		return;
	/* the command that updates this index: --db unless it is repo's own
	 * (found before the message: the order a function's arguments are
	 * read in is not C's to promise) */
	own = !(rh ? ss_index_default_path_repo(&def, rh) : ss_index_default_path(&def, repo)) &&
	      !strcmp(def, path);
	ss_run_say(rp, SS_RUN_WARNING, "index '%s' read %s up to %.12s, the repository has %s at "
		   "%.12s: run 'stablesel index --repo %s%s%s' to update it", path, name, tip, name,
		   now, repo, own ? "" : " --db ", own ? "" : path);
	free(def);
}

static int index_commit(const ss_histidx_commit *c, void *ud)
{
	return ss_history_add_known(ud, c);
}

static int index_path(const char *path, int64_t first, void *ud)
{
	return ss_history_add_path(ud, path, first);
}

int ss_run_history_from_index(ss_history *h, ss_index *ix, const char *path,
			      const ss_releases_ask *ask, const char *repo, ss_repo *rh,
			      const ss_run_report *rp)
{
	int rc;

	if ((rc = ss_index_for_each_commit(ix, index_commit, h)) ||
	    (rc = ss_index_for_each_path(ix, index_path, h)))
		return ss_run_fail(rc, "cannot read the history from '%s'", path);
	if (!ss_releases_given(ask)) {
		ss_releases_from from;
		ss_releases *rel = NULL;

		if ((rc = ss_releases_choose(&rel, &from, ask, ix)))
			return ss_run_fail(rc, "cannot read the releases from '%s'", path);
		ss_history_take_releases(h, rel);
	}
	if (repo)
		ss_run_index_freshness(ix, path, repo, rh, rp);
	return 0;
}

static int add_backport(const ss_index_backport *b, void *ud)
{
	return ss_backports_add_known(ud, b->upstream, b->branch);
}

int ss_run_backports_from_index(ss_backports *l, ss_index *ix, const char *path)
{
	int rc;

	if ((rc = ss_index_for_each_backport(ix, add_backport, l)))
		return ss_run_fail(rc, "cannot read the backports from '%s'", path);
	return 0;
}

int ss_run_backports_index(int *read, char **path, ss_backports *l, ss_run *run, const char *db,
			   const char *repo, int64_t as_of)
{
	char *p = NULL;
	ss_index *ix;
	int missing, rc;

	*read = 0;
	if (path)
		*path = NULL;
	if ((rc = ss_run_index(&ix, &p, &missing, run, db, repo, as_of)))
		return rc;
	if (!ix)
		return 0;
	rc = ss_run_backports_from_index(l, ix, p);
	ss_index_free(ix);
	if (rc) {
		free(p);
		return rc;
	}
	*read = 1;
	if (path)
		*path = p;
	else
		free(p);
	return 0;
}
