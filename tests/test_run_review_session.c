/*
 * test_run_review_session.c - a review session without the terminal or
 * a ranking (run/review_session.h): its start (who decides, the index
 * written and lent to the run, where a start is kept), a decision
 * recorded for every session branch and undone, the branches a session
 * takes (named, a kept start's, the index's), and a kept start's
 * candidates left out once decided or found stale when a row hidden as
 * decided is undecided again.
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>

#include "run/review_session.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_COMMITTER_NAME", "Rita Reviewer", 1);
	setenv("GIT_COMMITTER_EMAIL", "rita@example.org", 1);
	return test_run("sh '%s' '%s/repo' >/dev/null && ./stablesel index --no-progress "
			"--repo '%s/repo' 2>/dev/null", test_gitrepo_script(), test_scratch,
			test_scratch);
}

static void test_session(void **state)
{
	char repo[4096], id[41], other[41], *full, *path = NULL, *who = NULL, *cache = NULL;
	char *branches[SS_RANK_MAX_BRANCHES];
	const char *named[] = { "refs/heads/stable-2.y" };
	const char *hidden[1], *kept[] = { "stable-2.y" };
	ss_review_item items[2];
	ss_review_cache_data d;
	ss_run_review_session s;
	ss_run_review_branch_source from = { named, 1, NULL, NULL, NULL, 0 };
	ss_review_item *left = NULL;
	ss_index *ix = NULL;
	ss_run *run = NULL;
	size_t nb = 0, n = 0;
	int decided = -1;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	full = test_run_output("git -C '%s' rev-parse leak-fix main~1", repo);
	assert_non_null(full);
	snprintf(id, sizeof(id), "%.40s", full);
	snprintf(other, sizeof(other), "%.40s", full + 41);
	free(full);
	assert_int_equal(ss_run_new(&run), 0);
	assert_int_equal(ss_run_review_open(&ix, &path, &who, &cache, NULL, repo, run), 0);
	assert_string_equal(who, "Rita Reviewer <rita@example.org>");
	assert_non_null(strstr(cache, "/stablesel/review-ranking"));
	/* the run's steps read the index through the writer */
	assert_int_equal(ss_run_opened_indexes(run), 0);
	/* a named branch under the index's name */
	assert_int_equal(ss_run_review_branches(branches, &nb, SS_RANK_MAX_BRANCHES, ix, path, repo,
						&from, NULL), 0);
	assert_int_equal(nb, 1);
	assert_string_equal(branches[0], "stable-2.y");
	s = (ss_run_review_session){ ix, path, branches, nb, who };
	memset(items, 0, sizeof(items));
	items[0].id = id;
	items[1].id = other;
	/* decided for the session's branch, then undone */
	assert_int_equal(ss_run_review_decide(&items[0], SS_DECISION_REJECTED, "no", NULL, &s), 0);
	assert_int_equal(ss_review_cache_decided(&decided, ix, id, (const char *const *)branches, nb,
						 (int64_t)time(NULL)), 0);
	assert_int_equal(decided, 1);
	/* a kept start: the decided candidate left out */
	d = (ss_review_cache_data){ items, 2, (const char *const *)branches, nb, NULL, 0, 0 };
	assert_int_equal(ss_run_review_undecided(&left, &n, &d, &s, (int64_t)time(NULL)), 0);
	assert_non_null(left);
	assert_int_equal(n, 1);
	assert_string_equal(left[0].id, other);
	free(left);
	assert_int_equal(ss_run_review_undo(&items[0], &s), 0);
	assert_int_equal(ss_review_cache_decided(&decided, ix, id, (const char *const *)branches, nb,
						 (int64_t)time(NULL)), 0);
	assert_int_equal(decided, 0);
	/* a row hidden as decided that is undecided now: stale */
	hidden[0] = id;
	d.hidden = hidden;
	d.nhidden = 1;
	assert_int_equal(ss_run_review_undecided(&left, &n, &d, &s, (int64_t)time(NULL)), 0);
	assert_null(left);
	free(branches[0]);
	/* no --branch: a kept start's branches as they were kept */
	d.branches = kept;
	from = (ss_run_review_branch_source){ NULL, 0, &d, NULL, NULL, 0 };
	assert_int_equal(ss_run_review_branches(branches, &nb, SS_RANK_MAX_BRANCHES, ix, path, repo,
						&from, NULL), 0);
	assert_int_equal(nb, 1);
	assert_string_equal(branches[0], "stable-2.y");
	free(branches[0]);
	ss_index_free(ix);
	ss_run_free(run);
	free(path);
	free(who);
	free(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	git_libgit2_shutdown();
	return rc;
}
