/*
 * test_run_history_load.c - the past a run's history starts with,
 * without the CLI (run/history_load.h): the --history sources' commits
 * added through the front end's walk, one that holds none a warning, or
 * read by run/ itself, a mail that cannot be read one warning at the end;
 * a bad releases file failing before the index is asked for; without
 * releases, repository or index, nothing added and nothing said; the
 * index the options name read through the run (ss_run_history_index_load:
 * --release-tags without a repository a usage error first, --no-index
 * and a --db that does not exist); the whole past filled
 * (ss_run_history_fill: the usage checked before any source is read, the
 * --history sources read with the ranked ones' options).
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>
#include <gmime/gmime.h>

#include "run/history_load.h"
#include "util/error.h"

/* The front end's side: "two" holds two commits, "none" none; how many
 * times the index was asked for. */
struct front {
	int index_asked;
};

static ss_index *no_index(char **path, void *ud)
{
	struct front *f = ud;

	f->index_asked++;
	*path = NULL;
	return NULL;
}

static size_t walk(const char *spec, ss_run_commit_fn fn, void *data, void *ud)
{
	size_t i, n = strcmp(spec, "two") ? 0 : 2;

	(void)ud;
	for (i = 0; i < n; i++) {
		ss_commit *c = ss_commit_new();

		assert_non_null(c);
		snprintf(c->id, sizeof(c->id), "%040zu", i + 1);
		c->author.time = c->committer.time = 1600000000 + (int64_t)i * 86400;
		assert_int_equal(ss_commit_set_message(c, "fix: a thing\n", 13), 0);
		if (fn(c, data))
			return i + 1;
	}
	return n;
}

static void test_prime(void **state)
{
	const char *specs[] = { "two", "none" };
	struct front f = { 0 };
	ss_run_history_source src = { no_index, walk, &f, NULL };
	struct heard heard = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&heard);
	ss_history *h = NULL;

	(void)state;
	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_run_history_prime(h, specs, 2, &src, &rp), 0);
	assert_int_equal(ss_history_count(h), 2);
	assert_string_equal(heard.text, "W --history none holds no commits\n");
	assert_int_equal(f.index_asked, 0);
	ss_history_free(h);
}

/* Two mails, the second cut short: one commit read, one that cannot be. */
static const char *const mails = TEST_RUN_TWO_MAILS;

/* Without the front end's walk, run/ reads the sources itself with the
 * options given: a mail that cannot be read is one warning at the end,
 * a source that cannot be opened the reading's error. */
static void test_prime_read(void **state)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	struct front f = { 0 };
	ss_run_history_source src = { no_index, NULL, &f, &o };
	struct heard heard = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&heard);
	ss_history *h = NULL;
	char path[4096], missing[4096];
	const char *specs[1] = { path }, *none[1] = { missing };
	FILE *fp;

	(void)state;
	snprintf(path, sizeof(path), "%s/two.mbox", test_scratch);
	snprintf(missing, sizeof(missing), "%s/none.mbox", test_scratch);
	assert_non_null(fp = fopen(path, "w"));
	assert_true(fputs(mails, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_run_history_prime(h, specs, 1, &src, &rp), 0);
	assert_int_equal(ss_history_count(h), 1);
	assert_non_null(strstr(heard.text, "W 1 commits of the history could not be read"));
	assert_int_equal(f.index_asked, 0);
	assert_true(ss_run_history_prime(h, none, 1, &src, &rp) < 0);
	assert_non_null(strstr(ss_error_last(), "none.mbox"));
	assert_null(strstr(ss_error_last(), "--history"));
	ss_error_clear();
	ss_history_free(h);
}

static void test_load(void **state)
{
	struct front f = { 0 };
	ss_run_history_source src = { no_index, walk, &f, NULL };
	struct heard heard = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&heard);
	ss_history *h = NULL;
	char missing[4096];

	(void)state;
	assert_int_equal(ss_history_new(&h), 0);
	/* nothing named, no repository, no index: nothing added, nothing said */
	assert_int_equal(ss_run_history_load(h, NULL, NULL, NULL, NULL, &src, &rp), 0);
	assert_int_equal(f.index_asked, 1);
	assert_int_equal(ss_history_count(h), 0);
	assert_string_equal(heard.text, "");
	/* a releases file that cannot be read fails before the index is
	 * asked for */
	snprintf(missing, sizeof(missing), "%s/none.tsv", test_scratch);
	assert_true(ss_run_history_load(h, missing, NULL, NULL, NULL, &src, &rp) < 0);
	assert_non_null(strstr(ss_error_last(), "none.tsv"));
	assert_int_equal(f.index_asked, 1);
	ss_error_clear();
	ss_history_free(h);
}

static void test_index_load(void **state)
{
	ss_run_history_options o = SS_RUN_HISTORY_OPTIONS_INIT;
	struct heard heard = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&heard);
	ss_history *h = NULL;
	char missing[4096];
	int usage = -1;

	(void)state;
	assert_int_equal(ss_history_new(&h), 0);
	o.rp = &rp;
	/* --release-tags reads a repository's tags */
	assert_int_equal(ss_run_history_check("v*", NULL), SS_EINVALID);
	assert_int_equal(ss_run_history_check("v*", "repo"), 0);
	o.release_tags = "v*";
	assert_int_equal(ss_run_history_index_load(h, &usage, &o), SS_EINVALID);
	assert_int_equal(usage, 1);
	assert_string_equal(ss_error_last(), "--release-tags needs --repo PATH");
	/* no index asked for: nothing added, nothing said */
	o.release_tags = NULL;
	o.no_index = 1;
	snprintf(missing, sizeof(missing), "%s/none.db", test_scratch);
	o.db = missing;
	assert_int_equal(ss_run_history_index_load(h, &usage, &o), 0);
	assert_int_equal(usage, 0);
	assert_int_equal(ss_history_count(h), 0);
	/* a --db that does not exist: the index's error, not a usage one */
	o.no_index = 0;
	assert_true(ss_run_history_index_load(h, &usage, &o) < 0);
	assert_int_equal(usage, 0);
	assert_string_equal(heard.text, "");
	ss_error_clear();
	ss_history_free(h);
}

static void test_fill(void **state)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_run_history_fill_options o = SS_RUN_HISTORY_FILL_OPTIONS_INIT;
	struct heard heard = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&heard);
	ss_history *h = NULL;
	char path[4096];
	const char *specs[1] = { path };
	int usage = -1;
	FILE *fp;

	(void)state;
	snprintf(path, sizeof(path), "%s/fill.mbox", test_scratch);
	assert_non_null(fp = fopen(path, "w"));
	assert_true(fputs(mails, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
	o.load.no_index = 1;
	o.load.rp = &rp;
	o.specs = specs;
	o.nspecs = 1;
	o.opts = &so;
	/* a usage error first: no source read */
	o.load.release_tags = "v*";
	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_run_history_fill(h, &usage, &o), SS_EINVALID);
	assert_int_equal(usage, 1);
	assert_int_equal(ss_history_count(h), 0);
	assert_true(ss_run_history_fill_cb(h, &o) < 0);
	assert_string_equal(heard.text, "");
	ss_error_clear();
	/* the --history mbox read as the ranked sources are */
	o.load.release_tags = NULL;
	assert_int_equal(ss_run_history_fill(h, &usage, &o), 0);
	assert_int_equal(usage, 0);
	assert_int_equal(ss_history_count(h), 1);
	assert_non_null(strstr(heard.text, "W 1 commits of the history could not be read"));
	ss_history_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prime),
		cmocka_unit_test(test_prime_read),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_index_load),
		cmocka_unit_test(test_fill),
	};

	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
