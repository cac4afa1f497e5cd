/*
 * index_releases.c - the releases table of an update from a repository:
 * read and planned before its first batch, with the graph of the
 * mainline releases, written with each mainline commit's first release
 * after its last (index_update.h).
 */

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "index/index_update.h"
#include "util/error.h"
#include "util/testhook.h"

/* A tag's kind from the layout's graph, else from its name. */
static const char *release_kind(const struct updater *u, const char *tag)
{
	const char *kind = ss_layout_release_kind(u->layout, tag);
	ss_release_version v;

	if (kind)
		return kind;
	if (ss_release_version_parse(&v, tag))
		return "other";
	if (v.rc)
		return "rc";
	return ss_release_version_is_mainline(&v) ? "mainline" : "stable";
}

/* True when the releases table holds exactly rel. */
static int same_releases(ss_index *ix, const ss_releases *rel, int *out)
{
	sqlite3_stmt *st;
	size_t n = ss_releases_count(rel), i, rows = 0;
	int rc;

	*out = 0;
	if ((rc = ss_index_count_releases(ix, &rows)))
		return rc;
	if (rows != n)
		return 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT 1 FROM releases WHERE tag = ? AND commit_id = ?")))
		return rc;
	for (i = 0; i < n; i++) {
		const ss_release *r = ss_releases_get(rel, i);

		sqlite3_bind_text(st, 1, r->tag, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, r->sha, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_ROW)
			break;
	}
	sqlite3_finalize(st);
	*out = i == n;
	return 0;
}

/* Replace the releases table with rel, each with its kind (in the open
 * transaction). */
int ss_index_replace_releases(struct updater *u, const ss_releases *rel)
{
	sqlite3_stmt *ins;
	size_t i;
	int rc;

	if ((rc = ss_index_exec(u->ix, "DELETE FROM releases", "replace the releases")) ||
	    (rc = ss_index_prepare(&ins, u->ix, "INSERT OR REPLACE INTO releases(tag, commit_id, time,"
				   " kind) VALUES(?, ?, ?, ?)")))
		return rc;
	for (i = 0; i < ss_releases_count(rel) && !rc; i++) {
		const ss_release *r = ss_releases_get(rel, i);

		sqlite3_bind_text(ins, 1, r->tag, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 2, r->sha, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 3, r->time);
		sqlite3_bind_text(ins, 4, release_kind(u, r->tag), -1, SQLITE_STATIC);
		rc = ss_index_step_done(u, ins);
	}
	sqlite3_finalize(ins);
	return rc;
}

void ss_index_plan_free(struct rel_plan *p)
{
	ss_releases_free(p->mr);
	ss_releases_free(p->rel);
	p->mr = p->rel = NULL;
}

/* Version order: major, minor, patch as numbers. */
static int version_cmp(const void *a, const void *b)
{
	const ss_release_version *x = a, *y = b;
	long d;

	if ((d = atol(x->major) - atol(y->major)) || (d = atol(x->minor) - atol(y->minor)) ||
	    (d = atol(x->patch) - atol(y->patch)))
		return d < 0 ? -1 : 1;
	return 0;
}

struct mainline_release {
	ss_release_version v;  /* first: what version_cmp() compares */
	const ss_release *r;
};

/*
 * The mainline releases of rel into mr, the graph's releases.  The graph
 * gives each commit the first release, in time order, that reaches it: a
 * release commit with a wrong date (1969, time <= 0) would come first and
 * claim every commit before it.  So the times handed to the graph follow
 * the versions: a release dated before the version before it is taken one
 * second after that one (the releases table keeps the real dates).
 */
static int add_mainline_releases(const struct updater *u, ss_releases *mr,
				 const ss_releases *rel)
{
	size_t n = ss_releases_count(rel), k = 0, i;
	struct mainline_release *m = calloc(n ? n : 1, sizeof(*m));
	int64_t prev = 0;
	int rc = 0;

	if (!m)
		return SS_ENOMEM;
	for (i = 0; i < n; i++) {
		const ss_release *r = ss_releases_get(rel, i);

		if (!strcmp(release_kind(u, r->tag), "mainline") &&
		    !ss_release_version_parse(&m[k].v, r->tag))
			m[k++].r = r;
	}
	if (k)
		qsort(m, k, sizeof(*m), version_cmp);
	for (i = 0; i < k && !rc; i++) {
		int64_t t = m[i].r->time;

		if (i && t <= prev)
			t = prev + 1;
		prev = t;
		rc = ss_releases_add(mr, m[i].r->tag, m[i].r->sha, t);
	}
	free(m);
	return rc;
}

/*
 * Read the releases (a file wins over tags) and, when the update will
 * write them or may add mainline commits (moved: a ref moved, as
 * check_refs() in index_git.c found), the graph of the
 * mainline releases, which reads every commit a mainline release tag
 * reaches: done before anything is written, so that a commit the walk
 * refuses, or a releases file that cannot be read, leaves the index as it
 * was.  An update with nothing new reads no graph: it only compares the
 * tags with the table.  The graph (its release of each commit, 24 bytes
 * a commit) is kept for ss_index_write_releases().
 */
int ss_index_plan_releases(struct updater *u, struct rel_plan *p, int moved)
{
	const ss_index_options *o = u->opts;
	size_t n;
	int rc;

	if ((rc = o->releases ? ss_releases_load_tsv(&p->rel, o->releases)
			      : u->repo ? ss_releases_tags_repo(&p->rel, u->repo, o->release_tags)
			      : ss_releases_tags(&p->rel, o->repo, o->release_tags)))
		return rc;
	n = ss_releases_count(p->rel);
	u->stats->releases = n;
	if ((rc = same_releases(u->ix, p->rel, &p->same)))
		return rc;
	if (p->same && !moved)
		return 0;
	if ((rc = ss_releases_new(&p->mr)))
		return rc;
	if ((rc = add_mainline_releases(u, p->mr, p->rel)))
		return rc;
	return ss_releases_index_repo(p->mr, o->repo);
}

/*
 * Record the releases, and the first mainline release of every mainline
 * commit not yet in one, from the graph ss_index_plan_releases() read.
 * Nothing when it read none.
 */
int ss_index_write_releases(struct updater *u, const struct rel_plan *p)
{
	ss_index *ix = u->ix;
	sqlite3_stmt *todo = NULL, *set = NULL;
	int rc;

	if (!p->mr) {
		/* nothing moved, nothing pending: only a first build's mark
		 * could be left (it always moves a ref) */
		char mark[16];

		if ((rc = ss_index_meta_get(ix, "incomplete", mark, sizeof(mark))) || !mark[0])
			return rc;
		return ss_index_exec(ix, ss_index_done_sql, "write meta");
	}
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	if (!p->same) {
		if ((rc = ss_index_exec(ix, "UPDATE commits SET first_release = NULL"
					" WHERE first_release IS NOT NULL", "replace the releases")) ||
		    (rc = ss_index_replace_releases(u, p->rel)))
			goto rollback;
	}
	if ((rc = ss_index_prepare(&todo, ix, "SELECT id FROM commits WHERE mainline = 1 AND"
				   " first_release IS NULL")) ||
	    (rc = ss_index_prepare(&set, ix, "UPDATE commits SET first_release = ? WHERE id = ?")))
		goto rollback;
	while ((rc = sqlite3_step(todo)) == SQLITE_ROW) {
		char id[41];
		size_t k;

		if ((rc = ss_index_col_id(id, ix, todo, 0, "commit id")))
			goto rollback;
		if (ss_releases_first_containing(&k, p->mr, id))
			continue;
		sqlite3_bind_text(set, 1, ss_releases_get(p->mr, k)->tag, -1, SQLITE_STATIC);
		sqlite3_bind_text(set, 2, id, -1, SQLITE_TRANSIENT);
		if ((rc = ss_index_step_done(u, set)))
			goto rollback;
	}
	if (rc != SQLITE_DONE) {
		rc = ss_index_sql_error(ix, "read commits");
		goto rollback;
	}
	sqlite3_finalize(todo);
	todo = NULL;
	if ((rc = ss_index_exec(ix, ss_index_done_sql, "write meta")) ||
	    (rc = ss_index_exec(ix, "COMMIT", "commit a transaction")))
		goto rollback;
	ss_test_point("releases");
	goto out;
rollback:
	sqlite3_finalize(todo);
	todo = NULL;
	ss_index_rollback(u);
out:
	sqlite3_finalize(set);
	return rc;
}

int ss_index_count_releases(ss_index *ix, size_t *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT count(*) FROM releases")))
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}
