/*
 * option_groups.h - the option groups several commands take, each a
 * table a command pulls into its own with CLI_INCLUDE() (parse-options.h):
 * the sources (--repo, --rev ...), the project index (--db, --no-index),
 * the history (--history, --releases ...), the labels and the training;
 * the commits of the sources read, the history loaded and primed, the
 * labels read, each dying on what run/ returns (option_groups.c).
 */
#ifndef SS_CLI_OPTION_GROUPS_H
#define SS_CLI_OPTION_GROUPS_H

#include <stdint.h>

#include "cli.h"
#include "labels/labels.h"
#include "models/dataset.h"
#include "models/options.h"
#include "run/history_load.h"
#include "run/split_read.h"
#include "run/run.h"
#include "source/source.h"

/*
 * The source options of every command that reads commits ("Sources"):
 * --repo PATH, --rev REV (repeatable), --mask-stable-tags, --no-diff,
 * --max-lines N.  cli_source_args_init() sets the defaults and fills
 * options, which a command's table takes with CLI_INCLUDE(a.options).
 */
typedef struct {
	ss_source_options opts;
	const char *revs[64];
	const char *repo;
	struct cli_option options[8];
} cli_source_args;

void cli_source_args_init(cli_source_args *a);

/* With no SOURCE and no --repo, a->repo is cli_repo_here(cmd); when that
 * is none either, a usage error if required (before any work: no model
 * announced first), else a->repo stays NULL for the command to decide. */
void cli_source_default(cli_source_args *a, int nspecs, const char *cmd, int required);
/* A usage error when there is no SOURCE (nspecs 0) and no --repo: no
 * commits to read. */
void cli_source_require(const cli_source_args *a, int nspecs);

/*
 * Iterate the commits of every spec in turn (a repository when specs is
 * empty and --repo was given); calls fn for each commit, which takes
 * ownership.  Malformed messages are warned about and skipped.  Dies on
 * fatal source errors.  Returns the number of commits.
 */
typedef int (*cli_commit_fn)(ss_commit *c, void *data);
size_t cli_for_each_commit(cli_source_args *a, const char *const *specs, int nspecs,
			   cli_commit_fn fn, void *data);

/*
 * The history a commit is scored against ("History"): --history SOURCE
 * (repeatable: older commits that are only the past of the sources),
 * --releases FILE and --release-tags GLOB (bug ages in releases).  A model
 * must be scored with the history it was trained with, so train, eval,
 * rank, explain, report and origin all take them.  cli_history_check()
 * rejects what cannot go together; cli_history_fill_options() hands them
 * to run/history_load.h's ss_run_history_fill(), which gives the releases,
 * the index's history and the --history commits to h.
 */
typedef struct {
	const char *file, *tags;
} cli_releases;

/* The options several commands take, each declared once:
 * shared_options.h (CLI_OPT_DB(&db) ...). */

/*
 * The project index options ("Project index"): --db FILE and --no-index.
 * The history options include them; check takes them alone.
 */
typedef struct {
	const char *db;         /* --db FILE: the project index (NULL: the repository's) */
	int no_index;           /* --no-index */
	/* what the command was asked to read as of (--as-of: the index is
	 * read as it was then, ss_index_as_of()); 0: today */
	int64_t as_of;
	/* the run whose index and repositories are borrowed (run/run.h:
	 * opened once for the command), NULL: each call opens its own */
	ss_run *run;
	struct cli_option options[4];
} cli_index_args;

void cli_index_args_init(cli_index_args *x);

typedef struct {
	cli_releases rel;
	const char *specs[64];
	size_t n;
	cli_index_args ix;      /* --db, --no-index */
	const char *hrevs[64];  /* --history-rev REV: revisions of git history sources */
	size_t nhrevs;
	struct cli_option options[8];
} cli_history_args;

void cli_history_args_init(cli_history_args *h);

/* The checks across the history options and the sources, once for every
 * command: --release-tags needs --repo PATH (usage_die()).
 * ss_run_history_fill() makes them too; a command that writes or trains
 * before loading calls it right after parsing. */
void cli_history_check(const cli_history_args *ha, const char *repo);

/*
 * The history options and the sources src reads as the options of
 * run/history_load.h's ss_run_history_fill(): the past every history
 * starts with (the project index the index options name, a missing
 * default one said once on stderr; --releases or --release-tags, when
 * named, replacing its releases), then the --history sources read like
 * src, with --history-rev, else what src's ranges start from.  out
 * points into ha and src, which outlive it; said through
 * cli_run_report().
 */
void cli_history_fill_options(ss_run_history_fill_options *out,
			      const cli_history_args *ha, const cli_source_args *src);

/*
 * Fill l with the backports of the project index db (or, when db is NULL,
 * repo's default index), those committed by as_of when it is not 0: 1 when read (*used, when used is not NULL, the
 * index's path, malloc'd), 0 when db is NULL and repo has no index; dies
 * on a damaged index or a missing db.  run (may be NULL) lends the index.
 */
struct ss_backports;
int cli_backports_from_index(struct ss_backports *l, ss_run *run, const char *db, const char *repo,
			     int64_t as_of, char **used);

/*
 * What train and eval share ("Labels", "Training"): the labels (--labels
 * FILE, --label-column NAME, --stable SOURCE...), --settle-days N,
 * --no-history-features, -v and the training options, each declared once
 * in the table with its range (the feature groups' names come from
 * models/options.h).  cli_train_args_finish() checks the labels were
 * named, copies the values whose field is not of a table type into o and
 * fo, and applies --no-history-features and -v (logging as cmd).
 */
typedef struct {
	ss_train_options o;
	ss_feat_options fo;
	const char *labels_path, *column;
	const char *stable[32];
	size_t nstable;
	int settle, verbose, no_history, keep_copies;
	/* parsed here, into o and fo by cli_train_args_finish(); the
	 * targets -1 when not given */
	double seed, dropout, lr, weight_decay, input_dropout;
	double target_precision, target_recall;
	size_t vocab_size, min_df, hash_bits;
	char features_help[300];
	struct cli_option options[48];
} cli_train_args;

void cli_train_args_init(cli_train_args *t);
void cli_train_args_finish(cli_train_args *t, const char *cmd);

/*
 * What train and eval read alike, into so: t's features, copies folded
 * unless --keep-copies, labels (may be NULL), the history filled through
 * fill as cli_history_fill_options() says, src's repository and reading
 * options, t's settle days, progress through cli_run_report().  so and
 * fill point into t, ha and src, which outlive them; the kinds, the
 * sources and the split are the caller's to set.
 */
void cli_split_options(ss_run_split_options *so, ss_run_history_fill_options *fill,
		       const cli_train_args *t, const cli_history_args *ha,
		       const cli_source_args *src, const ss_labels *labels);

/*
 * What train and eval share besides cli_train_args:
 * cli_log_line() is a model log function printing "ud: msg" (ud the
 * command's name); cli_load_labels() reads --labels FILE [--label-column]
 * or the --stable sources (dies on error, warns of skipped mails);
 * cli_note_unlisted() says
 * on stderr how many of the kept commits the labels do not list (they
 * train and count as negatives), unless there are none;
 * cli_note_copies() how many copies of a patch were folded into one
 * example or dropped from the test part, unless none were.
 */
void cli_log_line(void *ud, const char *msg);
ss_labels *cli_load_labels(const cli_train_args *t);
void cli_note_unlisted(const char *cmd, const ss_labels *labels, size_t unlisted, size_t kept);
void cli_note_copies(const char *cmd, const ss_dataset *d);

#endif
