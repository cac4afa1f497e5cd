/*
 * report.c - "stablesel report": a ranking as one self-contained HTML
 * page (out/report.h): the model's summary, a precision-recall curve when
 * labels are given, and the ranked commits, each opening to its reasons,
 * precedents, message and (capped) diff.
 *
 * Commits stream through the model as for "stablesel rank"; each row keeps
 * its message and at most --diff-lines diff lines, so that whole histories
 * fit in memory and the page stays quick.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commit/label.h"
#include "eval/eval.h"
#include "eval/labels.h"
#include "features/history.h"
#include "models/model.h"
#include "out/report.h"
#include "rank/policy.h"
#include "rank/rank.h"
#include "util/atomic.h"
#include "util/error.h"

static const char usage[] =
	"stablesel report [--model MODEL] [SOURCE...] [--repo PATH] [--rev REV...] -o FILE.html\n"
	"                 [--history SOURCE...] [--releases FILE] [--release-tags GLOB]\n"
	"                 [--since DATE] [--mask-stable-tags]\n"
	"                 [--labels FILE [--label-column C]] [--stable SOURCE] [--policy FILE]\n"
	"                 [--min-age DAYS] [--now DATE] [--untagged-only] [--top N] [--min-score P]\n"
	"                 [--budget N] [--threshold T] [--diffs N] [--diff-lines N] [--title TEXT]";

struct report_ctx {
	ss_history *hist;
	ss_ranking *r;
	size_t n;
	int64_t since;
};

static int report_one(ss_commit *c, void *data)
{
	struct report_ctx *x = data;
	int history_only = x->since && c->author.time < x->since;

	if (ss_ranking_feed(x->r, c, x->hist, history_only))
		die("cannot rank %s: %s", c->id, ss_error_last());
	if (ss_history_add(x->hist, c))
		die("out of memory");
	ss_commit_free(c);
	progress("reading commits", ++x->n, 0);
	return 0;
}

int cmd_report(int argc, const char **argv)
{
	ss_ranker_options ko = SS_RANKER_OPTIONS_INIT;
	ss_rank_select so = SS_RANK_SELECT_INIT;
	ss_report_options ro = SS_REPORT_OPTIONS_INIT;
	const char *specs[256], *history[32], *model = NULL, *output = NULL;
	const char *policy_file = NULL, *stable = NULL, *labels_file = NULL, *label_column = NULL;
	char sources[1024] = "";
	int nspecs = 0, nhistory = 0, a;
	struct report_ctx x;
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
			snprintf(sources + strlen(sources), sizeof(sources) - strlen(sources), "%s%s",
				 nspecs > 1 ? " " : "", arg);
			continue;
		}
		if (!strcmp(arg, "--untagged-only")) {
			so.untagged_only = 1;
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
		} else if (!strcmp(arg, "--since")) {
			if (ss_parse_date(&x.since, val))
				usage_die(usage, "--since wants YYYY-MM-DD, not '%s'", val);
		} else if (!strcmp(arg, "--now")) {
			if (ss_parse_date(&so.now, val))
				usage_die(usage, "--now wants YYYY-MM-DD, not '%s'", val);
		} else if (!strcmp(arg, "--top")) {
			so.top = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--min-score")) {
			so.min_score = cli_parse_double(usage, arg, val);
		} else if (!strcmp(arg, "--budget")) {
			so.budget = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--min-age")) {
			so.min_age_days = cli_parse_double(usage, arg, val);
		} else if (!strcmp(arg, "--threshold")) {
			ko.threshold = cli_parse_double(usage, arg, val);
		} else if (!strcmp(arg, "--diffs")) {
			ro.diffs = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--diff-lines")) {
			ko.diff_cap = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--title")) {
			ro.title = val;
		} else if (!strcmp(arg, "--policy")) {
			policy_file = val;
		} else if (!strcmp(arg, "--stable")) {
			stable = val;
		} else if (!strcmp(arg, "--labels")) {
			labels_file = val;
		} else if (!strcmp(arg, "--label-column")) {
			label_column = val;
		} else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
			output = val;
		} else {
			usage_die(usage, "unknown option '%s'", arg);
		}
	}
	if (!output)
		usage_die(usage, "name the page with -o FILE.html");
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
	ko.keep = SS_RANK_KEEP_DETAILS;
	ko.explain_all = 1;
	ko.policy = policy;
	ko.stable = label;
	ko.labels = labels;
	ro.sources = nspecs ? sources : src.repo;
	if (ss_history_new(&x.hist) || ss_ranking_new(&x.r, m, &ko))
		die("out of memory");
	cli_releases_load(&rel, x.hist, src.repo, usage);
	if (nhistory) {
		cli_source_args hsrc = src;
		int64_t since = x.since;

		hsrc.opts.revs = hsrc.revs;
		/* every history commit is history, whatever its date */
		x.since = INT64_MAX;
		cli_for_each_commit(&hsrc, history, nhistory, report_one, &x);
		x.since = since;
	}
	cli_for_each_commit(&src, specs, nspecs, report_one, &x);
	progress_done();
	ss_ranking_select(x.r, &so);
	if (ss_atomic_open(&out, output))
		die("%s", ss_error_last());
	if (ss_report_write(ss_atomic_file(out), x.r, m, &ro)) {
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
