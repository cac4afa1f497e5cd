/*
 * test_features.c - features of hand-made commits: code constructs in
 * added and removed lines, code metrics, paths, people and bots, trailers
 * and masking, words and subsystem prefixes, the vocabulary choice, the
 * agreement of the streaming (dataset) and direct (commit) vectors, and
 * the bug's history as features see it (src/history through
 * features/history.h): targets, releases by stream order and from a
 * releases file, fixes of fixes, reverts of released commits, no future.
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

#include <git2.h>

#include "testutil.h"

#include "commit/commit.h"
#include "features/features.h"
#include "source/source.h"
#include "models/dataset.h"
#include "models/options.h"
#include "util/error.h"

#include "testcommit.h"


static float dense(const ss_feat_raw *r, int f)
{
	return r->dense[f];
}

#define assert_count(r, f, n) assert_true(fabsf(dense(r, f) - log1pf((float)(n))) < 1e-6f)

static const char *const code_lines[] = {
	"+	if (!ptr)",
	"+		return -ENOMEM;",
	"+	spin_lock(&x->lock);",
	"+	goto out;",
	"-	kfree(p);",
	"+	WARN_ON(cnt > max);",
	"+	smp_mb();",
	"+	refcount_inc(&r->ref);",
	"+	if (len > size)",
	"+	else",
	" 	if (context_only == NULL)",
	"-	mutex_lock(&m);",
	"-	mutex_unlock(&m);",
	"-	of_node_put(np);",
	"+	/* if (commented) return goto; */",
	"+	pr_err(\"if return goto NULL\");",
	"+	spin_lock_init(&x->lock);",
	NULL
};

static void test_constructs(void **st)
{
	tc_file f = { "drivers/net/foo.c", "static int foo(void)", code_lines, SS_FILE_MODIFIED };
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_commit *c = tc_commit("1", "a@example.org", 1000, "net: fix foo\n\nBody.\n", &f, 1);
	ss_feat_raw r;

	(void)st;
	assert_non_null(c);
	ss_feat_raw_init(&r);
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	assert_count(&r, SS_F_NULL_ADD, 1);     /* !ptr; the NULL is context */
	assert_count(&r, SS_F_NULL_DEL, 0);
	assert_count(&r, SS_F_IF_ADD, 2);       /* comments and strings do not count */
	assert_count(&r, SS_F_ELSE_ADD, 1);
	assert_count(&r, SS_F_RET_ADD, 1);
	assert_count(&r, SS_F_GOTO_ADD, 1);
	assert_count(&r, SS_F_ERRNO_ADD, 1);
	assert_count(&r, SS_F_LOCK_ADD, 1);     /* spin_lock_init is no lock */
	assert_count(&r, SS_F_UNLOCK_ADD, 0);
	assert_count(&r, SS_F_LOCKBAL_ADD, 1);
	assert_count(&r, SS_F_LOCK_DEL, 1);
	assert_count(&r, SS_F_UNLOCK_DEL, 1);
	assert_count(&r, SS_F_LOCKBAL_DEL, 0);
	assert_count(&r, SS_F_FREE_DEL, 2);     /* kfree, of_node_put */
	assert_count(&r, SS_F_FREE_ADD, 0);
	assert_count(&r, SS_F_WARN_ADD, 1);
	assert_count(&r, SS_F_BARRIER_ADD, 1);
	assert_count(&r, SS_F_REF_ADD, 1);
	assert_count(&r, SS_F_BOUNDS_ADD, 1);   /* if (len > size) */
	assert_count(&r, SS_F_ADDED, 12);
	assert_count(&r, SS_F_REMOVED, 4);
	assert_count(&r, SS_F_FUNCS, 1);
	ss_feat_raw_release(&r);
	ss_commit_free(c);
}

static void test_constructs_only_in_code(void **st)
{
	tc_file f = { "Documentation/locking.rst", NULL, code_lines, SS_FILE_MODIFIED };
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_commit *c = tc_commit("1", "a@example.org", 1000, "doc: locking\n", &f, 1);
	ss_feat_raw r;

	(void)st;
	ss_feat_raw_init(&r);
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	assert_count(&r, SS_F_IF_ADD, 0);
	assert_count(&r, SS_F_LOCK_ADD, 0);
	assert_true(dense(&r, SS_F_SHARE_DOC) == 1.0f);
	ss_feat_raw_release(&r);
	ss_commit_free(c);
}

static int has_name(const ss_strbuf *names, const char *name)
{
	char want[256];

	snprintf(want, sizeof(want), "\t%s\n", name);
	return strstr(names->buf, want) != NULL;
}

static void test_metrics_and_paths(void **st)
{
	static const char *const one[] = { "+x", NULL };
	static const char *const two[] = { "+x", "-y", NULL };
	tc_file f[] = {
		{ "drivers/net/ethernet/foo/main.c", "int a(void)", two, SS_FILE_MODIFIED },
		{ "include/linux/foo.h", "struct foo {", one, SS_FILE_MODIFIED },
		{ "Documentation/networking/foo.rst", NULL, one, SS_FILE_ADDED },
		{ "arch/arm/boot/dts/board.dts", NULL, one, SS_FILE_DELETED },
		{ "drivers/net/Kconfig", "int a(void)", one, SS_FILE_MODIFIED },
	};
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_commit *c = tc_commit("2", "a@example.org", 1000, "foo: bar\n", f, 5);
	ss_strbuf names = SS_STRBUF_INIT;
	ss_feat_raw r;

	(void)st;
	ss_feat_raw_init(&r);
	r.names = &names;
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	assert_count(&r, SS_F_FILES, 5);
	assert_count(&r, SS_F_HUNKS, 5);
	assert_count(&r, SS_F_FUNCS, 2);
	assert_count(&r, SS_F_FILES_NEW, 1);
	assert_count(&r, SS_F_FILES_DEL, 1);
	assert_true(fabsf(dense(&r, SS_F_SHARE_C) - 0.2f) < 1e-6f);
	assert_true(fabsf(dense(&r, SS_F_SHARE_H) - 0.2f) < 1e-6f);
	assert_true(fabsf(dense(&r, SS_F_SHARE_DOC) - 0.2f) < 1e-6f);
	assert_true(fabsf(dense(&r, SS_F_SHARE_DT) - 0.2f) < 1e-6f);
	assert_true(fabsf(dense(&r, SS_F_SHARE_BUILD) - 0.2f) < 1e-6f);
	/* files, and directories at depths 1 to 3 only */
	assert_true(has_name(&names, "f:drivers/net/ethernet/foo/main.c"));
	assert_true(has_name(&names, "d:drivers"));
	assert_true(has_name(&names, "d:drivers/net"));
	assert_true(has_name(&names, "d:drivers/net/ethernet"));
	assert_false(has_name(&names, "d:drivers/net/ethernet/foo"));
	assert_true(has_name(&names, "f:arch/arm/boot/dts/board.dts"));
	assert_true(has_name(&names, "s:foo"));
	assert_true(has_name(&names, "a:a@example.org"));
	assert_true(has_name(&names, "c:maintainer@example.org"));
	ss_feat_raw_release(&r);
	ss_strbuf_release(&names);
	ss_commit_free(c);
}

static const char tagged_msg[] =
	"net/mlx5: Fix crash in foo_bar()\n"
	"\n"
	"The bug was found by syzbot; commit abcdef1234567 broke it.\n"
	"\n"
	"Fixes: 123456789abc (\"net/mlx5: add foo\")\n"
	"Cc: stable@vger.kernel.org\n"
	"\n"
	"Reported-by: syzbot+1234@syzkaller.appspotmail.com\n"
	"Link: https://lore.kernel.org/r/1\n"
	"Signed-off-by: Some One <one@example.org>\n"
	"Reviewed-by: Other Person <Other@Example.org>\n"
	"Acked-by: Third <third@example.org>\n";

struct words {
	char buf[4096];
	size_t n;
};

static void add_word(void *ctx, const char *w, size_t len)
{
	struct words *ws = ctx;

	ws->n += (size_t)snprintf(ws->buf + ws->n, sizeof(ws->buf) - ws->n, " %.*s", (int)len, w);
}

static int has_word(const ss_feat_raw *r, const char *word)
{
	const char *w = r->words.buf;
	size_t i;

	for (i = 0; i < r->nwords; i++, w += strlen(w) + 1)
		if (!strcmp(w, word))
			return 1;
	return 0;
}

static void test_message_people_trailers(void **st)
{
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_commit *c = tc_commit("3", "one@example.org", 1000, tagged_msg, NULL, 0);
	ss_strbuf names = SS_STRBUF_INIT;
	ss_feat_raw r;

	(void)st;
	assert_non_null(c);
	ss_feat_raw_init(&r);
	r.names = &names;
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	/* words of subject and body, lower-cased; shas and trailers left out */
	assert_true(has_word(&r, "fix"));
	assert_true(has_word(&r, "crash"));
	assert_true(has_word(&r, "foo_bar"));
	assert_true(has_word(&r, "bug"));
	assert_true(has_word(&r, "mlx5"));
	assert_false(has_word(&r, "abcdef1234567"));
	assert_false(has_word(&r, "signed"));
	assert_false(has_word(&r, "reviewed"));
	assert_false(has_word(&r, "stable"));
	assert_true(has_name(&names, "s:net/mlx5"));
	assert_true(has_name(&names, "s:net"));
	/* everyone in the trailers, by lower-cased address */
	assert_true(has_name(&names, "p:one@example.org"));
	assert_true(has_name(&names, "p:other@example.org"));
	assert_true(has_name(&names, "p:third@example.org"));
	assert_true(has_name(&names, "p:syzbot+1234@syzkaller.appspotmail.com"));
	assert_true(dense(&r, SS_F_BOT_SYZBOT) == 1.0f);
	assert_true(dense(&r, SS_F_BOT_LKP) == 0.0f);
	assert_count(&r, SS_F_N_SOB, 1);
	assert_count(&r, SS_F_N_REVIEWED, 1);
	assert_count(&r, SS_F_N_ACKED, 1);
	assert_true(dense(&r, SS_F_HAS_FIXES) == 1.0f);
	assert_true(dense(&r, SS_F_HAS_LINK) == 1.0f);
	assert_true(dense(&r, SS_F_HAS_REPORTED) == 1.0f);
	assert_true(dense(&r, SS_F_HAS_CLOSES) == 0.0f);
	assert_true(dense(&r, SS_F_HAS_STABLE) == 1.0f);

	/* masked: no trace of the tag, everything else unchanged */
	assert_int_equal(ss_commit_mask_stable(c), 0);
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	assert_true(dense(&r, SS_F_HAS_STABLE) == 0.0f);
	assert_true(dense(&r, SS_F_HAS_FIXES) == 1.0f);
	assert_false(strstr(names.buf, "stable@"));
	ss_feat_raw_release(&r);
	ss_strbuf_release(&names);
	ss_commit_free(c);
}

static void test_bots(void **st)
{
	static const struct {
		const char *msg;
		int f;
	} cases[] = {
		{ "x: y\n\nz\n\nReported-by: kernel test robot <lkp@intel.com>\nSigned-off-by: A <a@b>\n", SS_F_BOT_LKP },
		{ "x: y\n\nz\n\nCoverity issue: 12345\nSigned-off-by: A <a@b>\n", SS_F_BOT_COVERITY },
		{ "x: y\n\nSmatch warns about this.\n\nSigned-off-by: A <a@b>\n", SS_F_BOT_STATIC },
		{ "x: y\n\nz\n\nReported-by: Hulk Robot <hulkci@huawei.com>\nSigned-off-by: A <a@b>\n", SS_F_BOT_STATIC },
	};
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss_commit *c = tc_commit("4", "a@b", 1, cases[i].msg, NULL, 0);
		ss_feat_raw r;

		ss_feat_raw_init(&r);
		assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
		if (dense(&r, cases[i].f) != 1.0f)
			fail_msg("case %zu: feature %s not set", i, ss_dense_features[cases[i].f].name);
		assert_true(dense(&r, SS_F_BOT_SYZBOT) == 0.0f);
		ss_feat_raw_release(&r);
		ss_commit_free(c);
	}
}

static void test_subsystem(void **st)
{
	static const struct {
		const char *subject, *want;
	} cases[] = {
		{ "x86/mm: Fix boot", "x86/mm" },
		{ "net/mlx5: fix Rx", "net/mlx5" },
		{ "Revert \"sched/fair: Remove x\"", "sched/fair" },
		{ "perf tools: Fix build", "perf tools" },
		{ "This is a sentence: not a prefix", NULL },
		{ "no prefix at all", NULL },
		{ "drivers: net:fix", "drivers" },
		{ "fix:nospace", NULL },
	};
	char buf[80];
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = ss_feat_subsystem(buf, sizeof(buf), cases[i].subject);

		if (!cases[i].want) {
			assert_int_equal(n, 0);
		} else {
			assert_int_equal(n, strlen(cases[i].want));
			assert_string_equal(buf, cases[i].want);
		}
	}
}

static void test_words(void **st)
{
	struct words ws = { "", 0 };

	(void)st;
	ss_feat_words("Fix NULL-deref in rte_eth_dev_x() (v2): 0x1f, 42, deadbeef1, a", add_word, &ws);
	assert_string_equal(ws.buf, " fix null deref in rte_eth_dev_x v2 0x1f");
}

static void test_dataset_matches_commit_vector(void **st)
{
	static const char *const l1[] = { "+	if (!p)", "+		return -EINVAL;", NULL };
	static const char *const l2[] = { "-	spin_lock(&l);", NULL };
	tc_file f1 = { "lib/a.c", "void a(void)", l1, SS_FILE_MODIFIED };
	tc_file f2 = { "net/core/b.c", NULL, l2, SS_FILE_MODIFIED };
	const char *msgs[] = {
		"lib: fix a crash\n\nThe crash happens when p is NULL.\n\nSigned-off-by: A <a@x>\n",
		"net: fix a leak\n\nThe leak happens on error.\n\nSigned-off-by: B <b@x>\n",
		"lib: add a feature\n\nThe new feature.\n\nSigned-off-by: A <a@x>\n",
	};
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_commit *c[3];
	ss_dataset *d;
	ss_featurizer f;
	ss_history *h;
	uint32_t *remap;
	size_t idx[3] = { 0, 1, 2 }, i, k;
	ss_svec a, b;

	(void)st;
	o.min_df = 2;
	assert_int_equal(ss_dataset_new(&d, &o), 0);
	for (i = 0; i < 3; i++) {
		c[i] = tc_commit(i == 0 ? "a" : i == 1 ? "b" : "c", i == 1 ? "b@x" : "a@x",
				 (long long)i, msgs[i], i == 1 ? &f2 : &f1, 1);
		assert_int_equal(ss_dataset_add(d, c[i], i != 2, 0), 0);
	}
	assert_int_equal(ss_dataset_count(d), 3);
	assert_int_equal(ss_dataset_example(d, 0)->label, 1);
	assert_int_equal(ss_dataset_example(d, 0)->keyword, 1);
	assert_int_equal(ss_dataset_example(d, 2)->keyword, 0);

	/* vocabulary: words in >= 2 commits, most frequent first, ties alphabetic */
	assert_int_equal(ss_featurizer_init(&f, &o), 0);
	assert_int_equal(ss_dataset_vocab(&f, d, idx, 3), 0);
	assert_int_equal(ss_strmap_count(f.vocab), 4);
	assert_string_equal(ss_strmap_str(f.vocab, 0), "the");    /* 3 commits */
	assert_string_equal(ss_strmap_str(f.vocab, 1), "fix");    /* 2, alphabetic */
	assert_string_equal(ss_strmap_str(f.vocab, 2), "happens");
	assert_string_equal(ss_strmap_str(f.vocab, 3), "lib");
	assert_true(ss_strmap_find(f.vocab, "leak", 4) == SS_STRMAP_NONE);
	assert_int_equal(ss_featurizer_dim(&f), SS_NDENSE + 4 + (1u << o.hash_bits));

	assert_int_equal(ss_dataset_remap(&remap, &f, d), 0);
	assert_int_equal(ss_history_new(&h), 0);
	ss_svec_init(&a);
	ss_svec_init(&b);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ss_dataset_vector(&a, &f, remap, d, i), 0);
		assert_int_equal(ss_featurizer_vector(&b, &f, c[i], h, NULL), 0);
		assert_int_equal(ss_history_add(h, c[i]), 0);
		assert_int_equal(a.n, b.n);
		for (k = 0; k < a.n; k++) {
			assert_int_equal(a.idx[k], b.idx[k]);
			assert_true(a.val[k] == b.val[k]);
			assert_true(a.idx[k] < ss_featurizer_dim(&f));
			if (k)
				assert_true(a.idx[k] > a.idx[k - 1]);
		}
		ss_commit_free(c[i]);
	}
	/* a vocabulary size limit keeps the most frequent words */
	ss_featurizer_release(&f);
	o.vocab_size = 2;
	assert_int_equal(ss_featurizer_init(&f, &o), 0);
	assert_int_equal(ss_dataset_vocab(&f, d, idx, 3), 0);
	assert_int_equal(ss_strmap_count(f.vocab), 2);
	/* training on a part only sees that part's words */
	ss_featurizer_release(&f);
	o.vocab_size = 100;
	o.min_df = 1;
	assert_int_equal(ss_featurizer_init(&f, &o), 0);
	assert_int_equal(ss_dataset_vocab(&f, d, idx + 2, 1), 0);
	assert_true(ss_strmap_find(f.vocab, "leak", 4) == SS_STRMAP_NONE);
	assert_true(ss_strmap_find(f.vocab, "feature", 7) != SS_STRMAP_NONE);
	ss_svec_release(&a);
	ss_svec_release(&b);
	ss_history_free(h);
	free(remap);
	ss_featurizer_release(&f);
	ss_dataset_free(d);
}

/*
 * ss_svec_finish sorts by index and merges repeats to their largest value,
 * whatever the order of the input: against a dense reference on random
 * vectors (with many repeats, sorted, reversed, all equal), including the
 * sizes of one hostile commit.
 */
static void test_svec_finish_matches_reference(void **st)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 17, 256, 1000, 65537, 300000 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t s, mode;

	(void)st;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (mode = 0; mode < 4; mode++) {
			size_t n = sizes[s], range = mode == 3 ? 1 : n / 2 + 1, i, k = 0;
			float *ref = calloc(range, sizeof(*ref));
			ss_svec v;

			assert_non_null(ref);
			ss_svec_init(&v);
			for (i = 0; i < n; i++) {
				uint32_t idx;
				float val;

				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				if (mode == 1)
					idx = (uint32_t)(i * range / (n ? n : 1));  /* sorted */
				else if (mode == 2)
					idx = (uint32_t)((n - 1 - i) * range / n);  /* reversed */
				else
					idx = (uint32_t)((seed >> 33) % range);
				/* positive, as the featurizer's values are */
				val = (float)((seed >> 11) % 1000 + 1) / 7.0f;
				if (val > ref[idx])
					ref[idx] = val;
				assert_int_equal(ss_svec_push(&v, idx, val), 0);
			}
			ss_svec_finish(&v);
			for (i = 0; i < range; i++) {
				if (ref[i] == 0.0f)
					continue;
				assert_true(k < v.n);
				assert_int_equal(v.idx[k], i);
				assert_true(v.val[k] == ref[i]);
				k++;
			}
			assert_int_equal(k, v.n);
			ss_svec_release(&v);
			free(ref);
		}
	}
}

static void test_history(void **st)
{
	static const char *const l[] = { "+x", NULL };
	tc_file old = { "lib/old.c", NULL, l, SS_FILE_MODIFIED };
	tc_file young = { "lib/young.c", NULL, l, SS_FILE_ADDED };
	const long long day = 86400, t0 = 1600000000;
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_commit *a = tc_commit("aaaaaaaaaaaa1111111111111111111111111111", "x@y", t0,
				 "lib: add old\n", &old, 1);
	ss_commit *rel = tc_commit("bbbbbbbbbbbb1111111111111111111111111111", "x@y", t0 + 100 * day,
				   "version: 21.02.0\n", NULL, 0);
	ss_commit *b = tc_commit("cccccccccccc1111111111111111111111111111", "x@y", t0 + 200 * day,
				 "lib: add young\n", &young, 1);
	ss_commit *fix_old = tc_commit("dddddddddddd1111111111111111111111111111", "x@y", t0 + 400 * day,
				       "lib: fix old\n\nx\n\nFixes: aaaaaaaaaaaa (\"lib: add old\")\n", &old, 1);
	ss_commit *fix_young = tc_commit("eeeeeeeeeeee1111111111111111111111111111", "x@y", t0 + 230 * day,
					 "lib: fix young\n\nx\n\nFixes: ccccccc (\"lib: add young\")\n", &young, 1);
	ss_commit *fix_unknown = tc_commit("ffffffffffff1111111111111111111111111111", "x@y", t0 + 230 * day,
					   "lib: fix\n\nx\n\nFixes: 0123456789ab (\"x\")\n", &old, 1);
	ss_commit *rc1 = tc_commit("1", "x@y", 1, "version: 21.05-rc1\n", NULL, 0);
	/* systemd's forms: "Follow-up for <sha>." and "Fixes <sha>" in prose;
	 * "Fixes: #N" names an issue, no commit */
	ss_commit *follow_young = tc_commit("eeeeeeeeeeee2222222222222222222222222222", "x@y", t0 + 230 * day,
					    "lib: fix young\n\nx\n\nFollow-up for cccccccccccc1111.\n\nSniff.\n",
					    &young, 1);
	ss_commit *prose_old = tc_commit("dddddddddddd2222222222222222222222222222", "x@y", t0 + 400 * day,
					 "lib: fix old\n\nFixes aaaaaaaaaaaa1111\n", &old, 1);
	ss_commit *issue = tc_commit("dddddddddddd3333333333333333333333333333", "x@y", t0 + 400 * day,
				     "lib: fix old\n\nx\n\nFixes: #1234\n", &old, 1);
	ss_histidx_commit hc;
	ss_histidx_facts f;
	ss_strbuf names = SS_STRBUF_INIT;
	ss_history *h;
	ss_feat_raw r;

	(void)st;
	/* positions in one (unnamed) source, as a reader numbers them */
	a->index = 0;
	rel->index = 1;
	b->index = 2;
	fix_old->index = fix_young->index = fix_unknown->index = 3;
	follow_young->index = prose_old->index = issue->index = 3;
	assert_true(ss_history_is_release(rel));
	assert_false(ss_history_is_release(rc1));
	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_history_add(h, a), 0);
	assert_int_equal(ss_history_add(h, rel), 0);
	assert_int_equal(ss_history_add(h, b), 0);
	assert_int_equal(ss_history_count(h), 3);
	assert_int_equal(ss_histidx_lookup_prefix(&hc, 1, ss_history_index(h), "AAAAAAAAAAAA"), 1);
	assert_true(hc.time == t0);
	assert_int_equal(ss_histidx_lookup_prefix(&hc, 1, ss_history_index(h), "ccccccc"), 1);
	assert_true(hc.time == t0 + 200 * day);
	assert_int_equal(ss_histidx_lookup_prefix(&hc, 1, ss_history_index(h), "0123456"), 0);
	/* the release commit of the stream is its one release */
	assert_int_equal(ss_releases_count(ss_history_releases(h)), 1);
	assert_string_equal(ss_releases_get(ss_history_releases(h), 0)->tag, "21.02.0");
	assert_true(ss_releases_get(ss_history_releases(h), 0)->time == t0 + 100 * day);
	assert_true(ss_history_path_time(h, "lib/young.c") == t0 + 200 * day);
	/* the facts the features come from: one call per commit */
	assert_int_equal(ss_history_facts(&f, h, fix_old), 0);
	assert_true(f.target_found && f.released_before_fix);
	assert_int_equal(f.releases_since, 1);
	assert_string_equal(f.first_release_tag, "21.02.0");
	assert_true(f.age_days == 400.0);
	assert_false(f.fix_of_fix);

	ss_feat_raw_init(&r);
	/* a 400-day-old target across one release, in a 400-day-old file */
	assert_int_equal(ss_feat_extract(&r, fix_old, h, &o), 0);
	assert_true(dense(&r, SS_F_FIX_FOUND) == 1 && dense(&r, SS_F_FIX_UNKNOWN) == 0);
	assert_count(&r, SS_F_FIX_AGE, 400);
	assert_true(dense(&r, SS_F_FIX_GT365) == 1 && dense(&r, SS_F_FIX_LT90) == 0);
	assert_true(dense(&r, SS_F_FIX_REL1) == 1 && dense(&r, SS_F_FIX_REL0) == 0);
	assert_count(&r, SS_F_FILE_AGE_MIN, 400);
	/* the release line the bug shipped in ("02" of 21.02.0) */
	ss_feat_raw_reset(&r);
	r.names = &names;
	assert_int_equal(ss_feat_extract(&r, fix_old, h, &o), 0);
	assert_non_null(strstr(names.buf, "\tr:02\n"));
	assert_null(strstr(names.buf, "\th:"));
	r.names = NULL;
	assert_true(dense(&r, SS_F_FILES_NEW365) == 0);
	/* a 30-day-old target by 7-digit id, never released, in a young file */
	assert_int_equal(ss_feat_extract(&r, fix_young, h, &o), 0);
	assert_true(dense(&r, SS_F_FIX_LT90) == 1 && dense(&r, SS_F_FIX_GT365) == 0);
	assert_true(dense(&r, SS_F_FIX_REL0) == 1);
	assert_count(&r, SS_F_FILE_AGE_MAX, 30);
	assert_true(dense(&r, SS_F_FILES_NEW180) == 1);
	/* the same from "Follow-up for <sha>.": the bug never shipped */
	assert_int_equal(ss_feat_extract(&r, follow_young, h, &o), 0);
	assert_true(dense(&r, SS_F_FIX_FOUND) == 1 && dense(&r, SS_F_HAS_FIXES) == 1);
	assert_true(dense(&r, SS_F_FIX_LT90) == 1 && dense(&r, SS_F_FIX_REL0) == 1);
	/* "Fixes <sha>" without a colon: a target across one release */
	assert_int_equal(ss_feat_extract(&r, prose_old, h, &o), 0);
	assert_true(dense(&r, SS_F_FIX_FOUND) == 1 && dense(&r, SS_F_FIX_REL1) == 1 &&
		    dense(&r, SS_F_FIX_REL0) == 0);
	/* an issue: a closes-like reference, no target to look for */
	assert_int_equal(ss_feat_extract(&r, issue, h, &o), 0);
	assert_true(dense(&r, SS_F_HAS_FIXES) == 0 && dense(&r, SS_F_HAS_CLOSES) == 1);
	assert_true(dense(&r, SS_F_FIX_FOUND) == 0 && dense(&r, SS_F_FIX_REL0) == 0);
	/* a target older than the data */
	assert_int_equal(ss_feat_extract(&r, fix_unknown, h, &o), 0);
	assert_true(dense(&r, SS_F_FIX_UNKNOWN) == 1 && dense(&r, SS_F_FIX_FOUND) == 0);
	assert_true(dense(&r, SS_F_FIX_GT365) == 1 && dense(&r, SS_F_FIX_REL2) == 1);
	/* no history: nothing is known */
	assert_int_equal(ss_feat_extract(&r, fix_old, NULL, &o), 0);
	assert_true(dense(&r, SS_F_FIX_UNKNOWN) == 1 && dense(&r, SS_F_FIX_REL2) == 0);
	ss_feat_raw_release(&r);
	ss_strbuf_release(&names);
	ss_history_free(h);
	ss_commit_free(a);
	ss_commit_free(rel);
	ss_commit_free(b);
	ss_commit_free(fix_old);
	ss_commit_free(fix_young);
	ss_commit_free(fix_unknown);
	ss_commit_free(follow_young);
	ss_commit_free(prose_old);
	ss_commit_free(issue);
	ss_commit_free(rc1);
}

/* The built-in Linux releases: a "-" sha is a release placed by date. */
static void test_linux_releases_table(void **st)
{
	static const char tsv[] = "tag\tsha\tdate\nv6.5\t-\t1693166400\nv6.6-rc1\t-\t1694300000\n"
				  "v6.6\t-\t1698696000\n";
	const ss_release *x;
	ss_releases *r;
	size_t i, n;
	int v66 = 0;

	(void)st;
	assert_int_equal(ss_releases_parse_tsv(&r, tsv, sizeof(tsv) - 1, "t"), 0);
	assert_int_equal(ss_releases_count(r), 2); /* -rc left out */
	assert_string_equal(ss_releases_get(r, 1)->tag, "v6.6");
	assert_string_equal(ss_releases_get(r, 1)->sha, "");
	assert_int_equal(ss_releases_add(r, "v6.7", "", 1704657600), 0);
	assert_int_equal(ss_releases_count(r), 3); /* no sha: no duplicate */
	ss_releases_free(r);
	assert_true(ss_releases_parse_tsv(&r, "tag\tsha\tdate\nv1.0\tx\t5\n", 23, "t") < 0);

	assert_int_equal(ss_releases_linux(&r), 0);
	n = ss_releases_count(r);
	assert_true(n >= 59);
	for (i = 0; i < n; i++) {
		x = ss_releases_get(r, i);
		if (i)
			assert_true(x->time > ss_releases_get(r, i - 1)->time);
		if (!strcmp(x->tag, "v6.6")) {
			v66 = 1;
			/* released on 2023-10-30 */
			assert_true(x->time >= 1698624000 && x->time < 1698710400);
		}
	}
	assert_true(v66);
	ss_releases_free(r);
}

/*
 * Kernel mail has no release commits: once the history met a kernel path
 * it uses the built-in releases, so a fix of a commit that shipped two
 * releases earlier is "released" (fixes_target_2plus_releases); a DPDK
 * history does not.
 */
static void test_linux_releases_by_default(void **st)
{
	static const char *const l[] = { "+x", NULL };
	tc_file kfile = { "arch/x86/kernel/cpu/bugs.c", NULL, l, SS_FILE_MODIFIED };
	tc_file dfile = { "lib/eal/common/eal.c", NULL, l, SS_FILE_MODIFIED };
	const long long t_target = 1688169600;   /* 2023-07-01: before v6.5, v6.6 */
	const long long t_fix = 1704931200;      /* 2024-01-11: after v6.7 */
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	int kernel;

	(void)st;
	for (kernel = 0; kernel < 2; kernel++) {
		const tc_file *f = kernel ? &kfile : &dfile;
		ss_commit *a = tc_commit("aaaaaaaaaaaa2222222222222222222222222222", "x@y", t_target,
					 "x86: add it\n", f, 1);
		ss_commit *fix = tc_commit("bbbbbbbbbbbb2222222222222222222222222222", "x@y", t_fix,
					   "x86: fix it\n\nx\n\nFixes: aaaaaaaaaaaa (\"x86: add it\")\n",
					   f, 1);
		ss_history *h;
		ss_feat_raw r;

		assert_int_equal(ss_history_new(&h), 0);
		assert_false(ss_history_uses_linux_releases(h));
		assert_int_equal(ss_history_add(h, a), 0);
		assert_int_equal(ss_history_uses_linux_releases(h), kernel);
		ss_feat_raw_init(&r);
		assert_int_equal(ss_feat_extract(&r, fix, h, &o), 0);
		assert_true(dense(&r, SS_F_FIX_FOUND) == 1);
		if (kernel) {
			/* v6.5, v6.6 and v6.7 came between target and fix */
			assert_true(dense(&r, SS_F_FIX_REL2) == 1 && dense(&r, SS_F_FIX_REL0) == 0);
			assert_true(ss_releases_count(ss_history_releases(h)) >= 59);
		} else {
			assert_true(dense(&r, SS_F_FIX_REL2) == 0 && dense(&r, SS_F_FIX_REL1) == 0 &&
				    dense(&r, SS_F_FIX_REL0) == 0);
			assert_int_equal(ss_releases_count(ss_history_releases(h)), 0);
		}
		ss_feat_raw_release(&r);
		ss_history_free(h);
		ss_commit_free(a);
		ss_commit_free(fix);
	}
}

static void count_effect(void *ctx, const char *name)
{
	ss_strbuf *sb = ctx;

	ss_strbuf_addf(sb, "%s,", name);
}

/* The effects group names what the message says the bug did. */
static void test_effects(void **st)
{
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_commit *bad = tc_commit("1", "x@y", 1000,
				   "x86/mm: Fix a NULL pointer dereference\n\n"
				   "The kernel crashes with a use-after-free when the page leaks:\n"
				   "  Call Trace:\n   foo+0x1/0x2\n\nSigned-off-by: A <a@b>\n", NULL, 0);
	ss_commit *clean = tc_commit("2", "x@y", 1000,
				     "x86/mm: Clean up comments\n\nTrace the abstraction, embrace "
				     "the fix (untraced); no functional change.\n\n"
				     "Reported-by: Crash Leak <oops@b>\n", NULL, 0);
	ss_strbuf names = SS_STRBUF_INIT, eff = SS_STRBUF_INIT;
	ss_feat_raw r;

	(void)st;
	assert_int_equal(ss_feat_effects(bad, count_effect, &eff), 5);
	assert_string_equal(eff.buf, "crash,null_deref,leak,memory_safety,splat,");
	assert_int_equal(ss_feat_effects(clean, count_effect, &eff), 0);

	ss_feat_raw_init(&r);
	r.names = &names;
	assert_int_equal(ss_feat_extract(&r, bad, NULL, &o), 0);
	assert_null(strstr(names.buf, "\te:")); /* not a default group */
	o.groups |= SS_FG_EFFECTS;
	ss_feat_raw_reset(&r);
	ss_strbuf_reset(&names);
	assert_int_equal(ss_feat_extract(&r, bad, NULL, &o), 0);
	assert_non_null(strstr(names.buf, "\te:crash\n"));
	assert_non_null(strstr(names.buf, "\te:null_deref\n"));
	assert_non_null(strstr(names.buf, "\te:any\n"));
	assert_null(strstr(names.buf, "\te:hang\n"));
	ss_feat_raw_reset(&r);
	ss_strbuf_reset(&names);
	assert_int_equal(ss_feat_extract(&r, clean, NULL, &o), 0);
	assert_true(!names.buf || !strstr(names.buf, "\te:"));
	ss_feat_raw_release(&r);
	ss_strbuf_release(&names);
	ss_strbuf_release(&eff);
	ss_commit_free(bad);
	ss_commit_free(clean);
}

/* The series group reads the patch's number from its Link: message id. */
static void test_series_position(void **st)
{
	static const struct {
		const char *link;
		int pos;
	} cases[] = {
		{ "https://lore.kernel.org/r/20230101120000.12345-3-who@example.org", 3 },
		{ "https://lore.kernel.org/r/20230101120000.12345-1-who@example.org/", 1 },
		{ "https://lkml.kernel.org/r/1563900266-19734-2-git-send-email-who@example.org", 2 },
		{ "https://lore.kernel.org/r/20230106-fix-build-v2-11-b704d9831d02@kernel.org", 11 },
		{ "https://patch.msgid.link/20240101120000.777-4-who@example.org", 4 },
		{ "https://patch.msgid.link/20240101.777-4-who@example.org", 0 },
		{ "https://lore.kernel.org/all/20230101120000.12345-5-who%40example.org/T/", 5 },
		{ "https://lore.kernel.org/r/20190805195654.GA17831@embeddedor", 0 },
		{ "https://bugzilla.kernel.org/show_bug.cgi?id=123", -1 },
		{ NULL, -1 },
	};
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	char msg[512];
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss_commit *c;

		if (cases[i].link)
			snprintf(msg, sizeof(msg), "x: fix\n\nbody\n\nLink: %s\nSigned-off-by: A <a@b>\n",
				 cases[i].link);
		else
			snprintf(msg, sizeof(msg), "x: fix\n\nbody\n\nSigned-off-by: A <a@b>\n");
		c = tc_commit("1", "x@y", 1000, msg, NULL, 0);
		assert_int_equal(ss_feat_series_position(c), cases[i].pos);
		ss_commit_free(c);
	}
	{
		ss_commit *c = tc_commit("1", "x@y", 1000,
					 "x: fix\n\nbody\n\nLink: https://lore.kernel.org/r/"
					 "20230101120000.12345-1-who@example.org\n", NULL, 0);
		ss_strbuf names = SS_STRBUF_INIT;
		ss_feat_raw r;

		o.groups = SS_FG_SERIES;
		ss_feat_raw_init(&r);
		r.names = &names;
		assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
		assert_string_equal(strchr(names.buf, '\t'), "\tl:part_1\n");
		ss_feat_raw_release(&r);
		ss_strbuf_release(&names);
		ss_commit_free(c);
	}
}

/* The timing group: author-to-committer lag and the week of the cycle. */
static void test_timing(void **st)
{
	static const char *const l[] = { "+x", NULL };
	tc_file kfile = { "arch/x86/kernel/cpu/bugs.c", NULL, l, SS_FILE_MODIFIED };
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	/* authored 2023-11-01, committed 2023-11-13: 13 days after v6.6 */
	ss_commit *a = tc_commit("1", "x@y", 1698710400 + 86400, "x86: a\n", &kfile, 1);
	ss_commit *c = tc_commit("2", "x@y", 1698796800, "x86: b\n", &kfile, 1);
	ss_strbuf names = SS_STRBUF_INIT;
	ss_history *h;
	ss_feat_raw r;

	(void)st;
	c->committer.time = 1699833600;
	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_history_add(h, a), 0);
	o.groups = SS_FG_TIMING;
	ss_feat_raw_init(&r);
	r.names = &names;
	assert_int_equal(ss_feat_extract(&r, c, h, &o), 0);
	assert_non_null(strstr(names.buf, "\tt:lag_7_29d\n"));
	assert_non_null(strstr(names.buf, "\tt:week_1\n"));
	ss_feat_raw_reset(&r);
	ss_strbuf_reset(&names);
	/* no releases: the lag only */
	assert_int_equal(ss_feat_extract(&r, a, NULL, &o), 0);
	assert_non_null(strstr(names.buf, "\tt:lag_0d\n"));
	assert_null(strstr(names.buf, "\tt:week"));
	ss_feat_raw_release(&r);
	ss_strbuf_release(&names);
	ss_history_free(h);
	ss_commit_free(a);
	ss_commit_free(c);
}

/* A commit of the mail source "m.mbox" at position index. */
static ss_commit *tc_mail(const char *id, size_t index, long long time, const char *msg)
{
	ss_commit *c = tc_commit(id, "x@y", time, msg, NULL, 0);

	c->source = "m.mbox";
	c->index = index;
	return c;
}

static void test_history_order_releases_and_kinds(void **st)
{
	const long long day = 86400, t0 = 1600000000;
	const char *ida = "a000000000000000000000000000000000000001";
	const char *idr = "b000000000000000000000000000000000000002";
	ss_commit *c[7];
	char tsv[] = "/tmp/test_features_releases_XXXXXX";
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_strbuf names = SS_STRBUF_INIT;
	ss_histidx_facts f;
	ss_history *h;
	ss_feat_raw r;
	FILE *fp;
	int fd;
	size_t i;

	(void)st;
	fd = mkstemp(tsv);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	/* v21.11 is the release commit of the stream; v22.02 comes after
	 * every commit here and must never count */
	fprintf(fp, "tag\tsha\tdate\nv21.11\t%s\t%lld\nv22.02-rc1\t%s\t%lld\n"
		"v22.02\tc000000000000000000000000000000000000003\t%lld\n",
		idr, t0 + 100 * day, idr, t0 + 350 * day, t0 + 400 * day);
	fclose(fp);

	c[0] = tc_mail(ida, 0, t0, "lib: add foo\n\nx\n");
	c[1] = tc_mail("a100000000000000000000000000000000000004", 1, t0 + 10 * day,
		       "lib: fix foo\n\nx\n\nFixes: a00000000000 (\"lib: add foo\")\n");
	c[2] = tc_mail(idr, 2, t0 + 100 * day, "version: 21.11.0\n\nx\n");
	/* authored before the release date, but after it in the stream */
	c[3] = tc_mail("d000000000000000000000000000000000000005", 3, t0 + 90 * day,
		       "lib: fix foo again\n\nx\n\nFixes: a00000000000 (\"lib: add foo\")\n");
	c[4] = tc_mail("e000000000000000000000000000000000000006", 4, t0 + 150 * day,
		       "lib: fix the fix\n\nx\n\nFixes: a1000000000 (\"lib: fix foo\")\n");
	c[5] = tc_mail("f000000000000000000000000000000000000007", 5, t0 + 200 * day,
		       "Revert \"lib: add foo\"\n\nThis reverts commit a000000000000000000000000000000000000001.\n");
	c[6] = tc_mail("f100000000000000000000000000000000000008", 6, t0 + 300 * day,
		       "lib: fix bar\n\nx\n\nFixes: f0000000000 (\"Revert \\\"lib: add foo\\\"\")\n");

	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_history_load_releases(h, tsv, NULL, NULL), 0);
	assert_int_equal(ss_releases_count(ss_history_releases(h)), 2); /* no -rc */
	ss_feat_raw_init(&r);
	r.names = &names;
	for (i = 0; i < 7; i++) {
		assert_int_equal(ss_history_facts(&f, h, c[i]), 0);
		assert_int_equal(ss_feat_extract(&r, c[i], h, &o), 0);
		/* v22.02 is after every commit: never a release before a fix */
		assert_true(f.releases_before_fix <= 1 && f.last_release_before_fix <= 0);
		switch (i) {
		case 1: /* a 10-day-old bug, no release yet */
			assert_true(f.target_found && !f.released_before_fix);
			assert_int_equal(f.releases_before_fix, 0);
			assert_true(dense(&r, SS_F_FIX_LT90) == 1);
			assert_true(dense(&r, SS_F_FIX_REL0) == 0); /* no release seen at all */
			break;
		case 3: /* by order, the bug shipped in v21.11 */
			assert_true(f.target_found && f.released_before_fix);
			assert_int_equal(f.method, SS_RELEASE_ORDER);
			assert_string_equal(f.first_release_tag, "v21.11");
			assert_true(dense(&r, SS_F_FIX_REL1) == 1 && dense(&r, SS_F_FIX_REL0) == 0);
			assert_non_null(strstr(names.buf, "\tr:11\n"));
			break;
		case 4: /* a fix of a fix that shipped */
			assert_true(f.fix_of_fix && f.released_before_fix);
			assert_non_null(strstr(names.buf, "\th:fix_of_fix\n"));
			assert_null(strstr(names.buf, "\th:revert_of_released\n"));
			break;
		case 5: /* the revert of a released commit */
			assert_true(f.revert_of_released && !f.fix_of_fix);
			assert_non_null(strstr(names.buf, "\th:revert_of_released\n"));
			break;
		case 6: /* its target came after the only past release */
			assert_true(f.target_found && !f.released_before_fix);
			assert_int_equal(f.releases_before_fix, 1);
			assert_true(dense(&r, SS_F_FIX_REL0) == 1);
			assert_null(strstr(names.buf, "\tr:"));
			break;
		default:
			assert_int_equal(f.ntargets, 0);
			assert_true(dense(&r, SS_F_FIX_FOUND) == 0 && dense(&r, SS_F_FIX_UNKNOWN) == 0);
		}
		assert_int_equal(ss_history_add(h, c[i]), 0);
	}
	/* with the releases file, the stream's release commit adds none */
	assert_int_equal(ss_releases_count(ss_history_releases(h)), 2);
	ss_feat_raw_release(&r);
	ss_strbuf_release(&names);
	ss_history_free(h);
	for (i = 0; i < 7; i++)
		ss_commit_free(c[i]);
	unlink(tsv);
}

/* The index stays right when look-ups and adds alternate (it sorts in
 * steps) and when the same id comes twice (the first copy wins). */
static void test_history_index_streaming(void **st)
{
	enum { N = 3000 };
	static char ids[N][41];
	ss_histidx_commit hc[16];
	ss_history *h;
	size_t i;

	(void)st;
	assert_int_equal(ss_history_new(&h), 0);
	for (i = 0; i < N; i++) {
		uint32_t x = (uint32_t)(i * 2654435761u);
		ss_commit *c;

		snprintf(ids[i], sizeof(ids[i]), "%08x%032zx", x, i);
		c = tc_commit(ids[i], "x@y", 1000 + (long long)i, i % 2 ? "odd\n" : "even\n", NULL, 0);
		/* not there before it is added, there right after */
		assert_int_equal(ss_histidx_lookup_prefix(hc, 16, ss_history_index(h), ids[i]), 0);
		assert_int_equal(ss_history_add(h, c), 0);
		ss_commit_free(c);
		assert_int_equal(ss_histidx_lookup_prefix(hc, 16, ss_history_index(h), ids[i]), 1);
		assert_true(hc[0].time == 1000 + (long long)i);
		assert_int_equal(ss_histidx_lookup_prefix(hc, 16, ss_history_index(h), ids[i / 2]), 1);
		assert_string_equal(hc[0].id, ids[i / 2]);
		if (i == 100) {
			/* a second copy of commit 7 (odd) as "even" */
			c = tc_commit(ids[7], "x@y", 5, "even\n", NULL, 0);
			assert_int_equal(ss_history_add(h, c), 0);
			ss_commit_free(c);
		}
		if (i >= 100 && i % 97 == 0) {
			assert_int_equal(ss_histidx_lookup_prefix(hc, 16, ss_history_index(h), ids[7]), 1);
			assert_string_equal(hc[0].subject, "odd");
		}
	}
	/* an abbreviated id shared by ids 0 and 1 (both "00000000..."/"9e3779b1...") */
	assert_int_equal(ss_histidx_lookup_prefix(hc, 16, ss_history_index(h), "0000"), 1);
	/* a 4-digit prefix matches several, listed in id order */
	{
		int n = ss_histidx_lookup_prefix(hc, 16, ss_history_index(h), "ff");
		size_t k, expect = 0;

		assert_true(n < 0); /* 2 digits: not an id */
		n = ss_histidx_lookup_prefix(hc, 16, ss_history_index(h), "fff0");
		for (k = 0; k < N; k++)
			expect += !strncmp(ids[k], "fff0", 4);
		assert_int_equal(n, (int)expect);
		for (k = 1; k < (size_t)n && k < 16; k++)
			assert_true(strcmp(hc[k - 1].id, hc[k].id) < 0);
	}
	assert_int_equal(ss_histidx_count(ss_history_index(h)), N);
	assert_int_equal(ss_histidx_lookup_prefix(hc, 16, ss_history_index(h), ids[7]), 1);
	assert_string_equal(hc[0].subject, "odd");
	ss_history_free(h);
}

/* With a repository's tags, the graph decides, but a release tagged after
 * the fix was committed (while the fix waited on a branch) is the fix's
 * future: it only counts once its commit came earlier in the stream. */
static const char graph_script[] =
	"set -eu\n"
	"cd \"$1\"\n"
	"GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null\n"
	"export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL\n"
	"unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE 2>/dev/null || true\n"
	"GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org\n"
	"GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.org\n"
	"export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL\n"
	"at() {\n"
	"  GIT_AUTHOR_DATE=\"$((1700000000 + $1 * 86400)) +0000\"\n"
	"  GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE\n"
	"  export GIT_AUTHOR_DATE GIT_COMMITTER_DATE\n"
	"}\n"
	"cm() { git commit -q --no-verify \"$@\"; }\n"
	"git -c init.defaultBranch=main init -q .\n"
	"git config commit.gpgsign false\n"
	"git config tag.gpgsign false\n"
	"echo a >a.c; git add -A; at 0; cm -m 'lib: add foo'\n"
	"A=$(git rev-parse HEAD | cut -c1-12)\n"
	"git checkout -q -b topic\n"
	"echo b >>a.c; git add -A; at 5; cm -m 'lib: fix foo' -m \"Fixes: $A (\\\"lib: add foo\\\")\"\n"
	"git checkout -q main\n"
	"echo r >NEWS; git add -A; at 10; cm -m 'release 1.0'; git tag v1.0\n"
	"at 20; git merge -q --no-ff -m 'Merge topic' topic\n"
	"echo c >>a.c; git add -A; at 25; cm -m 'lib: fix foo later' -m \"Fixes: $A (\\\"lib: add foo\\\")\"\n"
	"echo s >>NEWS; git add -A; at 30; cm -m 'release 2.0'; git tag v2.0\n";

static const ss_commit *graph_commit(ss_commit **c, size_t n, const char *subject)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(c[i]->subject, subject))
			return c[i];
	fail_msg("no commit '%s'", subject);
	return NULL;
}

static void test_history_graph_no_future(void **st)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_histidx_resolve_options ro = SS_HISTIDX_RESOLVE_OPTIONS_INIT;
	char *tmp = test_tmpdir(), repo[600], path[700];
	ss_commit *c[16], *one;
	const ss_commit *fix, *late;
	ss_histidx_facts f;
	ss_source *src;
	ss_history *h;
	size_t n = 0, i;

	(void)st;
	snprintf(repo, sizeof(repo), "%s/repo", tmp);
	snprintf(path, sizeof(path), "%s/make-repo.sh", tmp);
	test_write_file(path, graph_script, strlen(graph_script));
	assert_int_equal(test_run("mkdir '%s' && sh '%s' '%s' >'%s/log' 2>&1", repo, path, repo, tmp), 0);
	assert_int_equal(ss_source_open(&src, repo, &so), 0);
	while (n < 16 && !ss_source_next(&one, src))
		c[n++] = one;
	ss_source_free(src);
	assert_int_equal(n, 5); /* merges are not read */
	fix = graph_commit(c, n, "lib: fix foo");
	late = graph_commit(c, n, "lib: fix foo later");

	assert_int_equal(ss_history_new(&h), 0);
	assert_int_equal(ss_history_load_releases(h, NULL, repo, NULL), 0);
	assert_int_equal(ss_releases_count(ss_history_releases(h)), 2);
	assert_true(ss_releases_has_graph(ss_history_releases(h)));
	assert_int_equal(ss_history_add(h, graph_commit(c, n, "lib: add foo")), 0);
	/* the graph alone says v1.0 came before the fix ... */
	assert_int_equal(ss_histidx_resolve(&f, ss_history_index(h), fix, ss_history_releases(h), &ro), 0);
	assert_true(f.target_found && f.released_before_fix);
	assert_int_equal(f.method, SS_RELEASE_GRAPH);
	/* ... but v1.0 was tagged after the fix was committed */
	assert_int_equal(ss_history_facts(&f, h, fix), 0);
	assert_true(f.target_found && !f.released_before_fix);
	assert_int_equal(f.releases_before_fix, 0);
	/* once the release commit came earlier in the stream, it counts */
	assert_int_equal(ss_history_add(h, graph_commit(c, n, "release 1.0")), 0);
	assert_int_equal(ss_history_facts(&f, h, fix), 0);
	assert_true(f.released_before_fix);
	assert_string_equal(f.first_release_tag, "v1.0");
	assert_int_equal(ss_history_add(h, fix), 0);
	/* a later fix: v1.0 is in its past, v2.0 in its future */
	assert_int_equal(ss_history_facts(&f, h, late), 0);
	assert_true(f.released_before_fix);
	assert_int_equal(f.releases_since, 1);
	assert_int_equal(f.releases_before_fix, 1);
	assert_int_equal(f.method, SS_RELEASE_GRAPH);
	ss_history_free(h);
	for (i = 0; i < n; i++)
		ss_commit_free(c[i]);
	test_run("rm -rf '%s'", tmp);
	free(tmp);
}

static void test_groups_can_be_disabled(void **st)
{
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_commit *c = tc_commit("5", "one@example.org", 1000, tagged_msg, NULL, 0);
	ss_feat_raw r;
	size_t i;

	(void)st;
	o.groups = SS_FG_DEFAULT & ~(SS_FG_WORDS | SS_FG_PEOPLE | SS_FG_TRAILERS | SS_FG_HISTORY |
				     SS_FG_KEYS);
	ss_feat_raw_init(&r);
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	assert_int_equal(r.nwords, 0);
	for (i = 0; i < SS_NDENSE; i++)
		if (ss_dense_features[i].group & (SS_FG_WORDS | SS_FG_PEOPLE | SS_FG_TRAILERS | SS_FG_HISTORY))
			assert_true(r.dense[i] == 0.0f);
	assert_int_equal(r.nhashed, 2); /* s:net and s:net/mlx5 */
	ss_feat_raw_release(&r);
	ss_commit_free(c);
}

/* --features names every group, history included; unknown names fail. */
static void test_group_names(void **state)
{
	uint32_t g = 0;

	(void)state;
	assert_int_equal(ss_feat_groups_parse(&g, "history"), 0);
	assert_int_equal(g, SS_FG_HISTORY);
	assert_int_equal(ss_feat_groups_parse(&g, "words,paths,history"), 0);
	assert_int_equal(g, SS_FG_WORDS | SS_FG_PATHS | SS_FG_HISTORY);
	assert_int_equal(ss_feat_groups_parse(&g, "all"), 0);
	assert_int_equal(g, SS_FG_ALL);
	assert_int_equal(ss_feat_groups_parse(&g, "default,effects,timing,series"), 0);
	assert_int_equal(g, SS_FG_ALL);
	{
		ss_feat_options o = SS_FEAT_OPTIONS_INIT;

		assert_int_equal(o.groups, SS_FG_DEFAULT);
	}
	assert_true(ss_feat_groups_parse(&g, "words,bogus") < 0);
	assert_non_null(strstr(ss_error_last(), "bogus"));
}

/* Every kind of feature name in words (issue 23.7); JSON keeps the name. */
/* The keys group: a project's own "Key: value" lines anywhere in the
 * message and its links' places, each once; not the subject's prefix,
 * not a masked stable tag, nothing that names "stable". */
static void test_keys(void **st)
{
	static const char msg[] =
		"net: fix the lease\n"
		"\n"
		"The lease was lost.\n"
		"BUG: https://bugzilla.example.org/show_bug.cgi?id=15000\n"
		"See http://Tracker.Example.org:8080 and https://bugzilla.example.org/x\n"
		"Link: https://lore.kernel.org/stable/1234@x\n"
		"Not a key:value\n"
		"Two words: not a key either\n"
		"Empty:\n"
		"\n"
		"Stable-dep-of: 123456789012 (\"x\")\n"
		"Cc: stable@vger.kernel.org\n"
		"Resolves: #12\n"
		"Signed-off-by: A <a@example.org>\n"
		"Reviewed-by: B <b@example.org>\n";
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_strbuf names = SS_STRBUF_INIT;
	ss_commit *c = tc_commit("1", "a@example.org", 1000, msg, NULL, 0);
	ss_feat_raw r;
	const char *p;
	size_t n = 0;

	(void)st;
	ss_feat_raw_init(&r);
	r.names = &names;
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	assert_non_null(strstr(names.buf, "\tk:bug\n"));
	assert_non_null(strstr(names.buf, "\tk:resolves\n"));
	assert_non_null(strstr(names.buf, "\tk:signed-off-by\n"));
	assert_non_null(strstr(names.buf, "\tk:cc\n"));  /* unmasked: still a Cc line */
	assert_non_null(strstr(names.buf, "\tu:bugzilla.example.org\n"));
	assert_non_null(strstr(names.buf, "\tu:bugzilla.example.org/show_bug.cgi\n"));
	assert_non_null(strstr(names.buf, "\tu:bugzilla.example.org/x\n"));
	assert_non_null(strstr(names.buf, "\tu:tracker.example.org\n"));
	assert_non_null(strstr(names.buf, "\tu:lore.kernel.org\n"));
	assert_null(strstr(names.buf, "\tu:lore.kernel.org/stable"));
	assert_null(strstr(names.buf, "\tk:net\n"));
	assert_null(strstr(names.buf, "\tk:not"));
	assert_null(strstr(names.buf, "\tk:two"));
	assert_null(strstr(names.buf, "\tk:empty"));
	assert_null(strstr(names.buf, "\tk:stable-dep-of"));
	for (p = names.buf; (p = strstr(p, "\tu:bugzilla.example.org\n")); p++)
		n++;
	assert_int_equal(n, 1);  /* once per commit */
	/* masked: the Cc: stable line is gone, and with it the only Cc */
	assert_int_equal(ss_commit_mask_stable(c), 0);
	ss_feat_raw_reset(&r);
	ss_strbuf_reset(&names);
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	assert_null(strstr(names.buf, "\tk:cc\n"));
	assert_non_null(strstr(names.buf, "\tk:bug\n"));
	/* left out with the group */
	o.groups &= ~SS_FG_KEYS;
	ss_feat_raw_reset(&r);
	ss_strbuf_reset(&names);
	assert_int_equal(ss_feat_extract(&r, c, NULL, &o), 0);
	assert_null(strstr(names.buf, "\tk:"));
	assert_null(strstr(names.buf, "\tu:"));
	ss_feat_raw_release(&r);
	ss_strbuf_release(&names);
	ss_commit_free(c);
}

/*
 * The stable tag's own traces (ss_featurizer_tag_traces()): a commit
 * with "Cc: stable@" has exactly them among its features beyond those of
 * the same commit with the line masked (cc_stable and the "k:cc" key),
 * and a commit without the line has neither.
 */
static void test_tag_traces(void **st)
{
	tc_file f = { "drivers/net/foo.c", "static int foo(void)", code_lines, SS_FILE_MODIFIED };
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_featurizer fz;
	ss_svec tagged, plain;
	uint32_t tr[4];
	size_t n, i, j, extra = 0;
	ss_commit *a = tc_commit("1", "a@example.org", 1000, "net: fix foo\n\nBody.\n\n"
				 "Cc: stable@vger.kernel.org\nSigned-off-by: A <a@example.org>\n",
				 &f, 1);
	ss_commit *b = tc_commit("2", "a@example.org", 1000, "net: fix foo\n\nBody.\n\n"
				 "Signed-off-by: A <a@example.org>\n", &f, 1);

	(void)st;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(ss_featurizer_init(&fz, &o), 0);
	n = ss_featurizer_tag_traces(&fz, tr, 4);
	assert_int_equal(n, 2);
	assert_int_equal(ss_featurizer_tag_traces(&fz, tr, 1), 1);
	n = ss_featurizer_tag_traces(&fz, tr, 4);
	assert_int_equal(tr[0], SS_F_HAS_STABLE);
	ss_svec_init(&tagged);
	ss_svec_init(&plain);
	assert_int_equal(ss_featurizer_vector(&tagged, &fz, a, NULL, NULL), 0);
	assert_int_equal(ss_featurizer_vector(&plain, &fz, b, NULL, NULL), 0);
	/* every feature of the tagged commit the plain one lacks is a trace */
	for (i = 0; i < tagged.n; i++) {
		for (j = 0; j < plain.n && plain.idx[j] != tagged.idx[i]; j++)
			;
		if (j < plain.n)
			continue;
		for (j = 0; j < n && tr[j] != tagged.idx[i]; j++)
			;
		assert_true(j < n);
		extra++;
	}
	assert_int_equal(extra, n);
	for (i = 0; i < plain.n; i++)
		for (j = 0; j < n; j++)
			assert_true(plain.idx[i] != tr[j]);
	ss_svec_release(&tagged);
	ss_svec_release(&plain);
	ss_featurizer_release(&fz);
	ss_commit_free(a);
	ss_commit_free(b);
}

static void test_name_words(void **st)
{
	static const char *const cases[][2] = {
		{ "h:fix_of_fix", "fix of a fix" },
		{ "h:revert_of_released", "reverts a commit that was released" },
		{ "r:11", "the bug shipped in a *.11 release (any year's v*.11)" },
		{ "m:fixes", "its pull request says: fixes" },
		{ "merged_with_others", "a merge (a pull request) brought it into the mainline" },
		{ "c:luca@x", "committer: luca@x" },
		{ "a:ann@example.org", "author: ann@example.org" },
		{ "p:bob@example.org", "named in a trailer: bob@example.org" },
		{ "d:drivers/net", "touches drivers/net" },
		{ "f:drivers/net/foo.c", "touches drivers/net/foo.c" },
		{ "s:net", "subsystem net" },
		{ "e:null_deref", "says the bug caused: null deref" },
		{ "t:lag_0d", "committed within a day of being written" },
		{ "t:week_3", "committed in week 3 after a release" },
		{ "l:part_1", "patch 1 of its series" },
		{ "word:crash", "the word \"crash\"" },
		{ "k:bug", "its message has a \"bug:\" line" },
		{ "n:7/10", "7 of its 10 nearest past commits reached stable" },
		{ "u:bugzilla.example.org", "links to bugzilla.example.org" },
		{ "hash:77", "an unnamed hashed feature, slot 77" },
		/* dense features: their doc string, without the log(1+n) */
		{ "fixes_tag", "a Fixes: trailer" },
		{ "files", "number of files touched" },
		{ "fixes_count", "number of Fixes: trailers" },
		{ "fixes_target_unreleased",
		  "no found target was in a release before the commit (releases known)" },
		/* names sharing a slot; PatchNet's side features and code lines */
		{ "a:x@y|d:lib", "author: x@y or touches lib" },
		{ "feature:h:fix_of_fix", "fix of a fix" },
		{ "if (a || b)", "if (a || b)" },
		{ "something_new", "something_new" },
	};
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss_strbuf_reset(&sb);
		assert_int_equal(ss_feat_name_words(&sb, cases[i][0]), 0);
		if (strcmp(sb.buf, cases[i][1]))
			fail_msg("%s: '%s', expected '%s'", cases[i][0], sb.buf, cases[i][1]);
	}
	/* every dense feature has words, none with the transform */
	for (i = 0; i < SS_NDENSE; i++) {
		ss_strbuf_reset(&sb);
		assert_int_equal(ss_feat_name_words(&sb, ss_dense_features[i].name), 0);
		if (!sb.len || !strcmp(sb.buf, ss_dense_features[i].name))
			fail_msg("%s: no words", ss_dense_features[i].name);
		assert_null(strstr(sb.buf, "log(1+n)"));
	}
	ss_strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constructs),
		cmocka_unit_test(test_constructs_only_in_code),
		cmocka_unit_test(test_metrics_and_paths),
		cmocka_unit_test(test_message_people_trailers),
		cmocka_unit_test(test_bots),
		cmocka_unit_test(test_subsystem),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_dataset_matches_commit_vector),
		cmocka_unit_test(test_svec_finish_matches_reference),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_linux_releases_table),
		cmocka_unit_test(test_linux_releases_by_default),
		cmocka_unit_test(test_effects),
		cmocka_unit_test(test_series_position),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_history_order_releases_and_kinds),
		cmocka_unit_test(test_history_index_streaming),
		cmocka_unit_test(test_history_graph_no_future),
		cmocka_unit_test(test_groups_can_be_disabled),
		cmocka_unit_test(test_group_names),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_name_words),
		cmocka_unit_test(test_tag_traces),
	};

	int rc;

	/* trailers are parsed by libgit2 */
	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
