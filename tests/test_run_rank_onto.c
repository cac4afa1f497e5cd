/*
 * test_run_rank_onto.c - a ranking's --onto branches as run steps, without
 * the CLI (run/rank_onto.h): without --onto, the index's stable branches
 * opened with their identities and the queue's branch; --queue-branch
 * chosen among them; a bad --verdicts, an unknown --queue-branch and a
 * --queue-branch no --onto is each a usage error; the replay's cut that
 * leaves a --stable tree and a run without branches alone; the missing
 * index said once a run (run/run.h: ss_run_index_read), each time
 * without a run; the whole ranking as one call (run/rank_run.h:
 * ss_run_rank): the index's tree, its branches, the built-in model for
 * a history too small, the rows listed, and no commits to read, or
 * --release-tags without a repository, a usage error.
 */
#include "testutil.h"
#include "testrun.h"

#include "run/rank_onto.h"
#include "run/rank_run.h"
#include "run/rank_stream.h"
#include "run/commits.h"
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

/* A front end's own reader of the stored features' history (the
 * commands use the run's, hr NULL): the walk read here, the history
 * primed from nothing. */
static int hr_walk(const char *repo, const ss_source_options *so, ss_run_commit_fn fn, void *data,
		   void *ud)
{
	size_t n;

	(void)ud;
	return ss_run_read_sources(&n, repo, NULL, 0, so, fn, data, NULL, NULL);
}

static int hr_history(ss_history *h, const char *db, const char *repo, void *ud)
{
	(void)h;
	(void)db;
	(void)repo;
	(void)ud;
	return 0;
}

static const ss_run_history_reader hr = { hr_walk, hr_history, NULL };

static void test_rank_run(void **state)
{
	struct heard h = { "", 0 }, hm = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h), mrp = TEST_RUN_REPORT(&hm);
	ss_run_rank_options o = SS_RUN_RANK_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_ranker_options ko = SS_RANKER_OPTIONS_INIT;
	ss_rank_select sel = SS_RANK_SELECT_INIT;
	const char *revs[1] = { "v1.0..main" };
	ss_run_rank_state st;
	char repo[4096];
	ss_run *run = NULL;
	int usage = -1;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	so.repo = repo;
	so.revs = revs;
	so.nrevs = 1;
	assert_int_equal(ss_run_new(&run), 0);
	o.repo = repo;
	o.opts = &so;
	o.ko = &ko;
	o.so = &sel;
	o.onto.verdicts = "applies";
	o.hr = &hr;
	o.run = run;
	o.rp = &rp;
	o.model_rp = &mrp;
	memset(&st, 0, sizeof(st));
	assert_int_equal(ss_run_rank(&st, &usage, &o), 0);
	assert_int_equal(usage, 0);
	/* the index's tree and branches, the built-in model (too few
	 * settled commits to train one), said in the model's words */
	assert_non_null(st.label);
	assert_non_null(st.index_path);
	assert_ptr_equal(ko.stable, st.label);
	assert_int_equal(st.on.n, 2);
	assert_int_equal(st.builtin, 1);
	assert_non_null(st.m);
	assert_non_null(strstr(hm.text, "using the built-in model, which "));
	assert_non_null(st.r);
	assert_true(ss_run_rank_rows(st.r, 0) > 0);
	ss_run_rank_state_clear(&st);
	assert_null(st.r);
	/* nothing to read: the user's mistake, once the model is chosen */
	o.repo = NULL;
	so.repo = NULL;
	o.onto.verdicts = NULL;
	assert_true(ss_run_rank(&st, &usage, &o) < 0);
	assert_int_equal(usage, 1);
	assert_non_null(strstr(ss_error_last(), "no commits to read"));
	ss_run_rank_state_clear(&st);
	/* --release-tags needs the repository, before anything is read */
	o.release_tags = "v*";
	assert_true(ss_run_rank(&st, &usage, &o) < 0);
	assert_int_equal(usage, 1);
	assert_string_equal(ss_error_last(), "--release-tags needs --repo PATH");
	assert_null(st.m);
	ss_run_rank_state_clear(&st);
	ss_run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_run),
		cmocka_unit_test(test_index_read),
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, setup, test_scratch_teardown);
}
