/*
 * test_train_options.c - the training options come from the one option
 * table (cli/option_groups.c) with their ranges, and the feature groups from the
 * one table of names (models/options.c): "train -h" lists a name for
 * every SS_FG_* group the code has, --features takes each, a value out
 * of range is refused by the table, and the two threshold rules exclude
 * each other.
 */
#include "features/features.h"
#include "models/options.h"
#include "testutil.h"

/* The --features help line of "train -h": every group named, and
 * together the single groups are all of SS_FG_ALL. */
static void test_help_lists_every_group(void **state)
{
	char *s, *p, *end;
	uint32_t seen = 0, bits;

	(void)state;
	assert_int_equal(test_cli("train -h"), 0);
	s = test_scratch_read("out");
	p = strstr(s, "the feature groups: ");
	assert_non_null(p);
	p += strlen("the feature groups: ");
	end = strchr(p, '\n');
	assert_non_null(end);
	*end = '\0';
	for (char *tok = strtok(p, ", ()"); tok; tok = strtok(NULL, ", ()")) {
		uint32_t b = ss_feat_group_bit(tok);

		assert_true(b != 0);
		if (!(b & (b - 1)))   /* one group, not default or all */
			seen |= b;
	}
	assert_int_equal(seen, (uint32_t)SS_FG_ALL);
	free(s);
	/* the names parse to their bits, and all is all */
	assert_int_equal(ss_feat_groups_parse(&bits, "merge,relcode"), 0);
	assert_int_equal(bits, (uint32_t)(SS_FG_MERGE | SS_FG_RELCODE));
	assert_int_equal(ss_feat_groups_parse(&bits, "all"), 0);
	assert_int_equal(bits, (uint32_t)SS_FG_ALL);
	assert_int_equal(ss_feat_groups_parse(&bits, "default"), 0);
	assert_int_equal(bits, (uint32_t)SS_FG_DEFAULT);
}

/* Exit 129 and the message on stderr. */
static void expect_usage(const char *args, const char *msg)
{
	char *s;

	assert_int_equal(test_cli("%s", args), 129);
	s = test_scratch_read("err");
	if (!strstr(s, msg))
		fail_msg("'%s' said '%s', not '%s'", args, s, msg);
	free(s);
}

static void test_values_checked(void **state)
{
	(void)state;
	expect_usage("train --kind linear --features words,bogus --labels x -o y /dev/null",
		     "unknown feature group 'bogus' (words, subsystem, metrics, constructs, people, "
		     "paths, trailers, history, effects, timing, series, merge, relcode, keys, default, "
		     "all)");
	expect_usage("train --kind linear --hash-bits 25 --labels x -o y /dev/null", "'--hash-bits'");
	expect_usage("train --kind mlp --dropout 0.96 --labels x -o y /dev/null", "'--dropout'");
	expect_usage("eval --models linear --val-share 0 --split-date 2020-01-01 --labels x /dev/null",
		     "'--val-share'");
	expect_usage("train --kind linear --target-precision 0.9 --target-recall 0.5 --labels x "
		     "-o y /dev/null",
		     "--target-precision and --target-recall");
	expect_usage("train --kind linear --release-tags 'v*' --labels x -o y /dev/null",
		     "--release-tags needs --repo PATH");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_lists_every_group),
		cmocka_unit_test(test_values_checked),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
