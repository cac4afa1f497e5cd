/*
 * index_impl.h - what the files of src/index/ share (internal).
 */
#ifndef SS_INDEX_IMPL_H
#define SS_INDEX_IMPL_H

#include <sqlite3.h>

#include "index/index.h"

/* The decisions table (index/decisions.h), schema 3: made with a new
 * index's schema and by the migration from 2. */
#define SS_INDEX_DECISIONS_SCHEMA \
	"CREATE TABLE IF NOT EXISTS decisions(commit_id TEXT NOT NULL, branch TEXT NOT NULL, patch_id TEXT," \
	" state TEXT NOT NULL, until TEXT NOT NULL DEFAULT '', who TEXT NOT NULL," \
	" time INTEGER NOT NULL, note TEXT NOT NULL DEFAULT ''," \
	" PRIMARY KEY(commit_id, branch)) WITHOUT ROWID;" \
	"CREATE INDEX IF NOT EXISTS decisions_patch_id ON decisions(patch_id);"

struct ss_index {
	sqlite3 *db;
	char *path;
};

/* SQLite's last error on ix as an ss_error (SS_EINVALID for a file that
 * is damaged or no database); what: "read", "write meta", ... */
int ss_index_sql_error(ss_index *ix, const char *what);
int ss_index_exec(ss_index *ix, const char *sql, const char *what);
int ss_index_prepare(sqlite3_stmt **out, ss_index *ix, const char *sql);
/* *out: whether ix has a table of that name (the tables a writer makes
 * when it first needs them: feature_rows, missing_blobs).  0 or < 0. */
int ss_index_table_exists(ss_index *ix, const char *name, int *out);

/* Record the layout an update read (index_layout.c), in its own
 * transaction. */
struct ss_layout_s;
int ss_index_record_layout(ss_index *ix, const struct ss_layout_s *l);

/* The meta value of key into buf ("" when there is none). */
int ss_index_meta_get(ss_index *ix, const char *key, char *buf, size_t size);

/* Set the meta value of key (in the caller's transaction, if any). */
int ss_index_meta_set(ss_index *ix, const char *key, const char *value);

/*
 * What is read back is checked, because the file may be damaged or
 * hostile (fuzz/fuzz_index.c): a value that cannot be used is an error,
 * "index 'P' is damaged: <what>" (SS_EINVALID), one line; a value that
 * can be used safely is (times clamped, NULL text as "").
 */
int ss_index_damaged(ss_index *ix, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s (NULL allowed) for a message: at most 40 bytes, quotes and bytes
 * that are no printable ASCII as '?'; buf is returned. */
const char *ss_index_show(char buf[48], const char *s);

/* Column i as a full commit id (40 hex digits, lower-cased into out); a
 * damaged index when it is none: what names the column ("commit id"). */
int ss_index_col_id(char out[41], ss_index *ix, sqlite3_stmt *st, int i, const char *what);

/* Column i as text, "" for NULL. */
const char *ss_index_col_text(sqlite3_stmt *st, int i);

/* Column i as a time, clamped into +-SS_INDEX_TIME_LIMIT. */
int64_t ss_index_col_time(sqlite3_stmt *st, int i);

#endif
