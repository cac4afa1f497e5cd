/*
 * test_run_steps.c - the steps the moves of issue 37 took out of cmd/,
 * without the CLI: train's and eval's commits read into a dataset and
 * split by time (run/split_read.h), rank's stream of history and ranked
 * commits through the ranking (run/rank_stream.h), and the commits
 * explain names found and explained and the model it scores with
 * (run/explain_commits.h), each on the small repository of
 * tests/gitrepo.sh.
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>
#include <gmime/gmime.h>

#include "run/explain_commits.h"
#include "run/rank_stream.h"
#include "run/split_read.h"
#include "util/error.h"

static char repo[4096];

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	return test_run("sh '%s' '%s' >/dev/null", test_gitrepo_script(), repo);
}

/* The front end's history: how often it was asked, what it returns. */
struct filling {
	int asked, rc;
};

static int fill(ss_history *h, void *ud)
{
	struct filling *f = ud;

	(void)h;
	f->asked++;
	return f->rc ? ss_error_code(f->rc, "no history here") : 0;
}

static void test_split(void **state)
{
	static const ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	static const ss_model_kind kinds[] = { SS_MODEL_KEYWORD };
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_run_split_options o = SS_RUN_SPLIT_OPTIONS_INIT;
	const char *revs[] = { "main~4..main" };
	struct filling f = { 0, 0 };
	ss_run_split sp;

	(void)state;
	so.revs = revs;
	so.nrevs = 1;
	o.fo = &fo;
	o.kinds = kinds;
	o.nkinds = 1;
	o.history = fill;
	o.history_ud = &f;
	o.repo = repo;
	o.opts = &so;
	/* no split: every commit trains, the history filled once first */
	assert_int_equal(ss_run_split_read(&sp, &o), 0);
	assert_int_equal(f.asked, 1);
	assert_int_equal(sp.kept, 4);
	assert_int_equal(sp.unlisted, 0);
	assert_int_equal(sp.ntrain, 4);
	assert_int_equal(sp.ntest, 0);
	assert_null(sp.test);
	ss_run_split_free(&sp);
	/* a date after every commit: all train, none test */
	o.split = INT64_MAX / 2;
	assert_int_equal(ss_run_split_read(&sp, &o), 0);
	assert_int_equal(sp.ntrain, 4);
	assert_int_equal(sp.ntest, 0);
	ss_run_split_free(&sp);
	/* the same commits as the test part: each part has them */
	o.split = 0;
	o.test = (const char *const[]){ repo };
	o.ntest = 1;
	assert_int_equal(ss_run_split_read(&sp, &o), 0);
	assert_int_equal(sp.kept, 8);
	assert_int_equal(sp.ntrain, 4);
	assert_int_equal(sp.ntest, 4);
	ss_run_split_free(&sp);
	/* the front end's history fails: its error, nothing read */
	f.rc = SS_EINVALID;
	assert_int_equal(ss_run_split_read(&sp, &o), SS_EINVALID);
	assert_string_equal(ss_error_last(), "no history here");
	assert_null(sp.d);
	ss_error_clear();
}

static void test_stream(void **state)
{
	ss_ranker_options ko = SS_RANKER_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_run_rank_stream_options o = SS_RUN_RANK_STREAM_INIT;
	const char *revs[] = { "main~3..main" }, *hist[] = { repo }, *hrevs[] = { "main~3" };
	struct heard heard = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&heard);
	ss_replay *replay = NULL;
	ss_ranking *r = NULL;
	ss_history *h = NULL;
	ss_model *m = NULL;

	(void)state;
	assert_int_equal(ss_model_load_default(&m), 0);
	assert_int_equal(ss_history_new(&h), 0);
	so.revs = revs;
	so.nrevs = 1;
	o.repo = repo;
	o.opts = &so;
	o.history = hist;
	o.nhistory = 1;
	o.hrevs = hrevs;
	o.nhrevs = 1;
	o.rp = &rp;
	/* the history first (history only), then the ranked range */
	assert_int_equal(ss_run_rank_stream(&r, h, m, &ko, &replay, &o), 0);
	assert_int_equal(ss_ranking_count(r), 3);
	assert_true(ss_history_count(h) > 3);
	assert_string_equal(heard.text, "");
	ss_ranking_free(r);
	ss_history_free(h);
	/* the built-in model without a threshold: its share, said */
	assert_int_equal(ss_history_new(&h), 0);
	o.builtin = 1;
	o.nhistory = 0;
	assert_int_equal(ss_run_rank_stream(&r, h, m, &ko, &replay, &o), 0);
	assert_int_equal(ko.explain_all, 1);
	assert_non_null(strstr(heard.text, "N the built-in model proposes its share"));
	/* every row shown until a selection, the proposed ones among them */
	assert_int_equal(ss_run_rank_rows(r, 0), 3);
	assert_true(ss_run_rank_rows(r, 1) <= 3);
	ss_ranking_free(r);
	ss_history_free(h);
	ss_model_free(m);
}

/* What explain prints, kept: the ids explained. */
static void explained(const ss_run_explained *e, void *ud)
{
	ss_strbuf *ids = ud;

	assert_true(e->nwhy <= 3 && !e->patchnet);
	ss_strbuf_addf(ids, "%s", e->c->id);
}

static void test_explain(void **state)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_run_explain_options o = SS_RUN_EXPLAIN_OPTIONS_INIT;
	ss_strbuf ids = SS_STRBUF_INIT;
	char *tip = test_run_output("git -C '%s' rev-parse main~1", repo), *want[2];
	const char *revs[] = { "main~3..main" };
	char mainline[256];
	int found[2] = { 0, 0 };
	ss_history *h = NULL;
	ss_model *m = NULL;

	(void)state;
	tip[strcspn(tip, "\n")] = '\0';
	want[0] = tip;
	want[1] = "deadbeef";
	assert_int_equal(ss_model_load_default(&m), 0);
	assert_int_equal(ss_history_new(&h), 0);
	o.m = m;
	o.want = (const char *const *)want;
	o.nwant = 1;
	o.top = 3;
	o.repo = repo;
	o.opts = &so;
	o.explained = explained;
	o.ud = &ids;
	/* from the repository without revisions: each named commit alone
	 * (one the repository lacks cannot be read: the reading's error) */
	if (ss_run_explain_commits(found, h, &o))
		fail_msg("%s", ss_error_last());
	assert_int_equal(found[0], 1);
	assert_string_equal(ids.buf, tip);
	assert_int_equal(ss_history_count(h), 1);
	o.nwant = 2;
	assert_true(ss_run_explain_commits(found, h, &o) < 0);
	assert_non_null(strstr(ss_error_last(), "deadbeef"));
	ss_error_clear();
	ss_history_free(h);
	/* a range streams through: the named one found, the other not */
	assert_int_equal(ss_history_new(&h), 0);
	found[0] = 0;
	ss_strbuf_reset(&ids);
	so.revs = revs;
	so.nrevs = 1;
	assert_int_equal(ss_run_explain_commits(found, h, &o), 0);
	assert_int_equal(found[0], 1);
	assert_int_equal(found[1], 0);
	assert_string_equal(ids.buf, tip);
	assert_int_equal(ss_history_count(h), 3);
	ss_history_free(h);
	/* no index: the mainline is HEAD */
	assert_int_equal(ss_run_mainline_name(mainline, sizeof(mainline), NULL, NULL, repo, 0), 0);
	assert_string_equal(mainline, "HEAD");
	ss_strbuf_release(&ids);
	ss_model_free(m);
	free(tip);
}

/* The model explain scores with: a repository with no project model
 * kept gives the built-in one (kept NULL), a --model file that does not
 * exist an error, a --project-model that does not exist one too. */
static void test_explain_model(void **state)
{
	char missing[4096];
	ss_model *m = NULL;
	char *kept = (char *)"x";

	(void)state;
	snprintf(missing, sizeof(missing), "%s/none.model", test_scratch);
	assert_int_equal(ss_run_explain_model(&m, &kept, NULL, NULL, repo, NULL, NULL), 0);
	assert_non_null(m);
	assert_null(kept);
	ss_model_free(m);
	assert_true(ss_run_explain_model(&m, &kept, missing, NULL, repo, NULL, NULL) < 0);
	assert_null(kept);
	ss_error_clear();
	assert_true(ss_run_explain_model(&m, &kept, NULL, missing, repo, NULL, NULL) < 0);
	assert_null(m);
	assert_null(kept);
	ss_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_explain_model),
	};
	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
