/*
 * cli.h - what the commands share: die(), error(), warning(), progress,
 * the option groups several commands take (each a table a command
 * includes: parse-options.h; a single option several take is declared
 * once in shared_options.c), reading commits, output files.
 *
 * Only src/cmd/ and src/stablesel.c include this file; the core never
 * prints or exits.  Exit codes (documented in the README):
 *   0   success
 *   1   the command ran but some input was bad (skipped items, error())
 *   128 die(): a fatal error, nothing written
 *   129 usage error (usage_die(), parse-options.h)
 */
#ifndef SS_CLI_H
#define SS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "check/verdict.h"
#include "labels/carried.h"
#include "models/options.h"
#include "parse-options.h"
#include "rank/rank.h"
#include "run/branches.h"
#include "run/rank_run.h"
#include "shared_options.h"
#include "source/replay.h"
#include "source/source.h"

#define SS_EXIT_BADINPUT 1
#define SS_EXIT_DIE 128
#define SS_EXIT_USAGE 129

extern int ss_had_error; /* set by error(): the command exits 1 */

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
/* A fact the user may want, not a problem: "note: ..." on stderr. */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);
/* Set the OpenBLAS thread count once, before a command runs: from
 * SS_BLAS_THREADS, else OPENBLAS_NUM_THREADS, else the CPUs this
 * process may use (nn/nn.h ss_nn_blas_threads_choose); warns about a bad
 * SS_BLAS_THREADS.  Returns the count. */
int cli_blas_threads_init(void);

/*
 * Progress on stderr, rate-limited: with --progress, or by default
 * (cli_progress -1) when stderr is a terminal; never with --no-progress.
 * progress_done() ends the line.
 */
extern int cli_progress;
int cli_progress_on(void);
void progress(const char *what, size_t done, size_t total);
void progress_done(void);

/* The run floor's messages (run/run.h) as note() and warning() print
 * them, its progress as progress() shows it. */
const ss_run_report *cli_run_report(void);

/* Flush and close stdout; a write error dies (128), else returns rc.
 * cli_exit() does it and exits with rc. */
int cli_check_stdout(int rc);
__attribute__((noreturn)) void cli_exit(int rc);

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
	/* cli_history_source(): the bottoms of the ranges, which revs points
	 * at (this struct's own: it is not copied once they are set) */
	char bottom[64][256];
} cli_source_args;

void cli_source_args_init(cli_source_args *a);

/*
 * The repository the user stands in, as git finds it (the current
 * directory or one above it): "." when there is one, said once on stderr
 * ("CMD: no --repo given: using the repository you stand in, PATH"),
 * else NULL.  git's convention for every command that reads a
 * repository; --repo PATH still names another.
 */
const char *cli_repo_here(const char *cmd);

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
 * rejects what cannot go together; cli_history_load() gives the releases
 * (and the index's history) to h or dies.
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

/*
 * How --history sources are read: src's options, with the revisions of
 * --history-rev, or else the bottoms of src's ranges ("A" of "A..B", "X"
 * of "^X": everything before the commits read, kept in out->bottom), or
 * else src's own.
 */
void cli_history_source(cli_source_args *out, const cli_history_args *ha,
			const cli_source_args *src);

void cli_history_args_init(cli_history_args *h);

/* The checks across the history options and the sources, once for every
 * command: --release-tags needs --repo PATH (usage_die()).
 * cli_history_load() makes them too; a command that writes or trains
 * before loading calls it right after parsing. */
void cli_history_check(const cli_history_args *ha, const char *repo);

/*
 * The past every history starts with: the project index (--db FILE, else
 * <gitdir>/stablesel/index.db of repo; none with --no-index) gives every
 * mainline commit, the first time of every path and the mainline releases
 * with each commit's first release; then --releases or --release-tags,
 * when named, replace the index's releases.  A missing default index is
 * said once on stderr (history is then what the sources hold); a missing
 * --db, a damaged or foreign index dies (run/history_load.h:
 * ss_run_history_load, the index opened by cli_index_open()).
 */
void cli_history_load(const cli_history_args *ha, struct ss_history *h, const char *repo);

/*
 * The project index the index options name (--db FILE, else repo's
 * default), open for reading; NULL with --no-index, without either, or
 * when the default index is missing (said once on stderr).  *used (may be
 * NULL) its path, malloc'd.  Dies on a damaged index or a missing --db.
 */
struct ss_index;
struct ss_index *cli_index_open(const cli_index_args *x, const char *repo, char **used);


/*
 * Fill l with the backports of the project index db (or, when db is NULL,
 * repo's default index), those committed by as_of when it is not 0: 1 when read (*used, when used is not NULL, the
 * index's path, malloc'd), 0 when db is NULL and repo has no index; dies
 * on a damaged index or a missing db.  run (may be NULL) lends the index.
 */
struct ss_backports;
int cli_backports_from_index(struct ss_backports *l, ss_run *run, const char *db, const char *repo,
			     int64_t as_of, char **used);
/* The --history sources' commits into h, read with src's options
 * (run/history_load.h: ss_run_history_prime); one that holds none is a
 * warning, one that cannot be read dies. */
void cli_history_prime(const cli_history_args *ha, struct ss_history *h, cli_source_args *src);

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
 * What train and eval share besides cli_train_args:
 * cli_log_line() is a model log function printing "ud: msg" (ud the
 * command's name); cli_load_labels() reads --labels FILE [--label-column]
 * or the --stable sources (dies on error, warns of skipped mails);
 * cli_history_fill() gives a dataset's history (run/split_read.h's
 * history, ud a cli_history_filling) the releases and the --history
 * commits before any commit is added, or dies; cli_note_unlisted() says
 * on stderr how many of the kept commits the labels do not list (they
 * train and count as negatives), unless there are none;
 * cli_note_copies() how many copies of a patch were folded into one
 * example or dropped from the test part, unless none were.
 */
void cli_log_line(void *ud, const char *msg);
ss_labels *cli_load_labels(const cli_train_args *t);
typedef struct {
	const cli_history_args *ha;
	cli_source_args *src;
} cli_history_filling;
int cli_history_fill(struct ss_history *h, void *ud);
void cli_note_unlisted(const char *cmd, const ss_labels *labels, size_t unlisted, size_t kept);
void cli_note_copies(const char *cmd, const ss_dataset *d);

/*
 * What rank and report share (cmd/rank_report.c): the model (--model, else
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
	/* review decisions (cmd/decisions_cli.h): list decided rows too (--all),
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

/*
 * Output files (util/atomic.h), opened before the work so that a bad path
 * (empty, a directory, a missing or unwritable directory, a write-protected
 * file) fails at once with a one-line error, not after a training; a die()
 * on the way removes the temporary file.  cli_output_open() dies on error.
 * cli_output_commit() writes the file into place or dies; before that it
 * warns when an output of no rows (nrows 0; what names them, "commits")
 * replaces a non-empty file, and after it when the file replaced had other
 * hard links, which keep the old content (see atomic.h for why the link is
 * broken rather than the file written in place).  nrows SIZE_MAX: the
 * output is never empty.
 */
struct ss_atomic;
struct ss_atomic *cli_output_open(const char *path);
void cli_output_commit(struct ss_atomic *a, size_t nrows, const char *what);

/* Day counts (--min-age, --settle-days) beyond a century are typos. */
#define SS_CLI_MAX_DAYS 36500

/* Write model m to the output out opened for output (-o), and commit
 * it; dies on failure. */
void cli_model_write(struct ss_atomic *out, const ss_model *m, const char *output);
/* "calibration: sigmoid(...)" when m has a Platt map. */
void cli_print_calibration(const ss_model *m);

/* What the built-in model m learnt from, in words for a note ("learnt
 * from other projects (...)"); a static buffer. */
const char *cli_builtin_words(const ss_model *m);

/* Subcommands. */
int cmd_log(int argc, const char **argv, const struct cli_context *ctx);
int cmd_label(int argc, const char **argv, const struct cli_context *ctx);
int cmd_train(int argc, const char **argv, const struct cli_context *ctx);
int cmd_corpus(int argc, const char **argv, const struct cli_context *ctx);
int cmd_eval(int argc, const char **argv, const struct cli_context *ctx);
int cmd_rank(int argc, const char **argv, const struct cli_context *ctx);
int cmd_explain(int argc, const char **argv, const struct cli_context *ctx);
int cmd_origin(int argc, const char **argv, const struct cli_context *ctx);
int cmd_index(int argc, const char **argv, const struct cli_context *ctx);
int cmd_where(int argc, const char **argv, const struct cli_context *ctx);
int cmd_mark(int argc, const char **argv, const struct cli_context *ctx);
int cmd_status(int argc, const char **argv, const struct cli_context *ctx);
int cmd_review(int argc, const char **argv, const struct cli_context *ctx);
int cmd_check(int argc, const char **argv, const struct cli_context *ctx);
int cmd_report(int argc, const char **argv, const struct cli_context *ctx);

#endif
