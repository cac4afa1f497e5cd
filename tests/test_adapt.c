/*
 * test_adapt.c - a linear model adapted to one project (models/model.h,
 * ss_linear_adapt): the rule guard keeps the ranking from falling below
 * the project's own marker trailer when the rest of the history misleads
 * the model; a prior's weights are mixed in when they help on the
 * project's validation slice and left out when they mislead; the corpus
 * file is read strictly (run/corpus_rows.h); leaving a project out
 * (eval/lopo.h) counts its test part right.
 */
#include "testutil.h"
#include "testcommit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/lopo.h"
#include "models/dataset.h"
#include "models/metrics.h"
#include "models/model.h"
#include "run/corpus_rows.h"
#include "util/error.h"

#define DAY 86400LL

static const char *const fix_lines[] = { " int x;", "-\tp->next = NULL;", "+\tif (p)",
					 "+\t\tp->next = NULL;", NULL };

static uint32_t rng_state;
/* which commits of the last drifting_project() carry the tracker */
static size_t has_tracker[4000];

static uint32_t rnd(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

static int chance(double p)
{
	return (double)(rnd() % 100000) < p * 100000.0;
}

/*
 * A project of n commits, one a day, a quarter of which reached stable.
 * Its maintainers' rule changed at two thirds of the history: before,
 * what they backported mostly said "zebra" (80% of positives, 5% of
 * negatives) and a few carried a "Tracker:" link (30%, 3%); since, every
 * backport carries the link (95%, 3%) and "zebra" is on a third of the
 * negatives and no positive.  Other words are noise.  The history
 * teaches a model the old rule; the newest commits follow the new one.
 */
static ss_dataset *drifting_project(size_t n, uint32_t seed)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_dataset *d = NULL;
	static const char *const noise[] = { "alpha", "beta", "gamma", "delta", "omega", "kappa" };

	rng_state = seed;
	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	assert_int_equal(ss_model_prepare_dataset(SS_MODEL_LINEAR, d), 0);
	for (size_t i = 0; i < n; i++) {
		int pos = chance(0.25), old = i < 2 * n / 3;
		int tracker = pos ? chance(old ? 0.3 : 0.95) : chance(0.03);
		int zebra = old ? (pos ? chance(0.8) : chance(0.05)) : (!pos && chance(0.33));

		assert_true(i < sizeof(has_tracker) / sizeof(*has_tracker));
		has_tracker[i] = (size_t)tracker;
		tc_file f = { "src/core.c", "void core(void)", fix_lines, SS_FILE_MODIFIED };
		char id[41], msg[512];
		ss_commit *c;

		snprintf(id, sizeof(id), "%040zx", i + 1);
		snprintf(msg, sizeof(msg), "core: change %zu\n\nThe %s %s %s path%s.\n%s", i,
			 noise[rnd() % 6], noise[rnd() % 6], zebra ? "zebra" : "plain",
			 zebra ? " zebra" : "",
			 tracker ? "\nTracker: https://bugs.example.org/show_bug.cgi?id=42\n" : "");
		c = tc_commit(id, "dev@example.org", 1600000000LL + (long long)i * DAY, msg, &f, 1);
		assert_non_null(c);
		assert_int_equal(ss_dataset_add(d, c, pos, 0), 0);
		ss_commit_free(c);
	}
	return d;
}

/* The dataset's examples [from, to). */
static size_t *range(size_t from, size_t to)
{
	size_t *idx = malloc((to - from) * sizeof(*idx));

	assert_non_null(idx);
	for (size_t i = from; i < to; i++)
		idx[i - from] = i;
	return idx;
}

/* F1 and AP of m on idx[n]. */
static void measure(double *ap, double *f1, const ss_model *m, const ss_dataset *d,
		    const size_t *idx, size_t n)
{
	float *s = malloc(n * sizeof(*s));
	uint8_t *y = malloc(n);
	ss_metrics mt;

	assert_non_null(s);
	assert_non_null(y);
	for (size_t i = 0; i < n; i++)
		y[i] = ss_dataset_example(d, idx[i])->label;
	assert_int_equal(ss_model_score(s, m, d, idx, n), 0);
	assert_int_equal(ss_metrics_compute(&mt, s, y, n, ss_model_threshold(m)), 0);
	*ap = mt.pr_auc;
	*f1 = mt.f1;
	free(s);
	free(y);
}

/* The tracker rule alone on idx[n]: its F1 as a yes/no. */
static double tracker_f1(const ss_dataset *d, const size_t *idx, size_t n, const size_t *tr)
{
	size_t tp = 0, sel = 0, pos = 0;

	for (size_t i = 0; i < n; i++) {
		int y = ss_dataset_example(d, idx[i])->label, t = (int)tr[idx[i]];

		tp += y && t;
		sel += t;
		pos += y;
	}
	return 2.0 * (double)tp / (double)(sel + pos);
}

/*
 * Without the guard the model trained on the drifted history picks the
 * newest commits worse than the tracker alone does; with it, the model
 * raises the tracker (said in the adaptation) and is not below it on
 * the test part (within 0.03 F1: the threshold is chosen on validation),
 * its ranking no worse.
 */
static void test_rule_guard(void **state)
{
	const size_t n = 3000, ntr = 2500;
	ss_dataset *d = drifting_project(n, 7);
	size_t *tr = range(0, ntr), *te = range(ntr, n);
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_linear_adapt ad;
	ss_model *plain = NULL, *guarded = NULL;
	double ap0, f10, ap1, f11, rule;

	(void)state;
	o.val_share = 0.25;
	assert_int_equal(ss_model_train(&plain, SS_MODEL_LINEAR, d, tr, ntr, &o), 0);
	o.rule_guard = 1;
	o.adapt = &ad;
	assert_int_equal(ss_model_train(&guarded, SS_MODEL_LINEAR, d, tr, ntr, &o), 0);
	rule = tracker_f1(d, te, n - ntr, has_tracker);
	measure(&ap0, &f10, plain, d, te, n - ntr);
	measure(&ap1, &f11, guarded, d, te, n - ntr);
	if (getenv("TEST_ADAPT_DEBUG"))
		fprintf(stderr, "plain AP %.3f F1 %.3f, guarded AP %.3f F1 %.3f, rule F1 %.3f; "
			"rule %ld boost %.3f val AP model %.3f rule %.3f final %.3f\n", ap0, f10, ap1,
			f11, rule, ad.rule, (double)ad.boost, ad.ap_model, ad.ap_rule, ad.ap_final);
	/* the premise: the history misleads a plain model */
	assert_true(f10 < rule - 0.05);
	/* the guard found a rule that beats the model and raised it */
	assert_true(ad.rule >= 0);
	assert_true(ad.boost > 0.0f);
	assert_true(ad.ap_rule > ad.ap_model);
	assert_true(ad.ap_final >= ad.ap_rule - 1e-9);
	assert_non_null(strstr(ss_model_info_of(guarded)->params, " rule="));
	assert_true(f11 >= rule - 0.03);
	assert_true(f11 > f10 + 0.05);
	assert_true(ap1 >= ap0 - 0.01);
	ss_model_free(plain);
	ss_model_free(guarded);
	free(tr);
	free(te);
	ss_dataset_free(d);
}

/*
 * A project whose own older history is too short to tell "crash" from
 * noise: a prior trained on a larger project where "crash" marks what
 * reached stable is mixed in (alpha > 0) and helps; a prior that learnt
 * the opposite is left out (alpha 0).  The adapted model shares the
 * prior's feature space.
 */
static ss_dataset *crash_project(size_t n, uint32_t seed, int crash_means_stable, int64_t t0)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_dataset *d = NULL;

	rng_state = seed;
	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	assert_int_equal(ss_model_prepare_dataset(SS_MODEL_LINEAR, d), 0);
	for (size_t i = 0; i < n; i++) {
		int pos = chance(0.3);
		int crash = crash_means_stable ? (pos ? chance(0.8) : chance(0.1))
					       : (pos ? chance(0.1) : chance(0.8));
		tc_file f = { "src/io.c", "void io(void)", fix_lines, SS_FILE_MODIFIED };
		char id[41], msg[256];
		ss_commit *c;

		snprintf(id, sizeof(id), "%08x%032zx", seed, i + 1);
		snprintf(msg, sizeof(msg), "io: update %zu\n\nThis %s the %s path.\n", i,
			 crash ? "avoids a crash in" : "tidies", chance(0.5) ? "read" : "write");
		c = tc_commit(id, "dev@example.org", t0 + (long long)i * DAY, msg, &f, 1);
		assert_non_null(c);
		assert_int_equal(ss_dataset_add(d, c, pos, 0), 0);
		ss_commit_free(c);
	}
	return d;
}

static void test_prior(void **state)
{
	ss_dataset *big = crash_project(1500, 11, 1, 1500000000LL);
	ss_dataset *bad = crash_project(1500, 12, 0, 1500000000LL);
	ss_dataset *small = crash_project(60, 13, 1, 1600000000LL);
	size_t *all = range(0, 1500), *sidx = range(0, 60);
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_model *good_prior = NULL, *bad_prior = NULL, *m = NULL;
	ss_linear_adapt ad;

	(void)state;
	assert_int_equal(ss_model_train(&good_prior, SS_MODEL_LINEAR, big, all, 1500, &o), 0);
	assert_int_equal(ss_model_train(&bad_prior, SS_MODEL_LINEAR, bad, all, 1500, &o), 0);
	o.val_share = 0.5;
	o.adapt = &ad;
	o.prior = good_prior;
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, small, sidx, 60, &o), 0);
	assert_true(ad.alpha > 0.0);
	assert_true(ad.ap_model >= ad.ap_own);
	assert_int_equal(ss_model_nweights(m), ss_model_nweights(good_prior));
	assert_int_equal(ss_featurizer_dim(ss_model_featurizer(m)),
			 ss_featurizer_dim(ss_model_featurizer(good_prior)));
	ss_model_free(m);
	o.prior = bad_prior;
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, small, sidx, 60, &o), 0);
	assert_true(ad.alpha == 0.0);
	assert_true(ad.ap_prior < ad.ap_own);
	ss_model_free(m);
	/* a prior of another kind is refused, not mixed */
	{
		ss_model *kw = NULL;
		ss_train_options k = SS_TRAIN_OPTIONS_INIT;

		assert_int_equal(ss_model_train(&kw, SS_MODEL_KEYWORD, small, sidx, 60, &k), 0);
		o.prior = kw;
		o.adapt = NULL;
		assert_true(ss_model_train(&m, SS_MODEL_LINEAR, small, sidx, 60, &o) < 0);
		assert_null(m);
		ss_error_clear();
		ss_model_free(kw);
	}
	ss_model_free(good_prior);
	ss_model_free(bad_prior);
	free(all);
	free(sidx);
	ss_dataset_free(big);
	ss_dataset_free(bad);
	ss_dataset_free(small);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#define SHA "0123456789abcdef0123456789abcdef01234567"

static void test_corpus_file(void **state)
{
	static const struct {
		const char *line, *says;
	} bad[] = {
		{ "a\thttps://x\t" SHA "\t2026-01-01\t2017-01-01\n", "expected 6 or 7" },
		{ "a\thttps://x\t0123\t2026-01-01\t2017-01-01\t2025-01-01\n", "40-hex" },
		{ "a\thttps://x\t" SHA "\t2026-01-01\t2017-02-30\t2025-01-01\n", "YYYY-MM-DD" },
		{ "a\thttps://x\t" SHA "\t2026-01-01\t2025-01-01\t2017-01-01\n", "after since" },
		{ "a/b\thttps://x\t" SHA "\t2026-01-01\t2017-01-01\t2025-01-01\n", "name" },
		{ "a\thttps://x\t" SHA "\t2026-01-01\t2017-01-01\t2025-01-01\n"
		  "a\thttps://y\t" SHA "\t2026-01-01\t2017-01-01\t2025-01-01\n", "listed twice" },
		{ "# nothing\n", "lists no project" },
	};
	char path[4200];
	ss_corpus c;
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/corpus.tsv", test_scratch);
	write_file(path, "# a comment\n\n"
		   "one\thttps://example.org/one\t" SHA "\t2026-08-01\t2017-07-01\t2025-07-01\n"
		   "two\thttps://example.org/two\t" SHA "\t2026-08-02\t2018-01-01\t2025-06-01\n");
	assert_int_equal(ss_corpus_load(&c, path), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.p[1].name, "two");
	assert_string_equal(c.p[1].commit, SHA);
	assert_true(c.p[1].since < c.p[1].until);
	assert_ptr_equal(ss_corpus_find(&c, "one"), &c.p[0]);
	assert_null(ss_corpus_find(&c, "three"));
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		write_file(path, bad[i].line);
		assert_true(ss_corpus_load(&c, path) < 0);
		assert_non_null(strstr(ss_error_last(), bad[i].says));
		assert_non_null(strstr(ss_error_last(), path));
		ss_error_clear();
	}
}

/* Two projects in one dataset: holding the second out tests its newest
 * quarter, whose positives are counted from the labels. */
static void test_lopo(void **state)
{
	ss_dataset *d = drifting_project(800, 21);
	size_t *a = range(0, 400), *b = range(400, 800), i, pos = 0;
	ss_lopo_project p[2] = { { "a", a, 400, 1 }, { "b", b, 400, 1 } };
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_lopo_row r;

	(void)state;
	assert_int_equal(ss_lopo_run(&r, d, p, 2, 1, 0.25, &o), 0);
	assert_int_equal(r.ntest, 100);
	assert_int_equal(r.ntrain, 300);
	for (i = 700; i < 800; i++)
		pos += ss_dataset_example(d, i)->label;
	assert_int_equal(r.npos_test, pos);
	assert_true(r.base > 0.1 && r.base < 0.4);
	assert_true(r.general.ap > 0.0 && r.general.ap <= 1.0);
	assert_true(r.adapted.ap > 0.0 && r.adapted.ap <= 1.0);
	assert_true(r.near.ap > 0.0 && r.near.ap <= 1.0);
	assert_true(r.rule_f1 > 0.0 && r.rule[0]);
	/* the general model's test scores are kept for the unseen threshold */
	assert_non_null(r.gscore);
	assert_true(r.best_t > 0.0f && r.best_t < 1.0f);
	ss_lopo_row_release(&r);
	assert_null(r.gscore);
	free(a);
	free(b);
	ss_dataset_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_guard),
		cmocka_unit_test(test_prior),
		cmocka_unit_test_setup_teardown(test_corpus_file, test_scratch_setup,
						test_scratch_teardown),
		cmocka_unit_test(test_lopo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
