/*
 * test_run_decisions_open.c - what the review's commands share before a
 * decision, without the CLI (run/decisions_open.h): the index opened to
 * write only when it holds commits and only as its repository's; the
 * branches decided for named once each under the index's name, a name no
 * branch has told apart (SS_ENOTFOUND) from the index's own; a commit
 * named by prefix or by a name of the repository; and an operand of
 * "index" that is a repository (run/index_build.h).
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>

#include "run/decisions_open.h"
#include "run/index_build.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	/* tests/gitrepo.sh with its own project index, and an empty one */
	return test_run("sh '%s' '%s/repo' >/dev/null && ./stablesel index --no-progress "
			"--repo '%s/repo' 2>/dev/null && : >'%s/empty.db'", test_gitrepo_script(),
			test_scratch, test_scratch, test_scratch);
}

static void test_open(void **state)
{
	char repo[4096], db[4096];
	ss_index *ix = NULL;
	char *path = NULL;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	/* the repository's own, to write */
	assert_int_equal(ss_run_decisions_open(&ix, &path, NULL, repo, 1, NULL), 0);
	assert_non_null(ix);
	assert_non_null(strstr(path, "/stablesel/index.db"));
	ss_index_free(ix);
	free(path);
	/* a file that holds no commits is none to decide on */
	snprintf(db, sizeof(db), "%s/empty.db", test_scratch);
	assert_true(ss_run_decisions_open(&ix, &path, db, NULL, 1, NULL) < 0);
	assert_null(ix);
	assert_non_null(strstr(ss_error_last(), "holds no commits: run 'stablesel index' first"));
	free(path);
}

static void test_names(void **state)
{
	const char *named[] = { "stable-1.y", "refs/heads/stable-1.y", "stabel-1.y" };
	char *out[SS_RANK_MAX_BRANCHES], repo[4096], id[41], prefix[11], *full;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_index *ix = NULL;
	char *path = NULL;
	size_t n = 0;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_int_equal(ss_run_decisions_open(&ix, &path, NULL, repo, 0, NULL), 0);
	/* two spellings of one branch decide once */
	assert_int_equal(ss_run_decision_branches(out, &n, SS_RANK_MAX_BRANCHES, ix, path, repo,
						  named, 2, &rp), 0);
	assert_int_equal(n, 1);
	assert_string_equal(out[0], "stable-1.y");
	free(out[0]);
	/* a name no branch has: the user's mistake, the nearest named */
	assert_int_equal(ss_run_decision_branches(out, &n, SS_RANK_MAX_BRANCHES, ix, path, repo,
						  &named[2], 1, &rp), SS_ENOTFOUND);
	assert_int_equal(n, 0);
	assert_non_null(strstr(ss_error_last(), "stable-1.y"));
	/* none named: the index's stable branches */
	assert_int_equal(ss_run_decision_branches(out, &n, SS_RANK_MAX_BRANCHES, ix, path, repo,
						  NULL, 0, &rp), 0);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(strstr(out[i], "stable-"));
		free(out[i]);
	}
	assert_int_equal(h.len, 0);
	/* a commit by a prefix the index knows, by a name of the repository */
	full = test_run_output("git -C '%s' rev-parse leak-fix", repo);
	assert_non_null(full);
	snprintf(prefix, sizeof(prefix), "%.10s", full);
	assert_int_equal(ss_run_decision_commit(id, ix, NULL, prefix), 0);
	assert_memory_equal(id, full, 40);
	assert_int_equal(ss_run_decision_commit(id, ix, repo, "leak-fix"), 0);
	assert_memory_equal(id, full, 40);
	assert_int_equal(ss_run_decision_commit(id, ix, NULL, "leak-fix"), SS_ENOTFOUND);
	assert_non_null(strstr(ss_error_last(), "unknown commit 'leak-fix': not in the index"));
	free(full);
	ss_index_free(ix);
	free(path);
}

static void test_is_repository(void **state)
{
	char repo[4096];

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_true(ss_run_index_is_repository(repo));
	assert_true(ss_run_index_is_repository(test_scratch) == 0);
	snprintf(repo, sizeof(repo), "%s/empty.db", test_scratch);
	assert_true(ss_run_index_is_repository(repo) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_is_repository),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	git_libgit2_shutdown();
	return rc;
}
