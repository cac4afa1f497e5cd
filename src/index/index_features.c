/*
 * index_features.c - the project index's stored features: each commit's
 * raw features under a feature-set version (index.h, "Stored features";
 * docs/index.md).
 *
 * Two tables, made by the first writer (an index built before them has
 * none: readers find no row): feature_sets(vid, version) numbers each
 * feature-set version once, and feature_data(vid, id, data) keys a row
 * by that number and the commit's id as its 20 bytes: 56 bytes a row
 * less than the version's text and the id's 40 digits (85 MB of the
 * kernel's 1.5 M rows, bench/results/index-scale.md).  The text-keyed
 * feature_rows table of earlier builds is read as it is until the first
 * writer of this build drops it, with the tips its rows reached: that
 * update's fill makes them again.  Rows are
 * written in transactions of SS_INDEX_FEATURE_BATCH (or the index's
 * --batch) and the mainline tip
 * the rows reach (meta "features <version>") only with the last one, so
 * an interrupted fill leaves whole batches and the next fill walks the
 * same commits again, keeping the rows already there.  Readers only
 * SELECT: a read-only index is read as it is.  The parts an update kept
 * while it read the diffs (the connection's temporary table
 * feature_parts, index_git.c) are read here and dropped with the tip of
 * the rows made from them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "index/index.h"
#include "index/index_impl.h"
#include "util/hexid.h"
#include "util/error.h"
#include "util/testhook.h"

#define SS_INDEX_FEATURE_BATCH 1000

static const char *const table_sql =
	"CREATE TABLE IF NOT EXISTS feature_sets(vid INTEGER PRIMARY KEY, version TEXT NOT NULL"
	" UNIQUE);"
	"CREATE TABLE IF NOT EXISTS feature_data(vid INTEGER NOT NULL, id BLOB NOT NULL,"
	" data BLOB NOT NULL, PRIMARY KEY(vid, id)) WITHOUT ROWID";

/* Earlier builds' table, its rows keyed by text, and the tips they reached. */
static const char *const old_sql =
	"BEGIN IMMEDIATE;"
	"DROP TABLE feature_rows;"
	"DELETE FROM meta WHERE key LIKE 'features %';"
	"COMMIT";

struct ss_index_features {
	ss_index *ix;
	char version[SS_INDEX_FEATURE_VERSION_SIZE];
	sqlite3_int64 vid;    /* the version's number in feature_sets */
	int parts;            /* reads temp.feature_parts (ids as text) */
	int old;              /* reads an earlier build's feature_rows */
	sqlite3_stmt *get;    /* NULL when the index has no table */
	sqlite3_stmt *put;    /* writers only */
	size_t pending;       /* rows in the open transaction */
	size_t batch;         /* rows a transaction (SS_INDEX_FEATURE_BATCH) */
	int writing;
	int drop_parts;       /* finish drops feature_parts */
};

static int has_table(ss_index *ix, int *out)
{
	return ss_index_table_exists(ix, "feature_data", out);
}

/* The number of version in feature_sets into *vid, made when make is
 * set; 0 with *vid 0 when there is none. */
static int version_id(ss_index *ix, const char *version, int make, sqlite3_int64 *vid)
{
	sqlite3_stmt *st;
	int rc;

	*vid = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT vid FROM feature_sets WHERE version = ?")))
		return rc;
	sqlite3_bind_text(st, 1, version, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*vid = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ss_index_sql_error(ix, "read the stored features' versions");
	if (*vid || !make)
		return 0;
	if ((rc = ss_index_prepare(&st, ix, "INSERT INTO feature_sets(version) VALUES(?)")))
		return rc;
	sqlite3_bind_text(st, 1, version, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "write the stored "
								       "features' versions");
	sqlite3_finalize(st);
	if (!rc)
		*vid = sqlite3_last_insert_rowid(ix->db);
	return rc;
}

static int version_ok(const char *version)
{
	return version && *version && strlen(version) < SS_INDEX_FEATURE_VERSION_SIZE;
}

int ss_index_features_open(ss_index_features **out, ss_index *ix, const char *version,
			   int write)
{
	ss_index_features *f;
	size_t dropped;
	int rc, have;

	*out = NULL;
	if (!version_ok(version))
		return ss_error_code(SS_EINVALID, "bad feature-set version");
	if (!(f = calloc(1, sizeof(*f))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	f->ix = ix;
	f->batch = SS_INDEX_FEATURE_BATCH;
	snprintf(f->version, sizeof(f->version), "%s", version);
	if (write && ((rc = ss_index_features_upgrade(ix, &dropped)) ||
		      (rc = ss_index_exec(ix, table_sql, "make the stored features' table"))))
		goto fail;
	if ((rc = has_table(ix, &have)) || (have && (rc = version_id(ix, version, write, &f->vid))))
		goto fail;
	if (f->vid && (rc = ss_index_prepare(&f->get, ix, "SELECT data FROM feature_data"
					     " WHERE vid = ? AND id = ?")))
		goto fail;
	/* a reader of an index no writer of this build has opened yet: its
	 * rows as they are, until the next update keeps them again */
	if (!write && !have && ((rc = ss_index_table_exists(ix, "feature_rows", &f->old)) ||
				(f->old && (rc = ss_index_prepare(&f->get, ix, "SELECT data FROM"
								  " feature_rows WHERE version = ?1"
								  " AND id = ?2")))))
		goto fail;
	if (write && (rc = ss_index_prepare(&f->put, ix, "INSERT OR REPLACE INTO feature_data"
					    "(vid, id, data) VALUES(?, ?, ?)")))
		goto fail;
	*out = f;
	return 0;

fail:
	ss_index_features_free(f);
	return rc;
}

int ss_index_features_get(ss_index_features *f, const char *id, const void **data, size_t *len)
{
	int rc;

	*data = NULL;
	*len = 0;
	if (!f->get)
		return SS_ENOTFOUND;
	sqlite3_reset(f->get);
	if (f->parts || f->old) {
		if (f->old)
			sqlite3_bind_text(f->get, 1, f->version, -1, SQLITE_STATIC);
		sqlite3_bind_text(f->get, 2, id, -1, SQLITE_TRANSIENT);
	} else {
		unsigned char raw[20];

		if (ss_hexid_raw(raw, id))
			return SS_ENOTFOUND;
		sqlite3_bind_int64(f->get, 1, f->vid);
		sqlite3_bind_blob(f->get, 2, raw, sizeof(raw), SQLITE_TRANSIENT);
	}
	rc = sqlite3_step(f->get);
	if (rc == SQLITE_DONE)
		return SS_ENOTFOUND;
	if (rc != SQLITE_ROW)
		return ss_index_sql_error(f->ix, "read stored features");
	/* a damaged file may hold text or NULL: the decoder refuses it */
	*data = sqlite3_column_blob(f->get, 0);
	*len = (size_t)sqlite3_column_bytes(f->get, 0);
	return 0;
}

static int commit_batch(ss_index_features *f)
{
	int rc = 0;

	if (f->writing && !(rc = ss_index_exec(f->ix, "COMMIT", "commit stored features"))) {
		f->writing = 0;
		ss_test_point("features");
	}
	f->pending = 0;
	return rc;
}

int ss_index_features_put(ss_index_features *f, const char *id, const void *data, size_t len)
{
	unsigned char raw[20];
	int rc;

	if (!f->put)
		return ss_error_code(SS_EINVALID, "stored features opened for reading");
	if (!f->writing) {
		if ((rc = ss_index_exec(f->ix, "BEGIN IMMEDIATE", "start a transaction")))
			return rc;
		f->writing = 1;
	}
	if (ss_hexid_raw(raw, id))
		return ss_error_code(SS_EINVALID, "cannot store features of '%s': no commit id", id);
	sqlite3_reset(f->put);
	sqlite3_bind_int64(f->put, 1, f->vid);
	sqlite3_bind_blob(f->put, 2, raw, sizeof(raw), SQLITE_TRANSIENT);
	sqlite3_bind_blob(f->put, 3, data, (int)len, SQLITE_TRANSIENT);
	if (sqlite3_step(f->put) != SQLITE_DONE)
		return ss_index_sql_error(f->ix, "write stored features");
	if (++f->pending >= f->batch)
		return commit_batch(f);
	return 0;
}

void ss_index_features_set_batch(ss_index_features *f, size_t batch)
{
	f->batch = batch ? batch : SS_INDEX_FEATURE_BATCH;
}

static void meta_key(char *key, size_t size, const char *version)
{
	snprintf(key, size, "features %s", version);
}

int ss_index_features_finish(ss_index_features *f, const char *tip)
{
	char key[SS_INDEX_FEATURE_VERSION_SIZE + 16];
	sqlite3_stmt *st;
	int rc;

	if (!f->put)
		return ss_error_code(SS_EINVALID, "stored features opened for reading");
	if (tip) {
		if (!f->writing) {
			if ((rc = ss_index_exec(f->ix, "BEGIN IMMEDIATE", "start a transaction")))
				return rc;
			f->writing = 1;
		}
		meta_key(key, sizeof(key), f->version);
		if ((rc = ss_index_prepare(&st, f->ix, "INSERT OR REPLACE INTO meta(key, value)"
					   " VALUES(?, ?)")))
			return rc;
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, tip, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(f->ix, "write meta");
		sqlite3_finalize(st);
		if (rc)
			return rc;
		/* the parts are the connection's own temporary table: dropped
		 * here to give their space back early; a statement of the
		 * connection still pending (SQLITE_LOCKED, seen when two first
		 * builds race) only leaves that to the connection's close */
		if (f->drop_parts &&
		    sqlite3_exec(f->ix->db, "DROP TABLE IF EXISTS temp.feature_parts", NULL, NULL,
				 NULL) != SQLITE_OK &&
		    (sqlite3_errcode(f->ix->db) & 0xff) != SQLITE_LOCKED)
			return ss_index_sql_error(f->ix, "drop the stored features' parts");
	}
	return commit_batch(f);
}

int ss_index_feature_parts_open(ss_index_features **out, ss_index *ix, const char *tag)
{
	ss_index_features *f;
	sqlite3_stmt *st;
	int rc, same = 0;

	*out = NULL;
	if ((rc = ss_index_prepare(&st, ix, "SELECT 1 FROM sqlite_temp_master WHERE type = 'table'"
				   " AND name = 'feature_parts'")))
		return rc;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read");
	if ((rc = ss_index_prepare(&st, ix, "SELECT data FROM temp.feature_parts WHERE id = ''")))
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const void *kept = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);

		same = kept && (size_t)n == strlen(tag) && !memcmp(kept, tag, (size_t)n);
	}
	sqlite3_finalize(st);
	if (!same)
		return 0;
	if (!(f = calloc(1, sizeof(*f))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	f->ix = ix;
	f->parts = 1;
	if ((rc = ss_index_prepare(&f->get, ix, "SELECT data FROM temp.feature_parts"
				   " WHERE id = ?2"))) {
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

void ss_index_features_drop_parts(ss_index_features *f)
{
	f->drop_parts = 1;
}

int ss_index_features_tip(ss_index *ix, const char *version, char out[41])
{
	char key[SS_INDEX_FEATURE_VERSION_SIZE + 16], buf[64];
	int rc, have;

	out[0] = '\0';
	/* a tip is of rows in feature_data, or in an earlier build's
	 * feature_rows while no writer of this build has dropped it */
	if ((rc = has_table(ix, &have)) || (!have && (rc = ss_index_table_exists(ix, "feature_rows",
										   &have))) ||
	    !have)
		return rc;
	meta_key(key, sizeof(key), version);
	if ((rc = ss_index_meta_get(ix, key, buf, sizeof(buf))))
		return rc;
	if (strlen(buf) == 40)
		memcpy(out, buf, 41);
	return 0;
}

int ss_index_features_upgrade(ss_index *ix, size_t *dropped)
{
	sqlite3_stmt *st;
	int rc, old;

	*dropped = 0;
	if ((rc = ss_index_table_exists(ix, "feature_rows", &old)) || !old)
		return rc;
	if ((rc = ss_index_prepare(&st, ix, "SELECT count(*) FROM feature_rows")))
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*dropped = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return ss_index_exec(ix, old_sql, "drop the earlier stored features");
}

int ss_index_features_drop_stale(ss_index *ix, const char *prefix, size_t *dropped)
{
	sqlite3_stmt *st;
	int rc, have;

	*dropped = 0;
	if ((rc = has_table(ix, &have)) || !have)
		return rc;
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	/* substr, not LIKE: a version holds no wildcard, but LIKE ignores case */
	if ((rc = ss_index_prepare(&st, ix, "DELETE FROM feature_data WHERE vid IN (SELECT vid"
				   " FROM feature_sets WHERE substr(version, 1, length(?1)) <> ?1)")))
		goto rollback;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "drop stored features");
	sqlite3_finalize(st);
	*dropped = rc ? 0 : (size_t)sqlite3_changes(ix->db);
	if (!rc && (rc = ss_index_prepare(&st, ix, "DELETE FROM feature_sets"
					  " WHERE substr(version, 1, length(?1)) <> ?1")) == 0) {
		sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "drop stored "
									       "features");
		sqlite3_finalize(st);
	}
	if (!rc && (rc = ss_index_prepare(&st, ix, "DELETE FROM meta WHERE key LIKE 'features %'"
					  " AND substr(key, 10, length(?1)) <> ?1")) == 0) {
		sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "write meta");
		sqlite3_finalize(st);
	}
	if (!rc)
		return ss_index_exec(ix, "COMMIT", "commit a transaction");
rollback:
	sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int ss_index_features_count(ss_index *ix, const char *version, size_t *out)
{
	sqlite3_stmt *st;
	int rc, have;

	*out = 0;
	if ((rc = has_table(ix, &have)) || !have)
		return rc;
	if ((rc = ss_index_prepare(&st, ix, "SELECT count(*) FROM feature_data WHERE vid ="
				   " (SELECT vid FROM feature_sets WHERE version = ?)")))
		return rc;
	sqlite3_bind_text(st, 1, version, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 n = sqlite3_column_int64(st, 0);

		*out = n > 0 ? (size_t)n : 0;
		rc = 0;
	} else {
		rc = ss_index_sql_error(ix, "read");
	}
	sqlite3_finalize(st);
	return rc;
}

void ss_index_features_free(ss_index_features *f)
{
	if (!f)
		return;
	if (f->writing)
		sqlite3_exec(f->ix->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(f->get);
	sqlite3_finalize(f->put);
	free(f);
}
