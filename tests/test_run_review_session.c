/*
 * test_run_review_session.c - a review session without the terminal or
 * a ranking (run/review_session.h): its start (who decides, the index
 * written and lent to the run, where a start is kept), a decision
 * recorded for every session branch and undone, the branches a session
 * takes (named, a kept start's, the index's), and a kept start's
 * candidates left out once decided or found stale when a row hidden as
 * decided is undecided again, and a kept start reused whole (its
 * branches, its candidates undecided now) or not at all.
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>

#include "run/review_session.h"
#include "util/error.h"

/* The repository, and two of its commits: a fix and another. */
static char repo[4096], id[41], other[41];

static int setup(void **state)
{
	char *full;

	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_COMMITTER_NAME", "Rita Reviewer", 1);
	setenv("GIT_COMMITTER_EMAIL", "rita@example.org", 1);
	if (test_run("sh '%s' '%s/repo' >/dev/null && ./stablesel index --no-progress "
		     "--repo '%s/repo' 2>/dev/null", test_gitrepo_script(), test_scratch,
		     test_scratch))
		return -1;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	full = test_run_output("git -C '%s' rev-parse leak-fix main~1", repo);
	if (!full)
		return -1;
	snprintf(id, sizeof(id), "%.40s", full);
	snprintf(other, sizeof(other), "%.40s", full + 41);
	free(full);
	return 0;
}

static void test_session(void **state)
{
	char *path = NULL, *who = NULL, *cache = NULL;
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

/* An item whose every string is set, as a ranking's are. */
static ss_review_item full_item(const char *id, const char *subject)
{
	return (ss_review_item){ id, subject, "A U Thor <a@example.org>", "2024-01-02", 0.75f,
				 "likely", "stable-2.y: applies", "", 0, "fixes a leak",
				 "fix: +1", "the message", "the diff" };
}

static void test_reuse(void **state)
{
	char *path = NULL, *who = NULL, *cache = NULL;
	char *one[] = { "stable-2.y" };
	const char *branches[] = { "stable-2.y" }, *named[] = { "no-such-branch" }, *hidden[1];
	ss_review_item items[2];
	ss_review_cache_data d;
	ss_review_cache_key key, another;
	ss_run_review_session s, by = { NULL, NULL, one, 1, NULL };
	ss_run_review_reused kept;
	ss_index *ix = NULL;
	ss_run *run = NULL;
	int64_t now = (int64_t)time(NULL);

	(void)state;
	assert_int_equal(ss_run_new(&run), 0);
	assert_int_equal(ss_run_review_open(&ix, &path, &who, &cache, NULL, repo, run), 0);
	s = (ss_run_review_session){ ix, path, NULL, 0, who };
	by.ix = ix;
	by.path = path;
	by.who = who;
	assert_int_equal(ss_run_review_key(key, ix, path, NULL, "review\n"), 0);
	assert_int_equal(ss_run_review_key(another, ix, path, NULL, "review\n--fresh\n"), 0);
	assert_string_not_equal(key, another);

	/* nothing kept yet: nothing to reuse, nothing held */
	unlink(cache);
	assert_int_equal(ss_run_review_reuse(&kept, &s, cache, key, NULL, 0, repo, now, NULL), 0);
	assert_null(kept.items);
	assert_null(s.branches);
	assert_int_equal(s.nb, 0);
	ss_run_review_reused_release(&kept);

	/* a start kept with two candidates, the first decided since */
	items[0] = full_item(id, "net: foo: fix leak on error path");
	items[1] = full_item(other, "the other one");
	d = (ss_review_cache_data){ items, 2, branches, 1, NULL, 0, 1700000000 };
	assert_int_equal(ss_review_cache_save(cache, key, &d), 0);
	assert_int_equal(ss_run_review_decide(&items[0], SS_DECISION_REJECTED, "no", NULL, &by), 0);
	assert_int_equal(ss_run_review_reuse(&kept, &s, cache, key, NULL, 0, repo, now, NULL), 0);
	assert_non_null(kept.items);
	assert_int_equal(kept.n, 1);
	assert_int_equal(kept.nkept, 2);
	assert_int_equal(kept.made, 1700000000);
	assert_string_equal(kept.items[0].id, other);
	assert_string_equal(kept.items[0].subject, "the other one");
	assert_string_equal(kept.items[0].diff, "the diff");
	/* the session's branches as the kept start had them */
	assert_int_equal(s.nb, 1);
	assert_ptr_equal(s.branches, kept.branches);
	assert_string_equal(s.branches[0], "stable-2.y");
	ss_run_review_reused_release(&kept);
	assert_null(kept.items);
	assert_null(kept.cache);

	/* kept under another key: ranked again */
	assert_int_equal(ss_run_review_reuse(&kept, &s, cache, another, NULL, 0, repo, now, NULL),
			 0);
	assert_null(kept.items);
	assert_null(s.branches);

	/* --branch naming no branch: refused with the branches' code */
	assert_true(ss_run_review_reuse(&kept, &s, cache, key, named, 1, repo, now, NULL) < 0);
	assert_non_null(strstr(ss_error_last(), "no-such-branch"));
	assert_null(kept.items);
	assert_null(s.branches);
	assert_int_equal(s.nb, 0);

	/* a row hidden as decided that is undecided now: stale */
	hidden[0] = other;
	d.hidden = hidden;
	d.nhidden = 1;
	assert_int_equal(ss_review_cache_save(cache, key, &d), 0);
	assert_int_equal(ss_run_review_reuse(&kept, &s, cache, key, NULL, 0, repo, now, NULL), 0);
	assert_null(kept.items);
	assert_null(s.branches);
	assert_int_equal(s.nb, 0);

	assert_int_equal(ss_run_review_undo(&items[0], &by), 0);
	unlink(cache);
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
		cmocka_unit_test(test_reuse),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	git_libgit2_shutdown();
	return rc;
}
