/*
 * origin_history.c - the history "origin" explains commits against, and a
 * commit read from the repository for it (origin_history.h).  Moved from cmd/origin.c,
 * which keeps the options, the wanted commits and the printing.
 */
#include "run/origin_history.h"

#include <stdio.h>

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
