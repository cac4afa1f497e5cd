/*
 * test_run_decisions_open.c - what the review's commands share before a
 * decision, without the CLI (run/decisions_open.h): the index opened to
 * write only when it holds commits and only as its repository's; the
 * branches decided for named once each under the index's name, a name no
 * branch has told apart (SS_ENOTFOUND) from the index's own; a commit
 * named by prefix or by a name of the repository; an operand of
 * "index" that is a repository (run/index_build.h); and what status
 * shows, as data (run/decisions_status.h): the decisions counted per
 * state, listed by state then those the index no longer holds, the log;
 * the mails for failed picks written into a folder it makes
 * (run/failed_mail.h: ss_run_failed_mails_write).
 */
#include "testutil.h"
#include "testrun.h"

#include <git2.h>

#include "run/decisions_open.h"
#include "run/decisions_status.h"
#include "run/failed_mail.h"
#include "run/index_build.h"
#include "util/error.h"

static int setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	/* tests/gitrepo.sh with its own project index, and an empty one */
	return test_run("sh '%s' '%s/repo' >/dev/null && ./stablesel index --no-progress "
			"--repo '%s/repo' 2>/dev/null && : >'%s/empty.db'", test_gitrepo_script(),
			test_scratch, test_scratch, test_scratch);
}

static void test_open(void **state)
{
	char repo[4096], db[4096];
	ss_index *ix = NULL;
	char *path = NULL;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	/* the repository's own, to write */
	assert_int_equal(ss_run_decisions_open(&ix, &path, NULL, repo, 1, NULL), 0);
	assert_non_null(ix);
	assert_non_null(strstr(path, "/stablesel/index.db"));
	ss_index_free(ix);
	free(path);
	/* a file that holds no commits is none to decide on */
	snprintf(db, sizeof(db), "%s/empty.db", test_scratch);
	assert_true(ss_run_decisions_open(&ix, &path, db, NULL, 1, NULL) < 0);
	assert_null(ix);
	assert_non_null(strstr(ss_error_last(), "holds no commits: run 'stablesel index' first"));
	free(path);
}

static void test_names(void **state)
{
	const char *named[] = { "stable-1.y", "refs/heads/stable-1.y", "stabel-1.y" };
	char *out[SS_RANK_MAX_BRANCHES], repo[4096], id[41], prefix[11], *full;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_index *ix = NULL;
	char *path = NULL;
	size_t n = 0;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_int_equal(ss_run_decisions_open(&ix, &path, NULL, repo, 0, NULL), 0);
	/* two spellings of one branch decide once */
	assert_int_equal(ss_run_decision_branches(out, &n, SS_RANK_MAX_BRANCHES, ix, path, repo,
						  named, 2, &rp), 0);
	assert_int_equal(n, 1);
	assert_string_equal(out[0], "stable-1.y");
	free(out[0]);
	/* a name no branch has: the user's mistake, the nearest named */
	assert_int_equal(ss_run_decision_branches(out, &n, SS_RANK_MAX_BRANCHES, ix, path, repo,
						  &named[2], 1, &rp), SS_ENOTFOUND);
	assert_int_equal(n, 0);
	assert_non_null(strstr(ss_error_last(), "stable-1.y"));
	/* none named: the index's stable branches */
	assert_int_equal(ss_run_decision_branches(out, &n, SS_RANK_MAX_BRANCHES, ix, path, repo,
						  NULL, 0, &rp), 0);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(strstr(out[i], "stable-"));
		free(out[i]);
	}
	assert_int_equal(h.len, 0);
	/* a commit by a prefix the index knows, by a name of the repository */
	full = test_run_output("git -C '%s' rev-parse leak-fix", repo);
	assert_non_null(full);
	snprintf(prefix, sizeof(prefix), "%.10s", full);
	assert_int_equal(ss_run_decision_commit(id, ix, NULL, prefix), 0);
	assert_memory_equal(id, full, 40);
	assert_int_equal(ss_run_decision_commit(id, ix, repo, "leak-fix"), 0);
	assert_memory_equal(id, full, 40);
	assert_int_equal(ss_run_decision_commit(id, ix, NULL, "leak-fix"), SS_ENOTFOUND);
	assert_non_null(strstr(ss_error_last(), "unknown commit 'leak-fix': not in the index"));
	free(full);
	ss_index_free(ix);
	free(path);
}

static void test_is_repository(void **state)
{
	char repo[4096];

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_true(ss_run_index_is_repository(repo));
	assert_true(ss_run_index_is_repository(test_scratch) == 0);
	snprintf(repo, sizeof(repo), "%s/empty.db", test_scratch);
	assert_true(ss_run_index_is_repository(repo) == 0);
}

struct seen {
	char order[8][16];   /* each decision's state, or "unknown" */
	size_t n;
	int stop;            /* non-zero: returned at the first */
};

static int see(const ss_decision *d, void *ud)
{
	struct seen *s = ud;

	if (s->n < 8)
		snprintf(s->order[s->n], sizeof(s->order[0]), "%s",
			 d->known ? ss_decision_state_name(d->state) : "unknown");
	s->n++;
	return s->stop;
}

static void test_status(void **state)
{
	static const char stray[41] = "0123456789abcdef0123456789abcdef01234567";
	ss_run_decision_mark m = SS_RUN_DECISION_MARK_INIT;
	const char *named[] = { "stable-1.y" };
	char *branches[SS_RANK_MAX_BRANCHES], repo[4096], fix[41], other[41];
	ss_run_decisions_count c;
	struct seen s;
	ss_index *ix = NULL;
	char *path = NULL;
	size_t n = 0, done;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	assert_int_equal(ss_run_decisions_open(&ix, &path, NULL, repo, 1, NULL), 0);
	assert_int_equal(ss_run_decision_branches(branches, &n, SS_RANK_MAX_BRANCHES, ix, path,
						  repo, named, 1, NULL), 0);
	assert_int_equal(n, 1);
	/* nothing decided yet: nothing counted, nothing listed */
	assert_int_equal(ss_run_decisions_status_count(&c, ix, branches[0]), 0);
	assert_int_equal(c.total, 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(ss_run_decisions_status_list(ix, branches[0], &c, see, &s), 0);
	assert_int_equal(s.n, 0);
	/* rejected, accepted, and a commit the index does not hold */
	assert_int_equal(ss_run_decision_commit(fix, ix, repo, "leak-fix"), 0);
	assert_int_equal(ss_run_decision_commit(other, ix, repo, "v2.0"), 0);
	m.state = SS_DECISION_REJECTED;
	assert_int_equal(ss_run_decision_mark_commit(&done, ix, fix, branches, n, &m, NULL), 0);
	m.state = SS_DECISION_ACCEPTED;
	assert_int_equal(ss_run_decision_mark_commit(&done, ix, other, branches, n, &m, NULL), 0);
	assert_int_equal(ss_run_decision_mark_commit(&done, ix, stray, branches, n, &m, NULL), 0);
	assert_int_equal(ss_run_decisions_status_count(&c, ix, branches[0]), 0);
	assert_int_equal(c.count[SS_DECISION_ACCEPTED], 2);
	assert_int_equal(c.count[SS_DECISION_REJECTED], 1);
	assert_int_equal(c.unknown, 1);
	assert_int_equal(c.total, 3);
	/* by state, the unknown one last */
	memset(&s, 0, sizeof(s));
	assert_int_equal(ss_run_decisions_status_list(ix, branches[0], &c, see, &s), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.order[0], "accepted");
	assert_string_equal(s.order[1], "rejected");
	assert_string_equal(s.order[2], "unknown");
	/* the callback stops the list */
	memset(&s, 0, sizeof(s));
	s.stop = 7;
	assert_int_not_equal(ss_run_decisions_status_list(ix, branches[0], &c, see, &s), 0);
	assert_int_equal(s.n, 1);
	/* the log: every change, of every branch or of those named */
	memset(&s, 0, sizeof(s));
	assert_int_equal(ss_run_decisions_status_log(ix, branches, n, 0, see, &s), 0);
	assert_int_equal(s.n, 3);
	memset(&s, 0, sizeof(s));
	assert_int_equal(ss_run_decisions_status_log(ix, branches, n, 1, see, &s), 0);
	assert_int_equal(s.n, 3);
	m.state = SS_DECISION_NONE;
	assert_int_equal(ss_run_decision_mark_commit(&done, ix, stray, branches, n, &m, NULL), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(ss_run_decisions_status_log(ix, branches, n, 1, see, &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(ss_run_decisions_status_count(&c, ix, branches[0]), 0);
	assert_int_equal(c.unknown, 0);
	assert_int_equal(c.total, 2);
	free(branches[0]);
	ss_index_free(ix);
	free(path);
}

/* A failed pick: its mail written into a folder made with its parents;
 * again, the same file. */
static void test_failed_mails(void **state)
{
	ss_run_failed_mails_options o = SS_RUN_FAILED_MAILS_OPTIONS_INIT;
	ss_run_decision_mark m = SS_RUN_DECISION_MARK_INIT;
	const char *named[] = { "stable-1.y" };
	char *branches[SS_RANK_MAX_BRANCHES], repo[4096], dir[4096], fix[41], *out;
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_index *ix = NULL;
	char *path = NULL;
	size_t n = 0, done, written, again;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(dir, sizeof(dir), "%s/mails/new", test_scratch);
	assert_int_equal(test_run("git -C '%s' config user.name 'Tess Maint' && "
				  "git -C '%s' config user.email tess@example.org", repo, repo), 0);
	/* none failed: nothing written, the folder made */
	o.dir = dir;
	o.repo = repo;
	o.cc = "stable@example.org";
	o.named = named;
	o.nnamed = 1;
	assert_int_equal(ss_run_failed_mails_write(&written, &o, &rp), 0);
	assert_int_equal(written, 0);
	assert_int_equal(test_run("test -d '%s'", dir), 0);
	assert_int_equal(ss_run_decisions_open(&ix, &path, NULL, repo, 1, NULL), 0);
	assert_int_equal(ss_run_decision_branches(branches, &n, SS_RANK_MAX_BRANCHES, ix, path,
						  repo, named, 1, NULL), 0);
	assert_int_equal(ss_run_decision_commit(fix, ix, repo, "leak-fix"), 0);
	m.state = SS_DECISION_FAILED;
	assert_int_equal(ss_run_decision_mark_commit(&done, ix, fix, branches, n, &m, NULL), 0);
	free(branches[0]);
	ss_index_free(ix);
	free(path);
	test_heard_reset(&h);
	assert_int_equal(ss_run_failed_mails_write(&written, &o, &rp), 0);
	/* one pick, one mail, nothing said */
	assert_int_equal(written, 1);
	assert_int_equal(h.len, 0);
	out = test_run_output("cat '%s'/*.eml", dir);
	assert_non_null(out);
	assert_non_null(strstr(out, "From: Tess Maint <tess@example.org>\n"));
	assert_non_null(strstr(out, "Cc: stable@example.org\n"));
	assert_non_null(strstr(out, "Subject: FAILED: patch "));
	free(out);
	/* again: the same file written over */
	assert_int_equal(ss_run_failed_mails_write(&again, &o, &rp), 0);
	assert_int_equal(again, written);
	assert_int_equal(test_run("test $(ls '%s' | wc -l) = %zu", dir, written), 0);
	/* a folder that cannot be made */
	snprintf(dir, sizeof(dir), "%s/empty.db/mails", test_scratch);
	assert_true(ss_run_failed_mails_write(&written, &o, &rp) < 0);
	assert_int_equal(written, 0);
	assert_true(*ss_error_last());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_is_repository),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_failed_mails),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, test_scratch_teardown);
	git_libgit2_shutdown();
	return rc;
}
