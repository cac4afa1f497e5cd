/*
 * index_layout.c - what the index records of the repository's layout
 * (labels/layout.h) in its meta table: the mainline it read ("mainline",
 * "mainline_how": found or named) and each branch that is not a default
 * target ("role:<branch>": staging, end-of-life, copy, unnamed), so that
 * readers take their defaults from the index, not from HEAD; and the
 * layout itself ("layout"), which the next update from the same refs
 * takes instead of walking the history again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "index/index.h"
#include "index/index_impl.h"
#include "labels/layout.h"
#include "source/git_repo.h"
#include "util/error.h"
#include "util/strbuf.h"

static int put(ss_index *ix, sqlite3_stmt *st, const char *key, const char *value)
{
	int rc;

	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "write meta");
}

/* The meta value of key, malloc'd into *out (NULL when there is none):
 * a kept layout is longer than ss_index_meta_get()'s buffers. */
static int meta_text(char **out, ss_index *ix, const char *key)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	if ((rc = ss_index_prepare(&st, ix, "SELECT value FROM meta WHERE key = ?")))
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && !(*out = strdup(ss_index_col_text(st, 0))))
		rc = ss_error_code(SS_ENOMEM, "out of memory reading meta");
	else
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read meta");
	sqlite3_finalize(st);
	return rc;
}

struct row {
	char *key;
	const char *value;
};

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->key, ((const struct row *)b)->key);
}

/* r: key prefix and name, value (NULL key when out of memory). */
static void add_row(struct row *r, const char *prefix, const char *name, const char *value)
{
	if (asprintf(&r->key, "%s%s", prefix, name) < 0)
		r->key = NULL;
	r->value = value;
}

/* The rows as one text, each "<length>:<key><length>:<value>" (no value
 * passes for another), onto sb. */
static int rows_text(ss_strbuf *sb, const char *key, const char *value)
{
	return ss_strbuf_addf(sb, "%zu:%s%zu:%s", strlen(key), key, strlen(value), value);
}

/* The meta rows a layout is recorded in (SELECT below), as rows_text()
 * writes them, in key order. */
static int recorded(ss_strbuf *sb, ss_index *ix)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT key, value FROM meta WHERE key IN ('mainline',"
				   " 'mainline_how', 'layout') OR key LIKE 'role:%' OR key LIKE"
				   " 'local:%' ORDER BY key")))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (rows_text(sb, ss_index_col_text(st, 0), ss_index_col_text(st, 1))) {
			sqlite3_finalize(st);
			return ss_error_code(SS_ENOMEM, "out of memory reading meta");
		}
	rc = rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read meta");
	sqlite3_finalize(st);
	return rc;
}

int ss_index_record_layout(ss_index *ix, const ss_layout *l)
{
	sqlite3_stmt *st = NULL;
	struct row *rows;
	ss_strbuf want = SS_STRBUF_INIT, was = SS_STRBUF_INIT;
	char *text = NULL;
	size_t i, n = 0;
	int rc = 0;

	/* mainline, mainline_how, layout, and a local: and a role: row a
	 * branch at most */
	if (!(rows = calloc(2 * l->nbranches + 3, sizeof(*rows))) ||
	    (l->key[0] && !(text = ss_layout_save(l)))) {
		rc = SS_ENOMEM;
		goto free_rows;
	}
	add_row(&rows[n++], "mainline", "", l->mainline);
	add_row(&rows[n++], "mainline_how", "", l->found ? "found" : "named");
	/* the layout itself, for the next update from the same refs
	 * (ss_index_layout_find()) */
	if (text)
		add_row(&rows[n++], "layout", "", text);
	for (i = 0; i < l->nbranches; i++) {
		const ss_layout_branch *b = &l->branches[i];

		/* a local branch whose name has a '/' ("a/b", "maint/v1.9") is
		 * no remote-tracking one: its name is its identity
		 * (index_decisions.c) */
		if (strchr(b->name, '/') && !strncmp(b->ref, "refs/heads/", 11))
			add_row(&rows[n++], "local:", b->name, "1");
		if (b->role != SS_ROLE_STABLE && b->role != SS_ROLE_MAINLINE)
			add_row(&rows[n++], "role:", b->name, ss_layout_role_name(b->role));
	}
	for (i = 0; i < n; i++)
		if (!rows[i].key || !rows[i].value) {
			rc = SS_ENOMEM;
			goto free_rows;
		}
	qsort(rows, n, sizeof(*rows), cmp_row);
	for (i = 0; i < n && !rc; i++)
		rc = rows_text(&want, rows[i].key, rows[i].value);
	if (rc || (rc = recorded(&was, ix)))
		goto free_rows;
	/* recorded already (an update with nothing new: the layout kept):
	 * nothing is written */
	if (!strcmp(want.buf, was.buf))
		goto free_rows;
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		goto free_rows;
	if ((rc = ss_index_exec(ix, "DELETE FROM meta WHERE key LIKE 'role:%' OR key LIKE 'local:%'"
				" OR key = 'layout'", "write meta")) ||
	    (rc = ss_index_prepare(&st, ix, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)")))
		goto rollback;
	for (i = 0; i < n && !rc; i++)
		rc = put(ix, st, rows[i].key, rows[i].value);
	if (rc || (rc = ss_index_exec(ix, "COMMIT", "commit a transaction")))
		goto rollback;
	goto free_rows;
rollback:
	sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
free_rows:
	if (rc == SS_ENOMEM)
		rc = ss_error_code(SS_ENOMEM, "out of memory recording the layout");
	sqlite3_finalize(st);
	for (i = 0; rows && i < n; i++)
		free(rows[i].key);
	free(rows);
	free(text);
	ss_strbuf_release(&want);
	ss_strbuf_release(&was);
	return rc;
}

int ss_index_mainline_ref(ss_index *ix, char *buf, size_t size)
{
	return ss_index_meta_get(ix, "mainline", buf, size);
}

int ss_index_branch_role(ss_index *ix, const char *branch, char *buf, size_t size)
{
	char key[1100];
	int rc;

	snprintf(key, sizeof(key), "role:%s", branch);
	if ((rc = ss_index_meta_get(ix, key, buf, size)))
		return rc;
	if (!buf[0])
		snprintf(buf, size, "stable");
	return 0;
}

/* The layout ix keeps for repo's refs now into *out, NULL when none. */
static int kept(ss_layout **out, ss_index *ix, ss_repo *repo, const ss_layout_options *o)
{
	char key[41], *text = NULL;
	int rc;

	*out = NULL;
	if ((rc = ss_layout_key(key, repo, o)) || (rc = meta_text(&text, ix, "layout")))
		return rc;
	/* another key, HEAD deciding otherwise, a damaged text: found again */
	if (text && (rc = ss_layout_load(out, text, key, repo)) && rc != SS_ENOMEM) {
		ss_error_clear();
		rc = 0;
	}
	free(text);
	return rc;
}

int ss_index_layout_find(ss_layout **out, ss_index *ix, ss_repo *repo, const ss_layout_options *o)
{
	int rc = kept(out, ix, repo, o);

	if (rc || *out)
		return rc;
	return ss_layout_find_repo(out, repo, o);
}

int ss_index_layout_kept(ss_layout **out, const char *path, const char *repo,
			 const ss_layout_options *o)
{
	ss_index *ix = NULL;
	ss_repo *r = NULL;
	int rc;

	*out = NULL;
	/* no index, or none to read (an unfinished first build, an older
	 * schema): the update finds the layout, and says what is wrong */
	if (ss_index_open(&ix, path, SS_INDEX_READ)) {
		ss_error_clear();
		return 0;
	}
	if (!(rc = ss_repo_open(&r, repo)))
		rc = kept(out, ix, r, o);
	ss_repo_free(r);
	ss_index_free(ix);
	/* a repository that cannot be read: finding the layout says why,
	 * as it did before anything was kept */
	if (rc && rc != SS_ENOMEM) {
		ss_error_clear();
		rc = 0;
	}
	return rc;
}
