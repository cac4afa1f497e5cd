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
#include <strings.h>

#include "cli.h"
#include "eval/eval.h"
#include "features/features.h"
#include "features/history.h"
#include "models/model.h"
#include "models/patchnet_net.h"
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

struct explain_ctx {
	const ss_model *m;
	ss_history *hist;
	const char **want;
	int nwant;
	int *found;
	size_t top;
	ss_contrib *why;
	ss_strbuf words;  /* a feature's name in words (ss_feat_name_words) */
};

static int matches(const char *id, const char *prefix)
{
	return strlen(prefix) >= 4 && !strncasecmp(id, prefix, strlen(prefix));
}

/* PatchNet: the message words and code lines that won its max-pools,
 * with their share of all contributions and the signed logit change. */
static void explain_patchnet(struct explain_ctx *x, const ss_commit *c)
{
	ss_patchnet_reason *why = calloc(x->top ? x->top : 1, sizeof(*why));
	size_t n = 0, i;

	if (!why)
		die("out of memory");
	if (ss_patchnet_explain_commit(why, x->top, &n, x->m, c, x->hist, 0))
		die("cannot explain %s: %s", c->id, ss_error_last());
	printf("  %8s  %6s  %s\n", "logit", "share", "message word / code line / feature");
	for (i = 0; i < n; i++) {
		ss_strbuf_reset(&x->words);
		if (why[i].side == SS_PATCHNET_FEATURES &&
		    (ss_feat_name_words(&x->words, why[i].text) ||
		     ss_strbuf_addf(&x->words, " (%s)", why[i].text)))
			die("out of memory");
		printf("  %+8.4f  %5.1f%%  %s%s\n", (double)why[i].contrib, 100.0 * why[i].share,
		       why[i].side < 0 ? "word: " :
		       why[i].side == SS_PATCHNET_FEATURES ? "feature: " : "",
		       why[i].side == SS_PATCHNET_FEATURES ? x->words.buf : why[i].text);
	}
	free(why);
}

static int explain_one(ss_commit *c, void *data)
{
	struct explain_ctx *x = data;
	size_t n, i;
	float score;
	int k, hit = 0;

	for (k = 0; k < x->nwant; k++)
		if (matches(c->id, x->want[k])) {
			x->found[k] = 1;
			hit = 1;
		}
	if (hit) {
		if (ss_model_score_commit(&score, x->m, c, x->hist) ||
		    ss_model_explain(x->why, x->top, &n, x->m, c, x->hist, 0))
			die("cannot explain %s: %s", c->id, ss_error_last());
		printf("commit %s\n%s\nscore %.4f (threshold %.4f): %s\n", c->id, c->subject,
		       (double)score, (double)ss_model_threshold(x->m),
		       score >= ss_model_threshold(x->m) ? "stable candidate" : "not picked");
		if (ss_model_get_kind(x->m) == SS_MODEL_PATCHNET ||
		    ss_model_get_kind(x->m) == SS_MODEL_PATCHNET_FEAT) {
			explain_patchnet(x, c);
		} else {
			if (!n)
				printf("  (a %s model has no per-feature contributions)\n",
				       ss_model_kind_name(ss_model_get_kind(x->m)));
			else
				printf("  %8s  %s\n", "logit", "feature in words (name = value)");
			for (i = 0; i < n; i++) {
				ss_strbuf_reset(&x->words);
				if (ss_feat_name_words(&x->words, x->why[i].name))
					die("out of memory");
				printf("  %+8.4f  %s (%s = %g)\n", (double)x->why[i].contrib, x->words.buf,
				       x->why[i].name, (double)x->why[i].value);
			}
		}
		printf("\n");
	}
	if (ss_history_add(x->hist, c))
		die("out of memory");
	ss_commit_free(c);
	return 0;
}

int cmd_explain(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *want[256], *model = NULL, *project_model = NULL, *revs[2];
	char *kept = NULL, date[16], mainline[256];
	const char **specs;
	int nargs, nspecs = 0, nwant = 0, a, k, missing = 0;
	struct explain_ctx x;
	cli_source_args src;
	cli_history_args hist;
	ss_run *run = NULL;
	struct cli_option options[] = {
		CLI_GROUP("Model"),
		CLI_MODEL(&model),
		CLI_OPT_PROJECT_MODEL(&project_model),
		CLI_INCLUDE(hist.options),
		CLI_INCLUDE(src.options),
		CLI_GROUP("Output"),
		CLI_COUNT("top-features", &x.top, "N", 1, SS_EXPLAIN_MAX_TOP,
			  "show the N features that weigh most (default: 12)"),
		/* --top is rank's rows */
		CLI_ALIAS(0, "top", "top-features"),
		CLI_END(),
	};
	ss_model *m;

	memset(&x, 0, sizeof(x));
	x.words = (ss_strbuf)SS_STRBUF_INIT;
	x.top = 12;
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
	m = model ? NULL : cli_project_model_kept(project_model, src.repo, run, &kept);
	if (m) {
		ss_format_date(date, ss_model_info_of(m)->trained_at);
		fprintf(stderr, "explain: no --model: using the project model rank trained on %s and "
			"kept in %s\n", date, kept);
		free(kept);
	} else if (model ? ss_model_load(&m, model) : ss_model_load_default(&m)) {
		die("%s", ss_error_last());
	} else if (!model) {
		fprintf(stderr, "explain: no --model: using the built-in model, which %s\n",
			cli_builtin_words(m));
	}
	x.m = m;
	x.want = want;
	x.nwant = nwant;
	x.found = calloc((size_t)nwant, sizeof(*x.found));
	x.why = calloc(x.top ? x.top : 1, sizeof(*x.why));
	if (!x.found || !x.why || ss_history_new(&x.hist))
		die("out of memory");
	/* the history rank scores against: releases, then --history */
	cli_history_load(&hist, x.hist, src.repo);
	if (hist.n) {
		cli_source_args hsrc;

		cli_history_source(&hsrc, &hist, &src);
		cli_history_prime(&hist, x.hist, &hsrc);
	}
	if (!nspecs && src.repo && !src.opts.nrevs) {
		/* only the named commits, each read alone ("C" without its
		 * parents): one walk of all would hide an older named commit
		 * behind a newer one's parents */
		char parents[320];

		/* the pull request's merge is the one the mainline's walk
		 * gives the commit, as in rank's ranged walk */
		cli_mainline_name(mainline, sizeof(mainline), &hist, src.repo);
		src.opts.merges_tip = mainline;
		for (k = 0; k < nwant; k++) {
			revs[0] = want[k];
			snprintf(parents, sizeof(parents), "^%s^", want[k]);
			revs[1] = parents;
			src.opts.revs = revs;
			src.opts.nrevs = 2;
			cli_for_each_commit(&src, specs, nspecs, explain_one, &x);
		}
	} else {
		cli_for_each_commit(&src, specs, nspecs, explain_one, &x);
	}
	for (k = 0; k < nwant; k++)
		if (!x.found[k]) {
			error("commit '%s' not found", want[k]);
			missing = 1;
		}
	ss_history_free(x.hist);
	free(x.found);
	free(x.why);
	ss_strbuf_release(&x.words);
	ss_model_free(m);
	ss_run_free(run);
	return missing ? SS_EXIT_BADINPUT : 0;
}
