/*
 * index_where.c - reading the index: abbreviated ids, where a commit went
 * (a stable commit: through its upstream commit) and where a release tag
 * is (ss_index_resolve, ss_index_where, ss_index_where_tag in index.h).
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
	free(p->upstream_how);
	free(p->upstream_subject);
	free(p->first_release);
	memset(p, 0, sizeof(*p));
}

/* The upstream commit a stable branch's commit backports: by its backport
 * line first, then by patch id; the oldest upstream when it names several. */
static int find_upstream(ss_index_place *out, ss_index *ix, const char *id)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix,
				   "SELECT b.upstream_id, CASE b.how WHEN 'line' THEN 'backport line'"
				   " ELSE 'patch id' END, c.subject FROM backports b"
				   " JOIN commits c ON c.id = b.upstream_id WHERE b.commit_id = ?"
				   " ORDER BY b.how = 'line' DESC, c.committer_time, c.id LIMIT 1")))
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (!(rc = ss_index_col_id(out->upstream, ix, st, 0, "upstream id"))) {
			out->upstream_how = strdup(ss_index_col_text(st, 1));
			out->upstream_subject = strdup(ss_index_col_text(st, 2));
			rc = out->upstream_how && out->upstream_subject ? 0 : SS_ENOMEM;
		}
	} else {
		rc = rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read backports");
	}
	if (rc)
		out->upstream[0] = '\0';
	sqlite3_finalize(st);
	return rc;
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
	st = NULL;
	if (!out->mainline && (rc = find_upstream(out, ix, id)))
		goto fail;
	if (out->upstream[0])
		id = out->upstream;  /* where its upstream went, this among them */
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

void ss_index_tag_place_release(ss_index_tag_place *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nbranches; i++)
		free(p->branches[i]);
	free(p->branches);
	free(p->tag);
	free(p->kind);
	free(p->subject);
	memset(p, 0, sizeof(*p));
}

int ss_index_where_tag(ss_index_tag_place *out, ss_index *ix, const char *tag)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ss_index_prepare(&st, ix, "SELECT r.tag, r.kind, r.commit_id, r.time,"
				   " coalesce(c.subject, ''), coalesce(c.mainline, 0) FROM releases r"
				   " LEFT JOIN commits c ON c.id = r.commit_id WHERE r.tag = ?")))
		return rc;
	sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = rc == SQLITE_DONE ? ss_error_code(SS_ENOTFOUND, "unknown release '%s': not in index '%s'",
						       tag, ix->path)
				       : ss_index_sql_error(ix, "read releases");
		goto free_stmt;
	}
	if ((rc = ss_index_col_id(out->commit, ix, st, 2, "release commit")))
		goto fail;
	out->tag = strdup(ss_index_col_text(st, 0));
	out->kind = strdup(ss_index_col_text(st, 1));
	out->subject = strdup(ss_index_col_text(st, 4));
	out->time = ss_index_col_time(st, 3);
	out->mainline = sqlite3_column_int(st, 5);
	if (!out->tag || !out->kind || !out->subject) {
		rc = SS_ENOMEM;
		goto fail;
	}
	sqlite3_finalize(st);
	if ((rc = ss_index_prepare(&st, ix,
				   "SELECT name FROM refs WHERE kind = 'mainline' AND ?2"
				   " UNION SELECT bc.branch FROM branch_commits bc JOIN refs r"
				   " ON r.name = bc.branch AND r.kind = 'stable' WHERE bc.commit_id = ?1"
				   " ORDER BY 1")))
		goto fail;
	sqlite3_bind_text(st, 1, out->commit, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, out->mainline);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (SS_GROW(out->branches, out->nbranches + 1, cap) ||
		    !(out->branches[out->nbranches] = strdup(ss_index_col_text(st, 0)))) {
			rc = SS_ENOMEM;
			goto fail;
		}
		out->nbranches++;
	}
	if (rc != SQLITE_DONE) {
		rc = ss_index_sql_error(ix, "read refs");
		goto fail;
	}
	rc = 0;
	goto free_stmt;
fail:
	ss_index_tag_place_release(out);
free_stmt:
	sqlite3_finalize(st);
	return rc;
}
