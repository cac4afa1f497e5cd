/*
 * rank_stream.h - the ranking of a rank, report or review run
 * (rank_stream.c): the files it reads first (model, policy, labels,
 * stable tree), what --as-of sets back, the stable tree the index's
 * backports give when no --stable is named, the --onto branches opened
 * and the stable tree cut for an honest replay, and the stream itself once
 * the model and the branches are chosen: the --history commits as
 * history only, then the sources' (or the ones the project model's
 * training kept in a replay) ranked and placed on the branches, and the
 * built-in model's pick share, and the rows an output lists.  Moved from
 * cmd/rank_report.c (cli_ranking_load, cli_ranking_run, as_of, feed_one,
 * open_branches, replay_cut, cli_ranking_rows; now cli/rank_report.c), which keeps the options, the model
 * and the exits; the branches' steps around them are run/rank_onto.c's.
 *
 * Like the rest of src/run/ nothing prints or exits: 0 or a negative
 * SS_E* code with the message set, the rest said through an
 * ss_run_report (NULL: nothing is said).
 */
#ifndef SS_RUN_RANK_STREAM_H
#define SS_RUN_RANK_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "features/history.h"
#include "index/index.h"
#include "labels/backports.h"
#include "labels/labels.h"
#include "models/model.h"
#include "rank/policy.h"
#include "rank/rank.h"
#include "run/branches.h"
#include "run/run.h"
#include "source/git.h"
#include "source/replay.h"
#include "source/source.h"

/*
 * What a rank run reads before its history, each only when named (NULL:
 * not loaded, the out left as it is): the model file (without it the model
 * comes once the sources are known), the tree's policy, a labels TSV
 * (its column label_column, NULL: the first) and the --stable tree's
 * mails, whose malformed ones are a warning through rp.  The outs are
 * the caller's even on failure (what was loaded by then).  0 or < 0
 * with the message set ("cannot read stable tree 'SRC': ..." for the
 * tree).
 */
int ss_run_rank_load(ss_model **model, ss_policy **policy, ss_labels **labels,
		     ss_backports **stable, const char *model_file, const char *policy_file,
		     const char *labels_file, const char *label_column, const char *stable_src,
		     const ss_run_report *rp);

/*
 * --as-of DATE (as_of not 0): the sources' commits committed later are
 * passed over (opts->until), --min-age counts from it unless --now set
 * *now, and a note through rp says what is read as of then.  Nothing
 * without it.
 */
void ss_run_rank_as_of(int64_t as_of, ss_source_options *opts, int64_t *now,
		       const ss_run_report *rp);

/*
 * The stable tree of a run without --stable: the backports of the
 * project index (db, else repo's default; as it was at as_of when not 0;
 * run, which may be NULL, lends it).  *out the backports (new, the
 * caller's) and *path the index's (malloc'd), both NULL when there is no
 * index or it records no backport.  0 or < 0 with the message set.
 */
int ss_run_rank_stable(ss_backports **out, char **path, ss_run *run, const char *db,
		       const char *repo, int64_t as_of);

/*
 * The --onto branches of a rank run, opened before its model, so that a
 * bad one fails before any work: onto[0..*n) as given (deduplicated:
 * run/branches.h's ss_run_onto_dedupe; room for SS_RANK_MAX_BRANCHES),
 * else, when bo->ix is given, the index's stable branches (their names
 * malloc'd into owned[], the caller's, which onto[] points at); with
 * as_of, each set back to its commit of then (at[] and asked[]:
 * ss_run_onto_as_of); then each opened with bo (its check, what it
 * carries, its verdicts) into *out, NULL without branches.  verdicts:
 * --verdicts (NULL).  0 or < 0 with the message set; *usage 1 when the
 * options cannot go together (ss_run_onto_check: a usage error), else 0.
 */
int ss_run_rank_onto(ss_run_branches **out, int *usage, const char **onto, size_t *n,
		     char **owned, char **at, const char **asked, const char *verdicts,
		     int64_t as_of, const ss_run_branches_options *bo);

/*
 * An honest replay (run/replay_cut.h): *stable, the index's backports
 * (read from ix at path), becomes those up to the newest tip of the
 * branches onto[0..n) of repo (rh: a run's handle of it, or NULL) when
 * one of them is set back; unchanged otherwise.  0 or < 0 with the
 * message set (*stable then unchanged).
 */
int ss_run_rank_replay_cut(ss_backports **stable, ss_index *ix, const char *path,
			   const char *repo, ss_repo *rh, const char *const *onto, size_t n,
			   const ss_run_report *rp);

/* What ss_run_rank_stream() reads and how. */
typedef struct {
	const char *repo;                 /* the repository read without specs (NULL) */
	const char *const *specs;         /* the sources (NULL: the repository) */
	size_t nspecs;                    /* 0 */
	const ss_source_options *opts;    /* how they are read (required) */
	const char *const *history;       /* the --history sources (NULL: none) */
	size_t nhistory;                  /* 0 */
	const char *const *hrevs;         /* --history-rev (NULL: the sources' bottoms) */
	size_t nhrevs;                    /* 0 */
	int64_t since;                    /* commits authored before it are history only (0: none) */
	int builtin;                      /* the model is the built-in one: its pick share (0) */
	ss_run_branches *br;              /* the branches each ranked commit is placed on (NULL) */
	const ss_run_report *rp;          /* notes and progress (NULL: none) */
} ss_run_rank_stream_options;

#define SS_RUN_RANK_STREAM_INIT { NULL, NULL, 0, NULL, NULL, 0, NULL, 0, 0, 0, NULL, NULL }

/*
 * Make *out (the caller's: ss_ranking_free) with model m and ko, and
 * stream into it and hist: the --history sources, every commit history
 * only (the ones that cannot be read are one warning at the end), then
 * the commits of *replay when it is not NULL (taken: freed and set NULL)
 * or else of the sources, each through run/feed.h's ss_run_feed.  The
 * built-in model without a threshold of ko's own (o->builtin) proposes
 * its share of the commits ranked: ko then explains every row and keeps
 * a queue's whole text, and the threshold moves once all are read, said
 * as a note.  0 or < 0 with the message set (at the first commit that
 * fails; *out, when made, is still the caller's).
 */
int ss_run_rank_stream(ss_ranking **out, ss_history *hist, const ss_model *m,
		       ss_ranker_options *ko, ss_replay **replay,
		       const ss_run_rank_stream_options *o);

/* The rows of r an output lists once selected: the proposed ones
 * (picks_only, an mbox) or the shown ones. */
size_t ss_run_rank_rows(const ss_ranking *r, int picks_only);

#endif
