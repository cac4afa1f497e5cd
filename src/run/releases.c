/*
 * releases.c - which releases a run uses (releases.h): the given file or
 * tags, else the project index's, else (when asked) the repository's
 * tags.
 */
#include "run/releases.h"

#include <stddef.h>

int ss_releases_given(const ss_releases_ask *a)
{
	return a->file || a->tags;
}

int ss_releases_choose(ss_releases **out, ss_releases_from *from, const ss_releases_ask *a,
		       ss_index *ix)
{
	int rc;

	*out = NULL;
	*from = SS_RELEASES_NONE;
	if (ss_releases_given(a)) {
		if (!a->file && !a->repo)
			return 0;   /* tags of no repository */
		*from = SS_RELEASES_GIVEN;
		return ss_releases_load(out, a->file, a->repo, a->tags);
	}
	if (ix) {
		*from = SS_RELEASES_INDEX;
		if ((rc = ss_index_load_releases(out, ix)))
			return rc;
		if (ss_releases_count(*out) || !a->repo_tags)
			return 0;
		ss_releases_free(*out);
		*out = NULL;
		*from = SS_RELEASES_NONE;
	}
	if (a->repo_tags && a->repo) {
		*from = SS_RELEASES_REPO;
		return ss_releases_load(out, NULL, a->repo, NULL);
	}
	return 0;
}
