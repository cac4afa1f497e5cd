/*
 * rank.c - "stablesel rank": commits ordered by how likely they belong in
 * stable, with the features that raised each pick's score.
 *
 * Commits stream through the model and are freed; a ranking keeps one
 * small row each.  Each commit is scored with the history of the commits
 * before it (Fixes: targets, releases, file ages); --history SOURCE primes
 * that history with older commits that are not ranked themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "features/history.h"
#include "models/model.h"
#include "rank/rank.h"
#include "util/atomic.h"
#include "util/error.h"

static const char usage[] =
	"stablesel rank [--model MODEL] [SOURCE...] [--repo PATH] [--rev REV...]\n"
	"               [--history SOURCE...] [--mask-stable-tags] [--top N] [--min-score P]\n"
	"               [--reasons N] [--format text|tsv|json] [-o FILE]";

struct rank_ctx {
	const ss_model *m;
	ss_history *hist;
	ss_ranking *r;
	size_t nreasons;
	int want_reasons;
	ss_contrib *why;
};

static int rank_one(ss_commit *c, void *data)
{
	struct rank_ctx *x = data;
	size_t nwhy = 0;
	float score;
	int pick;

	if (ss_model_score_commit(&score, x->m, c, x->hist))
		die("cannot score %s: %s", c->id, ss_error_last());
	pick = score >= ss_model_threshold(x->m);
	if (pick && x->want_reasons && x->nreasons &&
	    ss_model_explain(x->why, x->nreasons, &nwhy, x->m, c, x->hist, 1))
		die("cannot explain %s: %s", c->id, ss_error_last());
	if (ss_ranking_add(x->r, c, score, pick, x->why, nwhy) || ss_history_add(x->hist, c))
		die("out of memory");
	ss_commit_free(c);
	return 0;
}

static int history_one(ss_commit *c, void *data)
{
	if (ss_history_add(data, c))
		die("out of memory");
	ss_commit_free(c);
	return 0;
}

int cmd_rank(int argc, const char **argv)
{
	ss_rank_options ro = SS_RANK_OPTIONS_INIT;
	const char *specs[256], *history[32], *model = NULL, *output = "-";
	int nspecs = 0, nhistory = 0, a;
	struct rank_ctx x;
	cli_source_args src;
	ss_model *m;
	ss_atomic *out;

	memset(&x, 0, sizeof(x));
	x.nreasons = 4;
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
		if (!val)
			usage_die(usage, "unknown option '%s' or missing value", arg);
		a++;
		if (!strcmp(arg, "--model")) {
			model = val;
		} else if (!strcmp(arg, "--history")) {
			if (nhistory == 32)
				usage_die(usage, "too many --history sources");
			history[nhistory++] = val;
		} else if (!strcmp(arg, "--top")) {
			ro.top = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--min-score")) {
			ro.min_score = cli_parse_double(usage, arg, val);
		} else if (!strcmp(arg, "--reasons")) {
			x.nreasons = (size_t)cli_parse_long(usage, arg, val);
		} else if (!strcmp(arg, "--format")) {
			if (!strcmp(val, "text"))
				ro.format = SS_RANK_TEXT;
			else if (!strcmp(val, "tsv"))
				ro.format = SS_RANK_TSV;
			else if (!strcmp(val, "json"))
				ro.format = SS_RANK_JSON;
			else
				usage_die(usage, "--format is text, tsv or json, not '%s'", val);
		} else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
			output = val;
		} else {
			usage_die(usage, "unknown option '%s'", arg);
		}
	}
	if (model ? ss_model_load(&m, model) : ss_model_load_default(&m))
		die("%s", ss_error_last());
	x.m = m;
	x.want_reasons = ro.format != SS_RANK_TSV;
	x.why = calloc(x.nreasons ? x.nreasons : 1, sizeof(*x.why));
	if (!x.why || ss_history_new(&x.hist) || ss_ranking_new(&x.r))
		die("out of memory");
	if (nhistory) {
		cli_source_args hsrc = src;

		hsrc.opts.revs = hsrc.revs;
		cli_for_each_commit(&hsrc, history, nhistory, history_one, x.hist);
	}
	cli_for_each_commit(&src, specs, nspecs, rank_one, &x);
	ss_ranking_sort(x.r);
	if (ss_atomic_open(&out, output))
		die("%s", ss_error_last());
	if (ss_ranking_write(x.r, ss_atomic_file(out), &ro, m)) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	if (ss_atomic_commit(out))
		die("%s", ss_error_last());
	ss_ranking_free(x.r);
	ss_history_free(x.hist);
	free(x.why);
	ss_model_free(m);
	return 0;
}
