/*
 * test_run_rank_onto.c - a ranking's --onto branches as run steps, without
 * the CLI (run/rank_onto.h): without --onto, the index's stable branches
 * opened with their identities and the queue's branch; --queue-branch
 * chosen among them; a bad --verdicts, an unknown --queue-branch and a
 * --queue-branch no --onto is each a usage error; the replay's cut that
 * leaves a --stable tree and a run without branches alone; the missing
 * index said once a run (run/run.h: ss_run_index_read), each time
 * without a run.
 */
#include "testutil.h"
#include "testrun.h"

#include "run/rank_onto.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	/* tests/gitrepo.sh: main with the branches stable-1.y and stable-2.y,
	 * its own index; other a copy without one */
	return test_run("sh '%s' '%s/repo' && cp -r '%s/repo' '%s/other' && "
			"./stablesel index --no-progress --repo '%s/repo' 2>/dev/null",
			test_gitrepo_script(), test_scratch, test_scratch, test_scratch,
			test_scratch);
}

static void test_index_read(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	char other[4096], repo[4096], want[16384];
	ss_index *ix = (ss_index *)1;
	char *path = NULL;
	ss_run *run = NULL;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(other, sizeof(other), "%s/other", test_scratch);
	snprintf(want, sizeof(want), "N no project index for '%s': history features see only the "
		 "commits read, stable branches are read from git (build it with 'stablesel index "
		 "--repo %s')\n", other, other);
	assert_int_equal(ss_run_new(&run), 0);
	/* the repository's own: nothing said */
	assert_int_equal(ss_run_index_read(&ix, &path, run, NULL, repo, 0, &rp), 0);
	assert_non_null(ix);
	assert_string_equal(h.text, "");
	ss_index_free(ix);
	free(path);
	/* none: said once for the run, however many steps ask */
	assert_int_equal(ss_run_index_read(&ix, &path, run, NULL, other, 0, &rp), 0);
	assert_null(ix);
	assert_null(path);
	assert_int_equal(ss_run_index_read(&ix, &path, run, NULL, other, 0, &rp), 0);
	assert_string_equal(h.text, want);
	ss_run_free(run);
	/* without a run: each time */
	test_heard_reset(&h);
	assert_int_equal(ss_run_index_read(&ix, &path, NULL, NULL, other, 0, &rp), 0);
	assert_int_equal(ss_run_index_read(&ix, &path, NULL, NULL, other, 0, &rp), 0);
	assert_int_equal(h.len, 2 * strlen(want));
}

static ss_run_onto_options options(ss_run *run, const char *repo, const ss_run_report *rp)
{
	ss_run_onto_options o = SS_RUN_ONTO_OPTIONS_INIT;

	o.repo = repo;
	o.verdicts = "applies";
	o.run = run;
	o.rp = rp;
	return o;
}

static void test_open(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_run_onto_set s;
	ss_run_onto_options o;
	char repo[4096];
	ss_run *run = NULL;
	int usage = -1;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_int_equal(ss_run_new(&run), 0);
	o = options(run, repo, &rp);
	/* no --onto, --verdicts: the index's branches, newest first */
	memset(&s, 0, sizeof(s));
	assert_int_equal(ss_run_onto_open(&s, &usage, &o), 0);
	assert_int_equal(usage, 0);
	assert_int_equal(s.n, 2);
	assert_non_null(s.br);
	assert_string_equal(s.onto[0], "stable-2.y");
	assert_string_equal(s.ident[0], "stable-2.y");
	assert_string_equal(s.ident[1], "stable-1.y");
	assert_int_equal(s.queue_b, 0);
	assert_null(s.queue_ident);
	ss_run_onto_set_clear(&s);
	assert_null(s.br);
	/* --queue-branch names the second */
	o.queue_branch = "stable-1.y";
	assert_int_equal(ss_run_onto_open(&s, &usage, &o), 0);
	assert_int_equal(s.queue_b, 1);
	assert_string_equal(s.queue_ident, "stable-1.y");
	ss_run_onto_set_clear(&s);
	/* one the index does not know: the user's mistake */
	o.queue_branch = "stable-9.y";
	assert_true(ss_run_onto_open(&s, &usage, &o) < 0);
	assert_int_equal(usage, 1);
	ss_run_onto_set_clear(&s);
	/* a known branch that is no --onto: the user's mistake too */
	s.onto[0] = "stable-2.y";
	s.n = 1;
	o.queue_branch = "stable-1.y";
	assert_true(ss_run_onto_open(&s, &usage, &o) < 0);
	assert_int_equal(usage, 1);
	assert_non_null(strstr(ss_error_last(), "stable-1.y"));
	ss_run_onto_set_clear(&s);
	/* a verdict no one knows, before anything is opened */
	o.queue_branch = NULL;
	o.verdicts = "applies,bogus";
	assert_true(ss_run_onto_open(&s, &usage, &o) < 0);
	assert_int_equal(usage, 1);
	assert_null(s.br);
	ss_run_onto_set_clear(&s);
	ss_run_free(run);
}

static void test_cut(void **state)
{
	ss_run_onto_options o = options(NULL, "/nonexistent", NULL);
	ss_backports *label = NULL, *was;
	const char *given[1] = { "stable-1.y" };

	(void)state;
	/* no label, nothing to cut */
	assert_int_equal(ss_run_onto_cut(&label, given, 1, &o), 0);
	assert_null(label);
	/* a --stable tree is the user's; no branch named, nothing either:
	 * the repository is not even looked at */
	assert_int_equal(ss_backports_new(&label, NULL), 0);
	was = label;
	o.stable = "stable.mbox";
	assert_int_equal(ss_run_onto_cut(&label, given, 1, &o), 0);
	o.stable = NULL;
	assert_int_equal(ss_run_onto_cut(&label, given, 0, &o), 0);
	assert_ptr_equal(label, was);
	ss_backports_free(label);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_read),
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, setup, test_scratch_teardown);
}
