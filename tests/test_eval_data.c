/*
 * test_eval_data.c - labels and models on the real data of ../shared/data
 * (kept fast: the full tables are bench/eval-*.sh).
 *
 *  - DPDK labels: the TSV reader counts what the data's README says, and
 *    the in-process stable labeler reproduces in_stable exactly;
 *  - Linux tip, label = stable tag, tags masked: no trace of the tag
 *    reaches a feature, and a linear model trained before 2023-07-01
 *    ranks the later commits far better than the keyword baseline.
 *  - label files (no data needed): a sha listed as both 1 and 0 is an
 *    error naming the file, both lines and the sha; train and eval say
 *    without --verbose how many commits the labels leave out.
 * Prints "SKIP: ../shared/data not found" and passes the data tests
 * without the data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <git2.h>
#include <gmime/gmime.h>

#include "eval/eval.h"
#include "labels/labels.h"
#include "eval/split.h"
#include "features/features.h"
#include "models/model.h"
#include "source/source.h"
#include "util/error.h"
#include "testutil.h"

static char data[512];

static void path(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", data, rel);
}

static void test_dpdk_labels(void **st)
{
	char tsv[600], stable[600], *line = NULL;
	const char *specs[1];
	ss_labels *in, *tag, *lab;
	size_t cap = 0, rows = 0, agree = 0, skipped = 0;
	FILE *f;

	(void)st;
	path(tsv, sizeof(tsv), "dpdk/labels-v16.11-v22.03.tsv");
	path(stable, sizeof(stable), "dpdk/stable-branches-v16.11-v22.03.mbox.zst");
	assert_int_equal(ss_labels_from_tsv(&in, tsv, NULL), 0);
	assert_int_equal(ss_labels_count(in), 25959);
	assert_int_equal(ss_labels_positive(in), 6286);
	assert_int_equal(ss_labels_from_tsv(&tag, tsv, "stable_tag"), 0);
	assert_int_equal(ss_labels_positive(tag), 7065);
	assert_true(ss_labels_from_tsv(&lab, tsv, "no_such_column") < 0);
	assert_non_null(strstr(ss_error_last(), "no column 'no_such_column'"));

	specs[0] = stable;
	assert_int_equal(ss_labels_from_stable(&lab, specs, 1, &skipped), 0);
	f = fopen(tsv, "r");
	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		if (!rows++)
			continue;
		line[40] = '\0';
		agree += ss_labels_get(lab, line) == ss_labels_get(in, line);
	}
	fclose(f);
	free(line);
	print_message("stable labeler: %zu of %zu commits agree with in_stable\n", agree, rows - 1);
	assert_int_equal(agree, rows - 1);
	ss_labels_free(in);
	ss_labels_free(tag);
	ss_labels_free(lab);
}

static void test_tip_masked_split(void **st)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_train_options to = SS_TRAIN_OPTIONS_INIT;
	ss_model_kind kinds[2] = { SS_MODEL_KEYWORD, SS_MODEL_LINEAR };
	char mbox[600], tsv[600];
	ss_split_sink sink;
	ss_labels *labels;
	ss_source *src;
	ss_dataset *d;
	ss_commit *c;
	ss_eval_result *res;
	size_t *tr, *te, ntr, nte, tagged = 0, leaked = 0;
	int64_t cut;
	int rc;

	(void)st;
	path(mbox, sizeof(mbox), "linux-tip/tip-before-2024-07-01.mbox.zst");
	path(tsv, sizeof(tsv), "linux-tip/labels-tip-before-2024-07-01.tsv");
	assert_int_equal(ss_labels_from_tsv(&labels, tsv, "stable_tag"), 0);
	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	so.mask_stable_tags = 1;
	assert_int_equal(ss_source_open(&src, mbox, &so), 0);
	memset(&sink, 0, sizeof(sink));
	sink.d = d;
	sink.labels = labels;
	while ((rc = ss_source_next(&c, src)) != SS_ITEROVER) {
		if (rc == SS_ESKIP)
			continue;
		assert_int_equal(rc, 0);
		tagged += c->masked;
		/* masked at parse time: the tag is gone from what features see */
		leaked += ss_commit_has_stable_tag(c) || strstr(c->message, "stable@vger") != NULL;
		assert_int_equal(ss_split_add(c, &sink), 0);
	}
	ss_source_free(src);
	print_message("tip: %zu commits, %zu masked, %zu with a trace of the tag\n", sink.kept,
		      tagged, leaked);
	assert_int_equal(sink.kept, 14568);
	assert_int_equal(leaked, 0);
	assert_true(tagged >= ss_labels_positive(labels) * 9 / 10);

	assert_int_equal(ss_parse_date(&cut, "2023-07-01"), 0);
	ss_split_by_date(d, cut);
	assert_int_equal(ss_split_part(&tr, &ntr, d, 0), 0);
	assert_int_equal(ss_split_part(&te, &nte, d, 1), 0);
	assert_true(ntr > 10000 && nte > 2000);
	res = calloc(1, sizeof(*res));
	assert_non_null(res);
	assert_int_equal(ss_eval_run(res, d, tr, ntr, te, nte, kinds, 2, &to, NULL, NULL), 0);
	print_message("tip, masked: keyword F1 %.3f PR-AUC %.3f; linear F1 %.3f PR-AUC %.3f "
		      "ROC-AUC %.3f\n", res->rows[0].all.f1, res->rows[0].all.pr_auc,
		      res->rows[1].all.f1, res->rows[1].all.pr_auc, res->rows[1].all.roc_auc);
	assert_true(res->rows[1].all.pr_auc > 2 * res->rows[0].all.pr_auc);
	assert_true(res->rows[1].all.f1 > res->rows[0].all.f1 + 0.1);
	assert_true(res->rows[1].all.roc_auc > 0.85);
	free(res);
	free(tr);
	free(te);
	ss_dataset_free(d);
	ss_labels_free(labels);
}

/* ---- label files ------------------------------------------------------ */

static const char *sha_of(int i)
{
	static char buf[8][41];

	memset(buf[i], '0' + i, 40);
	buf[i][40] = '\0';
	return buf[i];
}

static void test_label_conflict(void **st)
{
	char *dir = test_tmpdir(), tsv[256], want[512], body[1024];
	ss_labels *l = (ss_labels *)&l;

	(void)st;
	snprintf(tsv, sizeof(tsv), "%s/labels.tsv", dir);
	/* the same sha twice with the same label is fine */
	snprintf(body, sizeof(body), "sha\tin_stable\n%s\t1\n%s\t0\n%s\t1\n", sha_of(1),
		 sha_of(2), sha_of(1));
	test_write_file(tsv, body, strlen(body));
	assert_int_equal(ss_labels_from_tsv(&l, tsv, NULL), 0);
	assert_int_equal(ss_labels_count(l), 2);
	assert_int_equal(ss_labels_positive(l), 1);
	assert_int_equal(ss_labels_get(l, sha_of(1)), 1);
	assert_int_equal(ss_labels_get(l, sha_of(2)), 0);
	assert_true(ss_labels_known(l, sha_of(2)));
	ss_labels_free(l);

	/* with the other label it is an error naming file, lines and sha */
	snprintf(body, sizeof(body), "sha\tin_stable\n%s\t1\n%s\t0\n\n%s\t0\n", sha_of(3),
		 sha_of(4), sha_of(3));
	test_write_file(tsv, body, strlen(body));
	l = (ss_labels *)&l;
	assert_int_equal(ss_labels_from_tsv(&l, tsv, NULL), SS_EINVALID);
	assert_null(l);
	snprintf(want, sizeof(want), "%s:5: %s is labelled 0 here and 1 at line 2", tsv, sha_of(3));
	assert_string_equal(ss_error_last(), want);

	/* and the other way round, in another column */
	snprintf(body, sizeof(body), "tag\tsha\n0\t%s\n1\t%s\n", sha_of(5), sha_of(5));
	test_write_file(tsv, body, strlen(body));
	assert_int_equal(ss_labels_from_tsv(&l, tsv, "tag"), SS_EINVALID);
	snprintf(want, sizeof(want), "%s:3: %s is labelled 1 here and 0 at line 2", tsv, sha_of(5));
	assert_string_equal(ss_error_last(), want);
	test_run("rm -rf '%s'", dir);
	free(dir);
}

/* An mbox of six commits, a day apart, ids sha_of(0..5). */
static void write_mbox(const char *path)
{
	char buf[8192];
	size_t n = 0;
	int i;

	for (i = 0; i < 6; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "From %s Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\n"
				      "Date: Mon, %d Jan 2024 10:00:00 +0000\n"
				      "Subject: [PATCH] net: fix %s number %d\n\nbody %d\n-- \n2.39.5\n\n",
				      sha_of(i), i + 1, i % 2 ? "crash" : "typo", i, i);
	test_write_file(path, buf, n);
}

static void test_label_cli(void **st)
{
	char *dir = test_tmpdir(), p[256], body[1024], *err;

	(void)st;
	snprintf(p, sizeof(p), "%s/m.mbox", dir);
	write_mbox(p);
	/* two of six commits labelled: the other four are said to be
	 * negatives without --verbose */
	snprintf(p, sizeof(p), "%s/labels.tsv", dir);
	snprintf(body, sizeof(body), "sha\tin_stable\n%s\t1\n%s\t0\n", sha_of(1), sha_of(2));
	test_write_file(p, body, strlen(body));
	assert_int_equal(test_run("./stablesel train --kind keyword --labels '%s/labels.tsv' "
				  "-o '%s/k.model' '%s/m.mbox' >/dev/null 2>'%s/err'",
				  dir, dir, dir, dir), 0);
	snprintf(p, sizeof(p), "%s/err", dir);
	err = test_read_file(p, NULL);
	snprintf(body, sizeof(body),
		 "train: 4 of 6 commits are not in the labels (%s/labels.tsv:in_stable): "
		 "taken as negative", dir);
	if (!strstr(err, body))
		fail_msg("stderr '%s' lacks '%s'", err, body);
	free(err);

	/* every sha conflicting: the conflict, not "only positive commits" */
	snprintf(p, sizeof(p), "%s/labels.tsv", dir);
	snprintf(body, sizeof(body), "sha\tin_stable\n%s\t1\n%s\t1\n%s\t0\n%s\t0\n", sha_of(1),
		 sha_of(2), sha_of(1), sha_of(2));
	test_write_file(p, body, strlen(body));
	assert_int_equal(test_run("./stablesel train --kind keyword --labels '%s/labels.tsv' "
				  "-o '%s/k.model' '%s/m.mbox' >/dev/null 2>'%s/err'",
				  dir, dir, dir, dir), 128);
	snprintf(p, sizeof(p), "%s/err", dir);
	err = test_read_file(p, NULL);
	snprintf(body, sizeof(body), "labels.tsv:4: %s is labelled 0 here and 1 at line 2",
		 sha_of(1));
	if (!strstr(err, body) || strstr(err, "only positive"))
		fail_msg("stderr '%s' lacks '%s'", err, body);
	free(err);
	test_run("rm -rf '%s'", dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest label_tests[] = {
		cmocka_unit_test(test_label_conflict),
		cmocka_unit_test(test_label_cli),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dpdk_labels),
		cmocka_unit_test(test_tip_masked_split),
	};
	const char *env = getenv("STABLESEL_DATA");
	struct stat sb;
	int rc;

	if ((rc = cmocka_run_group_tests_name("labels", label_tests, NULL, NULL)))
		return rc;
	snprintf(data, sizeof(data), "%s", env ? env : "../shared/data");
	if (stat(data, &sb) || !S_ISDIR(sb.st_mode)) {
		printf("SKIP: ../shared/data not found\n");
		return 0;
	}
	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
