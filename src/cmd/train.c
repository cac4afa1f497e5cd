/*
 * train.c - "stablesel train": learn which commits reach stable.
 *
 * Streams the SOURCES once, featurizing each commit into a compact dataset
 * with its label (from --labels or a stable tree read in-process), then
 * trains one model kind (see models/model.h) and writes the model file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "eval/eval.h"
#include "labels/labels.h"
#include "run/split_read.h"
#include "models/model.h"
#include "models/options.h"
#include "util/atomic.h"
#include "util/error.h"

static const char *const train_usage[] = {
	"stablesel train --kind KIND [options] [SOURCE...] -o MODEL",
	"",
	"Reads the commits of the sources (or of --repo PATH) once, each with its",
	"label from --labels or --stable, trains one model (KIND: keyword, linear,",
	"mlp, patchnet or patchnet-feat), chooses its threshold on the newest",
	"training commits and writes the model file.",
	NULL
};

static void join_specs(char *buf, size_t size, const char **specs, int n, const char *repo)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	if (!n && repo)
		snprintf(buf, size, "git:%s", repo);
	for (i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "", specs[i]);
}

int cmd_train(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *output = NULL, *kind_name = NULL;
	int nspecs;
	int64_t before = 0;
	cli_source_args src;
	cli_history_args hist;
	cli_train_args t;
	struct cli_option options[] = {
		CLI_GROUP("Model"),
		CLI_STRING(0, "kind", &kind_name, "KIND",
			   "the kind of model: keyword, linear, mlp, patchnet or patchnet-feat"),
		/* --model is a model file everywhere else */
		CLI_ALIAS(0, "model", "kind"),
		CLI_OUTPUT(&output, "write the model to FILE"),
		CLI_INCLUDE(src.options),
		CLI_DATE("before", &before, "train only on the commits authored before DATE"),
		CLI_INCLUDE(hist.options),
		CLI_INCLUDE(t.options),
		CLI_END(),
	};
	const char **specs = argv;
	ss_run_split_options so = SS_RUN_SPLIT_OPTIONS_INIT;
	ss_run_history_fill_options fill;
	ss_labels *labels = NULL;
	ss_run_split sp;
	ss_run *run = NULL;
	ss_model_kind kind;
	ss_model *m;
	ss_atomic *out;
	double t0;

	cli_source_args_init(&src);
	cli_history_args_init(&hist);
	cli_train_args_init(&t);
	nspecs = cli_parse_options(ctx, argc, argv, options, train_usage);
	if (!kind_name)
		usage_die("--kind is required");
	if (ss_model_kind_parse(&kind, kind_name) || kind == SS_MODEL_TAG)
		usage_die("%s", kind == SS_MODEL_TAG ?
			  "'tag' is an evaluation baseline, not a model to train" : ss_error_last());
	if (!output)
		usage_die("-o MODEL is required");
	cli_train_args_finish(&t, "train");
	cli_source_default(&src, nspecs, "train", 1);
	cli_history_check(&hist, src.repo);
	out = cli_output_open(output);

	/* the repository and the index, opened once for every step */
	if (ss_run_new(&run))
		die("%s", ss_error_last());
	hist.ix.run = run;
	labels = cli_load_labels(&t);
	so.kinds = &kind;
	so.nkinds = 1;
	cli_split_options(&so, &fill, &t, &hist, &src, labels);
	so.specs = specs;
	so.nspecs = (size_t)nspecs;
	so.before = before;
	if (ss_run_split_read(&sp, &so))
		die("%s", ss_error_last());
	cli_note_unlisted("train", labels, sp.unlisted, sp.kept);
	cli_note_copies("train", sp.d);
	if (!sp.ntrain)
		die("no commits to train on");
	if (t.verbose)
		fprintf(stderr, "train: %zu commits read and featurized in %.1fs (%zu dropped as unsettled, "
			"%zu not in the labels)\n", sp.kept, sp.seconds, sp.dropped, sp.unlisted);
	t0 = ss_now();
	if (ss_model_train(&m, kind, sp.d, sp.train, sp.ntrain, &t.o))
		die("cannot train: %s", ss_error_last());
	{
		ss_model_info *info = ss_model_get_info(m);

		join_specs(info->source, sizeof(info->source), specs, nspecs, src.repo);
		snprintf(info->labels, sizeof(info->labels), "%s", ss_labels_describe(labels));
		info->masked = (uint32_t)src.opts.mask_stable_tags;
	}
	cli_model_write(out, m, output);
	{
		const ss_model_info *info = ss_model_info_of(m);
		char first[16], last[16];

		ss_format_date(first, info->first);
		ss_format_date(last, info->last);
		printf("trained %s on %llu commits %s..%s (%llu positive, tags %s) in %.1fs\n"
		       "settings: %s\n"
		       "threshold %.4f: validation (%llu newest commits, %llu positive) "
		       "P %.3f R %.3f F1 %.3f PR-AUC %.3f\n"
		       "wrote %s (%zu weights)\n",
		       ss_model_kind_name(kind), (unsigned long long)info->n, first, last,
		       (unsigned long long)info->npos, info->masked ? "masked" : "visible",
		       ss_now() - t0, info->params, (double)ss_model_threshold(m),
		       (unsigned long long)info->nval, (unsigned long long)info->nval_pos,
		       info->val_precision, info->val_recall, info->val_f1, info->val_pr_auc,
		       output, ss_model_nweights(m));
		cli_print_calibration(m);
	}
	ss_model_free(m);
	ss_run_split_free(&sp);
	ss_labels_free(labels);
	ss_run_free(run);
	return 0;
}
