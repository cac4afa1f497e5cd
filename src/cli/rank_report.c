/*
 * rank_report.c - what "stablesel rank", "stablesel report" and "stablesel
 * review" share (see rank_report.h): their common options, the files loaded
 * first, and the ranking as one run call (run/rank_run.c: the history,
 * the branches, the model without --model, the stream, the decisions),
 * its model's choice said as "rank: ..." lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_report.h"
#include "run/rank_run.h"
#include "run/rank_stream.h"
#include "util/error.h"

void cli_ranking_init(cli_ranking *k)
{
	memset(k, 0, sizeof(*k));
	k->ko = (ss_ranker_options)SS_RANKER_OPTIONS_INIT;
	k->so = (ss_rank_select)SS_RANK_SELECT_INIT;
	cli_history_args_init(&k->hist_args);
	/* the repositories and the index, opened once for every step */
	if (ss_run_new(&k->run))
		die("%s", ss_error_last());
	k->hist_args.ix.run = k->run;
	{
		const struct cli_option t[] = {
			CLI_GROUP("Model"),
			CLI_MODEL(&k->model),
			CLI_PROB("threshold", &k->ko.threshold, "T",
				 "propose the commits scoring at least T (default: the model's)"),
			CLI_FLAG(0, "learn-in-cycle", &k->learn_in_cycle,
				 "the project model learns also from the ranked commits a stable branch "
				 "took already or review rejected (a weekly run; their own scores are "
				 "then in-sample)"),
			CLI_INCLUDE(k->hist_args.options),
			CLI_GROUP("Selection"),
			/* "at most N": 0 would list nothing; leave --top out for all */
			CLI_COUNT("top", &k->so.top, "N", 1, CLI_NO_MAX, "list at most N commits"),
			CLI_PROB("min-score", &k->so.min_score, "P", "list the commits scoring at least P"),
			CLI_DATE("since", &k->since,
				 "rank the commits authored from DATE; older ones are history only"),
			CLI_COUNT("budget", &k->so.budget, "N", 1, CLI_NO_MAX,
				  "propose at most N commits, the best first"),
			CLI_REAL("min-age", &k->so.min_age_days, "DAYS", 0.0, SS_CLI_MAX_DAYS,
				 "propose only commits at least DAYS old (upstream soak time)"),
			CLI_DATE("now", &k->so.now, "the date --min-age counts from (default: the newest commit read)"),
			CLI_OPT_AS_OF(&k->as_of),
			CLI_FLAG(0, "untagged-only", &k->so.untagged_only,
				 "list only the commits without a stable tag (the ones a tagger missed)"),
			CLI_OPT_KEEP_COPIES(&k->so.keep_copies),
			CLI_FLAG(0, "all", &k->show_decided,
				 "list the candidates with a review decision for every branch too, with it"),
			CLI_GROUP("Checks"),
			CLI_STRING(0, "policy", &k->policy_file, "FILE",
				   "the tree's rules: paths, subsystems, size limits"),
			CLI_OPT_STABLE(k->stable_arg, &k->nstable),
			CLI_OPT_LABELS(&k->labels_file),
			CLI_OPT_LABEL_COLUMN(&k->label_column),
			CLI_OPT_PROJECT_MODEL(&k->project_model),
			CLI_GROUP("Stable branches (--onto-repo: --repo unless named; without --onto, with --onto-repo or --verdicts: every stable branch of the project index)"),
			CLI_OPT_ONTO_REPO(&k->onto_repo),
			CLI_OPT_ONTO(k->st.on.onto, &k->st.on.n),
			CLI_OPT_ONTO_UPSTREAM(&k->onto_upstream),
			CLI_STRING_DEFAULT("verdicts", &k->verdicts, "LIST", "applies",
				   "list only the rows with one of these verdicts: applies (applies and "
				   "applies, needs), needs, already, unaffected, reverted, unknown "
				   "(comma-separated; yes and no as before; before another option or at "
				   "the end, LIST may be left out: applies)"),
			CLI_END(),
		};

		_Static_assert(sizeof(t) <= sizeof(k->options), "ranking options table too small");
		memcpy(k->options, t, sizeof(t));
	}
}

void cli_ranking_load(cli_ranking *k)
{
	/* without --model the model comes in cli_ranking_run, which knows the sources */
	k->stable = k->nstable ? k->stable_arg[0] : NULL;
	if (ss_run_rank_load(&k->st.m, &k->st.policy, &k->st.labels, &k->st.label, k->model,
			     k->policy_file, k->labels_file, k->label_column, k->stable,
			     cli_run_report()))
		die("%s", ss_error_last());
	k->ko.policy = k->st.policy;
	k->ko.stable = k->st.label;
	k->ko.labels = k->st.labels;
}

/* The model's choice as "rank: ..." lines (the command's name first). */
static void model_say(ss_run_level level, const char *msg, void *ud)
{
	const cli_ranking *k = ud;

	if (level == SS_RUN_WARNING) {
		warning("%s", msg);
		return;
	}
	progress_done();
	fprintf(stderr, "%s: %s\n", k->cmd ? k->cmd : "rank", msg);
}


void cli_ranking_run(cli_ranking *k, cli_source_args *src, const char *const *specs, int nspecs)
{
	ss_run_rank_options o = SS_RUN_RANK_OPTIONS_INIT;
	/* the progress as every step shows it (cli_run_report()) */
	ss_run_report model_rp = { model_say, cli_run_report()->progress,
				   cli_run_report()->progress_done, k };
	int usage;

	o.repo = src->repo;
	o.specs = specs;
	o.nspecs = nspecs > 0 ? (size_t)nspecs : 0;
	o.opts = &src->opts;
	o.history = k->hist_args.specs;
	o.nhistory = k->hist_args.n;
	o.hrevs = k->hist_args.hrevs;
	o.nhrevs = k->hist_args.nhrevs;
	o.releases = k->hist_args.rel.file;
	o.release_tags = k->hist_args.rel.tags;
	o.db = k->hist_args.ix.db;
	o.no_index = k->hist_args.ix.no_index;
	/* --as-of DATE: the index too is read as it was then */
	o.as_of = k->hist_args.ix.as_of = k->as_of;
	o.since = k->since;
	o.stable = k->stable;
	o.project_model = k->project_model;
	o.learn_in_cycle = k->learn_in_cycle;
	o.ko = &k->ko;
	o.so = &k->so;
	o.onto.onto_repo = k->onto_repo;
	o.onto.upstream = k->onto_upstream;
	o.onto.verdicts = k->verdicts;
	o.onto.queue_branch = k->queue_branch;
	o.onto.named = k->branch_named;
	o.onto.nnamed = k->nbranch_named;
	o.onto.queue_extras = k->queue_extras;
	o.onto.show_decided = k->show_decided;
	o.run = k->run;
	o.rp = cli_run_report();
	o.model_rp = &model_rp;
	if (ss_run_rank(&k->st, &usage, &o)) {
		if (usage)
			usage_die("%s", ss_error_last());
		die("%s", ss_error_last());
	}
}

size_t cli_ranking_rows(const cli_ranking *k, int picks_only)
{
	return ss_run_rank_rows(k->st.r, picks_only);
}

void cli_ranking_free(cli_ranking *k)
{
	ss_run_rank_state_clear(&k->st);
	ss_run_free(k->run);  /* after every step that borrowed from it */
	memset(k, 0, sizeof(*k));
}
