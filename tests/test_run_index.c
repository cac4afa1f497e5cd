/*
 * test_run_index.c - the project index as a run opens and reads it,
 * without the CLI (run/index_open.h): --db, else the repository's own
 * index, none (missing) or a db that does not exist, another
 * repository's index refused; the freshness warning once the mainline
 * moved (naming --db only when the index is not the repository's own);
 * the history, releases and backports a run takes from it; a run's
 * index and repository opened once (run/run.h: ss_run).
 */
#include "testutil.h"
#include "testrun.h"

#include "run/index_open.h"
#include "run/run.h"
#include "source/git_repo.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_AUTHOR_NAME", "Ann Author", 1);
	setenv("GIT_AUTHOR_EMAIL", "ann@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "Ann Author", 1);
	setenv("GIT_COMMITTER_EMAIL", "ann@example.org", 1);
	/* repo with its own index, other without one, db: repo's index by --db */
	return test_run("sh '%s' '%s/repo' && cp -r '%s/repo' '%s/other' && "
			"./stablesel index --no-progress --repo '%s/repo' 2>/dev/null && "
			"./stablesel index --no-progress --repo '%s/repo' --db '%s/ix.db' 2>/dev/null",
			test_gitrepo_script(), test_scratch, test_scratch, test_scratch, test_scratch, test_scratch, test_scratch);
}

static void test_open(void **state)
{
	char repo[4096], other[4096], db[4096], nodb[4096];
	ss_index *ix = (ss_index *)1;
	char *path = NULL, *def = NULL;
	int missing = -1;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(other, sizeof(other), "%s/other", test_scratch);
	snprintf(db, sizeof(db), "%s/ix.db", test_scratch);
	snprintf(nodb, sizeof(nodb), "%s/none.db", test_scratch);
	/* the repository's own */
	assert_int_equal(ss_run_index_open(&ix, &path, &missing, NULL, repo, NULL), 0);
	assert_non_null(ix);
	assert_int_equal(missing, 0);
	assert_int_equal(ss_index_default_path(&def, repo), 0);
	assert_string_equal(path, def);
	ss_index_free(ix);
	free(path);
	free(def);
	/* --db first */
	assert_int_equal(ss_run_index_open(&ix, &path, &missing, db, repo, NULL), 0);
	assert_non_null(ix);
	assert_string_equal(path, db);
	ss_index_free(ix);
	free(path);
	/* none of its own: missing, no error */
	assert_int_equal(ss_run_index_open(&ix, &path, &missing, NULL, other, NULL), 0);
	assert_null(ix);
	assert_null(path);
	assert_int_equal(missing, 1);
	/* no db nor repository: nothing, not missing */
	assert_int_equal(ss_run_index_open(&ix, &path, &missing, NULL, NULL, NULL), 0);
	assert_null(ix);
	assert_int_equal(missing, 0);
	/* a --db that does not exist is an error, not a missing index */
	assert_true(ss_run_index_open(&ix, &path, &missing, nodb, repo, NULL) < 0);
	assert_null(ix);
	assert_null(path);
	assert_int_equal(missing, 0);
	/* another repository's index: refused (other is a copy, so make it
	 * another history first) */
	assert_int_equal(test_run("cd '%s' && git checkout -q --orphan fresh && git rm -qrf . && "
				  "echo x > x && git add x && GIT_AUTHOR_DATE='1700000000 +0000' "
				  "GIT_COMMITTER_DATE='1700000000 +0000' git commit -qm fresh && "
				  "git branch -D -q main && git branch -m main && "
				  "git for-each-ref --format='%%(refname)' refs/heads refs/tags | "
				  "grep -v refs/heads/main | xargs -r -n1 git update-ref -d && "
				  "git gc -q --prune=now", other), 0);
	assert_true(ss_run_index_open(&ix, &path, &missing, db, other, NULL) < 0);
	assert_null(ix);
	assert_null(path);
}

static void test_read_and_freshness(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_releases_ask ask = SS_RELEASES_ASK_INIT;
	char repo[4096], want[16384], tip[41], *path, *def = NULL;
	ss_backports *l = NULL;
	ss_backports_options lo = SS_BACKPORTS_OPTIONS_INIT;
	ss_history *hist = NULL;
	ss_index *ix;
	int missing;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_int_equal(ss_run_index_open(&ix, &path, &missing, NULL, repo, NULL), 0);
	assert_non_null(ix);
	/* up to date: nothing said */
	ss_run_index_freshness(ix, path, repo, NULL, &rp);
	assert_string_equal(h.text, "");
	/* the history, the index's releases, the backports */
	assert_int_equal(ss_history_new(&hist), 0);
	ask.repo = repo;
	assert_int_equal(ss_run_history_from_index(hist, ix, path, &ask, repo, NULL, &rp), 0);
	assert_string_equal(h.text, "");
	assert_int_equal(ss_backports_new(&l, &lo), 0);
	assert_int_equal(ss_run_backports_from_index(l, ix, path), 0);
	assert_true(ss_backports_count(l) > 0);
	ss_backports_free(l);
	ss_history_free(hist);
	/* the mainline moves on: the warning names the command, no --db for
	 * the repository's own index */
	assert_int_equal(test_run("cd '%s' && echo y >> moved.c && git add moved.c && "
				  "GIT_AUTHOR_DATE='1800000000 +0000' GIT_COMMITTER_DATE='1800000000 +0000' "
				  "git commit -qm moved", repo), 0);
	assert_int_equal(ss_index_ref_tip(tip, ix, "mainline", want, sizeof(want)), 0);
	assert_string_equal(want, "main");
	ss_run_index_freshness(ix, path, repo, NULL, &rp);
	assert_int_equal(ss_index_default_path(&def, repo), 0);
	assert_string_equal(path, def);
	assert_non_null(strstr(h.text, "W index '"));
	snprintf(want, sizeof(want), "read main up to %.12s, the repository has main at ", tip);
	assert_non_null(strstr(h.text, want));
	snprintf(want, sizeof(want), ": run 'stablesel index --repo %s' to update it\n", repo);
	assert_non_null(strstr(h.text, want));
	ss_index_free(ix);
	free(path);
	free(def);
	/* by --db: the command names it */
	test_heard_reset(&h);
	snprintf(want, sizeof(want), "%s/ix.db", test_scratch);
	assert_int_equal(ss_run_index_open(&ix, &path, &missing, want, repo, NULL), 0);
	ss_run_index_freshness(ix, path, repo, NULL, &rp);
	snprintf(want, sizeof(want), ": run 'stablesel index --repo %s --db %s/ix.db' to update it\n",
		 repo, test_scratch);
	assert_non_null(strstr(h.text, want));
	ss_index_free(ix);
	free(path);
}

/*
 * A run (run/run.h) opens the repository and its index once, however
 * many steps ask: each step's index is a reference of its own to free,
 * a missing index is remembered, another cut in time is another
 * connection, and a writer the command lends is what the steps read.
 * What the handle reads is what the path reads (the freshness warning).
 */
static void test_run_owns(void **state)
{
	struct heard h1 = { "", 0 }, h2 = { "", 0 };
	ss_run_report rp1 = TEST_RUN_REPORT(&h1), rp2 = TEST_RUN_REPORT(&h2);
	char repo[4096], other[4096], tip[41], *path = NULL, *p2 = NULL;
	ss_index *a = NULL, *b = NULL, *w = NULL;
	ss_run *run = NULL;
	ss_repo *r;
	size_t opened;
	int missing = -1;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(other, sizeof(other), "%s/other", test_scratch);
	assert_int_equal(ss_run_new(&run), 0);
	opened = ss_repo_opened();
	assert_non_null(r = ss_run_repo(run, repo));
	assert_ptr_equal(ss_run_repo(run, repo), r);
	assert_int_equal(ss_run_index(&a, &path, &missing, run, NULL, repo, 0), 0);
	assert_non_null(a);
	assert_int_equal(missing, 0);
	assert_int_equal(ss_run_index(&b, &p2, &missing, run, NULL, repo, 0), 0);
	assert_ptr_equal(a, b);
	assert_string_equal(path, p2);
	/* found and checked through the run's handle: one open in all */
	assert_int_equal(ss_repo_opened() - opened, 1);
	assert_int_equal(ss_run_opened_repos(run), 1);
	assert_int_equal(ss_run_opened_indexes(run), 1);
	/* the steps free their references; the run's connection stays */
	ss_index_free(a);
	ss_index_free(b);
	free(p2);
	assert_int_equal(ss_index_ref_tip(tip, a, "mainline", NULL, 0), 0);
	/* the freshness warning (the mainline moved in the test before)
	 * through the handle, word for word as through the path */
	ss_run_index_freshness(a, path, repo, NULL, &rp1);
	ss_run_index_freshness(a, path, repo, r, &rp2);
	assert_non_null(strstr(h1.text, "W index '"));
	assert_string_equal(h1.text, h2.text);
	/* none of its own: missing, remembered */
	assert_int_equal(ss_run_index(&b, &p2, &missing, run, NULL, other, 0), 0);
	assert_null(b);
	assert_null(p2);
	assert_int_equal(missing, 1);
	missing = 0;
	assert_int_equal(ss_run_index(&b, &p2, &missing, run, NULL, other, 0), 0);
	assert_null(b);
	assert_int_equal(missing, 1);
	/* no repository there: no handle (the path function says why) */
	assert_null(ss_run_repo(run, "/nonexistent/repository"));
	/* another cut in time: a connection of its own */
	assert_int_equal(ss_run_index(&b, &p2, &missing, run, NULL, repo, 1700000000), 0);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(ss_run_opened_indexes(run), 2);
	ss_index_free(b);
	free(p2);
	ss_run_free(run);
	/* a writer lent: the steps read it, no reader is opened */
	assert_int_equal(ss_run_new(&run), 0);
	assert_int_equal(ss_index_open(&w, path, SS_INDEX_WRITE), 0);
	assert_int_equal(ss_run_index_use(run, w, path, NULL, repo), 0);
	assert_true(ss_run_index_use(run, w, path, NULL, repo) < 0);
	assert_int_equal(ss_run_index(&a, &p2, &missing, run, NULL, repo, 0), 0);
	assert_ptr_equal(a, w);
	assert_string_equal(p2, path);
	assert_int_equal(ss_run_opened_indexes(run), 0);
	ss_index_free(a);
	free(p2);
	ss_index_free(w);
	ss_run_free(run);  /* the last reference: closed here */
	ss_run_free(NULL);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_read_and_freshness),
		cmocka_unit_test(test_run_owns),
	};

	return cmocka_run_group_tests(tests, setup, test_scratch_teardown);
}
