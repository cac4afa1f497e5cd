/*
 * test_check.c - commits checked against a stable branch (check/check.h)
 * on a repository made with the git CLI:
 *
 *   base ── stable (branch): the fork point, one commit of its own that
 *         puts two lines in front of a.c (later hunks apply at an offset)
 *     └── main: prep (rewrites a.c line 5), dep (changes line 5 again:
 *         needs prep), other (b.c), newfile (adds c.c), onnew (changes
 *         c.c), fixold (Fixes: base), fixnew (Fixes: prep), bin (a
 *         binary file), fixbranch (Fixes: beef, a branch name), a revert
 *         of other
 *
 * Each main commit is read by the git source and checked against
 * "stable"; the same commits as format-patch mails give the same
 * answers; the CLI prints one row per commit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <gmime/gmime.h>

#include "check/check.h"
#include "history/histidx.h"
#include "source/git_repo.h"
#include "source/source.h"
#include "util/error.h"
#include "testutil.h"

static const char script[] =
	"set -e\n"
	"cd \"$1\"\n"
	"git init -q -b main .\n"
	"git config user.name T; git config user.email t@example.org\n"
	"c() { GIT_AUTHOR_DATE=\"@$1 +0000\" GIT_COMMITTER_DATE=\"@$1 +0000\" git commit -q \"$@\"; }\n"
	"seq 1 10 > a.c; printf 'x\\n' > b.c; git add .; GIT_COMMITTER_DATE='@1000 +0000' "
	"git commit -q --date='@1000 +0000' -m base\n"
	"git branch stable\n"
	"sed -i 's/^5$/five/' a.c; git commit -qam prep --date='@2000 +0000'\n"
	"sed -i 's/^five$/FIVE/' a.c; git commit -qam dep --date='@3000 +0000'\n"
	"printf 'x\\ny\\n' > b.c; git commit -qam other --date='@4000 +0000'\n"
	"seq 1 3 > c.c; git add c.c; git commit -qm newfile --date='@5000 +0000'\n"
	"sed -i 's/^2$/two/' c.c; git commit -qam onnew --date='@6000 +0000'\n"
	"base=$(git rev-parse HEAD~5); prep=$(git rev-parse HEAD~4)\n"
	"sed -i 's/^9$/nine/' a.c; git commit -qa --date='@7000 +0000' "
	"-m 'fixold' -m \"Fixes: $(echo $base | cut -c1-12) (\\\"base\\\")\"\n"
	"sed -i 's/^1$/one/' a.c; git commit -qa --date='@8000 +0000' "
	"-m 'fixnew' -m \"Fixes: $(echo $prep | cut -c1-12) (\\\"prep\\\")\"\n"
	"printf '\\000\\001\\002' > d.bin; git add d.bin; git commit -qm bin --date='@9000 +0000'\n"
	"git branch beef stable; printf 'e\\n' > e.txt; git add e.txt; "
	"git commit -q --date='@9500 +0000' -m fixbranch -m 'Fixes: beef (\"x\")'\n"
	"git revert --no-edit $(git log --format=%H --grep='^other$' -1) >/dev/null\n"
	"git checkout -q stable\n"
	"printf 'stable only\\n' > s.txt; printf 'h1\\nh2\\n' | cat - a.c > t; mv t a.c\n"
	"git add s.txt a.c; git commit -qm 'stable fix' "
	"--date='@2500 +0000'\n"
	"git checkout -q main\n"
	"git format-patch -q --stdout stable~1..main > ../main.mbox\n";

static char *tmp;
static char repo[512], mbox[512];

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir();
	snprintf(repo, sizeof(repo), "%s/repo", tmp);
	snprintf(mbox, sizeof(mbox), "%s/main.mbox", tmp);
	return test_repo_from_script(tmp, repo, script);
}

static int teardown(void **state)
{
	(void)state;
	test_run("rm -rf '%s'", tmp);
	free(tmp);
	return 0;
}

struct expect {
	const char *subject;
	ss_apply_status apply;
	const char *path;
	int hunk;
	const char *needs;  /* subject of the one commit needed first, or NULL */
	int in_branch;
	int bug;
};

static const struct expect expected[] = {
	{ "base", SS_APPLY_EXISTS, "a.c", 0, NULL, 1, -1 },    /* already there */
	{ "prep", SS_APPLY_CLEAN, "", 0, NULL, 0, -1 },
	{ "dep", SS_APPLY_CONFLICT, "a.c", 1, "prep", 0, -1 }, /* prep first */
	{ "other", SS_APPLY_CLEAN, "", 0, NULL, 0, -1 },
	{ "newfile", SS_APPLY_CLEAN, "", 0, NULL, 0, -1 },
	{ "onnew", SS_APPLY_MISSING, "c.c", 0, NULL, 0, -1 },  /* c.c came after the fork */
	{ "fixold", SS_APPLY_CLEAN, "", 0, NULL, 0, 1 },       /* the bug is in stable */
	/* prep never reached stable; and line 1 moved there (a hunk from line
	 * 1 must match at the start, as in git apply) */
	{ "fixnew", SS_APPLY_CONFLICT, "a.c", 1, NULL, 0, 0 },
	{ "bin", SS_APPLY_UNKNOWN, "d.bin", 0, NULL, 0, -1 },
	/* "beef" is a branch, not a commit id: the target is unknown */
	{ "fixbranch", SS_APPLY_CLEAN, "", 0, NULL, 0, -1 },
	/* the reverted commit is not in stable: neither is the "bug"; and it
	 * must come first */
	{ "Revert \"other\"", SS_APPLY_CONFLICT, "b.c", 1, "other", 0, 0 },
};

static char subject_ids[16][2][64];   /* subject -> full id, from the git source */
static int nsubject_ids;

static const char *id_of(const char *subject)
{
	for (int i = 0; i < nsubject_ids; i++)
		if (!strcmp(subject_ids[i][0], subject))
			return subject_ids[i][1];
	return NULL;
}

static const struct expect *expect_of(const char *subject)
{
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		if (!strcmp(expected[i].subject, subject))
			return &expected[i];
	return NULL;
}

/* Check every commit of source path (a repository with revs, or an mbox)
 * against "stable", naming prerequisites when prereqs; *n gets how many
 * had an expectation. */
static void check_source(const char *path, const char *rev, int prereqs, size_t *n)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	const char *revs[1] = { rev };
	ss_source *src;
	ss_check *ck;
	ss_commit *c;

	*n = 0;
	if (rev) {
		opts.revs = revs;
		opts.nrevs = 1;
	}
	co.rev = "stable";
	co.prereqs = prereqs;
	assert_int_equal(ss_check_open(&ck, repo, &co), 0);
	assert_int_equal(strlen(ss_check_branch_id(ck)), 40);
	assert_int_equal(ss_source_open(&src, path, &opts), 0);
	while (ss_source_next(&c, src) == 0) {
		const struct expect *e = expect_of(c->subject);
		ss_check_result r;

		assert_int_equal(ss_check_commit(&r, ck, c), 0);
		print_message("%-8s %-8s %-5s hunk %d needs %d %.12s in %d bug %d %.12s\n",
			      c->subject, ss_apply_status_name(r.apply), r.path, r.hunk, r.nneeds,
			      r.nneeds ? r.needs[0] : "", r.in_branch, r.bug_in_branch, r.target);
		if (rev && nsubject_ids < 16) {
			snprintf(subject_ids[nsubject_ids][0], 64, "%s", c->subject);
			snprintf(subject_ids[nsubject_ids++][1], 64, "%s", c->id);
		}
		if (e && prereqs && e->needs) {
			assert_int_equal(r.nneeds, 1);
			assert_non_null(id_of(e->needs));
			assert_string_equal(r.needs[0], id_of(e->needs));
		} else {
			assert_int_equal(r.nneeds, 0);
		}
		if (e) {
			assert_int_equal(r.apply, e->apply);
			assert_string_equal(r.path, e->path);
			assert_int_equal(r.hunk, e->hunk);
			/* a mail's id is the commit's own (format-patch From line) */
			assert_int_equal(r.in_branch, e->in_branch);
			assert_int_equal(r.bug_in_branch, e->bug);
			if (e->bug >= 0)
				assert_int_equal(strlen(r.target), 40);
			(*n)++;
		}
		ss_commit_free(c);
	}
	ss_source_free(src);
	ss_check_free(ck);
}

static void test_git_commits(void **state)
{
	size_t n;

	(void)state;
	check_source(repo, "main", 0, &n);
	assert_int_equal(n, 11);
	/* the commits that must come first, by blame (subject ids known now) */
	check_source(repo, "main", 1, &n);
	assert_int_equal(n, 11);
}

/* The same commits as mail: the patch is rebuilt from the parsed hunks. */
static void test_mail_commits(void **state)
{
	size_t n;

	(void)state;
	check_source(mbox, NULL, 0, &n);
	assert_int_equal(n, 10);   /* format-patch from stable~1: base is not there */
	/* mails of commits the repository has: blamed there */
	check_source(mbox, NULL, 1, &n);
	assert_int_equal(n, 10);
}

static void test_bad_branch(void **state)
{
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	ss_check *ck;

	(void)state;
	co.rev = "no-such-branch";
	assert_true(ss_check_open(&ck, repo, &co) < 0);
	assert_null(ck);
	assert_non_null(strstr(ss_error_last(), "no-such-branch"));
	assert_true(ss_check_open(&ck, "/nonexistent/repo", NULL) < 0);
	assert_non_null(strstr(ss_error_last(), "/nonexistent/repo"));
	{
		/* a name longer than a ref can be kept: refused, not cut */
		char longname[400];

		memset(longname, 'b', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		co.rev = longname;
		assert_true(ss_check_open(&ck, repo, &co) < 0);
		assert_null(ck);
		assert_non_null(strstr(ss_error_last(), "a name of 399 bytes"));
		assert_null(strchr(ss_error_last(), '\n'));
	}
	ss_check_free(NULL);
}

/* A branch check opens its repository once, and its history index reads
 * through that handle; the checks of one repository that share a blame
 * cache share one handle too, whichever is freed first. */
static void test_repo_shared(void **state)
{
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	ss_check_blame_cache *bc;
	ss_check *a, *b;
	char id[41];
	size_t before, np;

	(void)state;
	before = ss_repo_opened();
	assert_int_equal(ss_check_open(&a, repo, NULL), 0);
	assert_int_equal(ss_repo_opened() - before, 1);
	/* the history index has the repository attached: it resolves there */
	assert_int_equal(ss_histidx_rev_parse(id, &np, ss_check_history(a), "HEAD"), 0);
	assert_string_equal(id, ss_check_branch_id(a));
	ss_check_free(a);

	assert_int_equal(ss_check_blame_cache_new(&bc), 0);
	co.blame_cache = bc;
	co.rev = "stable";
	before = ss_repo_opened();
	assert_int_equal(ss_check_open(&a, repo, &co), 0);
	co.rev = "main";
	assert_int_equal(ss_check_open(&b, repo, &co), 0);
	assert_int_equal(ss_repo_opened() - before, 1);
	/* one check freed, the other still reads the shared repository */
	ss_check_free(a);
	assert_int_equal(ss_check_in_branch(b, ss_check_branch_id(b), NULL, NULL), 1);
	ss_check_free(b);
	ss_check_blame_cache_free(bc);
}

static void test_check_cli(void **state)
{
	char path[600], *out;

	(void)state;
	assert_int_equal(test_run("./stablesel check --onto-repo '%s' --onto stable '%s' "
				  ">'%s/out.tsv' 2>'%s/err'", repo, mbox, tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/out.tsv", tmp);
	out = test_read_file(path, NULL);
	assert_non_null(out);
	assert_non_null(strstr(out, "commit\tapply\tpath\thunk\tneeds\tin_branch\tbug\ttarget\t"
				    "subject\n"));
	assert_non_null(strstr(out, "\tconflict\ta.c\t1\t\tno\tunknown\t\tdep\n"));
	assert_non_null(strstr(out, "\tmissing\tc.c\t0\t\tno\tunknown\t\tonnew\n"));
	assert_non_null(strstr(out, "\tapplies\t\t0\t\tno\tyes\t"));
	free(out);
	snprintf(path, sizeof(path), "%s/err", tmp);
	out = test_read_file(path, NULL);
	assert_non_null(strstr(out, "checked 10 commits against stable"));
	free(out);
	/* every verdict but "unknown" (the binary file) is git apply
	 * --check's, in a checkout of stable */
	assert_int_equal(test_run("cd '%s' && mkdir tree && git -C repo archive stable | tar -x -C tree && "
				  "for c in $(git -C repo rev-list stable~1..main); do "
				  "if git -C repo format-patch -1 --stdout $c | (cd tree && git apply --check - "
				  "2>/dev/null); then v=applies; else v=fails; fi; "
				  "echo $(echo $c | cut -c1-12) $v; done | sort > git.txt && "
				  "awk -F'\\t' 'NR > 1 && $2 != \"unknown\" { "
				  "print $1, ($2 == \"applies\" ? \"applies\" : \"fails\") }' "
				  "out.tsv | sort > ss.txt && join ss.txt git.txt > both.txt && "
				  "test $(wc -l < both.txt) -eq 9 && ! awk '$2 != $3' both.txt | grep .",
				  tmp), 0);
	/* --prereqs names what dep needs first: prep */
	assert_int_equal(test_run("./stablesel check --prereqs --onto-repo '%s' --onto stable '%s' "
				  "2>/dev/null | awk -F'\\t' '$NF == \"dep\" { print $5 }' "
				  ">'%s/needs'", repo, mbox, tmp), 0);
	snprintf(path, sizeof(path), "%s/needs", tmp);
	out = test_read_file(path, NULL);
	assert_non_null(out);
	assert_int_equal(strlen(out), 13);   /* one abbreviated id and a newline */
	assert_true(!strncmp(out, id_of("prep"), 12));
	free(out);
	snprintf(path, sizeof(path), "%s/err", tmp);
	/* usage errors: no branch repository (none named, none stood in),
	 * nothing to check */
	{
		char cwd[4096];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(test_run("cd '%s' && %s%s%s check '%s' 2>/dev/null", tmp,
					  test_bin()[0] == '/' ? "" : cwd,
					  test_bin()[0] == '/' ? "" : "/", test_bin(), mbox), 129);
	}
	assert_int_equal(test_run("./stablesel check --onto-repo '%s' 2>/dev/null", repo), 129);
	/* a branch that does not resolve: one line naming it, exit 128 */
	assert_int_equal(test_run("./stablesel check --onto-repo '%s' --onto nope '%s' "
				  ">/dev/null 2>'%s/err'", repo, mbox, tmp), 128);
	out = test_read_file(path, NULL);
	assert_non_null(strstr(out, "'nope'"));
	free(out);
}

/*
 * --onto as a maintainer types it: in a fresh clone "stable" is only
 * origin/stable; a tag of the same name naming another commit makes it
 * ambiguous (a warning names the one taken); an id and a tag work; -o
 * writes the rows to a file.
 */
static void test_onto_names(void **state)
{
	char path[700], *out, *err;

	(void)state;
	assert_int_equal(test_run("cd '%s' && rm -rf clone && git clone -q repo clone 2>/dev/null && "
				  "git -C clone branch -a | grep -q 'remotes/origin/stable' && "
				  "! git -C clone rev-parse -q --verify refs/heads/stable >/dev/null", tmp), 0);
	assert_int_equal(test_run("./stablesel check --onto-repo '%s/clone' --onto stable -o '%s/o1.tsv' "
				  "'%s' >'%s/stdout' 2>'%s/err'", tmp, tmp, mbox, tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/stdout", tmp);
	out = test_read_file(path, NULL);
	assert_string_equal(out, "");   /* -o: nothing on stdout */
	free(out);
	snprintf(path, sizeof(path), "%s/err", tmp);
	err = test_read_file(path, NULL);
	assert_non_null(strstr(err, "against stable (refs/remotes/origin/stable "));
	assert_null(strstr(err, "ambiguous"));
	free(err);
	/* the same rows as against the local branch of the original */
	assert_int_equal(test_run("./stablesel check --onto-repo '%s' --onto stable '%s' 2>/dev/null | "
				  "cmp - '%s/o1.tsv'", repo, mbox, tmp), 0);
	/* a tag "stable" on main: ambiguous, the remote-tracking branch is
	 * taken and the warning says so */
	assert_int_equal(test_run("git -C '%s/clone' tag stable main", tmp), 0);
	assert_int_equal(test_run("./stablesel check --onto-repo '%s/clone' --onto stable -o '%s/o2.tsv' "
				  "'%s' 2>'%s/err' && cmp '%s/o1.tsv' '%s/o2.tsv'", tmp, tmp, mbox, tmp,
				  tmp, tmp), 0);
	err = test_read_file(path, NULL);
	assert_non_null(strstr(err, "warning: 'stable' is ambiguous: refs/remotes/origin/stable ("));
	assert_non_null(strstr(err, "refs/tags/stable ("));
	assert_non_null(strstr(err, "took refs/remotes/origin/stable"));
	free(err);
	/* a local branch wins over both */
	assert_int_equal(test_run("git -C '%s/clone' branch -q stable origin/stable && "
				  "./stablesel check --onto-repo '%s/clone' --onto stable '%s' 2>'%s/err' "
				  ">/dev/null", tmp, tmp, mbox, tmp), 0);
	err = test_read_file(path, NULL);
	assert_non_null(strstr(err, "took refs/heads/stable"));
	free(err);
	/* a local branch beside another remote's branch of that name and
	 * other commit: git rev-parse is silent (refs/remotes/github/stable
	 * is not refs/remotes/stable), and so is check (issue 35, case 19) */
	assert_int_equal(test_run("git -C '%s/clone' tag -d stable >/dev/null && "
				  "git -C '%s/clone' update-ref refs/remotes/github/stable main && "
				  "git -C '%s/clone' rev-parse stable 2>'%s/err.git' >/dev/null && "
				  "! test -s '%s/err.git' && "
				  "./stablesel check --onto-repo '%s/clone' --onto stable '%s' 2>'%s/err' "
				  ">/dev/null", tmp, tmp, tmp, tmp, tmp, tmp, mbox, tmp), 0);
	err = test_read_file(path, NULL);
	assert_null(strstr(err, "ambiguous"));
	assert_non_null(strstr(err, "against stable (refs/heads/stable "));
	free(err);
	/* with the tag back, git warns too: so does check */
	assert_int_equal(test_run("git -C '%s/clone' tag stable main && "
				  "./stablesel check --onto-repo '%s/clone' --onto stable '%s' 2>'%s/err' "
				  ">/dev/null", tmp, tmp, mbox, tmp), 0);
	err = test_read_file(path, NULL);
	assert_non_null(strstr(err, "'stable' is ambiguous"));
	assert_non_null(strstr(err, "took refs/heads/stable"));
	free(err);
	/* an id and the tag by its full name: no warning */
	assert_int_equal(test_run("./stablesel check --onto-repo '%s/clone' "
				  "--onto $(git -C '%s/clone' rev-parse origin/stable | cut -c1-10) "
				  "-o '%s/o3.tsv' '%s' 2>'%s/err' && cmp '%s/o1.tsv' '%s/o3.tsv' && "
				  "! grep -q warning '%s/err'", tmp, tmp, tmp, mbox, tmp, tmp, tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel check --onto-repo '%s/clone' --onto refs/tags/stable "
				  "'%s' 2>'%s/err' >/dev/null && ! grep -q warning '%s/err' && "
				  "grep -q 'against stable (refs/tags/stable ' '%s/err'", tmp, mbox, tmp, tmp, tmp), 0);
}

/* A series in memory: dep conflicts alone and applies after prep; prep
 * twice does not apply; a failed commit leaves the series as it was. */
static void test_series(void **state)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	const char *revs[1] = { "main" };
	ss_commit *c, *prep = NULL, *dep = NULL, *other = NULL;
	ss_check_series *s;
	ss_check_result r;
	ss_source *src;
	ss_check *ck;

	(void)state;
	opts.revs = revs;
	opts.nrevs = 1;
	co.rev = "stable";
	assert_int_equal(ss_check_open(&ck, repo, &co), 0);
	assert_int_equal(ss_source_open(&src, repo, &opts), 0);
	while (ss_source_next(&c, src) == 0) {
		if (!strcmp(c->subject, "prep"))
			prep = c;
		else if (!strcmp(c->subject, "dep"))
			dep = c;
		else if (!strcmp(c->subject, "other"))
			other = c;
		else
			ss_commit_free(c);
	}
	ss_source_free(src);
	assert_non_null(prep);
	assert_non_null(dep);
	assert_non_null(other);
	assert_int_equal(ss_check_series_new(&s, ck), 0);
	assert_int_equal(ss_check_series_apply(&r, s, dep), 1);
	assert_int_equal(r.apply, SS_APPLY_CONFLICT);
	assert_string_equal(r.path, "a.c");
	assert_int_equal(ss_check_series_apply(&r, s, prep), 0);
	assert_int_equal(r.apply, SS_APPLY_CLEAN);
	/* prep again: its preimage ("5") is gone */
	assert_int_equal(ss_check_series_apply(&r, s, prep), 1);
	assert_int_equal(ss_check_series_apply(&r, s, dep), 0);
	assert_int_equal(ss_check_series_apply(&r, s, other), 0);
	assert_int_equal(ss_check_series_apply(&r, s, other), 1);
	/* the files after the series equal git's: prep, dep and other
	 * applied with git apply in a checkout of stable */
	assert_int_equal(test_run("cd '%s' && rm -rf st && mkdir st && git -C repo archive stable | "
				  "tar -x -C st && for s in prep dep other; do "
				  "git -C repo format-patch -1 --stdout $(git -C repo log --format=%%H -1 "
				  "--grep=\"^$s\\$\" main) | (cd st && git apply -) || exit 1; done", tmp), 0);
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "b.c" : "a.c";
		char path[700], *mine, *git;
		size_t len;

		snprintf(path, sizeof(path), "%s/st/%s", tmp, name);
		git = test_read_file(path, NULL);
		assert_int_equal(ss_check_series_file(&mine, &len, s, name), 1);
		assert_string_equal(mine, git);
		free(mine);
		free(git);
	}
	{
		char *none;
		size_t len;

		assert_int_equal(ss_check_series_file(&none, &len, s, "no/such.c"), 0);
	}
	ss_check_series_free(s);
	ss_check_series_free(NULL);
	ss_commit_free(prep);
	ss_commit_free(dep);
	ss_commit_free(other);
	ss_check_free(ck);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git_commits),
		cmocka_unit_test(test_mail_commits),
		cmocka_unit_test(test_bad_branch),
		cmocka_unit_test(test_repo_shared),
		cmocka_unit_test(test_check_cli),
		cmocka_unit_test(test_onto_names),
		cmocka_unit_test(test_series),
	};

	g_mime_init();
	return cmocka_run_group_tests(tests, setup, teardown);
}
