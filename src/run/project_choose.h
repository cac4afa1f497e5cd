/*
 * project_choose.h - the project model a ranking scores with when no
 * --model is given (project_choose.c; docs/scores.md): the kept one used
 * again while it fits, else one trained from the stable tree's labels
 * on the history before the ranked commits and kept for the next run.
 * The rules are project_rules.h's (the fit, the window, the relcode
 * features), project_keep.h's (the path, the cut, whether a kept model
 * still fits) and project_train.h's (the training on the settled
 * examples); this is the step that reads the examples, decides and keeps.
 *
 * The commits are walked, the history primed, the stored features opened
 * and the review's rejections read through an ss_run_project_reader
 * (run/project_read.h gives the commands' one: the sources, the index
 * and the releases as the ranking reads them).  Like the rest of src/run/ nothing prints or
 * exits: 0 or a negative SS_E* code with the message set, the rest said
 * through the ss_run_reports of the options.
 */
#ifndef SS_RUN_PROJECT_CHOOSE_H
#define SS_RUN_PROJECT_CHOOSE_H

#include <stddef.h>
#include <stdint.h>

#include "features/history.h"
#include "labels/backports.h"
#include "models/model.h"
#include "run/feature_store.h"
#include "run/project_keep.h"
#include "run/run.h"
#include "source/replay.h"
#include "util/strmap.h"

/* How the training reads what it learns from (run/project_read.h:
 * ss_run_project_reader_init, the commands' reading; a test's own).
 * Each returns 0 or < 0 with the message set, which stops the training. */
typedef struct {
	/* the history before the ranked commits (the --history sources, or
	 * the repository before the ranked range's bottoms), each commit to
	 * fn(c, data) */
	int (*walk_history)(ss_run_commit_fn fn, void *data, void *ud);
	/* the ranked commits (the sources), each commit to fn(c, data); what
	 * the read says (its progress, a message it skips) through rp, the
	 * reader's own report when NULL */
	int (*walk_ranked)(ss_run_commit_fn fn, void *data, const ss_run_report *rp, void *ud);
	/* non-zero when walk_ranked may run on a thread of its own while
	 * walk_history runs: the two share nothing they write (NULL: never) */
	int (*ranked_apart)(void *ud);
	/* prime h as the ranking's history is primed (the index, the
	 * releases) */
	int (*prime)(ss_history *h, void *ud);
	/* the features the project index keeps, for commits extracted with
	 * fo and read as the history is (ss_run_feature_store_open), into
	 * *out, NULL when there are none that fit; the caller's to close */
	int (*store)(ss_run_feature_store **out, const ss_feat_options *fo, void *ud);
	/* the commits review rejected (--learn-in-cycle) into *out, NULL
	 * when none are known; the caller's to free */
	int (*rejected)(ss_strmap **out, void *ud);
	void *ud;
} ss_run_project_reader;

typedef struct {
	ss_backports *label;          /* the stable tree's backports (required) */
	/* where the labels came from: --stable SOURCE, else (NULL) the
	 * project index at index_path (one of them required) */
	const char *stable;
	const char *index_path;
	const char *project_model;    /* --project-model FILE (NULL: beside the repository) */
	const char *repo;             /* the sources' repository (NULL: none) */
	ss_run *run;                  /* lends the repositories (NULL: each opens) */
	int masked;                   /* --mask-stable-tags (0) */
	/* what it learns from (ss_project_model_held()), the history's
	 * repository and revisions (their bottoms are the RANGE cut), read
	 * as hso says */
	ss_project_held held;         /* SS_PROJECT_HELD_NONE */
	const char *hrepo;            /* NULL */
	const ss_source_options *hso; /* required */
	int64_t since;                /* --since (0: none) */
	/* --as-of (0: today) and --learn-in-cycle (0): train, without using
	 * or replacing the kept model */
	int64_t as_of;
	int learn_in_cycle;
	/* the model's source, for people: the --history sources, then the
	 * ranked sources (learnt from only without a history) */
	const char *const *hspecs;    /* NULL */
	size_t nhspecs;               /* 0 */
	const char *const *specs;     /* NULL */
	size_t nspecs;                /* 0 */
	const ss_history *hist;       /* the history the ranking reads (NULL) */
	/* keep the ranked commits read in a replay (0), up to replay_cap
	 * bytes compressed (0: no cap) */
	int replay;
	size_t replay_cap;
	const ss_run_project_reader *reader;  /* required */
	const ss_run_history_reader *hr;      /* the stored features' reader (NULL: the run's own) */
	const ss_run_report *rp;      /* the training's decisions and progress (NULL) */
	const ss_run_report *store_rp; /* the stored features' (NULL) */
} ss_run_project_model_options;

#define SS_RUN_PROJECT_MODEL_OPTIONS_INIT { NULL, NULL, NULL, NULL, NULL, NULL, 0, \
	SS_PROJECT_HELD_NONE, NULL, NULL, 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0, NULL, NULL, \
	NULL, NULL }

/*
 * The ranking reads the sources again after training; keeping them as
 * they are read spares that second read (most of a first rank's time,
 * docs/scores.md): o->replay and o->replay_cap set to keep up to
 * SS_REPLAY_KIB (the environment's) of compressed commits
 * (SS_REPLAY_DEFAULT_KIB; 0: keep nothing).  Past it they are read again,
 * but standard input cannot be: with "-" among specs[0..nspecs) there is
 * no cap (unless SS_REPLAY_KIB says 0).
 */
#define SS_REPLAY_DEFAULT_KIB (256 * 1024)

void ss_run_project_replay_size(ss_run_project_model_options *o, const char *const *specs,
				size_t nspecs);

/*
 * The project model into *out: the kept one when it fits (said), else
 * one trained (said) and kept (said; a file that cannot be written is a
 * warning).  *out NULL when the labelled history is too small to learn
 * from: why[size] says why, for the note of the built-in model the
 * caller uses then.  *replay: the ranked commits as the training read
 * them (with o->replay, when they were read and all kept), the caller's
 * (ss_replay_free), else NULL.  0 or < 0 with the message set.
 */
int ss_run_project_model_choose(ss_model **out, ss_replay **replay, char *why, size_t size,
			 const ss_run_project_model_options *o);

/*
 * The words of the built-in model m for a note ("...: using the built-in
 * model, which <words>"): learnt from other projects or trained on
 * another, its scores may not carry over, into buf (size bytes), which
 * is returned.
 */
const char *ss_run_builtin_words(char *buf, size_t size, const ss_model *m);

/*
 * The model of a ranking without --model (rank, report, review): without
 * labels (o->label NULL) the built-in one, said with why; else the
 * project model (ss_run_project_model_choose), or the built-in one when
 * the labelled history is too small, said with the reason.  The built-in
 * model is said through o->rp (SS_RUN_INFO, whole) and *builtin set to
 * 1 (else 0).  *out and *replay as ss_run_project_model_choose() gives
 * them.  0 or < 0 with the message set.
 */
int ss_run_rank_model(ss_model **out, ss_replay **replay, int *builtin,
		      const ss_run_project_model_options *o);

#endif
