/*
 * test_run_commits.c - reading a run's sources without the CLI
 * (run/commits.h): every commit of a repository's range handed over in
 * order, a stop asked by the callee, a revision missing, a malformed mail said as an error
 * or (a history source) counted quietly and said once; several sources
 * in turn; the bottoms of a ranked range that are its history and the
 * revisions --history sources are read with.
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>
#include <gmime/gmime.h>

#include "run/commits.h"
#include "util/error.h"
#include "util/strbuf.h"

/* The ids read, one a line; stops after stop (0: never). */
struct got {
	ss_strbuf ids;
	size_t n, stop;
};

static int take(ss_commit *c, void *data)
{
	struct got *g = data;

	ss_strbuf_addf(&g->ids, "%s\n", c->id);
	ss_commit_free(c);
	return g->stop && ++g->n == g->stop;
}

/* two mails, the second cut short in its hunk */
static const char *mbox = TEST_RUN_TWO_MAILS;

static int setup(void **state)
{
	FILE *f;
	char path[4096];

	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	snprintf(path, sizeof(path), "%s/two.mbox", test_scratch);
	if (!(f = fopen(path, "w")) || fputs(mbox, f) < 0 || fclose(f))
		return -1;
	return test_run("sh '%s' '%s/repo' >/dev/null", test_gitrepo_script(), test_scratch);
}

static void test_repository(void **state)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	const char *revs[] = { "main~4..main" };
	struct got g = { SS_STRBUF_INIT, 0, 0 };
	char repo[4096], *want;
	size_t n = 0;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	o.revs = revs;
	o.nrevs = 1;
	assert_int_equal(ss_run_read_commits(&n, repo, &o, take, &g, NULL, NULL), 0);
	/* what git lists, oldest first (the source's order) */
	want = test_run_output("git -C '%s' rev-list --reverse --topo-order main~4..main", repo);
	assert_int_equal(n, 4);
	assert_string_equal(g.ids.buf, want);
	free(want);
	ss_strbuf_release(&g.ids);
	/* the callee stops after two */
	g = (struct got){ SS_STRBUF_INIT, 0, 2 };
	assert_int_equal(ss_run_read_commits(&n, repo, &o, take, &g, NULL, NULL), 0);
	assert_int_equal(n, 2);
	ss_strbuf_release(&g.ids);
	/* a revision the repository lacks: an error, nothing handed over */
	revs[0] = "no-such-branch..main";
	g = (struct got){ SS_STRBUF_INIT, 0, 0 };
	assert_true(ss_run_read_commits(&n, repo, &o, take, &g, NULL, NULL) < 0);
	assert_int_equal(n, 0);
	ss_strbuf_release(&g.ids);
}

static void test_skips(void **state)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_run_skips skips = SS_RUN_SKIPS_INIT;
	struct got g = { SS_STRBUF_INIT, 0, 0 };
	char path[4096];
	size_t n;

	(void)state;
	snprintf(path, sizeof(path), "%s/two.mbox", test_scratch);
	/* a source to rank: the bad mail is an error, the reading goes on */
	assert_int_equal(ss_run_read_commits(&n, path, &o, take, &g, NULL, &rp), 0);
	assert_int_equal(n, 1);
	assert_string_equal(g.ids.buf, "1111111111111111111111111111111111111111\n");
	assert_non_null(strstr(h.text, "E mbox '"));
	assert_non_null(strstr(h.text, "': message 2 skipped: the last message is cut short: its last "
			       "hunk is shorter than its header says\n"));
	assert_null(strchr(h.text, '\n')[1] ? "two lines" : NULL);
	/* a history source: counted, nothing said until asked, once */
	test_heard_reset(&h);
	assert_int_equal(ss_run_read_commits(&n, path, &o, take, &g, &skips, &rp), 0);
	assert_int_equal(ss_run_read_commits(&n, path, &o, take, &g, &skips, &rp), 0);
	assert_string_equal(h.text, "");
	assert_int_equal(skips.n, 2);
	ss_run_skips_say(&skips, &rp);
	assert_non_null(strstr(h.text, "W 2 commits of the history could not be read and are left "
			       "out (first: mbox '"));
	assert_non_null(strstr(h.text, "message 2 skipped: the last message is cut short: its last "
			       "hunk is shorter than its header says)\n"));
	ss_strbuf_release(&g.ids);
	/* none skipped: nothing said */
	skips = (ss_run_skips)SS_RUN_SKIPS_INIT;
	test_heard_reset(&h);
	ss_run_skips_say(&skips, &rp);
	assert_string_equal(h.text, "");
}

static void test_bottoms(void **state)
{
	const char *revs[] = { "v1.0..main", "^old", "a...b", "HEAD", "..x", "c..d" };
	char bottom[4][256];

	(void)state;
	assert_int_equal(ss_run_history_bottoms(bottom, 4, revs, 6), 3);
	assert_string_equal(bottom[0], "v1.0");
	assert_string_equal(bottom[1], "old");
	assert_string_equal(bottom[2], "c");
	/* at most max */
	assert_int_equal(ss_run_history_bottoms(bottom, 1, revs, 6), 1);
	assert_string_equal(bottom[0], "v1.0");
	/* plain revisions: no bottom */
	assert_int_equal(ss_run_history_bottoms(bottom, 4, revs + 2, 2), 0);
}

/* Every source in turn (the repository without one), the first that
 * cannot be read an error. */
static void test_sources(void **state)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	const char *revs[] = { "main~2..main" }, *specs[3];
	struct got g = { SS_STRBUF_INIT, 0, 0 };
	char repo[4096], mbox[4096], missing[4096];
	size_t n;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(mbox, sizeof(mbox), "%s/two.mbox", test_scratch);
	snprintf(missing, sizeof(missing), "%s/none.mbox", test_scratch);
	o.revs = revs;
	o.nrevs = 1;
	/* no source: the repository's range */
	assert_int_equal(ss_run_read_sources(&n, repo, NULL, 0, &o, take, &g, NULL, NULL), 0);
	assert_int_equal(n, 2);
	/* two sources, the counts added up; the repository is not read */
	specs[0] = mbox;
	specs[1] = mbox;
	assert_int_equal(ss_run_read_sources(&n, repo, specs, 2, &o, take, &g, NULL, NULL), 0);
	assert_int_equal(n, 2);
	/* the second cannot be opened: its error */
	specs[1] = missing;
	assert_true(ss_run_read_sources(&n, NULL, specs, 2, &o, take, &g, NULL, NULL) < 0);
	assert_non_null(strstr(ss_error_last(), "none.mbox"));
	ss_error_clear();
	ss_strbuf_release(&g.ids);
}

/* --history-rev when given, else the bottoms of the ranked range. */
static void test_history_revs(void **state)
{
	const char *ranked[] = { "v1.0..main", "^old" }, *hrevs[] = { "a", "b" }, *out[4];
	char bottom[4][256];

	(void)state;
	assert_int_equal(ss_run_history_revs(out, bottom, 4, hrevs, 2, ranked, 2), 2);
	assert_string_equal(out[0], "a");
	assert_string_equal(out[1], "b");
	assert_int_equal(ss_run_history_revs(out, bottom, 4, NULL, 0, ranked, 2), 2);
	assert_string_equal(out[0], "v1.0");
	assert_string_equal(out[1], "old");
	assert_ptr_equal(out[0], bottom[0]);
	/* neither: none, the sources' own revisions stay */
	assert_int_equal(ss_run_history_revs(out, bottom, 4, NULL, 0, ranked + 1, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repository),
		cmocka_unit_test(test_skips),
		cmocka_unit_test(test_bottoms),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_history_revs),
	};
	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
