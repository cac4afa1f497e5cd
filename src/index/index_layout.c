/*
 * index_layout.c - what the index records of the repository's layout
 * (labels/layout.h) in its meta table: the mainline it read ("mainline",
 * "mainline_how": found or named) and each branch that is not a default
 * target ("role:<branch>": staging, end-of-life, copy, unnamed), so that
 * readers take their defaults from the index, not from HEAD.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "index/index.h"
#include "index/index_impl.h"
#include "labels/layout.h"
#include "util/error.h"

static int put(ss_index *ix, sqlite3_stmt *st, const char *key, const char *value)
{
	int rc;

	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "write meta");
}

int ss_index_record_layout(ss_index *ix, const ss_layout *l)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc;

	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	if ((rc = ss_index_exec(ix, "DELETE FROM meta WHERE key LIKE 'role:%'", "write meta")) ||
	    (rc = ss_index_prepare(&st, ix, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)")) ||
	    (rc = put(ix, st, "mainline", l->mainline)) ||
	    (rc = put(ix, st, "mainline_how", l->found ? "found" : "named")))
		goto rollback;
	if ((rc = ss_index_exec(ix, "DELETE FROM meta WHERE key LIKE 'local:%'", "write meta")))
		goto rollback;
	for (i = 0; i < l->nbranches; i++) {
		const ss_layout_branch *b = &l->branches[i];
		char key[1100];

		/* a local branch whose name has a '/' ("a/b", "maint/v1.9") is
		 * no remote-tracking one: its name is its identity
		 * (index_decisions.c) */
		if (strchr(b->name, '/') && !strncmp(b->ref, "refs/heads/", 11)) {
			snprintf(key, sizeof(key), "local:%s", b->name);
			if ((rc = put(ix, st, key, "1")))
				goto rollback;
		}
		if (b->role == SS_ROLE_STABLE || b->role == SS_ROLE_MAINLINE)
			continue;
		snprintf(key, sizeof(key), "role:%s", b->name);
		if ((rc = put(ix, st, key, ss_layout_role_name(b->role))))
			goto rollback;
	}
	sqlite3_finalize(st);
	return ss_index_exec(ix, "COMMIT", "commit a transaction");
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
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
