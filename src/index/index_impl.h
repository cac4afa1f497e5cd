/*
 * index_impl.h - what the files of src/index/ share (internal).
 */
#ifndef SS_INDEX_IMPL_H
#define SS_INDEX_IMPL_H

#include <sqlite3.h>

#include "index/index.h"

/* The decisions table of schema 3: made by the migration from 2, then
 * taken into the log by the migration from 3. */
#define SS_INDEX_DECISIONS_SCHEMA_3 \
	"CREATE TABLE IF NOT EXISTS decisions(commit_id TEXT NOT NULL, branch TEXT NOT NULL, patch_id TEXT," \
	" state TEXT NOT NULL, until TEXT NOT NULL DEFAULT '', who TEXT NOT NULL," \
	" time INTEGER NOT NULL, note TEXT NOT NULL DEFAULT ''," \
	" PRIMARY KEY(commit_id, branch)) WITHOUT ROWID;"

/* The decisions' log (index/index_decisions.h), schema 4: one row a change,
 * never updated nor deleted (seq: the order rows were written in; logged:
 * when; undo: the row puts back the one before the change undone); the
 * view "decisions" is the current state, for people and scripts reading
 * the file (stablesel reads the log). */
#define SS_INDEX_DECISION_LOG_TABLE \
	"CREATE TABLE IF NOT EXISTS decision_log(seq INTEGER PRIMARY KEY, commit_id TEXT NOT NULL," \
	" branch TEXT NOT NULL, patch_id TEXT, state TEXT NOT NULL, until TEXT NOT NULL DEFAULT ''," \
	" who TEXT NOT NULL, time INTEGER NOT NULL, note TEXT NOT NULL DEFAULT ''," \
	" logged INTEGER NOT NULL DEFAULT 0, undo INTEGER NOT NULL DEFAULT 0);" \
	"CREATE INDEX IF NOT EXISTS decision_log_key ON decision_log(commit_id, branch, seq);" \
	"CREATE INDEX IF NOT EXISTS decision_log_patch_id ON decision_log(patch_id);"

/* The current decisions: the latest row of each commit and branch, unless
 * it is a reset ("none"). */
#define SS_INDEX_DECISIONS_CURRENT \
	"(SELECT * FROM decision_log l WHERE l.state <> 'none' AND l.seq =" \
	" (SELECT max(m.seq) FROM decision_log m WHERE m.commit_id = l.commit_id" \
	" AND m.branch = l.branch))"

#define SS_INDEX_DECISIONS_VIEW \
	"CREATE VIEW IF NOT EXISTS decisions AS SELECT commit_id, branch, patch_id, state, until, who," \
	" time, note FROM " SS_INDEX_DECISIONS_CURRENT ";"

#define SS_INDEX_DECISIONS_SCHEMA SS_INDEX_DECISION_LOG_TABLE SS_INDEX_DECISIONS_VIEW

/* 3 -> 4: each decision of the table becomes a row of the log (oldest
 * first), under the branch's local name when the index knows it as a
 * remote-tracking one ("origin/21.11" is "21.11": one identity a
 * branch); nothing is lost, both rows of a branch named both ways are
 * kept and the newer one holds. */
#define SS_INDEX_DECISIONS_MIGRATE_4 \
	SS_INDEX_DECISION_LOG_TABLE \
	"INSERT INTO decision_log(commit_id, branch, patch_id, state, until, who, time, note, logged)" \
	" SELECT commit_id, CASE WHEN branch IN (SELECT name FROM refs WHERE kind = 'stable'" \
	" AND instr(name, '/') > 0) THEN substr(branch, instr(branch, '/') + 1) ELSE branch END," \
	" patch_id, state, until, who, time, note, time FROM decisions" \
	" ORDER BY time, commit_id, branch;" \
	"DROP TABLE decisions;" \
	SS_INDEX_DECISIONS_VIEW

/* 3 -> 4, in the migration's transaction: the table "decisions" into the
 * log (SS_INDEX_DECISIONS_MIGRATE_4); an index that has the log already
 * (its schema version set back by hand) keeps it as it is. */
int ss_index_decisions_migrate_4(ss_index *ix);

struct ss_index {
	sqlite3 *db;
	char *path;
	int write;          /* opened SS_INDEX_WRITE */
	int64_t as_of;      /* ss_index_as_of()'s time; 0: none */
	unsigned refs;      /* ss_index_share()s beyond the opener's */
};

/* SQLite's last error on ix as an ss_error (SS_EINVALID for a file that
 * is damaged or no database); what: "read", "write meta", ... */
int ss_index_sql_error(ss_index *ix, const char *what);
int ss_index_exec(ss_index *ix, const char *sql, const char *what);
int ss_index_prepare(sqlite3_stmt **out, ss_index *ix, const char *sql);
/* *out: whether ix has a table of that name (the tables a writer makes
 * when it first needs them: feature_data, missing_blobs).  0 or < 0. */
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
