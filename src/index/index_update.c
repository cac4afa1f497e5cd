/*
 * index_update.c - the writer every update of the index shares: its
 * statements, a commit's rows (trailers, files), batches in transactions,
 * the recorded tips of refs, the derived facts (index_update.h).
 */

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "commit/patchid.h"
#include "index/index_update.h"
#include "util/error.h"
#include "util/testhook.h"

const char *const ss_index_stmt_sql[ST_NSTMT] = {
	"SELECT mainline FROM commits WHERE id = ?",
	"UPDATE commits SET mainline = 1 WHERE id = ?",
	"INSERT INTO commits(id, patch_id, author_name, author_email, author_time,"
	" committer_time, subject, mainline) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
	"INSERT INTO trailers(commit_id, kind, value, hint) VALUES(?, ?, ?, ?)",
	"INSERT INTO files(commit_id, path, added, removed) VALUES(?, ?, ?, ?)",
	"INSERT OR IGNORE INTO branch_commits(branch, commit_id) VALUES(?, ?)",
	"INSERT OR IGNORE INTO backports(branch, commit_id, upstream_id, how, time)"
	" VALUES(?, ?, ?, 'line', ?)",
};

const char *const ss_index_missing_sql =
	"CREATE TABLE IF NOT EXISTS missing_blobs(id TEXT PRIMARY KEY) WITHOUT ROWID";

int ss_index_step_done(struct updater *u, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : ss_index_sql_error(u->ix, "write");
}

static void bind_str(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int add_trailer(struct updater *u, const char *id, const char *kind, const char *value,
		       const char *hint)
{
	sqlite3_stmt *st = u->st[ST_TRAILER];

	bind_str(st, 1, id);
	bind_str(st, 2, kind);
	bind_str(st, 3, value);
	bind_str(st, 4, hint);
	return ss_index_step_done(u, st);
}

/* The trailers that matter: Fixes: (with the abbreviated id it names),
 * Cc: stable (with its version hint), noautosel, Link:, Reported-by:. */
static int add_trailers(struct updater *u, const ss_commit *c)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < c->ntrailers && !rc; i++) {
		const ss_trailer *t = &c->trailers[i];
		const char *v = t->value;

		if (!strcasecmp(t->key, "Fixes")) {
			/* the target's id as history/ reads it, for rank and origin */
			const char *subject;
			size_t subject_len;
			char hint[41];
			int ok = !ss_histidx_parse_fixes(hint, &subject, &subject_len, v);

			rc = add_trailer(u, c->id, "fixes", v, ok ? hint : NULL);
		} else if (!strcasecmp(t->key, "Cc") && strstr(v, "stable+noautosel@")) {
			rc = add_trailer(u, c->id, "noautosel", v, NULL);
		} else if (!strcasecmp(t->key, "Cc") && ss_is_stable_address(v)) {
			const char *hash = strchr(v, '#');

			if (hash)
				for (hash++; *hash == ' ' || *hash == '\t'; hash++)
					;
			rc = add_trailer(u, c->id, "stable", v, hash && *hash ? hash : NULL);
		} else if (!strcasecmp(t->key, "Link")) {
			rc = add_trailer(u, c->id, "link", v, NULL);
		} else if (!strcasecmp(t->key, "Reported-by")) {
			rc = add_trailer(u, c->id, "reported-by", v, NULL);
		}
	}
	if (!rc) {
		/* "This reverts commit <sha>": what history/ counts as a revert */
		char ids[SS_HISTIDX_MAX_TARGETS][41];
		size_t n = ss_histidx_revert_ids(ids, SS_HISTIDX_MAX_TARGETS, c->message);

		for (i = 0; i < n && !rc; i++)
			rc = add_trailer(u, c->id, "reverts", ids[i], ids[i]);
	}
	return rc;
}

int ss_index_add_commit(struct updater *u, const ss_commit *c, int mainline)
{
	sqlite3_stmt *st = u->st[ST_HAS_COMMIT];
	char pid[41];
	int rc;

	sqlite3_bind_text(st, 1, c->id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int was = sqlite3_column_int(st, 0);

		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (!mainline || was)
			return 0;
		sqlite3_bind_text(u->st[ST_SET_MAINLINE], 1, c->id, -1, SQLITE_STATIC);
		return ss_index_step_done(u, u->st[ST_SET_MAINLINE]);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return ss_index_sql_error(u->ix, "read");
	rc = ss_commit_patch_id(pid, c);
	if (rc && rc != SS_ENOTFOUND)
		return rc;
	st = u->st[ST_COMMIT];
	bind_str(st, 1, c->id);
	bind_str(st, 2, rc ? NULL : pid);
	bind_str(st, 3, c->author.name);
	bind_str(st, 4, c->author.email);
	sqlite3_bind_int64(st, 5, c->author.time);
	sqlite3_bind_int64(st, 6, c->committer.time);
	bind_str(st, 7, c->subject ? c->subject : "");
	sqlite3_bind_int(st, 8, mainline);
	if ((rc = ss_index_step_done(u, st)) || (rc = add_trailers(u, c)))
		return rc;
	if ((rc = ss_index_add_files(u, c)))
		return rc;
	u->stats->commits++;
	return 0;
}

int ss_index_add_files(struct updater *u, const ss_commit *c)
{
	int missing = 0, rc;

	for (size_t i = 0; i < c->nfiles; i++) {
		const ss_file *f = &c->files[i];
		sqlite3_stmt *st = u->st[ST_FILE];

		missing |= f->binary == SS_FILE_UNREADABLE;
		bind_str(st, 1, c->id);
		bind_str(st, 2, ss_file_path(f));
		sqlite3_bind_int64(st, 3, (sqlite3_int64)f->added);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)f->removed);
		if ((rc = ss_index_step_done(u, st)))
			return rc;
	}
	if (missing && u->missing) {
		bind_str(u->missing, 1, c->id);
		return ss_index_step_done(u, u->missing);
	}
	return 0;
}

int ss_index_begin(struct updater *u)
{
	int rc;

	u->in_batch = 0;
	if ((rc = ss_index_exec(u->ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	/* the mark of an update under way, with its first batch (mark_pending()) */
	return u->pending == 1 ? ss_index_meta_set(u->ix, "pending", "releases") : 0;
}

int ss_index_commit_tx(struct updater *u)
{
	int rc = ss_index_exec(u->ix, "COMMIT", "commit a transaction");

	if (!rc && u->pending == 1)
		u->pending = 2;
	return rc;
}

void ss_index_rollback(struct updater *u)
{
	if (!sqlite3_get_autocommit(u->ix->db))
		sqlite3_exec(u->ix->db, "ROLLBACK", NULL, NULL, NULL);
}

/* The tip recorded for ref name ("" when none) and its kind. */
int ss_index_ref_get(ss_index *ix, const char *name, char tip[41], char kind[16])
{
	sqlite3_stmt *st;
	int rc;

	tip[0] = kind[0] = '\0';
	if ((rc = ss_index_prepare(&st, ix, "SELECT tip, kind FROM refs WHERE name = ?")))
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(tip, 41, "%s", ss_index_col_text(st, 0));
		snprintf(kind, 16, "%s", ss_index_col_text(st, 1));
	}
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read refs");
	sqlite3_finalize(st);
	return rc;
}

int ss_index_ref_set(ss_index *ix, const char *name, const char *tip, const char *kind)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "INSERT OR REPLACE INTO refs(name, tip, kind) VALUES(?, ?, ?)")))
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, tip, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "write refs");
	sqlite3_finalize(st);
	return rc;
}

/*
 * Write the commits of src through add(u, c, ctx), in transactions of
 * opts->batch commits (one is open on entry and on return), passing over
 * the first skip messages; *seen (may be NULL) counts every message.  A
 * commit the reader cannot read is counted in the stats, not recorded: the
 * next update reads it again when it reads its ref or source again.
 */
int ss_index_write_source(struct updater *u, ss_source *src, size_t skip, size_t *seen,
			  const char *what, int (*add)(struct updater *, const ss_commit *, void *),
			  void *ctx)
{
	size_t n = 0;
	ss_commit *c;
	int rc;

	u->last_skipped = 0;
	for (;; n++) {
		if (seen)
			*seen = n;
		rc = ss_source_next(&c, src);
		if (rc == SS_ITEROVER)
			return 0;
		u->last_skipped = rc == SS_ESKIP;
		if (n < skip) {
			if (!rc)
				ss_commit_free(c);
			continue;
		}
		if (rc == SS_ESKIP) {
			if (!u->stats->skipped++)
				snprintf(u->stats->first_skip, sizeof(u->stats->first_skip), "%s",
					 ss_error_last());
			continue;
		}
		if (rc)
			return rc;
		rc = add(u, c, ctx);
		ss_commit_free(c);
		if (rc)
			return rc;
		u->done++;
		if (++u->in_batch >= u->opts->batch) {
			if ((rc = ss_index_commit_tx(u)))
				return rc;
			ss_test_point("batch");
			if ((rc = ss_index_begin(u)))
				return rc;
			if (u->opts->progress)
				u->opts->progress(what, u->done, 0);
		}
	}
}

/*
 * Derived facts, recomputed set-wise so that incremental and fresh builds
 * agree: a Fixes: target when exactly one indexed commit has that prefix;
 * backports by equal patch ids for stable-branch commits without a
 * backport line (every mainline commit with that patch id).
 */
const char *const ss_index_derive_sql =
	"UPDATE trailers SET target = (SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM commits"
	" WHERE id >= trailers.hint AND id < trailers.hint || 'g')"
	" WHERE kind IN ('fixes', 'reverts') AND target IS NULL AND hint IS NOT NULL;"
	"INSERT OR IGNORE INTO backports(branch, commit_id, upstream_id, how, time)"
	" SELECT bc.branch, s.id, m.id, 'patch-id', s.committer_time"
	" FROM branch_commits bc JOIN refs r ON r.name = bc.branch AND r.kind = 'stable'"
	" JOIN commits s ON s.id = bc.commit_id"
	" JOIN commits m ON m.patch_id = s.patch_id AND m.mainline = 1"
	" WHERE s.patch_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM backports b"
	"  WHERE b.branch = bc.branch AND b.commit_id = s.id AND b.how = 'line');";

/*
 * What an update that finished clears, in its last transaction.  An
 * update whose refs moved writes meta "pending" in the transaction of its
 * first batch (a walk refused before that commits leaves every table as
 * it was), and ss_index_write_releases() clears it with the first
 * releases it sets last: an update interrupted in between (killed, a
 * full disk) leaves it, and the next one, which may find no ref moved,
 * still reads the releases' graph and sets them.  "incomplete" marks a new file until its
 * first update finishes.
 */
const char *const ss_index_done_sql = "DELETE FROM meta WHERE key IN ('pending', 'incomplete')";
