/*
 * test_run_index_build.c - "stablesel index" without the CLI
 * (run/index_build.h): a first build of tests/gitrepo.sh's repository
 * into a folder it makes, what the layout found said as notes, a second
 * run that finds nothing new and keeps the layout; a repository that
 * cannot be read refused before any file or folder is made.
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>
#include <sys/stat.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_refused),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	git_libgit2_shutdown();
	return rc;
}
