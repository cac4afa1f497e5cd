/*
 * test_run_corpus.c - what "stablesel corpus" computes without printing
 * (run/corpus_rows.h, run/corpus_train.h): every project's rows read
 * into one dataset in the corpus's order, each one said as it is in, a
 * project without its index refused; and how the general model picks in
 * a project it has never seen, the rows without scores left out.
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>

#include "run/corpus_rows.h"
#include "run/corpus_train.h"
#include "util/error.h"

static char head[41];

static int setup(void **state)
{
	char *full;

	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	if (test_run("sh '%s' '%s/a.git' >/dev/null && ./stablesel index --no-progress "
		     "--repo '%s/a.git' --db '%s/a.db' 2>/dev/null && cp -r '%s/a.git' '%s/b.git' "
		     "&& cp '%s/a.db' '%s/b.db'", test_gitrepo_script(), test_scratch,
		     test_scratch, test_scratch, test_scratch, test_scratch, test_scratch,
		     test_scratch))
		return -1;
	full = test_run_output("git -C '%s/a.git' rev-parse main", test_scratch);
	if (!full)
		return -1;
	snprintf(head, sizeof(head), "%.40s", full);
	free(full);
	return 0;
}

/* The names the read callback heard, one a line. */
static void heard_read(const ss_corpus_project *p, void *ud)
{
	char *names = ud;

	assert_true(p->n > 0);
	strcat(names, p->name);
	strcat(names, "\n");
}

static void write_corpus(const char *path, const char *const *names, size_t n)
{
	char text[1024];
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%s\tx\t%s\t2030-01-01\t2000-01-01\t2030-01-01\n", names[i],
					head);
	test_write_file(path, text, len);
}

static void test_read(void **state)
{
	const char *both[] = { "b", "a" }, *missing[] = { "a", "zz" };
	char path[4096], names[256] = "";
	ss_dataset *d = NULL;
	ss_corpus c;
	size_t pos = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/corpus.tsv", test_scratch);
	write_corpus(path, both, 2);
	assert_int_equal(ss_corpus_load(&c, path), 0);
	assert_int_equal(ss_run_corpus_read(&d, &c, test_scratch, "/nonexistent", heard_read, names,
					    NULL), 0);
	assert_non_null(d);
	/* in the corpus's order, each said once it is in */
	assert_string_equal(names, "b\na\n");
	/* the two copies give the same rows, one after the other */
	assert_int_equal(c.p[0].first, 0);
	assert_true(c.p[0].n > 0);
	assert_int_equal(c.p[1].first, c.p[0].n);
	assert_int_equal(c.p[1].n, c.p[0].n);
	assert_int_equal(c.p[1].npos, c.p[0].npos);
	assert_true(c.p[0].npos > 0 && c.p[0].npos < c.p[0].n);
	assert_int_equal(ss_dataset_count(d), 2 * c.p[0].n);
	for (size_t i = 0; i < c.p[0].n; i++)
		pos += ss_dataset_example(d, i)->label;
	assert_int_equal(pos, c.p[0].npos);
	ss_dataset_free(d);

	/* a project without its index: refused, nothing kept, the one read
	 * before it said */
	names[0] = '\0';
	write_corpus(path, missing, 2);
	assert_int_equal(ss_corpus_load(&c, path), 0);
	d = (ss_dataset *)1;
	assert_true(ss_run_corpus_read(&d, &c, test_scratch, "/nonexistent", heard_read, names,
				       NULL) < 0);
	assert_null(d);
	assert_string_equal(names, "a\n");
	assert_non_null(strstr(ss_error_last(), "'zz'"));
}

static void test_unseen(void **state)
{
	float s0[] = { 0.9f, 0.6f, 0.3f, 0.1f }, s1[] = { 0.8f, 0.2f };
	uint8_t l0[] = { 1, 0, 1, 0 }, l1[] = { 1, 0 };
	ss_lopo_row rows[3];
	ss_run_corpus_unseen u;
	ss_corpus c = { .n = 3 };
	double mp = 0.0, mr = 0.0, mf = 0.0, f1, p, r;

	(void)state;
	memset(rows, 0, sizeof(rows));
	rows[0] = (ss_lopo_row){ .ntest = 4, .npos_test = 2, .base = 0.5, .gscore = s0,
				 .glabel = l0, .best_t = 0.5f };
	rows[0].general.ap = 0.8;
	rows[1] = (ss_lopo_row){ .ntest = 2, .npos_test = 1, .base = 0.5, .gscore = s1,
				 .glabel = l1, .best_t = 0.7f };
	rows[1].general.ap = 1.0;
	/* a row the general model gave no scores: not shown, nor counted */
	rows[2] = (ss_lopo_row){ .ntest = 3, .npos_test = 1, .base = 0.1, .best_t = 0.1f };
	rows[2].general.ap = 0.9;
	ss_run_corpus_unseen_score(&u, &c, rows);
	assert_int_equal(u.done, 2);
	/* row 0 at row 1's best threshold: one of its two positives alone */
	assert_true(u.p[0].shown);
	assert_float_equal(u.p[0].threshold, 0.7f, 1e-6);
	assert_float_equal(u.p[0].precision, 1.0, 1e-9);
	assert_float_equal(u.p[0].recall, 0.5, 1e-9);
	assert_float_equal(u.p[0].f1, 2.0 / 3.0, 1e-9);
	assert_float_equal(u.p[0].ap, 0.8, 1e-9);
	assert_float_equal(u.p[0].ap_base, 1.6, 1e-9);
	/* row 1 at row 0's (row 2 has no scores): its one positive alone */
	assert_float_equal(u.p[1].threshold, 0.5f, 1e-6);
	assert_float_equal(u.p[1].f1, 1.0, 1e-9);
	assert_float_equal(u.p[1].ap_base, 2.0, 1e-9);
	assert_false(u.p[2].shown);
	assert_float_equal(u.p[2].ap, 0.0, 0.0);
	/* the means of the rows shown */
	assert_float_equal(u.recall, 0.75, 1e-9);
	assert_float_equal(u.f1, (2.0 / 3.0 + 1.0) / 2.0, 1e-9);
	assert_float_equal(u.ap_base, 1.8, 1e-9);
	/* the median share the others pick: row 1 picks half at its best,
	 * so row 0 picks its best two (one positive); row 0 half too */
	for (size_t i = 0; i < 2; i++) {
		ss_lopo_general_at(&rows[i], ss_lopo_share_threshold(rows, 3, i), &f1, &p, &r);
		mp += p;
		mr += r;
		mf += f1;
	}
	assert_float_equal(u.rule[0].precision, mp / 2.0, 1e-12);
	assert_float_equal(u.rule[0].recall, mr / 2.0, 1e-12);
	assert_float_equal(u.rule[0].f1, mf / 2.0, 1e-12);
	assert_float_equal(u.rule[0].recall, (0.5 + 1.0) / 2.0, 1e-9);
	assert_true(u.rule[1].f1 >= 0.0 && u.rule[1].f1 <= 1.0);

	/* no row with scores: nothing shown, no means */
	rows[0].gscore = rows[1].gscore = NULL;
	ss_run_corpus_unseen_score(&u, &c, rows);
	assert_int_equal(u.done, 0);
	assert_false(u.p[0].shown);
	assert_float_equal(u.f1, 0.0, 0.0);
	assert_float_equal(u.rule[0].recall, 0.0, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_unseen),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	git_libgit2_shutdown();
	return rc;
}
