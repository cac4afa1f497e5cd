/*
 * test_feature_store.c - the features the project model learns from, kept
 * in the project index (features/feat_store.h, index/index.h "Stored
 * features", run/feature_store.c; docs/index.md, "Stored features"):
 * the encoding is exact, a dataset filled from kept rows has the rows of
 * one extracted from the commits, the rows are versioned and dropped with
 * another extractor, "stablesel index" fills them (an interrupted fill
 * completed by the next) and a training reads
 * them instead of the diffs (counted, not timed), one that had to extract
 * keeps them for the next, and a read-only index still ranks; a row
 * with a value no extraction gives (NaN, an infinity, 3e38) is damaged:
 * the training reads the diffs instead, says so once and keeps the row
 * again, and the trainer refuses non-finite values rather than spin.
 */
#include <math.h>
#include <signal.h>
#include <sys/stat.h>

#include "testutil.h"

#include "features/feat_store.h"
#include "index/index.h"
#include "models/dataset.h"
#include "models/model.h"
#include "source/source.h"
#include "util/error.h"

/* tests/projrepo.sh */
static const char *projrepo(void)
{
	return test_script("projrepo.sh");
}

/* The repository's main read with diffs into a fresh dataset (the
 * commits' own past as history), each example's row encoded into
 * rows[i] (malloc'd) and *nrows. */
static ss_dataset *extract_all(const char *repo, ss_strbuf **rows, size_t *nrows)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	const char *revs[] = { "main" };
	ss_source *src;
	ss_dataset *d;
	ss_commit *c;
	size_t cap = 0;

	so.revs = revs;
	so.nrevs = 1;
	*rows = NULL;
	*nrows = 0;
	assert_int_equal(ss_dataset_new(&d, &fo), 0);
	assert_int_equal(ss_source_open(&src, repo, &so), 0);
	while (ss_source_next(&c, src) == 0) {
		const ss_feat_raw *raw;

		assert_int_equal(ss_dataset_add(d, c, (int)(*nrows % 3 == 0), 0), 0);
		ss_commit_free(c);
		raw = ss_dataset_last_raw(d);
		assert_non_null(raw);
		if (*nrows == cap) {
			cap = cap ? 2 * cap : 64;
			*rows = realloc(*rows, cap * sizeof(**rows));
			assert_non_null(*rows);
		}
		(*rows)[*nrows] = (ss_strbuf)SS_STRBUF_INIT;
		assert_int_equal(ss_feat_raw_encode(&(*rows)[*nrows], raw), 0);
		(*nrows)++;
	}
	ss_source_free(src);
	return d;
}

/* Decoding gives back every dense value bit for bit, the hashes and the
 * words; a damaged row is refused, not read. */
static void test_encoding_exact(void **state)
{
	ss_feat_raw r, back;
	ss_strbuf buf = SS_STRBUF_INIT;
	static const uint32_t hashes[] = { 7, 0xffffffffu, 7, 123456789u };
	static const char words[] = "fix\0crash\0fix\0null\0";
	size_t i;

	(void)state;
	ss_feat_raw_init(&r);
	ss_feat_raw_init(&back);
	r.dense[0] = 1.0f;
	r.dense[5] = 0.6931472f;
	r.dense[SS_NDENSE - 1] = -3.25e-7f;
	r.hashed = malloc(sizeof(hashes));
	memcpy(r.hashed, hashes, sizeof(hashes));
	r.nhashed = r.hcap = 4;
	assert_int_equal(ss_strbuf_add(&r.words, words, sizeof(words) - 1), 0);
	r.nwords = 4;
	assert_int_equal(ss_feat_raw_encode(&buf, &r), 0);
	assert_int_equal(ss_feat_raw_decode(&back, buf.buf, buf.len), 0);
	assert_memory_equal(back.dense, r.dense, sizeof(r.dense));
	assert_int_equal(back.nhashed, 4);
	assert_memory_equal(back.hashed, hashes, sizeof(hashes));
	assert_int_equal(back.nwords, 4);
	assert_int_equal(back.words.len, sizeof(words) - 1);
	assert_memory_equal(back.words.buf, words, sizeof(words) - 1);
	/* cut short, a flipped byte in the deflated part, another format */
	for (i = 0; i < buf.len; i += 3)
		assert_int_equal(ss_feat_raw_decode(&back, buf.buf, i), SS_EINVALID);
	buf.buf[buf.len - 2] ^= 0x55;
	assert_int_equal(ss_feat_raw_decode(&back, buf.buf, buf.len), SS_EINVALID);
	buf.buf[1] = 9;
	assert_int_equal(ss_feat_raw_decode(&back, buf.buf, buf.len), SS_EINVALID);
	assert_int_equal(back.nhashed, 0);
	ss_strbuf_release(&buf);
	ss_feat_raw_release(&r);
	ss_feat_raw_release(&back);
}

/* Another feature set, another version; the dense table is in it. */
static void test_versions(void **state)
{
	ss_feat_options a = SS_FEAT_OPTIONS_INIT, b = SS_FEAT_OPTIONS_INIT;
	char va[SS_FEAT_VERSION_SIZE], vb[SS_FEAT_VERSION_SIZE], prefix[SS_FEAT_VERSION_SIZE];

	(void)state;
	ss_feat_version(va, &a, 0, 0);
	ss_feat_version(vb, &b, 0, 0);
	assert_string_equal(va, vb);
	ss_feat_version_prefix(prefix);
	assert_memory_equal(va, prefix, strlen(prefix));
	b.groups &= ~(uint32_t)SS_FG_RELCODE;
	ss_feat_version(vb, &b, 0, 0);
	assert_string_not_equal(va, vb);
	ss_feat_version(vb, &a, 1, 0);
	assert_string_not_equal(va, vb);
	ss_feat_version(vb, &a, 0, 100);
	assert_string_not_equal(va, vb);
	/* the hash of the options differs, the extractor's part does not */
	assert_memory_equal(vb, prefix, strlen(prefix));
}

/*
 * A dataset filled from rows kept in an index (and read back read-only)
 * holds the examples of one extracted from the commits: the same vectors
 * under a vocabulary chosen from either, the same ids, labels and times.
 * Floats are compared exactly: the encoding keeps their bits.
 */
static void test_rows_equal_extraction(void **state)
{
	char *repo = test_scratch_path("rows"), *db = test_scratch_path("rows.db");
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char version[SS_FEAT_VERSION_SIZE], tip[41];
	const char *revs[] = { "main" };
	ss_strbuf *rows;
	size_t nrows, i, k, n;
	ss_dataset *a, *b, *last;
	ss_dataset_reads ra, rb;
	ss_index *ix;
	ss_index_features *f;
	ss_featurizer fa, fb;
	ss_feat_raw raw;
	ss_source *src;
	ss_commit *c;
	uint32_t *ma, *mb;
	size_t *idx;
	ss_svec va, vb;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 60", projrepo(), repo), 0);
	a = extract_all(repo, &rows, &nrows);
	assert_int_equal(nrows, 240);

	/* an index without rows, given the rows of the extraction above */
	assert_int_equal(test_cli("index --repo '%s' --db '%s' --no-features", repo, db), 0);
	ss_feat_version(version, &fo, 0, 0);
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_WRITE), 0);
	assert_int_equal(ss_index_features_count(ix, version, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(ss_index_features_open(&f, ix, version, 1), 0);
	for (i = 0; i < nrows; i++)
		assert_int_equal(ss_index_features_put(f, ss_dataset_example(a, i)->id, rows[i].buf,
						       rows[i].len), 0);
	assert_int_equal(ss_index_features_finish(f, ss_dataset_example(a, nrows - 1)->id), 0);
	ss_index_features_free(f);
	ss_index_free(ix);

	/* read back through a read-only handle, the commits without diffs */
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_features_tip(ix, version, tip), 0);
	assert_string_equal(tip, ss_dataset_example(a, nrows - 1)->id);
	assert_int_equal(ss_index_features_open(&f, ix, version, 0), 0);
	assert_int_equal(ss_index_features_put(f, tip, "x", 1), SS_EINVALID);
	assert_int_equal(ss_dataset_new(&b, &fo), 0);
	assert_int_equal(ss_dataset_new(&last, &fo), 0);
	ss_feat_raw_init(&raw);
	so.revs = revs;
	so.nrevs = 1;
	so.with_diff = 0;
	assert_int_equal(ss_source_open(&src, repo, &so), 0);
	for (n = 0; ss_source_next(&c, src) == 0; n++) {
		const void *row;
		size_t len;

		assert_int_equal(c->nfiles, 0);
		assert_int_equal(ss_index_features_get(f, c->id, &row, &len), 0);
		assert_int_equal(ss_feat_raw_decode(&raw, row, len), 0);
		assert_int_equal(ss_dataset_add_raw(b, c, &raw, (int)(n % 3 == 0), 0), 0);
		assert_null(ss_dataset_last_raw(b));
		/* the same rows into a dataset that keeps the newest 100, as a
		 * long history's read does (a quarter over, then dropped) */
		assert_int_equal(ss_dataset_add_raw(last, c, &raw, (int)(n % 3 == 0), 0), 0);
		if (ss_dataset_count(last) >= 125)
			assert_int_equal(ss_dataset_keep_last(last, 100), 25);
		ss_commit_free(c);
	}
	ss_source_free(src);
	assert_true(ss_dataset_keep_last(last, 100) >= 0);
	assert_int_equal(ss_dataset_keep_last(last, 100), 0);
	assert_int_equal(ss_dataset_count(last), 100);
	/* a dataset extracted against its history keeps every example */
	assert_true(ss_dataset_keep_last(a, 10) < 0);
	ss_error_clear();
	assert_int_equal(ss_dataset_count(a), 240);
	assert_int_equal(ss_index_features_get(f, "0000000000000000000000000000000000000000",
					       (const void **)&c, &i), SS_ENOTFOUND);
	ss_index_features_free(f);
	ss_index_free(ix);

	/* what each dataset read: the counts a training reports */
	ss_dataset_reads_get(&ra, a);
	ss_dataset_reads_get(&rb, b);
	assert_int_equal(ra.extracted, 240);
	assert_int_equal(ra.stored, 0);
	assert_int_equal(rb.extracted, 0);
	assert_int_equal(rb.stored, 240);

	assert_int_equal(ss_dataset_count(b), ss_dataset_count(a));
	idx = malloc(nrows * sizeof(*idx));
	for (i = 0; i < nrows; i++) {
		const ss_example *x = ss_dataset_example(a, i), *y = ss_dataset_example(b, i);

		idx[i] = i;
		assert_string_equal(x->id, y->id);
		assert_int_equal(x->time, y->time);
		assert_int_equal(x->label, y->label);
		assert_int_equal(x->tagged, y->tagged);
		assert_int_equal(x->keyword, y->keyword);
	}
	fo.min_df = 1;
	assert_int_equal(ss_featurizer_init(&fa, &fo), 0);
	assert_int_equal(ss_featurizer_init(&fb, &fo), 0);
	assert_int_equal(ss_dataset_vocab(&fa, a, idx, nrows), 0);
	assert_int_equal(ss_dataset_vocab(&fb, b, idx, nrows), 0);
	assert_true(ss_strmap_count(fa.vocab) > 10);
	assert_int_equal(ss_strmap_count(fb.vocab), ss_strmap_count(fa.vocab));
	assert_int_equal(ss_dataset_remap(&ma, &fa, a), 0);
	assert_int_equal(ss_dataset_remap(&mb, &fb, b), 0);
	ss_svec_init(&va);
	ss_svec_init(&vb);
	for (i = 0; i < nrows; i++) {
		assert_int_equal(ss_dataset_vector(&va, &fa, ma, a, i), 0);
		assert_int_equal(ss_dataset_vector(&vb, &fb, mb, b, i), 0);
		assert_true(va.n > 3);
		assert_int_equal(va.n, vb.n);
		for (k = 0; k < va.n; k++) {
			assert_int_equal(va.idx[k], vb.idx[k]);
			assert_true(va.val[k] == vb.val[k]);
		}
	}
	/* the kept ones are the newest 100, whole: ids, labels, subjects, vectors */
	{
		uint32_t *ml;

		assert_int_equal(ss_dataset_remap(&ml, &fb, last), 0);
		for (i = 0; i < 100; i++) {
			const ss_example *x = ss_dataset_example(b, nrows - 100 + i);
			const ss_example *y = ss_dataset_example(last, i);

			assert_string_equal(x->id, y->id);
			assert_int_equal(x->time, y->time);
			assert_int_equal(x->label, y->label);
			assert_string_equal(ss_dataset_subject(b, nrows - 100 + i),
					    ss_dataset_subject(last, i));
			assert_int_equal(ss_dataset_vector(&va, &fb, mb, b, nrows - 100 + i), 0);
			assert_int_equal(ss_dataset_vector(&vb, &fb, ml, last, i), 0);
			assert_int_equal(va.n, vb.n);
			for (k = 0; k < va.n; k++) {
				assert_int_equal(va.idx[k], vb.idx[k]);
				assert_true(va.val[k] == vb.val[k]);
			}
		}
		free(ml);
	}
	ss_svec_release(&va);
	ss_svec_release(&vb);
	free(ma);
	free(mb);
	ss_featurizer_release(&fa);
	ss_featurizer_release(&fb);
	free(idx);
	for (i = 0; i < nrows; i++)
		ss_strbuf_release(&rows[i]);
	free(rows);
	ss_feat_raw_release(&raw);
	ss_dataset_free(a);
	ss_dataset_free(b);
	ss_dataset_free(last);
	free(repo);
	free(db);
}

/* Whether stderr (the scratch's "err") holds s; says what it held when not. */
static int err_has(const char *s)
{
	char *err = test_scratch_read("err");
	int yes = strstr(err, s) != NULL;

	if (!yes)
		fprintf(stderr, "stderr lacks \"%s\":\n%s\n", s, err);
	free(err);
	return yes;
}

#define RANK "rank --repo '%s' --rev main~100..main --format tsv --project-model '%s/%s.model'"

/*
 * "stablesel index" keeps the rows; the first training reads them and no
 * diff of the history (the counts it reports); an index without them
 * (--no-features) trains from the diffs, keeps the rows it extracted, and
 * the next training reads them; every ranking is the same.
 */
static void test_index_fills_training_reads(void **state)
{
	char *repo = test_scratch_path("fill"), *first, *out;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s/with.db'", repo, test_scratch), 0);
	assert_true(err_has("kept the features of 240 commits for the project model"));
	/* the first build is packed, rows and all: a VACUUM has no page to win */
	assert_int_equal(test_run("cd '%s' && cp with.db packed.db && sqlite3 packed.db VACUUM && "
				  "test \"$(sqlite3 with.db 'PRAGMA page_count')\" = "
				  "\"$(sqlite3 packed.db 'PRAGMA page_count')\"", test_scratch), 0);
	assert_int_equal(test_cli(RANK " --db '%s/with.db'", repo, test_scratch, "w1", test_scratch), 0);
	assert_true(err_has("on 140 commits (60 in the stable tree"));
	assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	first = test_scratch_read("out");
	assert_int_equal(test_count_lines(first), 101);

	/* a second update keeps what is there: nothing extracted again */
	assert_int_equal(test_cli("index --repo '%s' --db '%s/with.db'", repo, test_scratch), 0);
	out = test_scratch_read("err");
	assert_null(strstr(out, "kept the features of"));
	free(out);

	/* without the rows: from the diffs, kept, then read */
	assert_int_equal(test_cli("index --repo '%s' --db '%s/without.db' --no-features", repo,
				  test_scratch), 0);
	out = test_scratch_read("err");
	assert_null(strstr(out, "kept the features of"));
	free(out);
	assert_int_equal(test_cli(RANK " --db '%s/without.db'", repo, test_scratch, "n1",
				  test_scratch), 0);
	assert_true(err_has("features of 0 commits from the index, 140 read from their diffs"));
	out = test_scratch_read("out");
	assert_string_equal(out, first);
	free(out);
	assert_int_equal(test_cli(RANK " --db '%s/without.db'", repo, test_scratch, "n2",
				  test_scratch), 0);
	assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	out = test_scratch_read("out");
	assert_string_equal(out, first);
	free(out);

	/* another feature set (masked tags): its own rows, kept the same way */
	assert_int_equal(test_cli(RANK " --db '%s/with.db' --mask-stable-tags", repo, test_scratch,
				  "m1", test_scratch), 0);
	assert_true(err_has("features of 0 commits from the index, 140 read from their diffs"));
	assert_int_equal(test_cli(RANK " --db '%s/with.db' --mask-stable-tags", repo, test_scratch,
				  "m2", test_scratch), 0);
	assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	/* the rows of the default set are still read */
	assert_int_equal(test_cli(RANK " --db '%s/with.db'", repo, test_scratch, "w2", test_scratch), 0);
	assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	free(first);
	free(repo);
}

/*
 * An index of an earlier build: its rows in feature_rows (keyed by the
 * version's text and the id's digits) with the tip they reached.  A
 * reader reads them as they are (no diff, the ranking the same); the
 * next update drops that table and its tips and keeps the rows again in
 * feature_data, which the next training reads.
 */
static void test_earlier_layout(void **state)
{
	char *repo = test_scratch_path("early"), *first, *out;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s/e.db'", repo, test_scratch), 0);
	assert_int_equal(test_cli(RANK " --db '%s/e.db'", repo, test_scratch, "e1", test_scratch), 0);
	first = test_scratch_read("out");
	/* as an earlier build left it */
	assert_int_equal(test_run("sqlite3 '%s/e.db' \"CREATE TABLE feature_rows(version TEXT NOT NULL,"
				  " id TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY(version, id))"
				  " WITHOUT ROWID; INSERT INTO feature_rows SELECT s.version, lower(hex(d.id)),"
				  " d.data FROM feature_data d JOIN feature_sets s USING (vid);"
				  " DROP TABLE feature_data; DROP TABLE feature_sets;\"", test_scratch), 0);
	assert_int_equal(test_cli(RANK " --db '%s/e.db'", repo, test_scratch, "e2",
				  test_scratch), 0);
	assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	out = test_scratch_read("out");
	assert_string_equal(out, first);
	free(out);
	/* the update drops them and keeps them again */
	assert_int_equal(test_cli("index --repo '%s' --db '%s/e.db'", repo, test_scratch), 0);
	assert_true(err_has("dropped the 240 stored feature rows an earlier build kept"));
	assert_true(err_has("kept the features of 240 commits for the project model"));
	assert_int_equal(test_run("test \"$(sqlite3 '%s/e.db' \"SELECT count(*) FROM sqlite_master"
				  " WHERE name = 'feature_rows'\")\" = 0", test_scratch), 0);
	assert_int_equal(test_cli(RANK " --db '%s/e.db'", repo, test_scratch, "e3", test_scratch), 0);
	assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	out = test_scratch_read("out");
	assert_string_equal(out, first);
	free(out);
	free(first);
	free(repo);
}

/*
 * Rows of another extractor (an older build's version) are dropped by
 * the next update and never read; rows of this one are kept.
 */
static void test_stale_rows_dropped(void **state)
{
	char *repo = test_scratch_path("stale"), *db = test_scratch_path("stale.db");
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	char version[SS_FEAT_VERSION_SIZE];
	ss_index_features *f;
	ss_index *ix;
	size_t n;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s'", repo, db), 0);
	ss_feat_version(version, &fo, 0, 0);
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_WRITE), 0);
	assert_int_equal(ss_index_features_count(ix, version, &n), 0);
	assert_int_equal(n, 240);
	assert_int_equal(ss_index_features_open(&f, ix, "f0-0123456789abcdef-0123456789abcdef", 1), 0);
	assert_int_equal(ss_index_features_put(f, "0123456789012345678901234567890123456789", "F", 1), 0);
	assert_int_equal(ss_index_features_put(f, "1123456789012345678901234567890123456789", "F", 1), 0);
	assert_int_equal(ss_index_features_finish(f, NULL), 0);
	ss_index_features_free(f);
	assert_int_equal(ss_index_features_count(ix, "f0-0123456789abcdef-0123456789abcdef", &n), 0);
	assert_int_equal(n, 2);
	ss_index_free(ix);

	assert_int_equal(test_cli("index --repo '%s' --db '%s'", repo, db), 0);
	assert_true(err_has("dropped 2 stored feature rows of another feature extractor"));
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_features_count(ix, "f0-0123456789abcdef-0123456789abcdef", &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(ss_index_features_count(ix, version, &n), 0);
	assert_int_equal(n, 240);
	ss_index_free(ix);
	free(repo);
	free(db);
}

/*
 * A read-only index (file and folder without write bits: read-only data,
 * also for root) ranks: from its rows when it has them, else from the
 * diffs, said once; the ranking is the same.
 */
static void test_read_only_index(void **state)
{
	char *repo = test_scratch_path("ro"), *first, *out, *err;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_run("mkdir -p '%s/ro1' '%s/ro2'", test_scratch, test_scratch), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s/ro1/i.db'", repo, test_scratch), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s/ro2/i.db' --no-features", repo,
				  test_scratch), 0);
	assert_int_equal(test_run("chmod a-w '%s/ro1/i.db' '%s/ro1' '%s/ro2/i.db' '%s/ro2'",
				  test_scratch, test_scratch, test_scratch, test_scratch), 0);
	assert_int_equal(test_cli(RANK " --db '%s/ro1/i.db'", repo, test_scratch, "r1",
				  test_scratch), 0);
	assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	first = test_scratch_read("out");
	assert_int_equal(test_count_lines(first), 101);
	assert_int_equal(test_cli(RANK " --db '%s/ro2/i.db'", repo, test_scratch, "r2",
				  test_scratch), 0);
	err = test_scratch_read("err");
	assert_non_null(strstr(err, "features of 0 commits from the index, 140 read from their diffs"));
	/* once, and nothing tried to write it */
	{
		const char *hit = strstr(err, "cannot be written: the project model reads every diff");

		assert_non_null(hit);
		assert_null(strstr(hit + 1, "cannot be written"));
		assert_null(strstr(err, "cannot keep the project model's features"));
	}
	free(err);
	out = test_scratch_read("out");
	assert_string_equal(out, first);
	free(out);
	free(first);
	assert_int_equal(test_run("chmod u+w '%s/ro1' '%s/ro2' '%s/ro1/i.db' '%s/ro2/i.db'",
				  test_scratch, test_scratch, test_scratch, test_scratch), 0);
	free(repo);
}

/*
 * A fill killed after some batches (kill -9 at the test point "features",
 * after a batch's commit) leaves whole batches and no tip; the next
 * "stablesel index" extracts only the commits without a row and records
 * the tip, and the training then reads the rows: the same ranking as an
 * uninterrupted index's.
 */
static void test_interrupted_fill_completed(void **state)
{
	char *repo = test_scratch_path("kill"), *db = test_scratch_path("kill.db"), *first, *out;
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	char version[SS_FEAT_VERSION_SIZE], tip[41];
	ss_index *ix;
	size_t n;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s/whole.db'", repo, test_scratch), 0);
	assert_int_equal(test_cli(RANK " --db '%s/whole.db'", repo, test_scratch, "k0", test_scratch), 0);
	first = test_scratch_read("out");

	assert_int_equal(test_cli("index --repo '%s' --db '%s' --no-features", repo, db), 0);
	/* killed: not a normal exit */
	assert_int_not_equal(test_run("SS_TEST_ABORT_AT=features#2 ./stablesel index --repo '%s' "
				      "--db '%s' --write-batch 50 >/dev/null 2>&1", repo, db), 0);
	ss_feat_version(version, &fo, 0, 0);
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_features_count(ix, version, &n), 0);
	assert_int_equal(n, 100);
	assert_int_equal(ss_index_features_tip(ix, version, tip), 0);
	assert_string_equal(tip, "");
	ss_index_free(ix);

	assert_int_equal(test_cli("index --repo '%s' --db '%s' --write-batch 50", repo, db), 0);
	assert_true(err_has("kept the features of 140 commits for the project model"));
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_features_count(ix, version, &n), 0);
	assert_int_equal(n, 240);
	assert_int_equal(ss_index_features_tip(ix, version, tip), 0);
	assert_int_equal(strlen(tip), 40);
	ss_index_free(ix);
	assert_int_equal(test_cli(RANK " --db '%s'", repo, test_scratch, "k1", db), 0);
	assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	out = test_scratch_read("out");
	assert_string_equal(out, first);
	free(out);
	free(first);
	free(repo);
	free(db);
}

/*
 * Issue 38: a fresh "stablesel index" extracts each row's own groups while
 * it reads the diffs and joins the history after (no diff read twice);
 * its rows are byte for byte those of the fill that reads every diff
 * again (an index built --no-features first), and of an update killed
 * after its last batch, before the fill, whose parts died with it (the
 * next run reads the diffs).
 */
static void test_parts_equal_diff_path(void **state)
{
	char *repo = test_scratch_path("parts"), *dbs[3];
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char version[SS_FEAT_VERSION_SIZE];
	const char *revs[] = { "main" };
	ss_index *ix[3];
	ss_index_features *f[3];
	ss_source *src;
	ss_commit *c;
	size_t n = 0, k;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	for (k = 0; k < 3; k++)
		dbs[k] = test_scratch_path(k == 0 ? "parts0.db" : k == 1 ? "parts1.db" : "parts2.db");
	assert_int_equal(test_cli("index --repo '%s' --db '%s'", repo, dbs[0]), 0);
	assert_true(err_has("kept the features of 240 commits for the project model in"));
	assert_int_equal(test_cli("index --repo '%s' --db '%s' --no-features", repo, dbs[1]), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s'", repo, dbs[1]), 0);
	assert_true(err_has("kept the features of 240 commits for the project model in"));
	assert_int_not_equal(test_run("SS_TEST_ABORT_AT=derive ./stablesel index --repo '%s' "
				      "--db '%s' >/dev/null 2>&1", repo, dbs[2]), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s'", repo, dbs[2]), 0);
	assert_true(err_has("kept the features of 240 commits for the project model in"));

	ss_feat_version(version, &fo, 0, 0);
	for (k = 0; k < 3; k++) {
		assert_int_equal(ss_index_open(&ix[k], dbs[k], SS_INDEX_READ), 0);
		assert_int_equal(ss_index_features_open(&f[k], ix[k], version, 0), 0);
	}
	so.revs = revs;
	so.nrevs = 1;
	so.with_diff = 0;
	assert_int_equal(ss_source_open(&src, repo, &so), 0);
	while (ss_source_next(&c, src) == 0) {
		const void *row[3];
		size_t len[3];

		for (k = 0; k < 3; k++)
			assert_int_equal(ss_index_features_get(f[k], c->id, &row[k], &len[k]), 0);
		/* row[0] lives until the next get on f[0]: compare before it */
		assert_int_equal(len[0], len[1]);
		assert_int_equal(len[0], len[2]);
		assert_memory_equal(row[0], row[1], len[0]);
		assert_memory_equal(row[0], row[2], len[0]);
		n++;
		ss_commit_free(c);
	}
	ss_source_free(src);
	assert_int_equal(n, 240);
	for (k = 0; k < 3; k++) {
		ss_index_features_free(f[k]);
		ss_index_free(ix[k]);
		free(dbs[k]);
	}
	free(repo);
}

/* issue 35, case 14: NaN, infinities and absurd magnitudes are damage. */
static void test_out_of_range_refused(void **state)
{
	static const float bad[] = { NAN, INFINITY, -INFINITY, 3e38f, -2e6f };
	ss_feat_raw r, back;
	ss_strbuf buf = SS_STRBUF_INIT;

	(void)state;
	ss_feat_raw_init(&r);
	ss_feat_raw_init(&back);
	r.dense[SS_F_FILES] = 44.4f;
	assert_int_equal(ss_feat_raw_encode(&buf, &r), 0);
	assert_int_equal(ss_feat_raw_decode(&back, buf.buf, buf.len), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		r.dense[SS_F_FILES] = bad[i];
		ss_strbuf_reset(&buf);
		assert_int_equal(ss_feat_raw_encode(&buf, &r), 0);
		assert_int_equal(ss_feat_raw_decode(&back, buf.buf, buf.len), SS_EINVALID);
		assert_non_null(strstr(ss_error_last(), "damaged: a value out of range"));
	}
	ss_strbuf_release(&buf);
	ss_feat_raw_release(&r);
	ss_feat_raw_release(&back);
}

/* Set dense feature 0 of commit id's kept row in db to v. */
static void damage_row(const char *db, const char *id, float v)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	char version[SS_FEAT_VERSION_SIZE];
	ss_strbuf buf = SS_STRBUF_INIT;
	ss_index_features *f;
	ss_feat_raw raw;
	ss_index *ix;
	const void *row;
	void *copy;
	size_t len;

	ss_feat_version(version, &fo, 0, 0);
	ss_feat_raw_init(&raw);
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_WRITE), 0);
	assert_int_equal(ss_index_features_open(&f, ix, version, 1), 0);
	assert_int_equal(ss_index_features_get(f, id, &row, &len), 0);
	copy = malloc(len);
	memcpy(copy, row, len);
	assert_int_equal(ss_feat_raw_decode(&raw, copy, len), 0);
	raw.dense[0] = v;
	assert_int_equal(ss_feat_raw_encode(&buf, &raw), 0);
	assert_int_equal(ss_index_features_put(f, id, buf.buf, buf.len), 0);
	assert_int_equal(ss_index_features_finish(f, NULL), 0);
	ss_index_features_free(f);
	ss_index_free(ix);
	ss_feat_raw_release(&raw);
	ss_strbuf_release(&buf);
	free(copy);
}

/*
 * A kept row with NaN, then one at 3e38: the training reads the diffs
 * instead (no spin: a timeout would kill it), says so once naming the
 * commit, ranks as before, and keeps the row again for the next.
 */
static void test_damaged_value_read_again(void **state)
{
	static const float bad[] = { NAN, 3e38f };
	char *repo = test_scratch_path("dmg"), *first, *out, *id, name[16];

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 120", projrepo(), repo), 0);
	assert_int_equal(test_cli("index --repo '%s' --db '%s/dmg.db'", repo, test_scratch), 0);
	assert_int_equal(test_cli(RANK " --db '%s/dmg.db'", repo, test_scratch, "d0", test_scratch), 0);
	first = test_scratch_read("out");
	id = test_run_output("git -C '%s' rev-parse main~105", repo);
	id[40] = '\0';
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char db[4200], want[200];

		snprintf(db, sizeof(db), "%s/dmg.db", test_scratch);
		damage_row(db, id, bad[i]);
		snprintf(name, sizeof(name), "d%zu", 2 * i + 1);
		assert_int_equal(test_run("timeout 120 ./stablesel " RANK " --db '%s/dmg.db' "
					  ">'%s/out' 2>'%s/err'", repo, test_scratch, name, test_scratch,
					  test_scratch, test_scratch), 0);
		snprintf(want, sizeof(want), "keeps a damaged feature row (%.12s: stored features "
			 "are damaged: a value out of range)", id);
		assert_true(err_has(want));
		assert_int_equal(test_run("test $(grep -c 'damaged feature row' '%s/err') = 1",
					  test_scratch), 0);
		out = test_scratch_read("out");
		assert_string_equal(out, first);
		free(out);
		/* kept again: the next training reads every row */
		snprintf(name, sizeof(name), "d%zu", 2 * i + 2);
		assert_int_equal(test_cli(RANK " --db '%s/dmg.db'", repo, test_scratch, name,
					  test_scratch), 0);
		assert_true(err_has("features of 140 commits from the index, 0 read from their diffs"));
	}
	free(id);
	free(first);
	free(repo);
}

/* The trainer refuses a non-finite value (liblinear would never end). */
static void test_trainer_refuses_non_finite(void **state)
{
	char *repo = test_scratch_path("nan");
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	const char *revs[] = { "main" };
	ss_strbuf *rows;
	size_t nrows, n, *idx;
	ss_dataset *a, *b;
	ss_feat_raw raw;
	ss_source *src;
	ss_commit *c;
	ss_model *m = NULL;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' 60", projrepo(), repo), 0);
	a = extract_all(repo, &rows, &nrows);
	assert_int_equal(ss_dataset_new(&b, &fo), 0);
	ss_feat_raw_init(&raw);
	so.revs = revs;
	so.nrevs = 1;
	so.with_diff = 0;
	assert_int_equal(ss_source_open(&src, repo, &so), 0);
	for (n = 0; ss_source_next(&c, src) == 0; n++) {
		assert_int_equal(ss_feat_raw_decode(&raw, rows[n].buf, rows[n].len), 0);
		if (n == 7)
			raw.dense[SS_F_HUNKS] = NAN;
		assert_int_equal(ss_dataset_add_raw(b, c, &raw, (int)(n % 3 == 0), 0), 0);
		ss_commit_free(c);
	}
	ss_source_free(src);
	idx = malloc(n * sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	alarm(60);
	assert_int_equal(ss_model_train(&m, SS_MODEL_LINEAR, b, idx, n, &o), SS_EINVALID);
	alarm(0);
	assert_null(m);
	assert_non_null(strstr(ss_error_last(), "not finite"));
	for (size_t i = 0; i < nrows; i++)
		ss_strbuf_release(&rows[i]);
	free(rows);
	free(idx);
	ss_feat_raw_release(&raw);
	ss_dataset_free(a);
	ss_dataset_free(b);
	free(repo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoding_exact),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_rows_equal_extraction),
		cmocka_unit_test(test_index_fills_training_reads),
		cmocka_unit_test(test_stale_rows_dropped),
		cmocka_unit_test(test_earlier_layout),
		cmocka_unit_test(test_interrupted_fill_completed),
		cmocka_unit_test(test_parts_equal_diff_path),
		cmocka_unit_test(test_read_only_index),
		cmocka_unit_test(test_out_of_range_refused),
		cmocka_unit_test(test_damaged_value_read_again),
		cmocka_unit_test(test_trainer_refuses_non_finite),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
