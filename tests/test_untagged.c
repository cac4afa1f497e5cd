/*
 * test_untagged.c - the signals for stable material nobody tagged, on a
 * generated repository: was the changed code in the last release
 * (history/hist_lines.c through ss_history_release_lines() and the
 * release_code_* features), and which pull request's merge brought a
 * commit in (source/git_graph.c's groups, the commit's merge_message and
 * merge_commits, the merge feature group, masking of its stable tags).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "features/features.h"
#include "features/history.h"
#include "models/dataset.h"
#include "source/source.h"
#include "util/error.h"
#include "testutil.h"

static char *tmp;
static char repo[600];

/*
 * main: lib.c with old code, released as v1.0; then a function written
 * after the release; a fix of each; a new file and a fix of it; a pull
 * request of two commits merged with a message (and a Cc: stable line in
 * it), then a direct commit.
 */
static const char script[] =
	"set -e\n"
	"cd \"$1\"\n"
	"git init -q -b main .\n"
	"git config user.name T; git config user.email t@example.org\n"
	"n=0\n"
	"c() { n=$((n+1)); d=\"@$((1700000000 + n * 86400)) +0000\";\n"
	"  GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d git \"$@\"; }\n"
	"printf 'int old_one(int x)\\n{\\n\\treturn x + 1;\\n}\\n\\nint old_two(int y)\\n{\\n\\treturn y * 2;\\n}\\n' > lib.c\n"
	"git add lib.c; c commit -q -m 'lib: add old code'\n"
	"git tag v1.0\n"
	"printf '\\nint fresh_three(int z)\\n{\\n\\treturn z - 3;\\n}\\n' >> lib.c\n"
	"git add lib.c; c commit -q -m 'lib: add fresh code'\n"
	"sed -i 's/return z - 3;/return z - 4;/' lib.c\n"
	"git add lib.c; c commit -q -m 'lib: fix fresh code'\n"
	"sed -i 's/return x + 1;/return x + 2;/' lib.c\n"
	"git add lib.c; c commit -q -m 'lib: fix old code'\n"
	"printf 'int newer(void)\\n{\\n\\treturn 7;\\n}\\n' > new.c\n"
	"git add new.c; c commit -q -m 'new: add a file'\n"
	"sed -i 's/return 7;/return 8;/' new.c\n"
	"git add new.c; c commit -q -m 'new: fix the file'\n"
	"git checkout -q -b topic\n"
	"echo one > a.txt; git add a.txt; c commit -q -m 'topic: one'\n"
	"echo two > b.txt; git add b.txt; c commit -q -m 'topic: two'\n"
	"git checkout -q main\n"
	"echo side > side.txt; git add side.txt; c commit -q -m 'main: side'\n"
	"c merge -q --no-ff -m 'Merge pull request #7 from someone/network-fixes' "
	"-m 'network: fixes for the leases' -m 'Cc: stable@vger.kernel.org' topic\n"
	"echo last > last.txt; git add last.txt; c commit -q -m 'main: direct'\n";

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir();
	snprintf(repo, sizeof(repo), "%s/repo", tmp);
	return test_repo_from_script(tmp, repo, script);
}

static int teardown(void **state)
{
	(void)state;
	test_run("rm -rf '%s'", tmp);
	free(tmp);
	return 0;
}

/* Every commit of main, oldest first, with its diff; *n of them. */
static ss_commit **read_all(size_t *n, int mask)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_commit **cs = calloc(64, sizeof(*cs));
	ss_source *src;

	opts.mask_stable_tags = mask;
	assert_non_null(cs);
	assert_int_equal(ss_source_open(&src, repo, &opts), 0);
	*n = 0;
	while (*n < 64 && !ss_source_next(&cs[*n], src))
		(*n)++;
	ss_source_free(src);
	return cs;
}

static const ss_commit *by_subject(ss_commit **cs, size_t n, const char *subject)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(cs[i]->subject, subject))
			return cs[i];
	fail_msg("no commit '%s'", subject);
	return NULL;
}

static void free_all(ss_commit **cs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ss_commit_free(cs[i]);
	free(cs);
}

static void test_release_lines(void **state)
{
	ss_histlines_facts f;
	ss_history *h;
	ss_commit **cs;
	size_t n;

	(void)state;
	cs = read_all(&n, 0);
	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_history_load_releases(h, NULL, repo, NULL), 0);
	/* without the repository nothing is known */
	assert_int_equal(ss_history_release_lines(&f, h, by_subject(cs, n, "lib: fix old code")), 0);
	assert_int_equal(f.checked, 0);
	assert_int_equal(ss_history_open_repo(h, repo), 0);

	/* the fix of code that v1.0 shipped: its one removed line was there */
	assert_int_equal(ss_history_release_lines(&f, h, by_subject(cs, n, "lib: fix old code")), 0);
	assert_int_equal(f.checked, 1);
	assert_int_equal(f.files, 1);
	assert_int_equal(f.files_old, 1);
	assert_int_equal(f.lines, 1);
	assert_int_equal(f.old, 1);
	/* the fix of code written after v1.0: a file the release had, but
	 * not the line */
	assert_int_equal(ss_history_release_lines(&f, h, by_subject(cs, n, "lib: fix fresh code")), 0);
	assert_int_equal(f.files_old, 1);
	assert_int_equal(f.lines, 1);
	assert_int_equal(f.old, 0);
	/* an addition at the end of a released file: the context line it
	 * guards ("int old_two(int y)" is the nearest non-trivial one above)
	 * was released */
	assert_int_equal(ss_history_release_lines(&f, h, by_subject(cs, n, "lib: add fresh code")), 0);
	assert_int_equal(f.lines, 1);
	assert_int_equal(f.old, 1);
	/* a fix of a file v1.0 did not have */
	assert_int_equal(ss_history_release_lines(&f, h, by_subject(cs, n, "new: fix the file")), 0);
	assert_int_equal(f.files, 1);
	assert_int_equal(f.files_old, 0);
	assert_int_equal(f.lines, 0);
	/* the release's own commit has no release before it */
	assert_int_equal(ss_history_release_lines(&f, h, by_subject(cs, n, "lib: add old code")), 0);
	assert_int_equal(f.checked, 0);
	ss_history_free(h);
	free_all(cs, n);
}

static void test_release_features(void **state)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_feat_raw r;
	ss_history *h;
	ss_commit **cs;
	size_t n;

	(void)state;
	cs = read_all(&n, 0);
	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_history_load_releases(h, NULL, repo, NULL), 0);
	assert_int_equal(ss_history_open_repo(h, repo), 0);
	ss_feat_raw_init(&r);
	assert_int_equal(ss_feat_extract(&r, by_subject(cs, n, "lib: fix old code"), h, &fo), 0);
	assert_true(r.dense[SS_F_REL_CHECKED] == 1.0f);
	assert_true(r.dense[SS_F_REL_OLD_ALL] == 1.0f);
	assert_true(r.dense[SS_F_REL_OLD_NONE] == 0.0f);
	assert_true(r.dense[SS_F_REL_OLD_SHARE] == 1.0f);
	assert_int_equal(ss_feat_extract(&r, by_subject(cs, n, "lib: fix fresh code"), h, &fo), 0);
	assert_true(r.dense[SS_F_REL_OLD_ALL] == 0.0f);
	assert_true(r.dense[SS_F_REL_OLD_NONE] == 1.0f);
	assert_true(r.dense[SS_F_REL_FILES_NEW] == 0.0f);
	assert_int_equal(ss_feat_extract(&r, by_subject(cs, n, "new: fix the file"), h, &fo), 0);
	assert_true(r.dense[SS_F_REL_FILES_NEW] == 1.0f);
	/* without the relcode group, nothing */
	fo.groups = SS_FG_WORDS;
	assert_int_equal(ss_feat_extract(&r, by_subject(cs, n, "lib: fix old code"), h, &fo), 0);
	assert_true(r.dense[SS_F_REL_CHECKED] == 0.0f);
	ss_feat_raw_release(&r);
	ss_history_free(h);
	free_all(cs, n);
}

static void test_merge_groups(void **state)
{
	const ss_commit *c;
	ss_commit **cs;
	size_t n;

	(void)state;
	cs = read_all(&n, 0);
	assert_int_equal(n, 10);  /* no merge among them */
	c = by_subject(cs, n, "topic: one");
	assert_non_null(c->merge_message);
	assert_non_null(strstr(c->merge_message, "Merge pull request #7 from someone/network-fixes"));
	assert_non_null(strstr(c->merge_message, "network: fixes for the leases"));
	assert_int_equal(c->merge_commits, 2);
	c = by_subject(cs, n, "topic: two");
	assert_non_null(c->merge_message);
	assert_int_equal(c->merge_commits, 2);
	/* made on the mainline itself, before and after the merge */
	assert_null(by_subject(cs, n, "main: side")->merge_message);
	assert_int_equal(by_subject(cs, n, "main: side")->merge_commits, 0);
	assert_null(by_subject(cs, n, "main: direct")->merge_message);
	assert_null(by_subject(cs, n, "lib: fix old code")->merge_message);
	/* the merge's stable tag is visible unmasked... */
	assert_non_null(strstr(by_subject(cs, n, "topic: one")->merge_message, "stable@"));
	free_all(cs, n);
	/* ...and gone with the commit's own when tags are masked */
	cs = read_all(&n, 1);
	c = by_subject(cs, n, "topic: one");
	assert_null(strstr(c->merge_message, "stable@"));
	assert_non_null(strstr(c->merge_message, "network: fixes for the leases"));
	assert_true(c->masked);
	free_all(cs, n);
}

static void test_merge_features(void **state)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_feat_raw r, plain;
	ss_commit **cs;
	ss_strbuf names = SS_STRBUF_INIT;
	size_t n;

	(void)state;
	cs = read_all(&n, 1);
	ss_feat_raw_init(&r);
	ss_feat_raw_init(&plain);
	r.names = &names;
	assert_int_equal(ss_feat_extract(&r, by_subject(cs, n, "topic: one"), NULL, &fo), 0);
	assert_true(r.dense[SS_F_IN_MERGE] == 1.0f);
	assert_true(r.dense[SS_F_MERGE_SIZE] > 1.09f && r.dense[SS_F_MERGE_SIZE] < 1.11f); /* log 3 */
	assert_non_null(strstr(names.buf, "\tm:fixes\n"));
	assert_non_null(strstr(names.buf, "\tm:leases\n"));
	assert_null(strstr(names.buf, "\tm:stable\n"));
	assert_int_equal(ss_feat_extract(&plain, by_subject(cs, n, "main: direct"), NULL, &fo), 0);
	assert_true(plain.dense[SS_F_IN_MERGE] == 0.0f);
	/* the group can be left out */
	fo.groups = SS_FG_DEFAULT & ~SS_FG_MERGE;
	assert_int_equal(ss_feat_extract(&plain, by_subject(cs, n, "topic: one"), NULL, &fo), 0);
	assert_true(plain.dense[SS_F_IN_MERGE] == 0.0f);
	ss_feat_raw_release(&r);
	ss_feat_raw_release(&plain);
	ss_strbuf_release(&names);
	free_all(cs, n);
}

static int svec_has(const ss_svec *v, uint32_t idx)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->idx[i] == idx)
			return 1;
	return 0;
}

/* One dataset read with relcode serves a model that leaves it out
 * (ss_train_options.groups_off): its rows drop those named features. */
static void test_groups_off(void **state)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_featurizer f;
	ss_svec v;
	ss_dataset *d;
	ss_history *h;
	ss_commit **cs;
	uint32_t *remap;
	size_t n, i, at = SIZE_MAX;

	(void)state;
	cs = read_all(&n, 0);
	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	h = ss_dataset_history_mut(d);
	assert_int_equal(ss_history_load_releases(h, NULL, repo, NULL), 0);
	assert_int_equal(ss_history_open_repo(h, repo), 0);
	for (i = 0; i < n; i++) {
		if (!strcmp(cs[i]->subject, "lib: fix old code"))
			at = ss_dataset_count(d);
		assert_int_equal(ss_dataset_add(d, cs[i], (int)(i % 2), 0), 0);
	}
	assert_true(at != SIZE_MAX);
	assert_int_equal(ss_featurizer_init(&f, &fo), 0);
	assert_int_equal(ss_dataset_remap(&remap, &f, d), 0);
	ss_svec_init(&v);
	assert_int_equal(ss_dataset_vector(&v, &f, remap, d, at), 0);
	assert_true(svec_has(&v, SS_F_REL_CHECKED));
	assert_true(svec_has(&v, SS_F_REL_OLD_ALL));
	assert_true(svec_has(&v, SS_F_FILES));
	f.opts.groups &= ~SS_FG_RELCODE;
	assert_int_equal(ss_dataset_vector(&v, &f, remap, d, at), 0);
	assert_false(svec_has(&v, SS_F_REL_CHECKED));
	assert_false(svec_has(&v, SS_F_REL_OLD_ALL));
	assert_true(svec_has(&v, SS_F_FILES));
	ss_svec_release(&v);
	free(remap);
	ss_featurizer_release(&f);
	ss_dataset_free(d);
	free_all(cs, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_lines),
		cmocka_unit_test(test_release_features),
		cmocka_unit_test(test_merge_groups),
		cmocka_unit_test(test_merge_features),
		cmocka_unit_test(test_groups_off),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
