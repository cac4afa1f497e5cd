/*
 * eval.c - "stablesel eval": several models trained and scored side by
 * side on one time split.
 *
 * The split is either a date (--split-date: commits authored before it
 * train, the rest test) or separate sources (--train SRC --test SRC).
 * Every commit is read once; each model chooses its settings and threshold
 * on the newest part of the training commits only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "eval/eval.h"
#include "labels/labels.h"
#include "models/model.h"
#include "models/options.h"
#include "run/split_read.h"
#include "util/atomic.h"
#include "util/error.h"

static const char *const eval_usage[] = {
	"stablesel eval --split-date DATE [options] SOURCE...",
	"stablesel eval --train SOURCE --test SOURCE [options]",
	"",
	"Trains several models on one side of a time split and scores them on the",
	"other: a date (commits authored before it train, the rest test) or",
	"separate sources.  Every commit is read once; each model chooses its",
	"settings and threshold on the newest training commits only.",
	NULL
};

static void score_row(void *ud, const ss_example *e, ss_model_kind kind, float score,
		      int decision)
{
	fprintf(ud, "%s\t%s\t%.6f\t%d\t%d\t%d\t%lld\n", e->id, ss_model_kind_name(kind),
		(double)score, decision, e->label, e->tagged, (long long)e->time);
}

int cmd_eval(int argc, const char **argv, const struct cli_context *ctx)
{
	static const char *const formats[] = { "text", "json", NULL };
	const char *train[64], *test[64];
	const char *output = "-", *models = "keyword,tag,linear,mlp", *title = NULL, *scores = NULL;
	const char *dump = NULL;
	size_t ntrain = 0, ntest = 0, nkinds, k;
	int nspecs, format = 0;
	int64_t split = 0;
	cli_source_args src;
	cli_history_args hist;
	cli_train_args t;
	struct cli_option options[] = {
		CLI_GROUP("Split"),
		CLI_DATE("split-date", &split, "commits authored before DATE train, the others test"),
		CLI_STRLIST("train", train, &ntrain, "SOURCE", "the commits to train on"),
		CLI_STRLIST("test", test, &ntest, "SOURCE", "the commits to test on"),
		CLI_GROUP("Models"),
		CLI_STRING(0, "models", &models, "KIND,...",
			   "the models to compare: keyword, tag, linear, mlp, patchnet, patchnet-feat "
			   "(default: keyword,tag,linear,mlp)"),
		CLI_INCLUDE(src.options),
		CLI_INCLUDE(hist.options),
		CLI_INCLUDE(t.options),
		CLI_GROUP("Output"),
		CLI_OPT_FORMAT(&format, "text|json", formats, "the table as text or JSON"),
		CLI_OPT_TITLE(&title, "a title for the results"),
		CLI_STRING(0, "scores", &scores, "TSV", "also write every test commit's score to TSV"),
		CLI_STRING(0, "dump-features", &dump, "PREFIX",
			   "also write the rows linear sees to PREFIX.svm, PREFIX.meta, PREFIX.dense"),
		CLI_OUTPUT(&output, "write the results to FILE (default: stdout)"),
		CLI_END(),
	};
	const char **specs = argv;
	ss_model_kind kinds[SS_EVAL_MAX_MODELS];
	ss_atomic *scores_out = NULL, *dump_out[3] = { NULL, NULL, NULL };
	ss_run_split_options so = SS_RUN_SPLIT_OPTIONS_INIT;
	ss_run_history_fill_options fill;
	ss_labels *labels = NULL;
	ss_run_split sp;
	ss_run *run = NULL;
	ss_eval_result *res;
	ss_strbuf sb = SS_STRBUF_INIT;
	ss_atomic *out;

	cli_source_args_init(&src);
	cli_history_args_init(&hist);
	cli_train_args_init(&t);
	nspecs = cli_parse_options(ctx, argc, argv, options, eval_usage);
	if (ss_model_kinds_parse(kinds, SS_EVAL_MAX_MODELS, &nkinds, models))
		usage_die("%s", ss_error_last());
	if (split && (ntrain || ntest))
		usage_die("use either --split-date or --train/--test");
	if (!split && (!ntrain || !ntest))
		usage_die("name the split: --split-date DATE, or --train and --test");
	if (split)
		cli_source_default(&src, nspecs, "eval", 0);
	if (split && !nspecs && !src.repo)
		usage_die("no sources to split");
	cli_train_args_finish(&t, "eval");
	cli_history_check(&hist, src.repo);
	scores_out = scores ? cli_output_open(scores) : NULL;
	for (k = 0; dump && k < 3; k++) {
		static const char *const ext[3] = { "svm", "meta", "dense" };
		char path[4096];

		if ((size_t)snprintf(path, sizeof(path), "%s.%s", dump, ext[k]) >= sizeof(path))
			usage_die("--dump-features: the prefix is too long");
		dump_out[k] = cli_output_open(path);
	}
	out = cli_output_open(output);

	/* the repository and the index, opened once for every step */
	if (ss_run_new(&run))
		die("%s", ss_error_last());
	hist.ix.run = run;
	labels = cli_load_labels(&t);
	so.kinds = kinds;
	so.nkinds = nkinds;
	cli_split_options(&so, &fill, &t, &hist, &src, labels);
	so.specs = split ? specs : train;
	so.nspecs = split ? (size_t)nspecs : ntrain;
	so.test = split ? NULL : test;
	so.ntest = ntest;
	so.split = split;
	if (ss_run_split_read(&sp, &so))
		die("%s", ss_error_last());
	cli_note_unlisted("eval", labels, sp.unlisted, sp.kept);
	cli_note_copies("eval", sp.d);
	if (t.verbose)
		fprintf(stderr, "eval: %zu commits read and featurized in %.1fs (%zu train, %zu test, "
			"%zu dropped as unsettled, %zu not in the labels)\n", sp.kept, sp.seconds,
			sp.ntrain, sp.ntest, sp.dropped, sp.unlisted);
	if (!sp.ntrain || !sp.ntest)
		die("the split leaves %s", !sp.ntrain ? "no training commits" : "no test commits");
	if (dump) {
		if (ss_model_write_rows(sp.d, sp.train, sp.ntrain, sp.test, sp.ntest,
					ss_atomic_file(dump_out[0]), ss_atomic_file(dump_out[1]),
					ss_atomic_file(dump_out[2])))
			die("cannot write the rows to %s.*: %s", dump, ss_error_last());
		for (k = 0; k < 3; k++)
			cli_output_commit(dump_out[k], SIZE_MAX, "rows");
	}

	res = calloc(1, sizeof(*res));
	if (!res)
		die("out of memory");
	if (scores)
		fprintf(ss_atomic_file(scores_out), "sha\tmodel\tscore\tdecision\tlabel\ttagged\tauthor_time\n");
	if (ss_eval_run(res, sp.d, sp.train, sp.ntrain, sp.test, sp.ntest, kinds, nkinds, &t.o, scores ? score_row : NULL,
			scores ? ss_atomic_file(scores_out) : NULL))
		die("%s", ss_error_last());
	if (scores_out)
		cli_output_commit(scores_out, SIZE_MAX, "scores");
	res->masked = src.opts.mask_stable_tags;
	if ((format == 1 ? ss_eval_format_json : ss_eval_format_text)(&sb, res, title))
		die("out of memory");
	fwrite(sb.buf, 1, sb.len, ss_atomic_file(out));
	cli_output_commit(out, SIZE_MAX, "results");
	ss_strbuf_release(&sb);
	free(res);
	ss_run_split_free(&sp);
	ss_labels_free(labels);
	ss_run_free(run);
	return 0;
}
