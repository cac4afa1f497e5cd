/*
 * test_run_branches.c - the run floor's choice of stable branches without
 * the CLI (run/branches.h): a branch named twice is one column, said once
 * a repeat; without --onto the index's stable branches, newest first, cut
 * at the maximum and said as a note; the options that cannot go together
 * (--verdicts without a branch, branches without a repository); which
 * commits of a batch are history only (run/feed.h).
 */
#include "testutil.h"
#include "testrun.h"

#include "index/index.h"
#include "run/branches.h"
#include "run/feed.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	/* tests/gitrepo.sh: main with the branches stable-1.y and stable-2.y */
	if (test_run("sh '%s' '%s/repo' && ./stablesel index --no-progress --repo '%s/repo' "
		     "--db '%s/ix.db' 2>/dev/null", test_gitrepo_script(), test_scratch, test_scratch, test_scratch))
		return -1;
	/* and one that takes no branch as stable */
	return test_run("./stablesel index --no-progress --repo '%s/repo' --db '%s/nostable.db' "
			"--branches 'none-*' 2>/dev/null", test_scratch, test_scratch);
}

static void test_dedupe(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	const char *onto[] = { "21.11", "20.11", "21.11", "19.11", "20.11", "21.11" };
	size_t n = 6;

	(void)state;
	ss_run_onto_dedupe(onto, &n, &rp);
	assert_int_equal(n, 3);
	assert_string_equal(onto[0], "21.11");
	assert_string_equal(onto[1], "20.11");
	assert_string_equal(onto[2], "19.11");
	assert_string_equal(h.text, "W --onto 21.11 given twice: one column\n"
			    "W --onto 20.11 given twice: one column\n"
			    "W --onto 21.11 given twice: one column\n");
	/* distinct names: nothing said, nothing moved; no report: silent */
	test_heard_reset(&h);
	ss_run_onto_dedupe(onto, &n, &rp);
	assert_int_equal(n, 3);
	assert_string_equal(h.text, "");
	onto[2] = "20.11";
	ss_run_onto_dedupe(onto, &n, NULL);
	assert_int_equal(n, 2);
	assert_string_equal(onto[1], "20.11");
}

static ss_index *open_db(const char *name, char *path, size_t size)
{
	ss_index *ix = NULL;

	snprintf(path, size, "%s/%s", test_scratch, name);
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	return ix;
}

static void test_from_index(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	char *owned[SS_RANK_MAX_BRANCHES], path[4096], want[8192];
	const char *onto[SS_RANK_MAX_BRANCHES];
	size_t n = 99;
	ss_index *ix;

	(void)state;
	ix = open_db("ix.db", path, sizeof(path));
	assert_int_equal(ss_run_onto_from_index(owned, onto, &n, SS_RANK_MAX_BRANCHES, ix, path, &rp), 0);
	/* the newest version first */
	assert_int_equal(n, 2);
	assert_string_equal(onto[0], "stable-2.y");
	assert_string_equal(onto[1], "stable-1.y");
	assert_ptr_equal(onto[0], owned[0]);
	snprintf(want, sizeof(want), "N stable branches from index '%s': stable-2.y stable-1.y\n", path);
	assert_string_equal(h.text, want);
	free(owned[0]);
	free(owned[1]);
	/* at most 1: the newest, and the note says there were more */
	test_heard_reset(&h);
	assert_int_equal(ss_run_onto_from_index(owned, onto, &n, 1, ix, path, &rp), 0);
	assert_int_equal(n, 1);
	assert_string_equal(onto[0], "stable-2.y");
	snprintf(want, sizeof(want), "N stable branches from index '%s': stable-2.y (the newest ones: "
		 "at most 16; name others with --onto)\n", path);
	assert_string_equal(h.text, want);
	free(owned[0]);
	ss_index_free(ix);
	/* an index whose branches are all left out: none, said */
	ix = open_db("nostable.db", path, sizeof(path));
	test_heard_reset(&h);
	assert_int_equal(ss_run_onto_from_index(owned, onto, &n, SS_RANK_MAX_BRANCHES, ix, path, &rp), 0);
	assert_int_equal(n, 0);
	snprintf(want, sizeof(want), "N index '%s' knows no stable branch\n", path);
	assert_string_equal(h.text, want);
	ss_index_free(ix);
}

static void test_check(void **state)
{
	(void)state;
	assert_int_equal(ss_run_onto_check(0, NULL, NULL), 0);
	assert_int_equal(ss_run_onto_check(2, "repo", "yes"), 0);
	assert_int_equal(ss_run_onto_check(0, "repo", "yes"), SS_EINVALID);
	assert_non_null(strstr(ss_error_last(), "--verdicts needs a stable branch"));
	assert_int_equal(ss_run_onto_check(1, NULL, NULL), SS_EINVALID);
	assert_non_null(strstr(ss_error_last(), "--onto needs the branches' repository"));
}

static void test_history_only(void **state)
{
	ss_commit c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.author.time = 1000;
	assert_false(ss_run_history_only(&c, 0));
	assert_false(ss_run_history_only(&c, 1000));
	assert_true(ss_run_history_only(&c, 1001));
	assert_true(ss_run_history_only(&c, INT64_MAX));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dedupe),
		cmocka_unit_test(test_from_index),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_history_only),
	};

	return cmocka_run_group_tests(tests, setup, test_scratch_teardown);
}
