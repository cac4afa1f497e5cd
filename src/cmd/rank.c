/*
 * rank.c - "stablesel rank": commits ordered by how likely they belong in
 * stable, with what a reviewer acts on: flags, the features that raised
 * each pick's score, the kernel's stable rules, and precedents.
 *
 * Commits stream through the model and are freed; a ranking keeps one
 * small row each (and, for --format mbox, the message and diff of the
 * commits above the threshold).  Each commit is scored with the history of
 * the commits before it (Fixes: targets, releases, file ages);
 * --history SOURCE primes that history with older commits that are not
 * ranked themselves but serve as precedents; --since DATE does the same
 * with the commits of the sources authored before DATE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commit/label.h"
#include "eval/eval.h"
#include "eval/labels.h"
#include "features/history.h"
#include "models/model.h"
#include "rank/policy.h"
#include "rank/rank.h"
#include "util/atomic.h"
#include "util/error.h"

static const char usage[] =
	"stablesel rank [--model MODEL] [SOURCE...] [--repo PATH] [--rev REV...]\n"
	"               [--history SOURCE...] [--releases FILE] [--release-tags GLOB]\n"
	"               [--mask-stable-tags] [--top N] [--min-score P]\n"
	"               [--since DATE] [--budget N] [--untagged-only] [--min-age DAYS] [--now DATE]\n"
	"               [--policy FILE] [--stable SOURCE] [--labels FILE [--label-column C]]\n"
	"               [--threshold T] [--reasons N] [--precedents N] [--branch NAME] [--no-color]\n"
	"               [--format text|tsv|csv|json|mbox] [-o FILE]";

struct rank_ctx {
	ss_history *hist;
	ss_ranking *r;
	size_t n;
	int64_t since;   /* commits authored before it only serve as history */
};

static int rank_one(ss_commit *c, void *data)
{
	struct rank_ctx *x = data;
	int history_only = x->since && c->author.time < x->since;

	if (ss_ranking_feed(x->r, c, x->hist, history_only))
		die("cannot rank %s: %s", c->id, ss_error_last());
	if (ss_history_add(x->hist, c))
		die("out of memory");
	ss_commit_free(c);
	progress("ranking commits", ++x->n, 0);
	return 0;
}

static int history_one(ss_commit *c, void *data)
{
	struct rank_ctx *x = data;

	if (ss_ranking_feed(x->r, c, x->hist, 1))
		die("cannot read %s: %s", c->id, ss_error_last());
	if (ss_history_add(x->hist, c))
		die("out of memory");
	ss_commit_free(c);
	progress("reading history", ++x->n, 0);
	return 0;
}

/* Say what an mbox cannot carry: nothing proposed, binary files, diffs
 * read capped. */
static void check_patches(const ss_ranking *r)
{
	size_t i, picks = 0;

	for (i = 0; i < ss_ranking_count(r); i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		picks += w.pick;
		if (w.pick && (w.flags & (SS_RANK_BINARY | SS_RANK_TRUNCATED))) {
			warning("the patch of %.12s is incomplete (%s)", w.id,
				(w.flags & SS_RANK_BINARY) ? "binary files" : "diff read with --max-lines");
		}
	}
	if (!picks)
		warning("no commit proposed: the mbox is empty");
}

static ss_rank_format parse_format(const char *val)
{
	static const char *const names[] = { "text", "tsv", "json", "csv", "mbox" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(val, names[i]))
			return (ss_rank_format)i;
	usage_die(usage, "--format is text, tsv, csv, json or mbox, not '%s'", val);
}

int cmd_rank(int argc, const char **argv)
{
	ss_ranker_options ko = SS_RANKER_OPTIONS_INIT;
	ss_rank_select so = SS_RANK_SELECT_INIT;
	ss_rank_write_options wo = SS_RANK_WRITE_OPTIONS_INIT;
	const char *specs[256], *history[32], *model = NULL, *output = "-";
	const char *policy_file = NULL, *stable = NULL, *labels_file = NULL, *label_column = NULL;
	int nspecs = 0, nhistory = 0, a, no_color = 0;
	struct rank_ctx x;
	cli_source_args src;
	ss_policy *policy = NULL;
	ss_label *label = NULL;
	ss_labels *labels = NULL;
	ss_model *m;
	ss_atomic *out;
	cli_releases rel = { NULL, NULL };

	memset(&x, 0, sizeof(x));
	cli_source_args_init(&src);
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (cli_source_arg(&src, argc, argv, &a, usage))
			continue;
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
			usage_die(usage, NULL);
		if (arg[0] != '-' || !strcmp(arg, "-")) {
			if (nspecs == 256)
				usage_die(usage, "too many sources");
			specs[nspecs++] = arg;
			continue;
		}
		if (!strcmp(arg, "--untagged-only")) {
			so.untagged_only = 1;
			continue;
		}
		if (!strcmp(arg, "--no-color")) {
			no_color = 1;
			continue;
		}
		if (!val)
			usage_die(usage, "unknown option '%s' or missing value", arg);
		a++;
		if (cli_releases_arg(&rel, arg, val)) {
			continue;
		} else if (!strcmp(arg, "--model")) {
			model = val;
		} else if (!strcmp(arg, "--history")) {
			if (nhistory == 32)
				usage_die(usage, "too many --history sources");
			history[nhistory++] = val;
		} else if (!strcmp(arg, "--top")) {
			so.top = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--min-score")) {
			so.min_score = cli_parse_double(usage, arg, val);
		} else if (!strcmp(arg, "--budget")) {
			so.budget = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--min-age")) {
			so.min_age_days = cli_parse_double(usage, arg, val);
		} else if (!strcmp(arg, "--now")) {
			if (ss_parse_date(&so.now, val))
				usage_die(usage, "--now wants YYYY-MM-DD, not '%s'", val);
		} else if (!strcmp(arg, "--since")) {
			if (ss_parse_date(&x.since, val))
				usage_die(usage, "--since wants YYYY-MM-DD, not '%s'", val);
		} else if (!strcmp(arg, "--threshold")) {
			ko.threshold = cli_parse_double(usage, arg, val);
		} else if (!strcmp(arg, "--reasons")) {
			ko.nreasons = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--precedents")) {
			wo.precedents = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--policy")) {
			policy_file = val;
		} else if (!strcmp(arg, "--stable")) {
			stable = val;
		} else if (!strcmp(arg, "--labels")) {
			labels_file = val;
		} else if (!strcmp(arg, "--label-column")) {
			label_column = val;
		} else if (!strcmp(arg, "--branch")) {
			wo.branch = val;
		} else if (!strcmp(arg, "--format")) {
			wo.format = parse_format(val);
		} else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
			output = val;
		} else {
			usage_die(usage, "unknown option '%s'", arg);
		}
	}
	if (model ? ss_model_load(&m, model) : ss_model_load_default(&m))
		die("%s", ss_error_last());
	if (policy_file && ss_policy_load(&policy, policy_file))
		die("%s", ss_error_last());
	if (labels_file && ss_labels_from_tsv(&labels, labels_file, label_column))
		die("%s", ss_error_last());
	if (stable) {
		ss_label_options lo = SS_LABEL_OPTIONS_INIT;
		size_t skipped = 0;

		if (ss_label_new(&label, &lo) || ss_label_read(label, stable, &skipped))
			die("cannot read stable tree '%s': %s", stable, ss_error_last());
		if (skipped)
			warning("%zu malformed mails skipped in '%s'", skipped, stable);
	}
	wo.color = !no_color && wo.format == SS_RANK_TEXT && !strcmp(output, "-") && isatty(1);
	ko.keep = wo.format == SS_RANK_MBOX ? SS_RANK_KEEP_PATCH : SS_RANK_KEEP_NONE;
	ko.policy = policy;
	ko.stable = label;
	ko.labels = labels;
	ko.precedents = wo.precedents > 0 && wo.format != SS_RANK_MBOX;
	if (ss_history_new(&x.hist) || ss_ranking_new(&x.r, m, &ko))
		die("out of memory");
	cli_releases_load(&rel, x.hist, src.repo, usage);
	if (nhistory) {
		cli_source_args hsrc = src;

		hsrc.opts.revs = hsrc.revs;
		cli_for_each_commit(&hsrc, history, nhistory, history_one, &x);
		x.n = 0;
	}
	cli_for_each_commit(&src, specs, nspecs, rank_one, &x);
	progress_done();
	ss_ranking_select(x.r, &so);
	if (wo.format == SS_RANK_MBOX)
		check_patches(x.r);
	if (ss_atomic_open(&out, output))
		die("%s", ss_error_last());
	if (ss_ranking_write(x.r, ss_atomic_file(out), &wo, m)) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	if (ss_atomic_commit(out))
		die("%s", ss_error_last());
	ss_ranking_free(x.r);
	ss_history_free(x.hist);
	ss_policy_free(policy);
	ss_labels_free(labels);
	ss_label_free(label);
	ss_model_free(m);
	return 0;
}
