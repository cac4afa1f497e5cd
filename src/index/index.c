/*
 * index.c - the project index: opening, the schema, updates (index.h).
 *
 * Commit rows are written once (INSERT OR IGNORE semantics: a commit read
 * again after an interrupted update keeps its first row), so an update
 * that walks a ref again is harmless.  Derived facts (Fixes: targets,
 * patch-id backports, first releases) are recomputed by set-wise SQL at
 * the end of each update, which makes an incremental update and a fresh
 * build write the same rows.  What could refuse an update (a commit the
 * walk of a moved ref or of the mainline releases cannot take, a releases
 * file) is read before its first batch, so a refused update writes
 * nothing.
 */
#include <ctype.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "commit/patchid.h"
#include "history/histidx.h"
#include "index/index.h"
#include "index/decisions.h"
#include "index/index_impl.h"
#include "labels/layout.h"
#include "labels/upstream.h"
#include "source/git.h"
#include "source/source.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"
#include "util/testhook.h"

#define SCHEMA_STR(n) #n
#define SCHEMA_TEXT(n) SCHEMA_STR(n)

static const char *const schema_sql =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE commits(id TEXT PRIMARY KEY, patch_id TEXT, author_name TEXT NOT NULL,"
	" author_email TEXT NOT NULL, author_time INTEGER NOT NULL, committer_time INTEGER NOT NULL,"
	" subject TEXT NOT NULL, mainline INTEGER NOT NULL, first_release TEXT) WITHOUT ROWID;"
	"CREATE INDEX commits_patch_id ON commits(patch_id);"
	"CREATE TABLE trailers(commit_id TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL,"
	" hint TEXT, target TEXT);"
	"CREATE INDEX trailers_commit ON trailers(commit_id);"
	"CREATE TABLE files(commit_id TEXT NOT NULL, path TEXT NOT NULL, added INTEGER NOT NULL,"
	" removed INTEGER NOT NULL);"
	"CREATE INDEX files_commit ON files(commit_id);"
	"CREATE TABLE releases(tag TEXT PRIMARY KEY, commit_id TEXT NOT NULL, time INTEGER NOT NULL,"
	" kind TEXT NOT NULL);"
	"CREATE TABLE refs(name TEXT PRIMARY KEY, tip TEXT NOT NULL, kind TEXT NOT NULL);"
	"CREATE TABLE branch_commits(branch TEXT NOT NULL, commit_id TEXT NOT NULL,"
	" PRIMARY KEY(branch, commit_id)) WITHOUT ROWID;"
	"CREATE TABLE backports(branch TEXT NOT NULL, commit_id TEXT NOT NULL,"
	" upstream_id TEXT NOT NULL, how TEXT NOT NULL, time INTEGER NOT NULL,"
	" PRIMARY KEY(branch, commit_id, upstream_id)) WITHOUT ROWID;"
	"CREATE INDEX backports_upstream ON backports(upstream_id);"
	SS_INDEX_DECISIONS_SCHEMA;

int ss_index_sql_error(ss_index *ix, const char *what)
{
	int code = sqlite3_errcode(ix->db);
	char msg[256];
	size_t i;

	/* SQLite's message may quote names from the file's schema */
	snprintf(msg, sizeof(msg), "%s", sqlite3_errmsg(ix->db));
	for (i = 0; msg[i]; i++)
		if ((unsigned char)msg[i] < ' ' || msg[i] == 0x7f)
			msg[i] = '?';
	if (code == SQLITE_BUSY)
		return ss_error_set("index '%s' is locked by another writer (an update, a mark or "
				    "a review): cannot %s, try again when it is done", ix->path, what);
	if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
		return ss_error_code(SS_EINVALID, "index '%s' is damaged or not a database: %s",
				     ix->path, msg);
	return ss_error_set("index '%s': cannot %s: %s", ix->path, what, msg);
}

int ss_index_damaged(ss_index *ix, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ss_error_code(SS_EINVALID, "index '%s' is damaged: %s", ix->path, what);
}

const char *ss_index_show(char buf[48], const char *s)
{
	size_t i;

	if (!s)
		s = "(null)";
	for (i = 0; i < 40 && s[i]; i++)
		buf[i] = s[i] > ' ' && s[i] < 0x7f && s[i] != '\'' ? s[i] : '?';
	if (s[i]) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}

const char *ss_index_col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

int ss_index_col_id(char out[41], ss_index *ix, sqlite3_stmt *st, int i, const char *what)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	char show[48];
	size_t k;

	if (!s || !ss_hexid_is_full(s, strlen(s))) {
		out[0] = '\0';
		return ss_index_damaged(ix, "%s '%s' is not 40 hex digits", what, ss_index_show(show, s));
	}
	for (k = 0; k < 40; k++)
		out[k] = (char)tolower((unsigned char)s[k]);
	out[40] = '\0';
	return 0;
}

int64_t ss_index_col_time(sqlite3_stmt *st, int i)
{
	int64_t t = sqlite3_column_int64(st, i);

	return t > SS_INDEX_TIME_LIMIT ? SS_INDEX_TIME_LIMIT
	       : t < -SS_INDEX_TIME_LIMIT ? -SS_INDEX_TIME_LIMIT : t;
}

int ss_index_exec(ss_index *ix, const char *sql, const char *what)
{
	if (sqlite3_exec(ix->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return ss_index_sql_error(ix, what);
	return 0;
}

int ss_index_prepare(sqlite3_stmt **out, ss_index *ix, const char *sql)
{
	if (sqlite3_prepare_v2(ix->db, sql, -1, out, NULL) != SQLITE_OK) {
		*out = NULL;
		return ss_index_sql_error(ix, "read");
	}
	return 0;
}

int ss_index_default_path(char **out, const char *repo)
{
	char *gitdir = NULL;
	int rc;

	*out = NULL;
	if ((rc = ss_git_locate(&gitdir, NULL, repo)))
		return rc;
	rc = asprintf(out, "%sstablesel/index.db", gitdir);
	free(gitdir);
	if (rc < 0) {
		*out = NULL;
		return SS_ENOMEM;
	}
	return 0;
}

/* The meta value of key into buf ("" when absent). */
int ss_index_meta_get(ss_index *ix, const char *key, char *buf, size_t size)
{
	sqlite3_stmt *st;
	int rc;

	buf[0] = '\0';
	if ((rc = ss_index_prepare(&st, ix, "SELECT value FROM meta WHERE key = ?")))
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(buf, size, "%s", ss_index_col_text(st, 0));
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read meta");
	sqlite3_finalize(st);
	return rc;
}

static int meta_set(ss_index *ix, const char *key, const char *value)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)")))
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "write meta");
	sqlite3_finalize(st);
	return rc;
}

int ss_index_is_empty(ss_index *ix, int *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT EXISTS(SELECT 1 FROM commits) OR"
				   " EXISTS(SELECT 1 FROM refs) OR EXISTS(SELECT 1 FROM releases)")))
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = !sqlite3_column_int(st, 0);
	rc = rc == SQLITE_ROW ? 0 : ss_index_sql_error(ix, "read");
	sqlite3_finalize(st);
	return rc;
}

static int has_meta_table(ss_index *ix, int *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if ((rc = ss_index_prepare(&st, ix,
				   "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")))
		return rc;
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW;
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read");
	sqlite3_finalize(st);
	return rc;
}

/*
 * Migrations, one a version: migrations[v - 1] takes a database from
 * schema v to v + 1, in the transaction that also records v + 1.  Version
 * 2 added the "reverts" trailer rows, which need every commit's message
 * again: its migration empties the commit tables and the refs, so that the
 * next update reads the repository again (the database keeps its identity).
 */
static const char *const migrations[SS_INDEX_SCHEMA - 1] = {
	/* 1 -> 2 */
	"DELETE FROM refs; DELETE FROM trailers; DELETE FROM files; DELETE FROM branch_commits;"
	" DELETE FROM backports; DELETE FROM releases; DELETE FROM commits;",
	/* 2 -> 3: the review decisions (index/decisions.h); a table there already
	 * (an index taken back to an older version by hand) is kept */
	SS_INDEX_DECISIONS_SCHEMA,
};

static int migrate(ss_index *ix, long from)
{
	char v[24];
	int rc;

	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	for (; from < SS_INDEX_SCHEMA && !rc; from++)
		rc = ss_index_exec(ix, migrations[from - 1], "migrate the schema");
	snprintf(v, sizeof(v), "%d", SS_INDEX_SCHEMA);
	if (rc || (rc = meta_set(ix, "schema", v)) ||
	    (rc = ss_index_exec(ix, "COMMIT", "migrate the schema")))
		sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* The tables of the schema are there, as plain tables (a view or a
 * virtual table of that name could compute anything). */
static int check_tables(ss_index *ix)
{
	static const char *const tables[] = { "meta", "commits", "trailers", "files", "releases",
					      "refs", "branch_commits", "backports", "decisions" };
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	if ((rc = ss_index_prepare(&st, ix, "SELECT type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
				   " FROM sqlite_master WHERE name = ?")))
		return rc;
	for (i = 0; i < sizeof(tables) / sizeof(*tables) && !rc; i++) {
		sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			rc = sqlite3_column_int(st, 0) ? 0
			     : ss_index_damaged(ix, "'%s' is not a table", tables[i]);
		else if (rc == SQLITE_DONE)
			rc = ss_index_damaged(ix, "table '%s' is missing", tables[i]);
		else
			rc = ss_index_sql_error(ix, "read the schema");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* What a reader says of a first build that did not finish (killed, a
 * full disk): the file, empty or without its tables, or with the meta
 * key of a build in progress. */
static int incomplete(ss_index *ix)
{
	return ss_error_code(SS_EINVALID, "index '%s': incomplete build, run 'stablesel index' again",
			     ix->path);
}

/*
 * *out: whether the database holds nothing at all: no table, index or
 * view, and neither a user version nor an application id another program
 * would have set.  Only then does a first build write into a file that
 * is there already.
 */
static int is_blank(ss_index *ix, int *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT (SELECT count(*) FROM sqlite_master) = 0 AND"
				   " (SELECT user_version FROM pragma_user_version) = 0 AND"
				   " (SELECT application_id FROM pragma_application_id) = 0")))
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0);
	rc = rc == SQLITE_ROW ? 0 : ss_index_sql_error(ix, "read the schema");
	sqlite3_finalize(st);
	return rc;
}

/*
 * The schema version of the index (*version), read only: 0 for a blank
 * database (is_blank()); SS_EINVALID for a file that is not a stablesel
 * index (a database of anything else, no schema version), a newer schema,
 * or our schema with a table missing.  Nothing is written.
 */
static int schema_version(ss_index *ix, long *version)
{
	char buf[64];
	int has, blank, rc;
	long v;

	*version = 0;
	if ((rc = has_meta_table(ix, &has)))
		return rc;
	if (!has) {
		if ((rc = is_blank(ix, &blank)))
			return rc;
		if (blank)
			return 0;
		return ss_error_code(SS_EINVALID, "'%s' is not a stablesel index (no meta table)",
				     ix->path);
	}
	if ((rc = ss_index_meta_get(ix, "schema", buf, sizeof(buf))))
		return rc;
	v = strtol(buf, NULL, 10);
	if (v == SS_INDEX_SCHEMA && (rc = check_tables(ix)))
		return rc;
	if (!buf[0] || v <= 0)
		return ss_error_code(SS_EINVALID, "'%s' is not a stablesel index (no schema version)",
				     ix->path);
	if (v > SS_INDEX_SCHEMA)
		return ss_error_code(SS_EINVALID,
				     "index '%s' has schema version %ld, newer than this stablesel's %d "
				     "(upgrade stablesel or rebuild the index)",
				     ix->path, v, SS_INDEX_SCHEMA);
	*version = v;
	return 0;
}

static int check_schema_read(ss_index *ix)
{
	char buf[64];
	long v;
	int rc;

	if ((rc = schema_version(ix, &v)))
		return rc;
	if (!v)
		return incomplete(ix);
	if (v < SS_INDEX_SCHEMA)
		return ss_error_code(SS_EINVALID,
				     "index '%s' has schema version %ld, older than this "
				     "stablesel's %d (run 'stablesel index' to upgrade it)",
				     ix->path, v, SS_INDEX_SCHEMA);
	if ((rc = ss_index_meta_get(ix, "incomplete", buf, sizeof(buf))))
		return rc;
	return buf[0] ? incomplete(ix) : 0;
}

/*
 * Make the schema of a blank database, marked "incomplete" until the
 * first update finishes.  In one write transaction that first looks
 * again: another first build may have made it since (it waits for that
 * one's transaction, then finds the tables).
 */
static int create_schema(ss_index *ix)
{
	int has, rc;

	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	ss_test_point("schema");
	if ((rc = has_meta_table(ix, &has)))
		goto rollback;
	if (!has && ((rc = ss_index_exec(ix, schema_sql, "create the schema")) ||
		     (rc = meta_set(ix, "schema", SCHEMA_TEXT(SS_INDEX_SCHEMA))) ||
		     (rc = meta_set(ix, "incomplete", "first build"))))
		goto rollback;
	if (!(rc = ss_index_exec(ix, "COMMIT", "create the schema")))
		return 0;
rollback:
	sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * Open for writing: what is there is checked before anything is written
 * (a file that is no stablesel index keeps every byte, its journal mode
 * too); then WAL, then the schema of a blank database or the migrations.
 */
static int open_write(ss_index *ix)
{
	long v;
	int rc;

	if ((rc = schema_version(ix, &v)) ||
	    (rc = ss_index_exec(ix, "PRAGMA journal_mode=WAL", "open")))
		return rc;
	if (!v) {
		if ((rc = create_schema(ix)) || (rc = schema_version(ix, &v)))
			return rc;
		if (!v)  /* cannot be: made in our transaction or another's */
			return incomplete(ix);
	}
	return v < SS_INDEX_SCHEMA ? migrate(ix, v) : 0;
}

/* 1 when dir (of path) lets this user create files in it. */
static int dir_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ok;

	if (!slash)
		return !access(".", W_OK);
	if (slash == path)
		return !access("/", W_OK);
	if (!(dir = strndup(path, (size_t)(slash - path))))
		return 0;
	ok = !access(dir, W_OK);
	free(dir);
	return ok;
}

/*
 * The name a reader opens path by.  SQLite's WAL reader makes the -shm
 * and -wal files beside the database when they are missing, and leaves
 * them: in a folder it cannot write that fails, and files left by another
 * user than the index's owner make the owner's next update fail.  So
 * when neither is there (no update is running: a running update keeps
 * its -wal) and this user is not the file's owner or cannot write its
 * folder, the file is opened immutable: read as it is, no lock, no side
 * file.  Otherwise as it is, read-only.  *out malloc'd ("file:" URI).
 */
static int reader_name(char **out, const char *path, const struct stat *st)
{
	static const char hex[] = "0123456789ABCDEF";
	char *wal, *u;
	const char *p;
	struct stat ws;
	int immutable, have_wal;
	size_t n = 0;

	if (asprintf(&wal, "%s-wal", path) < 0)
		return SS_ENOMEM;
	have_wal = !stat(wal, &ws);
	free(wal);
	immutable = !have_wal && (st->st_uid != geteuid() || !dir_writable(path));
	/* "file:" + "//" (an absolute path has no authority) + each byte as
	 * %XX at worst + "?immutable=1" */
	if (!(u = malloc(strlen(path) * 3 + 32)))
		return SS_ENOMEM;
	n += (size_t)sprintf(u, "file:%s", path[0] == '/' ? "//" : "");
	for (p = path; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || strchr("/-._~", c)) {
			u[n++] = (char)c;
		} else {
			u[n++] = '%';
			u[n++] = hex[c >> 4];
			u[n++] = hex[c & 15];
		}
	}
	strcpy(u + n, immutable ? "?immutable=1" : "?mode=ro");
	*out = u;
	return 0;
}

int ss_index_open(ss_index **out, const char *path, ss_index_mode mode)
{
	ss_index *ix;
	struct stat st;
	char *name = NULL;
	int flags, rc;

	*out = NULL;
	if (mode == SS_INDEX_READ && stat(path, &st))
		return ss_error_code(SS_ENOTFOUND, "no index at '%s' (build it with 'stablesel index')",
				     path);
	if (mode == SS_INDEX_WRITE) {
		/* the one directory level of the default location */
		char *dir = strdup(path), *slash;

		if (!dir)
			return SS_ENOMEM;
		slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			if (mkdir(dir, 0777) && errno != EEXIST) {
				rc = ss_error_set("cannot create '%s': %s", dir, strerror(errno));
				free(dir);
				return rc;
			}
		}
		free(dir);
	}
	ix = calloc(1, sizeof(*ix));
	if (!ix || !(ix->path = strdup(path))) {
		free(ix);
		return SS_ENOMEM;
	}
	if (mode == SS_INDEX_READ && S_ISREG(st.st_mode) && st.st_size == 0) {
		/* what a first build on a full disk may leave */
		rc = incomplete(ix);
		ss_index_free(ix);
		return rc;
	}
	if (mode == SS_INDEX_READ && (rc = reader_name(&name, path, &st))) {
		ss_index_free(ix);
		return rc;
	}
	flags = mode == SS_INDEX_READ ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
				      : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(name ? name : path, &ix->db, flags, NULL) != SQLITE_OK) {
		rc = ix->db ? ss_error_set("cannot open index '%s': %s", path, sqlite3_errmsg(ix->db))
			    : SS_ENOMEM;
		free(name);
		ss_index_free(ix);
		return rc;
	}
	free(name);
	sqlite3_busy_timeout(ix->db, 10000);
	/* the file may come from anywhere: no schema code runs with more
	 * trust than SQL of ours, its own structure cannot be written, and
	 * no value read is larger than 64 MiB */
	sqlite3_db_config(ix->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(ix->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_limit(ix->db, SQLITE_LIMIT_LENGTH, 64 << 20);
	rc = mode == SS_INDEX_WRITE ? open_write(ix)
				    : ss_index_exec(ix, "PRAGMA query_only=1", "open");
	if (!rc && mode == SS_INDEX_READ)
		rc = check_schema_read(ix);
	if (rc) {
		ss_index_free(ix);
		return rc;
	}
	*out = ix;
	return 0;
}

void ss_index_free(ss_index *ix)
{
	if (!ix)
		return;
	sqlite3_close(ix->db);
	free(ix->path);
	free(ix);
}

/* ------------------------------------------------------------------ */
/* Updating. */

enum {
	ST_HAS_COMMIT, ST_SET_MAINLINE, ST_COMMIT, ST_TRAILER, ST_FILE,
	ST_BRANCH_COMMIT, ST_BACKPORT, ST_NSTMT
};

static const char *const stmt_sql[ST_NSTMT] = {
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

struct updater {
	ss_index *ix;
	const ss_index_options *opts;
	ss_index_stats *stats;
	sqlite3_stmt *st[ST_NSTMT];
	ss_upstream *up;
	const ss_layout *layout;
	size_t in_batch;  /* commits written in the open transaction */
	size_t done;      /* commits read in this update */
	int pending;      /* 1: meta "pending" goes in with the next batch,
			   * 2: it is in (see done_sql) */
	int last_skipped; /* write_source: its last message was skipped (SS_ESKIP) */
};

static int meta_set(ss_index *ix, const char *key, const char *value);

static int step_done(struct updater *u, sqlite3_stmt *st)
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
	return step_done(u, st);
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

static int add_commit(struct updater *u, const ss_commit *c, int mainline)
{
	sqlite3_stmt *st = u->st[ST_HAS_COMMIT];
	char pid[41];
	size_t i;
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
		return step_done(u, u->st[ST_SET_MAINLINE]);
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
	if ((rc = step_done(u, st)) || (rc = add_trailers(u, c)))
		return rc;
	for (i = 0; i < c->nfiles; i++) {
		const ss_file *f = &c->files[i];

		st = u->st[ST_FILE];
		bind_str(st, 1, c->id);
		bind_str(st, 2, ss_file_path(f));
		sqlite3_bind_int64(st, 3, (sqlite3_int64)f->added);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)f->removed);
		if ((rc = step_done(u, st)))
			return rc;
	}
	u->stats->commits++;
	return 0;
}

/* Record a stable-branch commit: its place on branch and its backport
 * lines.  *lines counts the upstream ids found. */
static int add_branch_commit(struct updater *u, const ss_commit *c, const char *branch,
			     size_t *lines)
{
	char shas[16][41];
	size_t n, i;
	int rc;

	sqlite3_bind_text(u->st[ST_BRANCH_COMMIT], 1, branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(u->st[ST_BRANCH_COMMIT], 2, c->id, -1, SQLITE_STATIC);
	if ((rc = step_done(u, u->st[ST_BRANCH_COMMIT])))
		return rc;
	n = ss_upstream_find(u->up, c->message, shas, 16);
	for (i = 0; i < n; i++) {
		sqlite3_stmt *st = u->st[ST_BACKPORT];

		sqlite3_bind_text(st, 1, branch, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, c->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, shas[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, c->committer.time);
		if ((rc = step_done(u, st)))
			return rc;
		u->stats->backports += (size_t)sqlite3_changes(u->ix->db);
	}
	*lines += n;
	return 0;
}

static int begin(struct updater *u)
{
	int rc;

	u->in_batch = 0;
	if ((rc = ss_index_exec(u->ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	/* the mark of an update under way, with its first batch (mark_pending()) */
	return u->pending == 1 ? meta_set(u->ix, "pending", "releases") : 0;
}

static int commit_tx(struct updater *u)
{
	int rc = ss_index_exec(u->ix, "COMMIT", "commit a transaction");

	if (!rc && u->pending == 1)
		u->pending = 2;
	return rc;
}

static void rollback(struct updater *u)
{
	if (!sqlite3_get_autocommit(u->ix->db))
		sqlite3_exec(u->ix->db, "ROLLBACK", NULL, NULL, NULL);
}

/* The tip recorded for ref name ("" when none) and its kind. */
static int ref_get(ss_index *ix, const char *name, char tip[41], char kind[16])
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

static int ref_set(ss_index *ix, const char *name, const char *tip, const char *kind)
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
static int write_source(struct updater *u, ss_source *src, size_t skip, size_t *seen,
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
			if ((rc = commit_tx(u)))
				return rc;
			ss_test_point("batch");
			if ((rc = begin(u)))
				return rc;
			if (u->opts->progress)
				u->opts->progress(what, u->done, 0);
		}
	}
}

struct ref_ctx {
	const char *name;
	int stable;
	size_t *lines;
};

static int add_ref_commit(struct updater *u, const ss_commit *c, void *ctx)
{
	struct ref_ctx *x = ctx;
	int rc = add_commit(u, c, x->stable == 0);

	return !rc && x->stable ? add_branch_commit(u, c, x->name, x->lines) : rc;
}

/*
 * Walk ref name (at tip) down to its recorded tip and, for a stable
 * branch, the mainline tip hide; write its commits in batches and its new
 * tip with the last one.  stable: 1 stable (--branches), 0 mainline, -1 a
 * branch that is stable when it carries backport lines.
 */
static int walk_ref(struct updater *u, const char *name, const char *tip, const char *hide,
		    int stable)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char old[41], kind[16], oldrev[43], hiderev[43], probe[41];
	const char *revs[3];
	const char *newkind;
	ss_source *src = NULL;
	size_t lines = 0;
	int rc;

	if ((rc = ref_get(u->ix, name, old, kind)))
		return rc;
	if (!strcmp(old, tip))
		return 0;
	u->stats->refs_walked++;
	revs[0] = tip;
	so.nrevs = 1;
	/* a tip rewritten away (force-push) is walked from scratch */
	if (old[0] && !ss_git_resolve(probe, u->opts->repo, old)) {
		snprintf(oldrev, sizeof(oldrev), "^%s", old);
		revs[so.nrevs++] = oldrev;
	}
	if (hide) {
		snprintf(hiderev, sizeof(hiderev), "^%s", hide);
		revs[so.nrevs++] = hiderev;
	}
	so.repo = u->opts->repo;
	so.revs = revs;
	if ((rc = ss_source_open(&src, u->opts->repo, &so)))
		return rc;
	if ((rc = begin(u)))
		goto free_source;
	{
		struct ref_ctx x = { name, stable, &lines };

		if ((rc = write_source(u, src, 0, NULL, name, add_ref_commit, &x)))
			goto rollback;
	}
	if (!stable)
		newkind = "mainline";
	else if (stable > 0 || lines || !strcmp(kind, "stable"))
		newkind = "stable";
	else
		newkind = "other";
	if ((rc = ref_set(u->ix, name, tip, newkind)) || (rc = commit_tx(u)))
		goto rollback;
	ss_test_point("ref");
	goto free_source;
rollback:
	rollback(u);
free_source:
	ss_source_free(src);
	return rc;
}

struct branch {
	char *name;
	char tip[41];
};

/*
 * The branches to walk besides the mainline (labels/layout.h): every
 * branch the layout keeps (not a remote-tracking copy of one, not left
 * out by --branches), not at the mainline's tip.  Staging areas and
 * end-of-life branches are read too (what they carry is known), the
 * index records their roles.
 */
static int list_branches(struct branch **out, size_t *n, const ss_layout *l)
{
	struct branch *b;
	size_t i, k = 0;

	*out = NULL;
	*n = 0;
	if (!(b = calloc(l->nbranches ? l->nbranches : 1, sizeof(*b))))
		return SS_ENOMEM;
	for (i = 0; i < l->nbranches; i++) {
		const ss_layout_branch *x = &l->branches[i];

		if (x->role == SS_ROLE_MAINLINE || x->role == SS_ROLE_COPY ||
		    x->role == SS_ROLE_UNNAMED || !strcmp(x->tip, l->mtip))
			continue;
		if (!(b[k].name = strdup(x->name))) {
			while (k--)
				free(b[k].name);
			free(b);
			return SS_ENOMEM;
		}
		memcpy(b[k++].tip, x->tip, 41);
	}
	*out = b;
	*n = k;
	return 0;
}

/*
 * The releases of an update, read before anything is written: the
 * releases (tags or --releases), whether the table holds them already,
 * and the mainline releases with their graph when the update needs it
 * (NULL when neither the releases nor any ref moved).
 */
struct rel_plan {
	ss_releases *rel;
	ss_releases *mr;
	int same;
};

static int check_refs(struct updater *u, const char *mainline, const char *mtip,
		      const struct branch *br, size_t nbr, int *moved);
static int plan_releases(struct updater *u, struct rel_plan *p, int moved);
static int write_releases(struct updater *u, const struct rel_plan *p);

static void plan_free(struct rel_plan *p);
static const char *release_kind(const struct updater *u, const char *tag);
static int count_releases(ss_index *ix, size_t *out);

/*
 * Derived facts, recomputed set-wise so that incremental and fresh builds
 * agree: a Fixes: target when exactly one indexed commit has that prefix;
 * backports by equal patch ids for stable-branch commits without a
 * backport line (every mainline commit with that patch id).
 */
static const char *const derive_sql =
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

int ss_index_check_repository(ss_index *ix, const char *repo)
{
	char id[41], probe[41];
	int rc;

	if ((rc = ss_index_meta_get(ix, "repository", id, sizeof(id))))
		return rc;
	if (id[0] && (ss_git_resolve(probe, repo, id) || strcmp(probe, id)))
		return ss_error_code(SS_EINVALID,
				     "index '%s' was built from another repository than '%s' "
				     "(it has no commit %.12s)", ix->path, repo, id);
	return 0;
}

/* The index is repo's, or new (then it becomes repo's: mtip, a commit of
 * its mainline, is recorded); an index of mail is refused. */
static int check_identity(ss_index *ix, const char *repo, const char *mtip)
{
	char id[41];
	int rc, empty;

	if ((rc = ss_index_meta_get(ix, "repository", id, sizeof(id))))
		return rc;
	if (id[0])
		return ss_index_check_repository(ix, repo);
	/* no repository recorded and something written: mail's */
	if ((rc = ss_index_is_empty(ix, &empty)))
		return rc;
	if (!empty)
		return ss_error_code(SS_EINVALID, "index '%s' is an index of mail: a repository goes "
				     "into an index of its own (--db FILE)", ix->path);
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	if ((rc = meta_set(ix, "repository", mtip)) ||
	    (rc = ss_index_exec(ix, "COMMIT", "commit a transaction"))) {
		sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	ss_test_point("identity");
	return 0;
}

/*
 * What an update that finished clears, in its last transaction.  An
 * update whose refs moved writes meta "pending" in the transaction of its
 * first batch (a walk refused before that commits leaves every table as
 * it was), and write_releases() clears it with the first releases it sets
 * last: an update interrupted in between (killed, a full disk) leaves it,
 * and the next one, which may find no ref moved, still reads the
 * releases' graph and sets them.  "incomplete" marks a new file until its
 * first update finishes.
 */
static const char *const done_sql = "DELETE FROM meta WHERE key IN ('pending', 'incomplete')";

int ss_index_update(ss_index *ix, const ss_index_options *opts, ss_index_stats *stats)
{
	static const ss_index_stats zero;
	ss_index_options o = *opts;
	ss_index_stats local;
	struct updater u;
	struct branch *br = NULL;
	struct rel_plan plan = { NULL, NULL, 0 };
	size_t nbr = 0, i;
	int moved = 0;
	ss_layout *found = NULL;
	const char *mainline, *mtip;
	char pending[16];
	int rc;

	if (!stats)
		stats = &local;
	*stats = zero;
	if (!o.batch)
		o.batch = 1000;
	memset(&u, 0, sizeof(u));
	u.ix = ix;
	u.opts = &o;
	u.stats = stats;
	if (!o.layout) {
		ss_layout_options lo = SS_LAYOUT_OPTIONS_INIT;

		lo.mainline = o.mainline;
		lo.branches = o.branches;
		lo.release_tags = o.release_tags;
		if ((rc = ss_layout_find(&found, o.repo, &lo)))
			return rc;
		o.layout = found;
	}
	u.layout = o.layout;
	mainline = o.layout->mainline_name;
	mtip = o.layout->mtip;
	if ((rc = check_identity(ix, o.repo, mtip)))
		goto free_head;
	if ((rc = ss_upstream_new(&u.up, NULL, 0)))
		goto free_head;
	for (i = 0; i < ST_NSTMT; i++)
		if ((rc = ss_index_prepare(&u.st[i], ix, stmt_sql[i])))
			goto free_stmts;
	if ((rc = list_branches(&br, &nbr, o.layout)))
		goto free_stmts;
	/* what could refuse the update, before its first batch: the walks of
	 * the refs that moved, the releases and their graph (a commit that
	 * only a stable branch or a release tag reaches) */
	if ((rc = ss_index_meta_get(ix, "pending", pending, sizeof(pending))) ||
	    (rc = check_refs(&u, mainline, mtip, br, nbr, &moved)) ||
	    (rc = plan_releases(&u, &plan, moved || pending[0])))
		goto free_branches;
	/* an update whose refs moved says so in meta ("pending") with its
	 * first batch (see done_sql) */
	u.pending = moved;
#ifdef __GLIBC__
	/* the graphs' memory, freed, back to the system before the reader's
	 * peak (only the releases map stays) */
	malloc_trim(0);
#endif
	if ((rc = walk_ref(&u, mainline, mtip, NULL, 0)))
		goto free_branches;
	for (i = 0; i < nbr; i++)
		if ((rc = walk_ref(&u, br[i].name, br[i].tip, mtip, o.layout->explicit_branches ? 1 : -1)))
			goto free_branches;
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		goto free_branches;
	if ((rc = ss_index_exec(ix, derive_sql, "derive fixes and patch-id backports")))
		goto rollback;
	stats->backports += (size_t)sqlite3_changes(ix->db);
	if ((rc = ss_index_decisions_derive(ix, NULL)))
		goto rollback;
	if ((rc = ss_index_exec(ix, "COMMIT", "commit a transaction")))
		goto rollback;
	ss_test_point("derive");
	/* the layout read, once the refs it chose are written */
	if ((rc = ss_index_record_layout(ix, o.layout)))
		goto free_branches;
	rc = write_releases(&u, &plan);
	goto free_branches;
rollback:
	rollback(&u);
free_branches:
	plan_free(&plan);
	for (i = 0; i < nbr; i++)
		free(br[i].name);
	free(br);
free_stmts:
	for (i = 0; i < ST_NSTMT; i++)
		sqlite3_finalize(u.st[i]);
	ss_upstream_free(u.up);
free_head:
	ss_layout_free(found);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Releases. */

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
	if ((rc = count_releases(ix, &rows)))
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
static int replace_releases(struct updater *u, const ss_releases *rel)
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
		rc = step_done(u, ins);
	}
	sqlite3_finalize(ins);
	return rc;
}

/*
 * Walk the graph of every ref the update will read, as walk_ref() will
 * (tip ^old, and ^mainline for a branch), with one graph over them all,
 * before anything is written: a commit the walk refuses that only a
 * stable branch reaches would otherwise stop the update after the
 * mainline's batches.  Nothing when no ref moved; *moved says whether one
 * did.
 */
static int check_refs(struct updater *u, const char *mainline, const char *mtip,
		      const struct branch *br, size_t nbr, int *moved)
{
	ss_git_check *w;
	char (*olds)[41];
	size_t n = 0, i;
	int rc = 0;

	w = calloc(nbr + 1, sizeof(*w));
	olds = calloc(nbr + 1, sizeof(*olds));
	if (!w || !olds) {
		free(w);
		free(olds);
		return SS_ENOMEM;
	}
	for (i = 0; i <= nbr && !rc; i++) {
		const char *name = i ? br[i - 1].name : mainline;
		const char *tip = i ? br[i - 1].tip : mtip;
		char kind[16], probe[41];

		if ((rc = ref_get(u->ix, name, olds[n], kind)) || !strcmp(olds[n], tip))
			continue;
		w[n].tip = tip;
		/* as walk_ref(): a tip rewritten away is walked whole */
		if (olds[n][0] && !ss_git_resolve(probe, u->opts->repo, olds[n]))
			w[n].hide[w[n].nhide++] = olds[n];
		if (i)
			w[n].hide[w[n].nhide++] = mtip;
		n++;
	}
	*moved = n > 0;
	if (!rc)
		rc = ss_git_check_walks(u->opts->repo, w, n);
	free(olds);
	free(w);
	return rc;
}

static void plan_free(struct rel_plan *p)
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
 * check_refs() found), the graph of the
 * mainline releases, which reads every commit a mainline release tag
 * reaches: done before anything is written, so that a commit the walk
 * refuses, or a releases file that cannot be read, leaves the index as it
 * was.  An update with nothing new reads no graph: it only compares the
 * tags with the table.  The graph (its release of each commit, 24 bytes
 * a commit) is kept for write_releases().
 */
static int plan_releases(struct updater *u, struct rel_plan *p, int moved)
{
	const ss_index_options *o = u->opts;
	size_t n;
	int rc;

	if ((rc = o->releases ? ss_releases_load_tsv(&p->rel, o->releases)
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
 * commit not yet in one, from the graph plan_releases() read.  Nothing
 * when it read none.
 */
static int write_releases(struct updater *u, const struct rel_plan *p)
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
		return ss_index_exec(ix, done_sql, "write meta");
	}
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	if (!p->same) {
		if ((rc = ss_index_exec(ix, "UPDATE commits SET first_release = NULL"
					" WHERE first_release IS NOT NULL", "replace the releases")) ||
		    (rc = replace_releases(u, p->rel)))
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
		if ((rc = step_done(u, set)))
			goto rollback;
	}
	if (rc != SQLITE_DONE) {
		rc = ss_index_sql_error(ix, "read commits");
		goto rollback;
	}
	sqlite3_finalize(todo);
	todo = NULL;
	if ((rc = ss_index_exec(ix, done_sql, "write meta")) ||
	    (rc = ss_index_exec(ix, "COMMIT", "commit a transaction")))
		goto rollback;
	ss_test_point("releases");
	goto out;
rollback:
	sqlite3_finalize(todo);
	todo = NULL;
	rollback(u);
out:
	sqlite3_finalize(set);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Mail sources. */

/* A release commit of a mail source ("version: 21.11.0", "Linux 6.6"). */
static int add_stream_release(struct updater *u, const ss_commit *c)
{
	ss_release_version v;
	sqlite3_stmt *st;
	int rc;

	if (ss_release_version_of_subject(&v, c->subject ? c->subject : "") ||
	    !ss_hexid_is_full(c->id, strlen(c->id)))
		return 0;
	if ((rc = ss_index_prepare(&st, u->ix, "INSERT OR IGNORE INTO releases(tag, commit_id, time,"
				   " kind) VALUES(?, ?, ?, ?)")))
		return rc;
	sqlite3_bind_text(st, 1, v.text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, c->committer.time > 0 ? c->committer.time : c->author.time);
	sqlite3_bind_text(st, 4, v.rc ? "rc" : ss_release_version_is_mainline(&v) ? "mainline"
									   : "stable", -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(u->ix, "write releases");
	sqlite3_finalize(st);
	return rc;
}

static int add_stream_release(struct updater *u, const ss_commit *c);

static int add_mail_commit(struct updater *u, const ss_commit *c, void *ctx)
{
	int rc = add_commit(u, c, 1);

	(void)ctx;
	return !rc && !u->opts->releases ? add_stream_release(u, c) : rc;
}

/*
 * Where the last read of a mail source ended, as its ref records it:
 * "<decoded bytes>:<crc32 of them>" (format 2), or, as the first indexes
 * wrote it, the number of messages read ("<n>").  0 when none or unreadable.
 */
static void mail_mark(const char *tip, unsigned long long *at, unsigned long *crc, size_t *count)
{
	char *end;
	unsigned long long v;

	*at = 0;
	*crc = 0;
	*count = 0;
	if (!tip[0])
		return;
	v = strtoull(tip, &end, 10);
	if (*end == ':') {
		*at = v;
		*crc = strtoul(end + 1, &end, 10);
		if (*end)
			*at = *crc = 0;
	} else if (!*end) {
		*count = (size_t)v;
	}
}

/*
 * Read the mail source spec as mainline commits, in batches, from where
 * the last update stopped: an mbox that grew at its end, as a list
 * archive does, is decoded up to there and not parsed (its decoded
 * length and their crc32 are recorded; an index of the first format
 * recorded the number of messages, which are parsed and passed over).
 * When the bytes up to there are no longer the ones read before (the
 * mbox was rewritten), it is read again from its start.  The new end is
 * recorded with the last batch.
 */
static int read_mail(struct updater *u, const char *spec)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char name[4200], old[41], kind[16], mark[48];
	const ss_source_stats *st;
	ss_source *src = NULL;
	size_t seen = 0, skip;
	int rc, reread = 0;

	snprintf(name, sizeof(name), "mbox:%s", spec);
	if ((rc = ref_get(u->ix, name, old, kind)))
		return rc;
	so.resume = 1;
	mail_mark(old, &so.resume_at, &so.resume_crc, &skip);
	if ((rc = ss_source_open(&src, spec, &so)))
		return rc;
	if ((rc = begin(u)))
		goto free_source;
	if ((rc = write_source(u, src, skip, &seen, spec, add_mail_commit, NULL)))
		goto rollback;
	st = ss_source_stats_get(src);
	if (st->resumed < 0) {
		/* rewritten: nothing was read; again, from the start */
		ss_source_free(src);
		so.resume_at = 0;
		if ((rc = ss_source_open(&src, spec, &so)))
			goto rollback;
		if ((rc = write_source(u, src, 0, &seen, spec, add_mail_commit, NULL)))
			goto rollback;
		st = ss_source_stats_get(src);
		skip = 0;
		reread = 1;
		u->stats->mail_reread++;
	}
	if (seen > skip)
		u->stats->refs_walked++;
	/* a last message skipped may be one cut by a writer still appending
	 * (a cut at a line end reads as a malformed message): keep the old
	 * end, so that the next update reads it again, whole (what it read
	 * before it passes over as already indexed) */
	if (u->last_skipped)
		snprintf(mark, sizeof(mark), "%s", reread ? "" : old);
	else if (st->decoded)
		snprintf(mark, sizeof(mark), "%llu:%lu", st->decoded, st->decoded_crc);
	else /* no mbox (a maildir): the messages, read again and passed over */
		snprintf(mark, sizeof(mark), "%zu", seen);
	if ((rc = ref_set(u->ix, name, mark, "mbox")) || (rc = commit_tx(u)))
		goto rollback;
	ss_test_point("source");
	goto free_source;
rollback:
	rollback(u);
free_source:
	ss_source_free(src);
	return rc;
}

/* The releases of a mail index from opts->releases (read before the
 * first batch): no graph to place commits with, so no first releases. */
static int mail_releases(struct updater *u, const ss_releases *rel)
{
	int rc;

	if ((rc = ss_index_exec(u->ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	if ((rc = replace_releases(u, rel)) || (rc = ss_index_exec(u->ix, done_sql, "write meta")))
		goto rollback;
	u->stats->releases = ss_releases_count(rel);
	rc = ss_index_exec(u->ix, "COMMIT", "commit a transaction");
	if (!rc) {
		ss_test_point("releases");
		return 0;
	}
rollback:
	rollback(u);
	return rc;
}

int ss_index_update_mail(ss_index *ix, const char *const *specs, size_t n,
			 const ss_index_options *opts, ss_index_stats *stats)
{
	static const ss_index_stats zero;
	ss_index_options o = *opts;
	ss_index_stats local;
	struct updater u;
	ss_releases *rel = NULL;
	char id[41];
	size_t i;
	int rc;

	if (!stats)
		stats = &local;
	*stats = zero;
	if (!o.batch)
		o.batch = 1000;
	if ((rc = ss_index_meta_get(ix, "repository", id, sizeof(id))))
		return rc;
	if (id[0])
		return ss_error_code(SS_EINVALID, "index '%s' is a repository's: mail goes into an "
				     "index of its own (--db FILE)", ix->path);
	memset(&u, 0, sizeof(u));
	u.ix = ix;
	u.opts = &o;
	u.stats = stats;
	/* a releases file that cannot be read refuses the update before it
	 * writes anything */
	if (o.releases && (rc = ss_releases_load_tsv(&rel, o.releases)))
		return rc;
	for (i = 0; i < ST_NSTMT; i++)
		if ((rc = ss_index_prepare(&u.st[i], ix, stmt_sql[i])))
			goto free_stmts;
	for (i = 0; i < n && !rc; i++)
		rc = read_mail(&u, specs[i]);
	if (rc)
		goto free_stmts;
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		goto free_stmts;
	if ((rc = ss_index_exec(ix, derive_sql, "derive fixes")) ||
	    (!rel && (rc = ss_index_exec(ix, done_sql, "write meta"))) ||
	    (rc = ss_index_exec(ix, "COMMIT", "commit a transaction"))) {
		rollback(&u);
		goto free_stmts;
	}
	ss_test_point("derive");
	if (rel)
		rc = mail_releases(&u, rel);
	else
		rc = count_releases(ix, &stats->releases);
free_stmts:
	for (i = 0; i < ST_NSTMT; i++)
		sqlite3_finalize(u.st[i]);
	ss_releases_free(rel);
	return rc;
}

static int count_releases(ss_index *ix, size_t *out)
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
