/*
 * test_run_index_build.c - "stablesel index" without the CLI
 * (run/index_build.h): a first build of tests/gitrepo.sh's repository
 * into a folder it makes, what the layout found said as notes, a second
 * run that finds nothing new and keeps the layout; a repository that
 * cannot be read refused before any file or folder is made; the stored
 * features filled with the history walked and primed as a run reads it
 * (run/history_load.h: ss_run_history_walk, ss_run_history_index_prime)
 * or through a front end's reader, whose error comes back as it is.
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>
#include <sys/stat.h>

#include "run/history_load.h"
#include "run/index_build.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	return test_run("sh '%s' '%s/repo' >/dev/null", test_gitrepo_script(), test_scratch);
}

static void test_build(void **state)
{
	ss_index_options opts = SS_INDEX_OPTIONS_INIT;
	ss_run_index_build_options o = SS_RUN_INDEX_BUILD_OPTIONS_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	char repo[4096], db[4096];
	ss_index_stats stats;
	char *path = NULL;
	struct stat sb;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(db, sizeof(db), "%s/made/ix.db", test_scratch);
	opts.repo = repo;
	o.opts = &opts;
	o.db = db;
	o.no_features = 1;
	/* the folder of the file is made; the layout is said once recorded */
	assert_int_equal(ss_run_index_build(&stats, &path, &o, &rp), 0);
	assert_string_equal(path, db);
	assert_true(stats.commits >= 12);
	assert_true(stats.backports >= 1);
	assert_int_equal(stat(db, &sb), 0);
	assert_non_null(strstr(h.text, "N "));
	assert_null(opts.layout);
	free(path);
	/* again: nothing new */
	test_heard_reset(&h);
	assert_int_equal(ss_run_index_build(&stats, &path, &o, &rp), 0);
	assert_int_equal(stats.commits, 0);
	free(path);
}

static void test_refused(void **state)
{
	ss_index_options opts = SS_INDEX_OPTIONS_INIT;
	ss_run_index_build_options o = SS_RUN_INDEX_BUILD_OPTIONS_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	char repo[4096], db[4096], dir[4096];
	ss_index_stats stats;
	char *path = NULL;
	struct stat sb;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/none", test_scratch);
	snprintf(dir, sizeof(dir), "%s/never", test_scratch);
	snprintf(db, sizeof(db), "%s/never/ix.db", test_scratch);
	opts.repo = repo;
	o.opts = &opts;
	o.db = db;
	o.no_features = 1;
	assert_true(ss_run_index_build(&stats, &path, &o, &rp) < 0);
	assert_true(*ss_error_last());
	assert_true(stat(db, &sb) < 0);
	assert_true(stat(dir, &sb) < 0);
	assert_int_equal(h.len, 0);
	free(path);
}

static int count(ss_commit *c, void *data)
{
	(*(size_t *)data)++;
	ss_commit_free(c);
	return 0;
}

/* The run's own reading of the history: no reader given. */
static void test_features(void **state)
{
	ss_index_options opts = SS_INDEX_OPTIONS_INIT;
	ss_run_index_build_options o = SS_RUN_INDEX_BUILD_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	char repo[4096], db[4096];
	ss_index_stats stats;
	ss_history *hist;
	char *path = NULL;
	size_t n = 0;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(db, sizeof(db), "%s/feat/ix.db", test_scratch);
	opts.repo = repo;
	o.opts = &opts;
	o.db = db;
	assert_int_equal(ss_run_index_build(&stats, &path, &o, &rp), 0);
	assert_non_null(strstr(h.text, "kept the features of "));
	free(path);
	/* the walk and the priming alone */
	assert_int_equal(ss_run_history_walk(repo, &so, count, &n, NULL), 0);
	assert_true(n >= 12);
	assert_int_equal(ss_history_new(&hist), 0);
	test_heard_reset(&h);
	assert_int_equal(ss_run_history_index_prime(hist, db, repo, &rp), 0);
	assert_true(ss_history_count(hist) >= 12);
	assert_int_equal(h.len, 0);
	ss_history_free(hist);
	/* no repository: nothing to walk; one that cannot be read */
	assert_int_equal(ss_run_history_walk(NULL, &so, count, &n, NULL), SS_EINVALID);
	assert_string_equal(ss_error_last(), SS_RUN_NO_COMMITS);
	snprintf(repo, sizeof(repo), "%s/none", test_scratch);
	assert_true(ss_run_history_walk(repo, &so, count, &n, NULL) < 0);
	assert_true(*ss_error_last());
}

static int refuse_walk(const char *repo, const ss_source_options *so, ss_run_commit_fn fn,
		       void *data, void *ud)
{
	(void)repo;
	(void)so;
	(void)fn;
	(void)data;
	(void)ud;
	return ss_error_code(SS_EINVALID, "walk refused");
}

static int empty_history(ss_history *h, const char *db, const char *repo, void *ud)
{
	(void)h;
	(void)db;
	(void)repo;
	(void)ud;
	return 0;
}

/* A front end's reader: its failure is the build's, its message kept. */
static void test_reader_fails(void **state)
{
	static const ss_run_history_reader hr = { refuse_walk, empty_history, NULL };
	ss_index_options opts = SS_INDEX_OPTIONS_INIT;
	ss_run_index_build_options o = SS_RUN_INDEX_BUILD_OPTIONS_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	char repo[4096], db[4096];
	ss_index_stats stats;
	char *path = NULL;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(db, sizeof(db), "%s/refused/ix.db", test_scratch);
	opts.repo = repo;
	o.opts = &opts;
	o.db = db;
	o.hr = &hr;
	assert_int_equal(ss_run_index_build(&stats, &path, &o, &rp), SS_EINVALID);
	assert_string_equal(ss_error_last(), "walk refused");
	assert_null(strstr(h.text, "kept the features of "));
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_reader_fails),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	git_libgit2_shutdown();
	return rc;
}
