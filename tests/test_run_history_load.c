/*
 * test_run_history_load.c - the past a run's history starts with,
 * without the CLI (run/history_load.h): the --history sources' commits
 * added through the front end's walk, one that holds none a warning;
 * a bad releases file failing before the index is asked for; without
 * releases, repository or index, nothing added and nothing said.
 */
#include "testutil.h"
#include "testrun.h"

#include "run/history_load.h"
#include "util/error.h"

/* The front end's side: "two" holds two commits, "none" none; how many
 * times the index was asked for. */
struct front {
	int index_asked;
};

static ss_index *no_index(char **path, void *ud)
{
	struct front *f = ud;

	f->index_asked++;
	*path = NULL;
	return NULL;
}

static size_t walk(const char *spec, ss_run_commit_fn fn, void *data, void *ud)
{
	size_t i, n = strcmp(spec, "two") ? 0 : 2;

	(void)ud;
	for (i = 0; i < n; i++) {
		ss_commit *c = ss_commit_new();

		assert_non_null(c);
		snprintf(c->id, sizeof(c->id), "%040zu", i + 1);
		c->author.time = c->committer.time = 1600000000 + (int64_t)i * 86400;
		assert_int_equal(ss_commit_set_message(c, "fix: a thing\n", 13), 0);
		if (fn(c, data))
			return i + 1;
	}
	return n;
}

static void test_prime(void **state)
{
	const char *specs[] = { "two", "none" };
	struct front f = { 0 };
	ss_run_history_source src = { no_index, walk, &f };
	struct heard heard = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&heard);
	ss_history *h = NULL;

	(void)state;
	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_run_history_prime(h, specs, 2, &src, &rp), 0);
	assert_int_equal(ss_history_count(h), 2);
	assert_string_equal(heard.text, "W --history none holds no commits\n");
	assert_int_equal(f.index_asked, 0);
	ss_history_free(h);
}

static void test_load(void **state)
{
	struct front f = { 0 };
	ss_run_history_source src = { no_index, walk, &f };
	struct heard heard = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&heard);
	ss_history *h = NULL;
	char missing[4096];

	(void)state;
	assert_int_equal(ss_history_new(&h), 0);
	/* nothing named, no repository, no index: nothing added, nothing said */
	assert_int_equal(ss_run_history_load(h, NULL, NULL, NULL, NULL, &src, &rp), 0);
	assert_int_equal(f.index_asked, 1);
	assert_int_equal(ss_history_count(h), 0);
	assert_string_equal(heard.text, "");
	/* a releases file that cannot be read fails before the index is
	 * asked for */
	snprintf(missing, sizeof(missing), "%s/none.tsv", test_scratch);
	assert_true(ss_run_history_load(h, missing, NULL, NULL, NULL, &src, &rp) < 0);
	assert_non_null(strstr(ss_error_last(), "none.tsv"));
	assert_int_equal(f.index_asked, 1);
	ss_error_clear();
	ss_history_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prime),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
