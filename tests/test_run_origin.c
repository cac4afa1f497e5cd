/*
 * test_run_origin.c - what "origin" reads before it explains a commit,
 * without the CLI (run/origin_history.h): the history with the repository
 * attached and the index's commits known; a commit read alone with its
 * diff; a merge, an unknown revision and a history that cannot be opened
 * told apart (SS_ESKIP: that commit only) from what stops the run; the
 * sources read with the commits asked for found by id (none, one,
 * ambiguous); the releases, and a warning when there are none; all of
 * it read in its order for a run (ss_run_origin_load).
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>

#include "run/origin_history.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	/* tests/gitrepo.sh, and its project index */
	return test_run("sh '%s' '%s/repo' >/dev/null && ./stablesel index --no-progress "
			"--repo '%s/repo' --db '%s/ix.db' 2>/dev/null", test_gitrepo_script(),
			test_scratch, test_scratch, test_scratch);
}

/* The full id of rev in the test repository. */
static void rev_id(char out[41], const char *rev)
{
	char *id = test_run_output("git -C '%s/repo' rev-parse '%s'", test_scratch, rev);

	assert_non_null(id);
	snprintf(out, 41, "%.40s", id);
	free(id);
}

static void test_commit(void **state)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	char repo[4096], id[41];
	ss_histidx *hx = NULL;
	ss_commit *c = NULL;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_int_equal(ss_run_origin_history(&hx, repo, NULL), 0);
	/* a commit by a name git knows, read with its diff (blame needs it) */
	rev_id(id, "leak-fix");
	assert_int_equal(ss_run_origin_commit(&c, hx, repo, &o, "leak-fix", &rp), 0);
	assert_non_null(c);
	assert_string_equal(c->id, id);
	assert_non_null(strstr(c->subject, "fix leak on error path"));
	assert_true(c->nfiles > 0);
	ss_commit_free(c);
	/* a root commit: read alone, no range below it */
	rev_id(id, "main~11");
	assert_int_equal(ss_run_origin_commit(&c, hx, repo, &o, id, &rp), 0);
	assert_string_equal(c->id, id);
	ss_commit_free(c);
	/* the merge fixes nothing itself: that commit only */
	assert_int_equal(ss_run_origin_commit(&c, hx, repo, &o, "main~4", &rp), SS_ESKIP);
	assert_null(c);
	assert_non_null(strstr(ss_error_last(), "main~4 is a merge commit: it fixes nothing itself"));
	/* nothing of that name: that commit only, its message names it */
	assert_int_equal(ss_run_origin_commit(&c, hx, repo, &o, "no-such-rev", &rp), SS_ESKIP);
	assert_null(c);
	assert_non_null(strstr(ss_error_last(), "no-such-rev"));
	assert_int_equal(h.len, 0);
	ss_histidx_free(hx);
	/* a repository that is not there stops the run */
	snprintf(repo, sizeof(repo), "%s/none", test_scratch);
	assert_true(ss_run_origin_history(&hx, repo, NULL) < 0);
	assert_null(hx);
}

static void test_known(void **state)
{
	char db[4096], id[41];
	ss_histidx_commit found[2];
	ss_histidx *hx = NULL;
	ss_index *ix = NULL;

	(void)state;
	snprintf(db, sizeof(db), "%s/ix.db", test_scratch);
	/* without a repository, ids come from the index only */
	assert_int_equal(ss_run_origin_history(&hx, NULL, NULL), 0);
	assert_int_equal(ss_histidx_count(hx), 0);
	rev_id(id, "leak-fix");
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	assert_int_equal(ss_run_origin_known(hx, ix, db), 0);
	/* every commit the index holds (the mainline's and the branches') */
	assert_true(ss_histidx_count(hx) >= 12);
	assert_int_equal(ss_histidx_lookup_prefix(found, 2, hx, id), 1);
	assert_string_equal(found[0].id, id);
	assert_non_null(strstr(found[0].subject, "fix leak on error path"));
	ss_index_free(ix);
	ss_histidx_free(hx);
}

static void test_sources(void **state)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_run_origin_wanted w[3];
	const char *specs[1];
	char repo[4096], id[41], prefix[9];
	ss_histidx *hx = NULL;
	ss_commit *c = NULL;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	specs[0] = repo;
	assert_true(ss_run_origin_is_source(repo));
	assert_true(ss_run_origin_is_source("-"));
	assert_false(ss_run_origin_is_source("deadbeef"));
	rev_id(id, "leak-fix");
	snprintf(prefix, sizeof(prefix), "%.8s", id);
	memset(w, 0, sizeof(w));
	w[0].arg = prefix;      /* one commit */
	w[1].arg = "ffffffffff"; /* none */
	w[2].arg = "";          /* every commit: ambiguous */
	assert_int_equal(ss_run_origin_history(&hx, NULL, NULL), 0);
	o.with_diff = 0;
	assert_int_equal(ss_run_origin_read(hx, w, 3, specs, 1, &o, &rp), 0);
	assert_true(ss_histidx_count(hx) >= 12);
	assert_int_equal(w[0].nmatch, 1);
	assert_int_equal(ss_run_origin_pick(&c, &w[0], 1, hx, NULL, &o, &rp), 0);
	assert_non_null(c);
	assert_string_equal(c->id, id);
	assert_int_equal(ss_run_origin_pick(&c, &w[1], 1, hx, NULL, &o, &rp), SS_ESKIP);
	assert_null(c);
	assert_non_null(strstr(ss_error_last(), "no commit 'ffffffffff' in the sources"));
	assert_true(w[2].nmatch > 1);
	assert_int_equal(ss_run_origin_pick(&c, &w[2], 1, hx, NULL, &o, &rp), SS_ESKIP);
	assert_non_null(strstr(ss_error_last(), "is ambiguous"));
	assert_int_equal(h.len, 0);
	/* w[2] holds the first commit read, w[0] its own: each freed once */
	ss_run_origin_wanted_release(w, 3);
	ss_histidx_free(hx);
}

static void test_releases(void **state)
{
	ss_releases_ask ask = SS_RELEASES_ASK_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_releases *rel = NULL;
	ss_histidx *hx = NULL;
	ss_index *ix = NULL;
	char db[4096];

	(void)state;
	assert_int_equal(ss_run_origin_history(&hx, NULL, NULL), 0);
	/* nothing to read releases from: said, not an error */
	assert_int_equal(ss_run_origin_releases(&rel, hx, NULL, NULL, &ask, &rp), 0);
	assert_null(rel);
	assert_non_null(strstr(h.text, "W no releases known"));
	/* the index's: its commits known to the history too */
	test_heard_reset(&h);
	snprintf(db, sizeof(db), "%s/ix.db", test_scratch);
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	assert_int_equal(ss_run_origin_releases(&rel, hx, ix, db, &ask, &rp), 0);
	assert_true(ss_histidx_count(hx) >= 12);
	ss_releases_free(rel);
	ss_index_free(ix);
	ss_histidx_free(hx);
}

/* ss_run_origin_load: the index's commits and releases through the
 * run, then the sources with the commit asked for found; a --db that
 * does not exist stops it with nothing kept. */
static void test_load(void **state)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_run_origin_options o = SS_RUN_ORIGIN_OPTIONS_INIT;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_run_origin_wanted w[1];
	const char *specs[1];
	char repo[4096], db[4096], missing[4096], id[41], prefix[9];
	ss_releases *rel = NULL;
	ss_histidx *hx = NULL;
	ss_run *run = NULL;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(db, sizeof(db), "%s/ix.db", test_scratch);
	snprintf(missing, sizeof(missing), "%s/none.db", test_scratch);
	specs[0] = repo;
	rev_id(id, "leak-fix");
	snprintf(prefix, sizeof(prefix), "%.8s", id);
	memset(w, 0, sizeof(w));
	w[0].arg = prefix;
	assert_int_equal(ss_run_new(&run), 0);
	so.with_diff = 0;
	o.db = db;
	o.specs = specs;
	o.nspecs = 1;
	o.opts = &so;
	o.run = run;
	o.rp = &rp;
	assert_int_equal(ss_run_origin_load(&hx, &rel, w, 1, &o), 0);
	assert_non_null(hx);
	assert_true(ss_histidx_count(hx) >= 12);
	assert_int_equal(w[0].nmatch, 1);
	assert_string_equal(w[0].commit->id, id);
	ss_run_origin_wanted_release(w, 1);
	ss_releases_free(rel);
	ss_histidx_free(hx);
	o.db = missing;
	assert_true(ss_run_origin_load(&hx, &rel, NULL, 0, &o) < 0);
	assert_null(hx);
	assert_null(rel);
	ss_error_clear();
	ss_run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit),
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_releases),
		cmocka_unit_test(test_load),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	git_libgit2_shutdown();
	return rc;
}
