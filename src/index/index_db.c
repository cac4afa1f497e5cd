/*
 * index_db.c - the project index: opening, the schema, meta (index.h;
 * "stablesel index" is cmd/index.c over run/index_build.c).
 * The updates: index_git.c (from a repository), index_mail.c (from
 * mail), index_releases.c (the releases table), over index_update.c (the
 * writer they share, index_update.h).
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "index/index.h"
#include "index/index_impl.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/testhook.h"

/* how long a writer waits for another one's lock */
#define SS_INDEX_BUSY_MS 10000

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

int ss_index_table_exists(ss_index *ix, const char *name, int *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT 1 FROM sqlite_master WHERE type = 'table'"
				   " AND name = ?")))
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW;
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read");
	sqlite3_finalize(st);
	return rc;
}

/* The default path under gitdir (freed here). */
static int default_path(char **out, char *gitdir)
{
	int rc = asprintf(out, "%sstablesel/index.db", gitdir);

	free(gitdir);
	if (rc < 0) {
		*out = NULL;
		return SS_ENOMEM;
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
	return default_path(out, gitdir);
}

int ss_index_default_path_repo(char **out, ss_repo *r)
{
	char *gitdir = NULL;
	int rc;

	*out = NULL;
	if ((rc = ss_repo_locate(&gitdir, NULL, r)))
		return rc;
	return default_path(out, gitdir);
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

int ss_index_meta_set(ss_index *ix, const char *key, const char *value)
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

/* FNV-1a over the text of every column of every row st gives, a 0 byte
 * after each column, into *h. */
static int hash_rows(uint64_t *h, ss_index *ix, const char *sql)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, sql)))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++)
			for (const unsigned char *p = (const unsigned char *)ss_index_col_text(st, c);; p++) {
				*h = (*h ^ *p) * 0x100000001b3ull;
				if (!*p)
					break;
			}
	rc = rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read");
	sqlite3_finalize(st);
	return rc;
}

int ss_index_state_hash(ss_index *ix, uint64_t *out)
{
	/* what an update writes: meta (tips of the features kept too), each
	 * ref's indexed tip, how many rows the tables hold; the decisions are
	 * not in it */
	static const char *const sql[] = {
		"SELECT key, value FROM meta ORDER BY key",
		"SELECT name, tip, kind FROM refs ORDER BY name",
		"SELECT (SELECT count(*) FROM commits), (SELECT count(*) FROM releases), "
		"(SELECT count(*) FROM backports), (SELECT count(*) FROM branch_commits)",
	};
	uint64_t h = 0xcbf29ce484222325ull;
	int rc;

	*out = 0;
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++)
		if ((rc = hash_rows(&h, ix, sql[i])))
			return rc;
	*out = h;
	return 0;
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
	/* 2 -> 3: the review decisions (index/index_decisions.h); a table there already
	 * (an index taken back to an older version by hand) is kept */
	SS_INDEX_DECISIONS_SCHEMA_3,
	/* 3 -> 4: the decisions as an append-only log (index_impl.h); run by
	 * ss_index_decisions_migrate_4(), which looks at what is there first */
	NULL,
};

static int migrate(ss_index *ix, long from)
{
	char v[24];
	int rc;

	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	for (; from < SS_INDEX_SCHEMA && !rc; from++)
		rc = migrations[from - 1] ? ss_index_exec(ix, migrations[from - 1], "migrate the schema")
		     : ss_index_decisions_migrate_4(ix);
	snprintf(v, sizeof(v), "%d", SS_INDEX_SCHEMA);
	if (rc || (rc = ss_index_meta_set(ix, "schema", v)) ||
	    (rc = ss_index_exec(ix, "COMMIT", "migrate the schema")))
		sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* The tables of the schema are there, as plain tables (a view or a
 * virtual table of that name could compute anything). */
static int check_tables(ss_index *ix)
{
	static const char *const tables[] = { "meta", "commits", "trailers", "files", "releases",
					      "refs", "branch_commits", "backports", "decision_log" };
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
		     (rc = ss_index_meta_set(ix, "schema", SCHEMA_TEXT(SS_INDEX_SCHEMA))) ||
		     (rc = ss_index_meta_set(ix, "incomplete", "first build"))))
		goto rollback;
	if (!(rc = ss_index_exec(ix, "COMMIT", "create the schema")))
		return 0;
rollback:
	sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * WAL on a file that is still in rollback mode (a first build) needs an
 * exclusive lock.  Two first builds at once both read the blank file
 * (a shared lock each) and then both ask for it: SQLite answers the
 * second SQLITE_BUSY at once, without its busy handler, since waiting
 * could deadlock.  The statement runs alone (no transaction is open), so
 * it is tried again here, for as long as the busy timeout lasts.
 */
static int set_wal(ss_index *ix)
{
	int i;

	for (i = 0;; i++) {
		if (sqlite3_exec(ix->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) == SQLITE_OK)
			return 0;
		if (sqlite3_errcode(ix->db) != SQLITE_BUSY || i >= SS_INDEX_BUSY_MS / 20)
			return ss_index_sql_error(ix, "open");
		usleep(20000);
	}
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

	if ((rc = schema_version(ix, &v)) || (rc = set_wal(ix)))
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
	ix->write = mode == SS_INDEX_WRITE;
	sqlite3_busy_timeout(ix->db, SS_INDEX_BUSY_MS);
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

void ss_index_discard_first_build(ss_index *ix, const char *path, const char *made_dir)
{
	char *file, *side;
	int empty = 0;

	if (ss_index_is_empty(ix, &empty))
		empty = 0;
	ss_index_free(ix);
	/* the file SQLite made: a symlink's target (the link is the user's,
	 * and stays), and its side files beside the target */
	if (!empty || !(file = realpath(path, NULL)))
		return;
	unlink(file);
	if (asprintf(&side, "%s-wal", file) >= 0) {
		unlink(side);
		free(side);
	}
	if (asprintf(&side, "%s-shm", file) >= 0) {
		unlink(side);
		free(side);
	}
	free(file);
	if (made_dir)
		rmdir(made_dir);
}

ss_index *ss_index_share(ss_index *ix)
{
	if (ix)
		ix->refs++;
	return ix;
}

int ss_index_compact(ss_index *ix)
{
	int rc = sqlite3_exec(ix->db, "VACUUM", NULL, NULL, NULL);

	if (rc == SQLITE_OK)
		return 0;
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
		return ss_error_set("index '%s' is in use: not packed (%s)", ix->path,
				    sqlite3_errmsg(ix->db));
	return ss_index_sql_error(ix, "pack");
}

void ss_index_free(ss_index *ix)
{
	if (!ix)
		return;
	if (ix->refs) {
		ix->refs--;
		return;
	}
	sqlite3_close(ix->db);
	free(ix->path);
	free(ix);
}
