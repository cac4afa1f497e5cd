/*
 * rank_run.h - the ranking of rank, report and review as one run call
 * (rank_run.c): the history loaded (the releases named, the repository,
 * the project index), the index's stable tree when no --stable is
 * named, the --onto branches opened (run/rank_onto.h), the model chosen
 * when --model is not given (run/project_choose.h, reading through
 * run/project_read.h), the replay's cut, the stream (run/rank_stream.h),
 * the selection, then the review decisions and the branches' verdicts.
 * Each step is the one its module names; this is their order, so that a
 * bad option fails before a model is trained or said.
 *
 * Like the rest of src/run/ nothing prints or exits: 0 or a negative
 * SS_E* code with the message set (*usage 1 when it is the user's
 * mistake), the rest said through the options' reports.
 */
#ifndef SS_RUN_RANK_RUN_H
#define SS_RUN_RANK_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "features/history.h"
#include "labels/backports.h"
#include "labels/labels.h"
#include "models/model.h"
#include "rank/policy.h"
#include "rank/rank.h"
#include "run/feature_store.h"
#include "run/rank_onto.h"
#include "run/run.h"
#include "source/replay.h"
#include "source/source.h"

/* What a ranking run made: zeroed by the front end first, loaded by
 * ss_run_rank_load() (model, policy, labels, label), filled by
 * ss_run_rank(), emptied by ss_run_rank_state_clear(). */
typedef struct {
	ss_model *m;            /* --model, else the one ss_run_rank() chose */
	ss_policy *policy;      /* --policy (NULL) */
	ss_labels *labels;      /* --labels (NULL) */
	ss_backports *label;    /* the stable tree: --stable, else the index's (NULL) */
	char *index_path;       /* the index label came from, when not --stable */
	ss_history *hist;       /* the history the ranking scores against */
	/* the sources' commits as the project model's training read them,
	 * ranked from memory instead of read again (NULL: read them) */
	ss_replay *replay;
	/* the model is the built-in one, chosen because the project has no
	 * stable history to train its own: it proposes its pick share */
	int builtin;
	ss_run_onto_set on;     /* the --onto branches (on.onto, on.n: as given) */
	ss_ranking *r;          /* the ranking, selected */
} ss_run_rank_state;

typedef struct {
	/* the sources ranked: specs[0..nspecs), else the repository repo,
	 * read with opts (--as-of sets its until) */
	const char *repo;                 /* NULL */
	const char *const *specs;         /* NULL */
	size_t nspecs;                    /* 0 */
	ss_source_options *opts;          /* required */
	/* the history: --history sources, --history-rev, --releases,
	 * --release-tags */
	const char *const *history;       /* NULL */
	size_t nhistory;                  /* 0 */
	const char *const *hrevs;         /* NULL: the sources' bottoms */
	size_t nhrevs;                    /* 0 */
	const char *releases;             /* NULL */
	const char *release_tags;         /* NULL (needs repo) */
	/* the project index: --db (NULL: repo's own), --no-index (0) */
	const char *db;
	int no_index;
	int64_t as_of;                    /* --as-of (0: today) */
	int64_t since;                    /* --since (0: none) */
	/* the model without --model */
	const char *stable;               /* --stable SOURCE (NULL: the index's tree) */
	const char *project_model;        /* --project-model FILE (NULL: beside the repository) */
	int learn_in_cycle;               /* --learn-in-cycle (0) */
	const ss_run_history_reader *hr;  /* the stored features' reader (NULL: the run's own) */
	/* the ranking: its options (ko->stable set here) and the selection
	 * (so->now set by --as-of) */
	ss_ranker_options *ko;            /* required */
	ss_rank_select *so;               /* required */
	/* the branches (run/rank_onto.h; its repo, as_of, run, db, no_index,
	 * stable and rp are set here from the fields above) */
	ss_run_onto_options onto;
	ss_run *run;                      /* lends the repositories and the index (NULL) */
	const ss_run_report *rp;          /* notes, warnings, progress (NULL) */
	const ss_run_report *model_rp;    /* the model's choice, in the command's words (NULL) */
} ss_run_rank_options;

#define SS_RUN_RANK_OPTIONS_INIT { NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, NULL, NULL, 0, \
	0, 0, NULL, NULL, 0, NULL, NULL, NULL, SS_RUN_ONTO_OPTIONS_INIT, NULL, NULL, NULL }

/* The ranking of o into st (loaded first, see above).  0 or < 0. */
int ss_run_rank(ss_run_rank_state *st, int *usage, ss_run_rank_options *o);

/* Free what st holds and zero it. */
void ss_run_rank_state_clear(ss_run_rank_state *st);

#endif
