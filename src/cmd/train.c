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

#include "cli.h"
#include "eval/eval.h"
#include "labels/labels.h"
#include "eval/split.h"
#include "models/model.h"
#include "models/options.h"
#include "util/atomic.h"
#include "util/error.h"

static const char usage[] =
	"stablesel train --model keyword|linear|mlp|patchnet|patchnet-feat [SOURCE...] [--repo PATH] [--rev REV...]\n"
	"                (--labels FILE [--label-column NAME] | --stable SOURCE...)\n"
	"                [--mask-stable-tags] [--settle-days N] [--before YYYY-MM-DD] [-v]\n"
	"                [--releases FILE] [--release-tags GLOB] [--history SOURCE...]\n"
	"                [--no-history-features]\n"
	"                [training options] -o MODEL\n"
	"training options: ";

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

int cmd_train(int argc, const char **argv)
{
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	const char *specs[256], *stable[32], *labels_path = NULL, *column = NULL, *output = NULL;
	const char *kind_name = NULL;
	const char *hist_specs[32];
	cli_releases rel = { NULL, NULL };
	int nhist = 0, no_history = 0;
	char full_usage[2048];
	cli_train_args targs;
	int nspecs = 0, nstable = 0, settle = 0, verbose = 0, a;
	int64_t before = 0;
	cli_source_args src;
	ss_split_sink sink;
	ss_labels *labels = NULL;
	ss_dataset *d;
	ss_model_kind kind;
	ss_model *m;
	ss_atomic *out;
	size_t *idx, n, dropped;
	double t0;

	snprintf(full_usage, sizeof(full_usage), "%s%s", usage, ss_train_options_usage);
	targs = (cli_train_args){ &o, &fo, specs, &nspecs, 256, &verbose, &no_history };
	cli_source_args_init(&src);
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *val = argv[a + 1];

		if (cli_train_arg(&targs, &src, argc, argv, &a, full_usage))
			continue;
		a++;
		if (!strcmp(arg, "--model")) {
			kind_name = val;
		} else if (!strcmp(arg, "--labels")) {
			labels_path = val;
		} else if (!strcmp(arg, "--label-column")) {
			column = val;
		} else if (!strcmp(arg, "--stable")) {
			if (nstable == 32)
				usage_die(full_usage, "too many --stable sources");
			stable[nstable++] = val;
		} else if (cli_releases_arg(&rel, arg, val)) {
			continue;
		} else if (!strcmp(arg, "--history")) {
			if (nhist == 32)
				usage_die(full_usage, "too many --history sources");
			hist_specs[nhist++] = val;
		} else if (!strcmp(arg, "--settle-days")) {
			settle = (int)cli_parse_count(full_usage, arg, val, 0, SS_CLI_MAX_DAYS);
		} else if (!strcmp(arg, "--before")) {
			before = cli_parse_date(full_usage, arg, val);
		} else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
			output = val;
		} else {
			usage_die(full_usage, "unknown option '%s'", arg);
		}
	}
	if (!kind_name)
		usage_die(full_usage, "--model is required");
	if (ss_model_kind_parse(&kind, kind_name) || kind == SS_MODEL_TAG)
		usage_die(full_usage, "%s", kind == SS_MODEL_TAG ?
			  "'tag' is an evaluation baseline, not a model to train" : ss_error_last());
	if (!output)
		usage_die(full_usage, "-o MODEL is required");
	if (!labels_path == !nstable)
		usage_die(full_usage, "name the labels: --labels FILE or --stable SOURCE");
	if (rel.tags && !src.repo)
		usage_die(full_usage, "--release-tags needs --repo PATH");
	if (no_history)
		fo.groups &= ~(uint32_t)SS_FG_HISTORY;
	out = cli_output_open(output);
	if (verbose) {
		o.log = cli_log_line;
		o.log_ud = (void *)"train";
	}

	labels = cli_load_labels(labels_path, column, stable, nstable);
	if (ss_dataset_new(&d, &fo) || ss_model_prepare_dataset(kind, d))
		die("%s", ss_error_last());
	cli_dataset_history(d, &rel, &src, hist_specs, nhist, full_usage);
	memset(&sink, 0, sizeof(sink));
	sink.d = d;
	sink.labels = labels;
	sink.before = before;
	t0 = ss_now();
	cli_for_each_commit(&src, specs, nspecs, ss_split_add, &sink);
	if (sink.rc)
		die("cannot featurize commits: %s", ss_error_last());
	cli_note_unlisted("train", labels, sink.unlisted, sink.kept);
	if (ss_split_part(&idx, &n, d, 0))
		die("%s", ss_error_last());
	dropped = ss_split_settle(idx, &n, d, settle, 0);
	if (!n)
		die("no commits to train on");
	if (verbose)
		fprintf(stderr, "train: %zu commits read and featurized in %.1fs (%zu dropped as unsettled, "
			"%zu not in the labels)\n", sink.kept, ss_now() - t0, dropped, sink.unlisted);
	t0 = ss_now();
	if (ss_model_train(&m, kind, d, idx, n, &o))
		die("cannot train: %s", ss_error_last());
	{
		ss_model_info *info = ss_model_get_info(m);

		join_specs(info->source, sizeof(info->source), specs, nspecs, src.repo);
		snprintf(info->labels, sizeof(info->labels), "%s", ss_labels_describe(labels));
		info->masked = (uint32_t)src.opts.mask_stable_tags;
	}
	if (ss_model_write(m, ss_atomic_file(out), output)) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	cli_output_commit(out, SIZE_MAX, "weights");
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
	}
	ss_model_free(m);
	free(idx);
	ss_dataset_free(d);
	ss_labels_free(labels);
	return 0;
}
