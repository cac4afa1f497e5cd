/*
 * explain.c - "stablesel explain": why a model scores commits as it does.
 *
 * For each named commit: its score, the decision, and the features with
 * the largest signed contributions to its logit (linear: weight * value;
 * mlp: the logit drop when the feature alone is removed; patchnet: the
 * message words and code lines that won its max-pools, with their share).  The commits are
 * found in the SOURCES (every commit streams through so that the history
 * features see the commits before it) or, with --repo and no --rev, read
 * from the repository one by one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "eval/eval.h"
#include "features/features.h"
#include "features/history.h"
#include "models/model.h"
#include "models/patchnet_net.h"
#include "run/explain_commits.h"
#include "util/error.h"
#include "util/hexid.h"

/* Features shown at most: a commit of 200,000 files has a million. */
#define SS_EXPLAIN_MAX_TOP 1000000

static const char *const explain_usage[] = {
	"stablesel explain [options] (--repo PATH | SOURCE...) COMMIT...",
	"",
	"For each COMMIT (an id or a prefix of at least 4 hex digits): its score,",
	"the decision, and the features with the largest contributions to it.  The",
	"commits stream through in order, so that each is scored against the",
	"history before it (with --history, --releases and --release-tags as",
	"\"stablesel rank\" takes them, both score a commit the same); with --repo",
	"and no --rev, only the named commits are read.",
	NULL
};

/* The printing of one explained commit: a feature's name in words
 * (ss_feat_name_words), the model's threshold and kind. */
struct printing {
	const ss_model *m;
	ss_strbuf words;
};

/* PatchNet: the message words and code lines that won its max-pools,
 * with their share of all contributions and the signed logit change. */
static void print_patchnet(struct printing *p, const ss_run_explained *e)
{
	printf("  %8s  %6s  %s\n", "logit", "share", "message word / code line / feature");
	for (size_t i = 0; i < e->nreasons; i++) {
		const ss_patchnet_reason *why = &e->reasons[i];

		ss_strbuf_reset(&p->words);
		if (why->side == SS_PATCHNET_FEATURES &&
		    (ss_feat_name_words(&p->words, why->text) ||
		     ss_strbuf_addf(&p->words, " (%s)", why->text)))
			die("out of memory");
		printf("  %+8.4f  %5.1f%%  %s%s\n", (double)why->contrib, 100.0 * why->share,
		       why->side < 0 ? "word: " :
		       why->side == SS_PATCHNET_FEATURES ? "feature: " : "",
		       why->side == SS_PATCHNET_FEATURES ? p->words.buf : why->text);
	}
}

static void print_one(const ss_run_explained *e, void *ud)
{
	struct printing *p = ud;
	float t = ss_model_threshold(p->m);

	printf("commit %s\n%s\nscore %.4f (threshold %.4f): %s\n", e->c->id, e->c->subject,
	       (double)e->score, (double)t, e->score >= t ? "stable candidate" : "not picked");
	if (e->patchnet) {
		print_patchnet(p, e);
	} else {
		if (!e->nwhy)
			printf("  (a %s model has no per-feature contributions)\n",
			       ss_model_kind_name(ss_model_get_kind(p->m)));
		else
			printf("  %8s  %s\n", "logit", "feature in words (name = value)");
		for (size_t i = 0; i < e->nwhy; i++) {
			ss_strbuf_reset(&p->words);
			if (ss_feat_name_words(&p->words, e->why[i].name))
				die("out of memory");
			printf("  %+8.4f  %s (%s = %g)\n", (double)e->why[i].contrib, p->words.buf,
			       e->why[i].name, (double)e->why[i].value);
		}
	}
	printf("\n");
}

int cmd_explain(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *want[256], *model = NULL, *project_model = NULL;
	char *kept = NULL, date[16], mainline[256] = "HEAD";
	const char **specs;
	int nargs, nspecs = 0, nwant = 0, a, k, missing = 0, usage, *found;
	size_t top = 12;
	struct printing p = { NULL, SS_STRBUF_INIT };
	ss_run_explain_options o = SS_RUN_EXPLAIN_OPTIONS_INIT;
	cli_source_args src;
	cli_history_args hist;
	ss_run_history_fill_options fill;
	ss_history *h;
	ss_run *run = NULL;
	struct cli_option options[] = {
		CLI_GROUP("Model"),
		CLI_MODEL(&model),
		CLI_OPT_PROJECT_MODEL(&project_model),
		CLI_INCLUDE(hist.options),
		CLI_INCLUDE(src.options),
		CLI_GROUP("Output"),
		CLI_COUNT("top-features", &top, "N", 1, SS_EXPLAIN_MAX_TOP,
			  "show the N features that weigh most (default: 12)"),
		/* --top is rank's rows */
		CLI_ALIAS(0, "top", "top-features"),
		CLI_END(),
	};
	ss_model *m;

	cli_source_args_init(&src);
	cli_history_args_init(&hist);
	nargs = cli_parse_options(ctx, argc, argv, options, explain_usage);
	/* hex words name commits, anything else a source */
	specs = argv;
	for (a = 0; a < nargs; a++) {
		if (strcmp(argv[a], "-") && ss_hexid_is_prefix(argv[a])) {
			if (nwant == 256)
				usage_die("too many commits");
			want[nwant++] = argv[a];
		} else {
			specs[nspecs++] = argv[a];
		}
	}
	if (!nwant)
		usage_die("name at least one commit");
	cli_source_default(&src, nspecs, "explain", 1);
	/* without --model, the model rank used: the project model it kept,
	 * else the built-in one */
	if (model && project_model)
		usage_die("--project-model names the model to use without --model");
	/* the repository and the index, opened once for every step */
	if (ss_run_new(&run))
		die("%s", ss_error_last());
	hist.ix.run = run;
	if (ss_run_explain_model(&m, &kept, model, project_model, src.repo, run, cli_run_report()))
		die("%s", ss_error_last());
	if (kept) {
		ss_format_date(date, ss_model_info_of(m)->trained_at);
		fprintf(stderr, "explain: no --model: using the project model rank trained on %s and "
			"kept in %s\n", date, kept);
		free(kept);
	} else if (!model) {
		fprintf(stderr, "explain: no --model: using the built-in model, which %s\n",
			cli_builtin_words(m));
	}
	if (!(found = calloc((size_t)nwant, sizeof(*found))) || ss_history_new(&h))
		die("out of memory");
	/* the history rank scores against: releases, then --history */
	cli_history_fill_options(&fill, &hist, &src);
	if (ss_run_history_fill(h, &usage, &fill)) {
		if (usage)
			usage_die("%s", ss_error_last());
		die("%s", ss_error_last());
	}
	/* each named commit read alone: its merge the mainline's */
	if (!nspecs && src.repo && !src.opts.nrevs && !hist.ix.no_index &&
	    ss_run_mainline_name(mainline, sizeof(mainline), run, hist.ix.db, src.repo, hist.ix.as_of))
		die("%s", ss_error_last());
	p.m = o.m = m;
	o.want = want;
	o.nwant = (size_t)nwant;
	o.top = top;
	o.repo = src.repo;
	o.specs = specs;
	o.nspecs = (size_t)nspecs;
	o.opts = &src.opts;
	o.mainline = mainline;
	o.explained = print_one;
	o.ud = &p;
	o.rp = cli_run_report();
	if (ss_run_explain_commits(found, h, &o))
		die("%s", ss_error_last());
	for (k = 0; k < nwant; k++)
		if (!found[k]) {
			error("commit '%s' not found", want[k]);
			missing = 1;
		}
	ss_history_free(h);
	free(found);
	ss_strbuf_release(&p.words);
	ss_model_free(m);
	ss_run_free(run);
	return missing ? SS_EXIT_BADINPUT : 0;
}
