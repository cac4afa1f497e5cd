/*
 * where_lookup.c - the project index as "where" reads it: opened, an
 * argument looked up, the branches forked after a release
 * (where_lookup.h).  Moved from the command side, cmd/where.c, which
 * prints.
 */
#include "run/where_lookup.h"

#include <stdlib.h>
#include <string.h>

#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"

int ss_run_where_open(ss_index **out, char **path, const char *db, const char *repo,
		      int64_t as_of)
{
	ss_index *ix;
	int rc;

	*out = NULL;
	if (db ? !(*path = strdup(db)) : ss_index_default_path(path, repo ? repo : "."))
		return db ? ss_error_code(SS_ENOMEM, "out of memory") : SS_ERROR;
	if ((rc = ss_index_open(&ix, *path, SS_INDEX_READ)))
		return rc;
	if ((as_of && (rc = ss_index_as_of(ix, as_of))) ||
	    (repo && (rc = ss_index_check_repository(ix, repo)))) {
		char *msg = strdup(ss_error_last());

		ss_index_free(ix);
		if (!msg)
			return ss_error_code(SS_ENOMEM, "out of memory");
		ss_error_set("%s", msg);
		free(msg);
		return rc;
	}
	*out = ix;
	return 0;
}

int ss_run_where_lookup(ss_run_where_kind *kind, ss_index_place *p, ss_index_tag_place *t,
			ss_index *ix, const char *path, const char *arg)
{
	char id[41];
	int rc = SS_ENOTFOUND;

	/* an id first; a name that is no indexed id may be a tag */
	if (ss_hexid_is_prefix(arg) && (rc = ss_index_resolve(id, ix, arg)) != SS_ENOTFOUND) {
		if (rc || (rc = ss_index_where(p, ix, id)))
			return rc < 0 ? rc : SS_ERROR;
		*kind = SS_RUN_WHERE_COMMIT;
		return 0;
	}
	if (ss_index_where_tag(t, ix, arg)) {
		if (rc == SS_ENOTFOUND && ss_hexid_is_prefix(arg))
			return ss_error_code(SS_ENOTFOUND, "unknown commit '%s': not in index '%s' "
					     "(nor a release tag)", arg, path);
		return SS_ERROR;
	}
	*kind = SS_RUN_WHERE_TAG;
	return 0;
}

struct tag_refs {
	const ss_index_tag_place *t;
	const char *repo;
	ss_repo *r;          /* repo, opened for the first branch asked (as given) */
	ss_strbuf *forked;   /* stable branches that fork after it */
	int unknown;         /* the repository could not tell */
};

/* A stable branch of the index that forks from the mainline after the
 * tag's commit: the index keeps only a branch's own commits, so ask git. */
static int tag_ref(const ss_index_ref *r, void *ud)
{
	struct tag_refs *x = ud;
	size_t i;
	int yes = 0;

	if (strcmp(r->kind, "stable") || x->unknown)
		return 0;
	for (i = 0; i < x->t->nbranches; i++)
		if (!strcmp(x->t->branches[i], r->name))
			return 0;
	if ((!x->r && ss_repo_open_as_given(&x->r, x->repo)) ||
	    ss_repo_contains(&yes, x->r, r->tip, x->t->commit)) {
		x->unknown = 1;
		return 0;
	}
	if (yes)
		ss_strbuf_addf(x->forked, "%s%s", x->forked->len ? ", " : "", r->name);
	return 0;
}

int ss_run_where_forked(ss_strbuf *out, int *unknown, ss_index *ix, const ss_index_tag_place *t,
			const char *repo)
{
	struct tag_refs x = { t, repo, NULL, out, 0 };
	int rc = ss_index_for_each_ref(ix, tag_ref, &x);

	*unknown = x.unknown;
	ss_repo_free(x.r);
	return rc;
}
