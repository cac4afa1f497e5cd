/*
 * test_commit_graph.c - git's commit-graph file as source/commit_graph.h
 * reads it, and the branch check's ancestry built from it
 * (check/check_branch.c): a repository made with the git CLI whose history has
 * a merge, an octopus merge of three branches (the graph's extra-edge
 * list) and a branch that main never merged; `git commit-graph write
 * --reachable`, then three commits on main the file does not hold.
 * Every commit's parents as the file gives them must be git's, and
 * "is it in main" must be git merge-base --is-ancestor's answer for
 * every commit, with the graph, with its parent positions damaged (the
 * walk then), and with no graph.  git itself is asked without the graph
 * (core.commitGraph=false): it refuses the damaged one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <git2.h>

#include "check/check.h"
#include "source/commit_graph.h"
#include "util/error.h"
#include "testutil.h"

static char *tmpdir;
static char repo_path[4096];

static const char script[] =
	"set -e\n"
	"cd \"$1\"\n"
	"git init -q -b main .\n"
	"git config user.name T; git config user.email t@example.org\n"
	"n=0\n"
	"c() { n=$((n + 1)); echo \"$n\" >\"f$1\"; git add -A; "
	"GIT_AUTHOR_DATE=\"@$((1600000000 + n * 60)) +0000\" "
	"GIT_COMMITTER_DATE=\"@$((1600000000 + n * 60)) +0000\" git commit -q -m \"c$n\"; }\n"
	"for i in 1 2 3 4 5; do c a; done\n"
	"git checkout -q -b side; c s; c s; git checkout -q main; c a\n"
	"git merge -q --no-ff -m merge side\n"
	"git checkout -q -b o1 main~2; c o1; git checkout -q -b o2 main~3; c o2\n"
	"git checkout -q -b o3 main~1; c o3; git checkout -q main\n"
	"git merge -q --no-ff -m octopus o1 o2 o3\n"
	"for i in 1 2 3; do c a; done\n"
	"git checkout -q -b other main~2; c x; c x; git checkout -q main\n"
	"git commit-graph write --reachable\n"
	"for i in 1 2 3; do c a; done\n";

static int setup(void **state)
{
	(void)state;
	git_libgit2_init();
	tmpdir = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	snprintf(repo_path, sizeof(repo_path), "%s/repo", tmpdir);
	return test_repo_from_script(tmpdir, repo_path, script);
}

static int teardown(void **state)
{
	(void)state;
	test_run("rm -rf '%s'", tmpdir);
	free(tmpdir);
	git_libgit2_shutdown();
	return 0;
}

/* Every commit of the repository, as "git rev-list --all" lists them. */
static size_t all_commits(git_oid *out, size_t max)
{
	char *list = test_run_output("git -c core.commitGraph=false -C '%s' rev-list --all",
					    repo_path), *p = list;
	size_t n = 0;

	while (p && *p && n < max) {
		assert_int_equal(git_oid_fromstrn(&out[n++], p, 40), 0);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	free(list);
	return n;
}

static void test_parents_as_git(void **state)
{
	git_repository *repo = NULL;
	ss_commit_graph *g = NULL;
	git_oid ids[200], want, got;
	size_t n, in_graph = 0, octopus = 0;

	(void)state;
	assert_int_equal(git_repository_open(&repo, repo_path), 0);
	assert_int_equal(ss_commit_graph_open(&g, repo), 0);
	assert_non_null(g);
	n = all_commits(ids, 200);
	/* the three commits after the file was written are not in it */
	assert_int_equal(ss_commit_graph_count(g), n - 3);
	for (size_t i = 0; i < n; i++) {
		git_commit *c = NULL;
		uint32_t pos, par[8];
		int np;

		if (!ss_commit_graph_find(g, &ids[i], &pos))
			continue;
		in_graph++;
		ss_commit_graph_id(&got, g, pos);
		assert_true(git_oid_equal(&got, &ids[i]));
		assert_int_equal(git_commit_lookup(&c, repo, &ids[i]), 0);
		np = ss_commit_graph_parents(g, pos, par, 8);
		assert_int_equal(np, (int)git_commit_parentcount(c));
		octopus += np > 2;
		for (int k = 0; k < np; k++) {
			git_oid_cpy(&want, git_commit_parent_id(c, (unsigned)k));
			ss_commit_graph_id(&got, g, par[k]);
			assert_true(git_oid_equal(&got, &want));
		}
		git_commit_free(c);
	}
	assert_int_equal(in_graph, n - 3);
	assert_int_equal(octopus, 1);
	ss_commit_graph_free(g);
	git_repository_free(repo);
}

/* ss_check_in_branch for every commit against git merge-base. */
static void check_all(const char *what, int graph)
{
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	ss_check *ck = NULL;
	git_oid ids[200];
	size_t n = all_commits(ids, 200), yes = 0;

	co.rev = "main";
	assert_int_equal(ss_check_open(&ck, repo_path, &co), 0);
	for (size_t i = 0; i < n; i++) {
		char hex[41];
		int want, got;

		git_oid_tostr(hex, sizeof(hex), &ids[i]);
		want = test_run("git -c core.commitGraph=false -C '%s' merge-base --is-ancestor %s main",
				 repo_path, hex) == 0;
		got = ss_check_in_branch(ck, hex, NULL, NULL);
		if (got != want)
			print_message("%s: %s in main: %d, git says %d\n", what, hex, got, want);
		assert_int_equal(got, want);
		yes += got;
	}
	/* the branch main never merged is the only one outside it */
	assert_int_equal(yes, n - 2);
	/* read one by one only without a graph it trusts: each of main's */
	assert_int_equal(ss_check_ancestry_walked(ck), graph ? 0 : n - 2);
	ss_check_free(ck);
}

static void test_in_branch(void **state)
{
	char path[4300], *buf;
	FILE *f;
	long len;

	(void)state;
	check_all("with the graph", 1);
	/* every parent position damaged: the graph is not trusted, the
	 * commits are walked */
	snprintf(path, sizeof(path), "%s/.git/objects/info/commit-graph", repo_path);
	assert_int_equal(test_run("cp '%s' '%s.good' && chmod u+w '%s'", path, path, path), 0);
	assert_non_null(f = fopen(path, "r+b"));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	assert_non_null(buf = malloc((size_t)len));
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	for (long i = 8; i + 12 <= len; i += 12)
		if (!memcmp(buf + i, "CDAT", 4)) {
			long off = 0, count = 0;

			for (int k = 0; k < 8; k++)
				off = off << 8 | (unsigned char)buf[i + 4 + k];
			for (long e = i; e + 12 <= len && memcmp(buf + e, "\0\0\0\0", 4); e += 12)
				;
			/* parent 1 of every record: past the end */
			for (long r = off; r + 36 <= len && count < 1000; r += 36, count++)
				memcpy(buf + r + 20, "\x6f\xff\xff\xf0", 4);
			break;
		}
	rewind(f);
	assert_int_equal(fwrite(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	free(buf);
	check_all("with a damaged graph", 0);
	/* no graph */
	assert_int_equal(test_run("rm -f '%s'", path), 0);
	check_all("without a graph", 0);
	assert_int_equal(test_run("mv '%s.good' '%s'", path, path), 0);
}

/*
 * Open a check of main keeping its ancestry from keep_min commits
 * (check_ancestry.c), answer "is it in main" for every commit as git
 * merge-base does (and for extra, a commit main no longer holds: no),
 * and say where the ancestry came from.
 */
static ss_check_kept check_kept(size_t keep_min, size_t *added, int *failed, const char *extra)
{
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	ss_check *ck = NULL;
	git_oid ids[200];
	size_t n = all_commits(ids, 200);
	const char *error;
	ss_check_kept kept;

	co.rev = "main";
	co.ancestry_keep_min = keep_min;
	assert_int_equal(ss_check_open(&ck, repo_path, &co), 0);
	for (size_t i = 0; i < n; i++) {
		char hex[41];
		int want;

		git_oid_tostr(hex, sizeof(hex), &ids[i]);
		want = test_run("git -c core.commitGraph=false -C '%s' merge-base --is-ancestor %s main",
				 repo_path, hex) == 0;
		assert_int_equal(ss_check_in_branch(ck, hex, NULL, NULL), want);
	}
	if (extra)
		assert_int_equal(ss_check_in_branch(ck, extra, NULL, NULL), 0);
	kept = ss_check_ancestry_kept(ck, added, &error);
	*failed = error != NULL;
	ss_check_free(ck);
	return kept;
}

/* The ancestry kept between runs: written, read, extended as the branch
 * moves on, built again when it was rewritten or the file is damaged,
 * never kept under its size, and a run that cannot write it goes on. */
static void test_kept_ancestry(void **state)
{
	char dir[4200], *old;
	size_t added;
	int failed;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/.git/stablesel/ancestry", repo_path);
	/* the default size: the earlier tests' small history kept nothing */
	assert_int_not_equal(test_run("test -e '%s'", dir), 0);
	assert_int_equal(check_kept(0, &added, &failed, NULL), SS_CHECK_KEPT_NONE);
	assert_int_not_equal(test_run("test -e '%s'", dir), 0);
	assert_int_equal(check_kept(SIZE_MAX, &added, &failed, NULL), SS_CHECK_KEPT_NONE);
	/* kept from one commit: written, then read as it is */
	assert_int_equal(check_kept(1, &added, &failed, NULL), SS_CHECK_KEPT_WRITTEN);
	assert_false(failed);
	assert_int_equal(test_run("test $(ls '%s' | wc -l) = 1", dir), 0);
	assert_int_equal(check_kept(1, &added, &failed, NULL), SS_CHECK_KEPT_READ);
	/* SIZE_MAX: the file is not read either */
	assert_int_equal(check_kept(SIZE_MAX, &added, &failed, NULL), SS_CHECK_KEPT_NONE);
	/* --onto a commit by id: nothing kept (a replay's points would each
	 * leave a file) */
	{
		ss_check_options co = SS_CHECK_OPTIONS_INIT;
		ss_check *ck = NULL;
		char *tip = test_run_output("git -C '%s' rev-parse main~1 main~3", repo_path);

		tip[40] = tip[81] = '\0';
		co.rev = tip;
		co.ancestry_keep_min = 1;
		assert_int_equal(ss_check_open(&ck, repo_path, &co), 0);
		/* not the tip itself: the ancestry is built for it */
		assert_int_equal(ss_check_in_branch(ck, tip + 41, NULL, NULL), 1);
		assert_int_equal(ss_check_ancestry_kept(ck, NULL, NULL), SS_CHECK_KEPT_NONE);
		ss_check_free(ck);
		free(tip);
		assert_int_equal(test_run("test $(ls '%s' | wc -l) = 1", dir), 0);
	}
	/* two commits more on main: the file and those two */
	assert_int_equal(test_run("cd '%s' && for i in 1 2; do echo $i >>fk; git add fk; "
				  "git commit -q -m k$i; done", repo_path), 0);
	assert_int_equal(check_kept(1, &added, &failed, NULL), SS_CHECK_KEPT_EXTENDED);
	assert_int_equal(added, 2);
	assert_int_equal(check_kept(1, &added, &failed, NULL), SS_CHECK_KEPT_READ);
	/* main rewritten: the old tip is no ancestor, the file not taken */
	old = test_run_output("git -C '%s' rev-parse main", repo_path);
	old[40] = '\0';
	assert_int_equal(test_run("cd '%s' && git reset -q --hard main~2 && echo r >fr && git add fr && "
				  "git commit -q -m rewritten", repo_path), 0);
	assert_int_equal(check_kept(1, &added, &failed, old), SS_CHECK_KEPT_WRITTEN);
	assert_int_equal(check_kept(1, &added, &failed, old), SS_CHECK_KEPT_READ);
	free(old);
	/* a damaged file (cut short): built again and written */
	assert_int_equal(test_run("f=$(ls '%s'/*) && head -c -3 \"$f\" >'%s.cut' && mv '%s.cut' \"$f\"",
				  dir, dir, dir), 0);
	assert_int_equal(check_kept(1, &added, &failed, NULL), SS_CHECK_KEPT_WRITTEN);
	assert_int_equal(check_kept(1, &added, &failed, NULL), SS_CHECK_KEPT_READ);
	/* no folder can be made there: the answers all the same, and why */
	assert_int_equal(test_run("rm -rf '%s' && echo no >'%s'", dir, dir), 0);
	assert_int_equal(check_kept(1, &added, &failed, NULL), SS_CHECK_KEPT_NONE);
	assert_true(failed);
	assert_int_equal(test_run("rm -f '%s'", dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parents_as_git),
		cmocka_unit_test(test_in_branch),
		cmocka_unit_test(test_kept_ancestry),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
