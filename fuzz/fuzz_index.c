/*
 * fuzz_index.c - libFuzzer target for what is read back from a project
 * index (src/index/): a damaged or hostile index.db must give one error
 * line naming the file, or be read safely, through every reader the
 * commands use: ss_index_open(), ss_index_for_each_commit(), _path(),
 * ss_index_load_releases(), ss_index_for_each_backport(),
 * ss_index_for_each_branch_commit() (into a carried table, as the queue),
 * ss_index_ref_tip(), ss_index_resolve() and ss_index_where(); and what
 * rank does with it: the history (ss_history_add_known, _add_path, the
 * releases' graph, ss_history_facts() of a fixed commit whose Fixes: and
 * revert name indexed commits) and the backports (ss_backports_add_known).
 *
 * Two kinds of input, by the first byte:
 *  - even: the rest is the database file itself (truncated files, flipped
 *    bytes, SQLite files of any shape);
 *  - odd: a small valid index (made once, in LLVMFuzzerInitialize) is
 *    changed by the operations the rest encodes, through SQLite: a cell
 *    set to NULL, a number (huge, negative), text or a blob; rows deleted
 *    or copied; a table dropped, replaced by a view or made again without
 *    its constraints (so that NULLs, duplicates and any type get in); the
 *    schema version or a table's SQL rewritten; then the file's bytes
 *    flipped or cut.  That reaches the row readers, which random files
 *    almost never do.
 *
 * Checks beyond "no crash, no leak, no hang": every failure sets a message
 * of one line that names the file; every id handed out is 40 lower-case
 * hex digits; times lie within SS_INDEX_TIME_LIMIT.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>
#include <sqlite3.h>

#include "features/history.h"
#include "fuzz_util.h"
#include "index/index.h"
#include "labels/backports.h"
#include "labels/carried.h"
#include "util/hexid.h"
#include "util/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], path[300];
static unsigned char *tmpl;    /* the valid index's bytes */
static size_t tmpl_len;
static ss_commit *fix;         /* scored against the history read */

#define ID(c) c c c c c c c c c c /* 4 characters, 10 times: 40 */
static const char *const ids[] = {
	ID("a1b2"), ID("a1b3"), ID("c0ff"), ID("dead"), ID("beef"), ID("f00d"), ID("0123"),
};

static const char *const template_sql[] = {
	"INSERT INTO meta VALUES('repository', '" ID("a1b2") "')",
	/* a finished build (a reader refuses one still marked incomplete) */
	"DELETE FROM meta WHERE key = 'incomplete'",
	"INSERT INTO commits VALUES('" ID("a1b2") "', '" ID("9999") "', 'Ann', 'ann@x', 1600000000,"
	" 1600000100, 'net: add driver', 1, 'v1.0')",
	"INSERT INTO commits VALUES('" ID("a1b3") "', NULL, 'Bob', 'bob@x', 1600001000, 1600001100,"
	" 'net: fix open', 1, 'v1.0')",
	"INSERT INTO commits VALUES('" ID("c0ff") "', '" ID("8888") "', 'Cy', 'cy@x', 1610000000,"
	" 0, 'Revert \"net: fix open\"', 1, 'v2.0')",
	"INSERT INTO commits VALUES('" ID("dead") "', '" ID("8888") "', 'Di', 'di@x', 1620000000,"
	" 1620000000, 'lib: fix leak', 1, NULL)",
	"INSERT INTO commits VALUES('" ID("beef") "', '" ID("7777") "', 'Ed', 'ed@x', 1611000000,"
	" 1611000000, 'net: fix open', 0, NULL)",
	"INSERT INTO commits VALUES('" ID("f00d") "', '" ID("8888") "', 'Fa', 'fa@x', 1612000000,"
	" 1612000000, 'lib: fix leak', 0, NULL)",
	"INSERT INTO trailers VALUES('" ID("a1b3") "', 'fixes', 'a1b2a1b2a1b2 (\"net: add driver\")',"
	" 'a1b2a1b2a1b2', '" ID("a1b2") "')",
	"INSERT INTO trailers VALUES('" ID("c0ff") "', 'reverts', '" ID("a1b3") "', '" ID("a1b3")
	"', '" ID("a1b3") "')",
	"INSERT INTO trailers VALUES('" ID("dead") "', 'stable', 'stable@dpdk.org', '5.10.x', NULL)",
	"INSERT INTO trailers VALUES('" ID("dead") "', 'fixes', 'a1b (\"x\")', 'a1b', NULL)",
	"INSERT INTO files VALUES('" ID("a1b2") "', 'drivers/net/foo.c', 100, 0)",
	"INSERT INTO files VALUES('" ID("a1b3") "', 'drivers/net/foo.c', 2, 1)",
	"INSERT INTO files VALUES('" ID("dead") "', 'lib/leak.c', 3, 1)",
	"INSERT INTO files VALUES('" ID("beef") "', 'drivers/net/foo.c', 2, 1)",
	"INSERT INTO releases VALUES('v1.0', '" ID("a1b3") "', 1600002000, 'mainline')",
	"INSERT INTO releases VALUES('v2.0', '" ID("c0ff") "', 1610000100, 'mainline')",
	"INSERT INTO releases VALUES('v1.0.1', '" ID("beef") "', 1611000000, 'stable')",
	"INSERT INTO releases VALUES('v3.0-rc1', '" ID("dead") "', 1620000000, 'rc')",
	"INSERT INTO refs VALUES('main', '" ID("dead") "', 'mainline')",
	"INSERT INTO refs VALUES('stable-1', '" ID("f00d") "', 'stable')",
	"INSERT INTO refs VALUES('origin/x', '" ID("0123") "', 'other')",
	"INSERT INTO branch_commits VALUES('stable-1', '" ID("beef") "')",
	"INSERT INTO branch_commits VALUES('stable-1', '" ID("f00d") "')",
	"INSERT INTO backports VALUES('stable-1', '" ID("beef") "', '" ID("a1b3") "', 'line',"
	" 1611000000)",
	"INSERT INTO backports VALUES('stable-1', '" ID("f00d") "', '" ID("dead") "', 'patch-id',"
	" 1612000000)",
	"INSERT INTO backports VALUES('stable-1', '" ID("f00d") "', '" ID("c0ff") "', 'patch-id',"
	" 1612000000)",
};

/* The tables, their columns and an expression that names one row. */
static const struct {
	const char *name, *key;
	const char *cols[9];
} tables[] = {
	{ "meta", "key", { "key", "value" } },
	{ "commits", "id", { "id", "patch_id", "author_name", "author_email", "author_time",
			     "committer_time", "subject", "mainline", "first_release" } },
	{ "trailers", "rowid", { "commit_id", "kind", "value", "hint", "target" } },
	{ "files", "rowid", { "commit_id", "path", "added", "removed" } },
	{ "releases", "tag", { "tag", "commit_id", "time", "kind" } },
	{ "refs", "name", { "name", "tip", "kind" } },
	{ "branch_commits", "branch || ' ' || commit_id", { "branch", "commit_id" } },
	{ "backports", "branch || ' ' || commit_id || ' ' || upstream_id",
	  { "branch", "commit_id", "upstream_id", "how", "time" } },
};
#define NTABLES (sizeof(tables) / sizeof(*tables))

static size_t ncols(size_t t)
{
	size_t n = 0;

	while (n < 9 && tables[t].cols[n])
		n++;
	return n;
}

static void remove_db(void)
{
	char p[320];

	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-journal", path);
	unlink(p);
}

static int write_file(const unsigned char *buf, size_t len)
{
	FILE *f;
	int ok;

	remove_db();
	if (!(f = fopen(path, "wb")))
		return -1;
	ok = fwrite(buf, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void make_template(void)
{
	ss_index *ix = NULL;
	sqlite3 *db;
	FILE *f;
	long len;
	size_t i;

	remove_db();
	if (ss_index_open(&ix, path, SS_INDEX_WRITE))
		abort();
	ss_index_free(ix);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		abort();
	for (i = 0; i < sizeof(template_sql) / sizeof(*template_sql); i++)
		if (sqlite3_exec(db, template_sql[i], NULL, NULL, NULL) != SQLITE_OK)
			abort();
	/* one self-contained file, small pages: a small seed */
	if (sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM", NULL, NULL,
			 NULL) != SQLITE_OK)
		abort();
	sqlite3_close(db);
	if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0)
		abort();
	rewind(f);
	tmpl_len = (size_t)len;
	if (!(tmpl = malloc(tmpl_len)) || fread(tmpl, 1, tmpl_len, f) != tmpl_len)
		abort();
	fclose(f);
}

static void cleanup(void)
{
	remove_db();
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char msg[] =
		"net: fix the fix\n\nFixes: a1b3a1b3a1b3 (\"net: fix open\")\n"
		"This reverts commit c0ffc0ffc0ff.\nFixes: a1b (\"x\")\n";
	const char *t = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	git_libgit2_init();
	snprintf(dir, sizeof(dir), "%s/fuzz-index-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/index.db", dir);
	atexit(cleanup);
	make_template();
	/* FUZZ_INDEX_SEED=FILE: write the valid index as a whole-file seed */
	if ((t = getenv("FUZZ_INDEX_SEED"))) {
		FILE *f = fopen(t, "wb");

		if (!f || fputc(0, f) == EOF || fwrite(tmpl, 1, tmpl_len, f) != tmpl_len || fclose(f))
			abort();
	}
	fix = ss_commit_new();
	if (!fix || ss_commit_set_message(fix, msg, sizeof(msg) - 1))
		abort();
	memcpy(fix->id, ID("7e57"), 41);
	fix->author.time = fix->committer.time = 1630000000;
	return 0;
}

/* The input, read byte by byte (zeros when it is used up). */
struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned byte(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static int64_t int64(struct in *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | byte(in);
	return (int64_t)v;
}

/* Bind a value the input chooses to parameter k of st. */
static void bind_value(sqlite3_stmt *st, int k, struct in *in)
{
	static const int64_t odd[] = { INT64_MIN, INT64_MAX, -1, 0, ((int64_t)1 << 40) + 1,
				       -((int64_t)1 << 40) - 1, 4294967296LL, 253402300800LL };
	unsigned kind = byte(in) % 8, len;
	char id[48];

	switch (kind) {
	case 0:
		sqlite3_bind_null(st, k);
		break;
	case 1:
		sqlite3_bind_int64(st, k, int64(in));
		break;
	case 2:
		sqlite3_bind_int64(st, k, odd[byte(in) % 8]);
		break;
	case 3: /* text or a blob from the input */
	case 4:
		len = byte(in) % 64;
		if (len > in->n)
			len = (unsigned)in->n;
		if (kind == 3)
			sqlite3_bind_text(st, k, (const char *)in->p, (int)len, SQLITE_TRANSIENT);
		else
			sqlite3_bind_blob(st, k, in->p, (int)len, SQLITE_TRANSIENT);
		in->p += len;
		in->n -= len;
		break;
	case 5: /* another row's id, cut, upper-cased or grown */
		snprintf(id, sizeof(id), "%s", ids[byte(in) % 7]);
		len = byte(in);
		if (len % 4 == 1)
			id[len % 41] = '\0';
		else if (len % 4 == 2)
			id[len % 40] = (char)(len % 3 ? 'A' + len % 6 : 'g');
		else if (len % 4 == 3)
			strcat(id, "0");
		sqlite3_bind_text(st, k, id, -1, SQLITE_TRANSIENT);
		break;
	case 6:
		sqlite3_bind_double(st, k, (double)int64(in) / 3.0);
		break;
	default:
		sqlite3_bind_text(st, k, byte(in) & 1 ? "v2.0" : "stable-1", -1, SQLITE_STATIC);
		break;
	}
}

static void run_sql(sqlite3 *db, const char *sql, struct in *in, int nvalues)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	for (int k = 1; k <= nvalues; k++)
		bind_value(st, k, in);
	while (sqlite3_step(st) == SQLITE_ROW)
		;
	sqlite3_finalize(st);
}

/* Change the valid index as the input says; file-level changes last. */
static void mutate(struct in *in)
{
	sqlite3 *db;
	char sql[512];
	unsigned nops = 1 + byte(in) % 8, op, t, c, row;
	size_t flips = 0, cut = 0;

	if (write_file(tmpl, tmpl_len) || sqlite3_open(path, &db) != SQLITE_OK)
		abort();
	/* no fsync, no journal file: thousands of inputs a second, not a few */
	sqlite3_exec(db, "PRAGMA synchronous=OFF; PRAGMA journal_mode=OFF", NULL, NULL, NULL);
	while (nops-- && in->n) {
		op = byte(in) % 10;
		t = byte(in) % NTABLES;
		c = byte(in) % ncols(t);
		row = byte(in);
		switch (op) {
		case 0:
		case 1:
		case 2: /* one cell, or the column of every row */
			if (row == 255)
				snprintf(sql, sizeof(sql), "UPDATE %s SET %s = ?1", tables[t].name,
					 tables[t].cols[c]);
			else
				snprintf(sql, sizeof(sql), "UPDATE %s SET %s = ?1 WHERE %s = (SELECT %s"
					 " FROM %s LIMIT 1 OFFSET %u)", tables[t].name, tables[t].cols[c],
					 tables[t].key, tables[t].key, tables[t].name, row % 8);
			run_sql(db, sql, in, 1);
			break;
		case 3:
			snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE %s = (SELECT %s FROM %s LIMIT 1"
				 " OFFSET %u)", tables[t].name, tables[t].key, tables[t].key,
				 tables[t].name, row % 8);
			run_sql(db, sql, in, 0);
			break;
		case 4: /* a copy of a row (a duplicate once constraints are gone) */
			snprintf(sql, sizeof(sql), "INSERT INTO %s SELECT * FROM %s LIMIT 1 OFFSET %u",
				 tables[t].name, tables[t].name, row % 8);
			run_sql(db, sql, in, 0);
			break;
		case 5: /* the table again without its constraints and types */
			snprintf(sql, sizeof(sql), "CREATE TABLE x_tmp AS SELECT * FROM %s; DROP TABLE %s;"
				 " ALTER TABLE x_tmp RENAME TO %s", tables[t].name, tables[t].name,
				 tables[t].name);
			sqlite3_exec(db, sql, NULL, NULL, NULL);
			break;
		case 6:
			snprintf(sql, sizeof(sql), row & 1 ? "DROP TABLE %s"
				 : "ALTER TABLE %s RENAME TO x_old; CREATE VIEW %s AS SELECT * FROM x_old",
				 tables[t].name, tables[t].name);
			sqlite3_exec(db, sql, NULL, NULL, NULL);
			break;
		case 7:
			run_sql(db, "UPDATE meta SET value = ?1 WHERE key = 'schema'", in, 1);
			break;
		case 8: /* a table's SQL rewritten */
			sqlite3_exec(db, "PRAGMA writable_schema = ON", NULL, NULL, NULL);
			snprintf(sql, sizeof(sql), "UPDATE sqlite_master SET sql = ?1 WHERE name = '%s'",
				 tables[t].name);
			run_sql(db, sql, in, 1);
			sqlite3_exec(db, "PRAGMA writable_schema = OFF", NULL, NULL, NULL);
			break;
		default: /* bytes of the file, after it is closed */
			if (row & 1)
				flips++;
			else
				cut = 1 + row;
			break;
		}
	}
	sqlite3_close(db);
	if (flips || cut) {
		FILE *f = fopen(path, "r+b");
		long len;

		if (!f)
			return;
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		while (flips-- && len > 0) {
			long at = (long)((unsigned)byte(in) << 8 | byte(in)) % len;

			fseek(f, at, SEEK_SET);
			fputc(byte(in), f);
		}
		fclose(f);
		if (cut && len > 0 && truncate(path, len - (long)(cut * 97 % (unsigned long)len)))
			return;
	}
}

/* A failure: one line naming the file. */
static void check_error(int rc)
{
	const char *m = ss_error_last();

	if (getenv("FUZZ_INDEX_DEBUG"))
		fprintf(stderr, "fuzz_index: %d %s\n", rc, m);
	FUZZ_CHECK(rc < 0);
	FUZZ_CHECK(m[0] != '\0');
	FUZZ_CHECK(!strchr(m, '\n'));
	if (rc != SS_ENOMEM)
		FUZZ_CHECK(strstr(m, path) != NULL);
}

static void check_id(const char *id)
{
	for (int i = 0; i < 40; i++)
		FUZZ_CHECK((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'));
	FUZZ_CHECK(id[40] == '\0');
}

static void check_time(int64_t t)
{
	FUZZ_CHECK(t >= -SS_INDEX_TIME_LIMIT && t <= SS_INDEX_TIME_LIMIT);
}

static int on_commit(const ss_histidx_commit *c, void *ud)
{
	check_id(c->id);
	check_time(c->time);
	fuzz_touch(c->subject, 0);
	return ss_history_add_known(ud, c);
}

static int on_path(const char *p, int64_t first, void *ud)
{
	fuzz_touch(p, 0);
	check_time(first);
	return ss_history_add_path(ud, p, first);
}

static int on_backport(const ss_index_backport *b, void *ud)
{
	check_id(b->upstream);
	check_id(b->commit);
	check_time(b->time);
	fuzz_touch(b->branch, 0);
	fuzz_touch(b->how, 0);
	return ss_backports_add_known(ud, b->upstream, b->branch);
}

static int on_branch_commit(const ss_index_backport *b, void *ud)
{
	if (b->upstream)
		check_id(b->upstream);
	check_id(b->commit);
	check_time(b->time);
	fuzz_touch(b->branch, 0);
	fuzz_touch(b->how, 1);
	fuzz_touch(b->patch_id, 1);
	return ss_carried_add(ud, b->how && !strcmp(b->how, "line") ? b->upstream : NULL,
			      b->patch_id ? ss_hexid_key(b->patch_id) : 0, b->commit);
}

static void read_index(void)
{
	ss_index *ix = NULL;
	ss_history *h = NULL;
	ss_backports *bp = NULL;
	ss_backports_options bo = SS_BACKPORTS_OPTIONS_INIT;
	ss_releases *rel = NULL;
	ss_histidx_facts facts;
	ss_index_place place;
	char tip[41], name[64], id[41];
	int rc;

	if ((rc = ss_index_open(&ix, path, SS_INDEX_READ))) {
		FUZZ_CHECK(ix == NULL);
		check_error(rc);
		return;
	}
	if (ss_history_new(&h) || ss_backports_new(&bp, &bo))
		abort();
	if ((rc = ss_index_for_each_commit(ix, on_commit, h)))
		check_error(rc);
	if ((rc = ss_index_for_each_path(ix, on_path, h)))
		check_error(rc);
	if ((rc = ss_index_load_releases(&rel, ix))) {
		check_error(rc);
		FUZZ_CHECK(rel == NULL);
	} else {
		for (size_t i = 0; i < ss_releases_count(rel); i++) {
			const ss_release *r = ss_releases_get(rel, i);

			fuzz_touch(r->tag, 0);
			check_time(r->time);
		}
		ss_history_take_releases(h, rel);
	}
	if (!ss_history_facts(&facts, h, fix)) {
		FUZZ_CHECK(facts.ntargets <= SS_HISTIDX_MAX_TARGETS);
		FUZZ_CHECK(facts.age_days == facts.age_days); /* no NaN */
		fuzz_touch(facts.first_release_tag, 1);
	}
	if ((rc = ss_index_for_each_backport(ix, on_backport, bp)))
		check_error(rc);
	{
		ss_carried *cr = NULL;

		FUZZ_CHECK(!ss_carried_new(&cr));
		if ((rc = ss_index_for_each_branch_commit(ix, "stable-1", on_branch_commit, cr)))
			check_error(rc);
		ss_carried_free(cr);
	}
	if (!(rc = ss_index_ref_tip(tip, ix, "mainline", name, sizeof(name)))) {
		check_id(tip);
		fuzz_touch(name, 0);
	} else {
		check_error(rc);
	}
	if (!(rc = ss_index_ref_tip(tip, ix, "stable", NULL, 0)))
		check_id(tip);
	else
		check_error(rc);
	for (int k = 0; k < 3; k++) {
		static const char *const prefixes[] = { "a1b2", "a1b3", "beefbeef" };

		if ((rc = ss_index_resolve(id, ix, prefixes[k]))) {
			check_error(rc);
			continue;
		}
		if ((rc = ss_index_where(&place, ix, id))) {
			check_error(rc);
			continue;
		}
		fuzz_touch(place.subject, 0);
		fuzz_touch(place.first_release, 1);
		for (size_t i = 0; i < place.ncarriers; i++) {
			check_id(place.carriers[i].commit);
			check_time(place.carriers[i].time);
			fuzz_touch(place.carriers[i].branch, 0);
			fuzz_touch(place.carriers[i].how, 0);
		}
		ss_index_place_release(&place);
	}
	ss_backports_free(bp);
	ss_history_free(h);
	ss_index_free(ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data + 1, size ? size - 1 : 0 };

	if (!size)
		return 0;
	if (data[0] & 1)
		mutate(&in);
	else if (write_file(data + 1, size - 1))
		abort();
	ss_error_clear();
	read_index();
	remove_db();
	return 0;
}
