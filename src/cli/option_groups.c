/*
 * option_groups.c - the option groups several commands take (sources,
 * history, labels and training) and what they name handed to run/: the
 * commits read and the index opened (the work in run/commits.c and
 * run/index_open.c), the history's options (run/history_load.c fills it),
 * each dying on what run/ returns (see option_groups.h).
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "option_groups.h"
#include "eval/eval.h"
#include "labels/backports.h"
#include "labels/labels.h"
#include "features/history.h"
#include "index/index.h"
#include "run/branches.h"
#include "run/commits.h"
#include "run/history_load.h"
#include "run/index_open.h"
#include "run/releases.h"
#include "run/split_read.h"
#include "models/dataset.h"
#include "util/atomic.h"
#include "util/error.h"

static void repo_cb(const struct cli_option *opt, const char *arg)
{
	cli_source_args *a = (cli_source_args *)opt->defval;

	a->repo = a->opts.repo = arg;
}

void cli_source_args_init(cli_source_args *a)
{
	static const ss_source_options init = SS_SOURCE_OPTIONS_INIT;

	memset(a, 0, sizeof(*a));
	a->opts = init;
	a->opts.revs = a->revs;
	{
		const struct cli_option t[] = {
			CLI_GROUP("Sources (SOURCE: an mbox, .gz or .zst, a maildir, '-', or git:PATH)"),
			CLI_OPT_REPO_CB(repo_cb, a),
			CLI_STRLIST("rev", a->revs, &a->opts.nrevs, "REV",
				    "with --repo: the revisions to walk (A..B, ^A, B; default HEAD)"),
			CLI_FLAG(0, "mask-stable-tags", &a->opts.mask_stable_tags,
				 "remove the Cc: stable tags (the label) from each message"),
			CLI_SET_INT(0, "no-diff", &a->opts.with_diff, 0,
				    "skip the diff (faster when only messages matter)"),
			CLI_COUNT("max-lines", &a->opts.max_lines, "N", 0, CLI_NO_MAX,
				  "keep at most N diff lines a commit (0: all)"),
			CLI_END(),
		};

		_Static_assert(sizeof(t) <= sizeof(a->options), "source options table too small");
		memcpy(a->options, t, sizeof(t));
	}
}

void cli_history_args_init(cli_history_args *h)
{
	memset(h, 0, sizeof(*h));
	{
		const struct cli_option t[] = {
			CLI_GROUP("History (score with the history the model was trained with)"),
			CLI_STRLIST("history", h->specs, &h->n, "SOURCE",
				    "older commits that are only the past of the sources"),
			CLI_OPT_RELEASES(&h->rel.file),
			CLI_OPT_RELEASE_TAGS(&h->rel.tags),
			CLI_STRLIST("history-rev", h->hrevs, &h->nhrevs, "REV",
				    "the revisions of git:PATH history sources (default: what --rev starts from)"),
			CLI_INCLUDE(h->ix.options),
			CLI_END(),
		};

		_Static_assert(sizeof(t) <= sizeof(h->options), "history options table too small");
		memcpy(h->options, t, sizeof(t));
	}
	cli_index_args_init(&h->ix);
}

void cli_index_args_init(cli_index_args *x)
{
	memset(x, 0, sizeof(*x));
	{
		const struct cli_option t[] = {
			CLI_GROUP("Project index"),
			CLI_OPT_DB(&x->db),
			CLI_FLAG(0, "no-index", &x->no_index,
				 "do not read the project index: history, backports and branches come from "
				 "the sources and the repository"),
			CLI_END(),
		};

		_Static_assert(sizeof(t) <= sizeof(x->options), "index options table too small");
		memcpy(x->options, t, sizeof(t));
	}
}

int cli_backports_from_index(ss_backports *l, ss_run *run, const char *db, const char *repo,
			     int64_t as_of, char **used)
{
	int read;

	if (ss_run_backports_index(&read, used, l, run, db, repo, as_of))
		die("%s", ss_error_last());
	return read;
}

void cli_split_options(ss_run_split_options *so, ss_run_history_fill_options *fill,
		       const cli_train_args *t, const cli_history_args *ha,
		       const cli_source_args *src, const ss_labels *labels)
{
	so->fo = &t->fo;
	so->fold_copies = !t->keep_copies;
	so->labels = labels;
	cli_history_fill_options(fill, ha, src);
	so->history = ss_run_history_fill_cb;
	so->history_ud = fill;
	so->repo = src->repo;
	so->opts = &src->opts;
	so->settle = t->settle;
	so->rp = cli_run_report();
}

void cli_history_check(const cli_history_args *ha, const char *repo)
{
	if (ss_run_history_check(ha->rel.tags, repo))
		usage_die("%s", ss_error_last());
}

void cli_history_fill_options(ss_run_history_fill_options *out, const cli_history_args *ha,
			      const cli_source_args *src)
{
	static const ss_run_history_fill_options init = SS_RUN_HISTORY_FILL_OPTIONS_INIT;

	*out = init;
	out->load.releases = ha->rel.file;
	out->load.release_tags = ha->rel.tags;
	out->load.repo = src->repo;
	out->load.db = ha->ix.db;
	out->load.no_index = ha->ix.no_index;
	out->load.as_of = ha->ix.as_of;
	out->load.run = ha->ix.run;
	out->load.rp = cli_run_report();
	out->specs = ha->specs;
	out->nspecs = ha->n;
	out->hrevs = ha->hrevs;
	out->nhrevs = ha->nhrevs;
	out->opts = &src->opts;
}

/* --features GROUP,...: the names from models/options.c's table. */
static void features_cb(const struct cli_option *opt, const char *arg)
{
	cli_train_args *t = (cli_train_args *)opt->defval;

	if (ss_feat_groups_parse(&t->fo.groups, arg))
		usage_die("--features: %s", ss_error_last());
}

void cli_train_args_init(cli_train_args *t)
{
	static const ss_train_options oinit = SS_TRAIN_OPTIONS_INIT;
	static const ss_feat_options finit = SS_FEAT_OPTIONS_INIT;

	memset(t, 0, sizeof(*t));
	t->o = oinit;
	t->fo = finit;
	t->seed = (double)oinit.seed;
	t->dropout = oinit.dropout;
	t->lr = oinit.lr;
	t->weight_decay = oinit.weight_decay;
	t->input_dropout = oinit.input_dropout;
	t->target_precision = t->target_recall = -1;
	t->vocab_size = finit.vocab_size;
	t->min_df = finit.min_df;
	t->hash_bits = finit.hash_bits;
	ss_feat_groups_help(t->features_help, sizeof(t->features_help));
	{
		const struct cli_option tab[] = {
			CLI_GROUP("Labels (which commits reached stable: --labels FILE, or read from --stable SOURCE)"),
			CLI_OPT_LABELS(&t->labels_path),
			CLI_OPT_LABEL_COLUMN(&t->column),
			CLI_OPT_STABLE(t->stable, &t->nstable),
			CLI_INT("settle-days", &t->settle, "N", 0, SS_CLI_MAX_DAYS,
				"leave out the commits of the last N days: their label is not settled"),
			CLI_GROUP("Training"),
			CLI_FLAG('v', "verbose", &t->verbose, "say what training does, on stderr"),
			CLI_FLAG(0, "no-history-features", &t->no_history,
				 "no features from the history (Fixes: targets, releases, file ages)"),
			CLI_OPT_KEEP_COPIES(&t->keep_copies),
			CLI_CALLBACK("features", "GROUP,...", t->features_help, features_cb, t),
			CLI_COUNT("vocab-size", &t->vocab_size, "N", 0, 10000000,
				  "at most N words in the vocabulary"),
			CLI_COUNT("min-df", &t->min_df, "N", 0, 10000000,
				  "words in fewer than N commits are left out"),
			CLI_COUNT("hash-bits", &t->hash_bits, "N", 8, 24, "hashed features in 2^N buckets"),
			CLI_REAL("val-share", &t->o.val_share, "F", 0.01, 0.9,
				 "the newest share of training commits that validates"),
			CLI_REAL("seed", &t->seed, "N", 0, 1e15, "random seed"),
			CLI_OPT_THREADS(&t->o.threads),
			CLI_SET_INT(0, "refit", &t->o.refit, 1, "refit on all training commits after validation"),
			CLI_SET_INT(0, "no-refit", &t->o.refit, 0,
				    "keep the model trained without the validation commits"),
			CLI_PROB("target-precision", &t->target_precision, "P",
				 "choose the threshold for this precision"),
			CLI_PROB("target-recall", &t->target_recall, "R", "choose the threshold for this recall"),
			CLI_GROUP("Training: linear"),
			CLI_OPT_COST(&t->o.C),
			CLI_FLAG(0, "balance", &t->o.linear_balance, "weight the classes by inverse frequency"),
			CLI_INT("near", &t->o.near, "K", 0, SS_NEAR_K_MAX,
				"try the K nearest past decisions as evidence (0: no; the project model tries 10)"),
			CLI_GROUP("Training: mlp, patchnet, patchnet-feat"),
			CLI_INT("hidden", &t->o.hidden, "N", 1, 4096, "first hidden layer width"),
			CLI_INT("hidden2", &t->o.hidden2, "N", 0, 4096, "second hidden layer width, 0 for none"),
			CLI_REAL("dropout", &t->dropout, "F", 0, 0.95, "dropout after each hidden layer"),
			CLI_REAL("input-dropout", &t->input_dropout, "F", 0, 0.9,
				 "drop this share of the input features in training"),
			CLI_REAL("lr", &t->lr, "F", 0, 10, "Adam learning rate"),
			CLI_REAL("weight-decay", &t->weight_decay, "F", 0, 10, "L2 on all weights"),
			CLI_INT("epochs", &t->o.epochs, "N", 1, 10000, "at most N epochs"),
			CLI_INT("patience", &t->o.patience, "N", 1, 10000, "stop after N epochs without gain"),
			CLI_INT("batch", &t->o.batch, "N", 1, 1 << 20, "mini-batch size"),
			CLI_SET_INT(0, "no-class-weights", &t->o.mlp_balance, 0,
				    "do not weight the classes by inverse frequency"),
			CLI_SET_INT(0, "wide", &t->o.wide, 1, "add a linear input-to-logit path"),
			CLI_SET_INT(0, "no-wide", &t->o.wide, 0, "no linear input-to-logit path"),
			CLI_SET_INT(0, "warm-start", &t->o.warm_start, 1, "patchnet-feat: start from a trained mlp"),
			CLI_SET_INT(0, "no-warm-start", &t->o.warm_start, 0,
				    "patchnet-feat: start from random weights"),
			CLI_END(),
		};

		_Static_assert(sizeof(tab) <= sizeof(t->options), "training options table too small");
		memcpy(t->options, tab, sizeof(tab));
	}
}

void cli_train_args_finish(cli_train_args *t, const char *cmd)
{
	if (!t->labels_path == !t->nstable)
		usage_die("name the labels: --labels FILE or --stable SOURCE");
	if (t->target_precision >= 0 && t->target_recall >= 0)
		usage_die("--target-precision and --target-recall: name one threshold rule");
	if (t->target_precision >= 0) {
		t->o.rule = SS_THRESH_PRECISION;
		t->o.target = t->target_precision;
	} else if (t->target_recall >= 0) {
		t->o.rule = SS_THRESH_RECALL;
		t->o.target = t->target_recall;
	}
	t->o.seed = (uint64_t)t->seed;
	t->o.dropout = (float)t->dropout;
	t->o.lr = (float)t->lr;
	t->o.weight_decay = (float)t->weight_decay;
	t->o.input_dropout = (float)t->input_dropout;
	t->fo.vocab_size = (uint32_t)t->vocab_size;
	t->fo.min_df = (uint32_t)t->min_df;
	t->fo.hash_bits = (uint32_t)t->hash_bits;
	if (t->no_history)
		t->fo.groups &= ~(uint32_t)SS_FG_HISTORY;
	if (t->verbose) {
		t->o.log = cli_log_line;
		t->o.log_ud = (void *)cmd;
	}
}

void cli_log_line(void *ud, const char *msg)
{
	progress_done();
	fprintf(stderr, "%s: %s\n", (const char *)ud, msg);
}

ss_labels *cli_load_labels(const cli_train_args *t)
{
	ss_labels *labels;

	if (ss_run_labels_load(&labels, t->labels_path, t->column, t->stable, t->nstable,
			       cli_run_report()))
		die("%s", ss_error_last());
	return labels;
}

void cli_note_unlisted(const char *cmd, const ss_labels *labels, size_t unlisted, size_t kept)
{
	if (!labels || !unlisted)
		return;
	progress_done();
	fprintf(stderr, "%s: %zu of %zu commits are not in the labels (%s): taken as negative\n",
		cmd, unlisted, kept, ss_labels_describe(labels));
}

void cli_note_copies(const char *cmd, const ss_dataset *d)
{
	ss_dataset_copies n;

	ss_dataset_copies_get(&n, d);
	if (!n.folded && !n.dropped)
		return;
	progress_done();
	if (n.folded)
		fprintf(stderr, "%s: %zu copies of a patch folded into one example each "
			"(%zu with another label: taken as reached stable if any copy did)\n",
			cmd, n.folded, n.relabelled);
	if (n.dropped)
		fprintf(stderr, "%s: %zu test commits left out: copies of a training commit's patch\n",
			cmd, n.dropped);
}

void cli_source_require(const cli_source_args *a, int nspecs)
{
	if (!nspecs && !a->repo)
		usage_die(SS_RUN_NO_COMMITS);
}

void cli_source_default(cli_source_args *a, int nspecs, const char *cmd, int required)
{
	if (!nspecs && !a->repo)
		a->repo = a->opts.repo = cli_repo_here(cmd);
	if (required && !nspecs && !a->repo)
		usage_die(SS_RUN_NO_COMMITS);
}

/* Every commit of the sources (the repository without specs). */
size_t cli_for_each_commit(cli_source_args *a, const char *const *specs, int nspecs,
			   cli_commit_fn fn, void *data)
{
	size_t n;

	cli_source_require(a, nspecs);
	if (ss_run_read_sources(&n, a->repo, specs, (size_t)nspecs, &a->opts, fn, data, NULL,
				cli_run_report()))
		die("%s", ss_error_last());
	return n;
}
