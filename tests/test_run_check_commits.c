/*
 * test_run_check_commits.c - "check" as run steps, without the CLI
 * (run/check_commits.h): a branch of tests/gitrepo.sh opened on the run's
 * repository, what it carries read from the index for --prereqs, the
 * commits of a range checked, counted and handed on one by one; a
 * branch that is not there refused; a writer that stops the reading.
 */
#include "testutil.h"
#include "testrun.h"

#include "run/check_commits.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	return test_run("sh '%s' '%s/repo' && ./stablesel index --no-progress --repo '%s/repo' "
			"2>/dev/null", test_gitrepo_script(), test_scratch, test_scratch);
}

struct rows {
	size_t n, stop_at;
	char first[41];
};

static int row(const ss_commit *c, const ss_check_result *res, void *ud)
{
	struct rows *r = ud;

	(void)res;
	if (!r->n++)
		snprintf(r->first, sizeof(r->first), "%s", c->id);
	return r->stop_at && r->n >= r->stop_at;
}

static void test_check(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_run_check_options o = SS_RUN_CHECK_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	const char *revs[1] = { "v1.0..main" };
	ss_run_check_counts n = { 0 };
	struct rows r = { 0, 0, "" };
	ss_run_check *rc = NULL;
	ss_run *run = NULL;
	char repo[4096];

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	so.repo = repo;
	so.revs = revs;
	so.nrevs = 1;
	assert_int_equal(ss_run_new(&run), 0);
	o.onto_repo = repo;
	o.co.rev = "stable-1.y";
	o.co.prereqs = 1;
	o.run = run;
	o.rp = &rp;
	assert_int_equal(ss_run_check_new(&rc, &o), 0);
	assert_string_equal(ss_check_branch_name(ss_run_check_branch(rc)), "stable-1.y");
	assert_int_equal(ss_run_check_commits(rc, &n, repo, NULL, 0, &so, row, &r), 0);
	assert_int_equal(n.total, 10);
	assert_int_equal(r.n, 10);
	assert_int_equal(n.apply[SS_APPLY_CLEAN] + n.apply[SS_APPLY_CONFLICT] +
			 n.apply[SS_APPLY_MISSING] + n.apply[SS_APPLY_EXISTS] +
			 n.apply[SS_APPLY_UNKNOWN], 10);
	/* the leak fix is carried as a backport (read from the index) */
	assert_int_equal(n.carried, 1);
	assert_string_equal(h.text, "");
	/* a writer that stops: the reading ends there, without an error */
	memset(&n, 0, sizeof(n));
	r.n = 0;
	r.stop_at = 3;
	assert_int_equal(ss_run_check_commits(rc, &n, repo, NULL, 0, &so, row, &r), 0);
	assert_int_equal(r.n, 3);
	ss_run_check_free(rc);
	ss_run_check_free(NULL);
	/* no such branch */
	o.co.rev = "stable-9.y";
	assert_true(ss_run_check_new(&rc, &o) < 0);
	assert_null(rc);
	ss_run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, setup, test_scratch_teardown);
}
