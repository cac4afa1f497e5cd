/*
 * test_verdict_data.c - verdicts cross from check to rank as data
 * (queue/verdict_data.h): the enum, the ids as full ids, the follow-ups,
 * the words made once; and which releases a run uses
 * (run/releases.h's ss_releases_choose(), its priority).
 *
 * The verdicts: tests/queuerepo.sh's repository, its batch (main after
 * introduce) checked against stable2, every verdict exported and set on
 * a ranking of the same commits, then read back from the ranking's rows:
 * nothing goes through a string but the words shown.  The releases:
 * tests/gitrepo.sh's repository (tags v1.0, v2.0), its project index, a
 * blank index, a releases TSV.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check/verdict.h"
#include "features/history.h"
#include "index/index.h"
#include "models/model.h"
#include "rank/rank.h"
#include "run/branches.h"
#include "run/releases.h"
#include "source/source.h"
#include "testutil.h"

static const char *tmp;

/* tmp/q: queuerepo.sh's repository; tmp/g: gitrepo.sh's. */
static int setup(void **state)
{
	test_scratch_setup(state);
	tmp = test_scratch;
	if (test_run("sh '%s' '%s/q' >'%s/make.log' 2>&1 && sh '%s' '%s/g' >>'%s/make.log' 2>&1",
		     test_script("queuerepo.sh"), tmp, tmp, test_gitrepo_script(), tmp, tmp)) {
		test_run("cat '%s/make.log' >&2", tmp);
		return -1;
	}
	return 0;
}

/* The full id of the main commit of tmp/q with subject s. */
static void id_of(ss_verdict_id out, const char *s)
{
	char *o = test_run_output("git -C '%s/q' log --format=%%H -1 --grep='^%s$' main", tmp, s);

	assert_int_equal(strlen(o), 41);
	memcpy(out, o, 40);
	out[40] = '\0';
	free(o);
}

static int every_one(const char *id, void *ud)
{
	(void)id;
	(void)ud;
	return 1;
}

/* The ranking's verdict of id equals the exported one, field by field. */
static void same_verdict(ss_ranking *r, const char *id, const ss_verdict_data *want)
{
	size_t i = ss_ranking_find(r, id);
	char text[SS_VERDICT_TEXT_MAX];
	ss_verdict_data got;
	ss_rank_row w;

	assert_true(i != (size_t)-1);
	ss_ranking_row(&w, r, i);
	assert_int_equal(w.nverdicts, 1);
	got = w.verdicts[0];
	assert_int_equal(got.word, want->word);
	assert_int_equal(got.propose, want->propose);
	assert_int_equal(got.nneeds, want->nneeds);
	for (size_t k = 0; k < got.nneeds; k++)
		assert_string_equal(got.needs[k], want->needs[k]);
	assert_int_equal(got.nfollowups, want->nfollowups);
	for (size_t k = 0; k < got.nfollowups; k++)
		assert_string_equal(got.followups[k], want->followups[k]);
	assert_string_equal(got.reverted_by, want->reverted_by);
	assert_int_equal(got.series_n, want->series_n);
	assert_int_equal(got.series_shown, want->series_shown);
	assert_string_equal(got.detail, want->detail);
	ss_verdict_data_text(text, sizeof(text), want);
	assert_string_equal(got.text, text);
}

static void test_round_trip(void **state)
{
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_ranker_options ro = SS_RANKER_OPTIONS_INIT;
	ss_verdict_id uh, o14, helper, fi, ff, bad, rev, needs[SS_CHECK_MAX_NEEDS];
	char path[4200], intro[48], text[SS_VERDICT_TEXT_MAX], want[128];
	const char *revs[2] = { "main", intro };
	const char *names[1] = { "stable2" };
	ss_strbuf detail = SS_STRBUF_INIT;
	const ss_verdict *v;
	ss_verdict_data d;
	ss_verdicts *vs;
	ss_history *h;
	ss_ranking *r;
	ss_source *src;
	ss_model *m;
	ss_check *ck;
	ss_commit *c;

	(void)state;
	id_of(uh, "use-helper");
	id_of(o14, "other14");
	id_of(helper, "helper");
	id_of(fi, "fix-intro");
	id_of(ff, "fix-fix");
	id_of(bad, "bad");
	id_of(rev, "Revert \\\"bad\\\"");
	id_of(intro + 1, "introduce");
	intro[0] = '^';
	if (ss_model_load_default(&m)) {
		printf("SKIP: no embedded model\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/q", tmp);
	co.rev = "stable2";
	assert_int_equal(ss_check_open(&ck, path, &co), 0);
	assert_int_equal(ss_verdicts_new(&vs, ck, NULL), 0);
	ro.threshold = 0;
	assert_int_equal(ss_ranking_new(&r, m, &ro), 0);
	assert_int_equal(ss_history_new(&h), 0);
	so.repo = path;
	so.revs = revs;
	so.nrevs = 2;
	assert_int_equal(ss_source_open(&src, path, &so), 0);
	while (ss_source_next(&c, src) == 0) {
		assert_int_equal(ss_verdicts_add(vs, c), 0);
		assert_int_equal(ss_ranking_feed(r, c, h, 0), 0);
		assert_int_equal(ss_history_add(h, c), 0);
		ss_commit_free(c);
	}
	ss_source_free(src);
	assert_int_equal(ss_verdicts_decide(vs, every_one, NULL, NULL), 0);
	assert_int_equal(ss_ranking_set_branches(r, names, 1), 0);

	/* yes, needs: the prerequisites as full ids, oldest first; the
	 * words name them newest first, abbreviated */
	assert_non_null(v = ss_verdicts_get(vs, uh));
	assert_int_equal(ss_verdict_export(&d, needs, &detail, v, "stable2"), 0);
	assert_int_equal(d.word, SS_VERDICT_YES_NEEDS);
	assert_true(d.propose);
	assert_int_equal(d.nneeds, 2);
	assert_string_equal(d.needs[0], helper);
	assert_string_equal(d.needs[1], o14);
	assert_non_null(strstr(d.detail, "conflict in c.c hunk"));
	ss_verdict_data_text(text, sizeof(text), &d);
	snprintf(want, sizeof(want), "applies, needs %.12s %.12s", o14, helper);
	assert_string_equal(text, want);
	assert_int_equal(ss_ranking_set_verdict(r, ss_ranking_find(r, uh), 0, &d), 0);
	same_verdict(r, uh, &d);

	/* yes with a follow-up: the fix of the fix travels with it */
	assert_non_null(v = ss_verdicts_get(vs, fi));
	assert_int_equal(ss_verdict_export(&d, needs, &detail, v, "stable2"), 0);
	assert_int_equal(d.word, SS_VERDICT_YES);
	assert_int_equal(d.nneeds, 0);
	assert_int_equal(d.nfollowups, 1);
	assert_string_equal(d.followups[0], ff);
	/* its word says it applies: the detail does not say it again */
	assert_null(strstr(d.detail, "applies"));
	assert_int_equal(ss_ranking_set_verdict(r, ss_ranking_find(r, fi), 0, &d), 0);
	same_verdict(r, fi, &d);

	/* reverted: the reverting commit as an id, no prerequisites (the
	 * verdict does not propose it) */
	assert_non_null(v = ss_verdicts_get(vs, bad));
	assert_int_equal(ss_verdict_export(&d, needs, &detail, v, "stable2"), 0);
	assert_int_equal(d.word, SS_VERDICT_NO_REVERTED);
	assert_false(d.propose);
	assert_int_equal(d.nneeds, 0);
	assert_string_equal(d.reverted_by, rev);
	ss_verdict_data_text(text, sizeof(text), &d);
	snprintf(want, sizeof(want), "reverted by %.12s", rev);
	assert_string_equal(text, want);
	assert_int_equal(ss_ranking_set_verdict(r, ss_ranking_find(r, bad), 0, &d), 0);
	same_verdict(r, bad, &d);

	/* every verdict of the batch survives the crossing */
	for (size_t i = 0; i < ss_verdicts_count(vs); i++) {
		v = ss_verdicts_at(vs, i);
		assert_int_equal(ss_verdict_export(&d, needs, &detail, v, "stable2"), 0);
		assert_int_equal(d.propose, ss_verdict_word_proposes(d.word));
		assert_int_equal(ss_ranking_set_verdict(r, ss_ranking_find(r, v->id), 0, &d), 0);
		same_verdict(r, v->id, &d);
	}
	ss_strbuf_release(&detail);
	ss_history_free(h);
	ss_ranking_free(r);
	ss_model_free(m);
	ss_verdicts_free(vs);
	ss_check_free(ck);
}

/*
 * The verdict (the branch's answer) and the band (the model's) never share
 * a word (issue 35, case 16): "22.11: yes (applies; ...)" under band "no"
 * read as two yeses.  No verdict's first word is a band's name, and the
 * clean verdict does not say "applies" twice.
 */
static void test_words_apart(void **state)
{
	static const ss_verdict_word words[] = { SS_VERDICT_YES, SS_VERDICT_YES_NEEDS,
						 SS_VERDICT_ALREADY, SS_VERDICT_NO_BUG,
						 SS_VERDICT_NO_REVERTED, SS_VERDICT_UNKNOWN };
	ss_verdict_data d;
	char text[SS_VERDICT_TEXT_MAX];
	unsigned mask;

	(void)state;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const char *w = ss_verdict_word_name(words[i]);
		size_t len = strcspn(w, " ,:");

		for (int b = SS_BAND_NO; b <= SS_BAND_WAIT; b++) {
			const char *band = ss_band_name((ss_band)b);

			if (strlen(band) == len && !strncmp(w, band, len))
				fail_msg("verdict '%s' shares the word '%s' with a band", w, band);
		}
	}
	assert_string_equal(ss_verdict_word_name(SS_VERDICT_YES), "applies");
	memset(&d, 0, sizeof(d));
	d.word = SS_VERDICT_YES_NEEDS;
	d.nneeds = 1;
	d.needs = (const ss_verdict_id[]){ "bc1db4f45af3000000000000000000000000abcd" };
	ss_verdict_data_text(text, sizeof(text), &d);
	assert_string_equal(text, "applies, needs bc1db4f45af3");
	/* the filter takes the new words, and the old ones as before */
	assert_int_equal(ss_run_verdict_mask(&mask, "applies"), 0);
	assert_int_equal(mask, 1u << SS_VERDICT_YES | 1u << SS_VERDICT_YES_NEEDS);
	assert_int_equal(ss_run_verdict_mask(&mask, "yes"), 0);
	assert_int_equal(mask, 1u << SS_VERDICT_YES | 1u << SS_VERDICT_YES_NEEDS);
	assert_int_equal(ss_run_verdict_mask(&mask, "unaffected,reverted"), 0);
	assert_int_equal(mask, 1u << SS_VERDICT_NO_BUG | 1u << SS_VERDICT_NO_REVERTED);
}

/* The priority of the releases a run uses (run/releases.h). */
static void test_releases_choose(void **state)
{
	char repo[4200], tsv[4200], blank[4200], *ixpath;
	ss_releases_ask a = SS_RELEASES_ASK_INIT;
	ss_releases_from from;
	ss_releases *rel;
	ss_index *ix, *empty;

	(void)state;
	snprintf(repo, sizeof(repo), "%s/g", tmp);
	snprintf(tsv, sizeof(tsv), "%s/rel.tsv", tmp);
	snprintf(blank, sizeof(blank), "%s/blank.db", tmp);
	assert_int_equal(test_run("printf 'tag\\tsha\\tdate\\nv9.0\\t-\\t1700000000\\n"
				  "v9.1\\t-\\t1700100000\\nv9.2\\t-\\t1700200000\\n' >'%s'", tsv), 0);
	assert_int_equal(test_run("./stablesel index --repo '%s' >/dev/null 2>&1", repo), 0);
	assert_int_equal(ss_index_default_path(&ixpath, repo), 0);
	assert_int_equal(ss_index_open(&ix, ixpath, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_open(&empty, blank, SS_INDEX_WRITE), 0);

	/* 4. nothing at all: none */
	assert_int_equal(ss_releases_choose(&rel, &from, &a, NULL), 0);
	assert_int_equal(from, SS_RELEASES_NONE);
	assert_null(rel);
	/* a repository alone: its tags only when the run falls back (3) */
	a.repo = repo;
	assert_int_equal(ss_releases_choose(&rel, &from, &a, NULL), 0);
	assert_int_equal(from, SS_RELEASES_NONE);
	assert_null(rel);
	a.repo_tags = 1;
	assert_int_equal(ss_releases_choose(&rel, &from, &a, NULL), 0);
	assert_int_equal(from, SS_RELEASES_REPO);
	assert_int_equal(ss_releases_count(rel), 2);   /* v1.0, v2.0 */
	ss_releases_free(rel);
	/* 2. the index's before the repository's tags */
	assert_int_equal(ss_releases_choose(&rel, &from, &a, ix), 0);
	assert_int_equal(from, SS_RELEASES_INDEX);
	assert_true(ss_releases_count(rel) >= 1);
	ss_releases_free(rel);
	/* an index without releases: the tags when the run falls back,
	 * else the index's empty list */
	assert_int_equal(ss_releases_choose(&rel, &from, &a, empty), 0);
	assert_int_equal(from, SS_RELEASES_REPO);
	assert_int_equal(ss_releases_count(rel), 2);
	ss_releases_free(rel);
	a.repo_tags = 0;
	assert_int_equal(ss_releases_choose(&rel, &from, &a, empty), 0);
	assert_int_equal(from, SS_RELEASES_INDEX);
	assert_int_equal(ss_releases_count(rel), 0);
	ss_releases_free(rel);
	/* 1. a file named beats the index and the tags */
	a.file = tsv;
	a.repo_tags = 1;
	assert_true(ss_releases_given(&a));
	assert_int_equal(ss_releases_choose(&rel, &from, &a, ix), 0);
	assert_int_equal(from, SS_RELEASES_GIVEN);
	assert_int_equal(ss_releases_count(rel), 3);
	ss_releases_free(rel);
	/* 1. a glob names the repository's tags, the index's left aside */
	a.file = NULL;
	a.tags = "v1*";
	assert_int_equal(ss_releases_choose(&rel, &from, &a, ix), 0);
	assert_int_equal(from, SS_RELEASES_GIVEN);
	assert_int_equal(ss_releases_count(rel), 1);
	ss_releases_free(rel);
	/* a glob without a repository: none (nothing to take tags from) */
	a.repo = NULL;
	assert_int_equal(ss_releases_choose(&rel, &from, &a, ix), 0);
	assert_int_equal(from, SS_RELEASES_NONE);
	assert_null(rel);
	/* a file that cannot be read: the error, from the source named */
	a.tags = NULL;
	a.file = "/nonexistent/releases.tsv";
	assert_true(ss_releases_choose(&rel, &from, &a, ix) < 0);
	assert_int_equal(from, SS_RELEASES_GIVEN);
	assert_null(rel);
	ss_index_free(empty);
	ss_index_free(ix);
	free(ixpath);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_words_apart),
		cmocka_unit_test(test_releases_choose),
	};

	return cmocka_run_group_tests(tests, setup, test_scratch_teardown);
}
