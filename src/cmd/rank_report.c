/*
 * rank_report.c - what "stablesel rank" and "stablesel report" share: their
 * common options, loading the model and the stable-tree checks, and
 * streaming history and commits through one ss_ranking (see cli.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decisions_cli.h"
#include "labels/backports.h"
#include "eval/eval.h"
#include "labels/labels.h"
#include "features/history.h"
#include "index/index.h"
#include "rank/policy.h"
#include "run/rank_stream.h"
#include "source/git.h"
#include "util/error.h"
#include "util/strmap.h"

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
			CLI_OPT_ONTO(k->on.onto, &k->on.n),
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
	if (ss_run_rank_load(&k->m, &k->policy, &k->labels, &k->label, k->model, k->policy_file,
			     k->labels_file, k->label_column, k->stable, cli_run_report()))
		die("%s", ss_error_last());
	k->ko.policy = k->policy;
	k->ko.stable = k->label;
	k->ko.labels = k->labels;
}

/* What the branches' steps read (run/rank_onto.h), from the options. */
static ss_run_onto_options onto_options(const cli_ranking *k, const char *repo)
{
	ss_run_onto_options o = SS_RUN_ONTO_OPTIONS_INIT;

	o.repo = repo;
	o.onto_repo = k->onto_repo;
	o.upstream = k->onto_upstream;
	o.verdicts = k->verdicts;
	o.queue_branch = k->queue_branch;
	o.named = k->branch_named;
	o.nnamed = k->nbranch_named;
	o.as_of = k->hist_args.ix.as_of;
	o.run = k->run;
	o.db = k->hist_args.ix.db;
	o.no_index = k->hist_args.ix.no_index;
	o.stable = k->stable;
	o.queue_extras = k->queue_extras;
	o.show_decided = k->show_decided;
	o.rp = cli_run_report();
	return o;
}

static void onto_fail(int usage)
{
	if (usage)
		usage_die("%s", ss_error_last());
	die("%s", ss_error_last());
}

void cli_ranking_run(cli_ranking *k, cli_source_args *src, const char *const *specs, int nspecs)
{
	ss_run_rank_stream_options o = SS_RUN_RANK_STREAM_INIT;
	const char *given[SS_RANK_MAX_BRANCHES];
	ss_run_onto_options oo;
	size_t ngiven;
	int usage;

	if (ss_history_new(&k->hist))
		die("out of memory");
	/* --as-of DATE: the index too is read as it was then */
	k->hist_args.ix.as_of = k->as_of;
	ss_run_rank_as_of(k->as_of, &src->opts, &k->so.now, cli_run_report());
	/* the releases and the index first: a bad file dies before a model is
	 * trained or said */
	cli_history_load(&k->hist_args, k->hist, src->repo);
	/* the index's stable branches: what each carries, and the labels a
	 * project model is trained from */
	if (!k->stable && !k->hist_args.ix.no_index && (k->hist_args.ix.db || src->repo)) {
		if (ss_run_rank_stable(&k->label, &k->index_path, k->run, k->hist_args.ix.db,
				       src->repo, k->hist_args.ix.as_of))
			die("%s", ss_error_last());
		k->ko.stable = k->label;
	}
	/* the stable branches before the model and the ranking: a bad --onto
	 * or --queue-branch dies before any work */
	ngiven = k->on.n;
	memcpy(given, k->on.onto, ngiven * sizeof(*given));
	oo = onto_options(k, src->repo);
	if (ss_run_onto_open(&k->on, &usage, &oo))
		onto_fail(usage);
	cli_ranking_model(k, src, specs, nspecs);
	if (ss_run_onto_cut(&k->label, given, ngiven, &oo))
		die("%s", ss_error_last());
	k->ko.stable = k->label;
	if (!k->replay)
		cli_source_require(src, nspecs);
	o.repo = src->repo;
	o.specs = specs;
	o.nspecs = (size_t)nspecs;
	o.opts = &src->opts;
	o.history = k->hist_args.specs;
	o.nhistory = k->hist_args.n;
	o.hrevs = k->hist_args.hrevs;
	o.nhrevs = k->hist_args.nhrevs;
	o.since = k->since;
	o.builtin = k->builtin;
	o.br = k->on.br;
	o.rp = cli_run_report();
	if (ss_run_rank_stream(&k->r, k->hist, k->m, &k->ko, &k->replay, &o))
		die("%s", ss_error_last());
	ss_ranking_select(k->r, &k->so);
	if (ss_run_onto_decide(k->r, &k->on, &usage, &oo))
		onto_fail(usage);
}

size_t cli_ranking_rows(const cli_ranking *k, int picks_only)
{
	return ss_run_rank_rows(k->r, picks_only);
}

void cli_ranking_free(cli_ranking *k)
{
	ss_ranking_free(k->r);
	ss_history_free(k->hist);
	ss_policy_free(k->policy);
	ss_labels_free(k->labels);
	ss_backports_free(k->label);
	ss_replay_free(k->replay);
	free(k->index_path);
	ss_model_free(k->m);
	ss_run_onto_set_clear(&k->on);
	ss_run_free(k->run);  /* after every step that borrowed from it */
	memset(k, 0, sizeof(*k));
}
