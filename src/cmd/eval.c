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

#include "cli.h"
#include "eval/eval.h"
#include "labels/labels.h"
#include "eval/split.h"
#include "models/model.h"
#include "models/options.h"
#include "util/atomic.h"
#include "util/error.h"

static const char usage[] =
	"stablesel eval (--split-date YYYY-MM-DD SOURCE... | --train SOURCE... --test SOURCE...)\n"
	"               (--labels FILE [--label-column NAME] | --stable SOURCE...)\n"
	"               [--models keyword,tag,linear,mlp,patchnet,patchnet-feat] [--mask-stable-tags] [--settle-days N]\n"
	"               [--format text|json] [--title TEXT] [--scores TSV] [-o FILE] [-v]\n"
	"               [--releases FILE] [--release-tags GLOB] [--history SOURCE...]\n"
	"               [--no-history-features]\n"
	"               [training options]\n"
	"training options: ";

static void score_row(void *ud, const ss_example *e, ss_model_kind kind, float score,
		      int decision)
{
	fprintf(ud, "%s\t%s\t%.6f\t%d\t%d\t%d\t%lld\n", e->id, ss_model_kind_name(kind),
		(double)score, decision, e->label, e->tagged, (long long)e->time);
}

static size_t parse_models(ss_model_kind *out, const char *list, const char *u)
{
	char name[64];
	size_t n = 0;
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len >= sizeof(name))
			usage_die(u, "unknown model '%.*s'", (int)len, p);
		memcpy(name, p, len);
		name[len] = '\0';
		if (n == SS_EVAL_MAX_MODELS)
			usage_die(u, "too many models");
		if (ss_model_kind_parse(&out[n], name))
			usage_die(u, "%s", ss_error_last());
		n++;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!n)
		usage_die(u, "--models names no model");
	return n;
}

int cmd_eval(int argc, const char **argv)
{
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	const char *specs[256], *train[64], *test[64], *stable[32];
	const char *labels_path = NULL, *column = NULL, *output = "-", *format = "text";
	const char *models = "keyword,tag,linear,mlp", *title = NULL, *scores = NULL;
	ss_atomic *scores_out = NULL;
	const char *hist_specs[32];
	cli_releases rel = { NULL, NULL };
	int nhist = 0, no_history = 0;
	char full_usage[2048];
	cli_train_args targs;
	int nspecs = 0, ntrain = 0, ntest = 0, nstable = 0, settle = 0, verbose = 0, a;
	int64_t split = 0;
	ss_model_kind kinds[SS_EVAL_MAX_MODELS];
	size_t nkinds, k;
	cli_source_args src;
	ss_split_sink sink;
	ss_labels *labels = NULL;
	ss_dataset *d;
	size_t *tr, *te, ntr, nte, dropped;
	ss_eval_result *res;
	ss_strbuf sb = SS_STRBUF_INIT;
	ss_atomic *out;
	double t0;

	snprintf(full_usage, sizeof(full_usage), "%s%s", usage, ss_train_options_usage);
	targs = (cli_train_args){ &o, &fo, specs, &nspecs, 256, &verbose, &no_history };
	cli_source_args_init(&src);
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *val = argv[a + 1];

		if (cli_train_arg(&targs, &src, argc, argv, &a, full_usage))
			continue;
		a++;
		if (!strcmp(arg, "--models")) {
			models = val;
		} else if (!strcmp(arg, "--train") || !strcmp(arg, "--test")) {
			if (ntrain == 64 || ntest == 64)
				usage_die(full_usage, "too many sources");
			if (arg[3] == 'r')
				train[ntrain++] = val;
			else
				test[ntest++] = val;
		} else if (!strcmp(arg, "--split-date")) {
			split = cli_parse_date(full_usage, arg, val);
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
		} else if (!strcmp(arg, "--format")) {
			if (strcmp(val, "text") && strcmp(val, "json"))
				usage_die(full_usage, "--format is text or json, not '%s'", val);
			format = val;
		} else if (!strcmp(arg, "--scores")) {
			scores = val;
		} else if (!strcmp(arg, "--title")) {
			title = val;
		} else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
			output = val;
		} else {
			usage_die(full_usage, "unknown option '%s'", arg);
		}
	}
	nkinds = parse_models(kinds, models, full_usage);
	if (split && (ntrain || ntest))
		usage_die(full_usage, "use either --split-date or --train/--test");
	if (!split && (!ntrain || !ntest))
		usage_die(full_usage, "name the split: --split-date DATE, or --train and --test");
	if (split && !nspecs && !src.repo)
		usage_die(full_usage, "no sources to split");
	if (!labels_path == !nstable)
		usage_die(full_usage, "name the labels: --labels FILE or --stable SOURCE");
	if (rel.tags && !src.repo)
		usage_die(full_usage, "--release-tags needs --repo PATH");
	if (no_history)
		fo.groups &= ~(uint32_t)SS_FG_HISTORY;
	scores_out = scores ? cli_output_open(scores) : NULL;
	out = cli_output_open(output);
	if (verbose) {
		o.log = cli_log_line;
		o.log_ud = (void *)"eval";
	}

	labels = cli_load_labels(labels_path, column, stable, nstable);
	if (ss_dataset_new(&d, &fo))
		die("%s", ss_error_last());
	for (k = 0; k < nkinds; k++)
		if (ss_model_prepare_dataset(kinds[k], d))
			die("%s", ss_error_last());
	cli_dataset_history(d, &rel, &src, hist_specs, nhist, full_usage);
	memset(&sink, 0, sizeof(sink));
	sink.d = d;
	sink.labels = labels;
	t0 = ss_now();
	if (split) {
		cli_for_each_commit(&src, specs, nspecs, ss_split_add, &sink);
		if (!sink.rc)
			ss_split_by_date(d, split);
	} else {
		cli_for_each_commit(&src, train, ntrain, ss_split_add, &sink);
		sink.part = 1;
		if (!sink.rc)
			cli_for_each_commit(&src, test, ntest, ss_split_add, &sink);
	}
	if (sink.rc)
		die("cannot featurize commits: %s", ss_error_last());
	cli_note_unlisted("eval", labels, sink.unlisted, sink.kept);
	if (ss_split_part(&tr, &ntr, d, 0) || ss_split_part(&te, &nte, d, 1))
		die("%s", ss_error_last());
	dropped = ss_split_settle(tr, &ntr, d, settle, split);
	if (verbose)
		fprintf(stderr, "eval: %zu commits read and featurized in %.1fs (%zu train, %zu test, "
			"%zu dropped as unsettled, %zu not in the labels)\n", sink.kept, ss_now() - t0,
			ntr, nte, dropped, sink.unlisted);
	if (!ntr || !nte)
		die("the split leaves %s", !ntr ? "no training commits" : "no test commits");

	res = calloc(1, sizeof(*res));
	if (!res)
		die("out of memory");
	if (scores) {
		fprintf(ss_atomic_file(scores_out), "sha\tmodel\tscore\tdecision\tlabel\ttagged\tauthor_time\n");
		ss_eval_set_score_sink(score_row, ss_atomic_file(scores_out));
	}
	if (ss_eval_run(res, d, tr, ntr, te, nte, kinds, nkinds, &o))
		die("%s", ss_error_last());
	if (scores_out)
		cli_output_commit(scores_out, SIZE_MAX, "scores");
	res->masked = src.opts.mask_stable_tags;
	if ((!strcmp(format, "json") ? ss_eval_format_json : ss_eval_format_text)(&sb, res, title))
		die("out of memory");
	fwrite(sb.buf, 1, sb.len, ss_atomic_file(out));
	cli_output_commit(out, SIZE_MAX, "results");
	ss_strbuf_release(&sb);
	free(res);
	free(tr);
	free(te);
	ss_dataset_free(d);
	ss_labels_free(labels);
	return 0;
}
