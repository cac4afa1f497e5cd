/*
 * rank_report.h - the ranking rank, report and review share
 * (rank_report.c): its option groups (model, selection, checks, stable
 * branches), the files loaded and the ranking made as one call to
 * run/rank_run.c, dying on what it returns.
 */
#ifndef SS_CLI_RANK_REPORT_H
#define SS_CLI_RANK_REPORT_H

#include <stdint.h>

#include "check/verdict.h"
#include "cli.h"
#include "labels/carried.h"
#include "option_groups.h"
#include "rank/rank.h"
#include "run/branches.h"
#include "run/rank_run.h"
#include "source/replay.h"

/*
 * What rank, report and review share (rank_report.c): the model (--model, else
 * the project's own model when --stable is given, else the built-in one:
 * run/rank_run.c), the history options, selection (--top, --min-score,
 * --since, --budget, --min-age, --now, --untagged-only), --threshold, and
 * the checks against --policy, --stable and --labels, and the verdicts
 * for the stable branches of --onto-repo/--onto (check/verdict.h: every
 * ranked commit is placed on each branch as it streams by; after the
 * selection the picks' verdicts are decided, a pick no branch takes is no
 * longer proposed, and --verdicts keeps the rows whose verdicts it names).
 * Use:
 * cli_ranking_init() and CLI_INCLUDE(k.options) in the command's table;
 * cli_ranking_load() (dies on error); set what the command needs in ko
 * (keep, precedents...); cli_ranking_run() streams --history then the
 * sources through the ranking and selects; write from st.r;
 * cli_ranking_free().
 */
typedef struct {
	ss_ranker_options ko;
	ss_rank_select so;
	const char *model, *policy_file, *stable, *labels_file, *label_column;
	const char *stable_arg[1]; /* --stable SOURCE, into stable by cli_ranking_load() */
	size_t nstable;
	const char *project_model; /* --project-model FILE (NULL: beside the repository) */
	const char *cmd;        /* the command's name, for messages ("rank") */
	cli_history_args hist_args;
	int64_t since;          /* 0: none */
	/* --as-of DATE: everything read as it was known then (cli_ranking_run);
	 * 0: today */
	int64_t as_of;
	/* --learn-in-cycle: the project model learns from the ranked commits
	 * whose fate is known too (taken by a stable branch, rejected in
	 * review; run/project_choose.c) */
	int learn_in_cycle;
	/* stable branches ("Stable branches"): a verdict per row per branch */
	const char *onto_repo, *onto_upstream, *verdicts;
	int queue_extras;       /* read prerequisites the ranking lacks (mbox) */
	/* review decisions (cli/decisions_cli.h): list decided rows too (--all),
	 * and rank's --queue-branch, the branch whose queue is written (NULL:
	 * the first --onto), which cli_ranking_run resolves once, before the
	 * model and the ranking, into st.on.queue_b: an index into st.on.onto[] (a
	 * usage error when it is none of them) */
	int show_decided;
	const char *queue_branch;
	/* the --branch names of review (branch_named), which an --onto that is
	 * no branch of the index (a tag, a commit) is taken for */
	const char *const *branch_named;
	size_t nbranch_named;
	struct cli_option options[30];
	/* loaded and made, owned until cli_ranking_free() (run/rank_run.h):
	 * the model, the stable tree, the history, the --onto branches
	 * (st.on.onto, st.on.n: the names given), the ranking */
	ss_run_rank_state st;
	/* the run's repositories and index, opened once (run/run.h);
	 * hist_args.ix.run borrows it */
	ss_run *run;
} cli_ranking;

void cli_ranking_init(cli_ranking *k);

void cli_ranking_load(cli_ranking *k);
void cli_ranking_run(cli_ranking *k, cli_source_args *src, const char *const *specs, int nspecs);
void cli_ranking_free(cli_ranking *k);
/* The rows an output lists after selection: shown, or proposed (mbox). */
size_t cli_ranking_rows(const cli_ranking *k, int picks_only);

#endif
