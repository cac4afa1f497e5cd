/*
 * test_models.c - the models on hand-made commits: the keyword and tag
 * rules, liblinear and the MLP fitting a separable set, the MLP's whole
 * loss gradient against finite differences, bit-identical MLP training for
 * a seed, explanations, save -> load -> identical scores, and refusal of
 * truncated, corrupt and foreign model files; calibration on a task of
 * known probabilities, the picks it keeps, and its place in the file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <zlib.h>

#include <git2.h>

#include "commit/commit.h"
#include "models/impl.h"
#include "models/model.h"
#include "nn/nn.h"
#include "util/error.h"

#include "testcommit.h"

/* ---- a synthetic history ---------------------------------------------- */

static uint64_t rs = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)(rs >> 11);
}

static const char *const noise[] = {
	"queue", "port", "device", "driver", "config", "memory", "packet", "table",
	"offload", "stats", "link", "flow", "ring", "buffer", "timer", "cache",
};

static const char *const fix_lines[] = {
	"+	if (!p)", "+		return -EINVAL;", "-	kfree(p);", "+	spin_unlock(&l);", NULL
};
static const char *const feature_lines[] = {
	"+static int new_thing(void)", "+{", "+	return 0;", "+}", NULL
};

/* A fix (label 1) touches drivers/ and says crash; a feature does not. */
static ss_commit *synth(size_t i, int label, char *id)
{
	char msg[512];
	tc_file f;
	const char *w1 = noise[rnd() % 16], *w2 = noise[rnd() % 16];

	snprintf(id, 41, "%040zx", i + 1);
	if (label) {
		snprintf(msg, sizeof(msg),
			 "net/foo: avoid crash on %s\n\nThe %s %s crashed on a NULL pointer.\n\n"
			 "Signed-off-by: Dev %zu <dev%zu@example.org>\n", w1, w1, w2, i % 7, i % 7);
		f = (tc_file){ "drivers/net/foo/main.c", "int foo_rx(void)", fix_lines, SS_FILE_MODIFIED };
	} else {
		snprintf(msg, sizeof(msg),
			 "lib/bar: add %s support\n\nThis adds %s %s handling.\n\n"
			 "Signed-off-by: Dev %zu <dev%zu@example.org>\n", w1, w1, w2, i % 5, i % 5);
		f = (tc_file){ "lib/bar/new.c", NULL, feature_lines, SS_FILE_ADDED };
	}
	return tc_commit(id, label ? "fixer@example.org" : "builder@example.org",
			 1600000000LL + (long long)i * 3600, msg, &f, 1);
}

/* n commits, about a quarter positive, oldest first. */
static ss_dataset *synth_dataset(size_t n, uint32_t hash_bits)
{
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_dataset *d;
	size_t i;
	char id[41];

	o.hash_bits = hash_bits;
	o.min_df = 1;
	assert_int_equal(ss_dataset_new(&d, &o), 0);
	for (i = 0; i < n; i++) {
		int label = rnd() % 4 == 0;
		ss_commit *c = synth(i, label, id);

		assert_non_null(c);
		assert_int_equal(ss_dataset_add(d, c, label, 0), 0);
		ss_commit_free(c);
	}
	return d;
}

static size_t *iota(size_t n)
{
	size_t *idx = malloc(n * sizeof(*idx)), i;

	assert_non_null(idx);
	for (i = 0; i < n; i++)
		idx[i] = i;
	return idx;
}

static void quick_mlp(ss_train_options *o)
{
	o->hidden = 16;
	o->epochs = 15;
	o->patience = 15;
	o->batch = 32;
	o->lr = 5e-3f;
	o->threads = 1;
}

/* Train on the first ntrain examples, return F1 on the rest. */
static double holdout_f1(ss_model_kind kind, const ss_train_options *o, ss_model **keep)
{
	enum { N = 400, NTRAIN = 300 };
	ss_dataset *d = synth_dataset(N, 12);
	size_t *idx = iota(N);
	float score[N - NTRAIN];
	uint8_t label[N - NTRAIN];
	ss_model *m;
	ss_metrics mt;
	size_t i;

	assert_int_equal(ss_model_train(&m, kind, d, idx, NTRAIN, o), 0);
	assert_int_equal(ss_model_score(score, m, d, idx + NTRAIN, N - NTRAIN), 0);
	for (i = 0; i < N - NTRAIN; i++)
		label[i] = ss_dataset_example(d, NTRAIN + i)->label;
	assert_int_equal(ss_metrics_compute(&mt, score, label, N - NTRAIN, ss_model_threshold(m)), 0);
	assert_int_equal(ss_model_info_of(m)->n, NTRAIN);
	assert_int_equal(ss_model_info_of(m)->nval, 45); /* the newest 15% */
	if (keep)
		*keep = m;
	else
		ss_model_free(m);
	free(idx);
	ss_dataset_free(d);
	return mt.f1;
}

static void test_keyword_and_tag(void **st)
{
	static const char tagged[] = "x: add y\n\nz\n\nCc: stable@dpdk.org\nSigned-off-by: A <a@b>\n";
	ss_commit *fix = tc_commit("1", "a@b", 1, "x: Fix y\n\nz\n", NULL, 0);
	ss_commit *bug = tc_commit("2", "a@b", 2, "x: y\n\nA BUG in z.\n", NULL, 0);
	ss_commit *plain = tc_commit("3", "a@b", 3, "x: add y\n\nz\n", NULL, 0);
	ss_commit *tag = tc_commit("4", "a@b", 4, tagged, NULL, 0);
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d;
	ss_model *kw, *tg;
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	size_t idx[4] = { 0, 1, 2, 3 };
	float s[4];

	(void)st;
	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	assert_int_equal(ss_dataset_add(d, fix, 1, 0), 0);
	assert_int_equal(ss_dataset_add(d, bug, 1, 0), 0);
	assert_int_equal(ss_dataset_add(d, plain, 0, 0), 0);
	assert_int_equal(ss_commit_mask_stable(tag), 0);
	assert_int_equal(ss_dataset_add(d, tag, 1, 0), 0);
	assert_int_equal(ss_model_train(&kw, SS_MODEL_KEYWORD, d, idx, 4, &o), 0);
	assert_int_equal(ss_model_score(s, kw, d, idx, 4), 0);
	assert_true(s[0] == 1.0f && s[1] == 1.0f && s[2] == 0.0f && s[3] == 0.0f);
	assert_int_equal(ss_model_score_commit(&s[0], kw, bug, NULL), 0);
	assert_true(s[0] == 1.0f);
	/* the tag pseudo-model sees the tag even after masking */
	assert_int_equal(ss_model_train(&tg, SS_MODEL_TAG, d, idx, 4, &o), 0);
	assert_int_equal(ss_model_score(s, tg, d, idx, 4), 0);
	assert_true(s[0] == 0.0f && s[1] == 0.0f && s[2] == 0.0f && s[3] == 1.0f);
	assert_int_equal(ss_model_score_commit(&s[0], tg, tag, NULL), 0);
	assert_true(s[0] == 1.0f);
	ss_model_free(kw);
	ss_model_free(tg);
	ss_dataset_free(d);
	ss_commit_free(fix);
	ss_commit_free(bug);
	ss_commit_free(plain);
	ss_commit_free(tag);
}

static void test_linear_fits_separable(void **st)
{
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_model *m;

	(void)st;
	assert_true(holdout_f1(SS_MODEL_LINEAR, &o, &m) > 0.99);
	assert_true(ss_model_info_of(m)->val_f1 > 0.99);
	assert_non_null(strstr(ss_model_info_of(m)->params, "C="));
	ss_model_free(m);
}

static void test_mlp_fits_separable(void **st)
{
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;

	(void)st;
	quick_mlp(&o);
	assert_true(holdout_f1(SS_MODEL_MLP, &o, NULL) > 0.99);
	/* two hidden layers and two threads learn it as well */
	o.hidden2 = 8;
	o.threads = 2;
	assert_true(holdout_f1(SS_MODEL_MLP, &o, NULL) > 0.99);
}

static void test_mlp_gradient(void **st)
{
	enum { N = 24 };
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(N, 8);
	size_t *idx = iota(N);
	ss_model *m;
	double err;

	(void)st;
	o.hidden = 6;
	o.hidden2 = 4;
	o.epochs = 1;
	o.dropout = 0.25f;
	o.threads = 1;
	assert_int_equal(ss_model_train(&m, SS_MODEL_MLP, d, idx, N, &o), 0);
	assert_int_equal(ss_mlp_gradcheck(&err, m, d, idx, N, 3000), 0);
	print_message("mlp loss gradient: max relative error %.2e over %zu weights\n", err,
		      ss_model_nweights(m));
	assert_true(err < 1e-2);
	ss_model_free(m);
	/* with the wide path and input dropout (the same mask in every call) */
	o.wide = 1;
	o.input_dropout = 0.2f;
	assert_int_equal(ss_model_train(&m, SS_MODEL_MLP, d, idx, N, &o), 0);
	assert_int_equal(ss_mlp_gradcheck(&err, m, d, idx, N, 3000), 0);
	print_message("wide mlp loss gradient: max relative error %.2e over %zu weights\n", err,
		      ss_model_nweights(m));
	assert_true(err < 1e-2);
	ss_model_free(m);
	free(idx);
	ss_dataset_free(d);
}

static void train_scores(ss_model_kind kind, int threads, float *score, size_t n)
{
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(n, 10);
	size_t *idx = iota(n);
	ss_model *m;

	rs = 12345; /* the same commits every time */
	ss_dataset_free(d);
	d = synth_dataset(n, 10);
	quick_mlp(&o);
	o.threads = threads;
	o.seed = 42;
	assert_int_equal(ss_model_train(&m, kind, d, idx, n, &o), 0);
	assert_int_equal(ss_model_score(score, m, d, idx, n), 0);
	ss_model_free(m);
	free(idx);
	ss_dataset_free(d);
}

/*
 * liblinear trains on one BLAS thread (models/linear.c: OpenBLAS's
 * hand-off costs more than it saves on its level-1 calls, and a reduction
 * split by the thread count would tie the weights to the machine's CPU
 * count) and gives the caller's thread count back.  (Whether the weights
 * differ with 2 threads depends on the data: on systemd's history they
 * did in the last digits of a few scores, bench/results/first-rank.md; on
 * this small synthetic set they do not, so that is not asserted here.)
 */
static void test_linear_blas_threads(void **st)
{
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	uint64_t keep = rs;
	ss_dataset *d;
	size_t *idx = iota(200);
	ss_model *m;
	int prev;

	(void)st;
	d = synth_dataset(200, 12);
	rs = keep; /* the tests after see the data they always saw */
	prev = ss_nn_set_blas_threads(2);
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, d, idx, 200, &o), 0);
	assert_int_equal(ss_nn_set_blas_threads(prev), 2);
	ss_model_free(m);
	free(idx);
	ss_dataset_free(d);
}

static void test_mlp_deterministic(void **st)
{
	enum { N = 200 };
	float a[N], b[N];

	(void)st;
	train_scores(SS_MODEL_MLP, 1, a, N);
	train_scores(SS_MODEL_MLP, 1, b, N);
	assert_memory_equal(a, b, sizeof(a));
	train_scores(SS_MODEL_MLP, 2, a, N);
	train_scores(SS_MODEL_MLP, 2, b, N);
	assert_memory_equal(a, b, sizeof(a));
}

static char tmpdir[64];

static void path_in_tmp(char *buf, size_t size, const char *name)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/ss-test-models-XXXXXX");
		assert_non_null(mkdtemp(tmpdir));
	}
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void save_load_same(ss_model_kind kind)
{
	enum { N = 200 };
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(N, 10);
	size_t *idx = iota(N), i;
	float a[N], b[N], ca, cb;
	ss_model *m, *l;
	char path[128];
	char id[41];
	ss_commit *c = synth(7, 1, id);

	quick_mlp(&o);
	path_in_tmp(path, sizeof(path), ss_model_kind_name(kind));
	assert_int_equal(ss_model_train(&m, kind, d, idx, N, &o), 0);
	snprintf(ss_model_get_info(m)->source, sizeof(ss_model_get_info(m)->source), "synthetic");
	assert_true(ss_model_pick_share(m) == 0.0f);
	ss_model_set_pick_share(m, 0.1875f);  /* exact in binary */
	assert_int_equal(ss_model_save(m, path), 0);
	assert_int_equal(ss_model_load(&l, path), 0);
	assert_int_equal(ss_model_get_kind(l), kind);
	assert_true(ss_model_threshold(l) == ss_model_threshold(m));
	assert_true(ss_model_pick_share(l) == 0.1875f);
	assert_string_equal(ss_model_info_of(l)->source, "synthetic");
	assert_string_equal(ss_model_info_of(l)->params, ss_model_info_of(m)->params);
	assert_int_equal(ss_model_info_of(l)->n, N);
	assert_int_equal(ss_model_nweights(l), ss_model_nweights(m));
	assert_int_equal(ss_model_score(a, m, d, idx, N), 0);
	assert_int_equal(ss_model_score(b, l, d, idx, N), 0);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(ss_model_score_commit(&ca, m, c, NULL), 0);
	assert_int_equal(ss_model_score_commit(&cb, l, c, NULL), 0);
	assert_true(ca == cb);
	/* a commit scores as its dataset example does */
	{
		ss_dataset *one;
		size_t zero = 0;
		float x;

		assert_int_equal(ss_dataset_new(&one, ss_dataset_options(d)), 0);
		assert_int_equal(ss_dataset_add(one, c, 1, 0), 0);
		assert_int_equal(ss_model_score(&x, l, one, &zero, 1), 0);
		assert_true(fabsf(x - ca) < 1e-6f);
		ss_dataset_free(one);
	}
	(void)i;
	ss_commit_free(c);
	ss_model_free(m);
	ss_model_free(l);
	unlink(path);
	free(idx);
	ss_dataset_free(d);
}

static void test_save_load_identical(void **st)
{
	(void)st;
	save_load_same(SS_MODEL_LINEAR);
	save_load_same(SS_MODEL_MLP);
	save_load_same(SS_MODEL_KEYWORD);
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void expect_refused(const char *path, const char *what)
{
	ss_model *m = (ss_model *)1;

	assert_true(ss_model_load(&m, path) < 0);
	assert_null(m);
	if (!strstr(ss_error_last(), what))
		fail_msg("expected '%s' in '%s'", what, ss_error_last());
	assert_non_null(strstr(ss_error_last(), path));
}

static void test_bad_files_refused(void **st)
{
	enum { N = 100 };
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(N, 10);
	size_t *idx = iota(N), len, cut;
	char path[128], bad[128];
	unsigned char *buf;
	ss_model *m;
	FILE *f;

	(void)st;
	path_in_tmp(path, sizeof(path), "good");
	path_in_tmp(bad, sizeof(bad), "bad");
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, d, idx, N, &o), 0);
	assert_int_equal(ss_model_save(m, path), 0);
	ss_model_free(m);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(len);
	assert_int_equal(fread(buf, 1, len, f), len);
	fclose(f);

	/* truncated anywhere after the magic */
	for (cut = 8; cut < len; cut += len / 7 + 1) {
		write_file(bad, buf, cut);
		expect_refused(bad, "is truncated");
	}
	write_file(bad, buf, len - 1);
	expect_refused(bad, "is truncated");
	/* one flipped bit anywhere after the header */
	buf[len / 2] ^= 0x10;
	write_file(bad, buf, len);
	expect_refused(bad, "is corrupt");
	buf[len / 2] ^= 0x10;
	buf[len - 1] ^= 0x01;
	write_file(bad, buf, len);
	expect_refused(bad, "is corrupt");
	buf[len - 1] ^= 0x01;
	/* trailing garbage */
	{
		unsigned char *more = malloc(len + 3);

		memcpy(more, buf, len);
		memcpy(more + len, "xyz", 3);
		write_file(bad, more, len + 3);
		expect_refused(bad, "is corrupt");
		free(more);
	}
	/* not a model at all, empty, a newer format */
	write_file(bad, "From 1234 Mon Sep 17 00:00:00 2001\n", 35);
	expect_refused(bad, "is not a stablesel model");
	write_file(bad, "", 0);
	expect_refused(bad, "is not a stablesel model");
	assert_int_equal(buf[8], SS_MODEL_FORMAT_VERSION);
	buf[8] = 99;
	write_file(bad, buf, len);
	expect_refused(bad, "format version 99");
	buf[8] = SS_MODEL_FORMAT_VERSION;
	/* and the intact bytes still load */
	write_file(bad, buf, len);
	assert_int_equal(ss_model_load(&m, bad), 0);
	ss_model_free(m);
	unlink(bad);
	unlink(path);
	free(buf);
	free(idx);
	ss_dataset_free(d);
}


/* ---- files that are not what they claim ------------------------------ */

/* Train a small model of kind and return its file's bytes (*len). */
static unsigned char *model_bytes(ss_model_kind kind, size_t *len)
{
	enum { N = 100 };
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(N, 8);
	size_t *idx = iota(N);
	char path[128];
	unsigned char *buf;
	ss_model *m;
	FILE *f;

	quick_mlp(&o);
	o.epochs = 2;
	path_in_tmp(path, sizeof(path), "bytes");
	assert_int_equal(ss_model_train(&m, kind, d, idx, N, &o), 0);
	assert_int_equal(ss_model_save(m, path), 0);
	ss_model_free(m);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	unlink(path);
	free(idx);
	ss_dataset_free(d);
	return buf;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Make buf[len] a well-formed envelope again: payload length and CRC. */
static void reseal(unsigned char *buf, size_t len)
{
	put_le(buf + 12, len - 24, 8);
	put_le(buf + len - 4, crc32(0L, buf, (uInt)(len - 4)), 4);
}

static void put_f32(unsigned char *p, float v)
{
	uint32_t u;

	memcpy(&u, &v, 4);
	put_le(p, u, 4);
}

static void test_nonfinite_refused(void **st)
{
	static const ss_model_kind kinds[] = { SS_MODEL_LINEAR, SS_MODEL_MLP };
	static const char *const what[] = { "linear weight ", "mlp output layer: weight " };
	char path[128];
	size_t len, k;
	unsigned char *buf;

	(void)st;
	path_in_tmp(path, sizeof(path), "nonfinite");
	for (k = 0; k < 2; k++) {
		buf = model_bytes(kinds[k], &len);
		/* the last float before the CRC is the kind's last weight (the
		 * linear bias, the mlp output bias) */
		put_f32(buf + len - 8, NAN);
		reseal(buf, len);
		write_file(path, buf, len);
		expect_refused(path, "is corrupt: ");
		expect_refused(path, what[k]);
		expect_refused(path, " is nan");
		put_f32(buf + len - 8, -INFINITY);
		reseal(buf, len);
		write_file(path, buf, len);
		expect_refused(path, " is infinite");
		put_f32(buf + len - 8, 0.25f);
		reseal(buf, len);
		write_file(path, buf, len);
		{
			ss_model *m;

			assert_int_equal(ss_model_load(&m, path), 0);
			ss_model_free(m);
		}
		free(buf);
	}
	/* a threshold that is not a number */
	{
		enum { N = 100 };
		ss_train_options o = SS_TRAIN_OPTIONS_INIT;
		ss_dataset *d = synth_dataset(N, 8);
		size_t *idx = iota(N);
		ss_model *m;

		assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, d, idx, N, &o), 0);
		ss_model_set_threshold(m, NAN);
		assert_int_equal(ss_model_save(m, path), 0);
		ss_model_free(m);
		expect_refused(path, "is corrupt: threshold is nan");
		free(idx);
		ss_dataset_free(d);
	}
	unlink(path);
}

static void test_tag_refused(void **st)
{
	char path[128];
	unsigned char *buf;
	size_t len;

	(void)st;
	path_in_tmp(path, sizeof(path), "tag");
	buf = model_bytes(SS_MODEL_KEYWORD, &len);
	assert_int_equal(buf[20], SS_MODEL_KEYWORD);
	buf[20] = SS_MODEL_TAG;
	reseal(buf, len);
	write_file(path, buf, len);
	expect_refused(path, "is of kind tag, an evaluation baseline");
	unlink(path);
	free(buf);
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

/* Big files are judged by their first bytes and their size, not read. */
static void test_big_files_not_read(void **st)
{
	char path[128];
	ss_model *m = (ss_model *)1;
	long before;
	FILE *f;

	(void)st;
	/* /dev/zero: no magic, refused at once */
	assert_true(ss_model_load(&m, "/dev/zero") < 0);
	assert_null(m);
	assert_non_null(strstr(ss_error_last(), "'/dev/zero' is not a stablesel model"));

	/* a 256 MiB file (sparse) that is no model: reading it would fill as
	 * much memory */
	path_in_tmp(path, sizeof(path), "big.mbox");
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs("From 1234 Mon Sep 17 00:00:00 2001\n", f);
	assert_int_equal(ftruncate(fileno(f), (off_t)256 << 20), 0);
	fclose(f);
	before = peak_rss_kb();
	expect_refused(path, "is not a stablesel model");
	assert_true(peak_rss_kb() - before < 32 * 1024);

	/* the magic, then 3 GiB: too large, said from the size */
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite("SSMODEL\x1a", 1, 8, f);
	assert_int_equal(ftruncate(fileno(f), (off_t)3 << 30), 0);
	fclose(f);
	before = peak_rss_kb();
	expect_refused(path, "is too large");
	assert_true(peak_rss_kb() - before < 32 * 1024);
	unlink(path);
}

/* Every refusal of a damaged file says why: no "is corrupt: " without a
 * reason after it, whatever the damage (resealed, so that the checksum
 * lets it through to the loaders). */
static void test_corrupt_reasons(void **st)
{
	static const ss_model_kind kinds[] = { SS_MODEL_LINEAR, SS_MODEL_MLP, SS_MODEL_KEYWORD };
	static const unsigned char vals[] = { 0x00, 0xff, 0x7f, 0x80, 0x01 };
	char path[128];
	unsigned char *buf, *bad;
	size_t len, k, pos, v, refused = 0;
	ss_model *m;

	(void)st;
	path_in_tmp(path, sizeof(path), "mutant");
	for (k = 0; k < 3; k++) {
		buf = model_bytes(kinds[k], &len);
		bad = malloc(len);
		for (pos = 20; pos < len - 4; pos += pos < 400 ? 1 : len / 97 + 1) {
			for (v = 0; v < sizeof(vals); v++) {
				const char *e, *why;
				int rc;

				memcpy(bad, buf, len);
				bad[pos] = vals[v];
				reseal(bad, len);
				ss_error_clear();
				rc = ss_model_load_buffer(&m, bad, len, "mutant");
				if (!rc) {
					ss_model_free(m);
					continue;
				}
				refused++;
				e = ss_error_last();
				if (!e[0])
					fail_msg("byte %zu = %#x of a %s model: no message", pos,
						 vals[v], ss_model_kind_name(kinds[k]));
				why = strstr(e, "is corrupt:");
				if (why && !why[strlen("is corrupt:")])
					fail_msg("byte %zu = %#x of a %s model: '%s'", pos, vals[v],
						 ss_model_kind_name(kinds[k]), e);
				if (why && why[strlen("is corrupt:")] != ' ')
					fail_msg("'%s'", e);
				if (why && !why[strlen("is corrupt: ")])
					fail_msg("byte %zu = %#x of a %s model: '%s'", pos, vals[v],
						 ss_model_kind_name(kinds[k]), e);
			}
		}
		/* cut short anywhere, resealed: truncated, with a reason */
		for (pos = 28; pos < len; pos += pos < 400 ? 1 : len / 97 + 1) {
			const char *e, *why;

			memcpy(bad, buf, pos - 4);
			reseal(bad, pos);
			ss_error_clear();
			if (!ss_model_load_buffer(&m, bad, pos, "mutant")) {
				ss_model_free(m);
				continue;
			}
			refused++;
			e = ss_error_last();
			why = strstr(e, "is corrupt: ");
			if (!e[0] || (why && !why[strlen("is corrupt: ")]))
				fail_msg("%s model cut to %zu bytes: '%s'", ss_model_kind_name(kinds[k]),
					 pos, e);
		}
		free(bad);
		free(buf);
	}
	assert_true(refused > 100);
	unlink(path);
}

static void test_explain(void **st)
{
	enum { N = 300 };
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(N, 12);
	size_t *idx = iota(N), n, i;
	ss_contrib top[5];
	ss_model *lin, *mlp;
	char id[41];
	ss_commit *c = synth(3, 1, id);
	int named = 0;

	(void)st;
	quick_mlp(&o);
	assert_int_equal(ss_model_train(&lin, SS_MODEL_LINEAR, d, idx, N, &o), 0);
	assert_int_equal(ss_model_train(&mlp, SS_MODEL_MLP, d, idx, N, &o), 0);
	assert_int_equal(ss_model_explain(top, 5, &n, lin, c, NULL, 1), 0);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++) {
		assert_true(top[i].contrib > 0);
		if (i)
			assert_true(top[i].contrib <= top[i - 1].contrib);
		/* what makes a fix: its words, its path, its author */
		named |= !strcmp(top[i].name, "word:crash") || !strcmp(top[i].name, "word:avoid") ||
			 !strncmp(top[i].name, "d:drivers", 9) || !strncmp(top[i].name, "a:fixer", 7) ||
			 !strncmp(top[i].name, "f:drivers", 9) || !strcmp(top[i].name, "word:null");
	}
	assert_true(named);
	assert_int_equal(ss_model_explain(top, 5, &n, mlp, c, NULL, 1), 0);
	assert_true(n > 0);
	assert_true(top[0].contrib > 0);
	ss_commit_free(c);
	ss_model_free(lin);
	ss_model_free(mlp);
	free(idx);
	ss_dataset_free(d);
}

/* ---- calibration ------------------------------------------------------ */

/*
 * A task of known probabilities: a fix-looking commit reaches stable with
 * probability 0.7, a feature-looking one with 0.1, whatever else it says.
 * The best any model can do is to score 0.7 and 0.1; the mlp's class
 * weighting pushes its raw scores away from both (patchnet's after three
 * epochs are as far off), the calibrated scores of every learned kind
 * must come back.  Sizes: 600 validation commits (about 240 fix-looking)
 * fit the map; the bounds allow for the sampling error of the 2000 test
 * commits (standard error of a group's fraction about 0.016) and of the
 * validation slice (about 0.03; with 300 validation commits the slice
 * drawn here was 0.14 positive among the p = 0.1 commits).
 */
enum { CAL_N = 6000, CAL_TRAIN = 4000 };

static ss_dataset *known_p_dataset(uint8_t *kind)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_dataset *d;
	char id[41];
	size_t i;

	fo.hash_bits = 10;
	fo.min_df = 1;
	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	assert_int_equal(ss_model_prepare_dataset(SS_MODEL_PATCHNET, d), 0);
	assert_int_equal(ss_model_prepare_dataset(SS_MODEL_PATCHNET_FEAT, d), 0);
	for (i = 0; i < CAL_N; i++) {
		int fix = rnd() % 10 < 4;
		int label = (double)(rnd() % 1000000) / 1e6 < (fix ? 0.7 : 0.1);
		ss_commit *c = synth(i, fix, id);

		assert_non_null(c);
		kind[i] = (uint8_t)fix;
		assert_int_equal(ss_dataset_add(d, c, label, 0), 0);
		ss_commit_free(c);
	}
	return d;
}

static void test_calibrated_known_probabilities(void **st)
{
	static const ss_model_kind kinds[] = { SS_MODEL_LINEAR, SS_MODEL_MLP, SS_MODEL_PATCHNET,
					       SS_MODEL_PATCHNET_FEAT };
	static uint8_t kind[CAL_N], label[CAL_N - CAL_TRAIN];
	static float score[CAL_N - CAL_TRAIN], raw[CAL_N - CAL_TRAIN];
	ss_dataset *d;
	size_t *idx = iota(CAL_N), i, k;

	(void)st;
	d = known_p_dataset(kind);
	for (i = 0; i < CAL_N - CAL_TRAIN; i++)
		label[i] = ss_dataset_example(d, CAL_TRAIN + i)->label;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		ss_train_options o = SS_TRAIN_OPTIONS_INIT;
		const ss_calib none = SS_CALIB_INIT, *c;
		ss_calib cal;
		double mean[2] = { 0, 0 }, cnt[2] = { 0, 0 }, ece, raw_ece;
		float lo = INFINITY, hi = -INFINITY, t;
		ss_model *m;

		quick_mlp(&o);
		if (kinds[k] == SS_MODEL_PATCHNET || kinds[k] == SS_MODEL_PATCHNET_FEAT) {
			o.epochs = 3;
			o.threads = 2;
		}
		assert_int_equal(ss_model_train(&m, kinds[k], d, idx, CAL_TRAIN, &o), 0);
		c = ss_model_calibration(m);
		assert_int_equal(c->method, SS_CALIB_PLATT);
		assert_true(c->a > 0);
		assert_int_equal(ss_model_score(score, m, d, idx + CAL_TRAIN, CAL_N - CAL_TRAIN), 0);
		for (i = 0; i < CAL_N - CAL_TRAIN; i++) {
			mean[kind[CAL_TRAIN + i]] += score[i];
			cnt[kind[CAL_TRAIN + i]]++;
		}
		ece = ss_metrics_ece(score, label, CAL_N - CAL_TRAIN);
		/* the same model without its map: the raw scores */
		t = ss_model_threshold(m);
		cal = *c;
		ss_model_set_calibration(m, &none);
		assert_int_equal(ss_model_score(raw, m, d, idx + CAL_TRAIN, CAL_N - CAL_TRAIN), 0);
		raw_ece = ss_metrics_ece(raw, label, CAL_N - CAL_TRAIN);
		print_message("%s: calibration a %.3f b %.3f; test ECE %.4f raw, %.4f calibrated; "
			      "mean score %.3f (fix-looking, p 0.7), %.3f (others, p 0.1)\n",
			      ss_model_kind_name(kinds[k]), cal.a, cal.b, raw_ece, ece,
			      mean[1] / cnt[1], mean[0] / cnt[0]);
		assert_true(ece < 0.05);
		assert_true(fabs(mean[1] / cnt[1] - 0.7) < 0.07);
		assert_true(fabs(mean[0] / cnt[0] - 0.1) < 0.05);
		/* same order, same picks: every pick's raw score is above every
		 * other commit's (the threshold moved with the map) */
		for (i = 0; i < CAL_N - CAL_TRAIN; i++) {
			if (score[i] >= t)
				lo = raw[i] < lo ? raw[i] : lo;
			else
				hi = raw[i] > hi ? raw[i] : hi;
		}
		assert_true(lo > hi);
		for (i = 1; i < CAL_N - CAL_TRAIN; i++)
			if (raw[i] < raw[i - 1])
				assert_true(score[i] <= score[i - 1]);
			else if (raw[i] > raw[i - 1])
				assert_true(score[i] >= score[i - 1]);
		ss_model_free(m);
	}
	free(idx);
	ss_dataset_free(d);
}

/* Find the calibration's 20 bytes (method, a, b) in buf[len]. */
static size_t find_calib(const unsigned char *buf, size_t len, const ss_calib *c)
{
	unsigned char pat[20];
	uint64_t u;
	size_t i, at = 0, hits = 0;

	put_le(pat, c->method, 4);
	memcpy(&u, &c->a, 8);
	put_le(pat + 4, u, 8);
	memcpy(&u, &c->b, 8);
	put_le(pat + 12, u, 8);
	for (i = 0; i + 20 <= len; i++)
		if (!memcmp(buf + i, pat, 20)) {
			at = i;
			hits++;
		}
	assert_int_equal(hits, 1);
	return at;
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

/* Write buf[len] to path as a file of format version, checksums redone. */
static void write_version(const char *path, unsigned char *buf, size_t len, unsigned version)
{
	put_le(buf + 8, version, 4);
	reseal(buf, len);
	write_file(path, buf, len);
}

/* Take the n bytes at buf + at out of buf[*len]. */
static void cut_out(unsigned char *buf, size_t *len, size_t at, size_t n)
{
	memmove(buf + at, buf + at + n, *len - at - n);
	*len -= n;
}

static void test_calibration_in_file(void **st)
{
	enum { N = 200 };
	static const struct {
		ss_calib c;
		const char *why;
	} bad[] = {
		{ { SS_CALIB_PLATT, NAN, 0.0 }, "is corrupt: calibration slope is nan" },
		{ { SS_CALIB_PLATT, 1.0, INFINITY }, "is corrupt: calibration intercept is infinite" },
		{ { SS_CALIB_PLATT, -0.5, 0.0 }, "is corrupt: calibration slope -0.5 is not positive" },
		{ { SS_CALIB_PLATT, 0.0, 0.0 }, "is corrupt: calibration slope 0 is not positive" },
		{ { 7, 1.0, 0.0 }, "is corrupt: calibration method 7 is unknown" },
	};
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(N, 10);
	size_t *idx = iota(N), len, at, i;
	const ss_calib none = SS_CALIB_INIT;
	ss_calib good;
	float a[N], b[N];
	unsigned char *buf;
	char path[128];
	ss_model *m, *l;

	(void)st;
	path_in_tmp(path, sizeof(path), "calib");
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, d, idx, N, &o), 0);
	good = *ss_model_calibration(m);
	assert_int_equal(good.method, SS_CALIB_PLATT);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ss_model_set_calibration(m, &bad[i].c);
		assert_int_equal(ss_model_save(m, path), 0);
		expect_refused(path, bad[i].why);
	}
	/* a version 1 file (no calibration bytes, no bands, no pick share,
	 * no neighbours, no cost, no cut: 20 + 32 + 4 + 16 + 12 bytes) loads
	 * with the identity */
	ss_model_set_calibration(m, &good);
	assert_int_equal(ss_model_save(m, path), 0);
	buf = read_all(path, &len);
	at = find_calib(buf, len, &good);
	cut_out(buf, &len, at, 84);
	write_version(path, buf, len, 1);
	assert_int_equal(ss_model_load(&l, path), 0);
	assert_int_equal(ss_model_calibration(l)->method, SS_CALIB_NONE);
	ss_model_set_calibration(m, &none);
	assert_int_equal(ss_model_score(a, m, d, idx, N), 0);
	assert_int_equal(ss_model_score(b, l, d, idx, N), 0);
	assert_memory_equal(a, b, sizeof(a));
	/* the same bytes as version 2 lack 20 bytes before the weights */
	write_version(path, buf, len, 2);
	expect_refused(path, "is corrupt");
	ss_model_free(l);
	/* the built-in model was retrained with its map (models/default.txt) */
	if (!ss_model_load_default(&l)) {
		assert_int_equal(ss_model_calibration(l)->method, SS_CALIB_PLATT);
		ss_model_free(l);
	}
	ss_model_free(m);
	free(buf);
	unlink(path);
	free(idx);
	ss_dataset_free(d);
}

/* Find the bands' 24 bytes (yes, likely, unsure) in buf[len]. */
static size_t find_bands(const unsigned char *buf, size_t len, const ss_bands *b)
{
	unsigned char pat[24];
	uint64_t u;
	size_t i, at = 0, hits = 0;

	memcpy(&u, &b->yes, 8);
	put_le(pat, u, 8);
	memcpy(&u, &b->likely, 8);
	put_le(pat + 8, u, 8);
	memcpy(&u, &b->unsure, 8);
	put_le(pat + 16, u, 8);
	for (i = 0; i + 24 <= len; i++)
		if (!memcmp(buf + i, pat, 24)) {
			at = i;
			hits++;
		}
	assert_int_equal(hits, 1);
	return at;
}

/*
 * Verdict bands: chosen from validation scores by their targets, ordered,
 * written in the file and read back; a version 2 file gets them from its
 * threshold; out-of-order or non-finite cuts are refused.
 */
static void test_bands(void **st)
{
	enum { N = 200, V = 100 };
	static const struct {
		ss_bands b;
		const char *why;
	} bad[] = {
		{ { 0.5, 0.6, 0.1 }, "is corrupt: band cut points are out of order" },
		{ { NAN, 0.3, 0.1 }, "is corrupt: band cut points are not finite" },
		{ { 1.5, 0.3, 0.1 }, "is corrupt: band cut points are outside [0, 1]" },
	};
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(N, 10);
	size_t *idx = iota(N), len, at, i, k, above, pos;
	float vs[V];
	uint8_t vl[V];
	ss_bands b, good;
	unsigned char *buf;
	char path[128];
	ss_model *m, *l;

	(void)st;
	/* validation: scores i/V, positive above 0.7 and every other one in
	 * [0.5, 0.7): precision 1 at 0.7, recall 0.95 needs the cut near 0.52 */
	for (i = 0; i < V; i++) {
		vs[i] = (float)i / V;
		vl[i] = i >= 70 || (i >= 50 && i % 2 == 0);
	}
	assert_int_equal(ss_bands_choose(&b, vs, vl, V, 0.6f, 1), 0);
	assert_int_equal(ss_bands_check(&b), 0);
	assert_float_equal(b.likely, 0.6, 1e-6);
	/* the lowest cut >= threshold whose precision reaches 0.9 with a
	 * margin (the Wilson bound at z = 1.64): at 0.64, 33 of 36 (0.917)
	 * is not enough, nor 31 of 32 at 0.68 (bound 0.872); 30 of 30 at
	 * 0.70 is (bound 0.918) */
	for (i = 0, above = 0, pos = 0; i < V; i++)
		if (vs[i] >= b.yes) {
			above++;
			pos += vl[i];
		}
	assert_true((double)pos >= SS_BANDS_YES_PRECISION * (double)above);
	assert_float_equal(b.yes, 0.70, 1e-6);
	/* unsure: 40 positives cannot promise the no band 5% with the
	 * margin (40 of 40 has the bound 0.937): no "no" band at all */
	assert_float_equal(b.unsure, 0.0, 0);
	assert_int_equal(ss_bands_classify(&b, 0.99f), SS_BAND_YES);
	assert_int_equal(ss_bands_classify(&b, 0.6f), SS_BAND_LIKELY);
	assert_int_equal(ss_bands_classify(&b, 0.01f), SS_BAND_UNSURE);
	/* 800 positives (scores i/2000: all from 0.7 up, every other one in
	 * [0.5, 0.7)): the cut leaves 29 of them below it, not the 40 (5%)
	 * of the raw target, at 0.529 instead of 0.540 */
	{
		enum { V2 = 2000 };
		float *s2 = malloc(V2 * sizeof(*s2));
		uint8_t *l2 = malloc(V2);

		assert_non_null(s2);
		assert_non_null(l2);
		for (i = 0; i < V2; i++) {
			s2[i] = (float)i / V2;
			l2[i] = i >= 1400 || (i >= 1000 && i % 2 == 0);
		}
		assert_int_equal(ss_bands_choose(&b, s2, l2, V2, 0.8f, 1), 0);
		assert_int_equal(ss_bands_check(&b), 0);
		for (i = 0, k = 0, pos = 0; i < V2; i++) {
			pos += l2[i];
			k += l2[i] && s2[i] < b.unsure;
		}
		assert_int_equal(pos, 800);
		assert_int_equal(k, 29);
		assert_float_equal(b.unsure, 0.529, 1e-6);
		assert_int_equal(ss_bands_classify(&b, (float)b.unsure), SS_BAND_UNSURE);
		assert_int_equal(ss_bands_classify(&b, 0.01f), SS_BAND_NO);
		free(s2);
		free(l2);
	}
	/* no precision target reached: a calibrated p of the target itself */
	for (i = 0; i < V; i++)
		vl[i] = i % 2;
	assert_int_equal(ss_bands_choose(&b, vs, vl, V, 0.3f, 1), 0);
	assert_float_equal(b.yes, SS_BANDS_YES_PRECISION, 1e-9);
	assert_int_equal(ss_bands_check(&b), 0);
	/* ... and for scores that are not probabilities, no yes at all */
	assert_int_equal(ss_bands_choose(&b, vs, vl, V, 0.3f, 0), 0);
	assert_float_equal(b.yes, SS_BANDS_NEVER, 0);
	assert_int_equal(ss_bands_check(&b), 0);
	assert_int_equal(ss_bands_classify(&b, 1.0f), SS_BAND_LIKELY);
	assert_int_equal(ss_bands_choose(&b, vs, vl, V, 0.3f, 1), 0);
	/* --threshold moves likely and keeps the order */
	ss_bands_set_likely(&b, 0.95);
	assert_int_equal(ss_bands_check(&b), 0);
	assert_float_equal(b.yes, 0.95, 1e-9);
	assert_string_equal(ss_band_name(SS_BAND_WAIT), "wait");

	/* a trained model's bands: ordered, likely at its threshold, kept in the file */
	path_in_tmp(path, sizeof(path), "bands");
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, d, idx, N, &o), 0);
	good = *ss_model_bands(m);
	assert_int_equal(ss_bands_check(&good), 0);
	assert_float_equal(good.likely, ss_model_threshold(m), 1e-6);
	ss_model_get_info(m)->nlabelled = 4242;
	assert_int_equal(ss_model_save(m, path), 0);
	assert_int_equal(ss_model_load(&l, path), 0);
	assert_memory_equal(ss_model_bands(l), &good, sizeof(good));
	assert_int_equal(ss_model_info_of(l)->nlabelled, 4242);
	ss_model_free(l);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ss_model_set_bands(m, &bad[i].b);
		assert_int_equal(ss_model_save(m, path), 0);
		expect_refused(path, bad[i].why);
	}
	/* version 5: no training cut fields (the 12 bytes an empty cut
	 * takes after the cost): the cut read from the source's text, as
	 * format 5 kept it; a text that does not parse is no cut */
	ss_model_set_bands(m, &good);
	{
		static const char *const texts[] = {
			"git:r before 0123456789abcdef0123456789abcdef01234567 before "
			"89abcdef0123456789abcdef0123456789abcdef",
			"git:r authored before 1700000000", "git:r before main~3", "git:r" };
		static const uint32_t ncut[] = { 2, 0, 0, 0 };
		static const int64_t since[] = { 0, 1700000000, 0, 0 };
		ss_model_info *in = ss_model_get_info(m);
		size_t t;

		for (t = 0; t < 4; t++) {
			snprintf(in->source, sizeof(in->source), "%s", texts[t]);
			assert_int_equal(ss_model_save(m, path), 0);
			buf = read_all(path, &len);
			at = find_bands(buf, len, &good);
			cut_out(buf, &len, at + 52, 12);
			write_version(path, buf, len, 5);
			assert_int_equal(ss_model_load(&l, path), 0);
			assert_int_equal(ss_model_info_of(l)->ncut, ncut[t]);
			assert_int_equal(ss_model_info_of(l)->cut_since, since[t]);
			if (t == 0)
				assert_string_equal(ss_model_info_of(l)->cut[1],
						    "89abcdef0123456789abcdef0123456789abcdef");
			ss_model_free(l);
			free(buf);
		}
		snprintf(in->source, sizeof(in->source), "%s", "");
	}
	/* version 4: no nearest past decisions nor cost (the 16 bytes after
	 * the pick share; this model has no neighbours to remember) nor a
	 * cut (12 more): none, and the cost unknown */
	ss_model_set_bands(m, &good);
	assert_int_equal(ss_model_save(m, path), 0);
	buf = read_all(path, &len);
	at = find_bands(buf, len, &good);
	{
		size_t len4 = len;
		unsigned char *b4 = malloc(len);

		assert_non_null(b4);
		memcpy(b4, buf, len);
		cut_out(b4, &len4, at + 36, 28);
		write_version(path, b4, len4, 4);
		assert_true(ss_model_info_of(m)->cost > 0.0);
		assert_int_equal(ss_model_load(&l, path), 0);
		assert_int_equal(ss_model_info_of(l)->nlabelled, 4242);
		assert_true(ss_model_info_of(l)->cost == 0.0);
		ss_model_free(l);
		free(b4);
	}
	free(buf);
	/* version 3: no pick share (the 4 bytes after the count) nor what
	 * came later: 0, the threshold as it is; a share outside [0, 1] is
	 * refused */
	ss_model_set_bands(m, &good);
	ss_model_set_pick_share(m, 0.25f);
	assert_int_equal(ss_model_save(m, path), 0);
	buf = read_all(path, &len);
	at = find_bands(buf, len, &good);
	{
		size_t len3 = len;
		unsigned char *b3 = malloc(len);

		assert_non_null(b3);
		memcpy(b3, buf, len);
		cut_out(b3, &len3, at + 32, 32);
		write_version(path, b3, len3, 3);
		assert_int_equal(ss_model_load(&l, path), 0);
		assert_true(ss_model_pick_share(l) == 0.0f);
		assert_int_equal(ss_model_info_of(l)->nlabelled, 4242);
		ss_model_free(l);
		memcpy(b3, buf, len);
		put_le(b3 + at + 32, 0x3fc00000u, 4);  /* 1.5f */
		write_version(path, b3, len, SS_MODEL_FORMAT_VERSION);
		expect_refused(path, "is corrupt: its pick share is not in [0, 1]");
		free(b3);
	}
	/* version 2: no bands, no count, no share, no neighbours, no cost,
	 * no cut (64 bytes): bands from the threshold */
	cut_out(buf, &len, at, 64);
	write_version(path, buf, len, 2);
	assert_int_equal(ss_model_load(&l, path), 0);
	ss_bands_from_threshold(&b, ss_model_threshold(m));
	assert_memory_equal(ss_model_bands(l), &b, sizeof(b));
	assert_int_equal(ss_model_info_of(l)->nlabelled, 0);
	ss_model_free(l);
	/* the built-in model carries bands of its own */
	if (!ss_model_load_default(&l)) {
		assert_int_equal(ss_bands_check(ss_model_bands(l)), 0);
		ss_model_free(l);
	}
	ss_model_free(m);
	free(buf);
	unlink(path);
	free(idx);
	ss_dataset_free(d);
}

/* cosine of a and b without the named dense block, in double */
static double plain_cosine(const ss_svec *a, const ss_svec *b)
{
	double dot = 0, na = 0, nb = 0;
	size_t i, j;

	for (i = 0; i < a->n; i++)
		if (a->idx[i] >= SS_NDENSE)
			na += (double)a->val[i] * a->val[i];
	for (j = 0; j < b->n; j++)
		if (b->idx[j] >= SS_NDENSE)
			nb += (double)b->val[j] * b->val[j];
	for (i = 0, j = 0; i < a->n && j < b->n;) {
		if (a->idx[i] != b->idx[j]) {
			a->idx[i] < b->idx[j] ? i++ : j++;
			continue;
		}
		if (a->idx[i] >= SS_NDENSE)
			dot += (double)a->val[i] * b->val[j];
		i++, j++;
	}
	return na > 0 && nb > 0 ? dot / sqrt(na * nb) : 0.0;
}

/*
 * The nearest past decisions (models/near.c): a linear model trained
 * with them remembers what it learnt from; the precedents it gives for a
 * new commit are the brute-force nearest training examples by plain
 * cosine (a copy of the commit skipped), with their ids, subjects and
 * fates; a saved and loaded model gives the same neighbours and scores;
 * a count beyond SS_NEAR_K_MAX is refused; a model trained without them
 * remembers none.
 */
static void test_near(void **st)
{
	enum { N = 300, K = 5 };
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_dataset *d = synth_dataset(N, 10);
	size_t *idx = iota(N), i, j, q, n, ln, len, at;
	ss_model_neighbour nb[K], lb[K];
	float a[N], b[N];
	ss_model *m, *l, *plain;
	ss_svec x, *ex;
	uint32_t *remap;
	char path[128], id[41];
	unsigned char *buf;

	(void)st;
	o.near = SS_NEAR_K;
	o.threads = 1;
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, d, idx, N, &o), 0);
	assert_non_null(strstr(ss_model_info_of(m)->params, " near=10*"));
	/* every example's vector, for the brute force */
	ex = calloc(N, sizeof(*ex));
	assert_non_null(ex);
	assert_int_equal(ss_dataset_remap(&remap, ss_model_featurizer(m), d), 0);
	for (i = 0; i < N; i++) {
		ss_svec_init(&ex[i]);
		assert_int_equal(ss_dataset_vector(&ex[i], ss_model_featurizer(m), remap, d, i), 0);
	}
	free(remap);
	ss_svec_init(&x);
	for (q = 0; q < 6; q++) {
		ss_commit *c = synth(N + q, (int)(q % 2), id);
		double best[K];
		size_t nbest = 0, pos;

		assert_int_equal(ss_featurizer_vector(&x, ss_model_featurizer(m), c, NULL, NULL), 0);
		ss_commit_free(c);
		for (i = 0; i < N; i++) {
			double s = plain_cosine(&x, &ex[i]);

			if (s <= 0 || s >= 0.9999 || (nbest == K && s <= best[K - 1]))
				continue;
			pos = nbest < K ? nbest++ : K - 1;
			while (pos > 0 && best[pos - 1] < s) {
				best[pos] = best[pos - 1];
				pos--;
			}
			best[pos] = s;
		}
		n = ss_model_neighbours(nb, K, m, &x);
		assert_int_equal(n, nbest);
		for (j = 0; j < n; j++) {
			size_t e;

			/* float sums in posting order against double: 1e-5 */
			assert_true(fabs((double)nb[j].similarity - best[j]) < 1e-5);
			assert_int_equal(strlen(nb[j].id), 40);
			e = (size_t)strtoull(nb[j].id, NULL, 16) - 1;
			assert_true(e < N);
			assert_true(fabs(plain_cosine(&x, &ex[e]) - (double)nb[j].similarity) < 1e-5);
			assert_int_equal(nb[j].label, ss_dataset_example(d, e)->label);
			assert_string_equal(nb[j].subject, ss_dataset_subject(d, e));
			assert_true(nb[j].subject[0] != '\0');
			assert_true(nb[j].score > 0.0f && nb[j].score < 1.0f);
		}
	}
	/* a training example's own vector: itself skipped */
	n = ss_model_neighbours(nb, K, m, &ex[17]);
	for (j = 0; j < n; j++)
		assert_true(nb[j].similarity < 0.9999f);

	/* saved and loaded: the same neighbours, the same scores */
	path_in_tmp(path, sizeof(path), "near");
	assert_int_equal(ss_model_save(m, path), 0);
	assert_int_equal(ss_model_load(&l, path), 0);
	assert_string_equal(ss_model_info_of(l)->params, ss_model_info_of(m)->params);
	/* the cost is a field, the one the params name */
	assert_true(ss_model_info_of(l)->cost == ss_model_info_of(m)->cost);
	assert_true(ss_model_info_of(m)->cost > 0.0);
	{
		char want[32];

		snprintf(want, sizeof(want), "C=%g ", ss_model_info_of(m)->cost);
		assert_true(!strncmp(ss_model_info_of(m)->params, want, strlen(want)));
	}
	n = ss_model_neighbours(nb, K, m, &x);
	ln = ss_model_neighbours(lb, K, l, &x);
	assert_int_equal(n, ln);
	for (j = 0; j < n; j++) {
		assert_string_equal(nb[j].id, lb[j].id);
		assert_string_equal(nb[j].subject, lb[j].subject);
		assert_true(nb[j].similarity == lb[j].similarity);
		assert_true(nb[j].score == lb[j].score);
	}
	assert_int_equal(ss_model_score(a, m, d, idx, N), 0);
	assert_int_equal(ss_model_score(b, l, d, idx, N), 0);
	assert_memory_equal(a, b, sizeof(a));
	ss_model_free(l);
	/* a count of neighbours beyond the most a model may look at */
	buf = read_all(path, &len);
	at = find_bands(buf, len, ss_model_bands(m));
	put_le(buf + at + 40, SS_NEAR_K_MAX + 1, 4);
	write_version(path, buf, len, SS_MODEL_FORMAT_VERSION);
	expect_refused(path, "is corrupt: its nearest past decisions' weight or count is out of "
		       "range");
	free(buf);
	/* trained without them: no memory, no neighbours */
	o.near = 0;
	assert_int_equal(ss_model_train(&plain, SS_MODEL_LINEAR, d, idx, N, &o), 0);
	assert_null(strstr(ss_model_info_of(plain)->params, "near="));
	assert_int_equal(ss_model_neighbours(nb, K, plain, &x), 0);
	ss_model_free(plain);

	unlink(path);
	for (i = 0; i < N; i++)
		ss_svec_release(&ex[i]);
	free(ex);
	ss_svec_release(&x);
	ss_model_free(m);
	free(idx);
	ss_dataset_free(d);
}

/*
 * One example per patch: a copy of a patch in the same part folds into the
 * first (label 1 if any copy has it), a copy in a later part is dropped,
 * and every copy still joins the history; without folding all are kept.
 */
static void test_copies_one_example(void **state)
{
	static const char *const a[] = { " int x;", "-int y = 1;", "+int y = 2;", NULL };
	static const char *const b[] = { " int x;", "-int y = 1;", "+int y = 3;", NULL };
	const tc_file fa = { "net/a.c", NULL, a, SS_FILE_MODIFIED };
	const tc_file fb = { "net/a.c", NULL, b, SS_FILE_MODIFIED };
	/* patch, label, part */
	static const int plan[][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 1, 1 } };
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	int fold;

	(void)state;
	for (fold = 0; fold < 2; fold++) {
		ss_dataset_copies n;
		ss_dataset *d;
		size_t i;

		assert_int_equal(ss_dataset_new(&d, &o), 0);
		ss_dataset_set_fold_copies(d, fold);
		for (i = 0; i < 5; i++) {
			char id[41];
			ss_commit *c;

			snprintf(id, sizeof(id), "%040zx", i + 1);
			c = tc_commit(id, "dev@example.org", 1600000000LL + (long long)i * 3600,
				      "net: fix y\n\nFix it.\n", plan[i][0] ? &fb : &fa, 1);
			assert_non_null(c);
			assert_int_equal(ss_dataset_add(d, c, plan[i][1], (uint8_t)plan[i][2]), 0);
			ss_commit_free(c);
		}
		ss_dataset_copies_get(&n, d);
		assert_int_equal(ss_history_count(ss_dataset_history(d)), 5);
		if (!fold) {
			assert_int_equal(ss_dataset_count(d), 5);
			assert_int_equal(n.folded + n.dropped, 0);
		} else {
			/* 1 and 3 are one example, labelled 1; 4 drops (part 1 copy of
			 * a part 0 patch), 5 too */
			assert_int_equal(ss_dataset_count(d), 2);
			assert_string_equal(ss_dataset_example(d, 0)->id, "0000000000000000000000000000000000000001");
			assert_int_equal(ss_dataset_example(d, 0)->label, 1);
			assert_int_equal(ss_dataset_example(d, 1)->label, 0);
			assert_int_equal(n.folded, 1);
			assert_int_equal(n.relabelled, 1);
			assert_int_equal(n.dropped, 2);
		}
		ss_dataset_free(d);
	}
}

/* Split text into lines (in place); returns how many. */
static size_t split_lines(char *buf, char **line, size_t max)
{
	size_t n = 0;
	char *p = buf, *nl;

	while (*p && (nl = strchr(p, '\n'))) {
		*nl = '\0';
		if (n < max)
			line[n] = p;
		n++;
		p = nl + 1;
	}
	return n;
}

/* eval --dump-features: the rows, oldest first in each part, labels and
 * meta in step, the same whatever order the parts are given in. */
static void test_write_rows(void **st)
{
	enum { N = 60, NTR = 40 };
	ss_dataset *d = synth_dataset(N, 12);
	size_t tr[NTR], te[N - NTR], i;
	char *buf[2][3] = { { NULL } };
	size_t len[2][3];
	int pass;

	(void)st;
	for (pass = 0; pass < 2; pass++) {
		FILE *f[3];
		int k;

		for (i = 0; i < NTR; i++)
			tr[i] = pass ? NTR - 1 - i : i;   /* the second pass: newest first */
		for (i = 0; i < N - NTR; i++)
			te[i] = pass ? N - 1 - i : NTR + i;
		for (k = 0; k < 3; k++)
			assert_non_null(f[k] = open_memstream(&buf[pass][k], &len[pass][k]));
		assert_int_equal(ss_model_write_rows(d, tr, NTR, te, N - NTR, f[0], f[1], f[2]), 0);
		for (k = 0; k < 3; k++)
			fclose(f[k]);
	}
	for (i = 0; i < 3; i++)
		assert_string_equal(buf[0][i], buf[1][i]);
	{
		char *svm[N + 1], *meta[N + 2], *dense[SS_NDENSE + 1];
		long long last = 0;

		assert_int_equal(split_lines(buf[0][0], svm, N + 1), N);
		assert_int_equal(split_lines(buf[0][1], meta, N + 2), N + 1);
		assert_int_equal(split_lines(buf[0][2], dense, SS_NDENSE + 1), SS_NDENSE);
		assert_string_equal(meta[0], "sha\tpart\tlabel\ttagged\ttime");
		for (i = 0; i < N; i++) {
			char sha[64];
			unsigned part;
			int label, tagged;
			long long t;
			const ss_example *e = ss_dataset_example(d, i);
			const char *p = strchr(svm[i], ' ');
			long prev = -1;

			assert_int_equal(sscanf(meta[i + 1], "%63s %u %d %d %lld", sha, &part, &label,
						&tagged, &t), 5);
			assert_int_equal(part, i >= NTR);
			if (i != NTR)
				assert_true(t >= last);   /* oldest first within a part */
			last = t;
			/* synth() gives ids by time: row i is example i */
			assert_string_equal(sha, e->id);
			assert_int_equal(label, e->label);
			assert_int_equal(atoi(svm[i]), label);
			for (; p; p = strchr(p + 1, ' ')) {
				long ix = strtol(p + 1, NULL, 10);

				assert_true(ix > prev);   /* sorted, 0-based */
				prev = ix;
			}
			assert_true(prev >= 0);
		}
		assert_true(!strncmp(dense[0], "0\t", 2));
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < 3; i++)
			free(buf[pass][i]);
	ss_dataset_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keyword_and_tag),
		cmocka_unit_test(test_linear_fits_separable),
		cmocka_unit_test(test_mlp_fits_separable),
		cmocka_unit_test(test_mlp_gradient),
		cmocka_unit_test(test_mlp_deterministic),
		/* after: train_scores() leaves the synthetic data's seed as it was */
		cmocka_unit_test(test_linear_blas_threads),
		cmocka_unit_test(test_save_load_identical),
		cmocka_unit_test(test_bad_files_refused),
		cmocka_unit_test(test_nonfinite_refused),
		cmocka_unit_test(test_tag_refused),
		cmocka_unit_test(test_big_files_not_read),
		cmocka_unit_test(test_corrupt_reasons),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_near),
		cmocka_unit_test(test_copies_one_example),
		cmocka_unit_test(test_calibrated_known_probabilities),
		cmocka_unit_test(test_calibration_in_file),
		cmocka_unit_test(test_bands),
		cmocka_unit_test(test_write_rows),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	if (tmpdir[0])
		rmdir(tmpdir);
	return rc;
}
