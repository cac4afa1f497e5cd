/*
 * test_project.c - the model "rank" and "report" use without --model
 * (run/project_choose.c, through run/rank_run.c): trained from the --stable tree on first use and
 * kept beside the repository's data, reused while the stable tree has not
 * grown by a release, retrained when it has or when the labels change;
 * learning from the history before the ranked commits, never from them,
 * whenever that history is known (test_held_out); the
 * built-in model, with a warning that it comes from another project, when
 * nothing is known.  The project is tests/projrepo.sh's, in a scratch
 * folder.
 */
#include <sys/stat.h>

#include "testutil.h"

#include "eval/lopo.h"
#include "models/model.h"
#include "source/git.h"

static const char *projrepo(void)
{
	return test_script("projrepo.sh");
}

static int exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static void test_trains_keeps_reuses_retrains(void **state)
{
	char *repo = test_scratch_path("proj"), *model, *err, *out;
	ss_model *m;

	(void)state;
	assert_true(asprintf(&model, "%s/.git/stablesel/project.model", repo) > 0);
	/* the fixes among the first 120 of 240 commits are in stable */
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);

	/* first use: trained, said, kept beside the repository's data */
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --format tsv", repo, repo), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "rank: trained a linear model for this project on 210 commits "
				    "(60 in the stable tree"));
	assert_non_null(strstr(err, "kept the project model in "));
	assert_non_null(strstr(err, "/.git/stablesel/project.model"));
	assert_null(strstr(err, "another project"));
	free(err);
	assert_true(exists(model));
	assert_int_equal(ss_model_load(&m, model), 0);
	assert_int_equal(ss_model_get_kind(m), SS_MODEL_LINEAR);
	assert_int_equal(ss_model_info_of(m)->nlabelled, 60);
	assert_int_equal(ss_bands_check(ss_model_bands(m)), 0);
	ss_model_free(m);
	out = test_scratch_read("out");
	assert_int_equal(test_count_lines(out), 241);
	free(out);
	/* explain finds the kept model beside the repository's data */
	{
		char head[41];

		assert_int_equal(ss_git_resolve(head, repo, "main"), 0);
		assert_int_equal(test_cli("explain --repo '%s' %s", repo, head), 0);
	}
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "using the project model rank trained on "));
	assert_non_null(strstr(err, "/.git/stablesel/project.model"));
	free(err);

	/* again, and with two more backports (less than a release's worth):
	 * used as it is */
	assert_int_equal(test_run("sh '%s' '%s' 124", projrepo(), repo), 0);
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --top 3", repo, repo), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "rank: using the model trained for this project on "));
	assert_null(strstr(err, "trained a linear model"));
	free(err);
	/* report shares it */
	assert_int_equal(test_cli("report --repo '%s' --stable '%s' -o '%s/page.html'", repo, repo,
				  test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "report: using the model trained for this project on "));
	free(err);

	/* the stable tree grew by more than a release: retrained */
	assert_int_equal(test_run("sh '%s' '%s' 240", projrepo(), repo), 0);
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --top 3", repo, repo), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "rank: retraining the project model "));
	assert_non_null(strstr(err, "the stable tree carries 120 commits, 60 when it was trained"));
	assert_non_null(strstr(err, "(105 in the stable tree"));
	free(err);
	assert_int_equal(ss_model_load(&m, model), 0);
	assert_int_equal(ss_model_info_of(m)->nlabelled, 120);
	ss_model_free(m);

	/* stable tags masked now: the kept model does not fit */
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --mask-stable-tags --top 3", repo, repo), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "it was trained with stable tags visible"));
	free(err);

	/* --project-model FILE: kept there instead */
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --project-model '%s/elsewhere.model' "
				  "--top 3", repo, repo, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "trained a linear model"));
	free(err);
	{
		char *p = test_scratch_path("elsewhere.model");

		assert_true(exists(p));
		free(p);
	}
	/* a folder nobody may write (read-only data): left alone, even by root */
	assert_int_equal(test_run("mkdir -p '%s/ro' && chmod 555 '%s/ro'", test_scratch, test_scratch), 0);
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --project-model '%s/ro/sub/x.model' "
				  "--top 3", repo, repo, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "warning: cannot keep the project model in "));
	assert_non_null(strstr(err, "Permission denied"));
	free(err);
	{
		char *p = test_scratch_path("ro/sub");

		assert_false(exists(p));
		free(p);
	}
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --project-model '%s/ro/x.model' "
				  "--top 3", repo, repo, test_scratch), 0);
	{
		char *p = test_scratch_path("ro/x.model");

		assert_false(exists(p));
		free(p);
	}
	assert_int_equal(test_run("chmod 755 '%s/ro'", test_scratch), 0);
	/* a place it cannot be kept: trained, used, and said */
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --project-model /proc/nowhere/x.model "
				  "--top 3", repo, repo), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "warning: cannot keep the project model in '/proc/nowhere/x.model'"));
	free(err);
	free(model);
	free(repo);
}

/* No repository, mail only: kept in stablesel/ beside the stable mbox. */
static void test_mbox_beside_stable(void **state)
{
	char *repo = test_scratch_path("mailproj"), *err, *model;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_run("mkdir -p '%s/mail' && cd '%s' && "
				  "git format-patch -q --stdout --root main > ../mail/main.mbox && "
				  "git format-patch -q --stdout main..stable-1.y > ../mail/stable.mbox",
				  test_scratch, repo), 0);
	assert_int_equal(test_cli("rank '%s/mail/main.mbox' --stable '%s/mail/stable.mbox' --top 3",
				  test_scratch, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "trained a linear model for this project on 210 commits (60 in the stable tree"));
	free(err);
	model = test_scratch_path("mail/stablesel/project.model");
	assert_true(exists(model));
	free(model);
	assert_int_equal(test_cli("rank '%s/mail/main.mbox' --stable '%s/mail/stable.mbox' --top 3",
				  test_scratch, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "using the model trained for this project"));
	free(err);
	free(repo);
}

/* Nothing known about the project: the built-in model, said to be another
 * project's; too little history to learn from: the same, with the reason. */
static void test_builtin_warning(void **state)
{
	char *repo = test_scratch_path("small"), *err;
	ss_model *builtin = NULL;

	(void)state;
	if (ss_model_load_default(&builtin)) {
		print_message("SKIP: this build has no built-in model\n");
		free(repo);
		return;
	}
	ss_model_free(builtin);
	assert_int_equal(test_run("sh '%s' '%s' >/dev/null 2>&1", test_gitrepo_script(), repo), 0);
	assert_int_equal(test_cli("rank --repo '%s' --top 1", repo), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "rank: no --model, no --stable SOURCE and no project index"));
	assert_non_null(strstr(err, "using the built-in model, which learnt from other projects "
				    "(scripts/corpus.tsv"));
	free(err);
	assert_int_equal(test_cli("rank --repo '%s' --stable '%s' --top 1", repo, repo), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "too few settled commits to train a model for this project"));
	assert_non_null(strstr(err, "learnt from other projects"));
	free(err);
	/* --model: nothing to say */
	assert_int_equal(test_cli("rank --repo '%s' --top 1 --model models/default.model", repo), 0);
	err = test_scratch_read("err");
	assert_null(strstr(err, "another project"));
	assert_null(strstr(err, "project model"));
	free(err);
	free(repo);
}

/*
 * The built-in model on a project it has never seen proposes its pick
 * share of the commits ranked (models/model.h; the median share of the
 * corpus projects, docs/scores.md), said on stderr; --threshold and
 * --model FILE keep their meaning.
 */
static void test_builtin_share(void **state)
{
	char *repo = test_scratch_path("share"), *err, *out, *line, *save = NULL;
	size_t n = 0, picks = 0, said_p = 0, said_n = 0;
	float share, lowest_pick = 2.0f, highest_other = -1.0f;
	ss_model *builtin = NULL;
	const char *p;

	(void)state;
	if (ss_model_load_default(&builtin)) {
		print_message("SKIP: this build has no built-in model\n");
		free(repo);
		return;
	}
	share = ss_model_pick_share(builtin);
	ss_model_free(builtin);
	assert_true(share > 0.0f && share < 1.0f);
	assert_int_equal(test_run("sh '%s' '%s' >/dev/null 2>&1", test_gitrepo_script(), repo), 0);
	assert_int_equal(test_cli("rank --repo '%s' --format tsv --top 100000", repo), 0);
	out = test_scratch_read("out");
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		float score;
		int pick;

		if (!strncmp(line, "sha\t", 4))
			continue;
		assert_int_equal(sscanf(line, "%*40s %f %d", &score, &pick), 2);
		n++;
		picks += pick;
		if (pick && score < lowest_pick)
			lowest_pick = score;
		if (!pick && score > highest_other)
			highest_other = score;
	}
	free(out);
	assert_true(n > 5);
	/* the share, rounded, ties at the cut in; nothing below it proposed */
	assert_true(picks >= ss_lopo_share_count(share, n) && picks < n);
	assert_true(lowest_pick >= highest_other);
	err = test_scratch_read("err");
	assert_non_null(p = strstr(err, "the built-in model proposes its share of a project it has "
				  "never seen, the best "));
	assert_non_null(p = strstr(p, "commits ranked: "));
	assert_int_equal(sscanf(p, "commits ranked: %zu of %zu", &said_p, &said_n), 2);
	assert_int_equal(said_p, picks);
	assert_int_equal(said_n, n);
	free(err);
	/* --threshold is the user's; --model FILE is no built-in choice */
	assert_int_equal(test_cli("rank --repo '%s' --format tsv --threshold 0.5", repo), 0);
	err = test_scratch_read("err");
	assert_null(strstr(err, "proposes its share"));
	free(err);
	assert_int_equal(test_cli("rank --repo '%s' --format tsv --model models/default.model", repo), 0);
	err = test_scratch_read("err");
	assert_null(strstr(err, "proposes its share"));
	free(err);
	free(repo);
}

/*
 * The first rank without --model reads the ranked commits once: the
 * project model's training keeps them (source/replay.h) and the ranking
 * reads them back.  Its rows equal, byte for byte, those of a rank that
 * reads them from git again: with the kept model, with nothing kept
 * (SS_REPLAY_KIB=0, the old path), and past a tiny cap (dropped, read
 * again).  From the index's branches with a range (the history before it
 * learnt from, the range only kept), and from mail with --stable.
 */
static void test_first_rank_one_read(void **state)
{
	static const char *const runs[] = { "", "SS_REPLAY_KIB=0 ", "SS_REPLAY_KIB=1 " };
	char *repo = test_scratch_path("onepass"), *first, *out, *err;
	size_t i;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_cli("index --repo '%s'", repo), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(test_run("%s./stablesel rank --repo '%s' --rev main~100..main "
					  "--project-model '%s/pm%zu.model' --format tsv >'%s/out' 2>'%s/err'",
					  runs[i], repo, test_scratch, i, test_scratch, test_scratch), 0);
		err = test_scratch_read("err");
		/* from the history before the range only (test_held_out) */
		assert_non_null(strstr(err, "rank: trained a linear model for this project on 140 "
					    "commits (60 in the stable tree"));
		/* past the cap: said, and read again */
		assert_int_equal(strstr(err, "more than SS_REPLAY_KIB keeps in memory") != NULL, i == 2);
		free(err);
		out = test_scratch_read("out");
		assert_int_equal(test_count_lines(out), 101);
		if (!i) {
			first = out;
			/* the kept model, the commits read from git again */
			assert_int_equal(test_cli("rank --repo '%s' --rev main~100..main --project-model "
						  "'%s/pm0.model' --format tsv", repo, test_scratch), 0);
			err = test_scratch_read("err");
			assert_non_null(strstr(err, "rank: using the model trained for this project"));
			free(err);
			out = test_scratch_read("out");
		}
		assert_string_equal(out, first);
		free(out);
	}
	free(first);

	/* mail: the same */
	assert_int_equal(test_run("mkdir -p '%s/mail1' && cd '%s' && "
				  "git format-patch -q --stdout --root main > ../mail1/main.mbox && "
				  "git format-patch -q --stdout main..stable-1.y > ../mail1/stable.mbox",
				  test_scratch, repo), 0);
	assert_int_equal(test_cli("rank '%s/mail1/main.mbox' --stable '%s/mail1/stable.mbox' --format tsv",
				  test_scratch, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "trained a linear model for this project on 210 commits"));
	free(err);
	first = test_scratch_read("out");
	assert_int_equal(test_count_lines(first), 241);
	assert_int_equal(test_cli("rank '%s/mail1/main.mbox' --stable '%s/mail1/stable.mbox' --format tsv",
				  test_scratch, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "using the model trained for this project"));
	free(err);
	out = test_scratch_read("out");
	assert_string_equal(out, first);
	free(out);
	/* standard input, which cannot be read twice: ranked all the same,
	 * even past the cap (before, the ranking found it empty) */
	assert_int_equal(test_run("SS_REPLAY_KIB=1 ./stablesel rank - --stable '%s/mail1/stable.mbox' "
				  "--project-model '%s/stdin.model' --format tsv <'%s/mail1/main.mbox' "
				  ">'%s/out' 2>'%s/err'", test_scratch, test_scratch, test_scratch,
				  test_scratch, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "trained a linear model for this project on 210 commits"));
	free(err);
	out = test_scratch_read("out");
	assert_string_equal(out, first);
	free(out);
	free(first);
	free(repo);
}

/*
 * With the history before the ranked range known (an index and --rev A..B)
 * the project model learns from that history alone, so it never scores a
 * commit it was trained on (a fix the stable tree missed would be taught as
 * a negative and ranked low); it is used again for a range that starts
 * after its cut and retrained for one that reaches behind it.  Without
 * such a history it learns from the ranked commits' settled labels and
 * says their scores are in-sample.
 */
static void test_held_out(void **state)
{
	char *repo = test_scratch_path("heldout"), *err, *out, *model, id[41];
	long long bottom_time;
	size_t nranked;
	ss_model *m;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_cli("index --repo '%s'", repo), 0);
	assert_int_equal(test_run("git -C '%s' log -1 --format=%%at main~100 >'%s/t'", repo,
				  test_scratch), 0);
	out = test_scratch_read("t");
	bottom_time = atoll(out);
	free(out);
	assert_true(bottom_time > 0);

	assert_int_equal(test_cli("rank --repo '%s' --rev main~100..main --project-model '%s/h.model' "
				  "--format tsv", repo, test_scratch), 0);
	err = test_scratch_read("err");
	/* the 140 commits before main~100, all settled against the newest
	 * commit read (main's), ranked ones included */
	assert_non_null(strstr(err, "on 140 commits (60 in the stable tree, the newest 90 days left "
				    "out as unsettled) from the history before the ranked ones"));
	assert_null(strstr(err, "in-sample"));
	free(err);
	out = test_scratch_read("out");
	assert_int_equal(test_count_lines(out), 101);
	/* explain without --model scores with the model rank kept: the same
	 * score as rank's row (printed to 6 and to 4 places) */
	{
		char row_id[41], want[64], *tab = strchr(out, '\n') + 1;
		double score = 0;

		assert_int_equal(sscanf(tab, "%40[0-9a-f]\t%lf", row_id, &score), 2);
		assert_int_equal(test_cli("explain --repo '%s' --project-model '%s/h.model' %s", repo,
					  test_scratch, row_id), 0);
		err = test_scratch_read("err");
		assert_non_null(strstr(err, "explain: no --model: using the project model rank trained on "));
		free(err);
		err = test_scratch_read("out");
		snprintf(want, sizeof(want), "score %.4f ", score);
		assert_non_null(strstr(err, want));
		free(err);
		/* none kept for the repository itself: the built-in one, said */
		assert_int_equal(test_cli("explain --repo '%s' %s", repo, row_id), 0);
		err = test_scratch_read("err");
		assert_non_null(strstr(err, "using the built-in model"));
		free(err);
	}
	free(out);
	/* every training commit is older than the range's bottom, whose id is
	 * the cut kept in the model */
	model = test_scratch_path("h.model");
	assert_int_equal(ss_model_load(&m, model), 0);
	free(model);
	assert_true(ss_model_info_of(m)->last <= bottom_time);
	assert_int_equal(ss_git_resolve(id, repo, "main~100"), 0);
	assert_non_null(strstr(ss_model_info_of(m)->source, id));
	ss_model_free(m);

	/* a later range: the same model */
	assert_int_equal(test_cli("rank --repo '%s' --rev main~50..main --project-model '%s/h.model' "
				  "--top 3", repo, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "rank: using the model trained for this project on "));
	free(err);
	/* a range reaching behind the cut: retrained (here too little is
	 * left before it, so the built-in model) */
	assert_int_equal(test_cli("rank --repo '%s' --rev main~150..main --project-model '%s/h.model' "
				  "--top 3", repo, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "rank: retraining the project model "));
	assert_non_null(strstr(err, "which the ranked range does not start after"));
	assert_non_null(strstr(err, "too few settled commits"));
	free(err);

	/* no history before the ranked commits: in-sample, said; the next
	 * run that knows the history retrains */
	assert_int_equal(test_cli("rank --repo '%s' --project-model '%s/in.model' --top 3", repo,
				  test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "trained a linear model for this project on 210 commits"));
	assert_non_null(strstr(err, "the 210 settled commits it learnt from are ranked too, so their "
				    "scores are in-sample"));
	free(err);
	assert_int_equal(test_cli("rank --repo '%s' --rev main~100..main --project-model '%s/in.model' "
				  "--top 3", repo, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "it learnt from commits this ranking scores, and the history "
				    "before them is known now"));
	assert_non_null(strstr(err, "on 140 commits"));
	free(err);

	/* mail with --since: the commits authored before it are history only,
	 * and the model learns from them alone; a later --since keeps it, an
	 * earlier one retrains */
	assert_int_equal(test_run("mkdir -p '%s/hmail' && cd '%s' && "
				  "git format-patch -q --stdout --root main > ../hmail/main.mbox && "
				  "git format-patch -q --stdout main..stable-1.y > ../hmail/stable.mbox && "
				  "git log -1 --format=%%ad --date=short main~100 >'%s/since'",
				  test_scratch, repo, test_scratch), 0);
	out = test_scratch_read("since");
	out[strcspn(out, "\n")] = '\0';
	assert_int_equal(test_cli("rank '%s/hmail/main.mbox' --stable '%s/hmail/stable.mbox' --since %s "
				  "--project-model '%s/s.model' --format tsv", test_scratch, test_scratch,
				  out, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "from the history before the ranked ones"));
	assert_null(strstr(err, "in-sample"));
	free(err);
	/* every commit authored from that day is ranked, no other */
	assert_int_equal(test_run("git -C '%s' log --format=%%at main | awk '$1 >= %lld' | wc -l "
				  ">'%s/nranked'", repo, bottom_time, test_scratch), 0);
	err = test_scratch_read("nranked");
	nranked = (size_t)atoll(err);
	free(err);
	err = test_scratch_read("out");
	assert_true(nranked >= 100);
	assert_int_equal(test_count_lines(err), nranked + 1);
	free(err);
	/* main~100 is authored at midnight: the day it starts is its time */
	model = test_scratch_path("s.model");
	assert_int_equal(ss_model_load(&m, model), 0);
	free(model);
	assert_true(ss_model_info_of(m)->last < bottom_time);
	assert_true(ss_model_info_of(m)->n > 100);
	ss_model_free(m);
	assert_int_equal(test_cli("rank '%s/hmail/main.mbox' --stable '%s/hmail/stable.mbox' "
				  "--since 2021-12-01 --project-model '%s/s.model' --top 2", test_scratch,
				  test_scratch, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "rank: using the model trained for this project on "));
	free(err);
	assert_int_equal(test_cli("rank '%s/hmail/main.mbox' --stable '%s/hmail/stable.mbox' "
				  "--since 2020-09-27 --project-model '%s/s.model' --top 2", test_scratch,
				  test_scratch, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "it learnt from the commits authored before "));
	assert_non_null(strstr(err, ", and --since is earlier"));
	free(err);
	free(out);
	free(repo);
}

/*
 * A project whose stable policy changed (tests/driftrepo.sh: alpha fixes
 * backported for 3 years, then beta fixes only): all of its history
 * teaches the old policy as much as the new, so the project model learns
 * from the window of recent years that scores best on the newest slice of
 * the history, says so, and ranks the new policy's fixes first.
 */
static void test_window(void **state)
{
	char *repo = test_scratch_path("drift"), *err, *out, *line;
	int beta = 0, alpha = 0, rows = 0;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s'", test_script("driftrepo.sh"), repo), 0);
	assert_int_equal(test_cli("index --repo '%s'", repo), 0);
	assert_int_equal(test_cli("rank --repo '%s' --rev main~120..main --project-model "
				  "'%s/w.model' --format tsv --top 30", repo, test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "rank: learning from the last 4 years of the history only: "
				    "validation AP on its newest 15%: all 0."));
	free(err);
	/* the best 30 are beta fixes, the policy of the last years */
	out = test_scratch_read("out");
	for (line = strchr(out, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		rows++;
		beta += strstr(line, "\tcore: fix beta leak ") != NULL;
		alpha += strstr(line, "\tcore: fix alpha crash ") != NULL;
	}
	assert_int_equal(rows, 30);
	assert_int_equal(beta, 30);
	assert_int_equal(alpha, 0);
	free(out);
	free(repo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trains_keeps_reuses_retrains),
		cmocka_unit_test(test_mbox_beside_stable),
		cmocka_unit_test(test_builtin_warning),
		cmocka_unit_test(test_builtin_share),
		cmocka_unit_test(test_first_rank_one_read),
		cmocka_unit_test(test_held_out),
		cmocka_unit_test(test_window),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
