/*
 * test_patchid.c - patch ids against git's own "git patch-id --stable".
 *
 * tests/gitrepo.sh builds a repository with text edits, a rename, a mode
 * change, a deleted file, binary files and a file without a final newline.
 * For every non-merge commit on its branches:
 *  - ss_patch_id_text() on "git show" output equals git patch-id --stable,
 *    binary changes excepted (git hashes blob ids; we give no id);
 *  - ss_commit_patch_id() of the commit read from the repository equals it
 *    for text changes, and equals the id of the same commit read from
 *    "git format-patch" mail, renames included;
 *  - the cherry-picked backports on the stable branches have the id of
 *    their mainline commit.
 * Also: file order does not change an id, white space does not, an
 * added line does.
 */
#include "testutil.h"

#include <git2.h>
#include <gmime/gmime.h>

#include "commit/patchid.h"
#include "source/source.h"
#include "util/error.h"

static char *dir;

/* git's patch id of commit sha ("" when git gives none). */
static void git_patch_id(char out[41], const char *sha)
{
	char *s = test_run_output("cd '%s/repo' && git show --format= %s | git patch-id --stable", dir, sha);

	out[0] = '\0';
	if (strlen(s) >= 40)
		snprintf(out, 41, "%.40s", s);
	free(s);
}

struct read_commit {
	char id[41];
	char pid[41];
	int binary, renamed;
};

/* Every commit of a source with its patch id ("" when none). */
static size_t read_all(struct read_commit *out, size_t max, const char *spec, const char *repo,
		       const char *rev)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	const char *revs[1] = { rev };
	ss_source *src;
	ss_commit *c;
	size_t n = 0, i;
	int rc;

	o.repo = repo;
	o.revs = rev ? revs : NULL;
	o.nrevs = rev ? 1 : 0;
	if (ss_source_open(&src, spec, &o))
		fail_msg("cannot open %s: %s", spec, ss_error_last());
	while ((rc = ss_source_next(&c, src)) != SS_ITEROVER) {
		if (rc == SS_ESKIP)
			continue;
		if (rc)
			fail_msg("%s: %s", spec, ss_error_last());
		assert_true(n < max);
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].id, sizeof(out[n].id), "%s", c->id);
		for (i = 0; i < c->nfiles; i++) {
			out[n].binary |= c->files[i].binary;
			out[n].renamed |= c->files[i].status == SS_FILE_RENAMED;
		}
		rc = ss_commit_patch_id(out[n].pid, c);
		assert_true(rc == 0 || rc == SS_ENOTFOUND);
		if (rc)
			out[n].pid[0] = '\0';
		n++;
		ss_commit_free(c);
	}
	ss_source_free(src);
	return n;
}

static const struct read_commit *find(const struct read_commit *v, size_t n, const char *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(v[i].id, id, 40))
			return &v[i];
	return NULL;
}

static void test_against_git(void **state)
{
	struct read_commit repo[64], mail[64];
	size_t nrepo, nmail, checked = 0, text_checked = 0, shared = 0;
	char *list, *p, path[4096];

	(void)state;
	static const char *const branches[] = { "main", "stable-1.y", "stable-2.y" };
	size_t b, i, j;

	snprintf(path, sizeof(path), "%s/repo", dir);
	for (nrepo = 0, b = 0; b < 3; b++)
		nrepo += read_all(repo + nrepo, 64 - nrepo, path, path, branches[b]);
	assert_true(nrepo >= 12);
	free(test_run_output("cd '%s/repo' && git format-patch -q --stdout --root main > ../main.mbox", dir));
	snprintf(path, sizeof(path), "%s/main.mbox", dir);
	nmail = read_all(mail, 64, path, NULL, NULL);
	assert_true(nmail >= 8);

	list = test_run_output("cd '%s/repo' && git rev-list --no-merges --all", dir);
	for (p = strtok(list, "\n"); p; p = strtok(NULL, "\n")) {
		const struct read_commit *r = find(repo, nrepo, p), *m = find(mail, nmail, p);
		char want[41], got[41], *show;
		int rc;

		assert_non_null(r);
		git_patch_id(want, p);
		/* the text of git's own diff gives git's id, binary files aside */
		show = test_run_output("cd '%s/repo' && git show --format= %s", dir, p);
		rc = ss_patch_id_text(got, show, strlen(show));
		free(show);
		if (r->binary) {
			assert_int_equal(rc, SS_ENOTFOUND);
			assert_string_equal(r->pid, "");
			continue;
		}
		if (!want[0]) { /* an empty commit */
			assert_int_equal(rc, SS_ENOTFOUND);
			assert_string_equal(r->pid, "");
			continue;
		}
		assert_int_equal(rc, 0);
		assert_string_equal(got, want);
		text_checked++;
		/* the commit rebuilt from its parsed diff: git's id, except for
		 * renames, whose "similarity index" line is not kept */
		if (!r->renamed) {
			assert_string_equal(r->pid, want);
			checked++;
		}
		/* read from mail, the same commit has the same id */
		if (m)
			assert_string_equal(m->pid, r->pid);
	}
	free(list);
	assert_true(text_checked >= 10);
	assert_true(checked >= 9);
	/* backports: two commits share an id exactly when git says so */
	for (i = 0; i < nrepo; i++) {
		char gi[41], gj[41];

		if (!repo[i].pid[0] || repo[i].renamed)
			continue;
		git_patch_id(gi, repo[i].id);
		for (j = i + 1; j < nrepo; j++) {
			if (!repo[j].pid[0] || repo[j].renamed || !strcmp(repo[i].id, repo[j].id))
				continue;
			git_patch_id(gj, repo[j].id);
			assert_int_equal(!strcmp(repo[i].pid, repo[j].pid), !strcmp(gi, gj));
			shared += !strcmp(gi, gj);
		}
	}
	print_message("%zu commits match git's text id, %zu git's commit id, %zu pairs share one\n",
		      text_checked, checked, shared);
	/* the cherry-picked fixes of stable-1.y and stable-2.y */
	assert_true(shared >= 2);
}

static void test_text_rules(void **state)
{
	static const char a[] =
		"diff --git a/x.c b/x.c\n"
		"index 1111111..2222222 100644\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,2 +1,2 @@\n"
		" int a;\n"
		"-int b;\n"
		"+int  b = 1;\n";
	static const char b[] =
		"diff --git a/y.c b/y.c\n"
		"--- a/y.c\n"
		"+++ b/y.c\n"
		"@@ -10 +10,2 @@ void f(void)\n"
		" }\n"
		"+\n";
	char ab[1024], ba[1024], ws[1024], one[41], two[41], three[41];

	(void)state;
	snprintf(ab, sizeof(ab), "commit message\n\n%s%s", a, b);
	snprintf(ba, sizeof(ba), "%s%s", b, a);
	assert_int_equal(ss_patch_id_text(one, ab, strlen(ab)), 0);
	assert_int_equal(ss_patch_id_text(two, ba, strlen(ba)), 0);
	/* file order and text before the diff do not matter */
	assert_string_equal(one, two);
	/* white space and line numbers do not matter */
	snprintf(ws, sizeof(ws), "%s%s", b, a);
	memcpy(strstr(ws, "@@ -10 +10,2 @@"), "@@ -99 +77,2 @@", 15);
	memcpy(strstr(ws, "int  b = 1;"), "int b=1;   ", 11);
	assert_int_equal(ss_patch_id_text(three, ws, strlen(ws)), 0);
	assert_string_equal(one, three);
	/* a changed line does */
	snprintf(ws, sizeof(ws), "%s%s", a, b);
	*strstr(ws, "b = 1") = 'c';
	assert_int_equal(ss_patch_id_text(three, ws, strlen(ws)), 0);
	assert_string_not_equal(one, three);
	/* no diff, no id */
	assert_int_equal(ss_patch_id_text(three, "just words\n", 11), SS_ENOTFOUND);
	assert_int_equal(ss_patch_id_text(three, "", 0), SS_ENOTFOUND);
}

/* The real DPDK repository: every text commit of v21.11..v22.03 has git's
 * patch id (renames aside), which needs git's indent heuristic. */
static void test_dpdk_repository(void **state)
{
	static struct read_commit v[2048];
	char path[4096], *ids, *line, *save = NULL;
	size_t n, same = 0;

	(void)state;
	SS_REQUIRE_DATA();
	assert_int_equal(test_run("tar -xf '%s/dpdk/dpdk-v22.03.git.tar' -C '%s'", test_data_dir(), dir), 0);
	snprintf(path, sizeof(path), "%s/dpdk.git", dir);
	n = read_all(v, 2048, path, path, "v21.11..v22.03");
	assert_true(n > 900);
	ids = test_run_output("cd '%s' && git log -p --no-merges v21.11..v22.03 | git patch-id --stable", path);
	for (line = strtok_r(ids, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const struct read_commit *r;

		assert_true(strlen(line) >= 81);
		r = find(v, n, line + 41);
		assert_non_null(r);
		if (r->renamed || r->binary)
			continue;
		if (strncmp(r->pid, line, 40))
			fail_msg("%s: patch id %s, git's %.40s", r->id, r->pid, line);
		same++;
	}
	free(ids);
	print_message("DPDK v21.11..v22.03: %zu of %zu commits have git's patch id\n", same, n);
	assert_true(same > 900);
}

static int setup(void **state)
{
	(void)state;
	git_libgit2_init();
	g_mime_init();
	dir = test_tmpdir();
	return test_run("sh '%s' '%s/repo' >/dev/null 2>&1", test_gitrepo_script(), dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_rules),
		cmocka_unit_test(test_against_git),
		cmocka_unit_test(test_dpdk_repository),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
