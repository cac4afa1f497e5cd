/*
 * test_run_project_keep.c - where the project model is kept and when a
 * kept one may score a ranking, without the CLI (run/project_keep.h):
 * the path rule (--project-model, the repository's git folder, the
 * stable repository, the stable file's folder, the index's folder,
 * nothing), the folder made but never in read-only data, which history
 * the model learns from, its cut as kept in the model file's fields, and
 * whether a kept model's cut lies behind the ranked range; the kept
 * file read only from a regular file (a FIFO does not block) and written
 * only over a regular or missing one (a symlink, a FIFO, a device
 * refused, what they name left alone).
 */
#include "testutil.h"

#include <errno.h>
#include <git2.h>

#include "run/project_keep.h"
#include "source/git_repo.h"
#include "util/error.h"
#include "util/strbuf.h"

static char *tmpdir;
static char repo[4096];

static int setup(void **state)
{
	(void)state;
	tmpdir = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	snprintf(repo, sizeof(repo), "%s/repo", tmpdir);
	return test_run("sh '%s' '%s' >/dev/null", test_gitrepo_script(), repo);
}

static int teardown(void **state)
{
	(void)state;
	test_run("chmod -R u+w '%s'; rm -rf '%s'", tmpdir, tmpdir);
	free(tmpdir);
	return 0;
}

static void assert_path(const char *want, const char *pm, const char *r, const char *stable,
			const char *index_path)
{
	char *path = (char *)1;

	assert_int_equal(ss_project_model_path(&path, pm, r, NULL, stable, index_path), 0);
	if (!want) {
		assert_null(path);
		return;
	}
	assert_non_null(path);
	assert_string_equal(path, want);
	free(path);
}

static void test_path(void **state)
{
	char want[8192];

	(void)state;
	/* --project-model first, whatever else is known */
	assert_path("/x/my.model", "/x/my.model", repo, "s.mbox", "/i/ix.db");
	/* the repository's git folder */
	snprintf(want, sizeof(want), "%s/.git/stablesel/project.model", repo);
	assert_path(want, NULL, repo, "/a/s.mbox", "/i/ix.db");
	/* no repository: the stable repository's */
	assert_path(want, NULL, NULL, repo, NULL);
	/* a --stable file: a stablesel folder beside it */
	assert_path("/a/b/stablesel/project.model", NULL, NULL, "/a/b/s.mbox", "/i/ix.db");
	assert_path("stablesel/project.model", NULL, NULL, "s.mbox", NULL);
	/* only the index it was trained from: beside it */
	assert_path("/i/project.model", NULL, NULL, NULL, "/i/ix.db");
	assert_path("project.model", NULL, NULL, NULL, "ix.db");
	/* nothing to name it by */
	assert_path(NULL, NULL, NULL, NULL, NULL);
}

static void test_make_parent(void **state)
{
	char path[8300], ro[8192];

	(void)state;
	/* a missing folder is made */
	snprintf(path, sizeof(path), "%s/keep/project.model", tmpdir);
	assert_int_equal(ss_project_model_make_parent(path), 0);
	assert_int_equal(test_run("test -d '%s/keep'", tmpdir), 0);
	/* and an existing one is fine; a bare name has no folder to make */
	assert_int_equal(ss_project_model_make_parent(path), 0);
	assert_int_equal(ss_project_model_make_parent("project.model"), 0);
	/* read-only data: neither in it nor a folder made in it (root too) */
	snprintf(ro, sizeof(ro), "%s/ro", tmpdir);
	assert_int_equal(test_run("mkdir -p '%s/sub' && chmod a-w '%s/sub' '%s'", ro, ro, ro), 0);
	snprintf(path, sizeof(path), "%s/sub/project.model", ro);
	assert_int_equal(ss_project_model_make_parent(path), SS_ERROR);
	assert_string_equal(ss_error_last(), strerror(EACCES));
	snprintf(path, sizeof(path), "%s/new/project.model", ro);
	assert_int_equal(ss_project_model_make_parent(path), SS_ERROR);
	assert_int_equal(errno, EACCES);
	assert_int_equal(test_run("test -e '%s/new'", ro), 1);
	assert_int_equal(test_run("chmod u+w '%s/sub' '%s'", ro, ro), 0);
}

static void test_held(void **state)
{
	(void)state;
	/* --history wins */
	assert_int_equal(ss_project_model_held(1, 1, 0, 1, 1, 5), SS_PROJECT_HELD_HISTORY);
	/* the range's bottoms: only with an index, no mbox and a repository */
	assert_int_equal(ss_project_model_held(0, 1, 0, 1, 1, 5), SS_PROJECT_HELD_RANGE);
	assert_int_equal(ss_project_model_held(0, 0, 0, 1, 1, 5), SS_PROJECT_HELD_SINCE);
	assert_int_equal(ss_project_model_held(0, 1, 1, 1, 1, 0), SS_PROJECT_HELD_NONE);
	assert_int_equal(ss_project_model_held(0, 1, 0, 0, 1, 0), SS_PROJECT_HELD_NONE);
	assert_int_equal(ss_project_model_held(0, 1, 0, 1, 0, 0), SS_PROJECT_HELD_NONE);
	assert_int_equal(ss_project_model_held(0, 1, 0, 1, 0, 7), SS_PROJECT_HELD_SINCE);
}

/* The id of rev in the test repository (41 bytes into out). */
static void rev_id(char *out, const char *rev)
{
	char *id = test_run_output("git -C '%s' rev-parse '%s'", repo, rev);

	snprintf(out, 41, "%.40s", id);
	free(id);
}

static void test_cut(void **state)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	const char *bottoms[] = { "main~3", "main~5" };
	const char *bad[] = { "main~3", "no-such-rev" };
	const char *many[SS_MODEL_CUT_MAX + 1];
	char a[41], b[41], want[256];
	ss_model_info in;
	size_t opened, i;

	(void)state;
	memset(&in, 0, sizeof(in));
	assert_int_equal(ss_project_model_cut(&in, &sb, SS_PROJECT_HELD_SINCE, 1700000000, repo, NULL,
					      NULL, 0), 0);
	assert_string_equal(sb.buf, " authored before 1700000000");
	assert_int_equal(in.cut_since, 1700000000);
	assert_int_equal(in.ncut, 0);
	ss_strbuf_release(&sb);
	opened = ss_repo_opened();
	assert_int_equal(ss_project_model_cut(&in, &sb, SS_PROJECT_HELD_RANGE, 0, repo, NULL, bottoms,
					      2), 0);
	/* one open for both bottoms */
	assert_int_equal(ss_repo_opened() - opened, 1);
	rev_id(a, "main~3");
	rev_id(b, "main~5");
	/* the fields, and the text people read */
	assert_int_equal(in.cut_since, 0);
	assert_int_equal(in.ncut, 2);
	assert_string_equal(in.cut[0], a);
	assert_string_equal(in.cut[1], b);
	snprintf(want, sizeof(want), " before %s before %s", a, b);
	assert_string_equal(sb.buf, want);
	ss_strbuf_release(&sb);
	/* none for the other kinds */
	assert_int_equal(ss_project_model_cut(&in, &sb, SS_PROJECT_HELD_HISTORY, 5, repo, NULL, bottoms,
					      2), 0);
	assert_int_equal(sb.len, 0);
	assert_int_equal(in.ncut, 0);
	assert_int_equal(in.cut_since, 0);
	/* a bottom that does not resolve keeps no ids */
	assert_true(ss_project_model_cut(&in, &sb, SS_PROJECT_HELD_RANGE, 0, repo, NULL, bad, 2) < 0);
	assert_int_equal(in.ncut, 0);
	ss_strbuf_release(&sb);
	/* more bottoms than a model records: refused, named */
	for (i = 0; i < SS_MODEL_CUT_MAX + 1; i++)
		many[i] = "main~3";
	assert_true(ss_project_model_cut(&in, &sb, SS_PROJECT_HELD_RANGE, 0, repo, NULL, many,
					 SS_MODEL_CUT_MAX + 1) < 0);
	assert_non_null(strstr(ss_error_last(), "bottoms"));
	assert_int_equal(in.ncut, 0);
	ss_strbuf_release(&sb);
}

/* The cut as a model file keeps it (format 6; format 5's text:
 * test_models: test_bands). */
static void test_cut_in_file(void **state)
{
	char path[4200], id[41];
	ss_model *m = NULL, *l = NULL;
	ss_model_info *in;

	(void)state;
	assert_int_equal(ss_model_load_default(&m), 0);
	in = ss_model_get_info(m);
	rev_id(id, "main~5");
	snprintf(in->source, sizeof(in->source), "git:repo");  /* no text: the fields count */
	in->ncut = 1;
	memcpy(in->cut[0], id, 41);
	snprintf(path, sizeof(path), "%s/cut.model", tmpdir);
	assert_int_equal(ss_project_model_write(m, path), 0);
	assert_int_equal(ss_project_model_read(&l, path), 0);
	assert_int_equal(ss_model_info_of(l)->ncut, 1);
	assert_string_equal(ss_model_info_of(l)->cut[0], id);
	assert_int_equal(ss_model_info_of(l)->cut_since, 0);
	ss_model_free(l);
	/* a cut id that is not 40 hex digits: refused as corrupt */
	in->cut[0][3] = 'X';
	assert_int_equal(ss_project_model_write(m, path), 0);
	assert_true(ss_project_model_read(&l, path) < 0);
	assert_null(l);
	assert_non_null(strstr(ss_error_last(), "training cut"));
	ss_error_clear();
	ss_model_free(m);
}

static void test_trained_on_ranked(void **state)
{
	const char *later[] = { "main~2" }, *earlier[] = { "main~8" };
	const char *both[] = { "main~8", "main~2" };
	char why[256], id[41], id2[41];
	size_t opened;
	ss_model *m = NULL;
	ss_model_info *in;

	(void)state;
	assert_int_equal(ss_model_load_default(&m), 0);
	in = ss_model_get_info(m);
	/* a time cut: fine while --since is no earlier (the fields count,
	 * not the source's text) */
	snprintf(in->source, sizeof(in->source), "git:repo");
	in->cut_since = 1700000000;
	in->ncut = 0;
	assert_null(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_SINCE,
						       1700000000, repo, NULL, NULL, 0));
	assert_ptr_equal(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_SINCE,
							    1699999999, repo, NULL, NULL, 0), why);
	assert_string_equal(why, "it learnt from the commits authored before 2023-11-14, and --since "
			    "is earlier");
	/* no cut at all: it learnt from the ranked commits */
	snprintf(in->source, sizeof(in->source), "git:repo authored before 1700000000");
	in->cut_since = 0;
	assert_non_null(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_SINCE,
							   1, repo, NULL, NULL, 0));
	assert_string_equal(why, "it learnt from commits this ranking scores");
	assert_non_null(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_RANGE,
							   0, repo, NULL, later, 1));
	assert_string_equal(why, "it learnt from commits this ranking scores, and the history before "
			    "them is known now");
	/* an id cut: fine when the range starts after it, not before */
	rev_id(id, "main~5");
	in->ncut = 1;
	memcpy(in->cut[0], id, 41);
	assert_null(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_RANGE, 0,
						       repo, NULL, later, 1));
	assert_non_null(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_RANGE,
							   0, repo, NULL, earlier, 1));
	assert_non_null(strstr(why, "it was trained on the history before "));
	assert_non_null(strstr(why, ", which the ranked range does not start after"));
	assert_int_equal(strncmp(why + strlen("it was trained on the history before "), id, 12), 0);
	/* two cuts, two bottoms (the earlier one holds neither, the later
	 * both): every lookup on one open */
	rev_id(id2, "main~6");
	in->ncut = 2;
	memcpy(in->cut[1], id2, 41);
	opened = ss_repo_opened();
	assert_null(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_RANGE, 0,
						       repo, NULL, both, 2));
	assert_int_equal(ss_repo_opened() - opened, 1);
	/* --history or in-sample: nothing to check */
	assert_null(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_HISTORY, 0,
						       repo, NULL, earlier, 1));
	assert_null(ss_project_model_trained_on_ranked(why, sizeof(why), m, SS_PROJECT_HELD_NONE, 0,
						       repo, NULL, earlier, 1));
	ss_model_free(m);
}

/* issue 35, case 13 */
static void test_read_write(void **state)
{
	char path[4200], fifo[4200], link[4200], victim[4200], *text;
	ss_model *m = NULL, *back = NULL;

	(void)state;
	assert_int_equal(ss_model_load_default(&m), 0);
	snprintf(path, sizeof(path), "%s/kept.model", tmpdir);
	snprintf(fifo, sizeof(fifo), "%s/fifo.model", tmpdir);
	snprintf(link, sizeof(link), "%s/link.model", tmpdir);
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	/* missing, then written and read back; written over a regular file */
	assert_int_equal(ss_project_model_read(&back, path), SS_ENOTFOUND);
	assert_int_equal(ss_project_model_write(m, path), 0);
	assert_int_equal(ss_project_model_read(&back, path), 0);
	assert_non_null(back);
	ss_model_free(back);
	back = NULL;
	assert_int_equal(ss_project_model_write(m, path), 0);
	/* a FIFO: refused at once (the alarm kills a read that blocks), and
	 * never written into or replaced */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);
	assert_true(ss_project_model_read(&back, fifo) < 0);
	assert_null(back);
	assert_non_null(strstr(ss_error_last(), "not a regular file"));
	assert_true(ss_project_model_write(m, fifo) < 0);
	alarm(0);
	assert_non_null(strstr(ss_error_last(), "a FIFO"));
	assert_null(strchr(ss_error_last(), '\n'));
	assert_int_equal(test_run("test -p '%s'", fifo), 0);
	/* a symlink to another file: that file is never replaced */
	test_write_file(victim, "precious\n", 9);
	assert_int_equal(symlink(victim, link), 0);
	assert_true(ss_project_model_write(m, link) < 0);
	assert_non_null(strstr(ss_error_last(), "a symbolic link"));
	text = test_read_file(victim, NULL);
	assert_string_equal(text, "precious\n");
	free(text);
	assert_int_equal(test_run("test -L '%s'", link), 0);
	/* a device */
	assert_true(ss_project_model_read(&back, "/dev/zero") < 0);
	assert_true(ss_project_model_write(m, "/dev/null") < 0);
	assert_non_null(strstr(ss_error_last(), "a device"));
	ss_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_make_parent),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_trained_on_ranked),
		cmocka_unit_test(test_cut_in_file),
		cmocka_unit_test(test_read_write),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return rc;
}
