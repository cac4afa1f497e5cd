/*
 * test_run_project_read.c - what the project model's training reads, as a
 * run reads it, without the CLI (run/project_read.h): the ranked commits
 * and the history before them walked, no source at all the user's
 * mistake, the history primed from the index (a missing one said once a
 * run), the index's stored features only when they fit, the commits
 * review rejected; without labels the ranking's model is the built-in
 * one, said with why (run/project_choose.h: ss_run_rank_model); the
 * ranked commits read beside the history give what they give read
 * after it: the same replay, the same messages in the same order.
 */
#include "testutil.h"
#include "testrun.h"

#include "run/project_choose.h"
#include "run/project_read.h"
#include "source/replay.h"
#include "util/error.h"
#include "util/strmap.h"

static char rejected_id[41];

static int setup(void **state)
{
	char path[4096];
	FILE *f;

	(void)state;
	test_scratch = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	/* tests/gitrepo.sh with its own index (and the features kept), one
	 * commit rejected for stable-1.y; other a copy without an index */
	if (test_run("sh '%s' '%s/repo' && cp -r '%s/repo' '%s/other' && "
		     "./stablesel index --no-progress --repo '%s/repo' 2>/dev/null && "
		     "git -C '%s/repo' rev-parse main~1 > '%s/id' && "
		     "./stablesel mark --no-progress --repo '%s/repo' reject \"$(cat '%s/id')\" "
		     "--branch stable-1.y >/dev/null 2>&1",
		     test_gitrepo_script(), test_scratch, test_scratch, test_scratch, test_scratch,
		     test_scratch, test_scratch, test_scratch, test_scratch))
		return -1;
	snprintf(path, sizeof(path), "%s/id", test_scratch);
	if (!(f = fopen(path, "r")))
		return -1;
	if (!fgets(rejected_id, sizeof(rejected_id), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int count(ss_commit *c, void *data)
{
	++*(size_t *)data;
	ss_commit_free(c);
	return 0;
}

/* s reads the fixture: the ranked commits v1.0..main, the history v1.0,
 * both of repo (size 4096, filled here), through opts and hopts. */
static void fixture_sources(ss_run_project_sources *s, ss_source_options *opts,
			    ss_source_options *hopts, char *repo)
{
	static const char *revs[1] = { "v1.0..main" }, *hrevs[1] = { "v1.0" };

	snprintf(repo, 4096, "%s/repo", test_scratch);
	opts->repo = hopts->repo = repo;
	opts->revs = revs;
	opts->nrevs = 1;
	hopts->revs = hrevs;
	hopts->nrevs = 1;
	s->repo = repo;
	s->opts = opts;
	s->hopts = hopts;
}

static void test_walks(void **state)
{
	ss_run_project_sources s = SS_RUN_PROJECT_SOURCES_INIT;
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT, hopts = SS_SOURCE_OPTIONS_INIT;
	ss_run_project_reader rd;
	char repo[4096];
	size_t n = 0, nh = 0;

	(void)state;
	fixture_sources(&s, &opts, &hopts, repo);
	opts.with_diff = 0;
	hopts.with_diff = 0;
	ss_run_project_reader_init(&rd, &s);
	assert_ptr_equal(rd.ud, &s);
	assert_int_equal(rd.walk_ranked(count, &n, NULL, rd.ud), 0);
	assert_int_equal(rd.walk_history(count, &nh, rd.ud), 0);
	assert_true(n > 0);
	assert_true(nh > 0);
	assert_int_equal(s.usage, 0);
	/* no source at all: the user's mistake, before anything is read */
	s.repo = NULL;
	n = 0;
	assert_int_equal(rd.walk_ranked(count, &n, NULL, rd.ud), SS_EINVALID);
	assert_int_equal(s.usage, 1);
	assert_int_equal(n, 0);
	assert_non_null(strstr(ss_error_last(), "no commits to read"));
}

static void test_prime_store_rejected(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_run_project_sources s = SS_RUN_PROJECT_SOURCES_INIT;
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_run_project_reader rd;
	ss_run_feature_store *fs = (ss_run_feature_store *)1;
	ss_strmap *set = (ss_strmap *)1;
	ss_history *hist = NULL;
	char repo[4096], other[4096];
	ss_run *run = NULL;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/repo", test_scratch);
	snprintf(other, sizeof(other), "%s/other", test_scratch);
	assert_int_equal(ss_run_new(&run), 0);
	opts.repo = repo;
	s.repo = repo;
	s.opts = &opts;
	s.hopts = &opts;
	s.run = run;
	s.rp = &rp;
	ss_run_project_reader_init(&rd, &s);
	/* primed from the index: its commits */
	assert_int_equal(ss_history_new(&hist), 0);
	assert_int_equal(rd.prime(hist, rd.ud), 0);
	assert_true(ss_history_count(hist) > 0);
	ss_history_free(hist);
	/* the stored features: with full diffs and the index's releases */
	assert_int_equal(rd.store(&fs, &fo, rd.ud), 0);
	assert_non_null(fs);
	ss_run_feature_store_close(fs, NULL);
	/* releases of their own, or no diffs: the rows do not fit */
	s.releases = "releases.tsv";
	assert_int_equal(rd.store(&fs, &fo, rd.ud), 0);
	assert_null(fs);
	s.releases = NULL;
	s.no_index = 1;
	assert_int_equal(rd.store(&fs, &fo, rd.ud), 0);
	assert_null(fs);
	assert_int_equal(rd.rejected(&set, rd.ud), 0);
	assert_null(set);
	s.no_index = 0;
	/* the commit review rejected */
	assert_int_equal(rd.rejected(&set, rd.ud), 0);
	assert_non_null(set);
	assert_true(ss_strmap_find(set, rejected_id, 40) != SS_STRMAP_NONE);
	ss_strmap_free(set);
	assert_string_equal(h.text, "");
	/* no index: primed from nothing, said once for the run */
	s.repo = other;
	assert_int_equal(ss_history_new(&hist), 0);
	assert_int_equal(rd.prime(hist, rd.ud), 0);
	assert_int_equal(rd.prime(hist, rd.ud), 0);
	assert_int_equal(ss_history_count(hist), 0);
	ss_history_free(hist);
	assert_int_equal(rd.rejected(&set, rd.ud), 0);
	assert_null(set);
	assert_non_null(strstr(h.text, "N no project index for '"));
	assert_null(strstr(strchr(h.text, '\n') + 1, "no project index"));
	ss_run_free(run);
}

static void test_rank_model(void **state)
{
	struct heard h = { "", 0 };
	ss_run_report rp = TEST_RUN_REPORT(&h);
	ss_run_project_model_options o = SS_RUN_PROJECT_MODEL_OPTIONS_INIT;
	ss_model *m = NULL;
	ss_replay *replay = (ss_replay *)1;
	char words[1400], want[2048];
	int builtin = -1;

	(void)state;
	o.rp = &rp;
	assert_int_equal(ss_run_rank_model(&m, &replay, &builtin, &o), 0);
	assert_non_null(m);
	assert_null(replay);
	assert_int_equal(builtin, 1);
	ss_run_builtin_words(words, sizeof(words), m);
	assert_non_null(strstr(words, "its scores may not carry over to this one"));
	snprintf(want, sizeof(want), "N no --model, no --stable SOURCE and no project index with "
		 "stable branches to train one for this project from: using the built-in model, "
		 "which %s\n", words);
	assert_string_equal(h.text, want);
	ss_model_free(m);
}

static int never_apart(void *ud)
{
	(void)ud;
	return 0;
}

/* The training's reading with rd: the ranked commits' ids kept in the
 * replay (one a line) into ids, what was said into h, why into why. */
static void choose(const ss_run_project_reader *rd, struct heard *h, ss_strbuf *ids,
		   char *why, size_t size, const char *repo, ss_run *run,
		   const ss_source_options *hopts, const ss_run_report *rp)
{
	ss_run_project_model_options o = SS_RUN_PROJECT_MODEL_OPTIONS_INIT;
	ss_backports *bp = NULL;
	ss_replay *replay = NULL;
	ss_model *m = NULL;
	ss_commit *c;
	int rc;

	test_heard_reset(h);
	assert_int_equal(ss_backports_new(&bp, NULL), 0);
	o.label = bp;
	o.stable = "none";
	o.repo = o.hrepo = repo;
	o.run = run;
	o.as_of = 1;  /* trained, never kept beside the repository */
	o.held = SS_PROJECT_HELD_RANGE;
	o.hso = hopts;
	o.replay = 1;
	o.reader = rd;
	o.rp = o.store_rp = rp;
	why[0] = '\0';
	assert_int_equal(ss_run_project_model_choose(&m, &replay, why, size, &o), 0);
	assert_null(m);  /* nothing labelled: the reason is in why */
	assert_non_null(replay);
	while (!(rc = ss_replay_next(&c, replay))) {
		ss_strbuf_addf(ids, "%s\n", c->id);
		ss_commit_free(c);
	}
	assert_int_equal(rc, SS_ITEROVER);
	ss_replay_free(replay);
	ss_backports_free(bp);
}

static void test_ranked_apart(void **state)
{
	struct heard h1 = { "", 0 }, h2 = { "", 0 };
	ss_run_report rp1 = TEST_RUN_REPORT(&h1), rp2 = TEST_RUN_REPORT(&h2);
	ss_run_project_sources s = SS_RUN_PROJECT_SOURCES_INIT;
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT, hopts = SS_SOURCE_OPTIONS_INIT;
	ss_run_project_reader rd, after;
	ss_strbuf ids1 = SS_STRBUF_INIT, ids2 = SS_STRBUF_INIT;
	char repo[4096], why1[600], why2[600];
	ss_run *run = NULL;

	(void)state;
	assert_int_equal(ss_run_new(&run), 0);
	fixture_sources(&s, &opts, &hopts, repo);
	/* the ranked read says something: its newest 2 only */
	opts.newest = 2;
	s.run = run;
	ss_run_project_reader_init(&rd, &s);
	assert_non_null(rd.ranked_apart);
	assert_true(rd.ranked_apart(rd.ud));
	after = rd;
	after.ranked_apart = never_apart;
	s.rp = &rp1;
	choose(&rd, &h1, &ids1, why1, sizeof(why1), repo, run, &hopts, &rp1);
	s.rp = &rp2;
	choose(&after, &h2, &ids2, why2, sizeof(why2), repo, run, &hopts, &rp2);
	assert_true(ids1.len > 0);
	assert_string_equal(ids1.buf, ids2.buf);
	assert_string_equal(why1, why2);
	assert_string_equal(h1.text, h2.text);
	/* the ranked read's own message, said after the history was read */
	assert_non_null(strstr(h1.text, "older commits of"));
	ss_strbuf_release(&ids1);
	ss_strbuf_release(&ids2);
	ss_run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walks),
		cmocka_unit_test(test_rank_model),
		cmocka_unit_test(test_prime_store_rejected),
		cmocka_unit_test(test_ranked_apart),
	};

	return cmocka_run_group_tests(tests, setup, test_scratch_teardown);
}
