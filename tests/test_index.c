/*
 * test_index.c - the project index (src/index/, "stablesel index" and
 * "stablesel where") on the repository tests/gitrepo.sh builds: its
 * backport map is what "stablesel label" says; an incremental update
 * writes the same rows as a fresh build, also after an interrupted one;
 * "where" names each branch and id; damaged, newer and foreign databases
 * are refused; an index built while blobs were missing (a blob-less
 * partial clone) is completed by a later update once they are there.
 * On ../shared/data, DPDK's real repository: the backport map reproduces
 * "label" over the LTS branches.
 */
#include "testutil.h"

#include <ctype.h>

#include <sqlite3.h>

#include "index/index.h"
#include "util/error.h"

static char tmpdir[2048], repo[4096], db[4096];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/ss-test-index-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(repo, sizeof(repo), "%s/repo", tmpdir);
	snprintf(db, sizeof(db), "%s/base.db", tmpdir);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	if (test_run("sh '%s' '%s'", test_gitrepo_script(), repo))
		return -1;
	return test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null", repo, db);
}

static int teardown(void **state)
{
	(void)state;
	return test_run("rm -rf '%s'", tmpdir);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* rows[0..n) sorted, one a line, as one malloc'd string; frees rows. */
static char *join_sorted(char **rows, size_t n)
{
	size_t i, len = 1;
	char *out;

	for (i = 0; i < n; i++)
		len += strlen(rows[i]) + 1;
	if (n)  /* rows is NULL for an empty table */
		qsort(rows, n, sizeof(*rows), cmp_str);
	out = malloc(len);
	assert_non_null(out);
	out[0] = '\0';
	for (i = 0, len = 0; i < n; i++) {
		len += (size_t)sprintf(out + len, "%s\n", rows[i]);
		free(rows[i]);
	}
	free(rows);
	return out;
}

/* Every row of the query, tab-joined (NULL as \N), sorted, one a line. */
static char *query_rows(const char *path, const char *sql)
{
	sqlite3 *d;
	sqlite3_stmt *st;
	char **rows = NULL;
	size_t n = 0, cap = 0;
	int c, rc;

	assert_int_equal(sqlite3_open_v2(path, &d, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(d, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(d));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char buf[8192];
		size_t k = 0;

		for (c = 0; c < sqlite3_column_count(st); c++) {
			const char *v = (const char *)sqlite3_column_text(st, c);

			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%s", c ? "\t" : "",
					      v ? v : "\\N");
			assert_true(k < sizeof(buf));
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			rows = realloc(rows, cap * sizeof(*rows));
			assert_non_null(rows);
		}
		rows[n] = strdup(buf);
		assert_non_null(rows[n]);
		n++;
	}
	assert_int_equal(rc, SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(d);
	return join_sorted(rows, n);
}

/* Run the statements sql on the database file path (fails the test on an
 * SQL error). */
static void db_exec(const char *path, const char *sql)
{
	sqlite3 *d;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &d), SQLITE_OK);
	if (sqlite3_exec(d, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_close(d);
}

/* "<column 1><TAB><column col>" of every row of a TSV with a "sha" header
 * (label: col 3, the branches; rank: col 2, the score), sorted. */
static char *tsv_pairs(const char *path, int col)
{
	char *text = test_read_file(path, NULL), *line, *save = NULL, **rows = NULL;
	size_t n = 0, cap = 0;

	assert_non_null(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab1 = strchr(line, '\t'), *v = tab1, *end;
		int k;

		if (!strncmp(line, "sha\t", 4))
			continue;
		for (k = 2; k < col && v; k++)
			v = strchr(v + 1, '\t');
		assert_non_null(v);
		if ((end = strchr(v + 1, '\t')))
			*end = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			rows = realloc(rows, cap * sizeof(*rows));
			assert_non_null(rows);
		}
		*tab1 = '\0';
		assert_true(asprintf(&rows[n], "%s\t%s", line, v + 1) > 0);
		n++;
	}
	free(text);
	return join_sorted(rows, n);
}

static char *label_rows(const char *path)
{
	return tsv_pairs(path, 3);
}

static char *rank_scores(const char *tsv)
{
	return tsv_pairs(tsv, 2);
}

/* The index's backport map from backport lines, as label writes it. */
static const char *const line_map_sql =
	"SELECT upstream_id, group_concat(branch, ',') FROM (SELECT DISTINCT upstream_id, branch"
	" FROM backports WHERE how = 'line' ORDER BY upstream_id, branch) GROUP BY upstream_id";

static void test_backports_equal_label(void **state)
{
	char path[4200], *want, *got;

	(void)state;
	snprintf(path, sizeof(path), "%s/labels.tsv", tmpdir);
	assert_int_equal(test_run("./stablesel label --stable '%s' --branches 'stable-*' -o '%s' 2>/dev/null",
				  repo, path), 0);
	want = label_rows(path);
	got = query_rows(db, line_map_sql);
	assert_string_equal(got, want);
	/* three backports, on stable-1.y (two) and stable-2.y (one) */
	assert_non_null(strstr(got, "\tstable-2.y\n"));
	assert_int_equal(strlen(got), 3 * (40 + 1 + 10 + 1));
	free(want);
	/* label prints the same table from the index (no patch-id backports
	 * in this repository) */
	assert_int_equal(test_run("./stablesel label --db '%s' -o '%s' 2>/dev/null", db, path), 0);
	want = label_rows(path);
	assert_string_equal(want, got);
	free(want);
	free(got);
	assert_int_equal(test_run("./stablesel label --db '%s/none.db' 2>/dev/null", tmpdir), 128);
	assert_int_equal(test_run("./stablesel label --index --stable '%s/none' 2>/dev/null", tmpdir), 128);
	got = query_rows(db, "SELECT name, kind FROM refs");
	assert_string_equal(got, "feature\tother\nmain\tmainline\nstable-1.y\tstable\nstable-2.y\tstable\n");
	free(got);
	got = query_rows(db, "SELECT tag, kind FROM releases");
	assert_string_equal(got, "v1.0\tmainline\nv2.0\tmainline\n");
	free(got);
	/* the fix's trailers: Fixes: names a commit outside the index */
	got = query_rows(db, "SELECT kind, hint, target FROM trailers WHERE commit_id IN"
			 " (SELECT id FROM commits WHERE mainline = 1)");
	assert_string_equal(got, "fixes\t0123456789ab\t\\N\nstable\t6.1+\t\\N\nstable\t\\N\t\\N\n");
	free(got);
}

static void rev_parse(char out[41], const char *r, const char *rev)
{
	char *s = test_run_output("git -C '%s' rev-parse '%s^{commit}'", r, rev);

	assert_true(strlen(s) >= 40);
	memcpy(out, s, 40);
	out[40] = '\0';
	free(s);
}

static void test_where(void **state)
{
	char leak[41], back[41], uaf[41], back2[41], line[256], *out;

	(void)state;
	rev_parse(leak, repo, "leak-fix");
	rev_parse(back, repo, "stable-1.y~1");
	rev_parse(uaf, repo, "v2.0");
	rev_parse(back2, repo, "stable-2.y");
	out = test_run_output("./stablesel where --db '%s' %.10s %s", db, leak, uaf);
	snprintf(line, sizeof(line), "%s net: foo: fix leak on error path\n  released: v2.0\n"
		 "  stable-1.y: %s (backport line, 2023-11-15)\n", leak, back);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "  stable-2.y: %s (backport line, ", back2);
	assert_non_null(strstr(out, line));
	free(out);
	/* the default database of --repo is the one "index" writes there */
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' 2>/dev/null", repo), 0);
	out = test_run_output("./stablesel where --repo '%s' %.12s", repo, leak);
	snprintf(line, sizeof(line), "  stable-1.y: %s (backport line", back);
	assert_non_null(strstr(out, line));
	free(out);
	/* unknown and malformed ids: a clear error, exit 1 */
	assert_int_equal(test_run("./stablesel where --db '%s' ffffffffff 2>'%s/err'", db, tmpdir), 1);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "unknown commit 'ffffffffff'"));
	free(out);
	assert_int_equal(test_run("./stablesel where --db '%s' xyz 2>/dev/null", db), 1);
}

/*
 * where on a stable branch's commit names its upstream commit and the
 * branches carrying that (issue 23.9); where on a tag gives its kind,
 * commit, date and the branches that carry it: a mainline tag the
 * mainline and the stable branches forked after it (stable-2.y forks
 * after v1.0, stable-1.y before), a stable tag its branch.
 */
static void test_where_upstream_and_tags(void **state)
{
	char leak[41], back[41], uaf[41], back2[41], only[41], v10[41], r2[4200], line[512], *out;

	(void)state;
	snprintf(r2, sizeof(r2), "%s/where-repo", tmpdir);
	assert_int_equal(test_run("rm -rf '%s' && cp -a '%s' '%s' && git -C '%s' tag v1.0.1 stable-1.y && "
				  "./stablesel index --no-progress --repo '%s' >/dev/null 2>&1",
				  r2, repo, r2, r2, r2), 0);
	rev_parse(leak, r2, "leak-fix");
	rev_parse(back, r2, "stable-1.y~1");
	rev_parse(uaf, r2, "v2.0");
	rev_parse(back2, r2, "stable-2.y");
	rev_parse(only, r2, "stable-1.y");
	rev_parse(v10, r2, "v1.0");
	out = test_run_output("./stablesel where --repo '%s' %.12s %s", r2, back, back2);
	snprintf(line, sizeof(line), "%s net: foo: fix leak on error path\n"
		 "  upstream: %s net: foo: fix leak on error path (backport line)\n"
		 "  released: v2.0 (upstream)\n"
		 "  stable-1.y: %s (backport line, 2023-11-15) <- this commit\n", back, leak, back);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "  upstream: %s net: foo: fix use after free (backport line)\n", uaf);
	assert_non_null(strstr(out, line));
	free(out);
	/* a stable-only commit has no upstream */
	out = test_run_output("./stablesel where --repo '%s' %s", r2, only);
	assert_null(strstr(out, "upstream:"));
	assert_non_null(strstr(out, "(stable-only, "));
	free(out);
	/* tags */
	out = test_run_output("./stablesel where --repo '%s' v1.0 v2.0 v1.0.1", r2);
	snprintf(line, sizeof(line), "v1.0 (mainline release)\n  commit: %s firmware: add foo blob\n"
		 "  date: 2023-11-15\n  on: main, stable-2.y\n", v10);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "v2.0 (mainline release)\n  commit: %s net: foo: fix use after free\n"
		 "  date: 2023-11-15\n  on: main\n", uaf);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "v1.0.1 (stable release)\n  commit: %s net: foo: stable-only workaround\n"
		 "  date: 2023-11-15\n  on: stable-1.y\n", only);
	assert_non_null(strstr(out, line));
	free(out);
	/* the index alone cannot tell which stable branches fork later: said */
	out = test_run_output("B=$(realpath ./stablesel) && cd / && \"$B\" where "
			      "--db '%s/.git/stablesel/index.db' v1.0", r2);
	assert_non_null(strstr(out, "  on: main\n  (the stable branches that fork after it are not known"));
	free(out);
	/* neither a commit nor a release */
	assert_int_equal(test_run("./stablesel where --repo '%s' v9.9 2>'%s/err'", r2, tmpdir), 1);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "unknown release 'v9.9'"));
	free(out);
	test_run("rm -rf '%s'", r2);
}

static void test_resolve(void **state)
{
	ss_index *ix;
	char id[41], leak[41], pre[8];
	char path[4200];

	(void)state;
	rev_parse(leak, repo, "leak-fix");
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_resolve(id, ix, leak), 0);
	assert_string_equal(id, leak);
	snprintf(pre, sizeof(pre), "%.7s", leak);
	pre[0] = (char)toupper((unsigned char)pre[0]);
	assert_int_equal(ss_index_resolve(id, ix, pre), 0);
	assert_string_equal(id, leak);
	ss_index_free(ix);
	/* two commits sharing a prefix: ambiguous, both listed */
	snprintf(path, sizeof(path), "%s/amb.db", tmpdir);
	assert_int_equal(test_run("cp '%s' '%s'", db, path), 0);
	db_exec(path, "INSERT INTO commits(id, author_name, author_email, author_time,"
		" committer_time, subject, mainline) SELECT substr(id, 1, 39) ||"
		" CASE substr(id, 40) WHEN '0' THEN '1' ELSE '0' END,"
		" '', '', 0, 0, 'twin', 1 FROM commits");
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_resolve(id, ix, pre), SS_EINVALID);
	assert_non_null(strstr(ss_error_last(), "ambiguous in index '"));
	assert_non_null(strstr(ss_error_last(), path));
	assert_non_null(strstr(ss_error_last(), leak));
	ss_index_free(ix);
	/* fuzz/regressions/index/resolve-ambiguous-*: a candidate that is no
	 * id (cut, grown, not hex) went into the message as it was (any
	 * bytes, newlines too), and the message did not name the index */
	db_exec(path, "INSERT OR IGNORE INTO commits(id, author_name, author_email,"
		" author_time, committer_time, subject, mainline) SELECT substr(id, 1, 7) || x'0a',"
		" '', '', 0, 0, 'cut', 1 FROM commits");
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_resolve(id, ix, pre), SS_EINVALID);
	assert_non_null(strstr(ss_error_last(), "is damaged: commit id '"));
	assert_non_null(strstr(ss_error_last(), path));
	assert_null(strchr(ss_error_last(), '\n'));
	assert_string_equal(id, "");
	ss_index_free(ix);
}

/* Every table but meta (whose identity is the first build's tip). */
static void assert_same_rows(const char *a, const char *b)
{
	static const char *const tables[] = {
		"commits", "trailers", "files", "releases", "refs", "branch_commits", "backports"
	};
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char sql[128], *x, *y;

		snprintf(sql, sizeof(sql), "SELECT * FROM %s", tables[i]);
		x = query_rows(a, sql);
		y = query_rows(b, sql);
		if (strcmp(x, y))
			fail_msg("table %s differs:\n%s\nvs\n%s", tables[i], x, y);
		free(x);
		free(y);
	}
}

static void test_incremental(void **state)
{
	char r2[4200], inc[4200], fresh[4200], *out, fix[41], back[41], target[41];
	char line[256];

	(void)state;
	snprintf(r2, sizeof(r2), "%s/repo2", tmpdir);
	snprintf(inc, sizeof(inc), "%s/inc.db", tmpdir);
	snprintf(fresh, sizeof(fresh), "%s/fresh.db", tmpdir);
	assert_int_equal(test_run("cp -r '%s' '%s'", repo, r2), 0);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  r2, inc), 0);
	/* new work: a mainline fix of the split commit, backported to
	 * stable-1.y with -x and to stable-2.y without a backport line (its
	 * patch id finds it); a new release v3.0 */
	assert_int_equal(test_run(
		"cd '%s' && export GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org "
		"GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.org "
		"GIT_AUTHOR_DATE='1700100000 +0000' GIT_COMMITTER_DATE='1700100000 +0000' && "
		"t=$(git log -1 --format=%%H --grep=split) && "
		"printf 'int foo_extra;\\n' >> drivers/net/foo_main.c && git add -A && "
		"git commit -q -m 'net: foo: add extra' -m \"Fixes: $(git rev-parse --short=12 $t) "
		"(\\\"net: foo: split\\\")\" && git tag v3.0 && f=$(git rev-parse HEAD) && "
		"git checkout -q stable-2.y && printf 'int foo_extra;\\n' >> drivers/net/foo_main.c && "
		"git add -A && git commit -q -m 'net: foo: add extra' && "
		"git checkout -q stable-1.y && printf 'int foo_extra;\\n' >> drivers/net/foo.c && "
		"git add -A && git commit -q -m 'net: foo: add extra' -m \"(cherry picked from commit $f)\" && "
		"git checkout -q main", r2), 0);
	out = test_run_output("git -C '%s' log --format=%%H -1 --grep='^net: foo: split into' main", r2);
	memcpy(target, out, 40);
	target[40] = '\0';
	free(out);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>'%s/err'",
				  r2, inc, tmpdir), 0);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "indexed 3 new commits (3 refs moved)"));
	free(out);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  r2, fresh), 0);
	assert_same_rows(inc, fresh);
	/* a second update with nothing new writes nothing */
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>'%s/err'",
				  r2, inc, tmpdir), 0);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "indexed 0 new commits (0 refs moved), 0 new backports"));
	free(out);
	/* the new facts: Fixes: resolved, v3.0, the patch-id backport */
	rev_parse(fix, r2, "v3.0");
	out = query_rows(fresh, "SELECT target FROM trailers WHERE kind = 'fixes' AND target IS NOT NULL");
	snprintf(line, sizeof(line), "%s\n", target);
	assert_string_equal(out, line);
	free(out);
	rev_parse(back, r2, "stable-2.y");
	out = test_run_output("./stablesel where --db '%s' %s", fresh, fix);
	assert_non_null(strstr(out, "  released: v3.0\n"));
	snprintf(line, sizeof(line), "  stable-2.y: %s (patch id, ", back);
	assert_non_null(strstr(out, line));
	assert_non_null(strstr(out, "  stable-1.y: "));
	free(out);
	/* an update interrupted after some batches (the ref's tip not yet
	 * recorded) is completed by the next one */
	db_exec(inc, "DELETE FROM refs WHERE name = 'stable-1.y';"
		"DELETE FROM backports WHERE branch = 'stable-1.y' AND time > 1700073000");
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  r2, inc), 0);
	assert_same_rows(inc, fresh);
}

/* Every table of the database at path, meta too: "table NAME" and its
 * rows, sorted (query_rows()), table after table by name. */
static char *dump_tables(const char *path)
{
	char *names = query_rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'");
	char *line, *save = NULL, *out = NULL;
	size_t len = 0;

	for (line = strtok_r(names, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char sql[256], *rows, *grown;

		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\"", line);
		rows = query_rows(path, sql);
		grown = realloc(out, len + strlen(line) + strlen(rows) + 16);
		assert_non_null(grown);
		out = grown;
		len += (size_t)sprintf(out + len, "table %s\n%s", line, rows);
		free(rows);
	}
	free(names);
	return out ? out : strdup("");
}

/* start copied to path (with no -wal or -shm beside it), or no file at
 * path when start is NULL. */
static void copy_start(const char *path, const char *start)
{
	assert_int_equal(test_run("rm -f '%s' '%s-wal' '%s-shm'", path, path, path), 0);
	if (start)
		assert_int_equal(test_run("cp '%s' '%s'", start, path), 0);
}

/*
 * The kill-anywhere check: "index ARGS --db X", X a copy of start (NULL:
 * a first build), killed (SIGKILL, util/testhook.h) at each of steps in
 * turn, then run again, must leave every table (meta too) as the same
 * update run without interruption.  Each step must be reached.  When
 * fresh, a reader refuses what every step but the last left.
 */
static void kill_anywhere(const char *name, const char *start, const char *args,
			  const char *const *steps, size_t n, int fresh)
{
	char want[4200], got[4200], *a, *b;
	size_t i;
	int rc;

	snprintf(want, sizeof(want), "%s/kill-%s-want.db", tmpdir, name);
	snprintf(got, sizeof(got), "%s/kill-%s.db", tmpdir, name);
	copy_start(want, start);
	assert_int_equal(test_run("./stablesel index --no-progress %s --db '%s' 2>/dev/null", args,
				  want), 0);
	a = dump_tables(want);
	for (i = 0; i < n; i++) {
		copy_start(got, start);
		rc = test_run("SS_TEST_ABORT_AT='%s' ./stablesel index --no-progress %s --db '%s'"
			      " 2>/dev/null", steps[i], args, got);
		if (rc != -1 && rc != 128 + 9)
			fail_msg("%s: step %s was not reached (exit %d)", name, steps[i], rc);
		if (fresh && i + 1 < n) {
			char *err;

			assert_int_equal(test_run("./stablesel where --db '%s' abcdef 2>'%s/err'", got,
						  tmpdir), 128);
			err = test_run_output("cat '%s/err'", tmpdir);
			if (!strstr(err, "incomplete build, run 'stablesel index' again"))
				fail_msg("%s: killed at %s, where says: %s", name, steps[i], err);
			free(err);
		}
		assert_int_equal(test_run("./stablesel index --no-progress %s --db '%s' 2>/dev/null",
					  args, got), 0);
		b = dump_tables(got);
		if (strcmp(a, b))
			fail_msg("%s: killed at %s, then run again:\n%s\nuninterrupted:\n%s", name,
				 steps[i], b, a);
		free(b);
	}
	free(a);
}

/*
 * An update interrupted at any of its steps (a named point where the test
 * hook kills it) is completed by the next run to what an uninterrupted
 * one writes: a first build, an update with new commits and a new release,
 * an update whose new commits are in a release the index already has
 * (before, the first releases were never set: the rerun found no ref
 * that moved and the releases unchanged), and an index of mail.
 */
static void test_kill_anywhere(void **state)
{
	static const char *const fresh_steps[] = {
		"schema", "identity", "batch#1", "batch#3", "ref#1", "ref#2", "ref#3",
		"derive", "releases"
	};
	static const char *const update_steps[] = {
		"batch#1", "batch#2", "ref#1", "ref#2", "derive", "releases"
	};
	static const char *const mail_steps[] = {
		"schema", "batch#1", "batch#4", "source#1", "source#2", "derive", "releases"
	};
	static const char *const mail_update_steps[] = { "batch#1", "source", "derive" };
	char r2[4200], start[4200], args[13000], tip[41], v1[41], v2[41], *out;

	(void)state;
	snprintf(r2, sizeof(r2), "%s/repo-kill", tmpdir);
	snprintf(start, sizeof(start), "%s/kill-start.db", tmpdir);
	assert_int_equal(test_run("rm -rf '%s' && cp -r '%s' '%s'", r2, repo, r2), 0);
	/* a first build */
	snprintf(args, sizeof(args), "--repo '%s' --write-batch 2", r2);
	kill_anywhere("fresh", NULL, args, fresh_steps, sizeof(fresh_steps) / sizeof(*fresh_steps), 1);

	/* new commits under v2.0, which the index knows already: main was
	 * at v1.0 when it was built */
	rev_parse(tip, r2, "main");
	assert_int_equal(test_run("cd '%s' && git reset -q --hard v1.0", r2), 0);
	copy_start(start, NULL);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  r2, start), 0);
	assert_int_equal(test_run("cd '%s' && git reset -q --hard %s", r2, tip), 0);
	snprintf(args, sizeof(args), "--repo '%s' --write-batch 1", r2);
	{
		static const char *const steps[] = { "batch#1", "batch#2", "ref", "derive", "releases" };

		kill_anywhere("known-release", start, args, steps, sizeof(steps) / sizeof(*steps), 0);
		snprintf(args, sizeof(args), "%s/kill-known-release.db", tmpdir);
		out = query_rows(args, "SELECT count(*) FROM commits WHERE mainline = 1 AND"
				 " first_release = 'v2.0'");
		assert_true(atoi(out) >= 5);
		free(out);
		snprintf(args, sizeof(args), "--repo '%s' --write-batch 1", r2);
	}

	/* new commits on main and both stable branches, a new release v3.0 */
	copy_start(start, NULL);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  r2, start), 0);
	assert_int_equal(test_run(
		"cd '%s' && export GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org "
		"GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.org "
		"GIT_AUTHOR_DATE='1700100000 +0000' GIT_COMMITTER_DATE='1700100000 +0000' && "
		"printf 'int foo_a;\\n' >> drivers/net/foo_main.c && git add -A && "
		"git commit -q -m 'net: foo: add a' && f=$(git rev-parse HEAD) && "
		"printf 'int foo_b;\\n' >> drivers/net/foo_main.c && git add -A && "
		"git commit -q -m 'net: foo: add b' && git tag v3.0 && "
		"git checkout -q stable-2.y && git cherry-pick -x $f >/dev/null && "
		"git checkout -q stable-1.y && printf 'int foo_c;\\n' >> drivers/net/foo.c && "
		"git add -A && git commit -q -m 'net: foo: stable c' && git checkout -q main", r2), 0);
	kill_anywhere("update", start, args, update_steps,
		      sizeof(update_steps) / sizeof(*update_steps), 0);

	/* an index of mail, its releases from a file; then what was appended */
	{
		char mbox[4200], rel[4200], text[512];

		snprintf(mbox, sizeof(mbox), "%s/kill.mbox", tmpdir);
		snprintf(rel, sizeof(rel), "%s/kill-releases.tsv", tmpdir);
		rev_parse(v1, repo, "v1.0");
		rev_parse(v2, repo, "v2.0");
		snprintf(text, sizeof(text), "tag\tsha\tdate\nv1.0\t%s\t1700014400\nv2.0\t%s\t1700057600\n",
			 v1, v2);
		test_write_file(rel, text, strlen(text));
		assert_int_equal(test_run("git -C '%s' format-patch -q --stdout --no-merges --root v1.0 >'%s'"
					  " && git -C '%s' format-patch -q --stdout --no-merges --root"
					  " stable-1.y >'%s.2'", repo, mbox, repo, mbox), 0);
		snprintf(args, sizeof(args), "--write-batch 1 --releases '%s' '%s' '%s.2'", rel, mbox, mbox);
		kill_anywhere("mail", NULL, args, mail_steps, sizeof(mail_steps) / sizeof(*mail_steps), 1);
		copy_start(start, NULL);
		snprintf(args, sizeof(args), "--write-batch 1 '%s'", mbox);
		assert_int_equal(test_run("./stablesel index --no-progress --db '%s' %s 2>/dev/null", start,
					  args), 0);
		assert_int_equal(test_run("git -C '%s' format-patch -q --stdout --no-merges v1.0..main >>'%s'",
					  repo, mbox), 0);
		kill_anywhere("mail-update", start, args, mail_update_steps,
			      sizeof(mail_update_steps) / sizeof(*mail_update_steps), 0);
	}
}

static void test_refused(void **state)
{
	char path[4200], other[4200], *out;
	sqlite3 *d;

	(void)state;
	/* not a database */
	snprintf(path, sizeof(path), "%s/junk.db", tmpdir);
	test_write_file(path, "this is not a database, just some text\n", 39);
	assert_int_equal(test_run("./stablesel where --db '%s' abcdef 2>'%s/err'", path, tmpdir), 128);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "not a database"));
	assert_null(strchr(strchr(out, '\n') + 1, '\n'));
	free(out);
	assert_int_equal(test_run("./stablesel index --repo '%s' --db '%s' 2>/dev/null", repo, path), 128);
	/* a newer schema */
	snprintf(path, sizeof(path), "%s/newer.db", tmpdir);
	assert_int_equal(test_run("cp '%s' '%s'", db, path), 0);
	assert_int_equal(sqlite3_open(path, &d), SQLITE_OK);
	assert_int_equal(sqlite3_exec(d, "UPDATE meta SET value = '99' WHERE key = 'schema'", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(d);
	assert_int_equal(test_run("./stablesel where --db '%s' abcdef 2>'%s/err'", path, tmpdir), 128);
	out = test_run_output("cat '%s/err'", tmpdir);
	snprintf(other, sizeof(other), "schema version 99, newer than this stablesel's %d",
		 SS_INDEX_SCHEMA);
	assert_non_null(strstr(out, other));
	free(out);
	assert_int_equal(test_run("./stablesel index --repo '%s' --db '%s' 2>/dev/null", repo, path), 128);
	/* built from another repository */
	snprintf(other, sizeof(other), "%s/other", tmpdir);
	assert_int_equal(test_run("git init -q '%s' && cd '%s' && GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b "
				  "GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b git commit -q --allow-empty -m x",
				  other, other), 0);
	assert_int_equal(test_run("./stablesel index --repo '%s' --db '%s' 2>'%s/err'", other, db, tmpdir), 128);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "built from another repository"));
	free(out);
	/* no index yet */
	assert_int_equal(test_run("./stablesel where --db '%s/none.db' abcdef 2>/dev/null", tmpdir), 128);
	/* usage */
	/* outside a repository (here stands in one: its own) */
	{
		char cwd[4096];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(test_run("cd '%s' && %s%s%s index 2>/dev/null", tmpdir,
					  test_bin()[0] == '/' ? "" : cwd,
					  test_bin()[0] == '/' ? "" : "/", test_bin()), 129);
	}
	assert_int_equal(test_run("./stablesel where --db '%s' 2>/dev/null", db), 129);
}

/* The bytes of path (malloc'd, *len its length); the test fails when it
 * cannot be read. */
static char *file_bytes(const char *path, size_t *len)
{
	char *b = test_read_file(path, len);

	if (!b)
		fail_msg("cannot read %s", path);
	return b;
}

/* index ARGS on the database at path is refused with a message saying
 * want, and leaves every byte of the file as it was, with no -wal,
 * -shm or -journal beside it. */
static void assert_refused_untouched(const char *path, const char *args, const char *want)
{
	char side[4300], *before, *after, *err;
	size_t n1, n2;
	struct stat sb;

	before = file_bytes(path, &n1);
	assert_int_equal(test_run("./stablesel index --no-progress %s --db '%s' 2>'%s/err'", args, path,
				  tmpdir), 128);
	err = test_run_output("cat '%s/err'", tmpdir);
	if (!strstr(err, want))
		fail_msg("index on %s: '%s', want '%s'", path, err, want);
	assert_int_equal(test_count_lines(err), 1);
	free(err);
	after = file_bytes(path, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(before, after, n1);
	free(before);
	free(after);
	snprintf(side, sizeof(side), "%s-wal", path);
	assert_int_not_equal(stat(side, &sb), 0);
	snprintf(side, sizeof(side), "%s-shm", path);
	assert_int_not_equal(stat(side, &sb), 0);
	snprintf(side, sizeof(side), "%s-journal", path);
	assert_int_not_equal(stat(side, &sb), 0);
}

/*
 * A file that is not this repository's stablesel index is never written:
 * another program's database (no meta table, a meta table of its own, or
 * no table but a user version), refused with every byte as it was (before,
 * index added its tables and commits and switched it to WAL, or, when it
 * refused, had already changed the header); an index of mail takes no
 * repository (before, its releases were replaced and every later update of
 * mail refused).
 */
static void test_foreign_never_written(void **state)
{
	static const char *const foreign[] = {
		"CREATE TABLE people(name TEXT, age INTEGER); INSERT INTO people VALUES('ann', 41)",
		"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('app', 'x')",
		"PRAGMA user_version = 7",
	};
	static const char *const says[] = {
		"is not a stablesel index (no meta table)",
		"is not a stablesel index (no schema version)",
		"is not a stablesel index (no meta table)",
	};
	char path[4200], args[4300], mbox[4200], *a, *b;
	size_t i;

	(void)state;
	snprintf(args, sizeof(args), "--repo '%s'", repo);
	for (i = 0; i < sizeof(foreign) / sizeof(*foreign); i++) {
		snprintf(path, sizeof(path), "%s/foreign%zu.db", tmpdir, i);
		copy_start(path, NULL);
		db_exec(path, foreign[i]);
		assert_refused_untouched(path, args, says[i]);
		/* and readers say what it is */
		assert_int_equal(test_run("./stablesel where --db '%s' abcdef 2>/dev/null", path), 128);
	}
	/* an index of mail takes no repository, and keeps every row */
	snprintf(path, sizeof(path), "%s/mail-only.db", tmpdir);
	snprintf(mbox, sizeof(mbox), "%s/mail-only.mbox", tmpdir);
	copy_start(path, NULL);
	assert_int_equal(test_run("git -C '%s' format-patch -q --stdout --no-merges --root v1.0 >'%s'",
				  repo, mbox), 0);
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>/dev/null", path,
				  mbox), 0);
	a = dump_tables(path);
	assert_refused_untouched(path, args, "is an index of mail: a repository goes into an index "
				 "of its own");
	b = dump_tables(path);
	assert_string_equal(a, b);
	free(a);
	free(b);
	/* and the mail update after it still works */
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>/dev/null", path,
				  mbox), 0);
}

/*
 * Two first builds of one index at once: both finish, and the index is
 * what one build writes.  The hook holds each at the point where it makes
 * the schema (before, both found no schema, then one failed with "table
 * meta already exists").
 */
static void test_two_first_builds(void **state)
{
	char path[4200], *a, *b;

	(void)state;
	snprintf(path, sizeof(path), "%s/twice.db", tmpdir);
	copy_start(path, NULL);
	assert_int_equal(test_run("export SS_TEST_PAUSE_AT=schema SS_TEST_PAUSE_MS=1500; "
				  "./stablesel index --no-progress --repo '%s' --db '%s' 2>'%s/err1' & "
				  "./stablesel index --no-progress --repo '%s' --db '%s' 2>'%s/err2'; "
				  "b=$?; wait $!; a=$?; cat '%s/err1' '%s/err2' >&2; test $a = 0 && test $b = 0",
				  repo, path, tmpdir, repo, path, tmpdir, tmpdir, tmpdir), 0);
	a = dump_tables(path);
	b = dump_tables(db);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/* What a first build on a full disk leaves, an empty file or a database
 * with no table yet: readers say to run index again (before: "not a
 * stablesel index"), and index completes it. */
static void test_blank_file(void **state)
{
	char path[4200], *err, *a, *b;
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s/blank.db", tmpdir);
	for (i = 0; i < 2; i++) {
		copy_start(path, NULL);
		test_write_file(path, "", 0);
		if (i)
			db_exec(path, "PRAGMA journal_mode=WAL");
		assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main "
					  "--db '%s' --model models/default.model -o /dev/null 2>'%s/err'",
					  repo, path, tmpdir), 128);
		err = test_run_output("cat '%s/err'", tmpdir);
		if (!strstr(err, "incomplete build, run 'stablesel index' again") ||
		    test_count_lines(err) != 1)
			fail_msg("rank on a blank index (%d): %s", i, err);
		free(err);
		assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
					  repo, path), 0);
		a = dump_tables(path);
		b = dump_tables(db);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
}

/*
 * Readers refuse another repository's index, one line naming both (before,
 * rank scored against the other repository's history and exited 0), and
 * the warning of an index behind its repository names a command that
 * updates that very index (before, it left out --db).
 */
static void test_reader_other_repository(void **state)
{
	char other[4200], odb[4200], r3[4200], cdb[4200], head[41], *err, *cmd, *end;

	(void)state;
	snprintf(other, sizeof(other), "%s/other-reader", tmpdir);
	snprintf(odb, sizeof(odb), "%s/other-reader.db", tmpdir);
	assert_int_equal(test_run("rm -rf '%s' && git init -q '%s' && cd '%s' && GIT_AUTHOR_NAME=a "
				  "GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b git "
				  "commit -q --allow-empty -m x", other, other, other), 0);
	copy_start(odb, NULL);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  other, odb), 0);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --db '%s' "
				  "--model models/default.model -o /dev/null 2>'%s/err'", repo, odb,
				  tmpdir), 128);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(err, "was built from another repository than"));
	assert_non_null(strstr(err, odb));
	assert_int_equal(test_count_lines(err), 1);
	free(err);
	assert_int_equal(test_run("./stablesel where --repo '%s' --db '%s' abcdef 2>'%s/err'", repo, odb,
				  tmpdir), 128);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(err, "was built from another repository than"));
	free(err);
	assert_int_equal(test_run("./stablesel label --db '%s' --index --stable '%s' -o /dev/null "
				  "2>/dev/null", odb, repo), 128);
	/* its own repository reads it */
	rev_parse(head, other, "HEAD");
	assert_int_equal(test_run("./stablesel where --repo '%s' --db '%s' %s >/dev/null 2>&1", other,
				  odb, head), 0);

	/* behind its repository: the warning's command updates this index */
	snprintf(r3, sizeof(r3), "%s/repo-behind", tmpdir);
	snprintf(cdb, sizeof(cdb), "%s/behind.db", tmpdir);
	copy_start(cdb, NULL);
	assert_int_equal(test_run("rm -rf '%s' && cp -r '%s' '%s'", r3, repo, r3), 0);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  r3, cdb), 0);
	assert_int_equal(test_run("cd '%s' && GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a "
				  "GIT_COMMITTER_EMAIL=a@b git commit -q --allow-empty -m later", r3), 0);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --db '%s' "
				  "--model models/default.model -o /dev/null 2>'%s/err'", r3, cdb,
				  tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	cmd = strstr(err, "run 'stablesel index ");
	if (!cmd || !(end = strstr(cmd, "' to update it")))
		fail_msg("no command in: %s", err);
	*end = '\0';
	cmd += strlen("run 'stablesel ");
	assert_non_null(strstr(cmd, " --db "));
	assert_int_equal(test_run("./stablesel %s --no-progress 2>/dev/null", cmd), 0);
	free(err);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --db '%s' "
				  "--model models/default.model -o /dev/null 2>'%s/err'", r3, cdb,
				  tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_null(strstr(err, "to update it"));
	free(err);
}

/*
 * A first build refused after it opened the file (here: a mainline that
 * does not exist) removes what it made and only that: through a symlinked
 * --db the target, never the link (before, the link was deleted and an
 * empty index left at its target); with --db NEWDIR/x.db the folder it
 * made too (before, an empty NEWDIR was left).
 */
static void test_refused_first_build_paths(void **state)
{
	char link[4200], target[4200], dir[4200];
	struct stat sb;

	(void)state;
	snprintf(link, sizeof(link), "%s/link.db", tmpdir);
	snprintf(target, sizeof(target), "%s/link-target.db", tmpdir);
	snprintf(dir, sizeof(dir), "%s/newdir", tmpdir);
	assert_int_equal(test_run("rm -rf '%s' '%s'* '%s' && ln -s link-target.db '%s'", link, target,
				  dir, link), 0);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --mainline no-such "
				  "--db '%s' 2>/dev/null", repo, link), 128);
	assert_int_equal(lstat(link, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	assert_int_not_equal(stat(target, &sb), 0);
	assert_int_equal(test_run("ls '%s'-* 2>/dev/null", target), 2);
	/* the link then works */
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  repo, link), 0);
	assert_int_equal(lstat(link, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	assert_int_equal(stat(target, &sb), 0);
	/* a folder made for --db goes with the refused build */
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --mainline no-such "
				  "--db '%s/x.db' 2>/dev/null", repo, dir), 128);
	assert_int_not_equal(stat(dir, &sb), 0);
}

/* The files in dir, one a line, sorted. */
static char *dir_list(const char *dir)
{
	return test_run_output("ls -A '%s' | sort", dir);
}

/*
 * Readers need no write access: where reads an index in a folder it
 * cannot write (before: "unable to open database file", or "attempt to
 * write a readonly database"), and a reader that is not the index's owner
 * leaves no -wal or -shm beside it (before, they stayed, and the owner's
 * next update failed on them).  As root, chmod restricts nothing: the
 * reader then runs as nobody (setpriv), or the first check is skipped,
 * said so.  While an update has the index open (its -wal there), a reader
 * that is not the owner still sees what the update committed.
 */
static void test_reader_read_only(void **state)
{
	char dir[4200], path[4300], leak[41], *out, *before, *after;
	sqlite3 *w;
	int root = geteuid() == 0;

	(void)state;
	rev_parse(leak, repo, "leak-fix");
	snprintf(dir, sizeof(dir), "%s/ro", tmpdir);
	snprintf(path, sizeof(path), "%s/index.db", dir);
	assert_int_equal(test_run("rm -rf '%s' && mkdir '%s' && cp '%s' '%s' && chmod 755 '%s' '%s' && "
				  "chmod 644 '%s'", dir, dir, db, path, tmpdir, dir, path), 0);
	before = dir_list(dir);
	if (!root) {
		assert_int_equal(test_run("chmod 555 '%s'", dir), 0);
		out = test_run_output("./stablesel where --db '%s' %s", path, leak);
		assert_int_equal(test_run("chmod 755 '%s'", dir), 0);
	} else if (!test_run("setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null") &&
		   !test_run("setpriv --reuid=65534 --regid=65534 --clear-groups test -x ./stablesel")) {
		out = test_run_output("setpriv --reuid=65534 --regid=65534 --clear-groups "
				      "./stablesel where --db '%s' %s", path, leak);
	} else {
		printf("SKIP: running as root without setpriv: a folder it cannot write is not tested\n");
		out = NULL;
	}
	if (out) {
		assert_non_null(strstr(out, "  released: v2.0\n"));
		free(out);
		after = dir_list(dir);
		assert_string_equal(after, before);
		free(after);
	}
	/* another user's index (the owner changed: root can still write the
	 * folder) is read leaving nothing beside it */
	assert_int_equal(test_run("chown 65534 '%s' 2>/dev/null || true", path), 0);
	{
		struct stat sb;

		assert_int_equal(stat(path, &sb), 0);
		if (sb.st_uid == geteuid()) {
			printf("SKIP: cannot give the index another owner\n");
			free(before);
			return;
		}
	}
	out = test_run_output("./stablesel where --db '%s' %s", path, leak);
	assert_non_null(strstr(out, "  released: v2.0\n"));
	free(out);
	after = dir_list(dir);
	assert_string_equal(after, before);
	free(after);
	free(before);
	/* an update running (its connection open, a transaction committed to
	 * the -wal): the reader reads through the -wal */
	assert_int_equal(sqlite3_open(path, &w), SQLITE_OK);
	assert_int_equal(sqlite3_exec(w, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;"
				      " UPDATE commits SET subject = 'seen through the wal' WHERE"
				      " subject = 'net: foo: fix leak on error path'", NULL, NULL, NULL),
			 SQLITE_OK);
	out = test_run_output("./stablesel where --db '%s' %s", path, leak);
	assert_non_null(strstr(out, "seen through the wal"));
	free(out);
	sqlite3_close(w);
}

/*
 * A release commit dated 1969 (time <= 0; git log refuses to show it, git
 * stores it): where still names each commit's first release by the
 * graph of the versions (before, the 1969 release came first in time and
 * claimed every commit before it: v1.0's commit was "released: v3.0").
 */
static void test_release_dated_1969(void **state)
{
	char r69[4200], path[4300], v1[41], *out;

	(void)state;
	snprintf(r69, sizeof(r69), "%s/repo-1969", tmpdir);
	snprintf(path, sizeof(path), "%s/r1969.db", tmpdir);
	copy_start(path, NULL);
	assert_int_equal(test_run(
		"rm -rf '%s' && cp -r '%s' '%s' && cd '%s' && export GIT_AUTHOR_NAME=a "
		"GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b "
		"GIT_AUTHOR_DATE='1700100000 +0000' GIT_COMMITTER_DATE='1700100000 +0000' && "
		"git commit -q --allow-empty -m 'after v2.0' && echo x >> f && git add f && "
		"c=$(printf 'tree %%s\\nparent %%s\\nauthor a <a@b> 0 -0100\\ncommitter a <a@b> 0 -0100\\n"
		"\\nrelease 3.0\\n' $(git write-tree) $(git rev-parse HEAD) | "
		"git hash-object -t commit -w --stdin) && git reset -q --hard $c && git tag v3.0 && "
		"echo y >> f && git add f && git commit -q -m 'after v3.0'", r69, repo, r69, r69), 0);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  r69, path), 0);
	rev_parse(v1, r69, "v1.0");
	out = test_run_output("./stablesel where --db '%s' %s", path, v1);
	assert_non_null(strstr(out, "  released: v1.0\n"));
	free(out);
	out = query_rows(path, "SELECT first_release, count(*) FROM commits WHERE mainline = 1"
			 " GROUP BY 1");
	assert_string_equal(out, "\\N\t1\nv1.0\t3\nv2.0\t10\nv3.0\t2\n");
	free(out);
	/* the table keeps the release's own date */
	out = query_rows(path, "SELECT time FROM releases WHERE tag = 'v3.0'");
	assert_string_equal(out, "0\n");
	free(out);
}

/* A copy of the base index at name with sql run on it. */
static void damaged_copy(char *out, size_t size, const char *name, const char *sql,
			 const char *more)
{
	snprintf(out, size, "%s/%s.db", tmpdir, name);
	assert_int_equal(test_run("rm -f '%s'* && cp '%s' '%s'", out, db, out), 0);
	db_exec(out, sql);
	if (more)
		db_exec(out, more);
}

/* rc is a failure whose one-line message names path and says want. */
static void assert_index_error(int rc, const char *path, const char *want)
{
	const char *m = ss_error_last();

	assert_true(rc < 0);
	if (!strstr(m, path) || !strstr(m, want) || strchr(m, '\n'))
		fail_msg("error '%s', want '%s' naming '%s'", m, want, path);
}

static int count_commit(const ss_histidx_commit *c, void *ud)
{
	/* a time out of range is read clamped */
	assert_true(c->time >= -SS_INDEX_TIME_LIMIT && c->time <= SS_INDEX_TIME_LIMIT);
	++*(size_t *)ud;
	return 0;
}

static int count_backport(const ss_index_backport *b, void *ud)
{
	(void)b;
	++*(size_t *)ud;
	return 0;
}

static int count_path(const char *p, int64_t first, void *ud)
{
	(void)p;
	(void)first;
	++*(size_t *)ud;
	return 0;
}

/*
 * What is read back from a damaged index (cells changed by SQL, as
 * fuzz/fuzz_index.c does at random): an id that is no id, a NULL where
 * none may be, a missing table, a view for a table, a cut file: one error
 * line naming the file; a time out of range is read clamped.
 */
static void test_damaged_cells(void **state)
{
	/* a table again without its constraints: NULLs get in */
	static const char loose_releases[] =
		"CREATE TABLE x AS SELECT * FROM releases; DROP TABLE releases;"
		" ALTER TABLE x RENAME TO releases;";
	char path[4200], tip[41], *out;
	ss_releases *rel = NULL;
	ss_index *ix;
	size_t n = 0;

	(void)state;
	/* a commit id that is no hex */
	damaged_copy(path, sizeof(path), "bad-id", "UPDATE commits SET id = 'zz' || substr(id, 3)"
		     " WHERE id = (SELECT min(id) FROM commits WHERE mainline = 1)", NULL);
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	assert_index_error(ss_index_for_each_commit(ix, count_commit, &n), path,
			   "is damaged: commit id 'zz");
	ss_index_free(ix);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --db '%s'"
				  " --model models/default.model -o /dev/null 2>'%s/err'", repo, path,
				  tmpdir), 128);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "is damaged: commit id 'zz"));
	assert_int_equal(test_count_lines(out), 1);
	free(out);
	/* a release without its commit */
	damaged_copy(path, sizeof(path), "null-release", loose_releases,
		     "UPDATE releases SET commit_id = NULL WHERE tag ="
		     " (SELECT min(tag) FROM releases WHERE kind = 'mainline')");
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	assert_index_error(ss_index_load_releases(&rel, ix), path,
			   "is damaged: release commit '(null)' is not 40 hex digits");
	assert_null(rel);
	ss_index_free(ix);
	/* the same release twice */
	damaged_copy(path, sizeof(path), "dup-release", loose_releases,
		     "INSERT INTO releases SELECT tag, 'ab' || substr(commit_id, 3),"
		     " time, kind FROM releases WHERE kind = 'mainline' LIMIT 1");
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	assert_index_error(ss_index_load_releases(&rel, ix), path, "is listed twice");
	ss_index_free(ix);
	/* a ref tip, a backport's upstream id */
	damaged_copy(path, sizeof(path), "bad-tip", "UPDATE refs SET tip = 'abc' WHERE kind = 'mainline';"
		     " UPDATE backports SET upstream_id = x'00ff'", NULL);
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	assert_index_error(ss_index_ref_tip(tip, ix, "mainline", NULL, 0), path,
			   "is damaged: ref tip 'abc' is not 40 hex digits");
	assert_index_error(ss_index_for_each_backport(ix, count_backport, &n), path,
			   "is damaged: backported commit '' is not 40 hex digits");
	ss_index_free(ix);
	/* times and counts of any size or type: read, clamped */
	damaged_copy(path, sizeof(path), "huge-time", "UPDATE commits SET committer_time = 0,"
		     " author_time = -9223372036854775808; UPDATE files SET added = 'many';"
		     " UPDATE commits SET mainline = 'yes' WHERE mainline = 0", NULL);
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	n = 0;
	assert_int_equal(ss_index_for_each_commit(ix, count_commit, &n), 0);
	assert_true(n > 8);
	n = 0;
	assert_int_equal(ss_index_for_each_path(ix, count_path, &n), 0);
	assert_true(n > 0);
	ss_index_free(ix);
	/* a missing table, a view for a table */
	damaged_copy(path, sizeof(path), "no-files", "DROP TABLE files", NULL);
	assert_index_error(ss_index_open(&ix, path, SS_INDEX_READ), path,
			   "is damaged: table 'files' is missing");
	assert_int_equal(test_run("./stablesel where --db '%s' abcdef 2>'%s/err'", path, tmpdir), 128);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "is damaged: table 'files' is missing"));
	assert_int_equal(test_count_lines(out), 1);
	free(out);
	damaged_copy(path, sizeof(path), "view", "ALTER TABLE commits RENAME TO c0;"
		     " CREATE VIEW commits AS SELECT * FROM c0", NULL);
	assert_index_error(ss_index_open(&ix, path, SS_INDEX_READ), path,
			   "is damaged: 'commits' is not a table");
	/* cut short */
	damaged_copy(path, sizeof(path), "cut", "PRAGMA journal_mode=DELETE", NULL);
	assert_int_equal(test_run("truncate -s 6000 '%s'", path), 0);
	assert_int_equal(test_run("./stablesel where --db '%s' abcdef 2>'%s/err'", path, tmpdir), 128);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, path));
	assert_non_null(strstr(out, "damaged"));
	assert_int_equal(test_count_lines(out), 1);
	free(out);
}

/*
 * explain prints rank's score (4 decimals) for up to max rows of the rank
 * TSV, each explained alone, with the same model and history options.
 */
static void assert_explain_equals_rank(const char *tsv, const char *opts, size_t max)
{
	char *scores = rank_scores(tsv), *line, *save = NULL;
	size_t n = 0;

	for (line = strtok_r(scores, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save), n++) {
		char want[32], *out, *at;
		double score = strtod(strchr(line, '\t') + 1, NULL);

		out = test_run_output("./stablesel explain %s %.40s 2>/dev/null", opts, line);
		at = strstr(out, "\nscore ");
		assert_non_null(at);
		snprintf(want, sizeof(want), "\nscore %.4f ", score);
		if (strncmp(at, want, strlen(want)))
			fail_msg("explain %.12s: %.20s, rank: %s", line, at + 1, want + 1);
		free(out);
	}
	assert_true(n > 0);
	free(scores);
}

/*
 * rank and explain read their history from the index: ranking v1.0..main
 * with the index scores each commit as ranking it with the whole history
 * before v1.0 read from git (--no-index --history git:R, which reads what
 * --rev starts from), explain agrees with rank, and a repository without
 * an index is said once.
 */
static void test_history_from_index(void **state)
{
	char a[4200], b[4200], opts[8400], *x, *y, *err;

	(void)state;
	snprintf(a, sizeof(a), "%s/rank-index.tsv", tmpdir);
	snprintf(b, sizeof(b), "%s/rank-git.tsv", tmpdir);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --db '%s' "
				  "--model models/default.model --format tsv --top 1000 -o '%s' 2>'%s/err'", repo, db, a, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_null(strstr(err, "no project index"));
	free(err);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --no-index "
				  "--model models/default.model --history 'git:%s' --release-tags 'v*' --format tsv --top 1000 -o '%s' "
				  "2>/dev/null", repo, repo, b), 0);
	x = rank_scores(a);
	y = rank_scores(b);
	assert_true(test_count_lines(x) >= 8);
	assert_string_equal(x, y);
	free(x);
	free(y);
	snprintf(opts, sizeof(opts), "--model models/default.model --repo '%s' --db '%s'", repo, db);
	assert_explain_equals_rank(a, opts, 100);
	/* no index where --repo keeps it: said once, on stderr */
	snprintf(b, sizeof(b), "%s/noindex", tmpdir);
	assert_int_equal(test_run("cp -r '%s' '%s' && rm -rf '%s/.git/stablesel'", repo, b, b), 0);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main "
				  "--format tsv -o /dev/null 2>'%s/err'", b, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(err, "note: no project index for '"));
	assert_null(strstr(strstr(err, "note: no project index") + 1, "note: no project index"));
	free(err);
	/* without --model, the index's stable branches are the labels of a
	 * project model (too few commits here: the built-in model, said so),
	 * and rows say which branches carry them */
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --db '%s' --format tsv "
				  "--top 100 -o '%s' 2>'%s/err'", repo, db, a, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(err, "too few settled commits to train a model for this project"));
	free(err);
	x = test_read_file(a, NULL);
	assert_non_null(strstr(x, "already in stable stable-1.y"));
	free(x);
	/* a named --db that is missing is an error */
	assert_int_equal(test_run("./stablesel rank --repo '%s' --db '%s/none.db' 2>/dev/null", repo,
				  tmpdir), 128);
}

/* An index of schema 1 is refused by readers, with what to do, and
 * upgraded by "index": the same rows as a fresh build. */
static void test_migration(void **state)
{
	char old[4200], *out;
	sqlite3 *d;

	(void)state;
	snprintf(old, sizeof(old), "%s/old.db", tmpdir);
	assert_int_equal(test_run("cp '%s' '%s'", db, old), 0);
	assert_int_equal(sqlite3_open(old, &d), SQLITE_OK);
	/* what schema 1 lacked */
	assert_int_equal(sqlite3_exec(d, "UPDATE meta SET value = '1' WHERE key = 'schema';"
				      "DELETE FROM trailers WHERE kind = 'reverts'", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(d);
	assert_int_equal(test_run("./stablesel where --db '%s' abcdef 2>'%s/err'", old, tmpdir), 128);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "has schema version 1, older than"));
	assert_non_null(strstr(out, "run 'stablesel index' to upgrade it"));
	free(out);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  repo, old), 0);
	assert_same_rows(old, db);
}

/*
 * An index of mail: the commits of an mbox are its mainline; an mbox that
 * grew at its end is read from where the last update stopped and gives
 * the rows of a fresh build; rank finds a Fixes: target that only the
 * index holds; a repository's index takes no mail.
 */
/*
 * A growing mbox cut at a line end inside a message (issue 24.2): the
 * cut message is warned about and skipped, and the next update, of the
 * whole file, reads it: the same rows as one update of the whole file.
 */
static void test_mail_cut_message(void **state)
{
	char all[4200], cut[4200], inc[4200], fresh[4200], *out;

	(void)state;
	snprintf(all, sizeof(all), "%s/cut-all.mbox", tmpdir);
	snprintf(cut, sizeof(cut), "%s/cut.mbox", tmpdir);
	snprintf(inc, sizeof(inc), "%s/cut-inc.db", tmpdir);
	snprintf(fresh, sizeof(fresh), "%s/cut-fresh.db", tmpdir);
	assert_int_equal(test_run("git -C '%s' format-patch -q --stdout --no-merges --root main >'%s' && "
				  "n=$(grep -n '^From [0-9a-f]\\{40\\} ' '%s' | sed -n 3p | cut -d: -f1) && "
				  "test -n \"$n\" && head -n $((n + 8)) '%s' >'%s'", repo, all, all, all, cut), 0);
	/* input skipped: exit 1, as log on the same mbox */
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'", inc, cut,
				  tmpdir), 1);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "message 3 skipped"));
	assert_non_null(strstr(out, "indexed 2 new commits"));
	free(out);
	/* the writer finishes the file */
	assert_int_equal(test_run("cp '%s' '%s'", all, cut), 0);
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'", inc, cut,
				  tmpdir), 0);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_null(strstr(out, "skipped"));
	free(out);
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>/dev/null", fresh, cut),
			 0);
	assert_same_rows(inc, fresh);
	/* and an update with nothing new reads nothing again */
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'", inc, cut,
				  tmpdir), 0);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "indexed 0 new commits (0 refs moved)"));
	free(out);
}

static void test_mail(void **state)
{
	char all[4200], part[4200], inc[4200], fresh[4200], later[4200], *out;

	(void)state;
	snprintf(all, sizeof(all), "%s/all.mbox", tmpdir);
	snprintf(part, sizeof(part), "%s/part.mbox", tmpdir);
	snprintf(later, sizeof(later), "%s/later.mbox", tmpdir);
	snprintf(inc, sizeof(inc), "%s/mail-inc.db", tmpdir);
	snprintf(fresh, sizeof(fresh), "%s/mail-fresh.db", tmpdir);
	assert_int_equal(test_run("git -C '%s' format-patch -q --stdout --no-merges --root main >'%s'",
				  repo, all), 0);
	assert_int_equal(test_run("git -C '%s' format-patch -q --stdout --no-merges --root v1.0 >'%s'",
				  repo, part), 0);
	/* later: a fix of the first commit, which only the index holds */
	assert_int_equal(test_run(
		"r='%s/repo-later' && rm -rf \"$r\" && cp -r '%s' \"$r\" && cd \"$r\" && "
		"export GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org "
		"GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.org "
		"GIT_AUTHOR_DATE='1700200000 +0000' GIT_COMMITTER_DATE='1700200000 +0000' && "
		"t=$(git rev-list --max-parents=0 main) && git checkout -q main && "
		"printf 'int foo_later;\\n' >> drivers/net/foo_main.c && git add -A && "
		"git commit -q -m 'net: foo: fix open' -m \"Fixes: $(git rev-parse --short=12 $t) "
		"(\\\"net: foo: add driver\\\")\" && git format-patch -q --stdout -1 >'%s'",
		tmpdir, repo, later), 0);
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'", inc, part,
				  tmpdir), 0);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "indexed 3 new commits (1 refs moved)"));
	free(out);
	/* the mbox grows at its end: only the new messages are read */
	assert_int_equal(test_run("git -C '%s' format-patch -q --stdout --no-merges v1.0..main >>'%s'",
				  repo, part), 0);
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'", inc, part,
				  tmpdir), 0);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_null(strstr(out, "read again"));
	free(out);
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>/dev/null", fresh,
				  part), 0);
	assert_same_rows(inc, fresh);
	{
		char *n = query_rows(fresh, "SELECT count(*) FROM commits"), want[64];

		assert_true(atoi(n) > 3);
		snprintf(want, sizeof(want), "indexed %d new commits (1 refs moved)", atoi(n) - 3);
		out = test_run_output("cat '%s/err'", tmpdir);
		if (!strstr(out, want))
			fail_msg("second update: %s, want %s", out, want);
		free(out);
		free(n);
	}
	/* the end of what was read is recorded as decoded bytes and their
	 * crc32, and an update with nothing new parses nothing */
	{
		char *mark = query_rows(inc, "SELECT tip FROM refs WHERE kind = 'mbox'");
		char want[64];

		{ struct stat sb;

			assert_int_equal(stat(part, &sb), 0);
			snprintf(want, sizeof(want), "%lld:", (long long)sb.st_size);
		}
		if (strncmp(mark, want, strlen(want)))
			fail_msg("mbox ref '%s', want '%s<crc>'", mark, want);
		free(mark);
	}
	assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'", inc, part,
				  tmpdir), 0);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "indexed 0 new commits (0 refs moved)"));
	assert_null(strstr(out, "read again"));
	free(out);
	assert_same_rows(inc, fresh);
	/* a releases file that cannot be read refuses the update before its
	 * first batch (the new source's commits were written before): the
	 * index as it was; a first build so refused leaves no file */
	{
		char nodb[4200];
		struct stat sb;

		assert_int_equal(test_run("./stablesel index --no-progress --db '%s' --releases "
					  "'%s/no-such.tsv' '%s' '%s' 2>/dev/null", inc, tmpdir, part,
					  later), 128);
		assert_same_rows(inc, fresh);
		snprintf(nodb, sizeof(nodb), "%s/mail-refused.db", tmpdir);
		assert_int_equal(test_run("./stablesel index --no-progress --db '%s' --releases "
					  "'%s/no-such.tsv' '%s' 2>/dev/null", nodb, tmpdir, part), 128);
		assert_int_not_equal(stat(nodb, &sb), 0);
	}
	/* zstd: the offset is the decoded one; what grew is read, the same rows */
	{
		char zinc[4200], zpart[4200];

		snprintf(zinc, sizeof(zinc), "%s/mail-zinc.db", tmpdir);
		snprintf(zpart, sizeof(zpart), "%s/part.mbox.zst", tmpdir);
		assert_int_equal(test_run("git -C '%s' format-patch -q --stdout --no-merges --root v1.0"
					  " | zstd -q -f -o '%s'", repo, zpart), 0);
		assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>/dev/null",
					  zinc, zpart), 0);
		assert_int_equal(test_run("zstd -q -f '%s' -o '%s'", part, zpart), 0);
		assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'",
					  zinc, zpart, tmpdir), 0);
		out = test_run_output("cat '%s/err'", tmpdir);
		assert_null(strstr(out, "read again"));
		assert_non_null(strstr(out, "(1 refs moved)"));
		free(out);
		assert_int_equal(test_run("./stablesel index --no-progress --db '%s/mail-zfresh.db' '%s'"
					  " 2>/dev/null", tmpdir, zpart), 0);
		{
			char zfresh[4200];

			snprintf(zfresh, sizeof(zfresh), "%s/mail-zfresh.db", tmpdir);
			assert_same_rows(zinc, zfresh);
		}
		/* rewritten: the first bytes differ; read again from the start */
		assert_int_equal(test_run("cat '%s' '%s' | zstd -q -f -o '%s'", later, all, zpart), 0);
		assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'",
					  zinc, zpart, tmpdir), 0);
		out = test_run_output("cat '%s/err'", tmpdir);
		assert_non_null(strstr(out, "1 mail sources changed before where the last update "
					"ended: read again from their start"));
		assert_non_null(strstr(out, "indexed 1 new commits (1 refs moved)"));
		free(out);
		/* cut shorter than what was read: read again too */
		assert_int_equal(test_run("head -c 2000 '%s' | zstd -q -f -o '%s'", all, zpart), 0);
		/* exit 1: its last message, cut, is reported as log reports it */
		assert_int_equal(test_run("./stablesel index --no-progress --db '%s' '%s' 2>'%s/err'",
					  zinc, zpart, tmpdir), 1);
		out = test_run_output("cat '%s/err'", tmpdir);
		assert_non_null(strstr(out, "read again from their start"));
		free(out);
	}
	/* the later fix's target is found through the index */
	out = test_run_output("./stablesel rank --db '%s' --format tsv --top 100 '%s' 2>/dev/null",
			      fresh, later);
	assert_null(strstr(out, "(not read)"));
	free(out);
	out = test_run_output("./stablesel rank --no-index --format tsv --top 100 '%s' 2>/dev/null", later);
	assert_non_null(strstr(out, "(not read)"));
	free(out);
	/* origin too */
	out = test_run_output("./stablesel origin --db '%s' '%s' \"$(sed -n 's/^From \\([0-9a-f]*\\) .*/\\1/p' "
			      "'%s' | head -1)\" 2>/dev/null", fresh, later, later);
	assert_non_null(strstr(out, "\"net: foo: add driver\""));
	assert_null(strstr(out, "not found in the history"));
	free(out);
	/* mail does not go into a repository's index */
	assert_int_equal(test_run("./stablesel index --db '%s' '%s' 2>'%s/err'", db, later, tmpdir), 128);
	out = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(out, "is a repository's"));
	free(out);
	assert_int_equal(test_run("./stablesel index '%s' 2>/dev/null", later), 129);
}

/* DPDK's LTS branches: the index's backport lines are label's. */
static void test_dpdk(void **state)
{
	char dir[4200], git[4300], path[4300], labels[4300], *want, *got;

	(void)state;
	SS_REQUIRE_DATA();
	snprintf(dir, sizeof(dir), "%s/dpdk", tmpdir);
	assert_int_equal(test_run("mkdir -p '%s' && tar -xf '%s/dpdk/dpdk-v22.03.git.tar' -C '%s'", dir,
				  test_data_dir(), dir), 0);
	snprintf(git, sizeof(git), "%s/dpdk.git", dir);
	snprintf(path, sizeof(path), "%s/index.db", dir);
	snprintf(labels, sizeof(labels), "%s/labels.tsv", dir);
	/* exit 0: the files of the 9 commits whose blobs the tarball lacks
	 * are "unreadable (missing object)", the commits still indexed */
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null", git,
				  path), 0);
	assert_int_equal(test_run("./stablesel label --stable '%s' --branches '[0-9]*' -o '%s' 2>/dev/null",
				  git, labels), 0);
	want = label_rows(labels);
	got = query_rows(path, line_map_sql);
	assert_true(strlen(want) > 100000);
	assert_string_equal(got, want);
	free(want);
	free(got);
	/* label from the index: every backport, lines and patch ids */
	assert_int_equal(test_run("./stablesel label --db '%s' -o '%s' 2>/dev/null", path, labels), 0);
	want = label_rows(labels);
	got = query_rows(path, "SELECT upstream_id, group_concat(branch, ',') FROM (SELECT DISTINCT"
			 " b.upstream_id, b.branch FROM backports b JOIN refs r ON r.name = b.branch"
			 " AND r.kind = 'stable' ORDER BY 1, 2) GROUP BY upstream_id");
	assert_string_equal(got, want);
	free(want);
	free(got);
	/* every LTS branch is a stable branch but 20.02, which has no
	 * backport line; v22.03 is a mainline release */
	got = query_rows(path, "SELECT count(*) FROM refs WHERE kind = 'stable'");
	assert_string_equal(got, "13\n");
	free(got);
	got = query_rows(path, "SELECT kind FROM refs WHERE name = '20.02'");
	assert_string_equal(got, "other\n");
	free(got);
	got = query_rows(path, "SELECT kind FROM releases WHERE tag = 'v22.03'");
	assert_string_equal(got, "mainline\n");
	free(got);
	/* ranking v21.11..v22.03 with the index scores every commit as
	 * ranking it with the whole history before v21.11 read from git and
	 * the index's mainline releases; explain agrees on a sample */
	{
		char rel[4300], a[4300], b[4300], opts[8700], *x, *y;

		snprintf(rel, sizeof(rel), "%s/releases.tsv", dir);
		snprintf(a, sizeof(a), "%s/rank-index.tsv", dir);
		snprintf(b, sizeof(b), "%s/rank-git.tsv", dir);
		got = query_rows(path, "SELECT tag, commit_id, time FROM releases WHERE kind = 'mainline'");
		x = NULL;
		assert_true(asprintf(&x, "tag\tsha\tdate\n%s", got) > 0);
		test_write_file(rel, x, strlen(x));
		free(x);
		free(got);
		assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v21.11..v22.03 "
					  "--model models/default.model --db '%s' --format tsv --top 100000 -o '%s' 2>/dev/null",
					  git, path, a), 0);
		/* exit 0: the files of the 9 commits whose blobs the tarball lacks
		 * are unreadable (one warning), the commits are read */
		assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v21.11..v22.03 "
					  "--model models/default.model --no-index --history 'git:%s' --releases '%s' --format tsv "
					  "--top 100000 -o '%s' 2>/dev/null", git, git, rel, b), 0);
		x = rank_scores(a);
		y = rank_scores(b);
		assert_true(test_count_lines(x) > 900);
		assert_string_equal(x, y);
		free(x);
		free(y);
		snprintf(opts, sizeof(opts), "--model models/default.model --repo '%s' --db '%s'", git, path);
		assert_explain_equals_rank(a, opts, 20);
	}
	assert_int_equal(test_run("rm -rf '%s'", dir), 0);
}

/*
 * issue 35, case 15: built while a blob is missing (as in a blob-less
 * partial clone), the commits that touch it have no patch id and the
 * stable branch's patch-id backport is missing; an update while it is
 * still missing says so and changes nothing; once the blob is there, the
 * next update completes them: the same rows as a build of the whole
 * repository.
 */
static void test_partial_clone_repaired(void **state)
{
	char r[4200], *out;
	const char *dump = "SELECT id, patch_id FROM commits ORDER BY id;"
			   " SELECT commit_id, path, added, removed FROM files ORDER BY 1, 2;"
			   " SELECT branch, commit_id, upstream_id, how FROM backports ORDER BY 1, 2, 3;";

	(void)state;
	snprintf(r, sizeof(r), "%s/pc", tmpdir);
	assert_int_equal(test_run("sh '%s' '%s/r' >/dev/null 2>&1 && cd '%s/r' && "
				  "b=$(git rev-parse $(git log --format=%%H -1 --grep='^dup$' main):d.c) && "
				  "mkdir '%s/saved' && echo $b >'%s/blob' && "
				  "mv .git/objects/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-) '%s/saved/'",
				  test_script("queuerepo.sh"), r, r, r, r, r), 0);
	assert_int_equal(test_run("./stablesel index --repo '%s/r' --db '%s/p.db' >/dev/null 2>&1", r, r), 0);
	out = test_run_output("sqlite3 '%s/p.db' \"SELECT count(*) FROM missing_blobs;"
			      " SELECT count(*) FROM commits WHERE subject = 'dup' AND patch_id IS NULL;"
			      " SELECT count(*) FROM backports WHERE how = 'patch-id'\"", r);
	assert_string_equal(out, "5\n1\n0\n");
	free(out);
	/* still missing: said, nothing changed */
	assert_int_equal(test_run("./stablesel index --repo '%s/r' --db '%s/p.db' >/dev/null 2>'%s/err' && "
				  "grep -q '^note: 5 commits indexed without a blob still miss one' '%s/err'",
				  r, r, r, r), 0);
	/* the blob fetched: completed, as a build of the whole repository */
	assert_int_equal(test_run("cd '%s/r' && b=$(cat '%s/blob') && "
				  "mv '%s/saved/'* .git/objects/$(echo $b | cut -c1-2)/ && "
				  "git cat-file -e $b", r, r, r), 0);
	assert_int_equal(test_run("./stablesel index --repo '%s/r' --db '%s/p.db' >/dev/null 2>'%s/err' && "
				  "grep -q '^note: 5 commits indexed while a blob was missing (a partial "
				  "clone) read whole now' '%s/err'", r, r, r, r), 0);
	out = test_run_output("sqlite3 '%s/p.db' \"SELECT count(*) FROM missing_blobs;"
			      " SELECT count(*) FROM backports WHERE how = 'patch-id'\"", r);
	assert_string_equal(out, "0\n1\n");
	free(out);
	assert_int_equal(test_run("./stablesel index --repo '%s/r' --db '%s/full.db' >/dev/null 2>&1 && "
				  "sqlite3 '%s/p.db' \"%s\" >'%s/d1' && sqlite3 '%s/full.db' \"%s\" >'%s/d2' && "
				  "cmp '%s/d1' '%s/d2' && test -s '%s/d1'",
				  r, r, r, dump, r, r, dump, r, r, r, r), 0);
	/* the features of the completed commits are extracted again */
	assert_int_equal(test_run("sqlite3 '%s/p.db' \"SELECT hex(id), hex(data) FROM feature_data ORDER BY id\" >'%s/f1' && "
				  "sqlite3 '%s/full.db' \"SELECT hex(id), hex(data) FROM feature_data ORDER BY id\" >'%s/f2' && "
				  "cmp '%s/f1' '%s/f2' && test -s '%s/f1'", r, r, r, r, r, r, r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backports_equal_label),
		cmocka_unit_test(test_where),
		cmocka_unit_test(test_where_upstream_and_tags),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_incremental),
		cmocka_unit_test(test_kill_anywhere),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_foreign_never_written),
		cmocka_unit_test(test_two_first_builds),
		cmocka_unit_test(test_blank_file),
		cmocka_unit_test(test_reader_other_repository),
		cmocka_unit_test(test_refused_first_build_paths),
		cmocka_unit_test(test_reader_read_only),
		cmocka_unit_test(test_release_dated_1969),
		cmocka_unit_test(test_damaged_cells),
		cmocka_unit_test(test_history_from_index),
		cmocka_unit_test(test_migration),
		cmocka_unit_test(test_mail),
		cmocka_unit_test(test_mail_cut_message),
		cmocka_unit_test(test_partial_clone_repaired),
		cmocka_unit_test(test_dpdk),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
