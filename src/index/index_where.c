/*
 * index_where.c - reading the index: abbreviated ids, and where a commit
 * went (ss_index_resolve, ss_index_where in index.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "index/index_impl.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"
#include "util/strbuf.h"

int ss_index_resolve(char out[41], ss_index *ix, const char *id)
{
	sqlite3_stmt *st;
	char lo[41], hi[42];
	size_t n = strlen(id), i, found = 0;
	ss_strbuf list = SS_STRBUF_INIT;
	int rc;

	out[0] = '\0';
	if (!ss_hexid_is_prefix(id))
		return ss_error_code(SS_EINVALID, "'%s' is not a commit id (4 to 40 hex digits)", id);
	for (i = 0; i < n; i++)
		lo[i] = (char)tolower((unsigned char)id[i]);
	lo[n] = '\0';
	memcpy(hi, lo, n);
	hi[n] = 'g';
	hi[n + 1] = '\0';
	if ((rc = ss_index_prepare(&st, ix, "SELECT id FROM commits WHERE id >= ? AND id < ?"
				   " ORDER BY id LIMIT 11")))
		return rc;
	sqlite3_bind_text(st, 1, lo, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hi, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char c[41];

		/* a candidate that is no id would go into the message as it is */
		if ((rc = ss_index_col_id(c, ix, st, 0, "commit id")))
			break;
		if (!found++)
			memcpy(out, c, 41);
		if (found <= 10) {
			ss_strbuf_adds(&list, found > 1 ? ", " : "");
			ss_strbuf_adds(&list, c);
		} else {
			ss_strbuf_adds(&list, ", ...");
		}
	}
	sqlite3_finalize(st);
	if (rc < 0)
		;
	else if (rc != SQLITE_DONE)
		rc = ss_index_sql_error(ix, "read commits");
	else if (!found)
		rc = ss_error_code(SS_ENOTFOUND, "unknown commit '%s': not in index '%s'", id, ix->path);
	else if (found > 1)
		rc = ss_error_code(SS_EINVALID, "commit id '%s' is ambiguous in index '%s': %s", id,
				   ix->path, list.buf);
	else
		rc = 0;
	if (rc)
		out[0] = '\0';
	ss_strbuf_release(&list);
	return rc;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? strdup((const char *)t) : NULL;
}

void ss_index_place_release(ss_index_place *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->ncarriers; i++) {
		free(p->carriers[i].branch);
		free(p->carriers[i].how);
	}
	free(p->carriers);
	free(p->subject);
	free(p->first_release);
	memset(p, 0, sizeof(*p));
}

int ss_index_where(ss_index_place *out, ss_index *ix, const char *id)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ss_index_prepare(&st, ix, "SELECT subject, first_release, mainline FROM commits"
				   " WHERE id = ?")))
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = rc == SQLITE_DONE ? ss_error_code(SS_ENOTFOUND, "unknown commit '%s': not in index '%s'",
						       id, ix->path)
				       : ss_index_sql_error(ix, "read commits");
		goto free_stmt;
	}
	snprintf(out->id, sizeof(out->id), "%s", id);
	out->subject = strdup(ss_index_col_text(st, 0));
	out->first_release = dup_col(st, 1);
	if (!out->subject || (!out->first_release && sqlite3_column_type(st, 1) != SQLITE_NULL)) {
		rc = SS_ENOMEM;
		goto fail;
	}
	out->mainline = sqlite3_column_int(st, 2);
	sqlite3_finalize(st);
	/* backports of it on stable branches, and the commit itself when it
	 * lives on a stable branch only */
	if ((rc = ss_index_prepare(&st, ix,
				   "SELECT b.branch, b.commit_id, CASE b.how WHEN 'line' THEN 'backport line'"
				   " ELSE 'patch id' END, b.time FROM backports b JOIN refs r"
				   " ON r.name = b.branch AND r.kind = 'stable' WHERE b.upstream_id = ?1"
				   " UNION SELECT bc.branch, c.id, 'stable-only', c.committer_time"
				   " FROM branch_commits bc JOIN commits c ON c.id = bc.commit_id"
				   " JOIN refs r ON r.name = bc.branch AND r.kind = 'stable'"
				   " WHERE bc.commit_id = ?1 AND c.mainline = 0"
				   " ORDER BY 1, 4, 2")))
		goto fail;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ss_index_carrier *c;

		if (SS_GROW(out->carriers, out->ncarriers + 1, cap)) {
			rc = SS_ENOMEM;
			goto fail;
		}
		c = &out->carriers[out->ncarriers++];
		memset(c, 0, sizeof(*c));
		if ((rc = ss_index_col_id(c->commit, ix, st, 1, "commit id")))
			goto fail;
		c->branch = strdup(ss_index_col_text(st, 0));
		c->how = strdup(ss_index_col_text(st, 2));
		c->time = ss_index_col_time(st, 3);
		if (!c->branch || !c->how) {
			rc = SS_ENOMEM;
			goto fail;
		}
	}
	if (rc != SQLITE_DONE) {
		rc = ss_index_sql_error(ix, "read backports");
		goto fail;
	}
	rc = 0;
	goto free_stmt;
fail:
	ss_index_place_release(out);
free_stmt:
	sqlite3_finalize(st);
	return rc;
}
