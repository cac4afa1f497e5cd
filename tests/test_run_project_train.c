/*
 * test_run_project_train.c - the project model trained from examples
 * read, without the CLI (run/project_train.h): only the settled ones
 * count (the newest SS_PROJECT_SETTLE_DAYS left out), too few is no
 * model and says why in the built-in model's words, enough is a linear
 * model that scores the fixes above the features.
 */
#include "testutil.h"
#include "testcommit.h"
#include "testrun.h"

#include "models/dataset.h"
#include "run/project_model.h"
#include "run/project_train.h"
#include "util/error.h"

#define DAY 86400LL

static const char *const fix_lines[] = { " int x;", "-\tp->next = NULL;", "+\tif (p)",
					 "+\t\tp->next = NULL;", NULL };
static const char *const new_lines[] = { "+int bar_new(void)", "+{", "+\treturn 0;", "+}", NULL };

/* ndays commits, one a day, every fourth a fix the stable tree took. */
static ss_dataset *days(size_t ndays)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_dataset *d = NULL;

	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	assert_int_equal(ss_model_prepare_dataset(SS_MODEL_LINEAR, d), 0);
	for (size_t i = 0; i < ndays; i++) {
		int fix = i % 4 == 0;
		tc_file f = fix ? (tc_file){ "net/core.c", "void core_rx(void)", fix_lines, SS_FILE_MODIFIED }
				: (tc_file){ "lib/bar.c", NULL, new_lines, SS_FILE_ADDED };
		char id[41];
		ss_commit *c;

		snprintf(id, sizeof(id), "%040zx", i + 1);
		c = tc_commit(id, "dev@example.org", 1600000000LL + (long long)i * DAY,
			      fix ? "net: fix a crash in rx\n\nA NULL pointer.\n"
				  : "lib: add bar\n\nNew helpers.\n", &f, 1);
		assert_non_null(c);
		assert_int_equal(ss_dataset_add(d, c, fix, 0), 0);
		ss_commit_free(c);
	}
	return d;
}

static void test_too_few(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_dataset *d = days(150);
	ss_model *m = (ss_model *)1;
	char why[256];
	size_t n, npos;

	(void)state;
	/* 150 days, the newest 90 unsettled: 60 or so settled, too few */
	assert_int_equal(ss_project_model_fit(&m, &n, &npos, why, sizeof(why), d,
					      1600000000LL + 149 * DAY, NULL, NULL, NULL, &rp), 0);
	assert_null(m);
	assert_true(n >= 59 && n <= 61);
	assert_true(npos >= 14 && npos <= 16);
	{
		char want[256];

		snprintf(want, sizeof(want), "too few settled commits to train a model for this project "
			 "(%zu, %zu of them in the stable tree; at least %d and %d)", n, npos,
			 SS_PROJECT_MIN_COMMITS, SS_PROJECT_MIN_POSITIVE);
		assert_string_equal(why, want);
	}
	/* the ranked commits' newest time counts too: 250 days on, all 150
	 * have settled, enough to learn from */
	assert_int_equal(ss_project_model_fit(&m, &n, &npos, why, sizeof(why), d,
					      1600000000LL + 400 * DAY, NULL, NULL, NULL, &rp), 0);
	assert_non_null(m);
	assert_true(n >= SS_PROJECT_MIN_COMMITS && n <= 150);
	ss_model_free(m);
	ss_dataset_free(d);
}

static void test_trained(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_dataset *d = days(400);
	ss_model *m = NULL;
	char why[256] = "";
	size_t n, npos;
	float pfix, pnew;
	ss_commit *fix, *feat;
	tc_file ff = { "net/core.c", "void core_rx(void)", fix_lines, SS_FILE_MODIFIED };
	tc_file fn = { "lib/bar.c", NULL, new_lines, SS_FILE_ADDED };

	(void)state;
	assert_int_equal(ss_project_model_fit(&m, &n, &npos, why, sizeof(why), d,
					      1600000000LL + 399 * DAY, NULL, NULL, NULL, &rp), 0);
	assert_non_null(m);
	assert_string_equal(why, "");
	/* at most the 310 or so settled, a quarter of them fixes */
	assert_true(n >= SS_PROJECT_MIN_COMMITS && n <= 311);
	assert_true(npos * 4 >= n - 1 && npos * 4 <= n + 4);
	fix = tc_commit("f", "dev@example.org", 1600000000LL + 500 * DAY,
			"net: fix a crash in rx\n\nA NULL pointer.\n", &ff, 1);
	feat = tc_commit("g", "dev@example.org", 1600000000LL + 500 * DAY,
			 "lib: add bar\n\nNew helpers.\n", &fn, 1);
	assert_int_equal(ss_model_score_commit(&pfix, m, fix, ss_dataset_history(d)), 0);
	assert_int_equal(ss_model_score_commit(&pnew, m, feat, ss_dataset_history(d)), 0);
	assert_true(pfix > pnew);
	ss_commit_free(fix);
	ss_commit_free(feat);
	ss_model_free(m);
	ss_dataset_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_trained),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
