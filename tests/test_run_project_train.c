/*
 * test_run_project_train.c - the project model trained from examples
 * read, without the CLI (run/project_train.h): only the settled ones
 * count (the newest SS_PROJECT_SETTLE_DAYS left out), too few is no
 * model and says why in the built-in model's words, enough is a linear
 * model that scores the fixes above the features; a hashed feature is
 * named from a commit read again from its repository.
 */
#include "testutil.h"
#include "testcommit.h"
#include "testrun.h"

#include <inttypes.h>

#include "models/dataset.h"
#include "source/source.h"
#include "run/project_rules.h"
#include "run/project_train.h"
#include "util/error.h"

#define DAY 86400LL

static const char *const fix_lines[] = { " int x;", "-\tp->next = NULL;", "+\tif (p)",
					 "+\t\tp->next = NULL;", NULL };
static const char *const new_lines[] = { "+int bar_new(void)", "+{", "+\treturn 0;", "+}", NULL };

/* ndays commits, one a day, every fourth from day `from` on a fix the
 * stable tree took. */
static ss_dataset *days_from(size_t ndays, size_t from)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_dataset *d = NULL;

	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	assert_int_equal(ss_model_prepare_dataset(SS_MODEL_LINEAR, d), 0);
	for (size_t i = 0; i < ndays; i++) {
		int fix = i % 4 == 0 && i >= from;
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

/* ndays commits, one a day, every fourth a fix the stable tree took. */
static ss_dataset *days(size_t ndays)
{
	return days_from(ndays, 0);
}

/*
 * A young stable branch: every backport is of the newest settled
 * commits, the share a model is checked on, none older.  The built-in
 * model then, with the reason (it died with "training data holds only
 * negative commits" before; found at the kernel's size by bench/index.sh
 * part e2e).
 */
static void test_nothing_before_validation(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_dataset *d = days_from(400, 268);
	ss_model *m = (ss_model *)1;
	char why[256] = "";
	size_t n, npos;

	(void)state;
	/* 400 days, the newest 90 unsettled: 310 settled, fixes from day 268
	 * on (11 of them), all in the newest 15% */
	assert_int_equal(ss_project_model_fit(&m, &n, &npos, why, sizeof(why), d,
					      1600000000LL + 399 * DAY, NULL, NULL, NULL, &rp), 0);
	assert_null(m);
	assert_true(npos >= SS_PROJECT_MIN_POSITIVE);
	assert_non_null(strstr(why, "nothing to learn from yet"));
	ss_dataset_free(d);
	/* the same with one fix older than that slice: it learns */
	d = days_from(400, 100);
	assert_int_equal(ss_project_model_fit(&m, &n, &npos, why, sizeof(why), d,
					      1600000000LL + 399 * DAY, NULL, NULL, NULL, &rp), 0);
	assert_non_null(m);
	ss_model_free(m);
	ss_dataset_free(d);
}

/* The newest max examples kept, oldest first, the older ones counted. */
static void test_newest(void **state)
{
	size_t idx[10], n = 10, i;

	(void)state;
	for (i = 0; i < n; i++)
		idx[i] = 100 + i;
	assert_int_equal(ss_project_model_newest(idx, &n, 20), 0);
	assert_int_equal(n, 10);
	assert_int_equal(idx[0], 100);
	assert_int_equal(ss_project_model_newest(idx, &n, 10), 0);
	assert_int_equal(n, 10);
	assert_int_equal(ss_project_model_newest(idx, &n, 4), 6);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++)
		assert_int_equal(idx[i], 106 + i);
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

/*
 * A hashed feature (a trailer's key) has no name in the rows a model
 * learns from; ss_project_model_name_hashed() reads the newest commit
 * that has it again from the repository (tests/gitrepo.sh) and names it;
 * without a repository, or for a slot no commit has, "hash:N" stays.
 */
static void test_name_hashed(void **state)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_strbuf names = SS_STRBUF_INIT, name = SS_STRBUF_INIT;
	char repo[4096], spec[4200];
	const ss_featurizer *f;
	ss_dataset *d = NULL;
	ss_source *src = NULL;
	ss_commit *c = NULL;
	ss_model *m = NULL;
	size_t idx[64], n = 0, i;
	uint32_t slot = UINT32_MAX, empty = UINT32_MAX, hbase, mask;
	const char *p;

	(void)state;
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_int_equal(test_run("sh '%s' '%s' >/dev/null", test_gitrepo_script(), repo), 0);
	snprintf(spec, sizeof(spec), "git:%s", repo);
	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	assert_int_equal(ss_model_prepare_dataset(SS_MODEL_LINEAR, d), 0);
	assert_int_equal(ss_source_open(&src, spec, &so), 0);
	while (ss_source_next(&c, src) == 0 && c) {
		assert_true(n < sizeof(idx) / sizeof(idx[0]));
		idx[n] = n;
		assert_int_equal(ss_dataset_add(d, c, strstr(c->subject, "fix") != NULL, 0), 0);
		n++;
		ss_commit_free(c);
		c = NULL;
	}
	ss_source_free(src);
	assert_true(n >= 8);
	o.C = 1.0;
	o.threads = 1;
	o.val_share = 0.3;
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, d, idx, n, &o), 0);
	f = ss_model_featurizer(m);
	hbase = (uint32_t)(ss_featurizer_dim(f) - ((size_t)1 << f->opts.hash_bits));
	mask = ((uint32_t)1 << f->opts.hash_bits) - 1;
	/* the slot of the "Cc:" key, from a commit extracted with names */
	for (i = 0; i < n && !strstr(ss_dataset_subject(d, i), "fix leak on error path"); i++)
		;
	assert_true(i < n);
	assert_int_equal(ss_source_read_alone(&c, repo, ss_dataset_example(d, i)->id), 0);
	assert_non_null(c);
	{
		ss_svec x;

		ss_svec_init(&x);
		assert_int_equal(ss_featurizer_vector(&x, f, c, NULL, &names), 0);
		ss_svec_release(&x);
	}
	/* recorded names are "%08x\t<name>\n" lines (features/fvec.c) */
	for (p = names.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		unsigned long h = strtoul(p, NULL, 16);
		const char *tab = strchr(p, '\t');

		if (tab && !strncmp(tab + 1, "k:cc\n", 5))
			slot = hbase + ((uint32_t)h & mask);
	}
	assert_true(slot != UINT32_MAX);
	/* a slot no example has */
	{
		uint8_t *used = calloc((size_t)mask + 1, 1);
		uint32_t *remap = NULL;
		ss_svec v;

		assert_non_null(used);
		ss_svec_init(&v);
		assert_int_equal(ss_dataset_remap(&remap, f, d), 0);
		for (i = 0; i < n; i++) {
			assert_int_equal(ss_dataset_vector(&v, f, remap, d, i), 0);
			for (size_t k = 0; k < v.n; k++)
				if (v.idx[k] >= hbase)
					used[v.idx[k] - hbase] = 1;
		}
		for (i = 0; i <= mask && empty == UINT32_MAX; i++)
			if (!used[i])
				empty = hbase + (uint32_t)i;
		assert_true(used[slot - hbase]);
		free(remap);
		free(used);
		ss_svec_release(&v);
	}
	assert_true(empty != UINT32_MAX);

	ss_strbuf_reset(&name);
	assert_int_equal(ss_featurizer_name_ix(f, slot, NULL, &name), 0);
	assert_true(!strncmp(name.buf, "hash:", 5));
	/* no repository: the number stays */
	ss_project_model_name_hashed(&name, m, slot, d, idx, n, NULL, NULL);
	assert_true(!strncmp(name.buf, "hash:", 5));
	/* read again: named (with any other name of the slot, '|'-joined) */
	ss_project_model_name_hashed(&name, m, slot, d, idx, n, repo, NULL);
	print_message("slot %" PRIu32 ": %s\n", slot, name.buf);
	assert_non_null(strstr(name.buf, "k:cc"));
	assert_null(strstr(name.buf, "hash:"));
	/* no example has the slot: unchanged */
	ss_strbuf_reset(&name);
	assert_int_equal(ss_featurizer_name_ix(f, empty, NULL, &name), 0);
	assert_true(!strncmp(name.buf, "hash:", 5));
	ss_project_model_name_hashed(&name, m, empty, d, idx, n, repo, NULL);
	assert_true(!strncmp(name.buf, "hash:", 5));
	ss_commit_free(c);
	ss_model_free(m);
	ss_dataset_free(d);
	ss_strbuf_release(&names);
	ss_strbuf_release(&name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newest),
		cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_nothing_before_validation),
		cmocka_unit_test(test_trained),
		cmocka_unit_test_setup_teardown(test_name_hashed, test_scratch_setup,
						test_scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
