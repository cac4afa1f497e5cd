/*
 * test_repo.c - one owner for a repository (source/git_repo.h, issue 25
 * item 5): a layout detection, also the one that looks for the mainline
 * twice, and an index update with nothing new open their repository
 * once (counted with ss_repo_opened()); the path readers (ss_git_resolve,
 * _contains, _branches, _locate, ss_git_identity, ss_git_config_string,
 * ss_layout_find, ss_releases_tags) give what their handle versions give
 * on one handle, messages included, and keep their treatment of a "git:"
 * prefix (ss_git_* do not drop it, the layout and the tags do).  On the
 * generated repositories of tests/gitrepo.sh and tests/layoutrepo.sh.
 * A commit read through a handle is the one the walk reads alone.
 */
#include "testutil.h"

#include "check/check.h"
#include "history/histidx.h"
#include "index/index.h"
#include "labels/layout.h"
#include "source/git.h"
#include "source/git_repo.h"
#include "source/ident.h"
#include "source/source.h"
#include "commit/patch.h"
#include "util/error.h"
#include "util/strbuf.h"

static char tmpdir[2048], repo[4096], prefixed[4200];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/ss-test-repo-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(repo, sizeof(repo), "%s/repo", tmpdir);
	snprintf(prefixed, sizeof(prefixed), "git:%s", repo);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	unsetenv("GIT_COMMITTER_NAME");
	unsetenv("GIT_COMMITTER_EMAIL");
	return test_run("sh '%s' '%s' && git -C '%s' config user.name 'Ann Maint' && "
			"git -C '%s' config user.email ann@example.org && "
			"git -C '%s' config stablesel.failedCc list@example.org",
			test_gitrepo_script(), repo, repo, repo, repo);
}

static int teardown(void **state)
{
	(void)state;
	return test_run("rm -rf '%s'", tmpdir);
}

/* The message of the last error, copied (the next call may replace it). */
static char *last(void)
{
	char *s = strdup(ss_error_last());

	assert_non_null(s);
	return s;
}

/* ss_git_resolve on the path and ss_repo_resolve on the handle agree on
 * rev: the same status, id and message. */
static void same_resolve(ss_repo *r, const char *rev)
{
	char a[41], b[41];
	char *ma, *mb;
	int ra, rb;

	ss_error_clear();
	ra = ss_git_resolve(a, repo, rev);
	ma = last();
	ss_error_clear();
	rb = ss_repo_resolve(b, r, rev);
	mb = last();
	assert_int_equal(ra, rb);
	assert_string_equal(a, b);
	assert_string_equal(ma, mb);
	free(ma);
	free(mb);
}

static void test_wrappers_same(void **state)
{
	char top[41], base[41], msg[8300], **na, **nb, *da, *db, *ha, *hb, *sa, *sb;
	size_t n1, n2, i;
	ss_repo *r;
	int ya, yb;

	(void)state;
	assert_int_equal(ss_repo_open(&r, repo), 0);
	same_resolve(r, "HEAD");
	same_resolve(r, "main");
	same_resolve(r, "v1.0");
	same_resolve(r, "stable-1.y~1");
	same_resolve(r, "no-such-branch");
	assert_int_equal(ss_repo_resolve(top, r, "main"), 0);
	assert_int_equal(ss_repo_resolve(base, r, "v1.0"), 0);
	snprintf(msg, sizeof(msg), "no commit 'no-such-branch' in '%s'", repo);
	assert_int_equal(ss_repo_resolve(top, r, "no-such-branch"), SS_ENOTFOUND);
	assert_string_equal(ss_error_last(), msg);
	assert_int_equal(ss_repo_resolve(top, r, "main"), 0);

	/* v1.0 is in main's history, main not in v1.0's */
	assert_int_equal(ss_git_contains(&ya, repo, top, base), 0);
	assert_int_equal(ss_repo_contains(&yb, r, top, base), 0);
	assert_int_equal(ya, 1);
	assert_int_equal(yb, 1);
	assert_int_equal(ss_git_contains(&ya, repo, base, top), 0);
	assert_int_equal(ss_repo_contains(&yb, r, base, top), 0);
	assert_int_equal(ya, 0);
	assert_int_equal(yb, 0);
	assert_true(ss_git_contains(&ya, repo, "abc", top) < 0);
	sa = last();
	assert_true(ss_repo_contains(&yb, r, "abc", top) < 0);
	assert_string_equal(ss_error_last(), sa);
	free(sa);

	assert_int_equal(ss_git_branches(&na, &n1, repo, "stable-*"), 0);
	assert_int_equal(ss_repo_branches(&nb, &n2, r, "stable-*"), 0);
	assert_int_equal(n1, 2);
	assert_int_equal(n1, n2);
	for (i = 0; i < n1; i++)
		assert_string_equal(na[i], nb[i]);
	ss_git_free_names(na, n1);
	ss_git_free_names(nb, n2);

	assert_int_equal(ss_git_locate(&da, &ha, repo), 0);
	assert_int_equal(ss_repo_locate(&db, &hb, r), 0);
	assert_string_equal(da, db);
	assert_string_equal(ha, hb);
	assert_string_equal(ha, "main");
	free(da);
	free(db);
	free(ha);
	free(hb);

	assert_int_equal(ss_git_identity(&sa, repo), 0);
	assert_int_equal(ss_repo_identity(&sb, r), 0);
	assert_string_equal(sa, "Ann Maint <ann@example.org>");
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
	assert_int_equal(ss_git_config_string(&sa, repo, "stablesel.failedCc"), 0);
	assert_int_equal(ss_repo_config_string(&sb, r, "stablesel.failedCc"), 0);
	assert_string_equal(sa, "list@example.org");
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
	/* no repository: the global configuration alone (no such key), the
	 * error that came before kept */
	ss_error_set("before");
	assert_int_equal(ss_git_config_string(&sa, "/nonexistent/ss-repo", "stablesel.failedCc"), 0);
	assert_null(sa);
	assert_string_equal(ss_error_last(), "before");
	assert_int_equal(ss_repo_config_string(&sa, NULL, "stablesel.failedCc"), 0);
	assert_null(sa);
	ss_repo_free(r);
}

/* The path readers keep what each did with "git:": the ss_git_* ones
 * open the path as given (no such repository), the layout and the tags
 * drop it. */
static void test_prefix_kept(void **state)
{
	char id[41], msg[8400], **names, *dir;
	size_t n;
	int yes;
	ss_layout *a, *b;
	ss_releases *ra, *rb;
	ss_repo *r;

	(void)state;
	snprintf(msg, sizeof(msg), "cannot open repository '%s': ", prefixed);
	assert_int_equal(ss_git_resolve(id, prefixed, "main"), SS_ENOTFOUND);
	assert_true(!strncmp(ss_error_last(), msg, strlen(msg)));
	assert_true(ss_git_branches(&names, &n, prefixed, NULL) < 0);
	assert_true(!strncmp(ss_error_last(), msg, strlen(msg)));
	assert_true(ss_git_locate(&dir, NULL, prefixed) < 0);
	assert_true(!strncmp(ss_error_last(), msg, strlen(msg)));
	assert_int_equal(ss_git_resolve(id, repo, "main"), 0);
	assert_true(ss_git_contains(&yes, prefixed, id, id) < 0);
	assert_true(!strncmp(ss_error_last(), msg, strlen(msg)));

	assert_int_equal(ss_repo_open(&r, prefixed), 0);
	assert_string_equal(ss_repo_path(r), repo);
	assert_int_equal(ss_layout_find(&a, prefixed, NULL), 0);
	assert_int_equal(ss_layout_find_repo(&b, r, NULL), 0);
	{
		char *x = ss_layout_describe(a), *y = ss_layout_describe(b);

		assert_non_null(x);
		assert_string_equal(x, y);
		assert_string_equal(a->mtip, b->mtip);
		assert_string_equal(a->mtip, id);
		free(x);
		free(y);
	}
	ss_layout_free(a);
	ss_layout_free(b);
	assert_int_equal(ss_releases_tags(&ra, prefixed, NULL), 0);
	assert_int_equal(ss_releases_tags_repo(&rb, r, NULL), 0);
	assert_int_equal(ss_releases_count(ra), ss_releases_count(rb));
	assert_true(ss_releases_count(ra) >= 2);
	for (n = 0; n < ss_releases_count(ra); n++) {
		assert_string_equal(ss_releases_get(ra, n)->tag, ss_releases_get(rb, n)->tag);
		assert_string_equal(ss_releases_get(ra, n)->sha, ss_releases_get(rb, n)->sha);
	}
	ss_releases_free(ra);
	ss_releases_free(rb);
	ss_repo_free(r);
}

/* One layout detection opens its repository once, also when it looks
 * for the mainline a second time (no branch is the mainline: the stable
 * branch of the newest release the branches fork from). */
static void test_layout_opens_once(void **state)
{
	char r[4200];
	ss_layout *l;
	size_t before;

	(void)state;
	before = ss_repo_opened();
	assert_int_equal(ss_layout_find(&l, repo, NULL), 0);
	assert_int_equal(ss_repo_opened() - before, 1);
	ss_layout_free(l);

	snprintf(r, sizeof(r), "%s/stable-only", tmpdir);
	assert_int_equal(test_run("sh '%s' '%s' v1.0 v1.1 v1.1.1 v1.1-rc1 >/dev/null && cd '%s' && "
				  "git branch -q -m stable 1.1 && git checkout -q 1.1 && "
				  "git branch -q -D main", test_script("layoutrepo.sh"), r, r), 0);
	before = ss_repo_opened();
	assert_int_equal(ss_layout_find(&l, r, NULL), 0);
	assert_int_equal(ss_repo_opened() - before, 1);
	assert_non_null(l->note);
	assert_non_null(strstr(l->note, "no branch is the mainline"));
	ss_layout_free(l);
}

/* An index update with nothing new opens its repository once: its
 * layout, the recorded commit's lookup and the tags on one handle (before
 * the handle: three opens). */
static void test_update_opens_once(void **state)
{
	ss_index_options o = SS_INDEX_OPTIONS_INIT;
	ss_index_stats st;
	char db[4200];
	ss_index *ix;
	size_t before;

	(void)state;
	snprintf(db, sizeof(db), "%s/repo.db", tmpdir);
	o.repo = repo;
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_WRITE), 0);
	assert_int_equal(ss_index_update(ix, &o, &st), 0);
	assert_true(st.commits > 0);
	before = ss_repo_opened();
	assert_int_equal(ss_index_update(ix, &o, &st), 0);
	assert_int_equal(st.commits, 0);
	assert_int_equal(st.refs_walked, 0);
	assert_int_equal(ss_repo_opened() - before, 1);
	ss_index_free(ix);
}

/* One --onto resolution opens the repository once; what the check opened
 * serves later lookups (ss_check_repo) and a reader of release lines
 * (ss_histlines_new_repo) without another open. */
static void test_onto_opens_once(void **state)
{
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	ss_histlines *hl;
	ss_check *ck;
	char a[41], b[41];
	size_t before;

	(void)state;
	co.rev = "stable-1.y";
	before = ss_repo_opened();
	assert_int_equal(ss_check_open(&ck, repo, &co), 0);
	assert_int_equal(ss_repo_opened() - before, 1);
	assert_int_equal(ss_git_resolve(a, repo, "stable-1.y"), 0);
	assert_string_equal(ss_check_branch_id(ck), a);
	before = ss_repo_opened();
	assert_int_equal(ss_repo_resolve(b, ss_check_repo(ck), "stable-1.y"), 0);
	assert_string_equal(a, b);
	assert_int_equal(ss_histlines_new_repo(&hl, ss_check_repo(ck)), 0);
	/* the reader holds its own reference: the check may go first */
	ss_check_free(ck);
	assert_int_equal(ss_repo_opened() - before, 0);
	ss_histlines_free(hl);
}

/* The parts of two commits a reader sees, the same (diff as text). */
static void assert_same_commit(const ss_commit *a, const ss_commit *b)
{
	ss_strbuf da = SS_STRBUF_INIT, db = SS_STRBUF_INIT;

	assert_string_equal(a->id, b->id);
	assert_string_equal(a->message, b->message);
	assert_string_equal(a->subject, b->subject);
	assert_string_equal(a->author.name, b->author.name);
	assert_string_equal(a->author.email, b->author.email);
	assert_true(a->author.time == b->author.time);
	assert_string_equal(a->committer.email, b->committer.email);
	assert_true(a->committer.time == b->committer.time);
	assert_string_equal(a->source, b->source);
	assert_int_equal(a->nfiles, b->nfiles);
	assert_int_equal(a->added, b->added);
	assert_int_equal(a->removed, b->removed);
	assert_int_equal(a->ntrailers, b->ntrailers);
	assert_int_equal(a->index, b->index);
	assert_null(a->merge_message);
	assert_null(b->merge_message);
	assert_int_equal(ss_patch_diff(&da, a, 0, NULL), 0);
	assert_int_equal(ss_patch_diff(&db, b, 0, NULL), 0);
	assert_string_equal(da.buf ? da.buf : "", db.buf ? db.buf : "");
	ss_strbuf_release(&da);
	ss_strbuf_release(&db);
}

/* A commit read through an open handle (ss_repo_read_commit: what a
 * run's checks read queued commits and prerequisites with) is the
 * commit the walk "id ^id^" gives (ss_source_read_alone), for every
 * commit, the root and a merge (none) included, without another open;
 * anything but a full id is no commit. */
static void test_read_commit_same(void **state)
{
	char *ids = test_run_output("git -C '%s' rev-list --all", repo), *id, *save = NULL;
	ss_commit *a, *b;
	ss_repo *r;
	size_t before, n = 0, merges = 0;

	(void)state;
	assert_non_null(ids);
	assert_int_equal(ss_repo_open(&r, repo), 0);
	for (id = strtok_r(ids, "\n", &save); id; id = strtok_r(NULL, "\n", &save), n++) {
		assert_int_equal(ss_source_read_alone(&a, repo, id), 0);
		before = ss_repo_opened();
		assert_int_equal(ss_repo_read_commit(&b, r, id), 0);
		assert_int_equal(ss_repo_opened() - before, 0);
		if (!a) {
			assert_null(b);
			merges++;
			continue;
		}
		assert_non_null(b);
		assert_same_commit(a, b);
		ss_commit_free(a);
		ss_commit_free(b);
	}
	assert_true(n > 3);
	assert_true(merges >= 1);
	b = (ss_commit *)1;
	assert_int_equal(ss_repo_read_commit(&b, r, "HEAD"), 0);
	assert_null(b);
	ss_repo_free(r);
	free(ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrappers_same),
		cmocka_unit_test(test_prefix_kept),
		cmocka_unit_test(test_layout_opens_once),
		cmocka_unit_test(test_update_opens_once),
		cmocka_unit_test(test_onto_opens_once),
		cmocka_unit_test(test_read_commit_same),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
