/*
 * cli.h - what the command-line side shares: the subcommands, die(),
 * error(), warning(), progress, and option helpers.
 *
 * Only src/stablesel.c and src/cmd/ include this file; the core never
 * prints or exits.  Exit codes (documented in the README):
 *   0   success
 *   1   the command ran but some input was bad (skipped items, error())
 *   128 die(): a fatal error, nothing written
 *   129 usage error
 */
#ifndef SS_CLI_H
#define SS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "models/options.h"
#include "rank/rank.h"
#include "source/source.h"

#define SS_EXIT_BADINPUT 1
#define SS_EXIT_DIE 128
#define SS_EXIT_USAGE 129

extern const char *ss_progname;
extern int ss_had_error; /* set by error(): the command exits 1 */

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((noreturn, format(printf, 2, 3))) void usage_die(const char *usage, const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);

/* Progress on stderr, only when stderr is a terminal; rate-limited. */
void progress(const char *what, size_t done, size_t total);
void progress_done(void);

/*
 * Common source options, parsed the same way by every command that reads
 * commits:  --repo PATH, --rev REV (repeatable), --mask-stable-tags,
 * --max-lines N.  Returns 1 when argv[*i] was one of them (consuming its
 * value), 0 otherwise.
 */
typedef struct {
	ss_source_options opts;
	const char *revs[64];
	const char *repo;
} cli_source_args;

void cli_source_args_init(cli_source_args *a);
int cli_source_arg(cli_source_args *a, int argc, const char **argv, int *i, const char *usage);

/*
 * Iterate the commits of every spec in turn (a repository when specs is
 * empty and --repo was given); calls fn for each commit, which takes
 * ownership.  Malformed messages are warned about and skipped.  Dies on
 * fatal source errors.  Returns the number of commits.
 */
typedef int (*cli_commit_fn)(ss_commit *c, void *data);
size_t cli_for_each_commit(cli_source_args *a, const char **specs, int nspecs,
			   cli_commit_fn fn, void *data);

/*
 * The arguments train and eval share: the source options above, -h, -v,
 * --no-history-features, SOURCE operands and the training options of
 * models/options.h.  The fields point at the command's own variables.
 * cli_train_arg() returns 1 when it consumed argv[*a] (and its value);
 * 0 when argv[*a] is an option of the command's own, which then has a
 * value in argv[*a + 1] (usage_die when it has none).
 */
typedef struct {
	ss_train_options *o;
	ss_feat_options *fo;
	const char **specs;
	int *nspecs, maxspecs;
	int *verbose, *no_history;
} cli_train_args;

int cli_train_arg(cli_train_args *t, cli_source_args *src, int argc, const char **argv,
		  int *a, const char *usage);

/*
 * --releases FILE and --release-tags GLOB: the releases the history
 * features see (bug ages in releases).  A model must be scored with the
 * releases it was trained with, so train, eval, rank, explain and report
 * all take them.  cli_releases_arg() returns 1 when arg is one of them
 * (val is its value); cli_releases_load() gives them to h (nothing when
 * neither was named) or dies.
 */
typedef struct {
	const char *file, *tags;
} cli_releases;

int cli_releases_arg(cli_releases *r, const char *arg, const char *val);
void cli_releases_load(const cli_releases *r, struct ss_history *h, const char *repo,
		       const char *usage);

/*
 * What train and eval share besides cli_train_arg():
 * cli_log_line() is a model log function printing "ud: msg" (ud the
 * command's name); cli_load_labels() reads --labels FILE [--label-column]
 * or the --stable sources (dies on error, warns of skipped mails);
 * cli_dataset_history() gives the dataset's history the releases and the
 * --history commits before any commit is added; cli_note_unlisted() says
 * on stderr how many of the kept commits the labels do not list (they
 * train and count as negatives), unless there are none.
 */
void cli_log_line(void *ud, const char *msg);
ss_labels *cli_load_labels(const char *path, const char *column, const char **stable,
			   int nstable);
void cli_dataset_history(ss_dataset *d, const cli_releases *rel, cli_source_args *src,
			 const char **specs, int nspecs, const char *usage);
void cli_note_unlisted(const char *cmd, const ss_labels *labels, size_t unlisted, size_t kept);

/*
 * What rank and report share (cmd/rank_report.c): the model (--model, else
 * the built-in one), --history, --since, --releases/--release-tags,
 * selection (--top, --min-score, --budget, --min-age, --now,
 * --untagged-only), --threshold, and the checks against --policy,
 * --stable and --labels.  Use: cli_ranking_init(); for each option
 * cli_ranking_flag() (options without a value) or cli_ranking_arg() (1 when
 * consumed); cli_ranking_load() (dies on error); set what the command
 * needs in ko (keep, precedents...); cli_ranking_run() streams --history
 * then the sources through the ranking and selects; write from r;
 * cli_ranking_free().
 */
typedef struct {
	ss_ranker_options ko;
	ss_rank_select so;
	const char *model, *policy_file, *stable, *labels_file, *label_column;
	const char *history[32];
	int nhistory;
	cli_releases rel;
	int64_t since;          /* 0: none */
	/* loaded and made, owned until cli_ranking_free() */
	ss_model *m;
	ss_policy *policy;
	ss_backports *label;
	ss_labels *labels;
	ss_history *hist;
	ss_ranking *r;
} cli_ranking;

void cli_ranking_init(cli_ranking *k);
int cli_ranking_flag(cli_ranking *k, const char *arg);
int cli_ranking_arg(cli_ranking *k, const char *arg, const char *val, const char *usage);
void cli_ranking_load(cli_ranking *k);
void cli_ranking_run(cli_ranking *k, cli_source_args *src, const char **specs, int nspecs,
		     const char *usage);
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

/*
 * Option values: one parser per kind, so that every option of a kind is
 * checked the same way.  Each returns the value or usage_dies (exit 129)
 * naming the option when the value is missing, malformed, followed by
 * anything, overflows or is out of range:
 *   cli_parse_count()  decimal digits only, in [min, max] (SIZE_MAX: none);
 *   cli_parse_real()   a finite number in [lo, hi] (nan and inf refused);
 *   cli_parse_prob()   a probability, finite and in [0, 1];
 *   cli_parse_date()   YYYY-MM-DD, a real calendar day (no 2019-02-30),
 *                      as UTC midnight.
 * cli_parse_long() and cli_parse_double() are the count in [0, LONG_MAX]
 * and the finite real, for options without a narrower range.
 */
/* Day counts (--min-age, --settle-days) beyond a century are typos. */
#define SS_CLI_MAX_DAYS 36500

size_t cli_parse_count(const char *usage, const char *opt, const char *v, size_t min, size_t max);
double cli_parse_real(const char *usage, const char *opt, const char *v, double lo, double hi);
double cli_parse_prob(const char *usage, const char *opt, const char *v);
int64_t cli_parse_date(const char *usage, const char *opt, const char *v);
long cli_parse_long(const char *usage, const char *opt, const char *v);
double cli_parse_double(const char *usage, const char *opt, const char *v);

/* Subcommands. */
int cmd_log(int argc, const char **argv);
int cmd_label(int argc, const char **argv);
int cmd_train(int argc, const char **argv);
int cmd_eval(int argc, const char **argv);
int cmd_rank(int argc, const char **argv);
int cmd_explain(int argc, const char **argv);
int cmd_origin(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_report(int argc, const char **argv);

#endif
