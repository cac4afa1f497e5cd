/*
 * dump-features.c - a throw-away for bench/gbdt-trial (issue 16, item 5):
 * the feature rows the linear model sees in "stablesel eval", written as
 * libsvm for an experiment outside the project (xgb-trial.py).  Not built
 * by make; see bench/results/kernel-levers.md for the build line.
 *
 * It reads its sources exactly as "stablesel eval" does (cmd/eval.c, the
 * same options: --split-date, --mask-stable-tags, --labels, feature
 * groups, history), so no mail transport reaches the features.  Then, as
 * ss_model_train does for linear: the training part ordered by author
 * time, a featurizer whose vocabulary comes from the training part only,
 * and every example's vector (ss_dataset_vector).  Writes PREFIX.svm (one
 * line per example, training part first, then test, each oldest first:
 * "label idx:val ...", indices 0-based), PREFIX.meta (sha, part, label,
 * tagged, author time) and PREFIX.dense (the named features' indices,
 * names and groups).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <gmime/gmime.h>
#include "cli.h"
#include "source/git.h"
#include "eval/eval.h"
#include "labels/labels.h"
#include "eval/split.h"
#include "models/model.h"
#include "models/options.h"
#include "util/error.h"

static const char *const dump_usage[] = {
	"dump-features --split-date DATE [eval options] -o PREFIX SOURCE...",
	"dump-features --train SOURCE --test SOURCE [eval options] -o PREFIX",
	NULL
};

static const ss_dataset *gd;
static int cmp_t(const void *a, const void *b)
{
	int64_t x = ss_dataset_example(gd, *(const size_t *)a)->time;
	int64_t y = ss_dataset_example(gd, *(const size_t *)b)->time;
	return x < y ? -1 : x > y;
}

static int dump(const ss_dataset *d, size_t *tr, size_t ntr, size_t *te, size_t nte, const char *prefix)
{
	ss_featurizer f;
	uint32_t *remap = NULL;
	ss_svec v;
	char path[4096];
	FILE *fx, *fm, *fn;
	size_t i, k, p;
	int rc;

	gd = d;
	qsort(tr, ntr, sizeof(*tr), cmp_t);
	qsort(te, nte, sizeof(*te), cmp_t);
	if ((rc = ss_featurizer_init(&f, ss_dataset_options(d))) ||
	    (rc = ss_dataset_vocab(&f, d, tr, ntr)) ||
	    (rc = ss_dataset_remap(&remap, &f, d)))
		return rc;
	snprintf(path, sizeof(path), "%s.svm", prefix);
	fx = fopen(path, "w");
	snprintf(path, sizeof(path), "%s.meta", prefix);
	fm = fopen(path, "w");
	snprintf(path, sizeof(path), "%s.dense", prefix);
	fn = fopen(path, "w");
	if (!fx || !fm || !fn)
		return ss_error_code(SS_ERROR, "cannot write %s.*", prefix);
	for (i = 0; i < SS_NDENSE; i++)
		fprintf(fn, "%zu\t%s\t%u\n", i, ss_dense_features[i].name, ss_dense_features[i].group);
	fclose(fn);
	fprintf(fm, "sha\tpart\tlabel\ttagged\ttime\n");
	ss_svec_init(&v);
	for (p = 0; p < 2; p++) {
		size_t *ix = p ? te : tr, n = p ? nte : ntr;
		for (i = 0; i < n; i++) {
			const ss_example *e = ss_dataset_example(d, ix[i]);
			if ((rc = ss_dataset_vector(&v, &f, remap, d, ix[i])))
				return rc;
			fprintf(fx, "%d", e->label);
			for (k = 0; k < v.n; k++)
				fprintf(fx, " %u:%.7g", v.idx[k], (double)v.val[k]);
			fputc('\n', fx);
			fprintf(fm, "%s\t%zu\t%d\t%d\t%lld\n", e->id, p, e->label, e->tagged, (long long)e->time);
		}
	}
	fclose(fx);
	fclose(fm);
	fprintf(stderr, "dim %zu\n", ss_featurizer_dim(&f));
	ss_svec_release(&v);
	free(remap);
	ss_featurizer_release(&f);
	return 0;
}

static int cmd_dump(int argc, const char **argv)
{
	const char *train[64], *test[64];
	const char *output = NULL;
	size_t ntrain = 0, ntest = 0;
	int nspecs;
	int64_t split = 0;
	cli_source_args src;
	cli_history_args hist;
	cli_train_args t;
	struct cli_option options[] = {
		CLI_GROUP("Split"),
		CLI_DATE("split-date", &split, "commits authored before DATE train, the others test"),
		CLI_STRLIST("train", train, &ntrain, "SOURCE", "the commits to train on"),
		CLI_STRLIST("test", test, &ntest, "SOURCE", "the commits to test on"),
		CLI_INCLUDE(src.options),
		CLI_INCLUDE(hist.options),
		CLI_INCLUDE(t.options),
		CLI_GROUP("Output"),
		CLI_OUTPUT(&output, "write PREFIX.svm, PREFIX.meta and PREFIX.dense"),
		CLI_END(),
	};
	const char **specs = argv;
	ss_split_sink sink;
	ss_labels *labels = NULL;
	ss_dataset *d;
	size_t *tr, *te, ntr, nte, dropped;
	double t0;

	cli_source_args_init(&src);
	cli_history_args_init(&hist);
	cli_train_args_init(&t);
	nspecs = cli_parse_options(argc, argv, options, dump_usage);
	if (!output || !strcmp(output, "-"))
		usage_die("name the output: -o PREFIX");
	if (split && (ntrain || ntest))
		usage_die("use either --split-date or --train/--test");
	if (!split && (!ntrain || !ntest))
		usage_die("name the split: --split-date DATE, or --train and --test");
	if (split && !nspecs && !src.repo)
		usage_die("no sources to split");
	cli_train_args_finish(&t, "eval");
	if (hist.rel.tags && !src.repo)
		usage_die("--release-tags needs --repo PATH");

	labels = cli_load_labels(&t);
	if (ss_dataset_new(&d, &t.fo))
		die("%s", ss_error_last());
	ss_dataset_set_fold_copies(d, !t.keep_copies);
	cli_dataset_history(d, &hist, &src);
	memset(&sink, 0, sizeof(sink));
	sink.d = d;
	sink.labels = labels;
	t0 = ss_now();
	if (split) {
		cli_for_each_commit(&src, specs, nspecs, ss_split_add, &sink);
		if (!sink.rc)
			ss_split_by_date(d, split);
	} else {
		cli_for_each_commit(&src, train, (int)ntrain, ss_split_add, &sink);
		sink.part = 1;
		if (!sink.rc)
			cli_for_each_commit(&src, test, (int)ntest, ss_split_add, &sink);
	}
	if (sink.rc)
		die("cannot featurize commits: %s", ss_error_last());
	cli_note_unlisted("eval", labels, sink.unlisted, sink.kept);
	cli_note_copies("eval", d);
	if (ss_split_part(&tr, &ntr, d, 0) || ss_split_part(&te, &nte, d, 1))
		die("%s", ss_error_last());
	dropped = ss_split_settle(tr, &ntr, d, t.settle, split);
	if (t.verbose)
		fprintf(stderr, "eval: %zu commits read and featurized in %.1fs (%zu train, %zu test, "
			"%zu dropped as unsettled, %zu not in the labels)\n", sink.kept, ss_now() - t0,
			ntr, nte, dropped, sink.unlisted);
	if (!ntr || !nte)
		die("the split leaves %s", !ntr ? "no training commits" : "no test commits");

	if (dump(d, tr, ntr, te, nte, output))
		die("%s", ss_error_last());
	free(tr);
	free(te);
	ss_dataset_free(d);
	ss_labels_free(labels);
	return 0;
}

int main(int argc, const char **argv)
{
	git_libgit2_init();
	ss_git_setup();
	g_mime_init();
	cli_blas_threads_init();
	return cmd_dump(argc, argv);
}
